"""QA of interruption, resume and the store's safety: runs stopped at exact moments (a bot's Nth move
signals the runner, or the runner itself dies at the Nth call of a store function), then resumed with
another number of workers, give the games, byes and tables of an uninterrupted one-worker run; a match
killed at every step of its end (the decision, the games dropped past it, the fold, the finish), a league
season stopped in its second division, two tournaments and an import on one store at once, a config
edited between the stop and the resume, and the store's folder read-only, its disk full or its file
deleted under the run.

Among them the defects this pass found, each test seen failing before its fix: a read-only folder (a
traceback), a full disk (said as a damaged store), a season resumed with a bot's files changed (played
as the old version), the games a resumed season or an interrupted run counted, a store deleted under
the run (its games "played" into no file)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path
from typing import Any, Callable

import pytest

from league_util import TESTS, config_text, write_league

TUTE = str(Path(sys.executable).parent / "tute")

#: a bot that plays as ``random`` does, and, when QA_TRIP_FILE is set, once (the file is its
#: tripwire, created exclusively, so one worker of several trips and a resume never does) at its
#: QA_TRIP_AT-th move in its process does QA_TRIP_ACTION: signals the runner (its worker's parent), kills
#: the run's whole process group, kills its own worker, or deletes the store (QA_STORE)
TRIP = '''
import os, signal
from bots.random_bot import RandomBot

_moves = 0


class Trip(RandomBot):
    def choose(self, view):
        global _moves
        _moves += 1
        marker = os.environ.get("QA_TRIP_FILE")
        if marker and _moves >= int(os.environ.get("QA_TRIP_AT", "1")):
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                fd = None
            if fd is not None:
                os.close(fd)
                action = os.environ["QA_TRIP_ACTION"]
                if action == "int-runner":
                    os.kill(os.getppid(), signal.SIGINT)
                elif action == "term-runner":
                    os.kill(os.getppid(), signal.SIGTERM)
                elif action == "kill-group":
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                elif action == "kill-worker":
                    os.kill(os.getpid(), signal.SIGKILL)
                elif action == "unlink-store":
                    os.unlink(os.environ["QA_STORE"])
        return super().choose(view)
'''

#: ``python driver.py MODULE:Owner.function WHEN N -- ARGS``: ``tute ARGS`` in this process, which
#: SIGKILLs (WHEN kill-before / kill-after) or SIGINTs (int-after) itself at the Nth call of the function
DRIVER = '''
import importlib, os, signal, sys
target, when, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
module, _, attr = target.partition(":")
owner_name, _, name = attr.rpartition(".")
owner = importlib.import_module(module)
for part in filter(None, owner_name.split(".")):
    owner = getattr(owner, part)
original = getattr(owner, name)
calls = [0]


def stop():
    os.kill(os.getpid(), signal.SIGINT if when.startswith("int") else signal.SIGKILL)


def wrapped(*args, **kwargs):
    calls[0] += 1
    hit = calls[0] == n
    if hit and when.endswith("before"):
        stop()
    out = original(*args, **kwargs)
    if hit and when.endswith("after"):
        stop()
    return out


setattr(owner, name, wrapped)
from leagues.console import main
main(sys.argv[5:])
'''

ENTRANTS = [{"name": "a", "bot": "random", "params": {"seed": 1}},
            {"name": "b", "bot": "greedy"},
            {"name": "c", "bot": "qa_trip:Trip", "isolation": "inprocess", "params": {"seed": 3}},
            {"name": "d", "bot": "random", "params": {"seed": 4}}]
VARIANTS = [{"name": "tute-2"}, {"name": "tute-3"}]
CONFIGS: dict[str, dict[str, Any]] = {
    # 6 pairs x 30 deals x 2 + 4 triples x 30 deals x 3 = 720 games
    "round-robin": dict(format="round-robin", deals=30, seed=11, variants=VARIANTS, entrants=ENTRANTS),
    # five entrants: a bye in tute-2 and two sit-outs in tute-3 every round
    "swiss": dict(format="swiss", rounds=4, deals=6, seed=11, variants=VARIANTS,
                  entrants=[*ENTRANTS, {"name": "e", "bot": "random", "params": {"seed": 5}}]),
}


# ----------------------------------------------------------------------------------------------- helpers
def folder_with_bots(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qa_trip.py").write_text(TRIP)
    (folder / "qa_driver.py").write_text(DRIVER)
    return folder


def env_of(folder: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(folder), str(TESTS), os.environ.get("PYTHONPATH", "")])
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_")}
    return {**env, "PYTHONPATH": path, **extra}


def trip_env(folder: Path, action: str, at: int, **extra: str) -> dict[str, str]:
    return env_of(folder, QA_TRIP_FILE=str(folder / "tripped"), QA_TRIP_AT=str(at), QA_TRIP_ACTION=action, **extra)


def tute(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120,
         preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, env=env or env_of(cwd),
                          timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=preexec_fn)


def driven(folder: Path, target: str, when: str, n: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``tute ARGS`` stopped at the Nth call of ``target`` (``DRIVER``)."""
    return subprocess.run([sys.executable, str(folder / "qa_driver.py"), target, when, str(n), "--", *args],
                          capture_output=True, text=True, cwd=folder, env=env_of(folder), timeout=120,
                          stdin=subprocess.DEVNULL, start_new_session=True)


