"""The two-player endgame solver of ``search``: once the pile is gone every card is known, and the rest
of the deal is a perfect-information game solved by alpha-beta on bitmasks.

The rules are the kernel's (``arena.rules``): duties, trick winner, cantes, Tute, the last-trick ten.
It serves the exact endgame (a full window: the win, then the margin) and the exact leaves (a null
window: the win only), which run it hundreds of times a decision, so its speed is the leaves' reach.
Two things keep it small: positions are cached with the bounds they were searched with, and a position
whose margin the cards still to take cannot turn (no Tute possible) is decided without a move.
"""

from __future__ import annotations

from arena import rules as R
from arena.cards import BIT, NO_SUIT, POINTS, STRENGTH, SUIT, cards_list as _cards
from arena.rules import BEATS, ELEVENS, KINGS, KNIGHTS, Rules

WIN = 1000  # value of a won deal, above any point margin

#: points of the cards of one suit's 10-bit slice of a mask (the rank layout is the same in every suit)
SLICE_POINTS: tuple[int, ...] = tuple(sum(POINTS[i] for i in range(10) if m >> i & 1) for m in range(1024))


def win_score(value: int) -> float:
    """A solver's value searched in a null window around a draw as a playout's win: 1 won, 0.5 drawn, 0
    lost (the leaves of both solvers add the margin as the tie-break)."""
    return 1.0 if value >= 1 else 0.0 if value <= -1 else 0.5


def swing(cards: int, open_pairs: int, bonus: int, trump_eleven: int) -> int:
    """How far a point margin can still move either way: the points of ``cards`` (all still to play),
    the last trick's ``bonus``, 20 for each cante still open (``open_pairs``: the 11 of each pair held
    in one hand and not sung; a pair split between hands can never be sung) and 20 more for the trumps'
    (``trump_eleven``: its bit). A Tute is the caller's to rule out: it ends the deal whatever the margin."""
    t = SLICE_POINTS
    out = t[cards & 1023] + t[cards >> 10 & 1023] + t[cards >> 20 & 1023] + t[cards >> 30 & 1023] + bonus
    if open_pairs:
        out += 20 * bin(open_pairs).count("1") + (20 if open_pairs & trump_eleven else 0)
    return out


class Abort(Exception):
    """The search ran over its node budget."""


class Solver:
    """What both endgame solvers share: the rules' facts a search reads at every node, the node count
    against a budget, the cache of positions with the bounds each was proved in, and the move orders
    (cached per hand, the cards that decide first)."""

    def __init__(self, r: Rules, trump: int, budget: int) -> None:
        self.r = r
        self.trump = trump
        self.budget = budget
        self.nodes = 0
        #: the nodes of every ``solve`` so far (a decision's work: ``bots/budget.py``)
        self.spent = 0
        self.tt: dict[tuple[int, ...], tuple[int, int]] = {}
        # with a Tute only at a side's first trick, whether each side has won one is part of a position
        self.first_only = r.tute_mode == "first_team_trick"
        self.tute_on = r.tute_mode != "disabled"
        self.bonus = r.last_trick_bonus
        self.trump_eleven = BIT[trump * 10 + 8] if trump != NO_SUIT else 0
        self._lead_order: dict[int, tuple[int, ...]] = {}
        self._follow_order: dict[int, tuple[int, ...]] = {}

    def _ordered(self, hand: int) -> tuple[int, ...]:
        """Leads: dearest, then strongest, first (the cards that take tricks decide first)."""
        order = self._lead_order.get(hand)
        if order is None:
            order = self._lead_order[hand] = tuple(
                sorted(_cards(hand), key=lambda c: -STRENGTH[c] - 16 * POINTS[c]))
        return order

    def _answers(self, mask: int) -> tuple[int, ...]:
        """Answers: trumps first, then the strongest."""
        order = self._follow_order.get(mask)
        if order is None:
            trump = self.trump
            order = self._follow_order[mask] = tuple(
                sorted(_cards(mask), key=lambda c: -STRENGTH[c] - (100 if SUIT[c] == trump else 0)))
        return order

    def _store(self, key: tuple[int, ...], best: int, alpha: int, beta: int) -> None:
        """Cache a position's value ``best`` searched in the window (``alpha``, ``beta``): exact inside
        it, an upper bound at or below ``alpha``, a lower bound at or above ``beta``."""
        if best <= alpha:
            self.tt[key] = (-10 * WIN, best)
        elif best >= beta:
            self.tt[key] = (best, 10 * WIN)
        else:
            self.tt[key] = (best, best)


