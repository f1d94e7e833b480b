"""``tute play``: a quick run of deals (or matches) between named bots, tallied per side (no store, no
ratings).

The CLI only prints what this returns. The tally counts by ``arena.result.outcome`` (the same win /
shared / loss as the leaderboard and the compliance run), the forfeits by reason with the first detail,
and, where the variant has losers, the letters of C-A-B-R-O-N (``arena.matchplay.Letters``).

Deal ``g`` (or match ``g``) is a pure function of the variant, the seed and ``g``, so several worker
processes play the same records as one: each worker builds its own players, the deals are handed out
in order and their records come back in order.
"""

from __future__ import annotations

import inspect
import multiprocessing
import signal
import time
from collections import Counter, deque
from multiprocessing.connection import Connection
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator, Sequence

from arena import BotFailure, GameRecord, Variant, derive_seed, play_game, shuffled_deck
from arena.hosting import clock_stops, make_player
from arena.hosting.forking import forking
from arena.hosting.subprocess import die_with_parent
from arena.match import Player, interrupts_are_bots
from arena.matchplay import Letters, MatchRecord, MatchRule, play_match
from arena.result import LOSS, SAT_OUT, SHARED, THROWN_IN, WIN, GameResult, outcome, thrown_in

from leagues.tournament.pipes import WorkerGone, answers


@dataclass
class SeatTally:
    """One seat's deals (or matches) by outcome, its points, Tutes and forfeits by reason."""
    wins: int = 0
    shared: int = 0
    losses: int = 0
    points: int = 0
    tutes: int = 0
    forfeits: int = 0
    #: forfeits by reason, and the first detail of each reason with its game id
    reasons: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: deals this seat lost (the variants with losers)
    lost_deals: int = 0
    #: deals this seat dealt and sat out (cabrero with 5 or 6): no outcome, no points to average
    sat_out: int = 0
    #: deals everyone passed in the auction (subastado): no outcome, no points to average
    thrown_in: int = 0
    #: deals this seat played, counted deal by deal (a match's too): what its points are averaged over
    played: int = 0


@dataclass
class PlayTally:
    seats: list[SeatTally]
    deals: int = 0
    decisions: int = 0
    seconds: float = 0.0
    #: the variants with losers: the letters so far per seat, and the matches each seat lost (C-A-B-R-O-N)
    letters: Letters | None = None
    words: list[int] = field(default_factory=list)
    #: matches played (``play_matches``); the seats' wins, draws and losses then count matches
    matches: int = 0
    #: Ctrl-C ended the run early: the tally holds the games finished before it
    interrupted: bool = False
    #: a worker process died (``WorkerDied``): the run stopped there, the tally holds the games before it
    failure: str | None = None
    #: the deals (or matches) in which a bot's clock, not its counted work, ended a decision (they may
    #: play otherwise with other workers), and the first of them
    clocked: int = 0
    first_clocked: str = ""

    def add(self, record: GameRecord, teams: Sequence[Sequence[int]]) -> None:
        """Count one deal: its outcome per seat, and its letters where deals have losers."""
        r = record.result
        self._count(r, teams)
        self._details(record)
        if self.letters is not None:
            out_now = self.letters.add(r)
            for s in out_now:  # a seat completed C-A-B-R-O-N: that match is over, the next one starts
                self.words[s] += 1
            if out_now:
                self.letters.reset()

    def add_match(self, match: MatchRecord, teams: Sequence[Sequence[int]]) -> None:
        """Count one match: its outcome per seat, and the Tutes, forfeits and decisions of its deals."""
        self._count(match.result, teams)
        self.matches += 1
        for record in match.deals:
            self._details(record)

    def _count(self, r: GameResult, teams: Sequence[Sequence[int]]) -> None:
        for s, st in enumerate(self.seats):
            kind = outcome(r, s, teams)
            if kind == WIN:
                st.wins += 1
            elif kind == SHARED:
                st.shared += 1
            elif kind == LOSS:
                st.losses += 1
            elif kind == THROWN_IN:
                st.thrown_in += 1
            else:
                assert kind == SAT_OUT
                st.sat_out += 1
            st.points += r.points[s]

    def _details(self, record: GameRecord) -> None:
        r = record.result
        self.deals += 1
        self.decisions += len(record.actions)
        if not thrown_in(r):
            for s, st in enumerate(self.seats):
                st.played += s != r.sit_out
        if r.tute:
            self.seats[r.tute["seat"]].tutes += 1
        for s in r.losers or ():
            self.seats[s].lost_deals += 1
        if r.forfeit:
            st = self.seats[r.forfeit.seat]
            st.forfeits += 1
            st.reasons[r.forfeit.reason] += 1
            st.first.setdefault(r.forfeit.reason, (record.id, r.forfeit.detail))


