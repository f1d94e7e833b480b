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

import asyncio
import itertools
import logging
import os
import signal
import threading
import time
from typing import Any, Iterable, Iterator

from leagues.tournament.batching import batch_size, updated_rate
from leagues.tournament.config import TournamentConfig
from leagues.tournament.schedule import GameSpec

log = logging.getLogger("leagues.tournament.runner")

#: how long to wait for a scheduler that does not answer
CONNECT_SECONDS = 5.0
#: how long a run waits for a worker (a scheduler without any, or whose workers all died) before it
#: stops, saying so; the games stored are kept and running again resumes
NO_WORKER_SECONDS = 60.0
#: Dask's config from the environment (``logging.distributed``): the level of a local cluster's workers
_DASK_LOG_VARIABLE = "DASK_LOGGING__DISTRIBUTED"


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


def _first_line(exc: BaseException) -> str:
    return ((str(exc) or type(exc).__name__).splitlines() or [""])[0][:200]


def _unreachable(address: str, exc: BaseException) -> ClusterError:
    return ClusterError(f"--cluster {address}: cannot reach the scheduler ({_first_line(exc)})")


def _probe(address: str, where: str) -> None:
    """Ask ``where`` who it is, within a bounded time: a Dask scheduler, or ClusterError. Dask's client
    waits for ever on a port where something else answers (the dashboard's, a web server), fails with
    a traceback on a worker's address, a malformed one or a TLS scheme without certificates."""
    from distributed.comm import connect
    from distributed.security import Security

    async def identity() -> Any:
        comm = await connect(where, timeout=CONNECT_SECONDS, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    answer: dict[str, Any] = {}

    def ask() -> None:
        try:
            answer["it"] = asyncio.run(asyncio.wait_for(identity(), 2 * CONNECT_SECONDS))
        except BaseException as exc:  # noqa: BLE001 - said to the user in one line below
            answer["error"] = exc

    asker = threading.Thread(target=ask, name="tute-cluster-probe", daemon=True)
    asker.start()
    asker.join(2 * CONNECT_SECONDS + 1)
    if "error" in answer and not isinstance(answer["error"], (asyncio.TimeoutError, TimeoutError)):
        raise _unreachable(address, answer["error"])
    it = answer.get("it")
    if not isinstance(it, dict):
        raise ClusterError(f"--cluster {address}: no Dask scheduler answers there within "
                           f"{2 * CONNECT_SECONDS:.0f} s (the scheduler's port, not its dashboard's: 8786 by default)")
    if it.get("type") != "Scheduler":
        raise ClusterError(f"--cluster {address}: a Dask {it.get('type') or 'server'} answers there, not a scheduler: "
                           "give the scheduler's address (tcp://HOST:8786 by default)")


def _client(d: Any, address: str, where: str) -> Any:
    """A client of the scheduler at ``where`` that has at least one worker, or ClusterError."""
    _probe(address, where)
    try:
        client = d.Client(where, timeout=CONNECT_SECONDS)
    except Exception as exc:  # noqa: BLE001 - whatever Dask raises, one line
        raise _unreachable(address, exc) from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
    except (TimeoutError, asyncio.TimeoutError):
        client.close()
        raise ClusterError(f"--cluster {address}: the scheduler has no worker: start some "
                           f"(dask worker {where} --nthreads 1; docs/cluster.md)") from None
    except Exception as exc:  # noqa: BLE001
        client.close()
        raise _unreachable(address, exc) from None
    return client


def reach(address: str) -> None:
    """Refuse, before anything is stored, an address that cannot be used: a malformed one, or a scheduler
    that does not answer (``local:N`` has nothing to reach: the run starts it). For callers that store
    something before the run connects (a league's season)."""
    where, local = parse_address(address)
    if local is None:
        _dask()
        _probe(address, where)


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
        #: the workers of a cluster of this run's own (``local:N``), else None
        self.local: int | None = None
        #: ``_DASK_LOG_VARIABLE`` as it was before a local cluster set it (None: unset)
        self._dask_variable: str | None = None
        #: Dask's loggers as ``_quiet_dask`` found them, for ``_loud_dask`` to give back
        self._dask_log: list[tuple[logging.Logger, bool, list[logging.Handler], int]] = []
        try:
            if local is not None:
                # its own logs only when critical: a worker's heartbeat that meets the scheduler closing
                # first logs an ERROR with a traceback at the end of a good run; the run's own failures
                # come back as results or as the runner's errors, and the games' logs are forwarded below
                # its processes start with Ctrl-C ignored (kept across their exec): the terminal sends it to
                # the whole group, and each printed a traceback of its own; the run stops them itself
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
                # a SIGTERM meanwhile waits until the cluster exists, so that it is closed: stopped half
                # made, its processes outlived the run, and Dask's exit hook printed a traceback
                asked: list[int] = []
                previous_term = signal.signal(signal.SIGTERM, lambda signum, _frame: asked.append(signum))
                # ``silence_logs`` reaches the first workers only: one its nanny starts again (a bot
                # ended the process) reads Dask's logging config afresh, from the environment this
                # process has when the nanny starts it, so the variable stays until the cluster closes
                self._dask_variable = os.environ.get(_DASK_LOG_VARIABLE)
                os.environ[_DASK_LOG_VARIABLE] = "critical"
                self.local = local
                try:
                    # its HTTP server on any free port: on 8787, taken by another cluster or a second
                    # run, Dask printed a warning of four lines on the terminal
                    self.cluster = d.LocalCluster(n_workers=local, threads_per_worker=1, processes=True,
                                                  dashboard_address=None, silence_logs=logging.CRITICAL,
                                                  scheduler_kwargs={"dashboard_address": ":0"})
                finally:
                    signal.signal(signal.SIGINT, previous)
                    signal.signal(signal.SIGTERM, previous_term)
                if asked:
                    raise KeyboardInterrupt  # as the run's own SIGTERM handler says it (the cluster closed below)
                self.client = d.Client(self.cluster)
            else:
                self.client = _client(d, address, where)
        except ClusterError:
            self._close_cluster()
            raise
        except (OSError, TimeoutError) as exc:
            self._close_cluster()
            raise _unreachable(address, exc) from None
        except BaseException:  # Ctrl-C or SIGTERM while connecting: nothing of the cluster outlives the run
            self._close_cluster()
            raise
        self.address = address
        self._quiet_dask()
        self.client.forward_logging("leagues", logging.INFO)
        self.slots = max(1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()))
        self.seconds_per_game: float | None = None
        self.entrants = {e.name: e for e in cfg.entrants}
        self.cfg = cfg
        self.plugin = f"tute-arena-{cfg.name}-{cfg.config_hash()}-{os.getpid()}"
        self.stopped = False
        #: the players' plugin is on the workers (``start``): only then is there one to remove
        self.registered = False
        #: the workers ``check_workers`` found starting every entrant; any other joins during the run and
        #: is checked at its first batch (None: none is, ``--forfeit-missing``)
        self.checked: frozenset[str] | None = frozenset()

    def check_workers(self) -> list[str]:
        """Every worker starts every entrant: the failures as 'worker ADDRESS: entrant: why'. A worker
        that cannot even run the check (its Python lacks tute-arena, or has another version of it) is
        ClusterError, naming it: no entrant of the run could play there; so is a scheduler that cannot
        read the tasks (it unpickles them, games and all)."""
        from leagues.tournament.cluster_worker import check_entrants

        try:
            answers = self.client.run(check_entrants, self.entrants, self.cfg.time_limit_ms, self.cfg.memory_mb,
                                      on_error="return")
        except Exception as exc:  # noqa: BLE001 - the scheduler gone, or Dask's own failure: one line
            raise ClusterError(f"--cluster {self.address}: cannot ask the workers to start the entrants "
                               f"({_first_line(exc)})") from None
        broken = [f"worker {addr}: {_first_line(answer)}" for addr, answer in sorted(answers.items())
                  if isinstance(answer, BaseException)]
        if broken:
            raise ClusterError(f"--cluster {self.address}: workers that cannot run tute-arena (every worker needs "
                               f"it installed, the same version: docs/cluster.md): {'; '.join(broken)}")
        try:  # Dask's scheduler unpickles every task, with its games: it needs tute-arena as a worker does
            self.client.submit(len, list(self.entrants.values()), pure=False).result(timeout=30)
        except Exception as exc:  # noqa: BLE001 - one line
            raise ClusterError(f"--cluster {self.address}: the scheduler cannot read tute-arena's tasks (it needs "
                               f"tute-arena installed, the same version, as every worker: docs/cluster.md): "
                               f"{_first_line(exc.__cause__ or exc)!s}") from None
        self.checked = frozenset(answers)
        return [f"worker {addr}: {line}" for addr, lines in sorted(answers.items()) for line in lines]

    def start(self) -> None:
        from leagues.tournament.cluster_worker import TutePlayers

        plugin = TutePlayers(self.plugin, self.entrants, {v.label: v.variant for v in self.cfg.variants},
                             self.cfg.time_limit_ms, self.cfg.memory_mb,
                             {v.label: v.match for v in self.cfg.variants if v.match is not None},
                             self.checked)
        self.client.register_plugin(plugin, name=self.plugin)
        self.registered = True

    def batch_size(self, unsent: int | None = None) -> int:
        return batch_size(self.seconds_per_game, self.BATCH_SECONDS, self.MAX_BATCH, unsent, self.QUEUED * self.slots)

    #: how often a run waiting for its batches looks whether the cluster still has a worker
    WATCH_SECONDS = 5.0

    def run(self, specs: Iterable[GameSpec], count: int | None = None) -> Iterator[Any]:
        from leagues.tournament.cluster_worker import play_batch

        d = _dask()
        source = iter(specs)
        pending: dict[Any, tuple[str, str]] = {}  # in the order sent: the batch's first and last game
        sent = 0

        def submit() -> bool:
            nonlocal sent
            size = self.batch_size(None if count is None else count - sent)
            batch = list(itertools.islice(source, size))
            if not batch:
                return False
            pending[self.client.submit(play_batch, self.plugin, batch, pure=False)] = (batch[0].id, batch[-1].id)
            sent += len(batch)
            return True

        for _ in range(self.QUEUED * self.slots):
            if not submit():
                break
        workerless: float | None = None
        while pending:
            try:
                ready = d.wait(list(pending), timeout=self.WATCH_SECONDS, return_when="FIRST_COMPLETED").done
            except (TimeoutError, asyncio.TimeoutError):
                workerless = self._watch(workerless)
                continue
            except Exception:  # noqa: BLE001 - a batch cancelled (the scheduler lost): said by ``_answer``
                # only what has ended: a batch whose worker died is "lost" until played again elsewhere,
                # and asking its result then waited for ever when no worker was left
                ready = {f for f in pending if f.status in ("finished", "error", "cancelled")}
                if not ready:
                    workerless = self._watch(workerless)
                    continue
            workerless = None
            for future in [f for f in pending if f in ready]:
                games = pending.pop(future)
                answer = self._answer(future, games)
                self.seconds_per_game = updated_rate(self.seconds_per_game, answer.seconds, len(answer.rows))
                submit()
                yield answer

    def _answer(self, future: Any, games: tuple[str, str]) -> Any:
        """A finished batch's ``Batch``, or ClusterError in one line (``_failure``). A batch done may still
        have to be played again: its answer lives on the worker that played it until fetched, and a
        worker that died first takes it along; with no worker left that waited for ever, so the wait is
        watched as the run's is."""
        since: float | None = None
        while True:
            try:
                return future.result(timeout=self.WATCH_SECONDS)
            except (TimeoutError, asyncio.TimeoutError):
                since = self._watch(since)
            except Exception as exc:  # noqa: BLE001 - every failure of the cluster, one line
                raise self._failure(exc, games) from None

    def _failure(self, exc: Exception, games: tuple[str, str]) -> ClusterError:
        """What failed a batch, in one line: the scheduler lost, a batch that killed every worker that
        played it, a worker that failed it."""
        name = type(exc).__name__
        if self.client.status != "running" or "scheduler-connection-lost" in str(exc) or not self._alive():
            return ClusterError(f"--cluster {self.address}: lost the scheduler")
        where = f"the batch of games {games[0]} to {games[1]}"
        if name == "EntrantsDoNotStart":
            return ClusterError(f"--cluster {self.address}: entrants that do not start on the cluster: "
                                f"{(str(exc).splitlines() or [''])[0]}")
        if name == "KilledWorker":
            tries = getattr(exc, "allowed_failures", 0) + 1
            last = getattr(getattr(exc, "last_worker", None), "address", "?")
            return ClusterError(f"--cluster {self.address}: {where} killed each of the {tries} worker processes "
                                f"that played it, the last {last} (a bot that ends or crashes its process, "
                                "playing in-process? workers out of memory?)")
        return ClusterError(f"--cluster {self.address}: {where} failed on a worker: {name}: {_first_line(exc)}")

    def _alive(self) -> bool:
        """Whether the scheduler still answers (a batch that failed as the scheduler died may say only
        that it was cancelled, or that a comm closed, before the client knows)."""
        try:
            _probe(self.address, self.client.scheduler.address)
        except ClusterError:
            return False
        return True

    def _watch(self, since: float | None) -> float | None:
        """When the cluster has had no worker since ``since``: None while it has one; ClusterError once
        it has had none for ``NO_WORKER_SECONDS``."""
        if self.client.status not in ("running", "connecting"):
            raise ClusterError(f"--cluster {self.address}: lost the scheduler")
        try:
            workers = self.client.scheduler_info(n_workers=-1)["workers"]
        except Exception:  # noqa: BLE001 - the scheduler gone: the next wait says it
            return since
        if workers:
            return None
        now = time.monotonic()
        if since is None:
            log.warning("cluster %s: no worker; waiting up to %.0f s for one", self.address, NO_WORKER_SECONDS)
            return now
        if now - since >= NO_WORKER_SECONDS:
            raise ClusterError(f"--cluster {self.address}: no worker for {NO_WORKER_SECONDS:.0f} s (all of them "
                               "died or were stopped)")
        return since

    def close(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self._settle_workers()
        try:
            if self.registered:
                self.client.unregister_worker_plugin(self.plugin)  # each worker closes its players
        except Exception as exc:  # noqa: BLE001 - closing is best effort
            log.warning("closing the players on the cluster: %s", exc)
        self.client.close()
        self._close_cluster()
        self._loud_dask()

    def terminate(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        try:
            self.client.cancel(list(self.client.futures.values()), force=True)
        except Exception:  # noqa: BLE001 - stopping: whatever is left ends with the cluster
            pass
        self._settle_workers()
        try:
            if self.registered:
                self.client.unregister_worker_plugin(self.plugin)
        except Exception:  # noqa: BLE001 - stopping: whatever is left ends with the cluster
            pass
        try:
            self.client.close(timeout=CONNECT_SECONDS)
        except Exception:  # noqa: BLE001 - a scheduler already gone
            pass
        self._close_cluster()
        self._loud_dask()

    def _quiet_dask(self) -> None:
        """Dask's own log lines (a batch rescheduled after a worker died, a lost scheduler) go to the run's
        log, not the terminal: what the user must see is the run's own one line. Dask gives its stderr
        handler to each of its loggers it configures (``distributed``, ``distributed.client``...)."""
        saved: list[tuple[logging.Logger, bool, list[logging.Handler], int]] = []
        names = [n for n in list(logging.root.manager.loggerDict) if n == "distributed" or n.startswith("distributed.")]
        for name in names:
            logger = logging.getLogger(name)
            streams: list[logging.Handler] = [h for h in logger.handlers if isinstance(h, logging.StreamHandler)
                                              and not isinstance(h, logging.FileHandler)]
            if streams or name == "distributed":
                saved.append((logger, logger.propagate, streams, logger.level))
                for h in streams:
                    logger.removeHandler(h)
                logger.propagate = True
        dask_log = logging.getLogger("distributed")
        dask_log.setLevel(max(dask_log.level, logging.WARNING))
        self._dask_log = saved

    def _loud_dask(self) -> None:
        for logger, propagate, streams, level in self._dask_log:
            logger.propagate = propagate
            logger.setLevel(level)
            for h in streams:
                if h not in logger.handlers:
                    logger.addHandler(h)
        self._dask_log = []

    def _close_cluster(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
        if self.local is not None:
            if self._dask_variable is None:
                os.environ.pop(_DASK_LOG_VARIABLE, None)
            else:
                os.environ[_DASK_LOG_VARIABLE] = self._dask_variable
            self.local = None

    def _settle_workers(self) -> None:
        """A worker its nanny is starting again (a bot ended the last one) that meets its cluster
        closing dies printing its process's traceback on the run's terminal, whatever the log level:
        a cluster of the run's own closes once its workers are up again (at once after a good run),
        or after a few seconds."""
        if self.local is None:
            return
        try:
            self.client.wait_for_workers(self.local, timeout=CONNECT_SECONDS)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
