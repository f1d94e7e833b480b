"""What one seat may see: its own hand and the public record of the deal, never another hand or the pile.

A view is built for every decision, so it holds only references to immutable values the referee keeps
anyway (ints, tuples, the frozen variant); lists, names and JSON are computed on access. It holds no
reference to the game state: a bot that pokes at its view, or changes it, reaches nothing else.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from .cards import BIT, NAMES, NO_CARD, NO_SUIT, SUITS, cards_list
from .knowledge import Knowledge, sample_world
from .public import FIELDS, JSON_BEFORE_HAND_SIZES, NAMES_OF_FIELDS, PHASES, compile_assigner
from .variants import Variant

#: how ``PlayerView.of`` computes the fields that are not a state attribute of the same name
_COMPUTED = {"seat": "seat", "phase": "PHASES[state.phase]", "hand": "state.hands[seat]",
             # GameState.stock_left and legal_actions() written out: this runs once per decision
             "stock_left": "len(state.stock) - state.stock_pos + (state.face_up != NO_CARD)",
             "points": "tuple(state.points)",
             "legal": "(state._legal or state.legal_actions()) if state.current == seat else ()",
             "lost_cantes": "state.lost[seat]"}

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .state import GameState


class PlayerView:
    """One seat's knowledge at one decision. Equal views mean the seat cannot tell the states apart."""

    __slots__ = ("variant", "_knowledge") + NAMES_OF_FIELDS

    seat: int
    variant: Variant
    dealer: int
    phase: str
    #: the seat on move (the viewer, when it is asked to act)
    current: int
    #: the seat that led (or will lead) the current trick
    leader: int
    #: own hand as a card bitmask (``hand_cards`` for a list)
    hand: int
    #: the trump suit now, ``NO_SUIT`` while there is none (subastado before the auction ends, cabrón before
    #: the first trick holding a 12-11 pair; in cabrón it changes with each such trick)
    trump: int
    #: the card that showed trump at the deal (public to all), ``NO_CARD`` when none is shown
    trump_card: int
    #: two players: the card face up under the pile now (changes on an exchange), ``NO_CARD`` once drawn
    face_up: int
    #: cards still to be drawn, the face-up card included
    stock_left: int
    #: cards of the current trick in play order, from ``leader``
    trick: tuple[int, ...]
    #: finished tricks: (leader, cards in play order, winner)
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    #: cantes made: (seat, suit, points)
    cantes: tuple[tuple[int, int, int], ...]
    #: exchanges made: (seat, card given, card taken)
    exchanges: tuple[tuple[int, int, int], ...]
    #: points taken so far per seat (card points of won tricks, cantes, last-trick bonus)
    points: tuple[int, ...]
    legal: tuple[str, ...]
    #: deductions from this view (``arena.knowledge``), built on first use: ``of`` never pays for them
    _knowledge: Knowledge
    #: the auction so far, public: (seat, bid) in order, a bid of 0 being a pass
    bids: tuple[tuple[int, int], ...]
    #: the last (so far highest) bidder, -1 before any bid
    declarer: int
    #: the highest bid so far, 0 for none
    contract: int
    #: cabrón: the tricks that held a 12-11 pair: (trick index, winner, suit, points); each made trump
    pair_tricks: tuple[tuple[int, int, int, int], ...]
    #: the seat sitting this deal out (cabrero with 5 or 6), -1 for none
    sit_out: int
    #: this seat's own cantes it lost by not making them when it could (``skipped_cante_lost``, S3), as
    #: the bits of their 11s; what other seats lost is hidden
    lost_cantes: int

    @classmethod
    def of(cls, state: "GameState", seat: int) -> "PlayerView":
        """``seat``'s view of ``state``: the fields of ``arena.public.FIELDS``, no more."""
        return _fill(cls.__new__(cls), state, seat)

    # -------------------------------------------------------------------------------- derived
    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        return self.variant.teams

    @property
    def hand_cards(self) -> list[int]:
        return cards_list(self.hand)

    def next_seat(self, seat: int) -> int:
        """The seat that plays after ``seat`` (skipping a seat that sits out)."""
        return self.variant.rules.next[self.dealer][seat]

    def trick_order(self, leader: int) -> tuple[int, ...]:
        """The seats of a trick led by ``leader``, in play order (``rules.Rules.order``)."""
        return self.variant.rules.order[self.dealer][leader]

    @property
    def trick_seats(self) -> list[tuple[int, int]]:
        """(seat, card) of the current trick in play order."""
        return list(zip(self.trick_order(self.leader), self.trick))

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each hand: public, since every deal, draw and play is seen by all."""
        v = self.variant
        played = len(self.tricks)
        if v.draw_pile:
            full = 40 - 2 * v.hand_size
            draws = (full - self.stock_left) // 2
        else:
            draws = 0
        n = v.players
        in_trick = set(self.trick_order(self.leader)[:len(self.trick)])
        return tuple(0 if s == self.sit_out else v.hand_size + draws - played - (s in in_trick) for s in range(n))

    @property
    def side_points(self) -> list[int]:
        return [sum(self.points[s] for s in team) for team in self.variant.teams]

    @property
    def strict(self) -> bool:
        """Whether the strict duties of play are in force: always without a draw pile, else once the pile
        (and the face-up card) is gone."""
        return not self.variant.draw_pile or self.face_up == NO_CARD

    @property
    def tricks_won(self) -> list[int]:
        """Tricks taken by each seat so far (a Tute and the duties of the next trick depend on them)."""
        won = [0] * self.variant.players
        for _, _, w in self.tricks:
            won[w] += 1
        return won

    @property
    def sung_mask(self) -> int:
        """The suits sung this deal, as the bits of their 11s (the referee's ``sung``: each suit once)."""
        sung = 0
        for _, suit, _ in self.cantes:
            sung |= BIT[suit * 10 + 8]
        return sung

    @property
    def exchanges_done(self) -> tuple[bool, bool]:
        """Whether the 7 and the 2 of trumps have been given for the face-up card (each once a deal)."""
        return (any(g % 10 == 6 for _, g, _ in self.exchanges), any(g % 10 == 1 for _, g, _ in self.exchanges))

    # -------------------------------------------------------------------------------- knowledge
    @property
    def knowledge(self) -> Knowledge:
        """What this seat can deduce from the record (``arena.knowledge``), computed once per view."""
        try:
            return self._knowledge
        except AttributeError:
            k = self._knowledge = Knowledge(self)
            return k

    @property
    def seen_cards(self) -> int:
        """Cards this seat has seen (bitmask): own hand, played, trump and face-up, exchanged, sung."""
        return self.knowledge.seen

    @property
    def unseen_cards(self) -> int:
        """Cards of the deck this seat has never seen (bitmask): in other hands or the face-down pile."""
        return self.knowledge.unseen

    def known_cards(self, seat: int) -> int:
        """Cards (bitmask) surely in ``seat``'s hand now: for the viewer its hand; for another seat its
        sung pairs, exchanged-in card, last-draw face-up card, the dealer's trump card (until played),
        and any unseen card that no other place can hold."""
        return self.knowledge.forced()[seat]

    def excluded_cards(self, seat: int) -> int:
        """Cards (bitmask) ``seat`` has shown it does not hold, by the strict duties of play: the suits it
        did not follow, the trumps it did not play when obliged, the cards it did not beat with."""
        return self.knowledge.excluded[seat]

    def voids(self, seat: int) -> int:
        """Suits ``seat`` has shown it lacks, as a bitmask (bit ``suit``)."""
        return self.knowledge.void[seat]

    def sample_world(self, rng: random.Random) -> "GameState":
        """A full game state consistent with everything this seat knows (for search): its own hand
        exactly, known cards placed, exclusions respected, hand sizes right, the unseen rest shuffled.
        ``PlayerView.of(world, self.seat) == self``."""
        return sample_world(self, rng, self.knowledge)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return self.variant == other.variant and all(
            getattr(self, k) == getattr(other, k) for k in NAMES_OF_FIELDS)

    def __hash__(self) -> int:
        return hash((self.seat, self.hand, self.tricks, self.trick, self.legal))

    def __repr__(self) -> str:
        return (f"PlayerView(seat={self.seat}, hand={' '.join(NAMES[c] for c in self.hand_cards)}, "
                f"trump={SUITS[self.trump] if self.trump != NO_SUIT else None}, "
                f"trick={[NAMES[c] for c in self.trick]}, legal={list(self.legal)})")

    def to_json(self) -> dict[str, Any]:
        """The view as the protocol sends it: cards in notation, seats as ints (``arena.public``)."""
        return json.loads(view_json(self))


def view_json(view: PlayerView, variant_json: str | None = None, tricks_json: str | None = None,
              legal_json: str | None = None) -> str:
    """The protocol's JSON text of ``view``, field by field from ``arena.public.FIELDS``. A host that
    encodes many views of one deal passes the parts it has cached (the variant's constant keys, the
    finished tricks, the legal list)."""
    if variant_json is None:
        variant_json = variant_keys(view.variant)
    parts = []
    for f in FIELDS:
        name = f.name
        if name == "tricks" and tricks_json is not None:
            text = tricks_json
        elif name == "legal" and legal_json is not None:
            text = legal_json
        else:
            text = f.kind.encode(getattr(view, name))
        parts.append(f'"{name}":{text}')
        if name == "seat":
            parts.append(variant_json)
        elif name == JSON_BEFORE_HAND_SIZES:
            parts.append(f'"hand_sizes":{_ints(view.hand_sizes)}')
    return "{" + ",".join(parts) + "}"


def variant_keys(v: Variant) -> str:
    """The view's JSON keys that follow from the rules: ``variant``, ``players``, ``teams``."""
    return (f'"variant":{json.dumps(v.name)},"players":{v.players},'
            f'"teams":{json.dumps([list(t) for t in v.teams], separators=(",", ":"))}')


def view_from_dict(d: dict[str, Any], variant: Variant) -> PlayerView:
    """A view from its parsed JSON (``variant`` already resolved from ``d["variant"]`` or ``new_game``);
    raises KeyError, TypeError or ValueError on a view it cannot read."""
    view = PlayerView.__new__(PlayerView)
    view.variant = variant
    for f in FIELDS:
        raw = d.get(f.name, f.missing)
        if raw is ...:
            raise KeyError(f.name)
        setattr(view, f.name, f.kind.decode(raw))
    return view


def _ints(values: Any) -> str:
    return "[" + ",".join(map(str, values)) + "]"


_fill = compile_assigner(
    "_fill", "o, state, seat",
    {"variant": "state.variant", **{f.name: _COMPUTED[f.name] if f.state == "view" else f"state.{f.name}"
                                    for f in FIELDS}},
    "Set every public field of a view from the state.", {"PHASES": PHASES, "NO_CARD": NO_CARD})