@dataclass(frozen=True)
class Lineup:
    """Who plays: one bot spec per seat with its parameters, and how to host them. A worker process
    builds its own players from it."""
    specs: tuple[str, ...]
    params: tuple[dict[str, Any], ...]
    isolation: str
    time_limit_ms: int

    def players(self) -> list[Player]:
        """Players started and ready (a bot that cannot start raises here, before any deal)."""
        out: list[Player] = []
        try:
            for seat, (spec, params) in enumerate(zip(self.specs, self.params)):
                p = make_player(spec, params or None, isolation=self.isolation, time_limit_ms=self.time_limit_ms)
                out.append(p)
                start = getattr(p, "start", None)
                if start is not None:
                    try:
                        start()
                    except BotFailure as f:  # which of the bots: the user gave several
                        raise BotFailure(f.reason, f"{spec} (seat {seat}): {f.detail}") from None
        except BaseException:
            close_all(out)
            raise
        return out


def close_all(players: Sequence[Player]) -> None:
    for p in players:
        close = getattr(p, "close", None)
        if close is not None:
            close()


# ----------------------------------------------------------------------------------- one deal, one match
def deal_record(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], seed: int,
                g: int) -> GameRecord:
    """Deal ``g`` of a run: deck from ``derive_seed("play", name, seed, g)``, dealer ``g mod players``."""
    game_seed = derive_seed("play", name, seed, g)
    return play_game(variant, shuffled_deck(variant, game_seed), g % variant.players, players,
                     game_id=f"play/{seed}/{g}", seed=game_seed, names=names)


def match_record(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], seed: int,
                 g: int, rule: MatchRule) -> MatchRecord:
    """Match ``g`` of a run: seeded from ``("play", name, seed, g)``, first dealer ``g mod players``."""
    return play_match(variant, players, seed=derive_seed("play", name, seed, g), rule=rule,
                      first_dealer=g % variant.players, names=names, match_id=f"play/{seed}/m{g}")


# ----------------------------------------------------------------------------------- workers
class WorkerDied(RuntimeError):
    """A worker process ended without its answer (a bot playing in-process ended it with ``os._exit``,
    or killed it) or failed outside any game: one line for the user. A stdlib pool would wait for the
    lost answer forever."""


_JOB: dict[str, Any] = {}


def _init(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], seed: int,
          rule: MatchRule | None) -> None:
    _JOB.update(variant=variant, name=name, players=lineup.players(), names=list(names), seed=seed, rule=rule)


def _one(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], seed: int, g: int,
         rule: MatchRule | None) -> tuple[GameRecord | MatchRecord, int]:
    """Deal (or match) ``g``, and how many of its decisions the bots' clocks ended (``clock_stops``)."""
    before = clock_stops(players)
    record = (deal_record(variant, name, players, names, seed, g) if rule is None
              else match_record(variant, name, players, names, seed, g, rule))
    return record, max(0, clock_stops(players) - before)  # only growth counts


def _play(g: int) -> tuple[GameRecord | MatchRecord, int]:
    j = _JOB
    return _one(j["variant"], j["name"], j["players"], j["names"], j["seed"], g, j["rule"])


