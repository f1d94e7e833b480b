"""The games of a tournament on a Dask cluster (``--cluster tcp://HOST:8786`` or ``local:N``).

Not a distributed system of our own: Dask's scheduler places the work, reschedules the batches of a
worker that dies, and brings back its logs. What tute-arena adds is the same contract as the local
pool (``runner.Executor``): batches of about a second of play (so the scheduler's and the client's
cost per task is spread), results in completion order for the parent, which stays the only
writer of the store and folds them in schedule order (``watermark.Watermark``). A batch is a pure
function of its specs (every bot is seeded per game), so a batch played twice, or elsewhere, gives the
same rows: the same config and seed give the same records and tables on any cluster, with any number
of workers, through the death of any of them.

Players are built once per Dask worker process by a worker plugin (``cluster_worker.TutePlayers``),
reused across batches and closed when the plugin is removed at the end of the run or the worker shuts
down. Dask is imported only when a cluster is asked for: every other command starts as fast as before. Before
any game, every worker is asked to start every entrant (``check_workers``): a bot missing on one
machine is one line naming the worker and the entrant, not thousands of forfeits.
"""

from __future__ import annotations

import itertools
import logging
import os
import signal
from typing import Any, Iterable, Iterator

from leagues.tournament.batching import batch_size, updated_rate
from leagues.tournament.config import TournamentConfig
from leagues.tournament.schedule import GameSpec

log = logging.getLogger("leagues.tournament.runner")

#: how long to wait for a scheduler that does not answer
CONNECT_SECONDS = 5.0


class ClusterError(RuntimeError):
    """The cluster cannot be reached or used; the message is one line for the user."""


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError("--cluster needs Dask's distributed package: pip install -e '.[cluster]'") from None
    return distributed


def address_problem(text: str) -> str | None:
    """What is wrong with a cluster address, or None: ``local:N`` (1 to 256 worker processes) or a
    scheduler's ``tcp://HOST:PORT`` (any Dask scheme: ``tls://``...). The config's ``cluster`` key and
    ``--cluster`` are checked by this one rule."""
    if text.startswith("local:"):
        n = text.split(":", 1)[1]
        if not n.isdigit() or not 1 <= int(n) <= 256:
            return "local:N takes a number of worker processes from 1 to 256"
        return None
    if "://" not in text:
        return "give tcp://HOST:PORT (or tls://...), or local:N"
    return None


def parse_address(text: str) -> tuple[str, int | None]:
    """("local", N) for ``local:N``, else (the scheduler's address, None)."""
    problem = address_problem(text)
    if problem is not None:
        raise ClusterError(f"--cluster {text}: {problem}")
    if text.startswith("local:"):
        return "local", int(text.split(":", 1)[1])
    return text, None


def _unreachable(address: str, exc: BaseException) -> ClusterError:
    return ClusterError(f"--cluster {address}: cannot reach the scheduler ({(str(exc).splitlines() or [''])[0][:200]})")


def reach(address: str) -> None:
    """Refuse, before anything is stored, an address that cannot be used: a malformed one, or a scheduler
    that does not answer (``local:N`` has nothing to reach: the run starts it). For callers that store
    something before the run connects (a league's season)."""
    where, local = parse_address(address)
    if local is None:
        try:
            _dask().Client(where, timeout=CONNECT_SECONDS).close()
        except (OSError, TimeoutError) as exc:
            raise _unreachable(address, exc) from None


