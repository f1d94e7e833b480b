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

import multiprocessing
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from arena import GameRecord, Variant, derive_seed, play_game, shuffled_deck
from arena.hosting import make_player
from arena.match import Player
from arena.matchplay import Letters, MatchRecord, MatchRule, play_match
from arena.result import LOSS, SAT_OUT, SHARED, WIN, GameResult, outcome


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
            else:
                assert kind == SAT_OUT
                st.sat_out += 1
            st.points += r.points[s]

    def _details(self, record: GameRecord) -> None:
        r = record.result
        self.deals += 1
        self.decisions += len(record.actions)
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
            for spec, params in zip(self.specs, self.params):
                p = make_player(spec, params or None, isolation=self.isolation, time_limit_ms=self.time_limit_ms)
                out.append(p)
                start = getattr(p, "start", None)
                if start is not None:
                    start()
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
_JOB: dict[str, Any] = {}


def _init(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], seed: int,
          rule: MatchRule | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _JOB.update(variant=variant, name=name, players=lineup.players(), names=list(names), seed=seed, rule=rule)


def _play(g: int) -> GameRecord | MatchRecord:
    j = _JOB
    if j["rule"] is None:
        return deal_record(j["variant"], j["name"], j["players"], j["names"], j["seed"], g)
    return match_record(j["variant"], j["name"], j["players"], j["names"], j["seed"], g, j["rule"])


def _results(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], count: int, seed: int,
             rule: MatchRule | None, workers: int) -> Iterator[GameRecord | MatchRecord]:
    """Every deal's (or match's) record, in order, from this process or from ``workers`` processes."""
    if workers <= 1:
        players = lineup.players()
        try:
            for g in range(count):
                yield (deal_record(variant, name, players, names, seed, g) if rule is None
                       else match_record(variant, name, players, names, seed, g, rule))
        finally:
            close_all(players)
        return
    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(workers, initializer=_init, initargs=(variant, name, lineup, names, seed, rule))
    done = False
    try:
        yield from pool.imap(_play, range(count), chunksize=max(1, min(64, count // (workers * 8) or 1)))
        done = True
    finally:
        if done:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def play_run(variant: Variant, name: str, lineup: Lineup, names: Sequence[str], count: int, seed: int, *,
             rule: MatchRule | None = None, workers: int = 1,
             on_record: Callable[[GameRecord], None] | None = None,
             on_progress: Callable[[int], None] | None = None) -> PlayTally:
    """Play ``count`` deals (or matches under ``rule``) and tally them; ``on_record`` sees every deal's
    record in order. Ctrl-C stops the run: the tally then holds the games finished, ``interrupted`` set."""
    n = variant.players
    tally = PlayTally([SeatTally() for _ in range(n)])
    if variant.scoring == "losers" and rule is None:
        tally.letters = Letters(n)
        tally.words = [0] * n
    started = time.perf_counter()
    try:
        for i, result in enumerate(_results(variant, name, lineup, names, count, seed, rule, workers), 1):
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