def count(store: Path, tournament: str | None = None) -> int:
    with closing(sqlite3.connect(store)) as db:
        if tournament is None:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        return int(db.execute("SELECT COUNT(*) FROM games WHERE tournament = ?", (tournament,)).fetchone()[0])


def games(store: Path, tournament: str | None = None) -> list[tuple[Any, ...]]:
    """Every stored game, ordered by id: everything but the time it finished."""
    sql = ("SELECT id, tournament, variant, variant_index, round, tbl, deal, rotation, seats, units, seed, dealer, "
           "status, result, record FROM games")
    with closing(sqlite3.connect(store)) as db:
        if tournament is None:
            return db.execute(sql + " ORDER BY id").fetchall()
        return db.execute(sql + " WHERE tournament = ? ORDER BY id", (tournament,)).fetchall()


def byes(store: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(store)) as db:
        return db.execute("SELECT * FROM byes ORDER BY 1, 2, 3, 4").fetchall()


def tables(store: Path, tournament: str = "t") -> dict[str, str]:
    """The tables as readers print them: kept, and every game folded again, with the matrix."""
    out = {}
    for key, extra in (("plain", []), ("json", ["-f", "json", "--matrix"]),
                       ("recomputed", ["-f", "json", "--matrix", "--recompute"])):
        done = tute("leaderboard", "--store", str(store), "-t", tournament, *extra, cwd=store.parent)
        assert done.returncode == 0, done.stderr
        out[key] = done.stdout.replace(str(store.parent), "")
    return out


def snapshot(store: Path, tournament: str = "t") -> dict[str, Any]:
    return {"games": games(store, tournament), "byes": byes(store), "tables": tables(store, tournament)}


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """The uninterrupted one-worker run of each config, made once."""
    made: dict[str, dict[str, Any]] = {}

    def get(fmt: str) -> dict[str, Any]:
        if fmt not in made:
            folder = folder_with_bots(tmp_path_factory.mktemp(f"ref-{fmt}"))
            (folder / "t.toml").write_text(config_text(**CONFIGS[fmt]))
            done = tute("run", "t.toml", "-q", "-j", "1", cwd=folder)
            assert done.returncode == 0, done.stderr
            made[fmt] = snapshot(folder / "store.sqlite")
        return made[fmt]
    return get


