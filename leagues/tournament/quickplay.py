"""``tute play``: a quick run of deals (or matches) between named bots, tallied per seat (no store, no
ratings).

The CLI only prints what this returns. The tally counts by ``arena.result.outcome`` (the same win /
shared / loss as the leaderboard and the compliance run) and, where the variant has losers, the letters
of C-A-B-R-O-N (``arena.matchplay.Letters``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from arena import GameRecord, Variant, derive_seed, play_game, shuffled_deck
from arena.match import Player
from arena.matchplay import Letters, MatchRecord, MatchRule, play_match
from arena.result import LOSS, SHARED, WIN, GameResult, outcome


@dataclass
class SeatTally:
    """One seat's deals by outcome, its points, Tutes and forfeits."""
    wins: int = 0
    shared: int = 0
    losses: int = 0
    points: int = 0
    tutes: int = 0
    forfeits: int = 0


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
            else:
                assert kind == LOSS
                st.losses += 1
            st.points += r.points[s]

    def _details(self, record: GameRecord) -> None:
        r = record.result
        self.deals += 1
        self.decisions += len(record.actions)
        if r.tute:
            self.seats[r.tute["seat"]].tutes += 1
        if r.forfeit:
            self.seats[r.forfeit.seat].forfeits += 1


def play_deals(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], games: int, seed: int,
               on_record: Callable[[GameRecord], None] | None = None) -> PlayTally:
    """Play ``games`` deals (deal ``g``: deck from ``derive_seed("play", name, seed, g)``, dealer ``g mod
    players``) and tally them; ``on_record`` sees each record as it is made."""
    n = variant.players
    tally = PlayTally([SeatTally() for _ in range(n)])
    if variant.scoring == "losers":
        tally.letters = Letters(n)
        tally.words = [0] * n
    started = time.perf_counter()
    for g in range(games):
        game_seed = derive_seed("play", name, seed, g)
        rec = play_game(variant, shuffled_deck(variant, game_seed), g % n, players, game_id=f"play/{seed}/{g}",
                        seed=game_seed, names=names)
        tally.add(rec, variant.teams)
        if on_record is not None:
            on_record(rec)
    tally.seconds = time.perf_counter() - started
    return tally


def play_matches(variant: Variant, name: str, players: Sequence[Player], names: Sequence[str], matches: int,
                 seed: int, rule: MatchRule, on_record: Callable[[GameRecord], None] | None = None) -> PlayTally:
    """Play ``matches`` matches under ``rule`` (match ``g``: seeded from ``("play", name, seed, g)``, first
    dealer ``g mod players``) and tally their outcomes; ``on_record`` sees each deal's record."""
    n = variant.players
    tally = PlayTally([SeatTally() for _ in range(n)])
    started = time.perf_counter()
    for g in range(matches):
        m = play_match(variant, players, seed=derive_seed("play", name, seed, g), rule=rule, first_dealer=g % n,
                       names=names, match_id=f"play/{seed}/m{g}")
        tally.add_match(m, variant.teams)
        if on_record is not None:
            for record in m.deals:
                on_record(record)
    tally.seconds = time.perf_counter() - started
    return tally
