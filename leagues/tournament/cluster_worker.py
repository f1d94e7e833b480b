"""What runs inside each Dask worker process (leagues/tournament/cluster.py is the client's side).

Imported only on the cluster path, since it imports Dask, whose import costs every command a third
of a second.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from distributed import WorkerPlugin

from arena import Variant
from arena.matchplay import MatchRule

from leagues.tournament.config import EntrantConfig
from leagues.tournament.schedule import GameSpec

log = logging.getLogger("leagues.tournament.runner")
#: plugin name -> runner.Worker, in each Dask worker process
_PLAYERS: dict[str, Any] = {}


class TutePlayers(WorkerPlugin):  # type: ignore[misc]
    """A Dask worker plugin: the tournament's players and rules in each worker process."""

    def __init__(self, name: str, entrants: dict[str, EntrantConfig], variants: dict[str, Variant],
                 time_limit_ms: int, memory_mb: int, matches: dict[str, MatchRule]) -> None:
        self.name = name
        self.args = (entrants, variants, time_limit_ms, memory_mb)
        self.matches = matches

    def setup(self, worker: Any) -> None:
        from leagues.tournament.runner import Worker

        logging.getLogger("leagues").setLevel(logging.INFO)  # what the client forwards to the run's log
        _PLAYERS[self.name] = Worker(*self.args, matches=dict(self.matches))
        log.info("worker %d (%s) ready", os.getpid(), getattr(worker, "address", "?"))

    def teardown(self, worker: Any) -> None:
        w = _PLAYERS.pop(self.name, None)
        if w is not None:
            w.close()
            log.info("worker %d closed its players", os.getpid())


def play_batch(plugin: str, specs: list[GameSpec]) -> Any:
    """One batch on a Dask worker: the same ``Batch`` a local worker returns."""
    from leagues.tournament.runner import play_batch as play

    return play(_PLAYERS[plugin], specs)


def check_entrants(entrants: dict[str, EntrantConfig], time_limit_ms: int, memory_mb: int) -> list[str]:
    """On one worker: start and close every entrant as a game would; what failed, one line each."""
    from leagues.tournament.runner import entrant_start_problem

    return [p for e in entrants.values() if (p := entrant_start_problem(e, time_limit_ms, memory_mb))]
