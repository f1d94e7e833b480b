"""QA chaos pass: the runner, its workers, the bot processes and in-process bots killed at chosen moments.

A soak of randomized trials (``tute run`` round robin and Swiss with 1 to 3 workers, ``tute match
--sprt``, ``tute league season``, ``tute play -j N``; SIGKILL, SIGTERM, SIGINT, ``os._exit``, closed pipes,
a bot that exits right after answering, a worker killed while the parent stores) checked four invariants:
exit 0 means the run is complete; any other exit is said in plain words with a documented status; the
same command again completes to the store of an uninterrupted ``-j 1`` run; no process is left behind.
Each moment it found wrong is reproduced here exactly (a tripwire in a bot, a wrapped function, a
signal raised in a fork hook), never by sleeping; each failed before its fix:

- a Ctrl-C that lands while the runner forks a worker is swallowed (CPython runs the handler in a fork
  hook, whose exceptions it only prints), and the handler has already made every later Ctrl-C and SIGTERM
  ignored: the run plays on, cannot be stopped but by ``kill -9``, and exits 0;
- a Ctrl-C that reaches a worker before it ignores SIGINT kills it with a traceback, said as "a bot
  killed it" (exit 2);
- an in-process bot's ``KeyboardInterrupt`` in a worker (where it cannot be the user's Ctrl-C: workers
  ignore SIGINT) ends ``tute run`` with a bare traceback and exit 1;
- a Ctrl-C once every game is stored, while the run closes its log, is said as "interrupted before play
  began; run again to start";
- a Ctrl-C or SIGTERM as ``tute play -j N`` closes the bots of its start check ends in a bare "tute:
  aborted", without the summary it promises;
- a worker that dies while a process its in-process bot forked lives on (a pool's worker) is waited for
  without end: the run hangs instead of saying the death;
- a bot that exits right after its answer is recorded in words that depend on timing, so the same config
  and seed store other games from run to run;
- a worker that dies holding its log queue's write lock (as a decided match's SIGKILL can catch it) makes
  a finished ``tute match`` hang for ever after its summary.

The passing tests pin what held over the soak's trials: a run stopped by a bot's signal or a dead worker
resumes to the uninterrupted run's games, a dead worker of ``tute play`` leaves a prefix of the
uninterrupted records, and a runner killed with ``kill -9`` leaves no worker or bot process behind.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from league_util import TESTS, config_text, protocol_bot

TUTE = str(Path(sys.executable).parent / "tute")

#: plays as ``random``; once (the file QA_TRIP_FILE is its tripwire, created exclusively, so one process
#: of several trips and a resume never does), at its QA_PLUGIN_AT-th move in its process, does
#: QA_PLUGIN_ACTION: raises KeyboardInterrupt, or SIGKILLs its parent (run as a subprocess plugin: its worker)
PLUGIN = '''
import os, signal, time
from bots.random_bot import RandomBot

_moves = 0


def tripped():
    marker = os.environ.get("QA_TRIP_FILE")
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except (TypeError, FileExistsError):
        return False


class Trip(RandomBot):
    def choose(self, view):
        global _moves
        _moves += 1
        action = os.environ.get("QA_PLUGIN_ACTION")
        if action and _moves >= int(os.environ["QA_PLUGIN_AT"]) and tripped():
            if action == "keyboard-interrupt":
                raise KeyboardInterrupt
            if action == "kill-parent":
                os.kill(os.getppid(), signal.SIGKILL)
        return super().choose(view)


class WithHelper(RandomBot):
    """An in-process bot with a helper process, as one with a process pool has (forked at its first
    move, living a minute); at its QA_PLUGIN_AT-th move its worker dies (an OOM kill, a C extension's
    crash: here os._exit)."""

    def choose(self, view):
        global _moves
        _moves += 1
        if _moves == 1 and os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        if _moves == int(os.environ.get("QA_PLUGIN_AT", "0")):
            os._exit(9)
        return super().choose(view)
'''

#: a protocol bot (JSON lines) playing at random, seeded per deal; once (QA_TRIP_FILE), at its
#: QA_CMD_AT-th act in its process (or, with QA_CMD_GAME, in that game) and before it answers, does
#: QA_CMD_ACTION: SIGINT or SIGKILL the runner (its parent's parent), or SIGKILL its worker (its parent)
COMMAND = protocol_bot("qa-command", head="import signal\n" + '''
def parent_of(pid):
    with open(f"/proc/{pid}/stat", "rb") as fh:
        stat = fh.read()
    return int(stat[stat.rfind(b")") + 2:].split()[1])


def trip():
    try:
        os.close(os.open(os.environ["QA_TRIP_FILE"], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except (KeyError, FileExistsError):
        return
    action = os.environ["QA_CMD_ACTION"]
    worker = os.getppid()
    if action == "int-runner":
        os.kill(parent_of(worker), signal.SIGINT)
    elif action == "kill-runner":
        os.kill(parent_of(worker), signal.SIGKILL)
    elif action == "kill-worker":
        os.kill(worker, signal.SIGKILL)


moves = 0
game = None
''', new_game='game = msg.get("game_id")', act='''
moves += game == os.environ.get("QA_CMD_GAME", game)
if os.environ.get("QA_CMD_ACTION") and moves >= int(os.environ["QA_CMD_AT"]):
    trip()
''')


#: ``python driver.py WHAT -- ARGS``: ``tute ARGS`` in this process with one moment made to happen
#: (``WHAT``): a Ctrl-C that arrives while the process forks (``sigint-at-fork``: CPython then runs the
#: handler in the first fork hook), a Ctrl-C that reaches a worker as it starts (``sigint-starting-worker``),
#: a worker killed while it writes to the run's log (``worker-dies-holding-log-lock``: the queue's write
#: lock held from its first batch, until the match's decision kills it), or a Ctrl-C as a function returns
#: (``sigint-after:MODULE:Owner.function``)
DRIVER = '''
import multiprocessing, multiprocessing.util, os, signal, sys, time

what = sys.argv[1]
if what == "sigint-at-fork":
    armed = [True]

    def ctrl_c_during_fork():
        if armed[0]:
            armed[0] = False
            signal.raise_signal(signal.SIGINT)
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:  # a handler that runs, runs here, in the fork hook
                pass

    os.register_at_fork(after_in_parent=ctrl_c_during_fork)
elif what == "sigint-starting-worker":
    close_stdin = multiprocessing.util._close_stdin
    runner = os.getpid()

    def ctrl_c_as_the_worker_starts():  # the first thing a forked process does, before its target runs
        if os.getpid() != runner:
            signal.raise_signal(signal.SIGINT)
        close_stdin()

    multiprocessing.util._close_stdin = ctrl_c_as_the_worker_starts
elif what == "worker-dies-holding-log-lock":
    from leagues.tournament import runner
    play_batch = runner.play_batch

    def holding(worker, specs, playing=None):
        queue = runner._LOG_QUEUE
        if queue is not None and not getattr(queue, "qa_held", False):
            queue.qa_held = queue._wlock.acquire(False)
        return play_batch(worker, specs, playing)

    runner.play_batch = holding
elif what.startswith("sigint-after:"):  # sigint-after:MODULE:Owner.function, at its first return
    import importlib
    module, _, attr = what.split(":", 1)[1].partition(":")
    owner = importlib.import_module(module)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)

    def then_ctrl_c(*args, **kwargs):
        out = original(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return out

    setattr(owner, name, then_ctrl_c)
from leagues.console import main
main(sys.argv[3:])
'''


# ----------------------------------------------------------------------------------------------- helpers
def folder_with_bots(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qa_chaos_plugin.py").write_text(PLUGIN)
    (folder / "qa_chaos_command.py").write_text(COMMAND)
    (folder / "qa_chaos_driver.py").write_text(DRIVER)
    return folder


def env_of(folder: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(folder), str(TESTS), os.environ.get("PYTHONPATH", "")])
    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_")}
    return {**env, "PYTHONPATH": path, "NO_COLOR": "1", **extra}


def trip_env(folder: Path, **extra: str) -> dict[str, str]:
    return env_of(folder, QA_TRIP_FILE=str(folder / "tripped"), **extra)


def as_from_a_terminal() -> None:
    """Ctrl-C as at a terminal: a test run in the background inherits SIGINT ignored, and a process that
    starts with it ignored never installs the handler these moments are about."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tute(*args: str, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, env=env or env_of(cwd),
                          timeout=timeout, stdin=subprocess.DEVNULL, start_new_session=True,
                          preexec_fn=as_from_a_terminal)


