"""Tournaments on a real Dask cluster (LocalCluster processes, no mocks): the same records as the local
pool with any number of workers, through the death of a worker; a scheduler that is not there is one
line and exit 2; an entrant that does not start on the workers is refused before any game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")

from league_util import stored_games, wait_for_games, write_config  # noqa: E402

TUTE = str(Path(sys.executable).parent / "tute")
ENTRANTS = [{"name": "g", "bot": "greedy"}, {"name": "r1", "bot": "random", "params": {"seed": 1}},
            {"name": "r2", "bot": "random", "params": {"seed": 2}}]
VARIANTS = [{"name": "tute-2"}, {"name": "tute-3"}, {"name": "tute-4-pairs"}]


def tute(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def export(folder: Path) -> str:
    out = tute(folder, "export", "--store", "store.sqlite")
    assert out.returncode == 0, out.stderr
    return out.stdout


def played(folder: Path, deals: int, *args: str, **top: Any) -> str:
    folder.mkdir()
    write_config(folder, deals=deals, variants=VARIANTS, entrants=ENTRANTS, **top)
    out = tute(folder, "run", "tournament.toml", "--quiet", *args)
    assert out.returncode == 0, out.stderr
    return export(folder)


@pytest.fixture(scope="module")
def local_export(tmp_path_factory: pytest.TempPathFactory) -> str:
    return played(tmp_path_factory.mktemp("local") / "w1", 3, "-j", "1")


def test_a_local_cluster_stores_what_the_local_pool_stores(local_export: str, tmp_path: Path) -> None:
    assert played(tmp_path / "c2", 3, "--cluster", "local:2") == local_export
    assert played(tmp_path / "c3", 3, cluster="local:3") == local_export  # the config's key, not the identity
    log = (tmp_path / "c2" / "store.log").read_text()
    assert log.count(") ready") >= 2 and "Dask Worker" in log and "closed its players" in log, "the workers' logs reach the tournament's log"


def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path) -> None:
    reference = played(tmp_path / "ref", 60, "-j", "2")
    folder = tmp_path / "killed"
    folder.mkdir()
    write_config(folder, deals=60, variants=VARIANTS, entrants=ENTRANTS)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        run = subprocess.Popen([TUTE, "run", "tournament.toml", "--quiet", "--cluster", cluster.scheduler_address],
                               cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        count = wait_for_games(folder / "store.sqlite", 200, run)
        assert run.poll() is None, "killed while it plays"
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, err
    assert 200 < count and export(folder) == reference


def test_no_scheduler_is_one_line_and_exit_2(tmp_path: Path) -> None:
    write_config(tmp_path, deals=2, entrants=ENTRANTS[:2])
    start = time.time()
    out = tute(tmp_path, "run", "--quiet", "--cluster", "tcp://127.0.0.1:1")
    assert out.returncode == 2 and time.time() - start < 30
    assert len(out.stderr.strip().splitlines()) == 1 and "tcp://127.0.0.1:1" in out.stderr
    assert "Traceback" not in out.stderr
    bad = tute(tmp_path, "run", "--quiet", "--cluster", "127.0.0.1")
    assert bad.returncode == 2 and "tcp://HOST:PORT" in bad.stderr


def test_an_entrant_the_workers_cannot_start_is_refused_before_play(tmp_path: Path) -> None:
    mine = tmp_path / "mybots"
    mine.mkdir()
    (mine / "onlyhere.py").write_text("from bots.random_bot import RandomBot\n\nclass Bot(RandomBot):\n    pass\n")
    write_config(tmp_path, deals=2, entrants=[ENTRANTS[0], {"name": "here", "bot": "onlyhere:Bot"}])
    env = dict(os.environ, PYTHONPATH=str(mine))  # this machine has the bot; the workers do not
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        out = tute(tmp_path, "run", "--quiet", "--cluster", cluster.scheduler_address, env=env)
    assert out.returncode == 2 and "do not start on the cluster" in out.stderr and "here" in out.stderr
    assert "worker tcp://" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert stored_games(tmp_path / "store.sqlite") == 0


def test_a_cluster_says_the_games_a_bots_clock_decided(tmp_path: Path) -> None:
    """The count of games a bot's clock decided comes back from the Dask workers, as from a local pool."""
    write_config(tmp_path, deals=2, variants=[{"name": "tute-2"}], entrants=[
        {"name": "slow", "bot": "league_bots:ClockedBot", "isolation": "inprocess"}, {"name": "r", "bot": "random"}])
    tests = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (tests, os.environ.get("PYTHONPATH")) if p)}
    out = tute(tmp_path, "run", "tournament.toml", "--quiet", "--cluster", "local:2", env=env)
    assert out.returncode == 0, out.stderr
    # ClockedBot's clock ends a decision in each deal's first rotation: 2 of the 4 games
    assert "warning: in 2 games a bot's clock, not its counted work, ended a decision (first: t/tute-2/r1/t0/d0/s0)" \
        in out.stderr


