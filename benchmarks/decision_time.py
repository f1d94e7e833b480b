"""Decision time of the built-in bots, in process: microseconds (random, greedy) or milliseconds
(search) per decision, from positions of real games of each variant.

    .venv/bin/python benchmarks/decision_time.py [--games 40] [--search-games 2]

Every decision of seat 0 is timed (the bot plays against ``random``); forced moves are skipped, as
``play_game`` skips them. Targets: greedy well under 200 us a decision; search within the default move
limit (1000 ms) with room to spare.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import VARIANTS, GameState, shuffled_deck  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from bots.random_bot import RandomBot  # noqa: E402
from bots.search import SearchBot  # noqa: E402


def timed(variant: str, make: Any, games: int) -> tuple[float, float, int]:
    """(mean, max) seconds per decision of seat 0 and the number of decisions."""
    v = VARIANTS[variant]
    times: list[float] = []
    for g in range(games):
        bots = [make()] + [RandomBot(s) for s in range(1, v.players)]
        state = GameState.new(v, shuffled_deck(v, g), g % v.players)
        for s, b in enumerate(bots):
            b.new_game({"seed": g, "seat": s, "players": v.players, "variant": variant})
        while not state.is_over:
            seat = state.current
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply(legal[0])
                continue
            view = state.view(seat)
            start = time.perf_counter()
            action = bots[seat].choose(view)
            if seat == 0:
                times.append(time.perf_counter() - start)
            state.apply(action)
    return sum(times) / max(1, len(times)), max(times, default=0.0), len(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--search-games", type=int, default=2)
    args = ap.parse_args()
    print(f"{'variant':<14} {'random us':>10} {'greedy us':>10} {'greedy max':>11} {'search ms':>10} {'search max':>11}")
    for name in VARIANTS:
        r = timed(name, lambda: RandomBot(1), args.games)
        g = timed(name, GreedyBot, args.games)
        s = timed(name, SearchBot, args.search_games)
        print(f"{name:<14} {cell(r, 0, 1e6, 10, 1)} {cell(g, 0, 1e6, 10, 1)} {cell(g, 1, 1e6, 11, 0)} "
              f"{cell(s, 0, 1e3, 10, 1)} {cell(s, 1, 1e3, 11, 1)}")


def cell(measured: tuple[float, float, int], which: int, scale: float, width: int, digits: int) -> str:
    """A figure of ``timed``'s, or "-" where seat 0 made no decision (it dealt and sat every game out,
    in cabrero-5 and cabrero-6 with one game): nothing was measured, and 0.0 would read as a time."""
    if not measured[2]:
        return "-".rjust(width)
    return f"{measured[which] * scale:{width}.{digits}f}"


if __name__ == "__main__":
    main()