# ------------------------------------------------------------------ stopped at a move, resumed with other -j
@pytest.mark.parametrize("fmt, action, at, first_j, then_j, code", [
    ("round-robin", "int-runner", 500, "2", "1", 130),     # Ctrl-C at the runner only
    ("round-robin", "term-runner", 300, "1", "2", 130),    # a service manager stopping it
    ("round-robin", "kill-group", 900, "2", "1", -signal.SIGKILL),  # kill -9 of runner and workers
    ("round-robin", "kill-worker", 200, "2", "2", 2),      # one worker dies under the runner
    ("swiss", "int-runner", 150, "1", "2", 130),           # mid round 1 or 2
    ("swiss", "kill-group", 420, "2", "1", -signal.SIGKILL),
    ("swiss", "term-runner", 40, "2", "1", 130),           # at the very first games
])
def test_stopped_at_a_move_then_resumed_with_other_workers_equals_uninterrupted(
        tmp_path: Path, references: Callable[[str], dict[str, Any]], fmt: str, action: str, at: int,
        first_j: str, then_j: str, code: int) -> None:
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**CONFIGS[fmt]))
    first = tute("run", "t.toml", "-q", "-j", first_j, cwd=folder, env=trip_env(folder, action, at))
    assert first.returncode == code, first.stderr
    assert "Traceback" not in first.stderr
    if code == 130:
        assert "run again to resume" in first.stderr
    if code == 2:
        lines = first.stderr.strip().splitlines()
        assert len(lines) == 1 and "worker process died while playing" in lines[0], first.stderr
    partial = count(folder / "store.sqlite")
    planned = len(references(fmt)["games"])
    assert partial < planned, "stopped before the end"
    again = tute("run", "t.toml", "-q", "-j", then_j, cwd=folder)
    assert again.returncode == 0, again.stderr
    assert f"({partial} already stored)" in again.stderr
    assert snapshot(folder / "store.sqlite") == references(fmt)


# ------------------------------------------------------------------ a match killed at each step of its end
MATCH = ["match", "random", "greedy", "-v", "tute-2", "-v", "tute-3", "--field", "random", "--sprt", "0,10", "-q",
         "--store", "s.sqlite"]
MATCH_NAME = "match-random-vs-greedy"


@pytest.fixture(scope="module")
def match_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("match-ref")
    done = tute(*MATCH, "-j", "1", cwd=folder)
    assert done.returncode == 0, done.stderr  # H1: greedy is better
    return done.stdout, snapshot(folder / "s.sqlite", MATCH_NAME)


@pytest.mark.parametrize("target, when, n", [
    ("leagues.tournament.store:Store.add_games", "kill-after", 12),      # between two batches
    ("leagues.tournament.store:Store.add_games", "kill-before", 1),      # the first batch never stored
    ("leagues.tournament.store:Store.drop_games_past", "kill-before", 1),  # decided, the games past it kept
    ("leagues.tournament.store:Store.drop_games_past", "kill-after", 1),
    ("leagues.tournament.watermark:Watermark.settle", "kill-after", 1),  # the tables folded, not finished
    ("leagues.tournament.store:Store.mark_finished", "kill-after", 1),   # finished, the summary not printed
])
def test_a_match_killed_at_each_step_of_its_end_resumes_to_the_same_store(
        tmp_path: Path, match_reference: tuple[str, dict[str, Any]], target: str, when: str, n: int) -> None:
    folder = folder_with_bots(tmp_path)
    first = driven(folder, target, when, n, *MATCH, "-j", "2")
    assert first.returncode == -signal.SIGKILL, first.stderr
    again = tute(*MATCH, "-j", "1", cwd=folder)
    assert again.returncode == 0, again.stderr
    out, reference = match_reference
    assert again.stdout == out
    assert snapshot(folder / "s.sqlite", MATCH_NAME) == reference


def test_an_interrupted_run_counts_every_game_it_stored(tmp_path: Path) -> None:
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**CONFIGS["round-robin"]))
    # Ctrl-C delivered right after the 10th batch's COMMIT returned
    first = driven(folder, "leagues.tournament.store:Store.add_games", "int-after", 10, "run", "t.toml", "-q",
                   "-j", "1")
    assert first.returncode == 130, first.stderr
    stored = count(folder / "store.sqlite")
    assert f"interrupted: {stored} games stored this run" in first.stderr, first.stderr


# ------------------------------------------------------------------ a league season stopped in division 2
LEAGUE_ENTRANTS = [("r1", "random", {"seed": 1}, "auto"), ("r2", "random", {"seed": 2}, "auto"),
                   ("r3", "random", {"seed": 3}, "auto"), ("g", "greedy", {}, "auto"),
                   ("trip", "qa_trip:Trip", {"seed": 3}, "inprocess"), ("g2", "greedy", {}, "auto")]


