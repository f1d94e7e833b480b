"""A match of deals: the dealer rotates, and in the variants with losers each loss is a letter of C-A-B-R-O-N.

``play_match`` plays deals until a seat completes the word (six losses: out of the match, the match is
over) or ``max_deals`` is reached; the deck of deal ``i`` comes from ``derive_seed(seed, i)``, so a match
is a pure function of its arguments like a game. ``Letters`` is the counter alone, for a caller (the CLI,
a league) that plays the deals itself. Variants without losers play exactly ``max_deals`` deals and sum
the result's ``score`` (subastado) or ``points`` per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .match import Player, derive_seed, play_game, shuffled_deck
from .record import GameRecord
from .result import GameResult
from .variants import Variant

WORD = "CABRON"


class Letters:
    """Letters of C-A-B-R-O-N per seat; ``limit`` losses (six) put a seat out."""

    def __init__(self, seats: int, limit: int = len(WORD)) -> None:
        self.limit = limit
        self.losses = [0] * seats

    def add(self, result: GameResult) -> list[int]:
        """Count the losers of one deal (a forfeit is a loss); return the seats now out."""
        for s in result.losers or ():
            self.losses[s] += 1
        return self.out()

    def out(self) -> list[int]:
        return [s for s, n in enumerate(self.losses) if n >= self.limit]

    def word(self, seat: int) -> str:
        """The letters a seat has so far: ``CAB`` after three losses."""
        n = self.losses[seat]
        return WORD[:n] if n <= len(WORD) else WORD + "+" * (n - len(WORD))

    def reset(self) -> None:
        self.losses = [0] * len(self.losses)


@dataclass
class MatchResult:
    records: list[GameRecord]
    #: losses per seat (letters, in the variants with losers)
    losses: list[int]
    #: the seats that completed C-A-B-R-O-N (several if they did on the same deal); empty otherwise
    out: list[int]
    #: per seat: the sum of the deals' ``score`` (subastado) or ``points``
    totals: list[int] = field(default_factory=list)

    def letters(self, seat: int) -> str:
        t = Letters(len(self.losses))
        t.losses = list(self.losses)
        return t.word(seat)


def play_match(variant: Variant, players: Sequence[Player], *, seed: int = 0, max_deals: int = 200,
               first_dealer: int = 0, names: Sequence[str] | None = None, match_id: str = "match") -> MatchResult:
    """Play deals with the dealer rotating from ``first_dealer`` until a seat is out (six letters) or
    ``max_deals`` deals are played. A redeal (subastado, all passed) counts as a deal: the next dealer
    deals."""
    n = variant.players
    letters = Letters(n)
    totals = [0] * n
    records: list[GameRecord] = []
    out: list[int] = []
    for i in range(max_deals):
        deal_seed = derive_seed(match_id, seed, i)
        rec = play_game(variant, shuffled_deck(variant, deal_seed), (first_dealer + i) % n, players,
                        game_id=f"{match_id}/{seed}/d{i}", seed=deal_seed, names=names)
        records.append(rec)
        r = rec.result
        for s, x in enumerate(r.score if r.score is not None else r.points):
            totals[s] += x
        if variant.scoring == "losers":
            out = letters.add(r)
            if out:
                break
    return MatchResult(records, list(letters.losses), out, totals)