def _worker_main(conn: Connection, *init: Any) -> None:
    """A worker process: ranges of deal numbers in, their records out, until ``None`` or the parent is
    gone. Ctrl-C and SIGTERM are the parent's to handle: it kills the workers it no longer needs."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # forked: the parent's handler (which raises) is not ours
    interrupts_are_bots()
    try:
        try:
            _init(*init)
        except BaseException as exc:  # noqa: BLE001 - told to the parent, which stops the run
            conn.send(("error", f"its bots did not start: {exc!r}"))
            return
        while True:
            job = conn.recv()
            if job is None:
                break
            try:
                answer: tuple[str, Any] = ("ok", [_play(g) for g in range(*job)])
            except BaseException as exc:  # noqa: BLE001 - told to the parent, which stops the run
                answer = ("error", f"{exc!r}")
            conn.send(answer)
            if answer[0] == "error":
                return
        close_all(_JOB["players"])
    except (EOFError, OSError):  # the parent is gone (or stopped listening): nobody to answer
        pass


def _death(proc: Any) -> str:
    """How a worker process ended, in words."""
    proc.join(1)
    code = proc.exitcode
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _pooled(init: tuple[Any, ...], count: int, workers: int) -> Iterator[tuple[GameRecord | MatchRecord, int]]:
    """Every deal's (or match's) record, in order, from ``workers`` processes, each sent ranges of deal
    numbers (two queued per worker) on its own pipe. The parent waits on the pipes and on the processes
    themselves, so a worker that dies is a ``WorkerDied`` naming it, never a wait without end."""
    chunk = max(1, min(64, count // (workers * 8) or 1))
    ranges = [(a, min(a + chunk, count)) for a in range(0, count, chunk)]
    ctx = multiprocessing.get_context("fork")
    procs: list[Any] = []
    conns: list[Connection] = []
    pending: list[deque[int]] = [deque() for _ in range(workers)]
    finished: dict[int, list[tuple[GameRecord | MatchRecord, int]]] = {}
    sent = given = 0
    done = False

    def died(w: int) -> WorkerDied:
        """Worker ``w`` gone, found by reading its answer or by sending it a range."""
        a, b = ranges[pending[w][0]] if pending[w] else (0, 0)
        what = f" while playing deal {a + 1}" if b == a + 1 else f" while playing deals {a + 1}-{b}" if b else ""
        return WorkerDied(f"worker process {w + 1} {_death(procs[w])}{what} (a bot may have ended it: os._exit "
                          "in an in-process bot, or a signal)")

    def feed(w: int) -> None:
        nonlocal sent
        # at most a few ranges ahead of the first one not given yet: a slow range holds little in memory
        while len(pending[w]) < 2 and sent < len(ranges) and sent - given < 4 * workers:
            try:
                conns[w].send(ranges[sent])
            except OSError:  # its end of the pipe is closed: it died since its last answer
                raise died(w) from None
            pending[w].append(sent)
            sent += 1

    try:
        with forking():  # a Ctrl-C as the workers are forked is acted on once they are
            for i in range(workers):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, args=(theirs, *init), name=f"TutePlay-{i + 1}", daemon=True)
                proc.start()
                theirs.close()
                procs.append(proc)
                conns.append(mine)
        for w in range(workers):
            feed(w)
        while given < len(ranges):
            if given in finished:
                yield from finished.pop(given)
                given += 1
                for w in range(workers):
                    feed(w)
                continue
            try:
                for w, (kind, value) in answers(conns, procs, [w for w in range(workers) if pending[w]]):
                    if kind == "error":
                        a, b = ranges[pending[w][0]]
                        what = f"deal {a + 1}" if b == a + 1 else f"deals {a + 1}-{b}"
                        raise WorkerDied(f"worker process {w + 1} failed while playing {what}: {value}"[:600])
                    finished[pending[w].popleft()] = value
            except WorkerGone as gone:
                raise died(gone.worker) from None
        done = True
    finally:
        for w, conn in enumerate(conns):
            if done:
                try:
                    conn.send(None)  # each worker closes its players on the way out
                except OSError:
                    pass
            elif procs[w].is_alive():
                procs[w].kill()  # interrupted or failed: the answers in flight are nobody's
        for proc in procs:
            proc.join(5)
        for conn in conns:
            conn.close()


def _results(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], count: int, seed: int,
             rule: MatchRule | None, workers: int,
             ready: list[Player] | None = None) -> Generator[tuple[GameRecord | MatchRecord, int], None, None]:
    """Every deal's (or match's) record, in order, from this process (with the ``ready`` players, if
    started already) or from ``workers`` processes, each with its decisions the bots' clocks ended."""
    if workers <= 1:
        players = ready if ready is not None else lineup.players()
        try:
            for g in range(count):
                yield _one(variant, name, players, names, seed, g, rule)
        finally:
            close_all(players)
        return
    yield from _pooled((variant, name, lineup, names, seed, rule), count, workers)