class Endgame(Solver):
    """Two-player strict-phase minimax; values are from ``me``'s side (``WIN`` + margin, ``-WIN`` +
    margin for a loss, the margin alone for a draw). One instance may solve many positions of one deal
    (the leaves of a decision): its cache holds only positions, each with the bounds it was proved in;
    ``budget`` counts the nodes of each call of ``solve``, ``spent`` those of all of them."""

    def __init__(self, r: Rules, trump: int, me: int, budget: int) -> None:
        super().__init__(r, trump, budget)
        self.me = me

    def solve(self, hands: list[int], leader: int, diff: int, sung: int, won: list[int], left: int,
              alpha: int, beta: int) -> int:
        """``lead`` with a fresh node budget."""
        self.nodes = 0
        try:
            return self.lead(hands, leader, diff, sung, won, left, alpha, beta)
        finally:
            self.spent += self.nodes

    def _playable(self, hand: int, led_card: int) -> int:
        return R.playable(R.STRICT, hand, SUIT[led_card], led_card, led_card, self.trump, False, self.r)

    def _swing(self, h0: int, h1: int, sung: int) -> int:
        """How far the margin can still move either way: the cards' points, the last trick's ten and
        every cante still held; -1 when a Tute is still possible (it decides the deal at once)."""
        if self.tute_on and (h0 & KINGS == KINGS or h0 & KNIGHTS == KNIGHTS or h1 & KINGS == KINGS
                             or h1 & KNIGHTS == KNIGHTS):
            return -1
        return swing(h0 | h1, (h0 & h0 >> 1 | h1 & h1 >> 1) & ELEVENS & ~sung, self.bonus, self.trump_eleven)

    def lead(self, hands: list[int], leader: int, diff: int, sung: int, won: list[int], left: int,
             alpha: int, beta: int) -> int:
        """``leader`` to lead with ``left`` tricks to play; ``diff`` = me's points minus the other's."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise Abort
        h0, h1 = hands
        room = self._swing(h0, h1, sung)
        if room >= 0:  # the margin ends in [diff - room, diff + room]: decided if that holds no 0
            if diff > room and WIN + diff - room >= beta:
                return WIN + diff - room
            if diff < -room and -WIN + diff + room <= alpha:
                return -WIN + diff + room
        if self.first_only:
            key: tuple[int, ...] = (h0, h1, leader, diff, sung, min(won[0], 1), min(won[1], 1))
        else:
            key = (h0, h1, leader, diff, sung)
        hit = self.tt.get(key)
        if hit is not None:
            lo, hi = hit
            if lo == hi or lo >= beta or hi <= alpha:
                return lo if lo >= beta or lo == hi else hi
            alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        maxing = leader == self.me
        best = -10 * WIN if maxing else 10 * WIN
        hand = hands[leader]
        for c in self._ordered(hand):
            h = [h0, h1]
            h[leader] = hand & ~BIT[c]
            val = self.follow(h, leader, c, diff, sung, won, left, alpha, beta)
            if maxing:
                if val > best:
                    best = val
                if best > alpha:
                    alpha = best
            else:
                if val < best:
                    best = val
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        self._store(key, best, a0, b0)
        return best

    def follow(self, hands: list[int], leader: int, led_card: int, diff: int, sung: int, won: list[int],
               left: int, alpha: int, beta: int) -> int:
        """The other seat answers ``led_card``."""
        f = 1 - leader
        mask = self._playable(hands[f], led_card)
        maxing = f == self.me
        best = -10 * WIN if maxing else 10 * WIN
        for c in self._answers(mask):
            h = list(hands)
            h[f] = hands[f] & ~BIT[c]
            val = self.finish_trick(h, leader, led_card, c, diff, sung, won, left, alpha, beta)
            if maxing:
                if val > best:
                    best = val
                if best > alpha:
                    alpha = best
            else:
                if val < best:
                    best = val
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    def finish_trick(self, hands: list[int], leader: int, c0: int, c1: int, diff: int, sung: int,
                     won: list[int], left: int, alpha: int, beta: int) -> int:
        """Score the trick (``c0`` led by ``leader``, ``c1`` answered), then the window, then go on."""
        trump = self.trump
        r = self.r
        w = 1 - leader if BIT[c1] & BEATS[trump][c0] else leader
        gain = POINTS[c0] + POINTS[c1]
        left -= 1
        if left == 0:
            gain += r.last_trick_bonus
            d = diff + gain if w == self.me else diff - gain
            ranks = R.points_ranks(r, (d, 0), 0 if w == self.me else 1)  # sides: me (margin d), other
            if ranks[0] == ranks[1]:  # a draw (``tie = draw``)
                return d
            return (WIN if ranks[0] == 0 else -WIN) + d
        won = list(won)
        won[w] += 1
        hw = hands[w]
        if R.has_tute(hw) and R.tute_allowed(r, won[w]):
            return WIN if w == self.me else -WIN
        suits = R.cante_suits(r, hw, sung, trump, 0)
        if suits:
            s = trump if trump in suits else suits[0]
            sung |= BIT[s * 10 + 8]
            gain += R.cante_points(s, trump)
        d = diff + gain if w == self.me else diff - gain
        return self.lead(hands, w, d, sung, won, left, alpha, beta)