def make_league(folder: Path) -> Path:
    from leagues.league.league import League

    club = folder / "club"
    club.mkdir(parents=True)
    write_league(club, deals=30, workers=1, seed=5, divisions=2)
    with League.open(club) as lg:
        for name, bot, params, isolation in LEAGUE_ENTRANTS:
            lg.submit(name, bot, params=params, isolation=isolation)
    return club


def league_snapshot(store: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(store)) as db:
        return {
            "games": games(store),
            "ratings": db.execute("SELECT * FROM league_ratings ORDER BY season, scope, entrant").fetchall(),
            "field": db.execute("SELECT * FROM league_season_entrants ORDER BY season, entrant").fetchall(),
            "seasons": db.execute("SELECT season, tournaments, finished IS NOT NULL FROM league_seasons").fetchall(),
        }


@pytest.fixture(scope="module")
def league_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One league played whole, and the same stopped (Ctrl-C) in its second division, then resumed with
    two workers."""
    folder = folder_with_bots(tmp_path_factory.mktemp("league"))
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(folder))
    try:
        ref, cut = make_league(folder / "ref"), make_league(folder / "cut")
    finally:
        mp.undo()
    env = env_of(folder)
    full = subprocess.run([TUTE, "league", "season", "-l", str(ref), "-q"], capture_output=True, text=True, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert full.returncode == 0, full.stderr
    # the trip bot plays in division 2 only: division 1 is finished when it trips
    first = subprocess.run([TUTE, "league", "season", "-l", str(cut), "-q"], capture_output=True, text=True,
                           env=trip_env(folder, "int-runner", 200), timeout=120, stdin=subprocess.DEVNULL)
    partial = league_snapshot(cut / "league.sqlite")
    again = subprocess.run([TUTE, "league", "season", "-l", str(cut), "-q", "--workers", "2"], capture_output=True,
                           text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    return {"full": full, "first": first, "partial": partial, "again": again,
            "reference": league_snapshot(ref / "league.sqlite"), "resumed": league_snapshot(cut / "league.sqlite")}


def test_a_season_stopped_in_its_second_division_resumes_to_the_same_season(league_runs: dict[str, Any]) -> None:
    first, partial, again = league_runs["first"], league_runs["partial"], league_runs["again"]
    assert first.returncode == 130 and "Traceback" not in first.stderr, first.stderr
    div1 = [g for g in partial["games"] if g[1] == "club/s1/div1"]
    assert div1 and len(div1) < len(partial["games"]) < len(league_runs["reference"]["games"]), \
        "division 1 done, division 2 begun"
    assert again.returncode == 0, again.stderr
    assert league_runs["resumed"] == league_runs["reference"]
    assert again.stdout == league_runs["full"].stdout


def test_a_resumed_season_counts_the_games_already_stored(league_runs: dict[str, Any]) -> None:
    stored = len(league_runs["partial"]["games"])
    played = len(league_runs["reference"]["games"]) - stored
    assert f"{played} games played ({stored} already stored)" in league_runs["again"].stderr, \
        league_runs["again"].stderr


def test_a_season_is_not_resumed_with_a_bot_whose_files_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from leagues.league.league import League

    folder = folder_with_bots(tmp_path)
    monkeypatch.syspath_prepend(str(folder))
    club = folder / "club"
    club.mkdir()
    write_league(club, deals=30, workers=1, seed=5)
    with League.open(club) as lg:
        lg.submit("a", "random", params={"seed": 1})
        lg.submit("trip", "qa_trip:Trip", params={"seed": 3}, isolation="inprocess")
    first = subprocess.run([TUTE, "league", "season", "-l", str(club), "-q"], capture_output=True, text=True,
                           env=trip_env(folder, "int-runner", 100), timeout=120, stdin=subprocess.DEVNULL)
    assert first.returncode == 130, first.stderr
    # its owner changes the bot: it now plays its first legal move (a new version, were it submitted)
    bot = folder / "qa_trip.py"
    bot.write_text(bot.read_text().replace("return super().choose(view)", "return view.legal[0]"))
    again = subprocess.run([TUTE, "league", "season", "-l", str(club), "-q"], capture_output=True, text=True,
                           env=env_of(folder), timeout=120, stdin=subprocess.DEVNULL)
    # as a new season refuses it ("its files changed since version 1 was submitted"), so must the resume
    assert again.returncode == 2 and "changed" in again.stderr, again.stderr


# ------------------------------------------------------------------ two runs, an import and readers at once
def test_two_tournaments_an_import_and_readers_on_one_store_at_once(tmp_path: Path) -> None:
    folder = folder_with_bots(tmp_path)
    kw = dict(CONFIGS["round-robin"], deals=60)
    for name in ("t", "u", "v"):
        (folder / f"{name}.toml").write_text(config_text(**dict(kw, name=name, seed=len(name) + ord(name))))
        (folder / f"ref-{name}").mkdir()
        (folder / f"ref-{name}.toml").write_text(config_text(**dict(kw, name=name, seed=len(name) + ord(name),
                                                                    store=f"ref-{name}/store.sqlite")))
        done = tute("run", f"ref-{name}.toml", "-q", "-j", "1", cwd=folder)
        assert done.returncode == 0, done.stderr
    exported = tute("export", "--store", "ref-v/store.sqlite", "-t", "v", "--out", "v.jsonl", cwd=folder)
    assert exported.returncode == 0, exported.stderr
    env = env_of(folder)
    runs = [subprocess.Popen([TUTE, "run", f"{name}.toml", "-q", "-j", "2"], cwd=folder, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            for name in ("t", "u")]
    readers: list[subprocess.CompletedProcess[str]] = []

    def read() -> None:
        for _ in range(4):
            if (folder / "store.sqlite").exists() and count(folder / "store.sqlite") > 0:
                for args in (["leaderboard", "-t", "t", "-f", "json"], ["export", "-t", "u"],
                             ["verify"]):
                    readers.append(tute(*args, "--store", "store.sqlite", cwd=folder))
    reader = threading.Thread(target=read)
    reader.start()
    imported = tute("import", "v.jsonl", "--store", "store.sqlite", cwd=folder)
    reader.join()
    for proc in runs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert imported.returncode == 0, imported.stderr
    for done in readers:  # a reader of a store being written reads a consistent prefix, or is told to wait
        assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr
    for name in ("t", "u", "v"):
        assert games(folder / "store.sqlite", name) == games(folder / f"ref-{name}" / "store.sqlite", name)
        assert tables(folder / "store.sqlite", name)["recomputed"] == \
            tables(folder / f"ref-{name}" / "store.sqlite", name)["recomputed"]
    check = tute("verify", "--store", "store.sqlite", cwd=folder)
    assert check.returncode == 0 and "3 of 3 tournaments' tables agree" in check.stdout, check.stdout + check.stderr


# ------------------------------------------------------------------ the config edited between stop and resume
def test_an_edit_between_stop_and_resume_is_refused_naming_every_key_but_workers_and_log_are_free(
        tmp_path: Path, references: Callable[[str], dict[str, Any]]) -> None:
    folder = folder_with_bots(tmp_path)
    base = CONFIGS["round-robin"]
    (folder / "t.toml").write_text(config_text(**base))
    first = driven(folder, "leagues.tournament.store:Store.add_games", "kill-after", 5, "run", "t.toml", "-q")
    assert first.returncode == -signal.SIGKILL
    before = games(folder / "store.sqlite")
    entrants = [dict(e) for e in base["entrants"]]
    entrants[0]["params"] = {"seed": 99}
    for edit, keys in (({"seed": 12}, "seed"), ({"deals": 31, "time_limit_ms": 500}, "deals, time_limit_ms"),
                       ({"entrants": entrants, "variants": VARIANTS[:1]}, "entrants, variants")):
        (folder / "t.toml").write_text(config_text(**{**base, **edit}))
        refused = tute("run", "t.toml", "-q", cwd=folder)
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(lines) == 1, refused.stderr
        assert f"different config (changed: {keys})" in lines[0] and "--new" in lines[0]
        assert games(folder / "store.sqlite") == before, "a refused resume touches no game"
    (folder / "t.toml").write_text(config_text(**{**base, "workers": 2, "log": "elsewhere.log"}))
    again = tute("run", "t.toml", "-q", cwd=folder)
    assert again.returncode == 0, again.stderr
    assert (folder / "elsewhere.log").is_file()
    assert snapshot(folder / "store.sqlite") == references("round-robin")


# ------------------------------------------------------------------ the store's folder, disk and file
def make_read_only(folder: Path) -> Callable[[], None]:
    """Make ``folder`` refuse new files (chmod for a user; root ignores modes, so chattr +i), or skip."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        undo: Callable[[], None] = lambda: folder.chmod(0o755)
    elif shutil.which("chattr") and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0:
        undo = lambda: subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
    else:
        pytest.skip("cannot make a folder read-only here")
    try:
        (folder / "probe").touch()
    except OSError:
        return undo
    undo()
    pytest.skip("the folder stayed writable")