def driven(folder: Path, what: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(folder / "qa_chaos_driver.py"), what, "--", *args],
                          capture_output=True, text=True, cwd=folder, env=env_of(folder), timeout=timeout,
                          stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=as_from_a_terminal)


def games(store: Path) -> list[tuple[Any, ...]]:
    """Every stored game, ordered by id: everything but the time it finished."""
    with closing(sqlite3.connect(store)) as db:
        return db.execute("SELECT id, tournament, variant, variant_index, round, tbl, deal, rotation, seats, "
                          "units, seed, dealer, status, result, record FROM games ORDER BY id").fetchall()


def snapshot(store: Path) -> dict[str, Any]:
    with closing(sqlite3.connect(store)) as db:
        byes = db.execute("SELECT * FROM byes ORDER BY 1, 2, 3, 4").fetchall()
    table = tute("leaderboard", "--store", str(store), "-t", "t", "-f", "json", "--matrix", cwd=store.parent)
    assert table.returncode == 0, table.stderr
    return {"games": games(store), "byes": byes, "table": table.stdout.replace(str(store.parent), "")}


def processes_marked(mark: str) -> list[int]:
    """The live processes whose environment holds ``QA_MARK=mark``: a run's runner, workers and bots
    (they inherit it: a command bot's environment is the runner's, a plugin's a copy of it)."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if f"QA_MARK={mark}".encode() in fh.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            pass
    return found


def no_traceback(stderr: str) -> bool:
    return not any(line.startswith("Traceback") or line.startswith("Process Tute") or
                   line.startswith("Exception ignored") for line in stderr.splitlines())


# a Swiss of five (a bye in tute-2, sit-outs in tute-3 every round) with a protocol command and a Python
# plugin in its own process among random and greedy: 84 games
SWISS: dict[str, Any] = dict(format="swiss", rounds=3, deals=4, seed=11, variants=[{"name": "tute-2"}, {"name": "tute-3"}],
             entrants=[{"name": "a", "bot": "random", "params": {"seed": 1}},
                       {"name": "b", "bot": "greedy"},
                       {"name": "c", "bot": ["python3", "qa_chaos_command.py"]},
                       {"name": "p", "bot": "qa_chaos_plugin:Trip", "isolation": "subprocess",
                        "params": {"seed": 3}},
                       {"name": "e", "bot": "random", "params": {"seed": 5}}])
PLANNED = 84


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The Swiss played uninterrupted with one worker."""
    folder = folder_with_bots(tmp_path_factory.mktemp("reference"))
    (folder / "t.toml").write_text(config_text(**SWISS))
    done = tute("run", "t.toml", "-q", "-j", "1", cwd=folder)
    assert done.returncode == 0, done.stderr
    made = snapshot(folder / "store.sqlite")
    assert len(made["games"]) == PLANNED
    return made


