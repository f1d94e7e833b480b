"""The record schema (arena.record_schema): the mutations that once imported and verified are refused
naming their field, a seeded fuzz of a few hundred mutated records never escapes as anything but a
named ValueError, a refused import leaves the store as it was, and verify catches a stored row whose
fields contradict its rules."""

from __future__ import annotations

import copy
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from leagues.tournament.packing import unpack

from arena import GameRecord, ReplayError, get_variant, play_game, replay, shuffled_deck
from bots.random_bot import RandomBot
from leagues.records.archive import ArchiveError, import_file, verify
from leagues.tournament.store import Store

TUTE = str(Path(sys.executable).parent / "tute")


def record(name: str = "subastado", seed: int = 3) -> dict:
    v = get_variant(name)
    rec = play_game(v, shuffled_deck(v, seed), 0, [RandomBot(s) for s in range(v.players)], game_id=f"x/{name}/{seed}",
                    seed=seed)
    return json.loads(rec.dumps())


MUTATIONS = [
    ("seats", lambda d: d.update(seats=[0, 1, 2, 3]), "seats[0]"),
    ("id object", lambda d: d.update(id={}), "id"),
    ("seed float", lambda d: d.update(seed=1.5), "seed"),
    ("seed bool", lambda d: d.update(seed=True), "seed"),
    ("seed huge", lambda d: d.update(seed=2 ** 63), "seed"),
    ("variant", lambda d: d.update(variant=-1), "variant"),
    ("teams", lambda d: d.update(teams=[[0, 1], [2, 3]]), "teams"),
    ("stock", lambda d: d.update(stock=""), "stock"),
    ("bid_min", lambda d: d["options"].update(bid_min=-5), "options"),
    ("control id", lambda d: d.update(id="a\x00b"), "id"),
    ("C1 control id", lambda d: d.update(id="a\x9b2Jb"), "id: must not hold control characters"),
    ("bidi override seat", lambda d: d["seats"].__setitem__(0, "a\u202eb"), "seats[0]: must not hold control characters"),
    # valid JSON (\ud800), but no text: replay pages and terminals could not write it
    ("lone surrogate seat", lambda d: d["seats"].__setitem__(0, "a\ud800b"), "seats[0]: must not hold control characters"),
    ("dealer", lambda d: d.update(dealer=9), "dealer"),
    ("action seat", lambda d: d["actions"][0].__setitem__(0, "0"), "actions[0]"),
    ("points", lambda d: d["result"].update(points=[1, 2]), "result.points"),
]


