"""What the other seats' plays say about their hands: a weight per sampled world (``search``'s inference).

Uniform world sampling (``Knowledge.deal_unseen``) respects only what the duties prove: a seat that did
not follow suit is void in it. But players choose among their legal cards for reasons, and those reasons
depend on the cards they hold: a player who leads a low card of a side suit in the strict phase has no
card of any suit that no one can beat (or it would lead that), a player who throws a 3 on a trick it
cannot win had nothing cheaper. ``Evidence`` turns every such past choice into a likelihood: in a sampled
world, the hand each seat held at each of its past decisions is known exactly (its hand in the world
plus the cards it played since), so the playout policy (``playout.lead_card``/``follow_card``, the one
that plays every seat in the playouts) can be asked what it would have played there. The world's weight
is the product, over those decisions, of 1 where the policy plays the card that was played and ``noise``
where it does not: a world where the policy explains the plays is likelier, and no world is ever ruled
out (other players are not this policy; ``noise`` says how little it is trusted). Not the textbook
``(1 - noise) + noise / n`` of an epsilon-greedy player: its ``1 / n`` favours the worlds where a seat
had few playable cards whenever the model misses, which is a bias, not evidence, against players who are
not random.

Only decisions whose hand a world determines are used: with a draw pile, a hand before a draw is not
(which card came from the pile is not in the world), so there only the strict phase and the current
trick count. Only the other sides' decisions count: a partner may be anything, another copy of this bot
included (counting a partner that is ``search`` as if it played the policy: tute-4-pairs +0.005 +- 0.034
over 200 deals, nothing).
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar

from arena import PlayerView
from arena import rules as R
from arena.cards import BIT, NO_CARD, SUIT, SUIT_MASK

from .playout import MANY_SEATS, follow_card, lead_card


T = TypeVar("T")


def models(v: object) -> bool:
    """The variants whose plays the policy models: one trump for the whole play (not cabrón, where pair
    tricks change it and seats duck out of tricks)."""
    return getattr(v, "trump_rule", "card") != "pair_tricks"


def resample(items: list[T], weights: list[float], k: int, u: float) -> list[T]:
    """``k`` of ``items`` drawn in proportion to ``weights`` (systematic resampling: one uniform ``u``
    in [0, 1), each item kept about k * its share of the weight times). Equal weights keep evenly spaced
    ones."""
    total = sum(weights)
    if total <= 0.0:
        return items[:k]
    step = total / k
    point = u * step
    out: list[T] = []
    acc = 0.0
    for item, w in zip(items, weights):
        acc += w
        while point < acc and len(out) < k:
            out.append(item)
            point += step
    while len(out) < k:  # rounding at the very end
        out.append(items[-1])
    return out


class Decision(NamedTuple):
    """One past card choice of another side's seat, with what its hand then is derived from."""

    seat: int
    card: int
    #: what the seat played from this choice on: its hand then = its hand in a world now | this
    later: int
    #: the cards still in play when it chose (its own hand is masked out per world)
    alive: int
    #: the trick so far (empty: it led) and the kernel's state of it
    prefix: list[int]
    led: int
    best_led: int
    top: int
    best_trump: int
    mode: int
    strict: bool
    #: its partner holds the trick (the duties' exemption); and, as far as it could see, safely
    holds: bool
    safe: bool
    last: bool
    face_up: int
    #: side-suit cards it had reason to think an opponent would trump (a lead's only)
    feared: int


