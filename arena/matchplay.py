"""A match of deals, as every source text plays it: the dealer rotates, and the match ends by its rule.

S0 plays "a un determinado número de juegos" (first to a number of won deals), S3 the same for pairs
("el primer equipo que gana un número específico de rondas (por ejemplo 3)"), S2 keeps a running total
in subastado, S4 plays cabrón and cabrero to the six letters of C-A-B-R-O-N. A ``MatchRule`` names one:

- ``first_to:K``: the first side to win K deals wins. A deal is won by every side that ranks first in it
  (a Tute and a made contract are won deals like any other; a redeal, where every side ranks first, is
  won by none).
- ``points:T``: running totals per side (the deal's ``score`` in subastado, else its points); the match
  ends after the deal in which a side reaches T, the highest total first.
- ``letters:L`` (cabrón, cabrero): each lost deal is a letter; the match ends when a seat has L (six
  spell C-A-B-R-O-N), and seats rank by their letters, fewest first.
- ``deals:N``: exactly N deals, ranked by deals won.

Every match also stops after ``max_deals`` deals (then it ranks by the same measure), so that no match
can run forever. Deal ``i`` is dealt by seat ``(first_dealer + i) mod players`` from the deck of
``derive_seed("match", seed, i)`` (the seed alone: the seat rotations of a duplicate match play the same
decks): a match is a pure function of its arguments, like a game.
``MatchScore`` is the running count alone, for a caller that plays the deals itself (``tute play``,
the tournament runner) or re-verifies a stored match.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from .match import Player, derive_seed, play_game, shuffled_deck
from .record import GameRecord, ReplayError, replay, result_disagreement
from .result import GameResult, competition_ranks
from .variants import Variant

WORD = "CABRON"
MATCH_KINDS = ("first_to", "points", "letters", "deals")
#: the format of a stored match (``MatchRecord.to_json``): the deals' records inside, in order
MATCH_FORMAT = "tute-arena-match/1"


class MatchError(ValueError):
    """A match rule that does not exist or does not fit the variant; the message names it."""


@dataclass(frozen=True)
class MatchRule:
    kind: str
    target: int
    #: a cap on the deals of one match, whatever its rule (a long run of shared deals, a bot that never
    #: loses a letter): reached, the match is decided by its measure as it stands
    max_deals: int = 200

    def __post_init__(self) -> None:
        if self.kind not in MATCH_KINDS:
            raise MatchError(f"{self.kind!r} is not a match rule (one of {', '.join(MATCH_KINDS)})")
        if not 1 <= self.target <= 100_000:
            raise MatchError(f"the target of {self.kind} must be from 1 to 100000, not {self.target}")
        if not 1 <= self.max_deals <= 10_000:
            raise MatchError(f"max_deals must be from 1 to 10000, not {self.max_deals}")

    @classmethod
    def parse(cls, text: str, max_deals: int = 200) -> "MatchRule":
        """``first_to:3``, ``points:300``, ``letters`` (six) or ``letters:6``, ``deals:10``."""
        kind, sep, raw = str(text).strip().partition(":")
        if not sep:
            if kind == "letters":
                return cls("letters", len(WORD), max_deals)
            raise MatchError(f"{text!r} needs a target, e.g. first_to:3, points:300, deals:10, letters")
        try:
            target = int(raw)
        except ValueError:
            raise MatchError(f"{text!r}: the target must be a whole number") from None
        return cls(kind, target, max_deals)

    @classmethod
    def default(cls, v: Variant) -> "MatchRule":
        """The sources' match for ``v``: the letters of C-A-B-R-O-N where deals have losers, else the
        first to three won deals (S3's example)."""
        return cls("letters", len(WORD)) if v.scoring == "losers" else cls("first_to", 3)

    def check(self, v: Variant) -> None:
        """Refuse a rule that means nothing for ``v``."""
        if self.kind == "letters" and v.scoring != "losers":
            raise MatchError(f"letters count lost deals; {v.name} has winners (use first_to, points or "
                             "deals)")
        if self.kind in ("first_to", "points") and v.scoring == "losers":
            raise MatchError(f"{self.kind} counts won deals or points; {v.name}'s deals have losers "
                             "(use letters or deals)")

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.target}"


