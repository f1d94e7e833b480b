"""A static estimate of a two-player strict phase, for the pile decisions before the exact leaves.

Where the pile runs out in a two-player world every card is known, and the rest of the deal is a
perfect-information endgame. ``search`` solves it exactly in the last pile tricks (``solve_pile``); from
further back there are too many distinct endgames to solve, and a playout used to finish them by the
policy: about 40% of a playout's time, and a poor judge of an endgame both searching sides then play
perfectly (its value's squared error against the solver's is 0.079 where this estimate's is 0.044,
over 20,926 frontiers of held-out `greedy` games of tute-2; docs/search.md).

So the playouts of those decisions stop where the pile runs out (``playout.Frontier``) and the endgame is
estimated from a dozen features of the two hands (below): the chance of a win by a logistic model, the
final margin by a linear one, both fitted to exact solutions of frontiers of tute-2 by
``benchmarks/strict_estimate.py``, which prints the coefficients kept here. The features read only the
frontier, on bitmasks, so an estimate costs a fraction of the strict phase it replaces.

The features, each the seat's minus the other's unless said (points per 130, a deal's points and the
last-trick ten):
    bias; the margin so far; the points in hand; the trumps held; the trump points held; the cards no
    card of the other hand beats in their suit ("masters", trumps included); the master trumps; +1
    leading the first strict trick, -1 not; the cantes still to sing (20 a pair, 40 the trumps'); the
    points the hand can ruff (the other hand's points in each side suit this one lacks while holding a
    trump); the trump count difference times its size; its sign.
"""

from __future__ import annotations

import math
from typing import Sequence

from arena.cards import STRENGTH
from arena.rules import ELEVENS, cante_points

from .endgame import SLICE_POINTS

#: one suit's 10-bit slice of a mask with its cards renumbered by strength (bit k: the card of strength
#: k + 1), so that "the cards above the other hand's best" is a shift
_BY_STRENGTH: tuple[int, ...] = tuple(
    sum(1 << (STRENGTH[i] - 1) for i in range(10) if m >> i & 1) for m in range(1024))

#: ``benchmarks/strict_estimate.py``'s fit (tute-2, 300 games of `greedy`, 63,534 frontiers): the win's logistic model
WIN_COEF: tuple[float, ...] = (
    0.0111, 23.7272, 7.9018, 3.3547, 24.8297, 1.5386, -1.2682, 0.6544, 16.4895, 30.5094, -0.2331, -0.6268)
#: and the final margin's linear model (per 130 points)
MARGIN_COEF: tuple[float, ...] = (
    0.0004, 0.9885, 0.3532, 0.1083, 1.0609, 0.0600, -0.0593, 0.0183, 0.7432, 1.2554, -0.0063, 0.0001)


def features(mine: int, other: int, trump: int, diff: int, leading: bool, sung: int) -> list[float]:
    """The estimate's features of a frontier (module docstring), from the side of the hand ``mine``:
    ``diff`` its points so far minus the other's, ``sung`` the cantes made (their 11s' bits)."""
    t = SLICE_POINTS
    s = _BY_STRENGTH
    th = mine >> 10 * trump & 1023
    to = other >> 10 * trump & 1023
    open_mine = mine & mine >> 1 & ELEVENS & ~sung  # the 11 of each pair still to sing
    open_other = other & other >> 1 & ELEVENS & ~sung
    points = masters = master_trumps = ruffs = cantes = 0
    for suit in range(4):
        h = mine >> 10 * suit & 1023
        o = other >> 10 * suit & 1023
        points += t[h] - t[o]
        hs, os = s[h], s[o]
        m = (hs >> os.bit_length()).bit_count() - (os >> hs.bit_length()).bit_count()
        masters += m
        if suit == trump:
            master_trumps = m
        else:
            if not h and th:
                ruffs += t[o]
            if not o and to:
                ruffs -= t[h]
        eleven = 1 << (suit * 10 + 8)
        if open_mine & eleven:
            cantes += cante_points(suit, trump)
        elif open_other & eleven:
            cantes -= cante_points(suit, trump)
    trumps = th.bit_count() - to.bit_count()
    return [1.0, diff / 130, points / 130, float(trumps), (t[th] - t[to]) / 130, float(masters),
            float(master_trumps), 1.0 if leading else -1.0, cantes / 130, ruffs / 130,
            float(trumps * abs(trumps)), float((trumps > 0) - (trumps < 0))]


def estimate(mine: int, other: int, trump: int, diff: int, leading: bool, sung: int,
             margin_weight: float, win: Sequence[float] = WIN_COEF, margin: Sequence[float] = MARGIN_COEF) -> float:
    """A frontier's value as a playout's: the estimated chance of a win plus ``margin_weight`` times the
    estimated final margin per 130."""
    x = features(mine, other, trump, diff, leading, sung)
    z = 0.0
    y = 0.0
    for xi, a, b in zip(x, win, margin):
        z += a * xi
        y += b * xi
    if z < -30.0:
        return margin_weight * y
    return 1.0 / (1.0 + math.exp(-z)) + margin_weight * y
