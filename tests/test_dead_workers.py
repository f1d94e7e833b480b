"""A worker process that dies between two of its answers is said, never a quiet end.

The parent found a worker's death by reading its answer; a death found instead by *sending* it the next
games (the worker died after answering, while the parent was storing or yielding) raised a broken
pipe, and ``main`` took every broken pipe for ``tute export | head``'s closed stdout: ``tute run``
ended with status 0, no word, and a tenth of its games (2 runs in 24 of tests/test_resume_qa.py's
worker killed at its 200th move, on two busy cores). Each test here is the send made to a dead worker
on purpose, and failed before the fix."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from arena import get_variant
from leagues.tournament.config import load_config
from leagues.tournament.quickplay import Lineup, play_run
from leagues.tournament.runner import Executor, RunError
from leagues.tournament.schedule import round_games, round_robin_rounds

from league_util import write_config

TUTE = str(Path(sys.executable).parent / "tute")


def test_a_worker_found_dead_by_a_send_stops_the_tournament_with_its_error(tmp_path: Path) -> None:
    cfg = load_config(write_config(tmp_path, deals=4, entrants=[{"name": "a", "bot": "random"},
                                                                {"name": "b", "bot": "random"}]))
    specs = list(round_games(cfg, 0, 1, round_robin_rounds(cfg, 0)[0]))
    executor = Executor(cfg, 1, None)

    def schedule() -> Iterator:
        yield specs[0]
        # the worker has its first batch; it dies before the parent sends the second
        executor.procs[0].kill()
        executor.procs[0].join()
        yield from specs[1:]

    try:
        with pytest.raises(RunError, match="a worker process died"):
            for _ in executor.run(schedule(), len(specs)):
                pass
    finally:
        executor.terminate()


def test_a_worker_found_dead_by_a_send_ends_tute_play_with_its_failure() -> None:
    def kill_the_workers() -> None:
        for child in multiprocessing.active_children():
            if child.name.startswith("TutePlay-") and child.is_alive():
                child.kill()
                child.join()

    killed: list[bool] = []

    def once(record: object) -> None:
        if not killed:
            killed.append(True)
            kill_the_workers()

    variant = get_variant("tute-2")
    lineup = Lineup(("random", "random"), ({}, {}), "inprocess", 1000)
    tally = play_run(variant, "dead", lineup, ["a", "b"], 400, 1, workers=2, on_record=once)
    assert tally.failure is not None and "was killed by SIGKILL" in tally.failure, tally.failure
    assert tally.deals < 400


def test_only_stdouts_own_broken_pipe_is_a_quiet_end(tmp_path: Path) -> None:
    """A broken pipe raised by a command while its stdout is fine is a failure: not status 0."""
    code = ("import sys\n"
            "import importlib\nm = importlib.import_module('leagues.cli.main')\n"
            "def broken(*a, **k):\n"
            "    raise BrokenPipeError(32, 'Broken pipe')\n"
            "m.cli.commands['variants'].callback = broken\n"
            "m.main(['variants'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert out.returncode != 0, (out.stdout, out.stderr)
    assert "BrokenPipeError" in out.stderr and "a pipe to another process broke" in out.stderr
    # and a reader that leaves is still a quiet end with status 0
    piped = subprocess.run(["bash", "-c", f"set -o pipefail; {TUTE} variants | head -c 10 > /dev/null"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr
