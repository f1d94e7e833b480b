"""Subastado's auction by simulation: what would this hand make as the declarer, in each trump suit?

``estimate`` deals the unseen cards ``worlds`` times consistently with the view (the auction so far is
public but proves nothing about a hand: a seat may pass a good hand or push a poor one), and in each
world, for each suit, wins the auction for the viewer, names that suit and plays the deal out by the
playout policy (``bots/referee_playout.py``) for every seat. It returns, per suit, the declaring side's
points in each world (the same worlds for every suit, so the suits are compared on the same cards).

``limit`` turns them into a bid: the highest bid on the variant's grid that the side made in at least
``confidence`` of the worlds (a Tute made by the side counts as made at any level, one by the other
side as failed). ``SearchBot`` bids the lowest legal raise while it is within that limit, passes
otherwise, and names the suit most likely to make the contract.
"""

from __future__ import annotations

from typing import Callable

from arena import PlayerView
from arena import actions as A
from arena.state import AUCTION, NAME_TRUMP, GameState

from .budget import Work, cards_left
from .referee_playout import finish

#: points standing for "made whatever the bid" (a Tute by the side) and "failed whatever the bid"
MADE_ALL, FAILED_ALL = 10_000, -1


def side_result(st: GameState, seat: int) -> int:
    """The declaring side's points in a finished deal, a Tute counted as made or failed at any level."""
    res = st.result_
    assert res is not None
    r = st.rules
    side = r.teams[r.team[seat]]
    if res.reason == "tute":
        return MADE_ALL if res.ranks[seat] == 0 else FAILED_ALL
    return sum(res.points[s] for s in side)


def win_auction(st: GameState, seat: int) -> None:
    """Move a world in the auction to ``seat`` being the declarer: it bids the lowest raise each time it
    is asked, everyone else passes. Leaves the state at the naming of trump (or over, if it cannot)."""
    while st.phase == AUCTION:
        if st.current == seat:
            legal = st.legal_actions()
            bid = next((a for a in legal if a != A.PASS), None)
            st.push(A.CODE[bid] if bid is not None else A.PASS_CODE)
        else:
            st.push(A.PASS_CODE)


def estimate(view: PlayerView, world: Callable[[PlayerView], GameState], rand: Callable[[], float], worlds: int,
             eps: float, budget: Work | None = None, stop: Callable[[Work], bool] = Work.over) -> list[list[int]]:
    """Per suit, the declaring side's points in each of ``worlds`` worlds (``world(view)`` deals one: a
    sample, or for the oracle the real deal; see the module docstring). With a ``budget``, each world's
    work is added to it and the estimate stops early, after at least one world, when ``stop(budget)``
    says so (the budget's own ``over`` unless the caller counts its stops)."""
    seat = view.seat
    out: list[list[int]] = [[], [], [], []]
    cards = 4 * cards_left(view)  # a world's playouts, one a suit, at most
    for k in range(1, worlds + 1):
        world_state = world(view)
        win_auction(world_state, seat)
        if world_state.phase != NAME_TRUMP or world_state.current != seat:
            continue  # cannot happen when the viewer may still bid; be safe
        for suit in range(4):
            st = world_state.copy()
            st.push(A.TRUMP0 + suit)
            out[suit].append(side_result(finish(st, rand, eps), seat))
        if budget is not None:
            budget.add(states=1, referee_cards=cards)
            if k < worlds and stop(budget):
                break
    return out


def made_fraction(points: list[int], level: int) -> float:
    return sum(1 for p in points if p >= level) / len(points) if points else 0.0


def limit(per_suit: list[list[int]], bid_min: int, bid_step: int, bid_max: int, confidence: float) -> int:
    """The highest bid made in at least ``confidence`` of the worlds in some suit, 0 when none is."""
    best = 0
    for points in per_suit:
        level = bid_min
        while level <= bid_max and made_fraction(points, level) >= confidence:
            best = max(best, level)
            level += bid_step
    return best


def best_trump(per_suit: list[list[int]], contract: int) -> int:
    """The suit most likely to make ``contract``, then the one with the most points on average."""
    return max(range(4), key=lambda s: (made_fraction(per_suit[s], contract),
                                        sum(per_suit[s]) / len(per_suit[s]) if per_suit[s] else 0.0))
