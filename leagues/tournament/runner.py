"""Playing a tournament: a process pool plays the games, the parent alone journals them.

Workers (spawn-safe: top-level functions, picklable arguments) build each player once, on first use,
reuse it for every later game and close it when the worker exits. They play games in batches and
return them as ready store rows (record and result already JSON text), so the parent's share of a batch
is one SQLite transaction, all of it or none: a crash never leaves half a game. Results never depend
on the number of workers, the batches or the completion order: a game is a pure function of its spec
(schedule.py), the store is keyed by game id, and ratings fold in schedule order.

Resuming is skipping stored ids. Swiss rounds are paired from the results of the rounds before, so a
round starts only when the previous one is complete; replaying the pairing from stored results gives
the same rounds after a crash.
"""

from __future__ import annotations

import collections
import gc
import itertools
import json
import re
import logging
import logging.handlers
import multiprocessing
import multiprocessing.util
import os
import signal
import sqlite3
import sys
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterable, Iterator, Sequence, TextIO

from multiprocessing_logging import MultiProcessingHandler

from arena import BotFailure, GameResult, Variant, play_game, shuffled_deck
from arena.hosting import BotLoadError, clock_stops, make_player, start_problem
from arena.hosting.forking import forking
from arena.hosting.subprocess import die_with_parent
from arena.match import interrupts_are_bots, users_stop
from arena.matchplay import MatchRule, play_match

from leagues.tournament.cluster import ClusterError, ClusterExecutor
from leagues.tournament.batching import batch_size, updated_rate
from leagues.tournament.pipes import WorkerGone, answers
from leagues.tournament.config import EntrantConfig, TournamentConfig, check_bot
from leagues.tournament.forfeits import ForfeitWatch
from leagues.tournament.lock import LockedError, LockFileError, RunLock
from leagues.tournament.matches import MatchMonitor, monitor_of_store, summary_lines
from leagues.tournament.terminal import clocked, per_second, plural, redraw
from leagues.tournament.pairing import History, Round
from leagues.tournament.schedule import (GameSpec, round_games, round_robin_rounds, round_size,
                                         side_seats, swiss_round, unit_scores)
from leagues.tournament.store import ROW_RESULT, EntrantRow, Store, StoreError, StoreWriteError, game_row
from leagues.tournament.tally import kept
from leagues.tournament.watermark import RESUME_ADVICE, Watermark

log = logging.getLogger("leagues.tournament.runner")
#: a Swiss round's score for a unit that played no card in it: a bye, or the dealer who sat out every
#: game of its table (cabrero with 5 or 6); an average result, neither lifting nor sinking the unit
NO_GAME_SCORE = 0.5


class RunError(RuntimeError):
    """A run refused before it starts (changed config, unreadable store): one line for the user."""


class ConfigChanged(RunError):
    """A stored tournament refused because its config changed: ``changed`` holds the keys, so that a
    command that sets them by options (``tute match``) says them in its own words."""

    def __init__(self, message: str, changed: Sequence[str]) -> None:
        super().__init__(message)
        self.changed = tuple(changed)


class StartError(RunError):
    """A run refused because an entrant does not start (``preflight``): what ``forfeit_missing`` lets
    go on."""


class Interrupted(RuntimeError):
    """Ctrl-C (or SIGTERM): the finished games are stored; running again resumes."""


