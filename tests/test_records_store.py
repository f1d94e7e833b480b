"""`tute games`, `replay GAME_ID`, `verify`, `export`, `import` over a real (small) tournament store."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from leagues.tournament.packing import unpack
from league_util import write_config


def tute(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("records")
    write_config(folder, deals=3, workers=1, variants=[{"name": "tute-2"}, {"name": "tute-4-pairs"}],
                 entrants=[{"name": "g", "bot": "greedy"}, {"name": "a", "bot": "random", "params": {"seed": 1}},
                           {"name": "b", "bot": "random", "params": {"seed": 2}}])
    out = tute(folder, "run", "--quiet")
    assert out.returncode == 0, out.stderr
    return folder


def all_records(store: Path) -> dict[str, str]:
    with sqlite3.connect(store) as db:
        return {i: unpack(r) for i, r in db.execute("SELECT id, record FROM games")}


def test_games_lists_and_filters(played: Path) -> None:
    out = tute(played, "games", "--limit", "0")
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("t/")]
    assert len(lines) == len(all_records(played / "store.sqlite"))
    only = tute(played, "games", "--entrant", "g", "--variant", "tute-2", "--limit", "0").stdout
    rows = [ln for ln in only.splitlines() if ln.startswith("t/")]
    assert rows and all(" g " in f" {ln} " and "tute-2 " in ln for ln in rows)
    assert len(rows) < len(lines)
    forfeits = tute(played, "games", "--forfeits")  # none in these games: said, not a table's head alone
    assert forfeits.returncode == 0 and forfeits.stdout.strip() == "no stored game matches"
    assert "(2 of" in tute(played, "games", "--limit", "2").stdout
    # the result in words: who won and how, with the entrants' names, no reason codes
    for ln in lines:
        seats = ln.split()[2:4] if " tute-2 " in ln else ln.split()[2:6]
        said = ln.split(" ".join(ln.split()[len(seats) + 2:len(seats) + 2 + len(seats)]), 1)[-1]
        assert re.search(r"(wins|win) on points \d+-\d+|forfeits|by a Tute", said), ln
        assert "reason" not in ln and any(name in said for name in seats)


def test_replay_by_id_from_the_store(played: Path) -> None:
    game_id = next(iter(all_records(played / "store.sqlite")))
    out = tute(played, "replay", game_id, "--seat", "1")
    assert out.returncode == 0, out.stderr
    seats = json.loads(sqlite3.connect(played / "store.sqlite").execute(
        "SELECT seats FROM games WHERE id = ?", (game_id,)).fetchone()[0])
    assert f"as seen by {seats[1]}" in out.stdout and "result:" in out.stdout
    missing = tute(played, "replay", "t/nope/r1/t0/d0/s0")
    assert missing.returncode == 2 and "no game" in missing.stderr


def test_export_import_verify_round_trip(played: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "all.jsonl.gz"
    assert tute(played, "export", "--out", str(out_file)).returncode == 0
    with gzip.open(out_file, "rt") as fh:
        lines = fh.read().splitlines()
    assert json.loads(lines[0])["format"] == "tute-arena/tournament-1"
    other = tmp_path / "other.sqlite"
    imp = tute(played, "import", str(out_file), "--store", str(other))
    assert imp.returncode == 0, imp.stderr
    assert all_records(other) == all_records(played / "store.sqlite")  # equal records
    ver = tute(played, "verify", "--store", str(other))
    assert ver.returncode == 0 and "0 wrong" in ver.stdout
    table = tute(played, "leaderboard", "--store", str(other))
    same = tute(played, "leaderboard")
    assert table.returncode == 0 and table.stdout == same.stdout
    # importing the same file again: refused, line numbers named, nothing stored twice
    again = tute(played, "import", str(out_file), "--store", str(other))
    assert again.returncode == 2 and ":2:" in again.stderr and "nothing imported" in again.stderr
    assert len(all_records(other)) == len(all_records(played / "store.sqlite"))


def test_import_refuses_malformed_lines_and_stores_nothing(played: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    assert tute(played, "play", "tute-2", "random", "greedy", "-n", "4", "--records", str(plain)).returncode == 0
    good = plain.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([good[0], "{broken", good[1], good[1], json.dumps({"format": "tute-arena/1"})]) + "\n")
    store = tmp_path / "s.sqlite"
    out = tute(played, "import", str(bad), "--store", str(store))
    assert out.returncode == 2
    assert f"{bad}:2: not JSON" in out.stderr and f"{bad}:4: duplicate of line 3" in out.stderr
    assert f"{bad}:5: not a game record" in out.stderr
    assert not store.exists(), "a refused import into a new store leaves no empty store behind"
    ok = tute(played, "import", str(plain), "--store", str(store), "--tournament", "friendly")
    assert ok.returncode == 0, ok.stderr
    assert "4 games" in ok.stdout
    assert tute(played, "leaderboard", "--store", str(store), "--tournament", "friendly").returncode == 0


def test_import_refuses_players_who_are_not_entrants(played: Path, tmp_path: Path) -> None:
    """A game whose player is not an entrant of its tournament would be counted for some of its players
    and not the others: refused, with the tournament's entrants named, and nothing stored."""
    out_file = tmp_path / "all.jsonl"
    assert tute(played, "export", "--out", str(out_file)).returncode == 0
    lines = out_file.read_text().splitlines()
    data = json.loads(lines[1])
    stranger = [("zzz" if name == data["seats"][0] else name) for name in data["seats"]]
    data["seats"], data["schedule"]["units"] = stranger, list(dict.fromkeys(stranger))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(data)]) + "\n")
    store = tmp_path / "s.sqlite"
    out = tute(played, "import", str(bad), "--store", str(store))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{bad}:2: players 'zzz': not entrants of tournament 't' (its entrants: a, b, g)" in out.stderr
    assert not store.exists()
    # into a tournament already stored (no header in the file): the way out is said
    assert tute(played, "import", str(out_file), "--store", str(store)).returncode == 0
    before = all_records(store)
    headless = tmp_path / "headless.jsonl"
    headless.write_text(json.dumps(dict(data, id="t/x/r1/t0/d0/s0")) + "\n")
    again = tute(played, "import", str(headless), "--store", str(store))
    assert again.returncode == 2 and "-t NAME imports into another tournament" in again.stderr
    assert all_records(store) == before


