"""What one seat may see: its own hand and the public record of the deal, never another hand or the pile.

A view is built for every decision, so it holds only references to immutable values the referee keeps
anyway (ints, tuples, the frozen variant); lists, names and JSON are computed on access. It holds no
reference to the game state: a bot that pokes at its view, or changes it, reaches nothing else.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .cards import NAMES, SUITS, cards_list
from .knowledge import Knowledge, sample_world
from .variants import Variant

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .state import GameState


_PHASES = ("play", "declare", "deal_tute", "over", "auction", "trump")


class PlayerView:
    """One seat's knowledge at one decision. Equal views mean the seat cannot tell the states apart."""

    __slots__ = ("seat", "variant", "dealer", "phase", "current", "leader", "hand", "trump", "trump_card",
                 "face_up", "stock_left", "trick", "tricks", "cantes", "exchanges", "points", "legal", "bids",
                 "declarer", "contract", "pair_tricks", "sit_out", "_knowledge")

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
    #: the trump suit now, -1 while there is none (subastado before the auction ends, cabrón before
    #: the first trick holding a 12-11 pair; in cabrón it changes with each such trick)
    trump: int
    #: the card that showed trump at the deal (public to all), -1 when none is shown
    trump_card: int
    #: two players: the card face up under the pile now (changes on an exchange), -1 once drawn
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

    @classmethod
    def of(cls, state: Any, seat: int) -> "PlayerView":
        self = cls.__new__(cls)
        self.seat = seat
        self.variant = state.variant
        self.dealer = state.dealer
        self.phase = _PHASES[state.phase]
        self.current = state.current
        self.leader = state.leader
        self.hand = state.hands[seat]
        self.trump = state.trump
        self.trump_card = state.trump_card
        self.face_up = state.face_up
        self.stock_left = state.stock_left
        self.trick = state.trick
        self.tricks = state.tricks
        self.cantes = state.cantes
        self.exchanges = state.exchanges
        self.points = tuple(state.points)
        self.legal = state.legal_actions() if state.current == seat else ()
        self.bids = state.bids
        self.declarer = state.declarer
        self.contract = state.contract
        self.pair_tricks = state.pair_tricks
        self.sit_out = state.sit_out
        return self

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
        n = self.variant.players
        s = (seat + 1) % n
        return (s + 1) % n if s == self.sit_out else s

    @property
    def trick_seats(self) -> list[tuple[int, int]]:
        """(seat, card) of the current trick in play order."""
        out = []
        s = self.leader
        for c in self.trick:
            out.append((s, c))
            s = self.next_seat(s)
        return out

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
        in_trick = {s for s, _ in self.trick_seats}
        return tuple(0 if s == self.sit_out else v.hand_size + draws - played - (s in in_trick) for s in range(n))

    @property
    def side_points(self) -> list[int]:
        return [sum(self.points[s] for s in team) for team in self.variant.teams]

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

    _FIELDS = ("seat", "variant", "dealer", "phase", "current", "leader", "hand", "trump", "trump_card",
               "face_up", "stock_left", "trick", "tricks", "cantes", "exchanges", "points", "legal", "bids",
               "declarer", "contract", "pair_tricks", "sit_out")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in PlayerView._FIELDS)

    def __hash__(self) -> int:
        return hash((self.seat, self.hand, self.tricks, self.trick, self.legal))

    def __repr__(self) -> str:
        return (f"PlayerView(seat={self.seat}, hand={' '.join(NAMES[c] for c in self.hand_cards)}, "
                f"trump={SUITS[self.trump] if self.trump >= 0 else None}, "
                f"trick={[NAMES[c] for c in self.trick]}, legal={list(self.legal)})")

    def to_json(self) -> dict[str, Any]:
        """The view as the protocol sends it: cards in notation, seats as ints."""
        return {
            "seat": self.seat, "variant": self.variant.name, "players": self.variant.players,
            "teams": [list(t) for t in self.variant.teams], "dealer": self.dealer, "phase": self.phase,
            "current": self.current, "leader": self.leader,
            "hand": [NAMES[c] for c in self.hand_cards], "trump": SUITS[self.trump] if self.trump >= 0 else None,
            "trump_card": NAMES[self.trump_card] if self.trump_card >= 0 else None,
            "face_up": NAMES[self.face_up] if self.face_up >= 0 else None,
            "stock_left": self.stock_left,
            "trick": [NAMES[c] for c in self.trick],
            "tricks": [{"leader": ld, "cards": [NAMES[c] for c in cs], "winner": w} for ld, cs, w in self.tricks],
            "cantes": [{"seat": s, "suit": SUITS[su], "points": p} for s, su, p in self.cantes],
            "exchanges": [{"seat": s, "gave": NAMES[g], "took": NAMES[t]} for s, g, t in self.exchanges],
            "points": list(self.points), "hand_sizes": list(self.hand_sizes), "legal": list(self.legal),
            "bids": [{"seat": s, "bid": b or None} for s, b in self.bids],
            "declarer": self.declarer if self.declarer >= 0 else None,
            "contract": self.contract or None,
            "pair_tricks": [{"trick": i, "seat": s, "suit": SUITS[su], "points": p}
                            for i, s, su, p in self.pair_tricks],
            "sit_out": self.sit_out if self.sit_out >= 0 else None,
        }
