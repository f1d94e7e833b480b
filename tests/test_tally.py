"""The tables a store keeps as games land (leagues/tournament/tally.py) are, byte for byte, those a
fold of every stored game gives: after runs with one and two workers, round-robin and Swiss, every
variant family, a kill -9 and a resume, an import, a match; and the packed record column exports the
same bytes as the text it replaced."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
import pytest

from leagues.records.archive import export, import_file
from leagues.tournament.config import load_config
from leagues.tournament.leaderboard import all_tables, kept_tables_agree, render_all, tournament_status
from leagues.tournament.packing import pack, unpack
from leagues.tournament.runner import run_tournament
from leagues.tournament.store import Store
from leagues.tournament.tally import kept as keeps

from league_util import wait_for_games, write_config

TUTE = str(Path(sys.executable).parent / "tute")
FIVE = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(4)] + [{"name": "g", "bot": "greedy"}]
FAMILIES = [{"name": "tute-2"}, {"name": "tute-3"}, {"name": "tute-4-pairs"}, {"name": "subastado"},
            {"name": "cabron"}, {"name": "cabrero-5"}]


def tables(store_path: Path, tournament: str, recompute: bool) -> str:
    with Store(store_path, readonly=True) as store:
        return render_all(all_tables(store, tournament, None, True, recompute), "json", tournament,
                          tournament_status(store, tournament))


def kept(store_path: Path, tournament: str) -> bool:
    with Store(store_path, readonly=True) as store:
        return keeps(store.db, tournament)


@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
def test_kept_tables_equal_a_recomputation_whatever_the_workers(tmp_path: Path, fmt: str) -> None:
    seen = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        path = write_config(folder, format=fmt, rounds=3 if fmt == "swiss" else None, deals=2,
                            variants=FAMILIES, entrants=FIVE)
        run_tournament(load_config(path), workers=workers, quiet=True)
        assert kept(folder / "store.sqlite", "t")
        text = tables(folder / "store.sqlite", "t", False)
        assert text == tables(folder / "store.sqlite", "t", True)
        assert json.loads(text)["pooled"]["head_to_head"], "the matrix is in the comparison"
        seen.append(text)
    assert seen[0] == seen[1]


def test_a_run_killed_and_resumed_keeps_tables_that_equal_a_recomputation(tmp_path: Path) -> None:
    reference = tmp_path / "ref"
    reference.mkdir()
    ref_cfg = write_config(reference, deals=300, workers=2, variants=[{"name": "tute-2"}, {"name": "tute-3"}],
                           entrants=FIVE[:4])
    run_tournament(load_config(ref_cfg), quiet=True)
    killed = tmp_path / "killed"
    killed.mkdir()
    cfg = write_config(killed, deals=300, workers=2, variants=[{"name": "tute-2"}, {"name": "tute-3"}],
                       entrants=FIVE[:4])
    proc = subprocess.Popen([TUTE, "run", str(cfg), "--quiet"], cwd=killed, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    store = killed / "store.sqlite"
    try:
        wait_for_games(store, 600)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with Store(store, readonly=True) as s:
        total = s.count_games("t")
        mark = s.db.execute("SELECT games FROM watermarks").fetchone()
    assert 600 < total < 3600, "killed midway"
    assert mark is not None and mark[0] <= total
    # mid-way, a reader's table (the kept prefix and the games past it) is the fold of what is stored
    assert tables(store, "t", False) == tables(store, "t", True)
    run_tournament(load_config(cfg), quiet=True)
    after = tables(store, "t", False)
    assert after == tables(store, "t", True)
    assert json.loads(after)["pooled"] == json.loads(tables(reference / "store.sqlite", "t", False))["pooled"]


def test_an_import_keeps_the_tables_and_export_is_the_same_bytes_packed_or_not(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=3, variants=[{"name": "tute-2"}, {"name": "cabron"}], entrants=FIVE[:3])
    run_tournament(load_config(path), workers=1, quiet=True)
    src = tmp_path / "store.sqlite"
    out = tmp_path / "all.jsonl"
    with Store(src) as store, open(out, "w") as fh:
        export(store, fh)
    with Store(tmp_path / "copy.sqlite") as copy:
        assert import_file(out, copy) > 0
        assert keeps(copy.db, "t") and kept_tables_agree(copy, "t")
    assert tables(tmp_path / "copy.sqlite", "t", False) == tables(src, "t", False)
    # a store written before packing holds the JSON text: the same export, byte for byte
    old = tmp_path / "old.sqlite"
    old.write_bytes(src.read_bytes())
    db = sqlite3.connect(old)
    rows = db.execute("SELECT id, record FROM games").fetchall()
    assert all(isinstance(r, bytes) for _, r in rows)
    db.executemany("UPDATE games SET record = ? WHERE id = ?", [(unpack(r), i) for i, r in rows])
    db.commit()
    db.close()
    again = tmp_path / "again.jsonl"
    with Store(old) as store, open(again, "w") as fh:
        export(store, fh)
    assert again.read_bytes() == out.read_bytes()


def test_packing_round_trips_any_text_and_refuses_damage() -> None:
    for text in ["{}", '{"id":"ñ/\\u00e9","x":[1,2]}', "x" * 100_000, json.dumps({"k": list(range(999))})]:
        assert unpack(pack(text)) == text
    assert unpack("plain text row") == "plain text row"
    for bad in (b"", b"\x07abc", pack("{}")[:-3] + b"zzz"):
        with pytest.raises(ValueError):
            unpack(bad)


def test_verify_says_when_kept_tables_differ_from_the_games(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=2, entrants=FIVE[:3])
    run_tournament(load_config(path), workers=1, quiet=True)
    ok = subprocess.run([TUTE, "verify", "--store", "store.sqlite"], cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0 and "1 of 1 tournaments' tables agree" in ok.stdout
    db = sqlite3.connect(tmp_path / "store.sqlite")
    db.execute("UPDATE tallies SET wins = wins + 1 WHERE entrant = 'r0' AND scope = '*'")
    db.commit()
    db.close()
    bad = subprocess.run([TUTE, "verify", "--store", "store.sqlite"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 1 and "differ from a fold" in bad.stdout
    fixed = subprocess.run([TUTE, "leaderboard", "--store", "store.sqlite", "--recompute", "-f", "json"],
                           cwd=tmp_path, capture_output=True, text=True)
    shown = {s["entrant"]: s["wins"] for s in json.loads(fixed.stdout)["variants"]["tute-2"]["standings"]}
    with Store(tmp_path / "store.sqlite") as store:
        folded = {s.entrant: s.wins for s in all_tables(store, "t", None, False, True)[0][2]}
    assert shown == folded


def test_a_match_keeps_tables_equal_to_a_recomputation(tmp_path: Path) -> None:
    path = write_config(tmp_path, format="match", deals=40, entrants=[
        {"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random", "params": {"seed": 1}}],
        sprt={"elo0": 0, "elo1": 100, "alpha": 0.05, "beta": 0.05})
    run_tournament(load_config(path), workers=2, quiet=True)
    store = tmp_path / "store.sqlite"
    assert kept(store, "t") and tables(store, "t", False) == tables(store, "t", True)



def test_a_variant_played_by_the_match_keeps_tables_equal_to_a_recomputation(tmp_path: Path) -> None:
    """Seed 42 is a case where a rating kept as the library's Rating (1/sigma^2 inside) printed a sigma
    a last bit away from the fold of every game, and verify said the tables disagree."""
    path = write_config(tmp_path, seed=42, deals=3, variants=[{"name": "tute-2", "unit": "match"}], entrants=[
        {"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"},
        {"name": "r3", "bot": "random", "params": {"seed": 3}}])
    run_tournament(load_config(path), workers=1, quiet=True)
    store = tmp_path / "store.sqlite"
    assert kept(store, "t") and tables(store, "t", False) == tables(store, "t", True)


def test_a_stored_game_the_schedule_now_seats_otherwise_stops_the_resume(tmp_path: Path) -> None:
    """A tournament begun by a version that paired differently is never mixed with the new tables."""
    path = write_config(tmp_path, deals=40, workers=1, entrants=FIVE[:3])
    proc = subprocess.Popen([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    store = tmp_path / "store.sqlite"
    try:
        wait_for_games(store, 20, seconds=60)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    db = sqlite3.connect(store)
    gid, seats = db.execute("SELECT id, seats FROM games ORDER BY round, tbl, deal, rotation LIMIT 1").fetchone()
    db.execute("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(list(reversed(json.loads(seats)))), gid))
    db.commit()
    db.close()
    out = subprocess.run([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 2 and gid in out.stderr and "paired it differently" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_deal_stored_in_another_rotation_stops_the_resume(tmp_path: Path) -> None:
    """Without duplicate deals a deal is played in one rotation, which this version chooses otherwise
    than the last (the units now deal in turn): a deal stored under another rotation's id is a
    tournament begun by that version, and resuming it would play the deal again under the new id."""
    path = write_config(tmp_path, deals=4, workers=1, duplicate=False, entrants=FIVE[:2])
    run_tournament(load_config(path), workers=1, quiet=True)
    db = sqlite3.connect(tmp_path / "store.sqlite")
    old = db.execute("SELECT id FROM games WHERE deal = 1").fetchone()[0]
    assert old.endswith("/d1/s0")
    db.execute("UPDATE games SET id = ?, rotation = 1 WHERE id = ?", (old[:-1] + "1", old))
    db.execute("UPDATE tournaments SET finished = NULL")
    db.commit()
    db.close()
    out = subprocess.run([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    assert f"game {old[:-1]}1 is stored, but the schedule now seats" in out.stderr and "paired it differently" \
        in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
def test_a_refused_resume_stores_no_sit_out_of_the_schedule_it_refused(tmp_path: Path, fmt: str) -> None:
    """A resume refused for a stored game the schedule seats otherwise writes nothing: the sit-outs of
    the new schedule's rounds were stored before its games were checked, so the store listed two sets
    of sit-outs for such a round, the old and the refused."""
    extra = {"rounds": 3} if fmt == "swiss" else {}
    path = write_config(tmp_path, deals=1, workers=1, format=fmt, entrants=FIVE[:3], **extra)  # a bye a round
    run_tournament(load_config(path), workers=1, quiet=True)
    db = sqlite3.connect(tmp_path / "store.sqlite")
    gid, seats = db.execute("SELECT id, seats FROM games WHERE round = 2 ORDER BY id LIMIT 1").fetchone()
    db.execute("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(list(reversed(json.loads(seats)))), gid))
    db.execute("DELETE FROM byes WHERE round >= 2")  # as a run of the old version stopped in round 1 left them
    db.execute("UPDATE tournaments SET finished = NULL")
    db.commit()
    byes = db.execute("SELECT * FROM byes ORDER BY round, entrant").fetchall()
    db.close()
    assert byes, "three entrants at tables of two: one sits out each round"
    out = subprocess.run([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 2 and gid in out.stderr and "paired it differently" in out.stderr, out.stderr
    db = sqlite3.connect(tmp_path / "store.sqlite")
    assert db.execute("SELECT * FROM byes ORDER BY round, entrant").fetchall() == byes
    db.close()
