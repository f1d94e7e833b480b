"""Hostile stores and import files: a foreign or damaged SQLite file, a bad export line, a bad path.

Each must end in one line on stderr (``tute: error: ...``) naming the file and the line, key or row,
with exit status 2 and no traceback, and must leave what is already stored (or written) as it was.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any, Callable

import pytest

from league_util import write_config


def tute(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def one_line_error(out: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, one ``tute: error:`` line on stderr holding every needle, no traceback."""
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert len(lines) == 1 and lines[0].startswith("tute: error: "), out.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def sql(path: Path, statement: str) -> list[Any]:
    with closing(sqlite3.connect(path)) as db, db:
        return db.execute(statement).fetchall()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament 't' (greedy against random, 3 deals: 6 games) and its export."""
    folder = tmp_path_factory.mktemp("stores")
    write_config(folder, deals=3, workers=1, entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    out = tute(folder, "run", "--quiet")
    assert out.returncode == 0, out.stderr
    assert tute(folder, "export", "--out", "all.jsonl").returncode == 0
    return folder


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export of a tournament played by the match (``unit = "match"``)."""
    folder = tmp_path_factory.mktemp("matches")
    write_config(folder, deals=1, workers=1, variants=[{"name": "tute-2", "unit": "match", "match": "first_to:2"}],
                 entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    assert tute(folder, "run", "--quiet").returncode == 0
    assert tute(folder, "export", "--out", "all.jsonl").returncode == 0
    return folder / "all.jsonl"


def copy_store(played: Path, tmp_path: Path, name: str = "copy.sqlite") -> Path:
    """A copy of the played store (checkpointed first, so the copy holds every game)."""
    sql(played / "store.sqlite", "PRAGMA wal_checkpoint(TRUNCATE)")
    target = tmp_path / name
    shutil.copy(played / "store.sqlite", target)
    return target


def edited(src: Path, dst: Path, line: int, change: Callable[[dict[str, Any]], None]) -> Path:
    """``src`` with JSON line ``line`` (0: the header) changed by ``change``."""
    lines = src.read_text().splitlines()
    data = json.loads(lines[line])
    change(data)
    lines[line] = json.dumps(data)
    dst.write_text("\n".join(lines) + "\n")
    return dst


# ------------------------------------------------------------------------------------------ 1 export
def test_export_of_an_unknown_tournament_leaves_the_file(played: Path, tmp_path: Path) -> None:
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    out = tute(played, "export", "-t", "nope", "--out", str(keep))
    one_line_error(out, "no tournament 'nope'", "stored: t")
    assert keep.read_text() == "precious\n"


def test_an_export_that_fails_half_way_leaves_the_file(played: Path, tmp_path: Path) -> None:
    """The export goes to a file beside --out, renamed over it only once complete."""
    store = copy_store(played, tmp_path)
    sql(store, "UPDATE plans SET planned = 'garbage'")  # found after --out would have been opened
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    out = tute(played, "export", "-t", "t", "--out", str(keep), "--store", str(store))
    one_line_error(out, "plans", "planned")
    assert keep.read_text() == "precious\n"
    assert not [p.name for p in tmp_path.iterdir() if ".part" in p.name]  # no part file left
    assert tute(played, "export", "--out", str(keep)).returncode == 0
    assert keep.read_text() == (played / "all.jsonl").read_text()


# ------------------------------------------------------------------------------------ 2 foreign files
def test_a_foreign_sqlite_file_is_not_taken_over(played: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine.db"
    sql(mine, "CREATE TABLE foo (x)")
    before = mine.read_bytes()
    one_line_error(tute(played, "import", "all.jsonl", "--store", str(mine)), str(mine), "not a tute-arena store")
    write_config(tmp_path, deals=1, workers=1, store="mine.db")
    one_line_error(tute(tmp_path, "run", "--quiet"), "mine.db", "not a tute-arena store")
    assert mine.read_bytes() == before  # no table added, not switched to WAL
    assert sql(mine, "PRAGMA journal_mode") == [("delete",)]


@pytest.mark.parametrize("command", [["leaderboard"], ["games"], ["verify"], ["export"], ["replay", "t/x"]])
@pytest.mark.parametrize("kind", ["empty", "foreign"])
def test_readers_refuse_a_file_without_tutes_tables(played: Path, tmp_path: Path, command: list[str],
                                                     kind: str) -> None:
    z = tmp_path / "z.sqlite"
    if kind == "empty":
        z.write_bytes(b"")
    else:
        sql(z, "CREATE TABLE foo (x)")
    one_line_error(tute(played, *command, "--store", str(z)), str(z), "not a tute-arena store")


# ------------------------------------------------------------------------------------------ 3 verify
def test_verify_of_an_unknown_tournament_is_an_error(played: Path) -> None:
    one_line_error(tute(played, "verify", "-t", "nope"), "no tournament 'nope'", "stored: t")


# ------------------------------------------------------------------------------ 8 partial tournaments
def interrupted(played: Path, tmp_path: Path) -> Path:
    """A copy of the store as a run killed after its first three games leaves it (planned: 6)."""
    store = copy_store(played, tmp_path, "interrupted.sqlite")
    sql(store, "DELETE FROM games WHERE id NOT IN (SELECT id FROM games ORDER BY round, variant_index, tbl, "
               "deal, rotation LIMIT 3)")
    sql(store, "UPDATE tournaments SET finished = NULL")
    for table in ("tallies", "pair_tallies", "forfeit_tallies", "watermarks", "tally_counts"):
        sql(store, f"DELETE FROM {table}")  # a store keeps no tally until one is saved: folded on reading
    assert sql(store, "SELECT planned FROM plans") == [(6,)]
    return store


def test_an_imported_partial_tournament_stays_resumable(played: Path, tmp_path: Path) -> None:
    part = tmp_path / "part.jsonl"
    assert tute(played, "export", "--out", str(part), "--store", str(interrupted(played, tmp_path))).returncode == 0
    new = tmp_path / "new.sqlite"
    assert tute(played, "import", str(part), "--store", str(new)).returncode == 0
    assert sql(new, "SELECT finished FROM tournaments") == [(None,)]
    assert "partial: 3 of 6" in tute(played, "leaderboard", "--store", str(new)).stdout
    write_config(tmp_path, deals=3, workers=1, store="new.sqlite",
                 entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    run = tute(tmp_path, "run", "--quiet")
    assert run.returncode == 0 and "finished earlier" not in run.stderr, run.stderr
    assert sql(new, "SELECT COUNT(*) FROM games") == [(6,)]


def test_a_game_imported_into_an_interrupted_tournament_does_not_finish_it(played: Path, tmp_path: Path) -> None:
    store = interrupted(played, tmp_path)
    stored = {r[0] for r in sql(store, "SELECT id FROM games")}
    lines = (played / "all.jsonl").read_text().splitlines()
    missing = next(ln for ln in lines[1:] if json.loads(ln)["id"] not in stored)
    one = tmp_path / "one.jsonl"
    one.write_text(missing + "\n")
    out = tute(played, "import", str(one), "--store", str(store))
    assert out.returncode == 0, out.stderr
    assert sql(store, "SELECT finished FROM tournaments") == [(None,)]
    assert sql(store, "SELECT COUNT(*) FROM games") == [(4,)]


# ------------------------------------------------------------------------------ 4 the header's config
HEADERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "no config": lambda h: h.pop("config"),
    "config 5": lambda h: h.update(config=5),
    "config {}": lambda h: h.update(config={}),
    "no rating": lambda h: h["config"].pop("rating"),
    "no variants": lambda h: h["config"].update(variants=[]),
    "unknown preset": lambda h: h["config"]["variants"][0].update(preset="zzz"),
    "unknown option": lambda h: h["config"]["variants"][0].update(options={"bogus": 1}),
    "rating k": lambda h: h["config"]["rating"].update(k="x"),
    "entrants 5": lambda h: h.update(entrants=5),
    "entrants junk": lambda h: h.update(entrants=[{"x": 1}]),
    "planned junk": lambda h: h.update(planned="x"),
}


@pytest.mark.parametrize("case", HEADERS)
def test_a_bad_tournament_header_is_refused(played: Path, tmp_path: Path, case: str) -> None:
    bad = edited(played / "all.jsonl", tmp_path / "bad.jsonl", 0, HEADERS[case])
    new = tmp_path / "new.sqlite"
    one_line_error(tute(played, "import", str(bad), "--store", str(new)), f"{bad}:1:", "nothing imported")
    assert not new.exists(), "a refused import leaves no store behind"


def test_a_header_whose_bots_are_not_installed_here_still_imports(played: Path, tmp_path: Path) -> None:
    """The games are played: the header's config is checked, its bots are not looked up."""
    def elsewhere(h: dict[str, Any]) -> None:
        h["config"]["entrants"][0]["bot"] = "no_such_module:Bot"
    good = edited(played / "all.jsonl", tmp_path / "good.jsonl", 0, elsewhere)
    out = tute(played, "import", str(good), "--store", str(tmp_path / "new.sqlite"))
    assert out.returncode == 0, out.stderr


def test_a_header_is_imported_under_a_season_name(played: Path, tmp_path: Path) -> None:
    """A league's seasons are named club/s1: the header check judges the config, not the name."""
    new = tmp_path / "new.sqlite"
    out = tute(played, "import", "all.jsonl", "--tournament", "club/s1", "--store", str(new))
    assert out.returncode == 0, out.stderr
    assert sql(new, "SELECT name FROM tournaments") == [("club/s1",)]


# ---------------------------------------------------------------------------------- 5 the game lines
GAME_LINES: dict[str, Callable[[dict[str, Any]], None]] = {
    "round 10**30": lambda d: d["schedule"].update(round=10 ** 30),
    "units not names": lambda d: d["schedule"].update(units=[1, 2]),
    "unknown variant label": lambda d: d["schedule"].update(variant="zzz"),
    # beyond SQLite's 64-bit integers (refused by the rules' option range, arena/variants.py)
    "an option beyond 64 bits": lambda d: d["options"].update(last_trick_bonus=10 ** 20),
}
MATCH_LINES: dict[str, Callable[[dict[str, Any]], None]] = {
    "result not an object": lambda d: d.update(result=5),
    "one seat of a number": lambda d: d.update(seats=[1]),
    "id a number": lambda d: d.update(id=5),
    "seats a string": lambda d: d.update(seats="x"),
}


@pytest.mark.parametrize("case", GAME_LINES)
def test_a_bad_game_line_is_refused(played: Path, tmp_path: Path, case: str) -> None:
    bad = edited(played / "all.jsonl", tmp_path / "bad.jsonl", 2, GAME_LINES[case])
    new = tmp_path / "new.sqlite"
    one_line_error(tute(played, "import", str(bad), "--store", str(new)), f"{bad}:3:", "nothing imported")
    assert not new.exists(), "a refused import leaves no store behind"


@pytest.mark.parametrize("case", MATCH_LINES)
def test_a_bad_match_line_is_refused(matches: Path, tmp_path: Path, case: str) -> None:
    bad = edited(matches, tmp_path / "bad.jsonl", 1, MATCH_LINES[case])
    new = tmp_path / "new.sqlite"
    one_line_error(tute(tmp_path, "import", str(bad), "--store", str(new)), f"{bad}:2:", "nothing imported")
    assert not new.exists(), "a refused import leaves no store behind"


def test_a_good_match_export_still_imports(matches: Path, tmp_path: Path) -> None:
    out = tute(tmp_path, "import", str(matches), "--store", str(tmp_path / "new.sqlite"))
    assert out.returncode == 0, out.stderr


# -------------------------------------------------------------------------------------------- 6 replay
@pytest.mark.parametrize("where", ["/nonexistent/x.html", "all.jsonl/x.html"])
def test_replay_html_to_a_path_that_cannot_be_written(played: Path, where: str) -> None:
    one_line_error(tute(played, "replay", "--file", "all.jsonl", "--html", where), where)


def test_replay_file_refuses_what_import_refuses(played: Path, tmp_path: Path) -> None:
    bad = edited(played / "all.jsonl", tmp_path / "bad.jsonl", 1, lambda d: d["options"].update(hand_size=1.5))
    one_line_error(tute(played, "replay", "--file", str(bad)), f"{bad}:2:", "not a game record")
    one_line_error(tute(played, "import", str(bad), "--store", str(tmp_path / "n.sqlite")), f"{bad}:2:")


# ------------------------------------------------------------------------------------ 7 damaged stores
DAMAGE = {
    "config garbage": ("UPDATE tournaments SET config_json = 'garbage'", "tournaments row 't'"),
    "config foreign": ("UPDATE tournaments SET config_json = '{\"x\": 1}'", "tournaments row 't'"),
    "params garbage": ("UPDATE entrants SET params = 'garbage'", "entrants row"),
    "tallies.mu": ("UPDATE tallies SET mu = 'garbage'", "tallies row"),
    "forfeit_tallies.reasons": ("UPDATE forfeit_tallies SET reasons = 'garbage'", "forfeit_tallies row"),
    "plans.planned": ("UPDATE plans SET planned = 'garbage'", "plans row"),
    "pair_tallies.mean": ("UPDATE pair_tallies SET mean = 'garbage'", "pair_tallies row"),
    "no tallies table": ("DROP TABLE tallies", "no such table: tallies"),
    # text that is not UTF-8 fails in SQLite's own fetch, past every check of the rows' contents
    "config not UTF-8": ("UPDATE tournaments SET config_json = CAST(X'7BFF7D' AS TEXT)", "Could not decode to UTF-8"),
    "result not UTF-8": ("UPDATE games SET result = CAST(X'7BFF7D' AS TEXT) WHERE deal = 1", "Could not decode to UTF-8"),
    "seats not UTF-8": ("UPDATE games SET seats = CAST(X'5BFF5D' AS TEXT) WHERE deal = 1", "Could not decode to UTF-8"),
}
#: which readers meet each damage (the others never read that table)
READERS = {
    "config garbage": ["leaderboard", "games", "verify", "export"],
    "config foreign": ["leaderboard", "games", "verify", "export"],
    "params garbage": ["export"],
    "tallies.mu": ["leaderboard", "verify"],
    "forfeit_tallies.reasons": ["leaderboard", "verify"],
    "plans.planned": ["leaderboard", "verify", "export"],
    "pair_tallies.mean": ["verify"],
    "no tallies table": ["leaderboard", "verify"],
    "config not UTF-8": ["leaderboard", "games", "verify", "export"],
    "result not UTF-8": ["games", "verify", "export"],
    "seats not UTF-8": ["games", "verify", "export"],
}


@pytest.mark.parametrize("case", DAMAGE)
def test_a_damaged_store_is_one_line_per_reader(played: Path, tmp_path: Path, case: str) -> None:
    store = copy_store(played, tmp_path)
    statement, needle = DAMAGE[case]
    sql(store, statement)
    for reader in READERS[case]:
        out = tute(played, reader, "--store", str(store))
        one_line_error(out, "copy.sqlite", needle)


def test_replay_of_a_damaged_record(played: Path, tmp_path: Path) -> None:
    store = copy_store(played, tmp_path)
    sql(store, "UPDATE games SET record = '{\"x\": 1}'")
    game_id = sql(store, "SELECT id FROM games LIMIT 1")[0][0]
    one_line_error(tute(played, "replay", game_id, "--store", str(store)), "copy.sqlite", game_id)


@pytest.mark.parametrize("case", ["tallies.mu", "plans.planned", "forfeit_tallies.reasons", "no tallies table"])
def test_run_on_a_damaged_store_is_one_line(played: Path, tmp_path: Path, case: str) -> None:
    """``tute run`` of a finished tournament reads the kept tables to print its table: damaged, they are
    one line, as for the readers."""
    folder = tmp_path / "t"
    shutil.copytree(played, folder)
    sql(folder / "store.sqlite", "PRAGMA wal_checkpoint(TRUNCATE)")
    statement, _ = DAMAGE[case]
    needle = case.split(".")[0] if "." in case else "tallies: no rows"  # a writer makes a dropped table again
    sql(folder / "store.sqlite", statement)
    out = tute(folder, "run", "--quiet")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert lines[0].startswith("t: finished earlier") and len(lines) == 2, out.stderr
    assert lines[1].startswith("tute: error: ") and "store.sqlite" in lines[1] and needle in lines[1]


def test_a_reader_never_reads_past_another_process_lock(played: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A store another process holds locked is said to be so. Readers once fell back to an immutable
    read, which ignores the lock and the write-ahead log, and reported a store short of its latest
    games, exit 0, as if it were whole."""
    from leagues.tournament import database
    from leagues.tournament.store import Store, StoreError

    path = tmp_path / "locked.sqlite"
    shutil.copy(played / "store.sqlite", path)
    monkeypatch.setattr(database, "READ_TIMEOUT", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError, match="locked.sqlite: the store is locked by another process"):
            Store(path, readonly=True)
    finally:
        holder.close()
    with Store(path, readonly=True) as store:  # the lock gone, it reads
        assert store.count_games("t") == 6


def test_read_only_media_never_hides_a_write_ahead_log(played: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the store cannot be opened but as it lies (read-only media: ``mode=ro`` cannot make the
    WAL's shared memory), commits still in its ``-wal`` would be invisible: refused, saying why. With
    no such commits, the file is read as it lies."""
    from leagues.tournament import database
    from leagues.tournament.store import Store, StoreError

    opened = database._open

    def read_only_media(uri: str) -> sqlite3.Connection:
        if uri.endswith("?mode=ro"):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return opened(uri)

    path = tmp_path / "media.sqlite"
    shutil.copy(played / "store.sqlite", path)
    monkeypatch.setattr(database, "_open", read_only_media)
    writer = Store(path)  # holds the WAL open: the commit below stays in media.sqlite-wal
    try:
        writer.db.execute("PRAGMA wal_autocheckpoint=0")
        writer.db.execute("UPDATE games SET finished = finished + 1")
        assert Path(str(path) + "-wal").stat().st_size > 0
        with pytest.raises(StoreError, match="write-ahead log media.sqlite-wal holds commits"):
            Store(path, readonly=True)
    finally:
        writer.close()  # the last connection checkpoints the log into the file and removes it
    with Store(path, readonly=True) as store:
        assert store.count_games("t") == 6


def test_readers_say_a_wrong_name_a_full_output_and_a_huge_id_in_one_short_line(played: Path, matches: Path) -> None:
    """``games -t`` of a tournament not stored is an error as in every reader (it printed an empty
    table, exit 0); a full standard output is named as such (it said ``None``); an id of 100,000
    characters is clipped in the message; ``d01`` and other scripts' digits are no deal number."""
    store = str(played / "store.sqlite")
    one_line_error(tute(played, "games", "--store", store, "-t", "nope"), "no tournament 'nope' (stored: t)")
    with open("/dev/full", "w") as full:
        out = subprocess.run([sys.executable, "-m", "leagues", "export", "--store", store], cwd=played,
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.strip() == "tute: error: standard output: No space left on device"
    out = tute(played, "replay", "x" * 100_000, "--store", store)
    one_line_error(out, "no game 'xxx")
    assert len(out.stderr) < 300
    folder = matches.parent  # the fixture gives its export; the store is beside it
    match_store = str(folder / "store.sqlite")
    assert tute(folder, "replay", "t/tute-2/r1/t0/d0/s0/d1", "--store", match_store).returncode == 0
    for deal in ("d01", "d\u0661"):
        one_line_error(tute(folder, "replay", f"t/tute-2/r1/t0/d0/s0/{deal}", "--store", match_store), "no game")