class Evidence:
    """The other seats' past card choices a world's hands can explain, from one view (built once per
    decision; ``weight`` once per world)."""

    __slots__ = ("rules", "trump", "sung", "noise", "decisions")

    def __init__(self, view: PlayerView, noise: float) -> None:
        v = view.variant
        r = v.rules
        self.rules = r
        self.trump = trump = view.trump
        self.noise = noise
        me = view.seat
        n = r.active
        #: the suits sung as of now (a pair sung later was still one to keep then: a small error)
        self.sung = view.sung_mask
        all_cards = view.seen_cards | view.unseen_cards
        tricks = [(leader, cards, True) for leader, cards, _ in view.tricks[r.strict_from():]]
        played = 0
        for _, cards, _ in view.tricks[:min(len(view.tricks), r.strict_from())]:
            for c in cards:
                played |= BIT[c]
        if view.trick:
            tricks.append((view.leader, view.trick, view.strict))
        void = [0] * v.players  # suits each seat has shown it lacks, as the play went
        # (seat, card, its trick so far, trick state, strict, cards played before it, suits it feared)
        raw: list[tuple[int, int, tuple[int, ...], tuple[int, int, int, int], bool, int, int]] = []
        for leader, cards, strict in tricks:
            seats = view.trick_order(leader)
            mode = r.mode(strict)
            state = (-1, -1, -1, -1)
            for k, c in enumerate(cards):
                seat = seats[k]
                if r.team[seat] != r.team[me]:  # what it feared matters only to a lead
                    raw.append((seat, c, tuple(cards[:k]), state, strict, played,
                                0 if k else _feared(void, seat, r, trump)))
                if k == 0:
                    state = (SUIT[c], c, c, seat)
                else:
                    led, best_led, top, win = state
                    if strict:
                        void[seat] |= R.void_suits(R.lacks(mode, c, led, best_led, top, trump,
                                                           win == r.partner[seat], r))
                    best_led, new_top = R.trick_step(trump, best_led, top, c)
                    state = (led, best_led, new_top, seat if new_top != top else win)
                played |= BIT[c]
        # each decision's hand = the seat's hand in the world | ``later``: what it played from then on
        self.decisions: list[Decision] = []
        later = [0] * v.players
        for seat, c, prefix, (led, best_led, top, win), strict, before, feared in reversed(raw):
            later[seat] |= BIT[c]
            alive = all_cards & ~before  # not yet played when it chose; its own hand is masked out later
            holds = last = safe = False
            if prefix:
                last = len(prefix) == n - 1
                holds = r.partner[seat] >= 0 and r.partner[seat] == win
                # the hands after it were hidden from it: the partner's card is safe when last or a trump
                safe = holds and (last or SUIT[top] == trump)
            best_trump = top if prefix and SUIT[top] == trump else -1
            self.decisions.append(Decision(seat, c, later[seat], alive, list(prefix), led, best_led, top, best_trump,
                                           r.mode(strict), strict, holds, safe, last,
                                           NO_CARD if strict else view.face_up, feared))
        self.decisions.reverse()

    def weight(self, hands: list[int]) -> float:
        """The likelihood of the observed choices if the other seats held ``hands`` (a world's hands now)
        and played by the policy with ``noise``."""
        r = self.rules
        trump = self.trump
        noise = self.noise
        sung = self.sung
        many = r.active >= MANY_SEATS
        w = 1.0
        playable = R.playable
        for (seat, c, later, alive, prefix, led, best_led, top, best_trump, mode, strict, holds, safe, last, face,
             feared) in self.decisions:
            hand = hands[seat] | later
            if prefix and mode != R.FREE:
                mask = playable(mode, hand, led, best_led, top, trump, holds, r)
            else:
                mask = hand
            if mask & (mask - 1) == 0:
                continue  # forced: says nothing
            if not prefix:
                guess = lead_card(mask, alive & ~hand, trump, strict, sung, feared, many)
            else:
                guess = follow_card(mask, hand, prefix, last, safe, trump, strict, led, best_led, best_trump, sung,
                                    face)
            if guess != c:
                w *= noise
        return w


def _feared(void: list[int], seat: int, r: R.Rules, trump: int) -> int:
    """The cards of the side suits where, as far as ``seat`` knew, an opponent would trump a lead: it
    showed it lacks the suit and has not shown it lacks trumps (``playout.ruffed_suits`` from a seat's
    own knowledge instead of a world's hands)."""
    out = 0
    for o, lacks_ in enumerate(void):
        if o != seat and o != r.partner[seat] and lacks_ and not lacks_ >> trump & 1:
            for s_, sm in enumerate(SUIT_MASK):
                if lacks_ >> s_ & 1 and s_ != trump:
                    out |= sm
    return out