@dataclass
class RunSummary:
    tournament: str
    total: int = 0
    played: int = 0
    skipped: int = 0
    seconds: float = 0.0
    already_finished: bool = False
    #: this run's forfeits per entrant, warned about on screen as soon as they pass a threshold
    watch: ForfeitWatch = field(default_factory=ForfeitWatch)

    @property
    def forfeits(self) -> int:
        """The deals this run played that were forfeited (a match's counted deal by deal)."""
        return sum(e.forfeits for e in self.watch.entrants.values())

    @property
    def rate(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else 0.0


# --------------------------------------------------------------------------------------------- players
def create_player(entrant: EntrantConfig, time_limit_ms: int, memory_mb: int) -> Any:
    """The one place players are built: ``arena.hosting.make_player`` (in-process, subprocess or command
    host as the entrant's isolation says)."""
    return make_player(entrant.bot_arg, dict(entrant.params), isolation=entrant.isolation,
                       time_limit_ms=time_limit_ms, memory_mb=memory_mb, cwd=entrant.cwd)


def entrant_start_problem(e: EntrantConfig, time_limit_ms: int, memory_mb: int) -> str | None:
    """Start one entrant as a game would and close it: None if it answers, else what went wrong (one
    line). The local preflight and every worker of a cluster ask it of every entrant."""
    try:
        player = create_player(e, time_limit_ms, memory_mb)
    except BotLoadError as exc:
        return f"entrant {e.name!r} did not start: {' | '.join(str(exc).splitlines())[:600]}"
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's constructor may raise anything
        return f"entrant {e.name!r} did not start: {exc!r}"[:600]
    problem = start_problem(player)
    return None if problem is None else f"entrant {e.name!r} did not start: {problem}"


#: what turns an entrant that does not start from a refusal of the run into forfeits of its games
FORFEIT_MISSING = "--forfeit-missing"


#: where a tournament's file (tournament.toml, a match file) sets the move limit, for ``clocked``; the
#: commands that take it elsewhere say so (``run_tournament``'s ``limit_setting``: ``tute match``'s
#: option, a league's file); ``tute leaderboard``, which has no config, says it this way
TOURNAMENT_LIMIT = "time_limit_ms in the tournament's file"


def clocked_warning(store: Store, tournaments: Sequence[str], setting: str = TOURNAMENT_LIMIT) -> str | None:
    """The stored games of these tournaments that may not replay the same: a bot's clock, not its
    counted work, ended a decision (the machine was slower, or busier, than the move limit leaves room
    for). The table is still a fair one; its promise of the same games with any number of workers is
    what is lost. Kept in the store with the games, so every table of them says it (a resumed run, a
    finished one run again, ``tute leaderboard``): last, after the table; an interrupted run as it stops."""
    games = [i for t in tournaments for i in store.clocked_games(t)]
    return clocked(len(games), games[0], "game", setting) if games else None


def say_forfeiting(problems: Sequence[str], stream: TextIO | None, games: str = "its games") -> None:
    """Each entrant let go on without starting (``FORFEIT_MISSING``), one warning line before the run."""
    for p in problems:
        print(f"warning: {p}; it forfeits {games} ({FORFEIT_MISSING})", file=stream or sys.stderr, flush=True)


def preflight(cfg: TournamentConfig, forfeit_missing: bool = False, stream: TextIO | None = None) -> None:
    """Start every entrant once before any game: a bot that does not load or answer ``hello`` (a
    command whose script is missing, a plugin that raises on import) would otherwise forfeit every game
    of the run. Raises RunError naming each one and what it said; with ``forfeit_missing`` says each on
    ``stream`` instead, and the run goes on with the entrant forfeiting its games (a bot gone for good
    must not lock a tournament half played: its config cannot change without starting it again)."""
    problems = [p for e in cfg.entrants if (p := entrant_start_problem(e, cfg.time_limit_ms, cfg.memory_mb))]
    if problems and forfeit_missing:
        say_forfeiting(problems, stream)
    elif problems:
        where = "the config file's folder; see docs/config.md" if cfg.source.endswith(".toml") else "this folder"
        hint = f" (a command runs in {where})" if any(isinstance(e.bot, tuple) for e in cfg.entrants) else ""
        raise StartError(f"{cfg.source}: " + "; ".join(problems) + hint)


class _Broken:
    """Stands in for a bot that could not be built: every decision is a crash forfeit, so the failure
    is scored and recorded instead of stopping the tournament."""

    def __init__(self, detail: str) -> None:
        self.detail = detail

    def choose(self, view: Any) -> str:
        raise BotFailure("crash", self.detail)

    def new_game(self, info: dict[str, Any]) -> None:
        raise BotFailure("crash", self.detail)


@dataclass
class Worker:
    """One process's players and rules; plays specs and returns each as the store's row (``game_row``)."""
    entrants: dict[str, EntrantConfig]
    variants: dict[str, Variant]
    time_limit_ms: int
    memory_mb: int
    players: dict[tuple[str, int], Any] = field(default_factory=dict)
    #: per variant label, the match rule of a variant played by the match (``unit = "match"``)
    matches: dict[str, MatchRule] = field(default_factory=dict)
    #: the last deal's deck, shared by its rotations (duplicate deals): shuffled once, not per game
    deck_key: tuple[str, int] | None = None
    deck: list[int] = field(default_factory=list)

    def player(self, name: str, copy: int) -> Any:
        key = (name, copy)
        p = self.players.get(key)
        if p is None:
            try:
                p = create_player(self.entrants[name], self.time_limit_ms, self.memory_mb)
                log.info("worker %d: started %s (copy %d)", os.getpid(), name, copy)
            except BaseException as exc:  # noqa: BLE001 - a bot that cannot start (even by sys.exit)
                if users_stop(exc):  # forfeits, it does not crash us
                    raise
                log.error("worker %d: cannot start %s: %s", os.getpid(), name, exc)
                p = _Broken(f"cannot start: {exc}")
            self.players[key] = p
        return p

    def play(self, spec: GameSpec) -> tuple[tuple[Any, ...], int]:
        """One game as the store's row (``store.game_row``): the worker does all the encoding, so the
        parent only inserts; and how many of its decisions the bots' clocks ended (``clock_stops``)."""
        players = self._players(spec)
        before = clock_stops(players)
        row = self._play(spec, players)
        stops = max(0, clock_stops(players) - before)  # only growth counts
        if stops:
            log.warning("%s: a bot's clock, not its counted work, ended %s: this game may play otherwise with "
                        "other workers or on another machine", spec.id, plural(stops, "decision"))
        return row, stops

    def _players(self, spec: GameSpec) -> list[Any]:
        seen: dict[str, int] = {}
        players = []
        for name in spec.seats:  # pairs: two copies of one entrant are two separate instances
            copy = seen.get(name, 0)
            seen[name] = copy + 1
            players.append(self.player(name, copy))
        return players

    def _play(self, spec: GameSpec, players: list[Any]) -> tuple[Any, ...]:
        v = self.variants[spec.variant]
        rule = self.matches.get(spec.variant)
        if rule is not None:
            return self._play_match(spec, v, rule, players)
        if self.deck_key != (spec.variant, spec.seed):  # the rotations of a deal come one after another
            self.deck_key, self.deck = (spec.variant, spec.seed), shuffled_deck(v, spec.seed)
        record = play_game(v, self.deck, spec.dealer, players, game_id=spec.id, seed=spec.seed,
                           names=list(spec.seats))
        f = record.result.forfeit
        if f is not None:
            log.warning("%s: %s forfeits (%s): %s", spec.id, spec.seats[f.seat], f.reason, f.detail[:300])
        record_json, result_json = record.encode()
        return game_row(spec, result_json, record_json)

    def _play_match(self, spec: GameSpec, v: Variant, rule: MatchRule, players: list[Any]) -> tuple[Any, ...]:
        """A game whose unit is a match: the match is the stored result, its deals are in its record."""
        m = play_match(v, players, seed=spec.seed, rule=rule, first_dealer=spec.dealer, names=list(spec.seats),
                       match_id=spec.id)
        for record in m.deals:
            f = record.result.forfeit
            if f is not None:
                log.warning("%s: %s forfeits (%s): %s", record.id, spec.seats[f.seat], f.reason, f.detail[:300])
        return game_row(spec, json.dumps(m.result.to_json(), separators=(",", ":")),
                        json.dumps(m.to_json(), separators=(",", ":")))

    def close(self) -> None:
        for key, p in list(self.players.items()):
            close = getattr(p, "close", None)
            if close is not None:
                try:
                    close()
                except BaseException as exc:  # noqa: BLE001 - closing is best effort
                    if users_stop(exc):
                        raise
                    log.warning("closing %s: %s", key[0], exc)
        self.players.clear()


_WORKER: Worker | None = None
_LOG_QUEUE: Any = None


def _init_worker(entrants: dict[str, EntrantConfig], variants: dict[str, Variant], time_limit_ms: int,
                 memory_mb: int, log_queue: Any, level: int, matches: dict[str, MatchRule] | None = None) -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; logs go to the parent's queue."""
    global _WORKER, _LOG_QUEUE
    die_with_parent()  # a runner killed with kill -9 takes its workers (and their bots) with it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # terminate() must end a worker, whatever the parent set
    interrupts_are_bots()
    root = logging.getLogger()
    for h in list(root.handlers):  # a forked worker inherits the parent's handlers: replace them
        root.removeHandler(h)
    if log_queue is not None:
        root.addHandler(logging.handlers.QueueHandler(log_queue))
        root.setLevel(level)
        _LOG_QUEUE = log_queue
    _WORKER = Worker(entrants, variants, time_limit_ms, memory_mb, matches=dict(matches or {}))
    # above the log queue's own exit finalizer (10), which would otherwise close it first
    multiprocessing.util.Finalize(None, _close_worker, exitpriority=100)
    # what the worker inherited or built so far lives as long as it does: keep it out of every garbage
    # collection (1-3% of a random bot's game; and a forked heap's pages stay shared with the parent)
    gc.freeze()
    log.info("worker %d ready", os.getpid())


def _close_worker() -> None:
    if _WORKER is not None:
        _WORKER.close()
        log.info("worker %d closed its players", os.getpid())
    if _LOG_QUEUE is not None:  # flush this worker's last records before the process ends
        _LOG_QUEUE.close()
        _LOG_QUEUE.join_thread()


@dataclass(frozen=True)
class Batch:
    """A worker's answer: the store rows of the games it played, in order, and how long they took."""
    rows: list[tuple[Any, ...]]
    seconds: float
    #: the ids of the games in which a bot's clock, not its counted work, ended a decision
    clocked: tuple[str, ...] = ()


def play_batch(worker: Worker, specs: Sequence[GameSpec], playing: Any = None) -> Batch:
    """``specs`` played by ``worker``: the answer of a local worker process and of a Dask worker alike.
    ``playing`` (a shared int) is set to the index of the game being played: if a bot kills the process,
    the parent can still say which game it was."""
    start = time.perf_counter()
    played = []
    for i, s in enumerate(specs):
        if playing is not None:
            playing.value = i
        played.append((s, *worker.play(s)))
    if playing is not None:
        playing.value = -1  # between batches: no game of this worker's is in flight
    rows = [row for _, row, _ in played]
    clocked = tuple(s.id for s, _, stops in played if stops)
    return Batch(rows, time.perf_counter() - start, clocked)


def _worker_main(conn: Connection, playing: Any, *init: Any) -> None:
    """A worker process: batches of specs in, ``Batch`` answers out, until ``None`` or the parent is
    gone. A failure of the runner itself (not a bot's: those are forfeits) is sent back as text."""
    _init_worker(*init)
    assert _WORKER is not None
    while True:
        try:
            specs = conn.recv()
        except (EOFError, OSError):
            return
        if specs is None:
            return
        try:
            answer: Batch | str = play_batch(_WORKER, specs, playing)
        except BaseException:  # noqa: BLE001 - reported to the parent, which stops the run
            answer = traceback.format_exc()
        conn.send(answer)
        if isinstance(answer, str):
            return


class Executor:
    """Games in, batches of finished games out (in completion order), from ``workers`` processes. Even
    one worker is a process: the parent's store writes then overlap with the playing.

    Batches are sized to about ``BATCH_SECONDS`` of play from the time the games so far took (one game
    at first), so that a fast game costs the parent one row of a many-row transaction, while a slow
    bot's games still come back, and are stored, every fraction of a second: a kill loses at most the
    batches in flight. Each worker has two batches queued, so it never waits for the parent.

    The workers are plain processes on a pipe each, read by the parent's one thread. A stdlib pool
    puts a manager thread and a task queue with its feeder thread between them: more parent CPU a
    game, and, after Ctrl-C on a loaded machine, a parent that sometimes never exited (its threads are
    joined at exit). Here stopping is killing the processes and closing their pipes."""

    BATCH_SECONDS = 0.1
    MAX_BATCH = 256
    QUEUED = 2

    def __init__(self, cfg: TournamentConfig, workers: int, log_queue: Any) -> None:
        entrants = {e.name: e for e in cfg.entrants}
        variants = {v.label: v.variant for v in cfg.variants}
        self.workers = max(1, workers)
        self.seconds_per_game: float | None = None
        matches = {v.label: v.match for v in cfg.variants if v.match is not None}
        init = (entrants, variants, cfg.time_limit_ms, cfg.memory_mb, log_queue, logging.getLogger().level, matches)
        # the default context: the log queue was made by it, and a queue cannot cross contexts
        ctx = multiprocessing.get_context()
        self.stopped = False
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        #: per worker: the batches sent and not yet answered, and which game of the first it is playing
        self.pending: list[collections.deque[list[GameSpec]]] = [collections.deque() for _ in range(self.workers)]
        self.playing = [ctx.RawValue("i", -1) for _ in range(self.workers)]
        try:
            with forking():  # a Ctrl-C as the workers are forked is acted on once they are
                for i in range(self.workers):
                    mine, theirs = ctx.Pipe()
                    proc = ctx.Process(target=_worker_main, args=(theirs, self.playing[i], *init),
                                       name=f"TuteWorker-{i + 1}", daemon=True)
                    proc.start()
                    theirs.close()
                    self.procs.append(proc)
                    self.conns.append(mine)
        except BaseException:
            # the caller never holds this executor: the workers started are killed here (one not yet in
            # its own code ignores the exit's SIGTERM, and the exit would wait for it for ever)
            self.terminate()
            raise

    def batch_size(self, unsent: int | None = None) -> int:
        return batch_size(self.seconds_per_game, self.BATCH_SECONDS, self.MAX_BATCH, unsent, self.QUEUED * self.workers)

    def run(self, specs: Iterable[GameSpec], count: int | None = None) -> Iterator[Batch]:
        """Play ``specs`` (taken from the iterable only as batches are sent, so a schedule can be
        generated while the first games are played); ``count``, if known, is how many there are."""
        source = iter(specs)
        queued = dict.fromkeys(range(self.workers), 0)
        sent = 0
        more = True
        #: workers found dead by a send: their answers already in the pipe are read (and stored) first,
        #: then the death is said (the run stops there; the batch that could not be sent is played on resume)
        dead: set[int] = set()

        def feed(w: int) -> None:
            nonlocal sent, more
            while more and queued[w] < self.QUEUED and w not in dead:
                size = self.batch_size(None if count is None else count - sent)
                batch_specs = list(itertools.islice(source, size))
                if not batch_specs:
                    more = False
                    return
                try:
                    self.conns[w].send(batch_specs)
                except OSError:  # its end of the pipe is closed: it died since its last answer
                    dead.add(w)
                    return
                self.pending[w].append(batch_specs)
                queued[w] += 1
                sent += len(batch_specs)

        for w in range(self.workers):
            feed(w)
        while any(queued.values()) or dead:
            for w in dead:
                if not queued[w]:  # every answer it sent is read
                    raise self.died(w)
            try:
                for w, answer in answers(self.conns, self.procs, [w for w, q in queued.items() if q]):
                    if isinstance(answer, str):
                        raise RuntimeError(f"worker {self.procs[w].pid} failed:\n{answer}")
                    self.pending[w].popleft()
                    queued[w] -= 1
                    feed(w)
                    self.seconds_per_game = updated_rate(self.seconds_per_game, answer.seconds, len(answer.rows))
                    yield answer
            except WorkerGone as gone:
                raise self.died(gone.worker) from None

    def died(self, w: int) -> RunError:
        """The error of worker ``w``'s death, found by reading its answer or by sending it a batch."""
        text = f"a worker process died{self.in_flight(w)} (a bot killed it, or crashed it playing in-process)"
        log.error("%s", text)
        return RunError(f"{text}; the finished games are stored: run again to resume")

    def in_flight(self, w: int) -> str:
        """`` while playing ID (seats A, B)``: the game worker ``w`` was playing, as far as it said."""
        i = self.playing[w].value
        if not self.pending[w] or not 0 <= i < len(self.pending[w][0]):
            return ""
        spec = self.pending[w][0][i]
        return f" while playing {spec.id} (seats {', '.join(spec.seats)})"

    def close(self) -> None:
        """Let the workers finish: each closes its players and flushes its log on the way out."""
        if self.stopped:
            return
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc in self.procs:
            proc.join()
        for conn in self.conns:
            conn.close()

    def terminate(self) -> None:
        """Stop now (Ctrl-C, an error, a decided match): kill the workers rather than wait for their
        batches (whose results nobody will read)."""
        self.stopped = True
        for proc in self.procs:
            if proc.is_alive():
                # SIGKILL, not SIGTERM: a worker still starting up has the parent's SIGTERM handler (the
                # CLI's, which raises) until its main resets it, and printed a traceback when hit there
                proc.kill()
        for proc in self.procs:
            proc.join(5)
        for conn in self.conns:
            conn.close()


# ---------------------------------------------------------------------------------------------- progress
class Progress:
    """One line on stderr, redrawn at most five times a second: games done, games/s, ETA."""

    def __init__(self, name: str, total: int, done: int, enabled: bool, stream: TextIO) -> None:
        self.name, self.total, self.done, self.enabled, self.stream = name, total, done, enabled, stream
        self.start = time.perf_counter()
        self.played = 0
        self.last = 0.0

    def step(self, games: int = 1) -> None:
        self.done += games
        self.played += games
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.2 and self.done < self.total:
            return
        self.last = now
        rate = self.played / (now - self.start) if now > self.start else 0.0
        left = max(0, self.total - self.done)
        eta = f"{int(left / rate) // 60}:{int(left / rate) % 60:02d}" if rate > 0 else "?"
        self.stream.write(f"\r{self.name}: {self.done}/{self.total} games  {per_second(rate)} games/s  ETA {eta}   ")
        self.stream.flush()

    def say(self, text: str) -> None:
        """A line that must be seen now (a warning), above the progress line, even with --quiet."""
        if self.enabled:
            self.stream.write("\r\033[K")
            self.last = 0.0  # redraw the progress line at the next step
        self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# ----------------------------------------------------------------------------------------------- logging
def _install_log(path: os.PathLike[str] | str) -> MultiProcessingHandler:
    """The run's log file behind multiprocessing-logging's handler: the parent's records and, through
    its queue, every worker's arrive at one thread that writes the file. (``install_mp_handler``
    would wrap every root handler and insists on fork; the handler itself works with spawn too.)"""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fh = _LogFile(path, encoding="utf-8")
    fh.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"))
    # Ctrl-C held off while the handler is built: one caught between its thread's creation and start
    # left a handler that logging's exit could not close (a traceback after 'aborted')
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        handler = MultiProcessingHandler("tute-log", sub_handler=fh)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    return handler


def _remove_log(handler: MultiProcessingHandler, *, interrupted: bool = False) -> None:
    """Detach and close the log. After terminate() (or a worker's death) a worker may have counted a
    record it never sent, and the handler's close() would wait 5 s for it: a run that did not complete
    waits half a second."""
    logging.getLogger().removeHandler(handler)
    if interrupted:
        handler._is_closed = True
        handler._receive_thread.join(0.5)
        handler.sub_handler.close()
        # a worker killed while it wrote to the queue keeps its lock: the parent's own records could then
        # never be sent, and the exit, which waits for them, never came (a hang after 'interrupted')
        handler.queue.cancel_join_thread()
    else:
        # the receiving thread looks for the close only between records or every 0.2 s: wake it
        handler._is_closed = True
        handler.queue.put_nowait(logging.makeLogRecord({"tute_wake": True}))
        handler._receive_thread.join(5.0)
        handler.sub_handler.close()
        logging.Handler.close(handler)
        # a run that completed may have killed workers too (a match its SPRT decided): one killed while it
        # wrote to the queue holds its lock for ever, and the exit waited for the wake-up record above
        # (a hang after the summary). The records that count are written by now
        handler.queue.cancel_join_thread()


class _LogFile(logging.FileHandler):
    """The run's log file; skips the record that only wakes the receiving thread at the end."""

    def emit(self, record: logging.LogRecord) -> None:
        if not getattr(record, "tute_wake", False):
            super().emit(record)


# ------------------------------------------------------------------------------------------------ the run
def _entrant_rows(cfg: TournamentConfig) -> list[EntrantRow]:
    rows = []
    for e in cfg.entrants:
        try:
            version = check_bot(e.bot)
        except Exception:  # noqa: BLE001 - validated already; the version is only informative
            version = "?"
        bot = json.dumps(list(e.bot)) if isinstance(e.bot, tuple) else e.bot
        kind = "command" if isinstance(e.bot, tuple) else "module" if ":" in e.bot else "entrypoint"
        rows.append(EntrantRow(e.name, bot, kind, version, dict(e.params)))
    return rows


def planned_games(cfg: TournamentConfig) -> int:
    """The games a tournament's schedule holds, from its config alone: what a run records as it starts
    (``Store.set_planned``), what a partial table counts against, and what an export of a store from
    before plans were recorded says, so that its import stays resumable. A round robin's rounds; a
    Swiss's first round times its rounds (every round seats the same entrants); a match's every block
    of every pairing (the most it plays: an SPRT may decide sooner, and the run then ends finished)."""
    if cfg.format == "round-robin":
        return sum(round_size(cfg, rnd) for vi in range(len(cfg.variants)) for rnd in round_robin_rounds(cfg, vi))
    if cfg.format == "swiss":
        assert cfg.rounds is not None
        return cfg.rounds * sum(len(round_games(cfg, vi, 1, swiss_round(cfg, vi, 1, History())))
                                for vi in range(len(cfg.variants)))
    return MatchMonitor(cfg).planned()


def prepare(cfg: TournamentConfig, store: Store, *, new: bool = False, advice: str = RESUME_ADVICE) -> bool:
    """Create (or, with ``new``, recreate) the tournament; refuse a changed config, and a tournament
    under way whose bots or rules are no longer those it began with (``advice``: what the caller's user
    can do then). True if the stored tournament is already finished."""
    row = store.tournament(cfg.name)
    if row is not None and new:
        store.delete_tournament(cfg.name)
        row = None
    if row is None:
        store.create_tournament(cfg.name, cfg.config_hash(), cfg.identity_json(), _entrant_rows(cfg))
        return False
    if row.config_hash != cfg.config_hash():
        changed = sorted(k for k in set(row.config) | set(cfg.identity())
                         if row.config.get(k) != cfg.identity().get(k))
        raise ConfigChanged(f"{cfg.source}: tournament {cfg.name!r} in {store.path} was started with a different "
                            f"config (changed: {', '.join(changed)}); run with --new to start it again, or rename it",
                            changed)
    if row.finished is None:
        _refuse_other_versions(cfg, store, advice)
        _refuse_other_rules(cfg, store, advice)
    return row.finished is not None


def _refuse_other_rules(cfg: TournamentConfig, store: Store, advice: str) -> None:
    """A config names a preset, whose rules a new version of tute-arena may have changed (a preset made
    to follow its source better): resumed, the tournament would play its later games by other rules
    than its stored ones. The first stored deal of each variant says the rules it was played by."""
    for vi, vc in enumerate(cfg.variants):
        first = store.a_record(cfg.name, vi)
        if first is None:
            continue
        now = vc.variant.options()
        changed = sorted(k for k in set(first.options) | set(now) if first.options.get(k) != now.get(k))
        if changed:
            raise RunError(f"{cfg.source}: tournament {cfg.name!r} in {store.path}: variant {vc.label!r} was played "
                           f"by other rules than its preset {vc.preset!r} has now (changed: {', '.join(changed)}): "
                           + advice)


def _refuse_other_versions(cfg: TournamentConfig, store: Store, advice: str) -> None:
    """A tournament resumed with a bot of another version (another release of its package, a built-in
    bot of another ``revision``) would store games of two versions under one entrant, neither the games
    the old version would play nor the new: refused, in one line. A version that cannot be told ("?")
    is not compared."""
    was = {e.name: e.version for e in store.entrants(cfg.name)}
    changed = [f"{e.name!r} ({was[e.name] or 'no version'} then, {e.version} now)" for e in _entrant_rows(cfg)
               if e.name in was and _plays_as(was[e.name]) != _plays_as(e.version)
               and "?" not in (was[e.name], e.version)]
    if changed:
        raise RunError(f"{cfg.source}: tournament {cfg.name!r} in {store.path} was started with other versions of "
                       f"{', '.join(changed)}: {advice}")


def _plays_as(version: str) -> str:
    """What of an entrant's recorded version says how it plays: a built-in bot's revision alone (for a
    while it was recorded with the release too, 'tute-arena 0.1.0 r1'), anything else as it is."""
    found = re.fullmatch(r"tute-arena (?:\S+ )?(r\d+)", version)
    return f"tute-arena {found.group(1)}" if found else version


def run_tournament(cfg: TournamentConfig, *, workers: int | None = None, new: bool = False, quiet: bool = False,
                   stream: TextIO | None = None, cluster: str | None = None, started: bool = False,
                   forfeit_missing: bool = False, limit_setting: str = TOURNAMENT_LIMIT,
                   advice: str = RESUME_ADVICE) -> RunSummary:
    """Play (or resume) ``cfg`` into its store, on this machine's processes or on the Dask cluster
    ``cluster`` (else the config's). Raises Interrupted on Ctrl-C, RunError before a start. ``started``:
    the caller has started every entrant just now (``preflight`` or its own words for it: a league's
    season), so they are not started once more. ``forfeit_missing``: an entrant that does not start
    forfeits its games instead of refusing the run (``preflight``). ``limit_setting``: where the
    caller's user sets the move limit, for the warning of games a bot's clock decided; ``advice``: what
    that user can do with a tournament refused on resume (``prepare``)."""
    stream = stream or sys.stderr
    n_workers = workers if workers is not None else (cfg.workers or os.cpu_count() or 1)
    cluster = cluster or cfg.cluster
    lock = RunLock(cfg.store, cfg.name)
    try:
        lock.__enter__()
    except LockedError as exc:
        raise RunError(f"{cfg.source}: tournament {exc}") from None
    except LockFileError as exc:
        raise RunError(f"{cfg.source}: store {cfg.store}: {exc}") from None
    try:
        return _run_locked(cfg, n_workers, new, quiet, stream, cluster, started, forfeit_missing, limit_setting,
                           advice)
    finally:
        lock.__exit__()


def _cluster_executor(cfg: TournamentConfig, cluster: str, forfeit_missing: bool, stream: TextIO) -> Any:
    """The cluster, reached and every worker having started every entrant (its players are built by
    ``start``, once the run's log is there to take their lines). Asked for before ``prepare``: a
    scheduler that cannot be reached must refuse the run before ``--new`` deletes anything."""
    try:
        executor = ClusterExecutor(cfg, cluster)
    except ClusterError as exc:
        raise RunError(str(exc)) from None
    try:
        failures = executor.check_workers()
    except ClusterError as exc:
        executor.terminate()
        raise RunError(str(exc)) from None
    if forfeit_missing:
        executor.checked = None  # a worker that joins later plays too, its missing bots forfeiting there
    if failures and forfeit_missing:
        say_forfeiting(failures, stream, "its games there")
    elif failures:
        executor.close()
        raise StartError(f"{cfg.source}: entrants that do not start on the cluster {cluster}: " + "; ".join(failures))
    return executor


def _run_locked(cfg: TournamentConfig, n_workers: int, new: bool, quiet: bool, stream: TextIO,
                cluster: str | None = None, started: bool = False, forfeit_missing: bool = False,
                limit_setting: str = TOURNAMENT_LIMIT, advice: str = RESUME_ADVICE) -> RunSummary:
    summary = RunSummary(cfg.name)
    fresh = not cfg.store.exists()
    remote: Any = None
    if fresh:  # a first run that is refused (a bot that does not start, no cluster) leaves no empty store
        if not started:
            preflight(cfg, forfeit_missing, stream)
        if cluster is not None:
            remote = _cluster_executor(cfg, cluster, forfeit_missing, stream)
    try:
        store = Store(cfg.store)
    except BaseException:
        if remote is not None:
            remote.terminate()
        raise
    try:
        row = store.tournament(cfg.name)
        if new or row is None or row.finished is None:
            # every check that can refuse the run comes before ``prepare``, which deletes with --new
            if not (fresh or started):
                preflight(cfg, forfeit_missing, stream)
            if cluster is not None and remote is None:
                remote = _cluster_executor(cfg, cluster, forfeit_missing, stream)
        if prepare(cfg, store, new=new, advice=advice):
            summary.already_finished = True
            if not kept(store.db, cfg.name):  # a store from before tallies or of another count: fold it once, keep it
                Watermark(cfg, store).settle()
            return summary
        handler = _install_log(cfg.log)
        try:
            return _play_logged(cfg, store, n_workers, quiet, stream, cluster, remote, summary, handler,
                                limit_setting, advice)
        except KeyboardInterrupt:  # met while the log closed, after the games (or after the stop said)
            _remove_log(handler, interrupted=True)  # again: the one it cut short may have left it open
            raise Interrupted(f"interrupted: {_stored_this_run(store, summary)} games stored this run in "
                              f"{cfg.store}; run again to resume") from None
    finally:
        if remote is not None:
            remote.terminate()  # nothing if closed already; else a refusal after connecting
        store.close()


def _play_logged(cfg: TournamentConfig, store: Store, n_workers: int, quiet: bool, stream: TextIO,
                 cluster: str | None, remote: Any, summary: RunSummary, handler: MultiProcessingHandler,
                 limit_setting: str, advice: str) -> RunSummary:
    """The games of a run whose log is open (``handler``), and the log closed after them."""
    executor: Any = None
    completed = False
    clock = time.perf_counter()
    try:
        log.info("tournament %s: %s, %d variants, %d entrants, %s", cfg.name, cfg.format,
                 len(cfg.variants), len(cfg.entrants), f"cluster {cluster}" if cluster else f"{n_workers} workers")
        if remote is not None:
            executor = remote
            remote.start()
            log.info("cluster %s: %d worker threads", cluster, remote.slots)
        else:
            executor = Executor(cfg, n_workers, handler.queue)
        clock = time.perf_counter()  # games/s counts the playing, not the start of the workers
        stored = store.stored_seats(cfg.name)
        show = not quiet and redraw(stream)
        mark = Watermark(cfg, store, advice)
        if cfg.format == "round-robin":
            _run_round_robin(cfg, store, executor, stored, summary, show, stream, mark)
        elif cfg.format == "swiss":
            _run_swiss(cfg, store, executor, stored, summary, show, stream, mark)
        else:
            _run_matches(cfg, store, executor, stored, summary, show, stream, mark)
        executor.close()
        executor = None
        if store.replaced():
            raise RunError(f"{cfg.store}: the store was deleted or replaced during the run: the "
                           f"{summary.played} games this run played are in no file; run again to play them")
        mark.settle()
        store.mark_finished(cfg.name)
        summary.seconds = time.perf_counter() - clock
        log.info("tournament %s: %d games played, %d already stored, %.1f s", cfg.name, summary.played,
                 summary.skipped, summary.seconds)
        completed = True
    except (ClusterError, StoreWriteError) as exc:
        # the scheduler lost, a batch that kills its workers, none left; a full disk: what was
        # committed stays whole
        if executor is not None:
            executor.terminate()
            executor = None
        log.error("tournament %s: %s", cfg.name, exc)
        raise RunError(f"{exc}; {_stored_this_run(store, summary)} games stored this run in {cfg.store}: "
                       "run again to resume") from None
    except KeyboardInterrupt:
        if executor is not None:
            executor.terminate()
            executor = None
        played = _stored_this_run(store, summary)
        log.warning("tournament %s: interrupted after %d games", cfg.name, played)
        raise Interrupted(f"interrupted: {played} games stored this run in {cfg.store}; "
                          f"run again to resume") from None
    finally:
        if executor is not None:
            executor.terminate()
        text = clocked_warning(store, [cfg.name], limit_setting)
        if text is not None:
            log.info(text)
            if not completed:  # else the command says it after its table
                print(text, file=stream or sys.stderr, flush=True)
        _remove_log(handler, interrupted=not completed)
    return summary


def _stored_this_run(store: Store, summary: RunSummary) -> int:
    """The games this run stored, as a run that ended early says them: counted in the store, since an
    interrupt can fall between a batch's commit and its count in ``summary``."""
    try:
        return max(summary.played, store.count_games(summary.tournament) - summary.skipped)
    except (sqlite3.Error, StoreError):  # the store that failed to write may fail to read too
        return summary.played


def _store(store: Store, tournament: str, batch: Batch, save: Callable[[Any], None] | None = None) -> None:
    """A batch's games, which of them a bot's clock decided and the tally (``save``): one transaction."""
    def then(db: Any) -> None:
        if save is not None:
            save(db)
        store.add_clocked(tournament, batch.clocked)

    store.add_games(batch.rows, then=then)


def _play_all(specs: Iterable[GameSpec], store: Store, executor: Any, progress: Progress,
              summary: RunSummary, mark: Watermark, count: int | None = None) -> None:
    for batch in executor.run(specs, count):
        mark.land(batch.rows)
        _store(store, summary.tournament, batch, mark.save)
        summary.played += len(batch.rows)
        for row in batch.rows:
            for warning in summary.watch.add(row):
                log.warning(warning)
                progress.say(warning)
        progress.step(len(batch.rows))


def _run_round_robin(cfg: TournamentConfig, store: Store, executor: Any, stored: dict[str, str],
                     summary: RunSummary, show: bool, stream: TextIO, mark: Watermark) -> None:
    plans = [round_robin_rounds(cfg, vi) for vi in range(len(cfg.variants))]

    def every() -> Iterator[GameSpec]:
        """The schedule in order (round, variant, table, deal, rotation), made as the executor asks
        for games: the first games start at once, and a big schedule is never held in memory whole."""
        for r in range(1, max(map(len, plans), default=0) + 1):
            for vi, rounds in enumerate(plans):
                if r <= len(rounds):
                    yield from round_games(cfg, vi, r, rounds[r - 1])

    if stored:  # a resume: the schedule must seat the stored games as they are before anything is written
        for _ in mark.check(every(), stored):
            pass
    for vi, rounds in enumerate(plans):
        for r, rnd in enumerate(rounds, start=1):
            if rnd.byes:
                store.add_byes(cfg.name, cfg.variants[vi].label, r, rnd.byes)
    summary.total = planned_games(cfg)
    store.set_planned(cfg.name, summary.total)

    summary.skipped = len(stored)
    progress = Progress(cfg.name, summary.total, len(stored), show, stream)
    _play_all(mark.schedule(every(), stored), store, executor, progress, summary, mark,
              count=summary.total - len(stored))
    progress.finish()


def _run_swiss(cfg: TournamentConfig, store: Store, executor: Any, stored: dict[str, str],
               summary: RunSummary, show: bool, stream: TextIO, mark: Watermark) -> None:
    assert cfg.rounds is not None
    histories = [History() for _ in cfg.variants]
    progress: Progress | None = None
    for r in range(1, cfg.rounds + 1):
        rounds: list[tuple[int, Round, list[GameSpec]]] = []
        for vi, vc in enumerate(cfg.variants):
            rnd = swiss_round(cfg, vi, r, histories[vi])
            games = list(mark.check(round_games(cfg, vi, r, rnd), stored))  # before its sit-outs are stored
            if rnd.byes:
                store.add_byes(cfg.name, vc.label, r, rnd.byes)
            rounds.append((vi, rnd, games))
        specs = sorted((s for _, _, ss in rounds for s in ss), key=lambda g: g.order)
        if progress is None:
            summary.total = planned_games(cfg)
            store.set_planned(cfg.name, summary.total)
            progress = Progress(cfg.name, summary.total, 0, show, stream)
        todo = [s for s in specs if s.id not in stored]
        summary.skipped += len(specs) - len(todo)
        progress.done += len(specs) - len(todo)
        log.info("round %d: %d games (%d stored)", r, len(specs), len(specs) - len(todo))
        _play_all(mark.schedule(specs, stored), store, executor, progress, summary, mark, count=len(todo))
        for vi, rnd, games in rounds:
            results = {g.id: g.result for g in store.games(cfg.name, variant=cfg.variants[vi].label, round_no=r)}
            fold_round(cfg, vi, histories[vi], rnd, [(s, results[s.id]) for s in games])
    if progress is not None:
        progress.finish()


def _run_matches(cfg: TournamentConfig, store: Store, executor: Any, stored: dict[str, str],
                 summary: RunSummary, show: bool, stream: TextIO, mark: Watermark) -> None:
    """A match or gauntlet: blocks in schedule order until every pairing is decided (SPRT) or has
    played ``deals`` blocks of each variant; the decision only ever counts complete blocks in schedule
    order (``leagues.tournament.matches``)."""
    monitor = monitor_of_store(cfg, store.games(cfg.name))
    summary.total = planned_games(cfg)
    store.set_planned(cfg.name, summary.total)
    summary.skipped = len(stored)
    progress = Progress(cfg.name, summary.total, len(stored), show, stream)
    if not monitor.all_decided:
        for batch in executor.run(monitor.todo(stored)):
            mark.land(batch.rows)  # folded by ``settle``: a match's schedule is not known ahead
            _store(store, cfg.name, batch)
            summary.played += len(batch.rows)
            for row in batch.rows:
                monitor.add(row[0], GameResult.from_json(json.loads(row[ROW_RESULT])), json.loads(row[8]))
                for warning in summary.watch.add(row):
                    log.warning(warning)
                    progress.say(warning)
            progress.step(len(batch.rows))
            monitor.advance()
            if monitor.all_decided:
                log.info("every pairing decided: the games still being played are not counted")
                executor.terminate()
                break
    progress.finish()
    # the games that were being played when their pairing decided, stored past its last counted block:
    # how many depends on the workers and their batches (one or two locally, dozens on a cluster), so
    # they are not kept, and the store and its tables are the same with any workers
    dropped = sum(store.drop_games_past(cfg.name, st.pairing.index, len(cfg.variants), st.decided_at)
                  for st in monitor.states if st.decided_at is not None)
    if dropped:
        log.info("%d games played past their pairing's decision not kept", dropped)
        mark.stale = True
        summary.played = max(0, summary.played - dropped)  # "N games played" counts what is kept, as the store
    for line in summary_lines(cfg, monitor):
        log.info(line)


def fold_round(cfg: TournamentConfig, vi: int, h: History, rnd: Round,
               games: Sequence[tuple[GameSpec, GameResult]]) -> None:
    """Add one finished round to a variant's pairing history: a table's score is the mean of its games'
    shares; a unit that played no card in the round scores ``NO_GAME_SCORE``."""
    vc = cfg.variants[vi]
    per_table: dict[int, dict[str, list[float]]] = {}
    for spec, result in sorted(games, key=lambda g: g[0].order):
        table = per_table.setdefault(spec.table, {})
        for u, s in unit_scores(result, spec, vc).items():
            table.setdefault(u, []).append(s)
        if not cfg.duplicate and len(spec.units) == 2:
            first = spec.seats[side_seats(vc)[0][0]]
            second = spec.units[1] if first == spec.units[0] else spec.units[0]
            h.seat_balance[first] += 1
            h.seat_balance[second] -= 1
        elif not cfg.duplicate:  # three units or more: the deals each dealt, so the fewest deals next
            h.seat_balance[spec.seats[spec.dealer]] += 1
    for t in rnd.tables:
        h.meet(t)
    for index, units in enumerate(rnd.tables):
        table = per_table.get(index, {})
        for u in sorted(units):
            shares = table.get(u)  # none: the unit dealt and sat out every game of its table
            h.scores[u] = h.scores.get(u, 0.0) + (sum(shares) / len(shares) if shares else NO_GAME_SCORE)
    for b in rnd.byes:
        h.byes[b] += 1
        h.scores[b] = h.scores.get(b, 0.0) + NO_GAME_SCORE