def play_run(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], count: int, seed: int, *,
             rule: MatchRule | None = None, workers: int = 1,
             on_record: Callable[[GameRecord], None] | None = None,
             on_progress: Callable[[int], None] | None = None, ready: list[Player] | None = None) -> PlayTally:
    """Play ``count`` deals (or matches under ``rule``) and tally them; ``on_record`` sees every deal's
    record in order. Ctrl-C stops the run: the tally then holds the games finished, ``interrupted`` set;
    so does a dead worker process, with ``failure`` saying which and how. ``ready``: the lineup's
    players, started by the caller (its start check), for one worker; they are closed at the end."""
    n = variant.players
    tally = PlayTally([SeatTally() for _ in range(n)])
    if variant.scoring == "losers" and rule is None:
        tally.letters = Letters(n)
        tally.words = [0] * n
    started = time.perf_counter()
    results: Generator[tuple[GameRecord | MatchRecord, int], None, None] | None = None
    try:
        if ready is not None and workers > 1:  # each worker process starts its own (a Ctrl-C here: 0 played)
            close_all(ready)
            ready = None
        results = _results(variant, name, lineup, names, count, seed, rule, workers, ready)
        for i, (result, stops) in enumerate(results, 1):
            if stops:
                tally.clocked += 1
                tally.first_clocked = tally.first_clocked or result.id
            if isinstance(result, MatchRecord):
                tally.add_match(result, variant.teams)
                deals = result.deals
            else:
                tally.add(result, variant.teams)
                deals = [result]
            if on_record is not None:
                for record in deals:
                    on_record(record)
            if on_progress is not None:
                on_progress(i)
    except KeyboardInterrupt:
        tally.interrupted = True
    except WorkerDied as exc:
        tally.failure = str(exc)
    finally:
        if results is not None:
            if ready is not None and inspect.getgeneratorstate(results) == inspect.GEN_CREATED:
                close_all(ready)  # stopped before its first deal: the generator that would close them never ran
            results.close()  # now, not when collected: the workers of an interrupted run are stopped at once
    tally.seconds = time.perf_counter() - started
    return tally


def play_deals(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], games: int, seed: int,
               on_record: Callable[[GameRecord], None] | None = None) -> PlayTally:
    """Play ``games`` deals between ready ``players`` in this process and tally them (the library call;
    ``play_run`` is the command's, with workers)."""
    n = variant.players
    tally = PlayTally([SeatTally() for _ in range(n)])
    if variant.scoring == "losers":
        tally.letters = Letters(n)
        tally.words = [0] * n
    started = time.perf_counter()
    for g in range(games):
        rec = deal_record(variant, name, players, names, seed, g)
        tally.add(rec, variant.teams)
        if on_record is not None:
            on_record(rec)
    tally.seconds = time.perf_counter() - started
    return tally