def test_a_worker_its_nanny_starts_again_stays_quiet_and_the_variable_goes(tmp_path: Path) -> None:
    """``silence_logs`` quiets a local cluster's first workers only: one its nanny started again after a
    bot ended the last printed Dask's INFO lines, and a traceback when the run closed the cluster under
    it, on the run's terminal. The level reaches every worker through the environment, which is given
    back when the cluster closes."""
    import logging

    from leagues.tournament.cluster import _DASK_LOG_VARIABLE, ClusterExecutor
    from leagues.tournament.config import load_config

    cfg = load_config(write_config(tmp_path, deals=1, variants=[{"name": "tute-2"}], entrants=ENTRANTS[:2]))
    before = os.environ.get(_DASK_LOG_VARIABLE)
    executor = ClusterExecutor(cfg, "local:1")
    try:
        level = lambda: logging.getLogger("distributed").level  # noqa: E731
        assert list(executor.client.run(level).values()) == [logging.CRITICAL]
        old = set(executor.client.scheduler_info()["workers"])
        with pytest.raises(Exception):  # noqa: B017 - the worker gone before it answers
            executor.client.run(os._exit, 3)  # what an in-process bot that ends its process does
        for _ in range(300):
            if set(executor.client.scheduler_info()["workers"]) - old:
                break
            time.sleep(0.1)
        executor.client.wait_for_workers(1, timeout=30)
        for _ in range(100):
            try:
                levels = list(executor.client.run(level).values())
            except Exception:  # noqa: BLE001 - the worker still starting
                levels = []
            if levels:
                break
            time.sleep(0.1)
        assert levels == [logging.CRITICAL]
    finally:
        executor.terminate()
    assert os.environ.get(_DASK_LOG_VARIABLE) == before


def test_a_sigterm_while_the_local_cluster_starts_closes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A SIGTERM while ``local:N`` started (the run's handler makes it a KeyboardInterrupt) left the half
    made cluster to Dask's exit hook, which printed a traceback of thirty lines under 'tute: aborted'.
    It now waits for the cluster to exist, which is then closed, and the run stops as interrupted."""
    from distributed.deploy.spec import SpecCluster

    from leagues.tournament.cluster import ClusterExecutor
    from leagues.tournament.config import load_config

    cfg = load_config(write_config(tmp_path, deals=1, variants=[{"name": "tute-2"}], entrants=ENTRANTS[:2]))
    real = distributed.LocalCluster
    made: list[Any] = []

    def terminated_while_starting(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)  # as `kill` from another terminal, mid-start
        made.append(real(*args, **kwargs))
        return made[-1]

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "LocalCluster", terminated_while_starting)
    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            ClusterExecutor(cfg, "local:1")
        assert signal.getsignal(signal.SIGTERM) is interrupt
    finally:
        signal.signal(signal.SIGTERM, old)
    assert len(made) == 1 and made[0].status.name == "closed"
    assert not [c for c in SpecCluster._instances if c.status.name != "closed"]
