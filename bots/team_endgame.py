"""The endgame solver of ``search`` for a deal of two sides and more seats (``tute-4-pairs``): every card
known in a world, alpha-beta over the tricks still to play, the seats of a side maximising together.

Why a second solver: the two-player one (``bots/endgame.py``) is the leaves' hot path and is written for
exactly two hands. Here a trick has four cards, a trick winner's partner may sing first, and the side,
not the seat, wins. Both solvers share the rules kernel (``arena.rules``: duties, trick winner, cantes,
Tute, the last-trick ten, the ranking of the end) and the bound on how far a margin can still move
(``endgame.swing``). The declarations after a trick follow the referee's window as the playouts do
(``bots/playout.py``: the partner first, then the winner; a Tute at once; one cante per side and window
with ``cantes_scope_team``), every seat declaring whenever it can, as every bot here does.

``search`` runs it in the last tricks of a deal with no draw pile: in each sampled world the card to play
is judged by the win of the rest played perfectly, not by the policy's playout, whose late play a
searching opponent punishes. ``tests/test_team_endgame.py`` holds it to a plain minimax over the referee.
"""

from __future__ import annotations

from typing import Sequence

from arena import rules as R
from arena.cards import BIT, HIGHER, POINTS, SUIT
from arena.rules import BEATS, ELEVENS, KINGS, KNIGHTS, Rules

from .endgame import WIN, Abort, Solver, swing