class ClusterExecutor:
    """``runner.Executor``'s contract on a Dask cluster: games in, batches out in completion order."""

    #: a second of play a batch, ten times the local pool's: each task costs the scheduler and the
    #: client some milliseconds of the parent's interpreter, which on a small machine also folds and
    #: stores (measured: 0.1 s batches reach about 70% of the local pool, 1 s about 85%)
    BATCH_SECONDS = 1.0
    MAX_BATCH = 4096
    QUEUED = 2

    def __init__(self, cfg: TournamentConfig, address: str) -> None:
        d = _dask()
        where, local = parse_address(address)
        self.cluster = None
        try:
            if local is not None:
                # its own logs only when critical: a worker's heartbeat that meets the scheduler closing
                # first logs an ERROR with a traceback at the end of a good run; the run's own failures
                # come back as results or as the runner's errors, and the games' logs are forwarded below
                # its processes start with Ctrl-C ignored (kept across their exec): the terminal sends it to
                # the whole group, and each printed a traceback of its own; the run stops them itself
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
                try:
                    self.cluster = d.LocalCluster(n_workers=local, threads_per_worker=1, processes=True,
                                                  dashboard_address=None, silence_logs=logging.CRITICAL)
                finally:
                    signal.signal(signal.SIGINT, previous)
                self.client = d.Client(self.cluster)
            else:
                self.client = d.Client(where, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError) as exc:
            self._close_cluster()
            raise _unreachable(address, exc) from None
        self.address = address
        self.client.forward_logging("leagues", logging.INFO)
        self.slots = max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))
        self.seconds_per_game: float | None = None
        self.entrants = {e.name: e for e in cfg.entrants}
        self.cfg = cfg
        self.plugin = f"tute-arena-{cfg.name}-{cfg.config_hash()}-{os.getpid()}"
        self.stopped = False
        #: the players' plugin is on the workers (``start``): only then is there one to remove
        self.registered = False

    def check_workers(self) -> list[str]:
        """Every worker starts every entrant: the failures as 'worker ADDRESS: entrant: why'."""
        from leagues.tournament.cluster_worker import check_entrants

        answers = self.client.run(check_entrants, self.entrants, self.cfg.time_limit_ms, self.cfg.memory_mb)
        return [f"worker {addr}: {line}" for addr, lines in sorted(answers.items()) for line in lines]

    def start(self) -> None:
        from leagues.tournament.cluster_worker import TutePlayers

        plugin = TutePlayers(self.plugin, self.entrants, {v.label: v.variant for v in self.cfg.variants},
                             self.cfg.time_limit_ms, self.cfg.memory_mb,
                             {v.label: v.match for v in self.cfg.variants if v.match is not None})
        self.client.register_plugin(plugin, name=self.plugin)
        self.registered = True

    def batch_size(self, unsent: int | None = None) -> int:
        return batch_size(self.seconds_per_game, self.BATCH_SECONDS, self.MAX_BATCH, unsent, self.QUEUED * self.slots)

    def run(self, specs: Iterable[GameSpec], count: int | None = None) -> Iterator[Any]:
        from leagues.tournament.cluster_worker import play_batch

        d = _dask()
        source = iter(specs)
        done = d.as_completed()
        sent = 0

        def submit() -> bool:
            nonlocal sent
            size = self.batch_size(None if count is None else count - sent)
            batch = list(itertools.islice(source, size))
            if not batch:
                return False
            done.add(self.client.submit(play_batch, self.plugin, batch, pure=False))
            sent += len(batch)
            return True

        for _ in range(self.QUEUED * self.slots):
            if not submit():
                break
        for future in done:
            answer = future.result()
            self.seconds_per_game = updated_rate(self.seconds_per_game, answer.seconds, len(answer.rows))
            submit()
            yield answer

    def close(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        try:
            if self.registered:
                self.client.unregister_worker_plugin(self.plugin)  # each worker closes its players
        except Exception as exc:  # noqa: BLE001 - closing is best effort
            log.warning("closing the players on the cluster: %s", exc)
        self.client.close()
        self._close_cluster()

    def terminate(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        try:
            self.client.cancel(list(self.client.futures.values()), force=True)
            if self.registered:
                self.client.unregister_worker_plugin(self.plugin)
        except Exception:  # noqa: BLE001 - stopping: whatever is left ends with the cluster
            pass
        self.client.close()
        self._close_cluster()

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
