"""What runs inside each Dask worker process (leagues/tournament/cluster.py is the client's side).

Imported only on the cluster path, since it imports Dask, whose import costs every command a third
of a second.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from distributed import WorkerPlugin

from arena import Variant
from arena.match import interrupts_are_bots
from arena.matchplay import MatchRule

from leagues.tournament.config import EntrantConfig
from leagues.tournament.schedule import GameSpec

log = logging.getLogger("leagues.tournament.runner")
#: plugin name -> runner.Worker, in each Dask worker process
_PLAYERS: dict[str, Any] = {}
#: plugin name -> the start check of a worker that joined after the run's (``TutePlayers.checked``)
_JOINED: dict[str, "_Joined"] = {}


class EntrantsDoNotStart(Exception):
    """A worker that joined during the run cannot start an entrant: the client stops the run in one line,
    as the check before any game does, rather than storing a forfeit for each of its games."""


class _Joined:
    """The start check of a worker the run's check did not see (a machine added, a worker a nanny started
    again): made once, at its first batch, in the task's thread, since a bot that never answers its
    hello would stall the worker's event loop for the start-up limit."""

    def __init__(self, address: str, entrants: dict[str, EntrantConfig], time_limit_ms: int, memory_mb: int) -> None:
        self.address = address
        self.args = (entrants, time_limit_ms, memory_mb)
        self.lock = threading.Lock()
        self.problems: list[str] | None = None

    def check(self) -> None:
        with self.lock:
            if self.problems is None:
                self.problems = check_entrants(*self.args)
                if self.problems:
                    log.error("worker %s joined the run and cannot start: %s", self.address, "; ".join(self.problems))
        if self.problems:
            raise EntrantsDoNotStart(f"worker {self.address} (joined during the run): " + "; ".join(self.problems))


class TutePlayers(WorkerPlugin):  # type: ignore[misc]
    """A Dask worker plugin: the tournament's players and rules in each worker process."""

    def __init__(self, name: str, entrants: dict[str, EntrantConfig], variants: dict[str, Variant],
                 time_limit_ms: int, memory_mb: int, matches: dict[str, MatchRule],
                 checked: frozenset[str] | None = None) -> None:
        self.name = name
        self.args = (entrants, variants, time_limit_ms, memory_mb)
        self.matches = matches
        #: the workers that started every entrant before the run (``ClusterExecutor.check_workers``);
        #: any other is checked at its first batch. None: no worker is (``--forfeit-missing``: a bot
        #: that does not start forfeits its games wherever it is)
        self.checked = checked

    def setup(self, worker: Any) -> None:
        from leagues.tournament.runner import Worker

        logging.getLogger("leagues").setLevel(logging.INFO)  # what the client forwards to the run's log
        interrupts_are_bots()  # games run in Dask's threads, which no Ctrl-C reaches: one there is a bot's
        _PLAYERS[self.name] = Worker(*self.args, matches=dict(self.matches))
        address = str(getattr(worker, "address", "?"))
        if self.checked is not None and address not in self.checked:
            entrants, _variants, time_limit_ms, memory_mb = self.args
            _JOINED[self.name] = _Joined(address, entrants, time_limit_ms, memory_mb)
        log.info("worker %d (%s) ready", os.getpid(), getattr(worker, "address", "?"))

    def teardown(self, worker: Any) -> None:
        _JOINED.pop(self.name, None)
        w = _PLAYERS.pop(self.name, None)
        if w is not None:
            w.close()
            log.info("worker %d closed its players", os.getpid())


def play_batch(plugin: str, specs: list[GameSpec]) -> Any:
    """One batch on a Dask worker: the same ``Batch`` a local worker returns."""
    from leagues.tournament.runner import play_batch as play

    joined = _JOINED.get(plugin)
    if joined is not None:
        joined.check()
    return play(_PLAYERS[plugin], specs)


def check_entrants(entrants: dict[str, EntrantConfig], time_limit_ms: int, memory_mb: int) -> list[str]:
    """On one worker: start and close every entrant as a game would; what failed, one line each."""
    from leagues.tournament.runner import entrant_start_problem

    return [p for e in entrants.values() if (p := entrant_start_problem(e, time_limit_ms, memory_mb))]
