"""A static estimate of a two-player strict phase, for the pile decisions before the exact leaves.

Where the pile runs out in a two-player world every card is known, and the rest of the deal is a
perfect-information endgame. ``search`` solves it exactly in the last pile tricks (``solve_pile``); from
further back there are too many distinct endgames to solve, and a playout used to finish them by the
policy: about 40% of a playout's time, and a poor judge of an endgame both searching sides then play
perfectly (its value's squared error against the solver's is 0.079 where this estimate's is 0.036,
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
    points in masters; the points exposed in the side suits (those of the cards below the other hand's
    best of their suit, and all of a suit the other hand lacks while holding a trump, which it can
    ruff); the trump count difference times the size of the margin so far (in the fit a trump more
    counts for less the further apart the points so far are).
"""

from __future__ import annotations

import math
from typing import Sequence

from arena.cards import NO_SUIT, POINTS, STRENGTH
from arena.rules import ELEVENS, KINGS, Rules, cante_points, cante_suits

from .endgame import SLICE_POINTS

#: one suit's 10-bit slice of a mask with its cards renumbered by strength (bit k: the card of strength
#: k + 1), so that "the cards above the other hand's best" is a shift
_BY_STRENGTH: tuple[int, ...] = tuple(
    sum(1 << (STRENGTH[i] - 1) for i in range(10) if m >> i & 1) for m in range(1024))
#: the points of such a strength-ordered slice
_STRENGTH_POINTS: tuple[int, ...] = tuple(
    sum(POINTS[i] for i in range(10) if m >> (STRENGTH[i] - 1) & 1) for m in range(1024))

#: ``benchmarks/strict_estimate.py``'s fit (tute-2, 300 games of `greedy`, 63,534 frontiers): the win's logistic model
WIN_COEF: tuple[float, ...] = (
    -0.0040, 25.5866, 1.7393, 2.0527, 33.6473, 0.6039, -0.9104, 0.6442, 21.2202, 12.1565, -39.5124, -2.3945)
#: and the final margin's linear model (per 130 points)
MARGIN_COEF: tuple[float, ...] = (
    -0.0005, 1.0184, 0.0117, 0.0511, 1.2522, 0.0207, -0.0435, 0.0174, 0.7999, 0.4980, -1.3716, 0.0035)


def strict_sung(r: Rules, sung: int) -> int:
    """The 11s to count as sung in the strict phase: ``sung``, or every one where the rules allow no
    cante once the pile is gone (``cantes`` off, or ``cantes_after_stock`` off), which the kernel's
    ``cante_suits`` decides: the cantes feature then counts only cantes that can still be made."""
    return sung if cante_suits(r, ELEVENS | KINGS, 0, NO_SUIT, 0) else ELEVENS


def features(mine: int, other: int, trump: int, diff: int, leading: bool, sung: int) -> list[float]:
    """The estimate's features of a frontier (module docstring), from the side of the hand ``mine``:
    ``diff`` its points so far minus the other's, ``sung`` the cantes made (their 11s' bits) as
    ``strict_sung`` gives them."""
    t = SLICE_POINTS
    s = _BY_STRENGTH
    sp = _STRENGTH_POINTS
    th = mine >> 10 * trump & 1023
    to = other >> 10 * trump & 1023
    open_mine = mine & mine >> 1 & ELEVENS & ~sung  # the 11 of each pair still to sing
    open_other = other & other >> 1 & ELEVENS & ~sung
    points = masters = master_trumps = master_points = exposed = cantes = 0
    for suit in range(4):
        h = mine >> 10 * suit & 1023
        o = other >> 10 * suit & 1023
        points += t[h] - t[o]
        hs, os = s[h], s[o]
        hb, ob = hs.bit_length(), os.bit_length()
        hm, om = hs >> ob, os >> hb  # the masters, shifted down to bit 0
        m = hm.bit_count() - om.bit_count()
        masters += m
        master_points += sp[hm << ob] - sp[om << hb]
        if suit == trump:
            master_trumps = m
        else:  # the cards below the other's best, or all of the suit where the other can ruff it
            exposed += (sp[hs & ((1 << ob) - 1)] if o else t[h] if to else 0) \
                - (sp[os & ((1 << hb) - 1)] if h else t[o] if th else 0)
        eleven = 1 << (suit * 10 + 8)
        if open_mine & eleven:
            cantes += cante_points(suit, trump)
        elif open_other & eleven:
            cantes -= cante_points(suit, trump)
    trumps = th.bit_count() - to.bit_count()
    return [1.0, diff / 130, points / 130, float(trumps), (t[th] - t[to]) / 130, float(masters),
            float(master_trumps), 1.0 if leading else -1.0, cantes / 130, master_points / 130, exposed / 130,
            trumps * abs(diff) / 130]


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