# ------------------------------------------------------------------------------------ passing invariants
def test_a_bot_that_sends_ctrl_c_to_the_runner_mid_swiss_resumes_to_the_uninterrupted_run(
        tmp_path: Path, reference: dict[str, Any]) -> None:
    """The command bot SIGINTs the runner at its 25th move, with three workers: exit 130 saying what was
    stored; the same command with two workers finishes with the games, byes and table of one worker."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**SWISS))
    first = tute("run", "t.toml", "-q", "-j", "3", cwd=folder,
                 env=trip_env(folder, QA_CMD_ACTION="int-runner", QA_CMD_AT="25"))
    assert first.returncode == 130, first.stderr
    assert (folder / "tripped").exists() and no_traceback(first.stderr), first.stderr
    assert first.stderr.strip().splitlines()[-1].startswith("tute: interrupted: ") and "run again to resume" \
        in first.stderr, first.stderr
    stored = len(games(folder / "store.sqlite"))
    assert stored < PLANNED
    again = tute("run", "t.toml", "-q", "-j", "2", cwd=folder)
    assert again.returncode == 0 and f"({stored} already stored)" in again.stderr, again.stderr
    assert snapshot(folder / "store.sqlite") == reference


def test_a_bot_process_that_kills_its_worker_stops_the_run_in_one_line_and_it_resumes_whole(
        tmp_path: Path, reference: dict[str, Any]) -> None:
    """A plugin run in its own process SIGKILLs its worker (its parent) at its 30th move: the run stops
    with one line naming the dead worker, exit 2; resumed, the store is the uninterrupted run's."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**SWISS))
    first = tute("run", "t.toml", "-q", "-j", "2", cwd=folder,
                 env=trip_env(folder, QA_PLUGIN_ACTION="kill-parent", QA_PLUGIN_AT="30"))
    lines = first.stderr.strip().splitlines()
    assert first.returncode == 2 and len(lines) == 1, first.stderr
    assert lines[0].startswith("tute: error: a worker process died") and "run again to resume" in lines[0]
    stored = len(games(folder / "store.sqlite"))
    assert stored < PLANNED
    again = tute("run", "t.toml", "-q", "-j", "1", cwd=folder)
    assert again.returncode == 0 and f"({stored} already stored)" in again.stderr, again.stderr
    assert snapshot(folder / "store.sqlite") == reference


