"""Pairing and schedule speed for big fields, with the quality of what they make.

    .venv/bin/python benchmarks/pairing.py [--quick] [--module PATH]

- Swiss: seconds per round (mean and worst of 7 rounds, each paired from the random results of the
  rounds before, as the runner does) at 100, 300 and 1,000 entrants, 2, 3 and 4 seats, and the
  repeat meetings it had to make (0 means none).
- Round robin for tables of 3 to 6 when every group is too many (``balanced_rounds``: the rounds in
  which each entrant could meet all others): seconds for the whole schedule at 30, 100 and 300
  entrants, and its balance: the most meetings of one pair, the pairs that never meet, the pairs that
  meet more than once.
``--module`` times another copy of ``leagues/tournament/pairing.py`` (an older one, for a before/after);
``--quick`` leaves out the largest fields. Targets (docs/scaling.md): 1,000 entrants under 1 s a round
at two seats, growing no faster than n log n; 300 entrants at four seats scheduled in under 5 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import random
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def load(path: str | None) -> ModuleType:
    if path is None:
        from leagues.tournament import pairing
        return pairing
    spec = importlib.util.spec_from_file_location("pairing_under_test", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def swiss(p: ModuleType, n: int, k: int, rounds: int = 7) -> tuple[float, float, int]:
    names = [f"e{i:04d}" for i in range(n)]
    h = p.History()
    rng = random.Random(1)
    times, repeats = [], 0
    for r in range(1, rounds + 1):
        start = time.perf_counter()
        rnd = p.pair_round(names, k, h, seed=1, round_no=r, rounds_left=rounds - r + 1)
        times.append(time.perf_counter() - start)
        repeats += sum(h.meetings(a, b) for t in rnd.tables for a, b in itertools.combinations(t, 2))
        for t in rnd.tables:
            h.meet(t)
            shares = [i / (len(t) - 1) for i in range(len(t))]
            rng.shuffle(shares)
            for u, s in zip(t, shares):
                h.scores[u] = h.scores.get(u, 0.0) + s
        for b in rnd.byes:
            h.byes[b] += 1
            h.scores[b] = h.scores.get(b, 0.0) + 0.5
    return sum(times) / len(times), max(times), repeats


def round_robin(p: ModuleType, n: int, k: int) -> tuple[float, int, int, int]:
    names = [f"e{i:04d}" for i in range(n)]
    start = time.perf_counter()
    rounds = p.balanced_rounds(names, k, math.ceil((n - 1) / (k - 1)), 7)
    took = time.perf_counter() - start
    h = p.History()
    for rnd in rounds:
        for t in rnd.tables:
            h.meet(t)
    counts = [h.meetings(a, b) for a, b in itertools.combinations(names, 2)]
    return took, max(counts), sum(1 for c in counts if c == 0), sum(1 for c in counts if c > 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--module", default=None, help="another pairing.py to time")
    args = ap.parse_args()
    p = load(args.module)
    sizes = [100, 300] if args.quick else [100, 300, 1000]
    print("| Swiss, 7 rounds | " + " | ".join(f"{n} entrants" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for k in (2, 3, 4):
        cells = []
        for n in sizes:
            mean, worst, repeats = swiss(p, n, k)
            cells.append(f"{mean:.3f} s a round (worst {worst:.3f}), {repeats} repeats")
        print(f"| {k} seats | " + " | ".join(cells) + " |")
    rr = [30, 100] if args.quick else [30, 100, 300]
    print()
    print("| round robin, balanced rounds | " + " | ".join(f"{n} entrants" for n in rr) + " |")
    print("|---|" + "---|" * len(rr))
    for k in (3, 4, 6):
        cells = []
        for n in rr:
            took, most, never, twice = round_robin(p, n, k)
            pairs = n * (n - 1) // 2
            cells.append(f"{took:.2f} s; pairs: at most {most} meetings, {never / pairs:.0%} never meet, "
                         f"{twice / pairs:.0%} meet twice or more")
        print(f"| {k} seats | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
