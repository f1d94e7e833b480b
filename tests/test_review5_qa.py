"""QA review of f138bab..HEAD (broken pipes, damaged rows, Ctrl-C during forks, a worker's KeyboardInterrupt).

Each test is a defect the session's fixes introduced or left on another path, reproduced exactly (a bot
that raises at a chosen deal, a signal raised in a fork hook, a pipe whose reader is closed before the
command starts), never by sleeping. Each failed before its fix.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from league_util import TESTS, config_text

TUTE = str(Path(sys.executable).parent / "tute")

#: in-process bots that raise KeyboardInterrupt of their own (never the user's Ctrl-C): in ``game_over``
#: of every deal, or in ``new_game`` of one deal named by its id (the same deal with any number of workers)
PLUGIN = '''
from bots.random_bot import RandomBot


class GoodbyeInterrupt(RandomBot):
    def game_over(self, result):
        raise KeyboardInterrupt


class ClockInterrupt(RandomBot):
    def clock_stops(self):  # a report, "never a reason to lose a game, even from a property that raises"
        raise KeyboardInterrupt


class DealInterrupt(RandomBot):
    def new_game(self, info):
        super().new_game(info)  # reseeded each deal: the same deals with any number of workers
        if info.get("game_id") in ("play/0/2", "t/tute-2/r1/t0/d1/s0"):
            raise KeyboardInterrupt
'''


def folder_with_plugin(folder: Path) -> Path:
    (folder / "qa_review5_plugin.py").write_text(PLUGIN)
    return folder


def env_of(folder: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(folder), str(TESTS), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "NO_COLOR": "1"}


def tute(folder: Path, *args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    kw.setdefault("capture_output", True)
    return subprocess.run([TUTE, *args], text=True, cwd=folder, env=env_of(folder), timeout=120,
                          stdin=subprocess.DEVNULL, **kw)


def python(folder: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], text=True, cwd=folder,
                          env=env_of(folder), timeout=120, capture_output=True, stdin=subprocess.DEVNULL)


def stored(store: Path) -> int:
    with closing(sqlite3.connect(store)) as db:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def sql(path: Path, statement: str) -> list[Any]:
    with closing(sqlite3.connect(path)) as db, db:
        return db.execute(statement).fetchall()


# ------------------------------------------------------------------ a bot's KeyboardInterrupt, other paths
@pytest.mark.parametrize("bot", ["GoodbyeInterrupt", "ClockInterrupt"])
def test_a_bots_keyboard_interrupt_in_game_over_in_a_worker_is_not_a_traceback(tmp_path: Path, bot: str) -> None:
    """c8c9f3a made a KeyboardInterrupt out of a bot's ``choose`` or ``new_game`` in a worker its crash
    (workers ignore Ctrl-C: it can only be the bot's). ``play_game``'s ``game_over`` loop catches only
    ``Exception``: the same KeyboardInterrupt there leaves ``play_game``, the worker sends its traceback
    and ``tute run`` ends in ``RuntimeError: worker N failed`` and a traceback, exit 1. The deal is decided
    by then; a failing goodbye "changes nothing" (arena/match.py), as an Exception there changes nothing.
    ``reported_stops`` (read after each deal) catches ``Exception`` and ``SystemExit`` only: the same."""
    folder = folder_with_plugin(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=3, entrants=[
        {"name": "a", "bot": "random", "params": {"seed": 1}},
        {"name": "k", "bot": f"qa_review5_plugin:{bot}", "isolation": "inprocess", "params": {"seed": 2}}]))
    out = tute(folder, "run", "t.toml", "-q", "-j", "1")
    assert "Traceback" not in out.stderr, out.stderr[-1500:]
    assert out.returncode == 0 and stored(folder / "store.sqlite") == 6, out.stderr[-1500:]


def test_a_bots_keyboard_interrupt_on_a_cluster_worker_is_its_forfeit(tmp_path: Path) -> None:
    """docs/cluster.md: the same records with ``--workers 1``, ``--workers 2`` or ``--cluster local:2``.
    With the local pool a bot's own KeyboardInterrupt is its crash forfeit (exit 0). On a Dask worker
    ``play_batch`` lets it through, and Dask re-raises a task's KeyboardInterrupt to shut the worker
    down: the batch kills each of 4 workers, four tracebacks, exit 2 ("killed each of the 4 worker
    processes"; ``tute run --cluster local:1`` on this config, 13 s). Here: ``cluster_worker.play_batch``
    on a worker set up by its plugin, as Dask calls it (a process of its own: the flag is per process)."""
    pytest.importorskip("distributed")
    folder = folder_with_plugin(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=3, entrants=[
        {"name": "a", "bot": "random", "params": {"seed": 1}},
        {"name": "k", "bot": "qa_review5_plugin:DealInterrupt", "isolation": "inprocess", "params": {"seed": 2}}]))
    out = python(folder, """
        import sys
        from leagues.tournament.config import load_config
        from leagues.tournament.schedule import round_robin_games
        from leagues.tournament.cluster_worker import TutePlayers, play_batch
        from leagues.tournament.store import ROW_RESULT

        cfg = load_config("t.toml")
        plugin = TutePlayers("qa", {e.name: e for e in cfg.entrants}, {v.label: v.variant for v in cfg.variants},
                             cfg.time_limit_ms, cfg.memory_mb, {}, None)

        class Worker:
            address = "tcp://qa"

        plugin.setup(Worker())
        try:
            batch = play_batch("qa", round_robin_games(cfg))
        except KeyboardInterrupt:
            print("the bot's KeyboardInterrupt left the task")
            sys.exit(3)
        print(len(batch.rows), sum(1 for r in batch.rows if '"forfeit":null' not in r[ROW_RESULT]))
        """)
    assert out.returncode == 0 and out.stdout.split() == ["6", "1"], (out.returncode, out.stdout, out.stderr[-800:])


def test_play_with_one_worker_gives_the_records_of_two_when_a_bot_raises_keyboard_interrupt(tmp_path: Path) -> None:
    """``--workers`` promises "the same records as one". Since c8c9f3a a bot's KeyboardInterrupt in a
    worker process is its crash forfeit; with ``-j 1`` the deals are played in the command's own process
    and the same exception still ends the command as the user's Ctrl-C: exit 130, the records cut at
    the deal. (The user's Ctrl-C comes through ``interrupt_once``, which could say so: an exception it
    did not raise is the bot's.) The start check and ``tute bots check`` play in this process too."""
    folder = folder_with_plugin(tmp_path)
    runs = {}
    for j in ("1", "2"):
        out = tute(folder, "play", "tute-2", "qa_review5_plugin:DealInterrupt", "random", "-n", "4",
                   "--isolation", "inprocess", "-j", j, "--records", f"r{j}.jsonl", "--log", f"p{j}.log")
        runs[j] = (out.returncode, (folder / f"r{j}.jsonl").read_text())
    assert runs["2"][0] == 0 and len(runs["2"][1].splitlines()) == 4  # the bot's crash forfeit, in deal 2
    assert runs["1"] == runs["2"], (runs["1"][0], len(runs["1"][1].splitlines()))


# ------------------------------------------------------------------ Ctrl-C during a fork (arena/hosting/forking.py)
def test_a_ctrl_c_during_a_bots_fork_leaves_no_bot_process(tmp_path: Path) -> None:
    """``SubprocessHost.start`` forks the bot inside ``forking()``; a Ctrl-C noted there is acted on as the
    ``with`` ends, i.e. between ``Popen`` returning and ``self.proc = proc``. The KeyboardInterrupt leaves
    ``start`` with the process untracked: ``close()`` (``Lineup.players``' cleanup, ``tute play``'s start
    check) finds ``proc is None`` and kills nothing; the bot, in a session of its own (no terminal
    Ctrl-C reaches it), outlives ``tute``. Before the fix the Ctrl-C was lost instead; now the bot is."""
    (tmp_path / "slowbot.py").write_text(textwrap.dedent("""
        import os, sys, time
        with open(sys.argv[1] + ".tmp", "w") as fh:
            fh.write(str(os.getpid()))
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        time.sleep(30)  # a slow start-up: a JVM, a model loading; stdin not read yet
        """))
    out = python(tmp_path, """
        import os, signal, sys, time
        from arena.hosting.subprocess import SubprocessHost
        from leagues.cli.exits import interrupt_once

        signal.signal(signal.SIGINT, interrupt_once)
        armed = [True]

        def ctrl_c_during_fork():  # the first Python code after the fork: where the handler runs
            if armed[0]:
                armed[0] = False
                signal.raise_signal(signal.SIGINT)

        os.register_at_fork(after_in_parent=ctrl_c_during_fork)
        host = SubprocessHost([sys.executable, "slowbot.py", "pid"], "slow")
        try:
            host.start()
        except KeyboardInterrupt:
            pass
        host.close()
        deadline = time.monotonic() + 20
        while not os.path.exists("pid") and time.monotonic() < deadline:
            time.sleep(0.01)
        pid = int(open("pid").read())
        time.sleep(0.2)
        try:
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            state = "gone"
        if state not in ("gone", "Z"):
            os.kill(pid, signal.SIGKILL)  # the test's own cleanup
        print(state)
        """)
    assert out.returncode == 0, out.stderr[-800:]
    assert out.stdout.strip() in ("gone", "Z"), f"the bot was left running ({out.stdout.strip()})"


def test_a_ctrl_c_noted_during_a_fork_that_fails_is_acted_on_then(tmp_path: Path) -> None:
    """``forking()`` acts on a noted Ctrl-C after its ``finally``, which an exception out of the ``with``
    skips (a ``Popen`` that raises: a command that cannot be executed): the Ctrl-C is neither acted on nor
    forgotten. ``interrupt_once`` returned early (deferred) so nothing was set to ignore; the note stays
    in ``_noted`` and raises KeyboardInterrupt out of the next outermost ``forking()`` (``tute run
    --forfeit-missing``: the workers' fork after the start check), or never."""
    out = python(tmp_path, """
        import signal, sys
        from arena.hosting import forking as fk
        from leagues.cli.exits import interrupt_once

        signal.signal(signal.SIGINT, interrupt_once)
        try:
            with fk.forking():
                signal.raise_signal(signal.SIGINT)  # lands during the fork: noted
                raise OSError(2, "No such file or directory")  # and the fork fails
        except KeyboardInterrupt:
            print("acted on")
            sys.exit(0)
        except OSError:
            pass
        try:
            with fk.forking():
                pass
            print("lost")
        except KeyboardInterrupt:
            print("acted on at a later fork")
        """)
    assert out.stdout.strip() == "acted on", (out.stdout, out.stderr[-800:])


# ------------------------------------------------------------------ broken pipes (leagues/cli/main.py)
def test_a_reader_of_stderr_that_leaves_is_not_a_bug_of_tute_arena(tmp_path: Path) -> None:
    """``stdout_gone`` polls stdout only, so a broken pipe on stderr (``tute run t.toml 2>&1 >/dev/null |
    grep -m1 forfeits``, ``2> >(head -1)``) is taken for a pipe to a worker or a bot: ``PipeBroken``, "a
    bug of tute-arena", a traceback (to the closed stderr: unseen) and exit 1, after a run that completed
    and stored every game. Before 338eba4 this ended quietly with status 0, as ``tute export | head``."""
    (tmp_path / "t.toml").write_text(config_text(deals=3))
    read, write = os.pipe()
    os.close(read)  # the reader of stderr has already left
    try:
        out = subprocess.run([TUTE, "run", "t.toml", "-q", "-j", "1"], cwd=tmp_path, env=env_of(tmp_path),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=write, timeout=120)
    finally:
        os.close(write)
    assert stored(tmp_path / "store.sqlite") == 6  # the run itself is whole
    assert out.returncode == 0


# ------------------------------------------------------------------ a season with a damaged game
def test_a_season_whose_damaged_rows_are_deleted_as_advised_plays_them_again(tmp_path: Path) -> None:
    """382da5b: "a season is never finished on a table with a damaged game"; its error says "restore the
    store from a copy (or delete those games' rows: the season plays them again)". The division
    tournament was marked finished when its run completed (``mark_finished``, whatever was damaged), so
    ``prepare`` says it is finished and nothing is played again: the season finishes with the rows
    deleted, its ratings kept for good from 11 of 12 games (the hole the fix was to prevent)."""
    from leagues.league.league import League, LeagueError
    from league_util import league_after_a_season

    path, store = league_after_a_season(tmp_path)
    games = sql(store, "SELECT COUNT(*) FROM games")[0][0]
    victim = sql(store, "SELECT id FROM games ORDER BY id LIMIT 1")[0][0]
    # season 1 as if its last game had just landed, one row damaged (as test_swallowed_qa.py makes it)
    sql(store, "UPDATE league_seasons SET finished = NULL WHERE season = 1")
    sql(store, "DELETE FROM league_ratings WHERE season = 1")
    for table in ("tallies", "pair_tallies", "forfeit_tallies", "watermarks", "tally_counts"):
        sql(store, f"DELETE FROM {table}")
    sql(store, f"UPDATE games SET result = '{{broken' WHERE id = '{victim}'")
    with League.open(path) as lg:
        with pytest.raises(LeagueError, match="restore the store from a copy") as refused:
            lg.play_season(workers=1, quiet=True)
    # the advice once was to delete the rows, after which the finished tournament replays nothing and the
    # season finished on a table without them, for good: the error now advises only what mends it
    assert "delete" not in str(refused.value)
    assert sql(store, "SELECT COUNT(*) FROM games")[0][0] == games