class TeamEndgame(Solver):
    """Alpha-beta over the rest of a deal of two sides; values are from ``me``'s side: ``WIN`` + margin,
    ``-WIN`` + margin for a loss, the margin alone for a draw. One instance serves every world of a
    decision: its cache holds positions (all hands), each with the bounds it was proved in; ``budget``
    bounds the nodes of each ``solve``, ``spent`` counts those of all of them (``bots/budget.py``)."""

    def __init__(self, r: Rules, trump: int, me: int, nxt: Sequence[int], budget: int) -> None:
        super().__init__(r, trump, budget)
        self.mine = r.team[me]
        self.team = r.team
        self.partner = r.partner
        self.nxt = tuple(nxt)
        self.seats = r.active

    def solve(self, hands: list[int], cur: int, trick: Sequence[int], leader: int, diff: int, sung: int,
              won: Sequence[int], left: int, alpha: int, beta: int, card: int = -1) -> int:
        """The value with ``cur`` to play to ``trick`` (the cards so far, led by ``leader``; empty: ``cur``
        leads), ``left`` tricks to finish counting this one; ``diff`` = ``me``'s side's points minus the
        other's; ``won`` the tricks each seat has won. With ``card``, the value of ``cur`` playing it (a
        legal card of its hand). A fresh node budget."""
        self.nodes = 0
        led = best_led = top = win = -1
        stake = 0
        if trick:
            seats = [leader]
            for _ in range(len(trick) - 1):
                seats.append(self.nxt[seats[-1]])
            led, best_led, top, win = R.trick_state(trick, seats, self.trump)
            stake = R.trick_points(trick)
        try:
            if card >= 0:
                return self._play(list(hands), cur, len(trick), led, best_led, top, win, stake, diff, sung,
                                  list(won), left, alpha, beta, card)
            return self._node(list(hands), cur, len(trick), led, best_led, top, win, stake, diff, sung,
                              list(won), left, alpha, beta)
        finally:
            self.spent += self.nodes

    def moves(self, hand: int, cur: int, led: int, best_led: int, top: int, win: int) -> int:
        """The cards ``cur`` may play to a trick led in ``led`` (its best card of that suit ``best_led``, its
        best card ``top``, played by ``win``): the strict duties, a partner's trick exempting where the
        rules say."""
        return R.playable(R.STRICT, hand, led, best_led, top, self.trump, win == self.partner[cur], self.r)

    def _bound(self, hands: list[int], sung: int) -> int:
        """How far the margin can still move (``endgame.swing``); -1 while a hand holds a Tute."""
        every = open_pairs = 0
        for h in hands:
            if self.tute_on and (h & KINGS == KINGS or h & KNIGHTS == KNIGHTS):
                return -1
            every |= h
            open_pairs |= h & h >> 1
        return swing(every, open_pairs & ELEVENS & ~sung, self.bonus, self.trump_eleven)

    def _node(self, hands: list[int], cur: int, played: int, led: int, best_led: int, top: int, win: int,
              stake: int, diff: int, sung: int, won: list[int], left: int, alpha: int, beta: int) -> int:
        """``cur`` plays the trick's card number ``played`` (0: it leads)."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise Abort
        key: tuple[int, ...] | None = None
        if played == 0:
            room = self._bound(hands, sung)
            if room >= 0:  # the margin ends in [diff - room, diff + room]: decided if that holds no 0
                if diff > room and WIN + diff - room >= beta:
                    return WIN + diff - room
                if diff < -room and -WIN + diff + room <= alpha:
                    return -WIN + diff + room
            key = (*hands, cur, diff, sung)
            if self.first_only:
                key += tuple(min(sum(won[s] for s in t), 1) for t in self.r.teams)
            hit = self.tt.get(key)
            if hit is not None:
                lo, hi = hit
                if lo == hi or lo >= beta or hi <= alpha:
                    return lo if lo >= beta or lo == hi else hi
                alpha, beta = max(alpha, lo), min(beta, hi)
            order = self._ordered(hands[cur])
        else:
            order = self._answers(self.moves(hands[cur], cur, led, best_led, top, win))
        a0, b0 = alpha, beta
        maxing = self.team[cur] == self.mine
        best = -10 * WIN if maxing else 10 * WIN
        for c in order:
            val = self._play(hands, cur, played, led, best_led, top, win, stake, diff, sung, won, left, alpha,
                             beta, c)
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
        if key is not None:
            self._store(key, best, a0, b0)
        return best

    def _play(self, hands: list[int], cur: int, played: int, led: int, best_led: int, top: int, win: int,
              stake: int, diff: int, sung: int, won: list[int], left: int, alpha: int, beta: int, c: int) -> int:
        """``cur`` plays ``c``: the trick goes on, or ends."""
        h = list(hands)
        h[cur] = hands[cur] & ~BIT[c]
        if played == 0:
            led, best_led, top, win = SUIT[c], c, c, cur
        else:
            if BIT[c] & HIGHER[best_led]:
                best_led = c
            if BIT[c] & BEATS[self.trump][top]:
                top, win = c, cur
        if played + 1 == self.seats:
            return self._end_trick(h, win, stake + POINTS[c], diff, sung, won, left, alpha, beta)
        return self._node(h, self.nxt[cur], played + 1, led, best_led, top, win, stake + POINTS[c], diff, sung,
                          won, left, alpha, beta)

    def _end_trick(self, hands: list[int], w: int, gain: int, diff: int, sung: int, won: list[int], left: int,
                   alpha: int, beta: int) -> int:
        """Score the trick won by ``w``, then its window (the partner first, then ``w``), then go on."""
        r = self.r
        ours = self.team[w] == self.mine
        left -= 1
        if left == 0:
            d = diff + (gain + r.last_trick_bonus if ours else -gain - r.last_trick_bonus)
            ranks = R.points_ranks(r, (d, 0), 0 if ours else 1)  # sides: me's (margin d), the other
            if ranks[0] == ranks[1]:  # a draw (``tie = draw``)
                return d
            return (WIN if ranks[0] == 0 else -WIN) + d
        won = list(won)
        won[w] += 1
        d = diff + gain if ours else diff - gain
        sang = False
        for seat in (self.partner[w], w):
            if seat < 0:
                continue
            h = hands[seat]
            if self.tute_on and R.has_tute(h) and R.tute_allowed(r, sum(won[s] for s in r.teams[self.team[seat]])):
                return WIN if self.team[seat] == self.mine else -WIN
            if r.cantes and not (r.cantes_scope_team and sang) and h & h >> 1 & ELEVENS:
                suits = R.cante_suits(r, h, sung, self.trump, 0)
                if suits:
                    s = self.trump if self.trump in suits else suits[0]
                    sung |= BIT[s * 10 + 8]
                    sang = True
                    pts = R.cante_points(s, self.trump)
                    d = d + pts if self.team[seat] == self.mine else d - pts
        return self._node(hands, w, 0, -1, -1, -1, -1, 0, d, sung, won, left, alpha, beta)