def test_a_runner_killed_by_sigkill_leaves_no_worker_or_bot_behind(tmp_path: Path) -> None:
    """kill -9 of the runner alone (not its group), by a bot of one of its workers: the workers, the
    command bots and the plugin processes all end with it; the resume says what was stored."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(**SWISS))
    mark = f"kill-runner-{os.getpid()}-{time.monotonic_ns()}"
    first = tute("run", "t.toml", "-q", "-j", "2", cwd=folder,
                 env=trip_env(folder, QA_CMD_ACTION="kill-runner", QA_CMD_AT="25", QA_MARK=mark))
    assert first.returncode == -signal.SIGKILL, first.stderr
    deadline = time.monotonic() + 10
    while processes_marked(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_marked(mark) == [], "a worker or a bot of the killed run lives on"
    again = tute("run", "t.toml", "-q", "-j", "2", cwd=folder)
    assert again.returncode == 0, again.stderr
    assert len(games(folder / "store.sqlite")) == PLANNED


def test_play_whose_worker_a_bot_kills_keeps_a_prefix_of_the_uninterrupted_records(tmp_path: Path) -> None:
    """``tute play -j 2``: the command bot SIGKILLs its worker in deal 10; the exit is 2 with the worker and
    its deals named, the summary counts the deals finished, and the records written are the uninterrupted
    run's first ones, byte for byte."""
    folder = folder_with_bots(tmp_path)
    args = ["play", "tute-2", "greedy", "python3 qa_chaos_command.py", "-n", "120", "-s", "4"]
    whole = tute(*args, "--records", "whole.jsonl", cwd=folder)
    assert whole.returncode == 0, whole.stderr
    cut = tute(*args, "-j", "2", "--records", "cut.jsonl", cwd=folder,
               env=trip_env(folder, QA_CMD_ACTION="kill-worker", QA_CMD_GAME="play/4/9", QA_CMD_AT="3"))
    assert cut.returncode == 2 and no_traceback(cut.stderr), cut.stderr
    assert "was killed by SIGKILL" in cut.stderr.strip().splitlines()[-1], cut.stderr
    assert " of 120 deals" in cut.stdout, cut.stdout
    records = (folder / "whole.jsonl").read_text().splitlines()
    kept = (folder / "cut.jsonl").read_text().splitlines()
    # the deals are handed out in ranges, in order (now 1-7 and 8-14 to worker 1): those before deal 10's
    # range were answered, and are kept
    assert 0 < len(kept) < 10 and kept == records[:len(kept)]
    assert f"{len(kept)} of 120 deals" in cut.stdout, cut.stdout


