"""What ``search``'s counted work costs on this machine: the microseconds of each kind of work
(``bots/budget.py``'s ``COST``), fitted on real decisions, and how well the count tracks the clock.

    python benchmarks/work_cost.py [--deals 4] [--variant tute-2 --variant cabrero-6 ...]

``search`` stops a decision on work counted at the reference machine's costs, so that it replays
identically anywhere; the count is worth that only if it follows the time. This plays ``search``
(unbounded work and clock, a fixed world budget) against ``greedy``, records each searched decision's
time and its tally of work, fits the cost of each kind by least squares (the bitmask kinds on the
bitmask variants, the referee kinds on the others), and prints the fit, ``COST`` and, per variant,
the counted work over the measured time (1.0: the count is this machine's clock). Run it on a new
reference machine to set ``COST``; on another machine the ratios say how far its clock is from the
count (a slower machine shows less than 1: a decision there takes longer than its ``work_ms``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import Player, derive_seed, get_variant, play_game, shuffled_deck  # noqa: E402
from arena.view import PlayerView  # noqa: E402

from bots.budget import COST, Cost, Work, cost_us  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from bots.playout import supports  # noqa: E402
from bots.search import SearchBot  # noqa: E402

BITMASK = (0, 1, 2)  # deal, card, node
REFEREE = (3, 4)  # state, referee_card
DEFAULT_VARIANTS = ("tute-2", "tute-4", "tute-3", "cabrero-6", "subastado", "cabron")


class Recording(SearchBot):
    """``search`` that keeps each searched decision's time and tally of work."""

    def __init__(self, **params: object) -> None:
        super().__init__(**params)  # type: ignore[arg-type]
        self.samples: list[tuple[float, list[int]]] = []
        self._work: Work | None = None

    def _budget(self, start: float) -> Work:
        self._work = super()._budget(start)
        return self._work

    def choose(self, view: PlayerView) -> str:
        self._work = None
        t = time.perf_counter()
        out = super().choose(view)
        us = (time.perf_counter() - t) * 1e6
        if self._work is not None and any(self._work.tally):
            self.samples.append((us, list(self._work.tally)))
        return out


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-12:
            raise ValueError("the data do not vary enough to fit every unknown: more deals, games or variants")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(samples: list[tuple[float, list[int]]], kinds: tuple[int, ...]) -> list[float]:
    """Least squares, no intercept: microseconds per unit of each of ``kinds``."""
    a = [[float(sum(t[i] * t[j] for _, t in samples)) for j in kinds] for i in kinds]
    b = [sum(us * t[i] for us, t in samples) for i in kinds]
    return solve(a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--variant", action="append", help="default: " + ", ".join(DEFAULT_VARIANTS))
    ap.add_argument("--worlds", type=int, default=96)
    args = ap.parse_args()
    names = args.variant or list(DEFAULT_VARIANTS)
    per_variant: dict[str, list[tuple[float, list[int]]]] = {}
    for name in names:
        v = get_variant(name)
        samples: list[tuple[float, list[int]]] = []
        for d in range(args.deals):
            deck = shuffled_deck(v, derive_seed("work-cost", name, d))
            seat = 1 + d % (v.players - 1)  # never the dealer (0), who sits out in cabrero-5 and cabrero-6
            bot = Recording(worlds=args.worlds, work_ms=1e12, max_ms=1e12)
            players: list[Player] = [GreedyBot() for _ in range(v.players)]
            players[seat] = bot
            play_game(v, deck, 0, players, seed=d)
            samples += bot.samples
        per_variant[name] = samples
        print(f"{name}: {len(samples)} decisions, {sum(us for us, _ in samples) / 1000:.0f} ms", flush=True)
    bitmask = [s for n, ss in per_variant.items() if supports(get_variant(n)) for s in ss]
    referee = [s for n, ss in per_variant.items() if not supports(get_variant(n)) for s in ss]
    fitted = list(COST)
    for kinds, samples in ((BITMASK, bitmask), (REFEREE, referee)):
        if samples:
            for k, us in zip(kinds, fit(samples, kinds)):
                fitted[k] = us
    print()
    print("kind           COST (reference)   fitted here")
    for k, field in enumerate(Cost._fields):
        print(f"{field:<14} {COST[k]:>16.3f}   {fitted[k]:>11.3f}")
    print()
    print("counted work / measured time per decision (COST as it is): median, 10th and 90th percentile")
    for name, samples in per_variant.items():
        ratios = sorted(cost_us(t) / us for us, t in samples)
        if ratios:
            q = len(ratios) - 1
            print(f"{name:<14} {statistics.median(ratios):.2f}  [{ratios[q // 10]:.2f}, {ratios[9 * q // 10]:.2f}]")


if __name__ == "__main__":
    main()
