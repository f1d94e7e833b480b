"""Pairing and schedule speed for big fields, with the quality of what they make.

    .venv/bin/python benchmarks/pairing.py [--quick] [--module PATH] [--swiss N,N] [--rr N,N]
                                           [--seats K,K] [--rr-seats K,K]

- Swiss: seconds per round (mean and worst of 7 rounds, each paired from the random results of the
  rounds before, as the runner does) at 100, 300 and 1,000 entrants, 2, 3 and 4 seats, and the repeat
  meetings it made (0: none).
- Round robin for tables of 3 to 6 when every group is too many (``balanced_rounds`` over the
  ``ceil((n - 1) / (k - 1))`` rounds in which each entrant could meet all others): seconds for the whole
  schedule at 30, 100 and 300 entrants, 3, 4 and 6 seats, and its balance: the fewest and the most
  meetings of a pair, the pairs that never meet and those that meet more than once, the repeat
  meetings (meetings of a pair beyond its first), and the spread of sit-outs.

``--module`` times another copy of ``leagues/tournament/pairing.py`` (an older one, for a before/after);
``--quick`` leaves out the largest fields; an empty list (``--rr ''``) leaves that part out. Targets
(docs/scaling.md): Swiss 1,000 entrants under 1 s a round at two seats, growing no faster than
``n log n``; round robins of 100 entrants at four seats well under 1 s, 300 under 5 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import random
import sys
import time
from collections import Counter
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
    """Mean and worst seconds a round, and the repeat meetings made, over ``rounds`` rounds."""
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


def round_robin(p: ModuleType, n: int, k: int) -> dict[str, float]:
    """The schedule's time and balance (see the module docstring)."""
    names = [f"e{i:04d}" for i in range(n)]
    start = time.perf_counter()
    rounds = p.balanced_rounds(names, k, math.ceil((n - 1) / (k - 1)), 7)
    took = time.perf_counter() - start
    met: Counter[frozenset[str]] = Counter()
    sat: Counter[str] = Counter()
    for rnd in rounds:
        for t in rnd.tables:
            met.update(frozenset(pair) for pair in itertools.combinations(t, 2))
        sat.update(rnd.byes)
    counts = [met[frozenset(pair)] for pair in itertools.combinations(names, 2)]
    pairs = len(counts)
    return {"seconds": took, "min": min(counts), "max": max(counts),
            "never": sum(1 for c in counts if c == 0) / pairs, "twice": sum(1 for c in counts if c > 1) / pairs,
            "repeats": sum(c - 1 for c in counts if c > 1),
            "sitout_spread": max(sat[x] for x in names) - min(sat[x] for x in names)}


def sizes(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="Swiss at 100 and 300, round robins at 30 and 100")
    ap.add_argument("--module", default=None, help="another pairing.py to time")
    ap.add_argument("--swiss", default="100,300,1000", help="Swiss field sizes")
    ap.add_argument("--seats", default="2,3,4", help="Swiss seats")
    ap.add_argument("--rr", default="30,100,300", help="round-robin field sizes")
    ap.add_argument("--rr-seats", default="3,4,6", help="round-robin seats")
    args = ap.parse_args()
    p = load(args.module)
    print(f"schedule version: {getattr(p, 'SCHEDULE_VERSION', 1)}")
    swiss_sizes = [100, 300] if args.quick else sizes(args.swiss)
    if swiss_sizes:
        print("| Swiss, 7 rounds | " + " | ".join(f"{n} entrants" for n in swiss_sizes) + " |")
        print("|---|" + "---|" * len(swiss_sizes))
        for k in sizes(args.seats):
            cells = []
            for n in swiss_sizes:
                mean, worst, repeats = swiss(p, n, k)
                cells.append(f"{mean:.3f} s a round (worst {worst:.3f}), {repeats} repeats")
            print(f"| {k} seats | " + " | ".join(cells) + " |", flush=True)
    rr_sizes = [30, 100] if args.quick else sizes(args.rr)
    if rr_sizes:
        print()
        print("| round robin, balanced rounds | " + " | ".join(f"{n} entrants" for n in rr_sizes) + " |")
        print("|---|" + "---|" * len(rr_sizes))
        for k in sizes(args.rr_seats):
            cells = []
            for n in rr_sizes:
                q = round_robin(p, n, k)
                cells.append(f"{q['seconds']:.2f} s; meetings {q['min']:.0f}-{q['max']:.0f}, "
                             f"{q['never']:.1%} never, {q['twice']:.1%} twice+, {q['repeats']:.0f} repeats, "
                             f"sit-outs ±{q['sitout_spread']:.0f}")
            print(f"| {k} seats | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