# ---------------------------------------------------------------------------------------------- defects
@pytest.mark.parametrize("command", ["run", "play"])
def test_a_ctrl_c_while_the_workers_are_forked_stops_the_command(tmp_path: Path, command: str) -> None:
    """A SIGINT that arrives while the parent is in ``fork`` is handled in the first Python code that
    runs after it: a fork hook (logging's ``_releaseLock`` in the wild: "Exception ignored in: <function
    _releaseLock>"), where CPython prints an exception and drops it. ``interrupt_once`` has by then set
    SIGINT and SIGTERM to be ignored, so the run plays on to the end, exit 0, and nothing but ``kill -9``
    stops it (Ctrl-C sent to a run's group as its workers started: 4 of 60 ended so, exit 0)."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=150))
    args = ["run", "t.toml", "-q", "-j", "2"] if command == "run" else \
        ["play", "tute-2", "random", "greedy", "-n", "400", "-j", "2"]
    out = driven(folder, "sigint-at-fork", *args)
    assert out.returncode == 130, (out.returncode, out.stderr[-2000:])
    assert "interrupted" in out.stderr


def test_a_ctrl_c_that_reaches_a_starting_worker_is_the_runners_to_handle(tmp_path: Path) -> None:
    """A worker inherits the parent's Ctrl-C handler (which raises) until ``_init_worker`` ignores SIGINT:
    a Ctrl-C at the terminal, sent to the whole group, that reaches a worker in that moment (seen in
    ``multiprocessing``'s ``_close_stdin``) prints "Process TuteWorker-1: Traceback ... KeyboardInterrupt"
    and the worker dies; the parent says "a worker process died (a bot killed it ...)" and exits 2. Here
    only the worker is sent it: a worker ignores SIGINT, so the run must play on, whole."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=20))
    out = driven(folder, "sigint-starting-worker", "run", "t.toml", "-q", "-j", "1")
    assert no_traceback(out.stderr), out.stderr
    assert out.returncode == 0 and len(games(folder / "store.sqlite")) == 40, out.stderr


def test_an_in_process_bots_keyboard_interrupt_in_a_worker_is_not_a_traceback(tmp_path: Path) -> None:
    """Workers ignore SIGINT, so a KeyboardInterrupt there is the bot's own (raised, or
    ``_thread.interrupt_main``): ``play_game`` lets it through as the user's Ctrl-C, the worker sends its
    traceback and ``Executor.run`` raises it as a RuntimeError that no command catches. ``tute play -j 2``
    says the same in one line (exit 2); an exception of a bot is its crash forfeit."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=10, entrants=[
        {"name": "a", "bot": "random", "params": {"seed": 1}},
        {"name": "k", "bot": "qa_chaos_plugin:Trip", "isolation": "inprocess", "params": {"seed": 2}}]))
    out = tute("run", "t.toml", "-q", "-j", "2", cwd=folder,
               env=trip_env(folder, QA_PLUGIN_ACTION="keyboard-interrupt", QA_PLUGIN_AT="5"))
    assert (folder / "tripped").exists()
    assert no_traceback(out.stderr), out.stderr[-2500:]
    if out.returncode == 2:  # said as the worker's failure, in one line
        assert out.stderr.strip().splitlines()[-1].startswith("tute: error: "), out.stderr
    else:  # or the bot's crash forfeit, as any exception of a bot is
        assert out.returncode == 0 and "forfeits:" in out.stderr, out.stderr
        assert len(games(folder / "store.sqlite")) == 20


def test_a_ctrl_c_after_the_last_game_is_not_said_as_before_play_began(tmp_path: Path) -> None:
    """The run has played and stored every game and is closing its log (``_remove_log``) when Ctrl-C
    (or SIGTERM) comes: the KeyboardInterrupt leaves ``run_tournament`` from its ``finally``, and ``tute
    run`` takes every bare one for an interrupt while the bots were starting. The same words follow a
    Ctrl-C in that ``finally`` after a worker died (replacing its error). The tournament is finished."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=20))
    out = driven(folder, "sigint-after:leagues.tournament.runner:_remove_log", "run", "t.toml", "-q", "-j", "2")
    assert len(games(folder / "store.sqlite")) == 40, out.stderr
    assert "before play began" not in out.stderr and no_traceback(out.stderr), out.stderr
    assert out.returncode == 0 or (out.returncode == 130 and "tute: interrupted" in out.stderr), out.stderr


def test_a_ctrl_c_as_play_with_workers_begins_prints_the_summary(tmp_path: Path) -> None:
    """``play_run`` closes the players the start check left ready (``close_all(ready)``: a subprocess or
    command bot is asked to quit and waited for) before its ``try``, with the command's SIGTERM handler
    already set: a Ctrl-C or SIGTERM then ends in click's "tute: aborted" with no summary, where ``tute
    play`` promises "the summary of the games finished" and "interrupted" (SIGTERM 0.3-1.2 s into a ``-j
    2`` play of three subprocess bots: 5 runs of 25)."""
    folder = folder_with_bots(tmp_path)
    out = driven(folder, "sigint-after:leagues.tournament.quickplay:close_all", "play", "tute-2", "random",
                 "greedy", "-n", "50", "-j", "2")
    assert out.returncode == 130, out.stderr
    assert "aborted" not in out.stderr and "tute: interrupted" in out.stderr, out.stderr
    assert "0 of 50 deals" in out.stdout, out.stdout


def test_a_dead_worker_is_said_though_its_bots_helper_process_lives_on(tmp_path: Path) -> None:
    """``Executor.run`` (and ``tute play``'s ``_pooled``) waits on the worker's pipe and its sentinel, then
    reads the pipe, blocking. A process the bot forked (a pool's worker) inherits the worker's end of both,
    so neither says the death until that process ends: a run whose bot's helper slept 30 s said it after
    30 s, and a pool's workers wait for tasks for ever. Asking the process itself (``is_alive``, a
    ``waitpid``) finds it at once."""
    folder = folder_with_bots(tmp_path)
    (folder / "t.toml").write_text(config_text(deals=10, entrants=[
        {"name": "a", "bot": "random", "params": {"seed": 1}},
        {"name": "h", "bot": "qa_chaos_plugin:WithHelper", "isolation": "inprocess", "params": {"seed": 2}}]))
    mark = f"helper-{os.getpid()}-{time.monotonic_ns()}"
    with open(folder / "err.txt", "w") as err:  # a file: the helper holds the run's stderr too
        proc = subprocess.Popen([TUTE, "run", "t.toml", "-q", "-j", "1"], stdout=subprocess.DEVNULL, stderr=err,
                                cwd=folder, env=env_of(folder, QA_PLUGIN_AT="30", QA_MARK=mark),
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=as_from_a_terminal)
    try:
        try:
            code = proc.wait(timeout=8)  # the run takes a second: the death is found at once
        except subprocess.TimeoutExpired:
            code = None
        assert code is not None, "the run waits for the bot's helper process, not the dead worker"
        said = (folder / "err.txt").read_text()
        assert code == 2 and "a worker process died" in said, said
    finally:
        for pid in processes_marked(mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()


#: a protocol bot that, right after its second answer of every deal, exits with status 0; when exactly
#: (before or after the referee writes its next act) is the test's to say: it waits for the file argv[1]
EXITS_AFTER_ANSWERING = protocol_bot("exits-after-answering", head="gate = sys.argv[1]\nmoves = 0",
                                     new_game="moves = 0", act="moves += 1", after='''
if kind == "act" and moves == 2:
    while not os.path.exists(gate):
        time.sleep(0.001)
    os._exit(0)
''')


def test_a_bot_that_exits_after_answering_is_recorded_alike_whenever_it_is_found_gone(tmp_path: Path) -> None:
    """The same bot, the same deal: found gone by the write of its next act ("cannot write to the bot: it
    closed its stdin or exited (exited with status 0)") or by the read of its answer ("exited with status
    0 while its move answer was awaited"; under load "bot closed its pipe"), which one is a race. Two
    ``tute run -j 1`` of one config with such a bot stored 27 of 80 games differently; ``tute play`` three
    times, 31, 40 and 25 of 100 deals one way, the rest the other."""
    from arena import get_variant, play_game, shuffled_deck
    from arena.hosting import make_player

    script = tmp_path / "exits.py"
    script.write_text(EXITS_AFTER_ANSWERING)
    variant = get_variant("tute-2")

    def record(found_gone_by: str) -> Any:
        gate = tmp_path / f"gate-{found_gone_by}"
        host: Any = make_player([sys.executable, str(script), str(gate)], time_limit_ms=10_000)
        calls = [0]
        choose, send = host.choose, host._send

        def choosing(view: Any) -> Any:
            calls[0] += 1
            if calls[0] == 3 and found_gone_by == "write":  # it has exited before the referee writes
                gate.touch()
                host.proc.wait(timeout=30)
            return choose(view)

        def sending(data: bytes) -> None:
            send(data)
            if calls[0] == 3 and found_gone_by == "read":  # it exits just after the referee wrote
                gate.touch()

        host.choose, host._send = choosing, sending
        try:
            return play_game(variant, shuffled_deck(variant, 5), 0, [make_player("random", {"seed": 1}), host],
                             game_id="g", seed=5, names=["random", "exits"])
        finally:
            host.close()

    by_write, by_read = record("write"), record("read")
    assert by_write.result.forfeit is not None and by_read.result.forfeit is not None
    assert by_write.result.forfeit.detail == by_read.result.forfeit.detail
    assert by_write.encode() == by_read.encode()


def test_a_decided_match_exits_though_a_worker_it_killed_held_the_log_queue(tmp_path: Path) -> None:
    """When the SPRT decides, ``_run_matches`` SIGKILLs the workers (``Executor.terminate``) wherever they
    are; one caught writing a record to the run's log (a forfeit, a bot's stderr line) keeps the queue's
    write lock for ever. The run counts as completed, so ``_remove_log`` sends its wake-up record and the
    interpreter's exit joins the parent's queue feeder, which waits on that lock: the summary is printed
    and the command never returns. (An interrupted run lets the records go; a completed one does not.)"""
    folder = folder_with_bots(tmp_path)
    out_path, err_path = folder / "out.txt", folder / "err.txt"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen([sys.executable, str(folder / "qa_chaos_driver.py"), "worker-dies-holding-log-lock",
                                 "--", "match", "greedy", "random", "-v", "tute-2", "--sprt", "0,10", "-j", "1", "-q",
                                 "--store", "s.sqlite"], stdout=out, stderr=err, cwd=folder, env=env_of(folder),
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=as_from_a_terminal)
    try:
        deadline = time.monotonic() + 90
        while proc.poll() is None and "accepted" not in out_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "H0 accepted" in out_path.read_text(), err_path.read_text()
        try:
            code = proc.wait(timeout=6)  # the summary is out: a finished command exits at once
        except subprocess.TimeoutExpired:
            code = None
        assert code == 1, "the match printed its verdict and hangs"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
