"""What ``search``'s exact leaves cost: milliseconds a decision and a leaf, leaves solved a decision,
at the decisions with a given number of cards left in a two-player pile.

    .venv/bin/python benchmarks/leaf_cost.py [--variant tute-2] [--left 6 --left 2] [--games 60]
        [--baseline git:COMMIT]

Positions: the first decision with a choice at each ``--left`` in ``--games`` games of ``greedy``
against itself (the same positions for every arm). Search decides each with no time budget (so every
decision plays all its worlds and the figures do not depend on the machine's load) and ``solve_pile``
high enough that every one of them has leaves. A leaf counts once, when it is solved (a frontier met
again in the decision is read from the decision's table). With ``--baseline`` the search of that
commit decides the same positions, for a before and after.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))  # its sibling benchmarks, after the repo

from arena import GameState, PlayerView, get_variant, shuffled_deck  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from bots.search import SearchBot  # noqa: E402
from search_strength import commit_search  # noqa: E402


def positions(variant: str, left: int, games: int) -> list[PlayerView]:
    """The first view with a choice of cards and ``left`` cards in the pile, in each game."""
    v = get_variant(variant)
    out = []
    for g in range(games):
        state = GameState.new(v, shuffled_deck(v, g), g % 2)
        bot = GreedyBot()
        while not state.is_over:
            view = state.view(state.current)
            if view.stock_left == left and sum(a.startswith("play") for a in state.legal_actions()) > 1:
                out.append(view)
                break
            state.apply(bot.choose(view))
    return out


def measure(cls: Any, views: list[PlayerView], worlds: int) -> tuple[float, float, float]:
    """(ms a decision, leaves solved a decision, ms a leaf) of ``cls``'s search over ``views``."""
    bot = cls(max_ms=1e9, worlds=worlds, solve_pile=40, leaf_nodes=10**7)
    inner = cls._leaf
    leaves = [0, 0.0]

    def timed(self: Any, *args: Any) -> Any:
        solved = args[-1]
        before = len(solved)
        t = time.perf_counter()
        value = inner(self, *args)
        if len(solved) > before:
            leaves[0] += 1
            leaves[1] += time.perf_counter() - t
        return value

    cls._leaf = timed
    try:
        t = time.perf_counter()
        for view in views:
            bot.choose(view)
        total = time.perf_counter() - t
    finally:
        cls._leaf = inner
    n = max(1, len(views))
    return total * 1000 / n, leaves[0] / n, leaves[1] * 1000 / max(1, leaves[0])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="tute-2")
    ap.add_argument("--left", type=int, action="append", help="cards left in the pile (repeatable)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=192)
    ap.add_argument("--baseline", metavar="git:COMMIT")
    a = ap.parse_args(argv)
    arms: list[tuple[str, Any]] = [("today", SearchBot)]
    if a.baseline:
        arms.insert(0, (a.baseline, commit_search(a.baseline.removeprefix("git:"))))
    for left in a.left or [6, 2]:
        views = positions(a.variant, left, a.games)
        for name, cls in arms:
            per_decision, solved, per_leaf = measure(cls, views, a.worlds)
            print(f"{a.variant} {left} cards left, {len(views)} decisions, {name}: {per_decision:.0f} ms a "
                  f"decision, {solved:.0f} leaves solved a decision, {per_leaf:.3f} ms a leaf", flush=True)


if __name__ == "__main__":
    main()