class MatchScore:
    """The running count of a match: deals won and totals per side, letters per seat."""

    def __init__(self, rule: MatchRule, v: Variant) -> None:
        self.rule = rule
        self.teams = v.teams
        self.losers_scoring = v.scoring == "losers"
        self.deals = 0
        self.wins = [0] * len(self.teams)
        self.totals = [0] * len(self.teams)
        self.letters = [0] * v.players
        #: per seat, the deals it played (not those it dealt and sat out: cabrero with 5 or 6)
        self.played = [0] * v.players

    def add(self, r: GameResult) -> None:
        """Count one deal (a forfeit is a lost deal like any other)."""
        self.deals += 1
        for s in range(len(self.played)):
            self.played[s] += s != r.sit_out
        firsts = [t for t, team in enumerate(self.teams) if r.ranks[team[0]] == 0]
        if len(firsts) < len(self.teams):
            for t in firsts:
                self.wins[t] += 1
        for t, team in enumerate(self.teams):
            self.totals[t] += r.score[team[0]] if r.score is not None else sum(r.points[s] for s in team)
        for s in r.losers or ():
            self.letters[s] += 1

    @property
    def reached(self) -> bool:
        """The rule's end is reached (the cap aside)."""
        kind, target = self.rule.kind, self.rule.target
        if kind == "deals":
            return self.deals >= target
        if kind == "first_to":
            return max(self.wins) >= target
        if kind == "points":
            return max(self.totals) >= target
        return max(self.letters) >= target

    @property
    def over(self) -> bool:
        return self.reached or self.deals >= self.rule.max_deals

    def ranks(self) -> list[int]:
        """Per seat, 0 best, by what decides the match (``decided_by``); equal measures share a place."""
        measure, keys = decided_by(self.summary())
        if measure == "letters":
            return competition_ranks([-x for x in keys])
        side = competition_ranks(list(keys))
        out = [0] * len(self.letters)
        for t, team in enumerate(self.teams):
            for s in team:
                out[s] = side[t]
        return out

    def word(self, seat: int) -> str:
        return word(self.letters[seat])

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule.text, "deals": self.deals, "ended": "rule" if self.reached
                               else "max_deals", "wins": list(self.wins), "totals": list(self.totals)}
        if self.losers_scoring:
            out["letters"] = list(self.letters)
        return out

    def result(self, points: Sequence[int]) -> GameResult:
        """The match as one result (what a tournament stores and rates): per seat its points over the
        deals and its place in the match; ``match`` holds the count. A seat that played none of its deals
        (a match of one deal, which its dealer sat out) sat the match out: nothing counts it for that seat."""
        idle = [s for s, n in enumerate(self.played) if n == 0]
        return GameResult(points=tuple(points), ranks=tuple(self.ranks()), reason="match", match=self.summary(),
                          sit_out=idle[0] if len(idle) == 1 else None)


def decided_by(summary: dict[str, Any]) -> tuple[str, list[int]]:
    """What ranks a match, from its count (``MatchScore.summary``, a stored result's ``match``):
    ``letters`` lost per seat (fewest first) where deals have losers, else per side its ``points`` in a
    points match, or its deals won (``wins``)."""
    if summary.get("letters") is not None:
        return "letters", list(summary["letters"])
    if str(summary.get("rule", "")).startswith("points:"):
        return "points", list(summary.get("totals", ()))
    return "wins", list(summary.get("wins", ()))


class Letters:
    """The letters of C-A-B-R-O-N alone, counted across deals (``tute play`` without a match rule);
    ``limit`` losses (six) put a seat out."""

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
        return word(self.losses[seat])

    def reset(self) -> None:
        self.losses = [0] * len(self.losses)


def word(letters: int) -> str:
    """The letters a seat has so far: ``CAB`` after three losses (``+`` for each beyond six)."""
    return WORD[:letters] if letters <= len(WORD) else WORD + "+" * (letters - len(WORD))


@dataclass
class MatchRecord:
    """A match as stored: its id, rule, seed, first dealer, seats, the deals' records in order, and the
    result. ``to_json`` is the ``tute-arena-match/1`` format (docs/records.md)."""
    id: str
    variant: str
    options: dict[str, Any]
    rule: MatchRule
    seed: int | None
    first_dealer: int
    seats: list[str]
    deals: list[GameRecord]
    result: GameResult
    format: str = MATCH_FORMAT
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "id": self.id, "variant": self.variant, "options": self.options,
                "match": {"rule": self.rule.kind, "target": self.rule.target, "max_deals": self.rule.max_deals},
                "seed": self.seed, "first_dealer": self.first_dealer, "seats": list(self.seats),
                "deals": [d.to_json() for d in self.deals], "result": self.result.to_json(), **self.extra}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "MatchRecord":
        known = {"format", "id", "variant", "options", "match", "seed", "first_dealer", "seats", "deals", "result"}
        m = data["match"]
        return cls(id=data["id"], variant=data["variant"], options=dict(data["options"]),
                   rule=MatchRule(m["rule"], m["target"], m.get("max_deals", 200)), seed=data.get("seed"),
                   first_dealer=data["first_dealer"], seats=list(data["seats"]),
                   deals=[GameRecord.from_json(d) for d in data["deals"]],
                   result=GameResult.from_json(data["result"]), format=data.get("format", MATCH_FORMAT),
                   extra={k: v for k, v in data.items() if k not in known})

    def rules(self) -> Variant:
        return Variant.from_options(self.variant, self.options)


