"""QA of the Dask cluster path (docs/cluster.md): every failure of the cluster is one line and a non-zero
exit, never a traceback or a silent wait, and what was stored resumes to the uninterrupted run's games.
Schedulers and workers are real processes, started as docs/cluster.md says (``dask scheduler``,
``dask worker``), or Dask LocalClusters; nothing is mocked."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

distributed = pytest.importorskip("distributed")

from league_util import stored_games, wait_for_games, write_config  # noqa: E402

BIN = Path(sys.executable).parent
TUTE = str(BIN / "tute")
DASK = str(BIN / "dask")
TESTS = Path(__file__).resolve().parent
ENTRANTS = [{"name": "g", "bot": "greedy"}, {"name": "r1", "bot": "random", "params": {"seed": 1}},
            {"name": "r2", "bot": "random", "params": {"seed": 2}}]
VARIANTS = [{"name": "tute-2"}, {"name": "tute-3"}]


def tute(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def one_line_error(out: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The command failed with ``code`` and said why in one line, no traceback."""
    err = out.stderr.strip()
    assert out.returncode == code, (out.returncode, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def games(folder: Path) -> list[tuple[str, bytes]]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(folder / "store.sqlite")) as db:
        return db.execute("select id, record from games order by id").fetchall()


def stop(proc: subprocess.Popen[Any]) -> None:
    """Kill a process started here (its group, when it has one of its own)."""
    if proc.poll() is None:
        try:
            pgid = os.getpgid(proc.pid)
        except ProcessLookupError:
            pgid = 0
        if pgid == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    proc.wait(10)


