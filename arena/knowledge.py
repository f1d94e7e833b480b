"""What one seat can deduce from its view, and worlds (full game states) consistent with it, for search.

A ``PlayerView`` holds only the public record and the seat's own hand. From that record a careful
player knows more than it shows at a glance:

- **seen cards**: its own hand, every card played, the trump card, the card face up under the pile,
  the cards given and taken in exchanges, the halves of every cante;
- **cards known to be in a hand**: a sung 12 and 11 until played; the card taken in an exchange until
  played; the face-up card the loser of the last draw took; the dealer's trump card in the games
  without a pile, until played. When only one place can hold an unseen card (one opponent left with
  the pile empty, or every other hand shown void), that card is known there too;
- **exclusions**: the strict duties of play (``GameState.playable``) reveal, whenever a seat does not
  follow suit, does not beat (montar), does not trump (fallar) or does not over-trump (pisar), that it
  holds no card that would have been obliged. The duties that applied are rebuilt from the trick as it
  stood (led suit, highest led card, highest trump, who was winning for the partner exemption). Only
  strict tricks teach anything: while the pile lasts any card may be played (and in habanero a seat
  that failed a trump lead draws again before anyone can use the fact).

``sample_world`` deals the unseen cards at random into the other hands and the pile so that all of the
above holds, and returns a ``GameState`` on which ``legal_actions``/``apply`` continue the deal: a
determinization for perfect-information Monte Carlo search. Everything is computed once per view, on
first use, so ``PlayerView.of`` stays as cheap as before.

This module reads the view only; it imports the referee lazily (``state`` imports ``view``, which
imports this module).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .cards import BIT, HIGHER, SUIT, SUIT_MASK, deck as deck_cards

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .state import GameState
    from .view import PlayerView

_PHASE_CODE = {"play": 0, "declare": 1, "deal_tute": 2, "over": 3}
_DECK_MASK = {size: sum(BIT[c] for c in deck_cards(size)) for size in (36, 40)}
_KINGS = sum(1 << (s * 10 + 9) for s in range(4))
_KNIGHTS = sum(1 << (s * 10 + 8) for s in range(4))
#: per variant, a dealt state whose seat layout (private referee tables) a world copies
_TEMPLATES: dict[Any, Any] = {}


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def draw_rounds(variant: Any) -> int:
    """Tricks followed by a draw (two players): the pile with its face-up card, two cards a round."""
    return (40 - 2 * variant.hand_size) // 2 if variant.draw_pile else 0


class Knowledge:
    """Everything ``view.seat`` can deduce, computed once from one view (see the module docstring).

    Attributes are card bitmasks indexed by seat: ``known[s]`` cards surely in seat ``s``'s hand now
    (the seat's own hand for the viewer), ``excluded[s]`` cards seat ``s`` surely does not hold,
    ``void[s]`` a bitmask of suits (bit ``suit``) seat ``s`` has shown it lacks.
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
        seen = view.hand | played | BIT[view.trump_card]
        if view.face_up >= 0:
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
            if len(view.tricks) >= rounds:
                # the last draw: the loser of trick ``rounds - 1`` took the face-up card, which was the
                # card given in the last exchange (exchanges happen only while a card lies face up)
                loser = 1 - view.tricks[rounds - 1][2]
                known[loser] |= BIT[view.exchanges[-1][1] if view.exchanges else view.trump_card]
        elif not v.dead_card:
            known[view.dealer] |= BIT[view.trump_card]
        for s in range(n):
            known[s] &= ~played
        known[view.seat] = view.hand
        self.seen = seen
        self.unseen = _DECK_MASK[v.deck_size] & ~seen
        self.known = known
        self.excluded, self.void = self._exclusions()
        self.sizes = view.hand_sizes
        self.stock_need = max(0, view.stock_left - (view.face_up >= 0)) if v.draw_pile else 0
        self._forced: list[int] | None = None

    # ------------------------------------------------------------------------------ exclusions
    def _exclusions(self) -> tuple[list[int], list[int]]:
        """Replay each strict trick card by card and record what every follower's card proves absent."""
        view = self.view
        v = view.variant
        n = v.players
        trump = view.trump
        excl = [0] * n
        void = [0] * n
        rounds = draw_rounds(v)
        partner = [(s + 2) % n if v.pairs else -1 for s in range(n)]
        must_beat = v.must_beat_led_after_trumped
        under = v.undertrump_required
        exempt = v.partner_exemption
        tricks = list(view.tricks[rounds:])
        if len(view.tricks) >= rounds and view.trick:
            tricks.append((view.leader, view.trick, -1))
        for leader, cards, _ in tricks:
            c0 = cards[0]
            led = SUIT[c0]
            best_led = c0
            best_trump = c0 if led == trump else -1
            win = leader
            for i in range(1, len(cards)):
                c = cards[i]
                p = (leader + i) % n
                s = SUIT[c]
                ex = 0
                if exempt and win == partner[p]:
                    if s != led:
                        ex = SUIT_MASK[led]
                elif s == led:
                    if (led == trump or best_trump < 0 or must_beat) and not BIT[c] & HIGHER[best_led]:
                        ex = HIGHER[best_led]
                else:
                    ex = SUIT_MASK[led]
                    if led != trump:
                        if s == trump:
                            if best_trump >= 0 and not BIT[c] & HIGHER[best_trump]:
                                ex |= HIGHER[best_trump]
                        elif best_trump >= 0:
                            ex |= SUIT_MASK[trump] if under else HIGHER[best_trump]
                        else:
                            ex |= SUIT_MASK[trump]
                if ex:
                    excl[p] |= ex
                    for su in range(4):
                        if ex & SUIT_MASK[su] == SUIT_MASK[su]:
                            void[p] |= 1 << su
                # the referee's own bookkeeping of the trick (GameState.apply)
                if s == led:
                    if BIT[c] & HIGHER[best_led]:
                        best_led = c
                        if s == trump:
                            best_trump = c
                            win = p
                        elif best_trump < 0:
                            win = p
                elif s == trump and (best_trump < 0 or BIT[c] & HIGHER[best_trump]):
                    best_trump = c
                    win = p
        excl[view.seat] = 0
        void[view.seat] = 0
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


def _template(variant: Any) -> "GameState":
    t = _TEMPLATES.get(variant)
    if t is None:
        from .state import GameState
        t = _TEMPLATES[variant] = GameState.new(variant, list(deck_cards(variant.deck_size)), 0)
    return t


def _trick_bookkeeping(leader: int, cards: tuple[int, ...], n: int, trump: int) -> tuple[int, int, int, int]:
    """(led suit, highest led card, highest trump or -1, winning seat) of a trick, as ``apply`` keeps them."""
    c0 = cards[0]
    led = SUIT[c0]
    best_led = c0
    best_trump = c0 if led == trump else -1
    win = leader
    for i in range(1, len(cards)):
        c = cards[i]
        s = SUIT[c]
        if s == led:
            if BIT[c] & HIGHER[best_led]:
                best_led = c
                if s == trump:
                    best_trump = c
                    win = (leader + i) % n
                elif best_trump < 0:
                    win = (leader + i) % n
        elif s == trump and (best_trump < 0 or BIT[c] & HIGHER[best_trump]):
            best_trump = c
            win = (leader + i) % n
    return led, best_led, best_trump, win


def build_world(k: Knowledge, hands: list[int], pile: list[int]) -> "GameState":
    """A ``GameState`` with these hands and face-down pile and the view's public state, every field set.

    The deck order and initial hands of a world are nominal (a permutation that deals the cards each
    seat is known to have held, for the games without a pile); the referee's play never reads them.
    """
    from .state import GameState
    view = k.view
    v = view.variant
    n = v.players
    tmpl = _template(v)
    o = GameState(None)
    o.variant = v
    o.n = n
    o.dealer = view.dealer
    o.hands = hands
    o.stock = tuple(pile)
    o.stock_pos = 0
    o.trump = view.trump
    o.trump_card = view.trump_card
    o.face_up = view.face_up
    o.strict = not v.draw_pile or view.face_up < 0
    o.phase = _PHASE_CODE[view.phase]
    o.current = view.current
    o.leader = view.leader
    o.trick = view.trick
    if view.trick:
        o.led, o.best_led, o.best_trump, o.win_seat = _trick_bookkeeping(view.leader, view.trick, n, view.trump)
    elif view.tricks:
        ld, cs, _ = view.tricks[-1]
        o.led, o.best_led, o.best_trump, o.win_seat = _trick_bookkeeping(ld, cs, n, view.trump)
    else:
        o.led = o.best_led = o.best_trump = o.win_seat = -1
    o.tricks = view.tricks
    won = [0] * n
    for _, _, w in view.tricks:
        won[w] += 1
    o.tricks_won = won
    o.points = list(view.points)
    o.cantes = view.cantes
    sung = 0
    for _, suit, _ in view.cantes:
        sung |= BIT[suit * 10 + 8]
    o.sung = sung
    o.exchanges = view.exchanges
    o.done_seven = any(g % 10 == 6 for _, g, _ in view.exchanges)
    o.done_two = any(g % 10 == 1 for _, g, _ in view.exchanges)
    over = o.phase == 3
    o.window_seat = view.tricks[-1][2] if view.tricks and not view.trick and not over else -1
    o.window_sang = 0
    o.pending = ()
    if o.phase == 2:
        order = [(view.leader + i) % n for i in range(n)]
        at = order.index(view.current)
        o.pending = tuple(s for s in order[at:] if s == view.current
                          or hands[s] & _KINGS == _KINGS or hands[s] & _KNIGHTS == _KNIGHTS)
    o.actions = []
    o.result_ = None
    o.last_trick_winner = view.tricks[-1][2] if over and view.tricks else -1
    o._legal = None
    o._next = tmpl._next
    o._team = tmpl._team
    o._partner = tmpl._partner
    o._total_tricks = tmpl._total_tricks
    # the auction and cabrón fields: public, so straight from the view; rule switches from the template
    o.k = tmpl.k
    o._pair_rule = tmpl._pair_rule
    o._loose_duty = tmpl._loose_duty
    o.sit_out = view.sit_out
    o.bids = view.bids
    o.declarer = view.declarer
    o.contract = view.contract
    o.pair_tricks = view.pair_tricks
    o.passed = sum(1 << s for s, b in view.bids if b == 0)
    o._singers = tmpl._singers
    if v.cantes and v.trump_rule == "auction" and view.phase not in ("auction", "trump") and view.declarer >= 0:
        o._singers = sum(1 << s for s in v.teams[tmpl._team[view.declarer]])
    o._exchange_bits = 0
    if v.draw_pile:  # the 7 and the 2 of this deal's trump suit (the referee's layout table, per trump)
        seven, two = view.trump * 10 + 6, view.trump * 10 + 1
        o._exchange_bits = (BIT[seven] if v.exchange_seven else 0) | (BIT[two] if v.exchange_two else 0)
    _nominal_deal(o, k, hands, pile)
    if o.window_seat >= 0 and view.cantes:
        o.window_sang = _window_sang(o, k)
    return o


def _nominal_deal(o: "GameState", k: Knowledge, hands: list[int], pile: list[int]) -> None:
    view = k.view
    v = view.variant
    n = v.players
    held = list(hands)
    for leader, cards, _ in view.tricks + ((view.leader, view.trick, -1),):
        for i, c in enumerate(cards):
            held[(leader + i) % n] |= BIT[c]
    if not v.draw_pile:
        first = (view.dealer + 1) % n
        per_seat = []
        for s in range(n):
            cs = [c for c in range(40) if held[s] >> c & 1 and c != view.trump_card]
            if s == view.dealer and not v.dead_card:
                cs.append(view.trump_card)
            per_seat.append(cs)
        order = [per_seat[(first + i) % n][i // n] for i in range(v.hand_size * n)
                 if i // n < len(per_seat[(first + i) % n])]
        if v.dead_card:
            order.append(view.trump_card)
        o.deck = tuple(order)
        o.initial_hands = tuple(sum(BIT[c] for c in per_seat[s]) for s in range(n))
    else:
        # who drew what cannot be told from the record; a nominal order: the cards as they lie now
        rest = [c for c in range(40) if not (sum(held) | BIT[view.trump_card]) >> c & 1 and c not in pile]
        in_hands = [c for s in range(n) for c in range(40) if held[s] >> c & 1 and c != view.trump_card]
        o.deck = tuple(in_hands + rest + [view.trump_card] + list(pile))
        o.initial_hands = tuple(held)


def _window_sang(o: "GameState", k: Knowledge) -> int:
    """Pick ``window_sang`` so that the viewer's legal actions in the world are those of its view."""
    view = k.view
    if view.current != view.seat:
        return 0
    w = o.window_seat
    cands = [s for s in (w, o._partner[w]) if s >= 0 and any(c[0] == s for c in view.cantes)]
    combos = [0]
    for s in cands:
        combos += [m | 1 << s for m in combos]
    for m in combos:
        o.window_sang = m
        o._legal = None
        if o.legal_actions() == view.legal:
            o._legal = None
            return m
    o._legal = None
    return 0


def sample_world(view: "PlayerView", rng: random.Random, knowledge: Knowledge | None = None) -> "GameState":
    """A full ``GameState`` consistent with everything ``view.seat`` knows (see the module docstring)."""
    k = knowledge if knowledge is not None else Knowledge(view)
    hands, pile = k.deal_unseen(rng)
    return build_world(k, hands, pile)
