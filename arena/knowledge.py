"""What one seat can deduce from its view, and worlds (full game states) consistent with it, for search.

A ``PlayerView`` holds only the public record and the seat's own hand. From that record a careful
player knows more than it shows at a glance:

- **seen cards**: its own hand, every card played, the trump card, the card face up under the pile,
  the cards given and taken in exchanges, the halves of every cante;
- **cards known to be in a hand**: a sung 12 and 11 until played; the card taken in an exchange until
  played; the face-up card the loser of the last draw took; the dealer's trump card in the games
  without a pile, until played. When only one place can hold an unseen card (one opponent left with
  the pile empty, or every other hand shown void), that card is known there too;
- **exclusions**: the duties of play in force (``arena.rules.playable``: strict play, or cabrón's
  follow suit) reveal, whenever a seat does not follow suit, does not beat (montar), does not trump
  (fallar) or does not over-trump (pisar), that it holds no card that would have been obliged: that is
  ``arena.rules.lacks``, the exact inverse of the duties, applied to each trick as it stood (the trump
  of that trick, the seat order of the deal). Tricks before the last draw teach nothing lasting: while
  the pile lasts any card may be played, and a seat that failed habanero's trump lead draws again.

``sample_world`` deals the unseen cards at random into the other hands and the pile so that all of the
above holds, and returns a ``GameState`` on which ``legal_actions``/``apply`` continue the deal: a
determinization for perfect-information Monte Carlo search. Everything is computed once per view, on
first use, so ``PlayerView.of`` stays as cheap as before.

This module reads the view only; it imports the referee lazily (``state`` imports ``view``, which
imports this module), and every rule it uses comes from ``arena.rules``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from . import rules as R
from .cards import BIT, NO_CARD, NO_SUIT, SUIT, deck as deck_cards

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .state import GameState
    from .variants import Variant
    from .view import PlayerView

_DECK_MASK = {size: sum(BIT[c] for c in deck_cards(size)) for size in (36, 40)}


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def draw_rounds(variant: "Variant") -> int:
    """Tricks followed by a draw (two players): the pile with its face-up card, two cards a round."""
    return variant.rules.draw_rounds


def trump_holder(view: "PlayerView") -> int:
    """The seat dealt the card that shows trump (the dealer's last card; with a dealer who sits out,
    the last seat dealt), or -1 when no card in a hand shows trump (a pile, a dead card, no trump card)."""
    v = view.variant
    if v.draw_pile or v.dead_card or view.trump_card == NO_CARD:
        return -1
    r = v.rules
    return r.order[view.dealer][r.next[view.dealer][view.dealer]][-1]


def trumps_by_trick(view: "PlayerView") -> list[int]:
    """The trump suit in force in each trick so far (the current one included): fixed, except in
    cabrón, where each trick holding a 12-11 pair makes a new trump from the next trick on."""
    count = len(view.tricks) + 1
    if not view.pair_tricks:
        return [view.trump] * count
    out = []
    trump = NO_SUIT
    changes: dict[int, int] = {}
    for index, _, suit, _ in view.pair_tricks:
        changes.setdefault(index, suit)  # the first pair listed for a trick is the one that made trump
    for i in range(count):
        out.append(trump)
        trump = changes.get(i, trump)
    return out


class Knowledge:
    """Everything ``view.seat`` can deduce, computed once from one view (see the module docstring).

    Attributes are card bitmasks indexed by seat: ``known[s]`` cards surely in seat ``s``'s hand now
    (the seat's own hand for the viewer), ``excluded[s]`` cards seat ``s`` surely does not hold,
    ``void[s]`` a bitmask of suits (bit ``suit``) seat ``s`` has shown it lacks. ``excluded`` and
    ``void`` are public (read from the tricks alone): the viewer's own entries are what the other seats
    know of it, which a bot may weigh when it leads or discards.
    """

    __slots__ = ("view", "seen", "unseen", "known", "excluded", "void", "sizes", "stock_need", "_forced")

    def __init__(self, view: "PlayerView") -> None:
        self.view = view
        v = view.variant
        n = v.players
        played = 0
        for _, cards, _ in view.tricks:
            for c in cards:
                played |= BIT[c]
        for c in view.trick:
            played |= BIT[c]
        seen = view.hand | played
        if view.trump_card != NO_CARD:
            seen |= BIT[view.trump_card]
        if view.face_up != NO_CARD:
            seen |= BIT[view.face_up]
        known = [0] * n
        for seat, suit, _ in view.cantes:
            pair = BIT[suit * 10 + 8] | BIT[suit * 10 + 9]
            known[seat] |= pair
            seen |= pair
        for seat, given, taken in view.exchanges:
            known[seat] = (known[seat] & ~BIT[given]) | BIT[taken]
            seen |= BIT[given] | BIT[taken]
        rounds = draw_rounds(v)
        if v.draw_pile:
            if len(view.tricks) >= rounds and view.face_up == NO_CARD:
                # the last draw (done once the face-up card is gone: an exchange before the draw may
                # still be pending after the trick): the loser of trick ``rounds - 1`` took the face-up
                # card, which was the card given in the last exchange (exchanges happen only while a card
                # lies face up)
                loser = 1 - view.tricks[rounds - 1][2]
                known[loser] |= BIT[view.exchanges[-1][1] if view.exchanges else view.trump_card]
        else:
            holder = trump_holder(view)
            if holder >= 0:
                known[holder] |= BIT[view.trump_card]
        for s in range(n):
            known[s] &= ~played
        known[view.seat] = view.hand
        self.seen = seen
        self.unseen = _DECK_MASK[v.deck_size] & ~seen
        self.known = known
        self.excluded, self.void = self._exclusions()
        self.sizes = view.hand_sizes
        self.stock_need = max(0, view.stock_left - (view.face_up != NO_CARD)) if v.draw_pile else 0
        self._forced: list[int] | None = None

    # ------------------------------------------------------------------------------ exclusions
    def _exclusions(self) -> tuple[list[int], list[int]]:
        """Replay each trick card by card and record what every follower's card proves absent
        (``rules.lacks``, the inverse of the duties in force in that trick). Tricks before the last
        draw teach nothing lasting: a draw may bring the missing cards."""
        view = self.view
        r = view.variant.rules
        n = view.variant.players
        excl = [0] * n
        void = [0] * n
        start = r.strict_from()
        trumps = trumps_by_trick(view)
        tricks = list(view.tricks)
        if view.trick:
            tricks.append((view.leader, view.trick, -1))
        order = r.order[view.dealer]
        for index in range(start, len(tricks)):
            leader, cards, _ = tricks[index]
            trump = trumps[index]
            mode = r.mode_of_trick(index)
            seats = order[leader]
            best_led = top = cards[0]
            led = SUIT[cards[0]]
            win = leader
            for i in range(1, len(cards)):
                c = cards[i]
                p = seats[i]
                ex = R.lacks(mode, c, led, best_led, top, trump, win == r.partner[p], r)
                if ex:
                    excl[p] |= ex
                    void[p] |= R.void_suits(ex)
                best_led, new_top = R.trick_step(trump, best_led, top, c)
                if new_top != top:
                    top, win = new_top, p
        return excl, void

    # ------------------------------------------------------------------------------ deduction
    def places(self) -> list[int]:
        """The other seats, in seat order (where unseen cards may lie, with the pile)."""
        s0 = self.view.seat
        return [s for s in range(self.view.variant.players) if s != s0]

    def forced(self) -> list[int]:
        """``known`` plus the unseen cards that only one place can hold (iterated to a fixed point)."""
        if self._forced is not None:
            return self._forced
        known = list(self.known)
        places = self.places()
        unseen = self.unseen
        free = unseen
        changed = True
        while changed and free:
            changed = False
            for s in places:
                others = self.stock_need > 0 and free or 0
                for t in places:
                    if t != s and self.sizes[t] > popcount(known[t]):
                        others |= free & ~self.excluded[t]
                alone = free & ~self.excluded[s] & ~others
                if alone:
                    known[s] |= alone
                    free &= ~alone
                    changed = True
            for s in places:
                room = self.sizes[s] - popcount(known[s])
                cand = free & ~self.excluded[s]
                if room > 0 and popcount(cand) == room:
                    known[s] |= cand
                    free &= ~cand
                    changed = True
        self._forced = known
        return known

    # ------------------------------------------------------------------------------ sampling
    def deal_unseen(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """Hands for every seat and the face-down pile (top first), the unseen cards shuffled in.

        Each unseen card goes to a place that may hold it, chosen with weight proportional to the room
        left there, the most constrained cards first; a dead end (rare, only with exclusions) restarts,
        and after a few restarts a place is chosen only if the rest can still be completed (Hall's
        condition over the few places), which always succeeds for a consistent view.
        """
        known = self.known
        places = self.places()
        need = [self.sizes[s] - popcount(known[s]) for s in places]
        cards = []
        m = self.unseen
        while m:
            low = m & -m
            cards.append(low.bit_length() - 1)
            m ^= low
        rng.shuffle(cards)
        hands = list(known)
        exc = [self.excluded[s] & self.unseen for s in places]
        if not any(exc):
            k = 0
            for i, s in enumerate(places):
                h = hands[s]
                for c in cards[k:k + need[i]]:
                    h |= BIT[c]
                hands[s] = h
                k += need[i]
            return hands, cards[k:]
        # with exclusions there is no pile (strict phase), but keep it general: the pile takes anything
        n_places = len(places) + (1 if self.stock_need else 0)
        caps0 = need + ([self.stock_need] if self.stock_need else [])
        allowed_of = []
        for c in cards:
            a = 0
            for i in range(len(places)):
                if not exc[i] & BIT[c]:
                    a |= 1 << i
            if self.stock_need:
                a |= 1 << len(places)
            allowed_of.append(a)
        order = sorted(range(len(cards)), key=lambda j: popcount(allowed_of[j]))
        for attempt in range(30):
            assign = self._assign(order, allowed_of, list(caps0), n_places, rng, careful=attempt >= 8)
            if assign is not None:
                break
        else:  # an inconsistent view (cannot happen in a real deal): ignore the exclusions
            assign = {}
            k = 0
            for i, cap in enumerate(caps0):
                for j in range(k, k + cap):
                    assign[j] = i
                k += cap
        pile: list[int] = []
        for j, c in enumerate(cards):
            i = assign[j]
            if i < len(places):
                hands[places[i]] |= BIT[c]
            else:
                pile.append(c)
        return hands, pile

    @staticmethod
    def _assign(order: list[int], allowed_of: list[int], caps: list[int], n_places: int,
                rng: random.Random, careful: bool) -> dict[int, int] | None:
        assign: dict[int, int] = {}
        remaining = list(order)
        for pos, j in enumerate(order):
            a = allowed_of[j]
            opts = [i for i in range(n_places) if a >> i & 1 and caps[i] > 0]
            if careful:
                rest = remaining[pos + 1:]
                ok = []
                for i in opts:
                    caps[i] -= 1
                    if _hall(rest, allowed_of, caps, n_places):
                        ok.append(i)
                    caps[i] += 1
                opts = ok
            if not opts:
                return None
            total = sum(caps[i] for i in opts)
            r = rng.random() * total
            for i in opts:
                r -= caps[i]
                if r < 0:
                    break
            caps[i] -= 1
            assign[j] = i
        return assign


def _hall(rest: list[int], allowed_of: list[int], caps: list[int], n_places: int) -> bool:
    """Can the cards ``rest`` still be placed? Hall's condition over every set of places."""
    counts: dict[int, int] = {}
    for j in rest:
        a = allowed_of[j]
        counts[a] = counts.get(a, 0) + 1
    for sub in range(1, 1 << n_places):
        need = sum(k for a, k in counts.items() if a & ~sub == 0)
        if need > sum(caps[i] for i in range(n_places) if sub >> i & 1):
            return False
    return True


def sample_world(view: "PlayerView", rng: random.Random, knowledge: Knowledge | None = None) -> "GameState":
    """A full ``GameState`` consistent with everything ``view.seat`` knows (see the module docstring)."""
    from .state import GameState  # the referee imports this module (through the view)
    k = knowledge if knowledge is not None else Knowledge(view)
    hands, pile = k.deal_unseen(rng)
    return GameState.from_view(view, hands, pile)
