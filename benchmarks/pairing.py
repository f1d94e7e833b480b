"""Swiss pairing speed for big fields: seconds to pair each round of a Swiss event.

    .venv/bin/python benchmarks/pairing.py [--entrants 128] [--rounds 7]

Results are random (seeded); every round is paired from the history of the rounds before, as the
runner does. Target (issue #4): 128 entrants pair in under a second a round at 2-seat tables.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leagues.tournament.pairing import History, pair_round  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entrants", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    names = [f"e{i:03d}" for i in range(args.entrants)]
    for k in (2, 3, 4):
        h = History()
        rng = random.Random(1)
        times = []
        for r in range(1, args.rounds + 1):
            start = time.perf_counter()
            rnd = pair_round(names, k, h, seed=1, round_no=r, rounds_left=args.rounds - r + 1)
            times.append(time.perf_counter() - start)
            for t in rnd.tables:
                h.meet(t)
                shares = [i / (len(t) - 1) for i in range(len(t))]
                rng.shuffle(shares)
                for u, s in zip(t, shares):
                    h.scores[u] = h.scores.get(u, 0.0) + s
            for b in rnd.byes:
                h.byes[b] += 1
                h.scores[b] = h.scores.get(b, 0.0) + 0.5
        print(f"{args.entrants} entrants, {k}-seat tables, {args.rounds} rounds: mean {sum(times) / len(times):.3f} s, "
              f"max {max(times):.3f} s a round")


if __name__ == "__main__":
    main()