def test_plain_records_of_two_runs_go_to_two_tournaments(played: Path, tmp_path: Path) -> None:
    """``tute play`` ids say only the seed and the deal (play/7/0): imported under a tournament they are
    stored as TOURNAMENT/play/7/0, so two variants played with one seed do not take the same ids."""
    store = tmp_path / "s.sqlite"
    for variant, name in (("tute-2", "two"), ("cabron", "three")):
        bots = ["random"] * (3 if variant == "cabron" else 2)
        plain = tmp_path / f"{name}.jsonl"
        assert tute(played, "play", variant, *bots, "-n", "2", "--seed", "7", "--records", str(plain)).returncode == 0
        assert json.loads(plain.read_text().splitlines()[0])["id"] == "play/7/0"
        out = tute(played, "import", str(plain), "--store", str(store), "-t", name)
        assert out.returncode == 0, out.stderr
    assert {"two/play/7/0", "three/play/7/0"} <= set(all_records(store))
    again = tute(played, "import", str(tmp_path / "two.jsonl"), "--store", str(store), "-t", "two")
    assert again.returncode == 2 and "two/play/7/0 is already in" in again.stderr


@pytest.mark.parametrize("name", ["a b", "", "tab\there"])
def test_import_refuses_a_tournament_name_no_id_can_carry(played: Path, tmp_path: Path, name: str) -> None:
    plain = tmp_path / "plain.jsonl"
    assert tute(played, "play", "tute-2", "random", "greedy", "-n", "2", "--records", str(plain)).returncode == 0
    store = tmp_path / "s.sqlite"
    out = tute(played, "import", str(plain), "--store", str(store), "-t", name)
    assert out.returncode == 2 and out.stderr.startswith("tute: error: --tournament: tournament name")
    assert not store.exists()
    assert tute(played, "import", str(plain), "--store", str(store), "-t", "club/s1").returncode == 0


def test_verify_names_the_first_wrong_action_of_a_tampered_store(played: Path, tmp_path: Path) -> None:
    copy = tmp_path / "tampered.sqlite"
    copy.write_bytes((played / "store.sqlite").read_bytes())
    with sqlite3.connect(copy) as db:
        game_id, text = db.execute("SELECT id, record FROM games WHERE variant = 'tute-2' LIMIT 1").fetchone()
        data = json.loads(unpack(text))
        data["actions"][3][1] = "play 1o" if data["actions"][3][1] != "play 1o" else "play 2o"
        db.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps(data), game_id))
    out = tute(played, "verify", "--store", str(copy))
    assert out.returncode == 1
    assert f"{game_id}:" in out.stdout and "action 3" in out.stdout and "1 wrong" in out.stdout
    rep = tute(played, "replay", game_id, "--store", str(copy))
    assert rep.returncode == 2 and "action 3" in rep.stderr


def test_a_line_that_is_not_json_is_said_once_with_its_column() -> None:
    """json's own message may end in "at" ("Invalid control character at"): the column follows once."""
    from leagues.records.archive import parse_line

    with pytest.raises(ValueError) as info:
        parse_line('{"a": "\x01"}')
    assert str(info.value) == "not JSON: Invalid control character at column 8"