def is_match_json(data: Any) -> bool:
    """A stored line or row is a match (not a single deal's record)."""
    return isinstance(data, dict) and data.get("format") == MATCH_FORMAT


def verify_match(m: MatchRecord, written: dict[str, Any] | None = None) -> None:
    """Replay every deal through the referee and recount the match; raises ReplayError naming the deal
    (or the field of the result) that does not hold. ``written``: the result as the record writes it,
    judged field by field with its JSON types (``result_disagreement``: ``false`` is no rank 0), where
    the parsed result would read ``false`` as 0."""
    v = m.rules()
    m.rule.check(v)
    score = MatchScore(m.rule, v)
    points = [0] * v.players
    # deal K of a match is its id with /dK; a match imported under a new id before its deals were renamed
    # with it (a file of matches whose ids name no tournament) keeps its deals' first prefix: one for all
    prefix = m.deals[0].id.rpartition("/d")[0] if m.deals and m.deals[0].id.endswith("/d0") else m.id
    for i, d in enumerate(m.deals):
        if score.over:
            raise ReplayError(f"deal {i}: the match was over after deal {i - 1}")
        if d.id != f"{prefix}/d{i}":  # a deal of the match calling itself another game
            raise ReplayError(f"deal {i}: its id is {d.id!r}, not the match's deal {prefix}/d{i}")
        if d.dealer != (m.first_dealer + i) % v.players:
            raise ReplayError(f"deal {i}: dealt by seat {d.dealer}, the rotation says {(m.first_dealer + i) % v.players}")
        try:
            st = replay(d)
        except ReplayError as exc:
            raise ReplayError(f"deal {i}: {exc}", exc.index) from None
        r = st.result_ if st.result_ is not None else d.result
        score.add(r)
        for s in range(v.players):
            points[s] += r.points[s]
    if not score.over:
        raise ReplayError(f"the match is not over after its {score.deals} deals ({m.rule.text})")
    said = score.result(points)
    recorded = written if written is not None else m.result.to_json()
    if said.sit_out is not None and "sit_out" not in recorded:  # written before a match said who sat it out
        said = replace(said, sit_out=None)
    why = result_disagreement(recorded, said.to_json())
    if why is not None:
        raise ReplayError(f"the match result does not match its deals: {why}")


def play_match(variant: Variant, players: Sequence[Player], *, seed: int = 0, rule: MatchRule | None = None,
               first_dealer: int = 0, names: Sequence[str] | None = None, match_id: str = "match",
               max_deals: int | None = None) -> MatchRecord:
    """Play deals with the dealer rotating from ``first_dealer`` until ``rule`` (the variant's default
    match when None) ends the match. A redeal (subastado, all passed) counts as a deal: the next dealer
    deals."""
    if rule is None:
        rule = MatchRule.default(variant)
    if max_deals is not None:
        rule = MatchRule(rule.kind, rule.target, max_deals)
    rule.check(variant)
    n = variant.players
    score = MatchScore(rule, variant)
    points = [0] * n
    records: list[GameRecord] = []
    while not score.over:
        i = score.deals
        deal_seed = derive_seed("match", seed, i)  # not the id: duplicate matches share their decks
        rec = play_game(variant, shuffled_deck(variant, deal_seed), (first_dealer + i) % n, players,
                        game_id=f"{match_id}/d{i}", seed=deal_seed, names=names)
        records.append(rec)
        score.add(rec.result)
        for s in range(n):
            points[s] += rec.result.points[s]
    return MatchRecord(id=match_id, variant=variant.name, options=variant.options(), rule=rule, seed=seed,
                       first_dealer=first_dealer, seats=list(names) if names else [f"seat{s}" for s in range(n)],
                       deals=records, result=score.result(points))