@pytest.mark.parametrize("name, mutate, field", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_contradicting_field_is_refused_by_name(name: str, mutate, field: str) -> None:
    data = record()
    mutate(data)
    with pytest.raises(ValueError) as err:
        GameRecord.from_json(data)
    assert str(err.value).startswith(field), str(err.value)


JUNK = [None, True, 0, -1, 1.5, 2 ** 70, "", "x" * 5000, "\udcff", [], [[[[[]]]]], {}, {"a": 1}, "1o", [1, 2]]


def mutate_randomly(data: dict, rng: random.Random) -> dict:
    d = copy.deepcopy(data)
    target = d
    key = rng.choice(sorted(d))
    if isinstance(d[key], dict) and d[key] and rng.random() < 0.5:
        target, key = d[key], rng.choice(sorted(d[key]))
    elif isinstance(d[key], list) and d[key] and rng.random() < 0.5:
        target, key = d[key], rng.randrange(len(d[key]))
    if rng.random() < 0.15 and isinstance(target, dict):
        del target[key]
    else:
        target[key] = rng.choice(JUNK)
    return d


def test_a_seeded_fuzz_of_mutated_records_only_ever_fails_by_name() -> None:
    rng = random.Random(2026)
    bases = [record(n, s) for n, s in (("tute-2", 1), ("subastado", 2), ("cabrero-5", 3), ("tute-4-pairs", 4))]
    tried = refused = 0
    for _ in range(400):
        data = mutate_randomly(rng.choice(bases), rng)
        tried += 1
        try:
            rec = GameRecord.from_json(data)
            replay(rec)
        except (ValueError, ReplayError) as exc:  # RecordError and ReplayError are ValueErrors, named
            refused += 1
            assert str(exc) and "\n" not in str(exc)
    assert tried == 400 and refused >= 300  # most mutations break a record; the few that do not are harmless


def test_a_refused_import_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    good = [record("tute-2", s) for s in range(6)]
    bad = copy.deepcopy(good[3])
    bad["seats"] = [1, 2]
    lines = [json.dumps(x) for x in good[:3]] + [json.dumps(bad)] + [json.dumps(x) for x in good[4:]]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(ArchiveError) as err:
            import_file(path, store)
        assert len(err.value.problems) == 1 and "in.jsonl:4" in err.value.problems[0]
        assert "seats[0]" in err.value.problems[0]
    out = subprocess.run([TUTE, "import", str(path), "--store", str(tmp_path / "s.sqlite")], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    db = sqlite3.connect(tmp_path / "s.sqlite")
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_verify_reports_a_stored_row_whose_fields_contradict_its_rules(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(record("tute-2", s)) for s in range(3)) + "\n")
    assert subprocess.run([TUTE, "import", str(path), "--store", str(tmp_path / "s.sqlite")],
                          capture_output=True, timeout=120).returncode == 0
    db = sqlite3.connect(tmp_path / "s.sqlite")
    gid, text = db.execute("SELECT id, record FROM games ORDER BY id LIMIT 1").fetchone()
    data = json.loads(unpack(text))
    data["teams"] = [[0, 1]]
    db.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps(data), gid))
    db.commit()
    db.close()
    with Store(tmp_path / "s.sqlite") as store:
        problems = {g: p for g, p in verify(store) if p}
    assert list(problems) == [gid] and problems[gid].startswith("teams")
    out = subprocess.run([TUTE, "verify", "--store", str(tmp_path / "s.sqlite")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 1 and gid in out.stdout + out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("content", [b"\xff\xfe{}\n", b"[" * 100_000 + b"\n", b'{"format": "tute-arena/1", "id": "\\ud800"}\n',
                                     b"not json\n", b"[]\n"], ids=["utf8", "deep", "surrogate", "text", "array"])
def test_bad_bytes_in_a_records_file_are_one_line_for_every_reader(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    for args in (["replay", "--file", str(path)], ["import", str(path), "--store", str(tmp_path / "s.sqlite")]):
        out = subprocess.run([TUTE, *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
        assert "in.jsonl:1" in out.stderr


@pytest.mark.parametrize("column, value", [("result", "{not json"), ("result", '{"points": [1], "ranks": [0], "reason": "x"}'),
                                           ("seats", "[1, 2]"), ("seats", "not json"), ("record", '{"format": 1}')])
def test_a_damaged_row_is_named_and_every_reader_goes_on(tmp_path: Path, column: str, value: str) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(record("tute-2", s)) for s in range(4)) + "\n")
    store = tmp_path / "s.sqlite"
    assert subprocess.run([TUTE, "import", str(path), "--store", str(store)], capture_output=True, timeout=120).returncode == 0
    db = sqlite3.connect(store)
    gid = db.execute("SELECT id FROM games ORDER BY id LIMIT 1").fetchone()[0]
    db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, gid))
    db.commit()
    db.close()
    # each prints what it can and says what it left out, in words and in its exit status
    readers = ((["export"], 1), (["verify"], 1)) if column == "record" else (
        (["games"], 1), (["leaderboard", "--recompute"], 1), (["export"], 1), (["verify"], 1))
    for args, code in readers:
        out = subprocess.run([TUTE, *args, "--store", str(store)], capture_output=True, text=True, timeout=120)
        assert out.returncode == code, (args, out.stderr)
        assert "Traceback" not in out.stderr and gid in out.stdout + out.stderr, (args, out.stderr)
        if args != ["verify"]:
            assert out.stderr.strip().splitlines()[-1] == "tute: error: 1 stored game could not be read and was " \
                                                          "left out (named above)", out.stderr
        if args == ["export"]:
            exported = [json.loads(x)["id"] for x in out.stdout.splitlines() if '"id"' in x and "schedule" in x]
            assert gid not in exported and len(exported) == 3  # named on stderr, left out, the others exported
    # the table the store kept as the games landed does not read the rows again: still there, whole
    kept = subprocess.run([TUTE, "leaderboard", "--store", str(store)], capture_output=True, text=True, timeout=120)
    assert kept.returncode == 0 and "Traceback" not in kept.stderr and " 8 " in kept.stdout


def test_every_reader_works_on_a_store_on_read_only_media(tmp_path: Path) -> None:
    src, mnt = tmp_path / "src", tmp_path / "mnt"
    src.mkdir()
    mnt.mkdir()
    cfg = src / "tournament.toml"
    cfg.write_text('name = "t"\nseed = 1\ndeals = 2\nstore = "s.sqlite"\n[[variants]]\nname = "tute-2"\n'
                   '[[entrants]]\nname = "a"\nbot = "random"\n[[entrants]]\nname = "b"\nbot = "random"\n')
    assert subprocess.run([TUTE, "run", str(cfg), "--quiet"], cwd=src, capture_output=True, timeout=120).returncode == 0
    mounted = subprocess.run(["mount", "--bind", str(src), str(mnt)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot make a bind mount here ({mounted.stderr.strip()[:80]}): the read-only case is untested")
    try:
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip("cannot remount read-only here: the read-only case is untested")
        store = str(mnt / "s.sqlite")
        before = {p.name: p.stat().st_mtime_ns for p in src.iterdir()}
        for args in (["leaderboard", "--store", store], ["games", "--store", store], ["verify", "--store", store],
                     ["export", "--store", store], ["replay", "t/tute-2/r1/t0/d0/s0", "--store", store]):
            out = subprocess.run([TUTE, *args], capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, (args, out.stderr)
            assert "Traceback" not in out.stderr
        assert {p.name: p.stat().st_mtime_ns for p in src.iterdir()} == before  # readers never write
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
