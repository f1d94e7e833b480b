"""``tute play``: a quick run of deals between named bots, tallied per seat (no store, no ratings).

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
from arena.matchplay import Letters
from arena.result import LOSS, SHARED, WIN, outcome


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

    def add(self, record: GameRecord, teams: Sequence[Sequence[int]]) -> None:
        r = record.result
        self.deals += 1
        self.decisions += len(record.actions)
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
            if r.tute and r.tute["seat"] == s:
                st.tutes += 1
            if r.forfeit and r.forfeit.seat == s:
                st.forfeits += 1
        if self.letters is not None:
            out_now = self.letters.add(r)
            for s in out_now:  # a seat completed C-A-B-R-O-N: that match is over, the next one starts
                self.words[s] += 1
            if out_now:
                self.letters.reset()


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