@pytest.mark.parametrize("existing", [False, True], ids=["new store", "finished store"])
def test_a_store_in_a_read_only_folder_is_one_line_exit_2(tmp_path: Path, existing: bool) -> None:
    folder = folder_with_bots(tmp_path)
    (folder / "data").mkdir()
    (folder / "t.toml").write_text(config_text(**dict(CONFIGS["round-robin"], deals=2, store="data/s.sqlite")))
    if existing:
        done = tute("run", "t.toml", "-q", cwd=folder)
        assert done.returncode == 0, done.stderr
        (folder / "data" / "s.sqlite.t.lock").unlink()  # as a store copied to read-only media holds none
    undo = make_read_only(folder / "data")
    try:
        out = tute("run", "t.toml", "-q", cwd=folder)
    finally:
        undo()
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "data/s.sqlite" in lines[0]


def limit_file_size(size: int) -> Callable[[], None]:
    """A child whose files cannot grow past ``size`` bytes: the disk is full for its store."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal's kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


@pytest.fixture(scope="module")
def disk_full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str], int]:
    folder = folder_with_bots(tmp_path_factory.mktemp("full"))
    (folder / "t.toml").write_text(config_text(**CONFIGS["round-robin"]))
    # the write-ahead log takes every commit's pages until its checkpoint at 8 MB: 1.5 MB fill up mid-run
    out = tute("run", "t.toml", "-q", "-j", "2", cwd=folder, preexec_fn=limit_file_size(1_500_000))
    return folder, out, count(folder / "store.sqlite")


def test_a_full_disk_stops_the_run_with_the_store_whole_and_resumable(
        disk_full: tuple[Path, subprocess.CompletedProcess[str], int],
        references: Callable[[str], dict[str, Any]]) -> None:
    folder, out, stored = disk_full
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert 0 < stored < len(references("round-robin")["games"]), out.stderr
    with closing(sqlite3.connect(folder / "store.sqlite")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again = tute("run", "t.toml", "-q", "-j", "1", cwd=folder)
    assert again.returncode == 0 and f"({stored} already stored)" in again.stderr, again.stderr
    assert snapshot(folder / "store.sqlite") == references("round-robin")


def test_a_full_disk_is_said_as_a_failed_write_not_a_damaged_store(
        disk_full: tuple[Path, subprocess.CompletedProcess[str], int]) -> None:
    _, out, _ = disk_full
    assert out.returncode == 2, out.stderr
    assert "cannot read" not in out.stderr and "damaged" not in out.stderr, out.stderr
    assert "run again to resume" in out.stderr, out.stderr


def test_a_store_deleted_under_the_run_is_said(tmp_path: Path) -> None:
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**CONFIGS["round-robin"]))
    store = folder / "store.sqlite"
    out = tute("run", "t.toml", "-q", "-j", "1", cwd=folder,
               env=trip_env(folder, "unlink-store", 300, QA_STORE=str(store)))
    # said as what happened (the store deleted or replaced under the run: its games are in no file), not as
    # games played into the store followed by a store that knows no such tournament
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "games played" not in out.stderr and "no tournament" not in out.stderr, out.stderr
    assert str(store) in out.stderr
