"""The outcome of one deal, in the shape the game record stores, and what it means for a seat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


#: why a seat forfeits: a forbidden action, no answer in time, a bot gone, an answer that is no action
FORFEIT_REASONS = ("illegal", "timeout", "crash", "protocol")


@dataclass(frozen=True)
class Forfeit:
    """A renuncio: the seat that broke a rule, failed or answered nonsense, and why."""
    seat: int
    reason: str  # one of FORFEIT_REASONS
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True)
class GameResult:
    #: per seat: card points of its tricks, its cantes, and the last-trick bonus if it took the last one
    points: tuple[int, ...]
    #: per seat, 0 best; partners share a rank and so does a shared place (competition ranking: 0 1 1 3)
    ranks: tuple[int, ...]
    #: points | tute | forfeit; subastado: made | failed | redeal; cabrón and cabrero, the rule that named
    #: the losers: middle | no_trick | over_points | capote | capote_after_cante
    reason: str
    tute: dict[str, int] | None = None  # {"seat": s, "face": 12 or 11}
    forfeit: Forfeit | None = None
    #: subastado: per seat, its side's score for the deal (+bid / -bid for the declaring side, the side's
    #: points for a defending side); partners carry the same number, like ``ranks`` (do not sum a side)
    score: tuple[int, ...] | None = None
    #: subastado: {"seat": declarer, "bid": N, "trump": "o", "made": true|false|null}; null on a redeal
    contract: dict[str, Any] | None = None
    #: cabrón and cabrero: the seats that lost the deal (each takes a letter of C-A-B-R-O-N)
    losers: tuple[int, ...] | None = None
    #: cabrero with 5 or 6: the dealer, who sat the deal out (no cards, not a loser)
    sit_out: int | None = None
    #: a match (``arena.matchplay``, reason ``match``): its rule, deals, deals won and totals per side,
    #: letters per seat, and whether it ended by its rule or its cap
    match: dict[str, Any] | None = None

    @property
    def winner(self) -> tuple[int, ...]:
        return tuple(s for s, r in enumerate(self.ranks) if r == 0)

    def to_json(self) -> dict[str, Any]:
        """The record's ``result``. The fields of the later variants appear only when set, so the
        classic variants' records are exactly what they were."""
        out: dict[str, Any] = {
            "points": list(self.points), "ranks": list(self.ranks), "winner": list(self.winner),
            "tute": dict(self.tute) if self.tute else None,
            "forfeit": self.forfeit.to_json() if self.forfeit else None, "reason": self.reason}
        if self.score is not None:
            out["score"] = list(self.score)
        if self.contract is not None:
            out["contract"] = dict(self.contract)
        if self.losers is not None:
            out["losers"] = list(self.losers)
        if self.sit_out is not None:
            out["sit_out"] = self.sit_out
        if self.match is not None:
            out["match"] = dict(self.match)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameResult":
        f = data.get("forfeit")
        score, losers = data.get("score"), data.get("losers")
        return cls(points=tuple(data["points"]), ranks=tuple(data["ranks"]), reason=data["reason"],
                   tute=dict(data["tute"]) if data.get("tute") else None,
                   forfeit=Forfeit(f["seat"], f["reason"], f.get("detail", "")) if f else None,
                   score=tuple(score) if score is not None else None,
                   contract=dict(data["contract"]) if data.get("contract") else None,
                   losers=tuple(losers) if losers is not None else None,
                   sit_out=data.get("sit_out"),
                   match=dict(data["match"]) if data.get("match") else None)


WIN, SHARED, LOSS = "win", "shared", "loss"
#: the dealer who sat the deal out (cabrero with 5 or 6): no outcome, no game to count
SAT_OUT = "sat_out"
#: a deal everyone passed in the auction (``thrown_in``): no outcome for anyone, no game to count
THROWN_IN = "thrown_in"
#: the score a table counts for each kind of outcome (``SAT_OUT`` and ``THROWN_IN`` count nothing)
SCORES = {WIN: 1.0, SHARED: 0.5, LOSS: 0.0}


def outcome(result: GameResult, seat: int, teams: Sequence[Sequence[int]]) -> str:
    """The one definition of who won (``WIN``, ``SHARED`` or ``LOSS``) for ``seat``'s side: a win is a
    best rank the side holds alone among the sides in play (``sides_in_play``), a shared place a best
    rank another side in play holds too, anything else a loss (with three or more sides, second place
    is a loss; a loser-scored deal's non-losers share). The dealer who sat the deal out gets
    ``SAT_OUT``: a table counts no game for it; nor does any seat of a deal thrown in (``THROWN_IN``),
    whose shared rank 0 would read as a draw. ``SCORES[outcome(...)]`` is what a table counts per
    game."""
    if thrown_in(result):
        return THROWN_IN
    if seat == result.sit_out:
        return SAT_OUT
    rank = result.ranks[seat]
    if rank != 0:
        return LOSS
    best_sides = sum(1 for t in sides_in_play(teams, result.sit_out) if result.ranks[t[0]] == 0)
    return WIN if best_sides == 1 else SHARED


def thrown_in(result: GameResult) -> bool:
    """A deal everyone passed in the auction (subastado): thrown in before a card was played, every
    rank 0. It says nothing of the players, so no rating, table row, head to head or match block counts
    it (shared rank 0 would read as a draw)."""
    return result.reason == "redeal"


def sides_in_play(teams: Sequence[Sequence[int]], sit_out: int | None) -> list[Sequence[int]]:
    """The sides that took part in the deal: every side but a dealer who sat it out (cabrero with 5 or
    6). That seat ranks 0 in the record, with the non-losers, yet played no card: a score or a rating
    that counted it would credit it with a deal it never played, and would give every other seat a
    comparison it can lose (0 as a loser) but never win."""
    return [t for t in teams if sit_out is None or sit_out not in t]


def names_in_play(seats: Sequence[str], sit_out: int | None) -> set[str]:
    """The entrants who played the deal, by ``sides_in_play``'s rule: every seat's but a dealer's who
    sat it out (a deal it plays no card of is no deal it played, nor one it could forfeit)."""
    return {n for s, n in enumerate(seats) if s != sit_out}


def versus(mine: int, theirs: int) -> float:
    """One side's score against one other, from their ranks (0 first): 1 above, 0.5 level, 0 below."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def pairwise(side_ranks: Sequence[int], side: int) -> float:
    """``side``'s score against every other side, averaged (``versus``). With two sides it is 1 a win,
    0.5 a shared first place, 0 a loss; over all the sides of a deal the scores sum to half their
    number, so equal players score 0.5 in every variant. What ``search`` maximises, its benchmarks
    report, and a table's head-to-head averages over duplicate blocks."""
    mine = side_ranks[side]
    total = 0.0
    for t, rank in enumerate(side_ranks):
        if t != side:
            total += versus(mine, rank)
    return total / (len(side_ranks) - 1)


def seat_pairwise(result: GameResult, seat: int, teams: Sequence[Sequence[int]]) -> float:
    """``pairwise`` for ``seat``'s side against the other sides in play (``sides_in_play``), from the
    referee's result. ``seat`` must have played."""
    sides = sides_in_play(teams, result.sit_out)
    side = next(i for i, t in enumerate(sides) if seat in t)
    return pairwise([result.ranks[t[0]] for t in sides], side)


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Rank of each key: how many keys are strictly greater (so equal keys share a place)."""
    return [sum(1 for other in keys if other > k) for k in keys]