class Scheduler:
    """``dask scheduler --port 0`` in its own process group, as docs/cluster.md starts one."""

    def __init__(self, folder: Path, python: list[str] | None = None) -> None:
        info = folder / "scheduler.json"
        self.proc = subprocess.Popen([*(python or [DASK, "scheduler"]), "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(info)], cwd=folder,
                                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.workers: list[subprocess.Popen[Any]] = []
        deadline = time.time() + 30
        while not (info.is_file() and info.stat().st_size) and time.time() < deadline:
            time.sleep(0.05)
        self.address = json.loads(info.read_text())["address"]

    def worker(self, *args: str, python: list[str] | None = None, cwd: Path | None = None, nanny: bool = False,
               env: dict[str, str] | None = None) -> None:
        """A worker process, by default without a nanny (nothing restarts it); ``python``: another command
        line."""
        cmd = python or [DASK, "worker"]
        self.workers.append(subprocess.Popen([*cmd, self.address, "--nanny" if nanny else "--no-nanny", "--nthreads",
                                              "1", "--no-dashboard", *args], cwd=cwd, start_new_session=True, env=env,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(self.address, timeout=10) as client:
            client.wait_for_workers(len(self.workers), timeout=30)

    def close(self) -> None:
        for p in [*self.workers, self.proc]:
            stop(p)


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[Scheduler]:
    s = Scheduler(tmp_path)
    try:
        yield s
    finally:
        s.close()


def test_malformed_and_unusable_addresses_are_one_line(tmp_path: Path) -> None:
    """Dask's own errors came out as tracebacks with exit 1: a missing port, an unknown scheme, tls://
    without certificates."""
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    for address, words in (("tcp://127.0.0.1", "missing port"), ("foo://bar", "unknown address scheme"),
                           ("tls://127.0.0.1:1", "TLS")):
        err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", address))
        assert address in err and words in err
        assert not (tmp_path / "store.sqlite").exists()
    # the same for a season, which checks the address before it stores anything
    from leagues.tournament.cluster import ClusterError, reach

    with pytest.raises(ClusterError, match="missing port"):
        reach("tcp://127.0.0.1")


def patched_tute(cwd: Path, patch: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``tute ARGS`` with the cluster module's constants patched first (``patch``: Python statements on
    ``c``, leagues.tournament.cluster), in a process of its own: a hang fails the test, not the session."""
    code = (f"import sys, leagues.tournament.cluster as c\n{patch}\n"
            "from leagues.cli.main import main\nmain(sys.argv[1:])\n")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def test_an_address_where_no_scheduler_answers_is_refused_in_bounded_time(tmp_path: Path, scheduler: Scheduler) -> None:
    """A port where something else listens (a dashboard, a web server: here a socket that never answers)
    made Dask's client wait for ever; a worker's address ended in a traceback."""
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        start = time.time()
        err = one_line_error(patched_tute(tmp_path, "c.CONNECT_SECONDS = 0.5", "run", "--quiet", "--cluster", address))
        assert "no Dask scheduler answers there" in err and time.time() - start < 10
    scheduler.worker()
    with distributed.Client(scheduler.address, timeout=10) as client:
        worker = next(iter(client.scheduler_info()["workers"]))
    err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", worker))
    assert "a Dask Worker answers there, not a scheduler" in err


def test_a_scheduler_without_workers_is_refused_not_waited_on(tmp_path: Path, scheduler: Scheduler) -> None:
    """With no worker the run waited for ever, saying nothing (the entrants' check passed: no worker
    to fail it)."""
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", scheduler.address, timeout=30))
    assert "the scheduler has no worker" in err and scheduler.address in err
    assert not (tmp_path / "store.sqlite").exists()


def without_project(command: str) -> list[str]:
    """A Dask command (``dask_worker``, ``dask_scheduler``) in a Python that cannot import tute-arena, as
    one started from another virtualenv."""
    launcher = ("import os, sys, importlib.util\n"
                "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
                "sys.path[:] = [p for p in sys.path if not os.path.isdir(os.path.join(p or '.', 'leagues'))]\n"
                "assert importlib.util.find_spec('leagues') is None\n"
                f"from distributed.cli.{command} import main\n"
                "sys.argv = ['dask', *sys.argv[1:]]\n"
                "main()\n")
    return [sys.executable, "-c", launcher]


def test_a_worker_without_tute_arena_is_named(tmp_path: Path, scheduler: Scheduler) -> None:
    """A worker whose Python lacks the project (another venv): a traceback of ModuleNotFoundError; now
    one line naming the worker, and --forfeit-missing does not let such a cluster play."""
    scheduler.worker(python=without_project("dask_worker"), cwd=tmp_path)
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    for extra in ((), ("--forfeit-missing",)):
        err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", scheduler.address, *extra))
        assert "cannot run tute-arena" in err and "worker tcp://" in err and "No module named 'leagues'" in err
        assert stored_games(tmp_path / "store.sqlite") == 0


def test_a_scheduler_without_tute_arena_is_refused_before_play(tmp_path: Path) -> None:
    """Dask's scheduler unpickles every task, games and all: one without the project failed the first
    batch in a traceback. docs/cluster.md asked the workers only for tute-arena."""
    scheduler = Scheduler(tmp_path, python=without_project("dask_scheduler"))
    try:
        scheduler.worker()
        write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
        err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", scheduler.address))
    finally:
        scheduler.close()
    assert "the scheduler cannot read tute-arena's tasks" in err and "No module named 'leagues'" in err
    assert stored_games(tmp_path / "store.sqlite") == 0


def running_on(scheduler: Scheduler, folder: Path, games: int) -> subprocess.Popen[str]:
    """``tute run`` of ``folder``'s config on a worker of ``scheduler`` started now, once it has stored
    more than ``games`` games and is still playing."""
    scheduler.worker()
    run = subprocess.Popen([TUTE, "run", "--quiet", "--cluster", scheduler.address], cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_games(folder / "store.sqlite", games, run)
    assert run.poll() is None, "the run ended before the test could act on it"
    return run


def test_a_lost_scheduler_is_one_line_and_the_run_resumes_to_the_same_games(tmp_path: Path) -> None:
    """The scheduler killed mid-run: a traceback (FutureCancelledError) and Dask's ERROR line; now one
    line, exit 2, and running again (here locally) stores what an uninterrupted run stores."""
    ref, folder = tmp_path / "ref", tmp_path / "lost"
    for f in (ref, folder):
        f.mkdir()
        write_config(f, deals=300, variants=VARIANTS, entrants=ENTRANTS)
    assert tute(ref, "run", "--quiet", "-j", "1").returncode == 0
    scheduler = Scheduler(folder)
    try:
        run = running_on(scheduler, folder, 200)
        stop(scheduler.proc)
        out, err = run.communicate(timeout=60)
    finally:
        scheduler.close()
    one_line_error(subprocess.CompletedProcess(run.args, run.returncode, out, err))
    assert "lost the scheduler" in err and "run again to resume" in err, err
    assert tute(folder, "run", "--quiet", "-j", "2").returncode == 0
    assert games(folder) == games(ref)


def test_a_bot_that_kills_its_worker_on_the_cluster_is_one_line(tmp_path: Path, scheduler: Scheduler) -> None:
    """An in-process bot that ends its process kills every Dask worker that plays its batch (Dask
    retries it on 4, each nanny restarting its worker): a KilledWorker traceback; now one line naming
    the batch's games, exit 2, as the local pool says a worker's death. (With ``local:N`` the
    restarted workers are quiet too: ``test_cluster.py``.)"""
    write_config(tmp_path, deals=4, variants=[{"name": "tute-2"}], entrants=[
        ENTRANTS[1], {"name": "exit", "bot": "league_bots:ExitBot", "isolation": "inprocess"}])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p)}
    scheduler.worker(nanny=True, env=env)
    err = one_line_error(tute(tmp_path, "run", "--quiet", "--cluster", scheduler.address, env=env))
    assert "killed each of the 4 worker processes" in err and "t/tute-2/r1/t0/d0/s0" in err


def test_all_workers_gone_mid_run_stops_the_run(tmp_path: Path, scheduler: Scheduler) -> None:
    """Every worker killed mid-run: the run waited for ever without a word; now it says it is waiting
    (in the log), then stops after NO_WORKER_SECONDS in one line, with the games stored."""
    scheduler.worker()
    write_config(tmp_path, deals=400, variants=VARIANTS, entrants=ENTRANTS)
    code = ("import sys, leagues.tournament.cluster as c\nc.NO_WORKER_SECONDS = 1.0\n"
            "c.ClusterExecutor.WATCH_SECONDS = 0.3\nfrom leagues.cli.main import main\nmain(sys.argv[1:])\n")
    run = subprocess.Popen([sys.executable, "-c", code, "run", "--quiet", "--cluster", scheduler.address],
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_games(tmp_path / "store.sqlite", 200, run)
        assert run.poll() is None, "killed while it plays"
        for w in scheduler.workers:
            stop(w)
        out, err = run.communicate(timeout=30)
    finally:
        stop(run)
    err = one_line_error(subprocess.CompletedProcess(run.args, run.returncode, out, err))
    assert "no worker for 1 s" in err and "run again to resume" in err
    assert 200 <= stored_games(tmp_path / "store.sqlite") < 3600
    assert "no worker; waiting" in (tmp_path / "store.log").read_text()


def test_a_local_cluster_is_quiet_when_port_8787_is_taken(tmp_path: Path) -> None:
    """LocalCluster's scheduler served HTTP on 8787 even with the dashboard off, and with the port taken
    (a scheduler on this machine, a second run) Dask printed a warning of four lines."""
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    taken = socket.socket()
    try:
        taken.bind(("", 8787))
        taken.listen()
    except OSError:  # taken already: the same case
        pass
    try:
        out = tute(tmp_path, "run", "--quiet", "--cluster", "local:1")
    finally:
        taken.close()
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines() == [l for l in out.stderr.strip().splitlines() if l.startswith("t:")]


def test_a_match_on_a_cluster_stores_what_a_local_match_stores(tmp_path: Path) -> None:
    """A match stored the games still being played when its SPRT decided, and its rating tables counted
    them: how many depended on the workers and their batches (-j 1 and -j 2 a game or two apart, a
    cluster's batches dozens). Games past a pairing's decision are not kept now."""
    results = {}
    for how in (("-j", "1"), ("--cluster", "local:2")):
        folder = tmp_path / how[1].replace(":", "")
        folder.mkdir()
        out = tute(folder, "match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", "--store", "store.sqlite",
                   "--quiet", *how)
        assert out.returncode == 0, out.stderr  # H1: greedy is better
        board = tute(folder, "leaderboard", "--store", "store.sqlite", "--format", "json")
        results[how[1]] = (out.stdout, games(folder), board.stdout)
    (summary_1, games_1, board_1), (summary_c, games_c, board_c) = results.values()
    assert summary_1 == summary_c  # holds: the SPRT's decision and summary
    assert games_1 == games_c and board_1 == board_c


#: a protocol bot of the standard library only (the one docs/protocol.md shows)
PROTOCOL_BOT = (TESTS.parent / "examples" / "random_bot.py").read_text()


def test_a_worker_that_joins_and_cannot_start_an_entrant_stops_the_run(tmp_path: Path) -> None:
    """Only the workers there at the start were asked to start the entrants: one that joined later (a
    machine added, a worker started again) without a bot stored a crash forfeit for each of its games
    and the run ended 0. Now its first batch starts the entrants there, and the run stops in one line
    naming the worker and the entrant, exit 2, as the check before any game does; running again (here
    locally) stores what an uninterrupted run stores."""
    ref, folder = tmp_path / "ref", tmp_path / "joined"
    # the command bot does not start where QA_NO_BOT is set: on the worker that joins
    entrants = [ENTRANTS[1], {"name": "cmd", "bot": ["sh", "-c", 'test -z "$QA_NO_BOT" && exec python3 bot.py']}]
    for f in (ref, folder):
        f.mkdir()
        (f / "bot.py").write_text(PROTOCOL_BOT)
        write_config(f, deals=1500, variants=[{"name": "tute-2"}], entrants=entrants)
    assert tute(ref, "run", "--quiet", "-j", "1").returncode == 0
    scheduler = Scheduler(folder)
    try:
        run = running_on(scheduler, folder, 100)
        scheduler.worker(env={**os.environ, "QA_NO_BOT": "1"})
        stop(scheduler.workers[0])
        out, err = run.communicate(timeout=120)
    finally:
        scheduler.close()
    err = one_line_error(subprocess.CompletedProcess(run.args, run.returncode, out, err))
    assert "(joined during the run)" in err and "entrant 'cmd' did not start" in err, err
    assert "run again to resume" in err, err
    # the games kept are whole and none is a forfeit of the joiner's: the resumed store is the reference's
    assert tute(folder, "run", "--quiet", "-j", "2").returncode == 0
    assert games(folder) == games(ref)
