"""Search playouts per second (``bots/playout.py`` on the rules kernel), per variant.

    python benchmarks/playouts.py [--variant tute-2 --variant tute-4-pairs] [--positions 300] [--repeat 5]

From ``positions`` positions of random games (a card to play, 4 to 20 actions into the deal), each
playout samples a world from the view (``view.knowledge.deal_unseen``) and plays it out from the last
legal card, as ``search`` does; best of ``repeat`` runs. The figure is what limits search's strength
per millisecond, so a change to the kernel's hot functions shows here first.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import VARIANTS, GameState, shuffled_deck  # noqa: E402
from arena.actions import CODE  # noqa: E402
from bots.playout import Position, playout, supports  # noqa: E402


def positions(name: str, count: int) -> list[GameState]:
    v = VARIANTS[name]
    rng = random.Random(3)
    out = []
    for g in range(count):
        st = GameState.new(v, shuffled_deck(v, g), g % v.players)
        for _ in range(rng.randrange(4, 20)):
            if st.is_over:
                break
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])
        if not st.is_over and st.legal_actions()[0].startswith("play"):
            out.append(st)
    return out


def measure(name: str, count: int, repeat: int, per_position: int = 20) -> float:
    """Microseconds per playout (world sampling included), best of ``repeat``."""
    r = VARIANTS[name].rules
    states = positions(name, count)
    best = float("inf")
    for _ in range(repeat):
        rng = random.Random(1)
        done = 0
        start = time.perf_counter()
        for st in states:
            view = st.view(st.current)
            pos = Position(view)
            first = CODE[view.legal[-1]]
            knowledge = view.knowledge
            for _ in range(per_position):
                hands, pile = knowledge.deal_unseen(rng)
                playout(r, pos, list(hands), pile, first, rng.random, 0.1)
                done += 1
        best = min(best, (time.perf_counter() - start) / done)
    return best * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", action="append", help="variants (default: every one playouts support)")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    names = args.variant or [n for n, v in VARIANTS.items() if supports(v)]
    print(f"{'variant':<14} {'playouts/s':>11} {'us/playout':>11}")
    for name in names:
        us = measure(name, args.positions, args.repeat)
        print(f"{name:<14} {1e6 / us:>11,.0f} {us:>11.1f}")


if __name__ == "__main__":
    main()
