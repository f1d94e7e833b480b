"""The SPRT's error rates, measured: how often it accepts H1 when there is no difference, how often it
accepts H0 when there is a known one, and how many blocks it needs; and why duplicate blocks beat
independent game pairs.

    python benchmarks/sprt.py [--blocks 3000] [--runs 400] [--seed 1]

Method: real blocks of ``tute-2`` are played once (a block: one deck, A then B in seat 0), and SPRTs are
simulated by drawing blocks at random, with replacement, from them (a bootstrap of the block
distribution; each simulated SPRT is a fresh sequence). The bots are ``Mix(p)``: greedy's move with
probability ``p``, a uniform legal move otherwise; ``Mix(p)`` against itself has no true difference (its
sample is mirrored, each block with B's score and with A's, so that the resampled truth is exactly no
difference), and ``Mix(p)`` against ``Mix(q)`` has the difference the played blocks measure.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import PlayerView, get_variant, play_game, shuffled_deck  # noqa: E402
from arena.match import derive_seed  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from leagues.tournament.sprt import H0, H1, Sprt, estimate, wilson  # noqa: E402


class Mix:
    """Greedy's move with probability ``p``, else a uniform legal one (seeded per game and seat)."""

    def __init__(self, p: float, tag: str) -> None:
        self.p, self.tag = p, tag
        self.greedy = GreedyBot()
        self.rng = random.Random(0)

    def new_game(self, info: dict[str, Any]) -> None:
        self.greedy.new_game(info)
        self.rng = random.Random(f"{self.tag}/{info.get('seed')}/{info.get('seat')}")

    def choose(self, view: PlayerView) -> str:
        move = self.greedy.choose(view)  # always asked, so its memory of the deal stays whole
        return move if self.rng.random() < self.p else view.legal[self.rng.randrange(len(view.legal))]


def play_blocks(pa: float, pb: float, blocks: int, seed: int, duplicate: bool = True) -> list[int]:
    """B's score, in half points (0 to 4), per block of two games: one deck with the seats swapped, or
    (``duplicate`` off) two different decks."""
    v = get_variant("tute-2")
    out = []
    for d in range(blocks):
        score = 0
        for r in range(2):
            deck_seed = derive_seed("sprt-bench", seed, d, r if not duplicate else 0)
            a, b = Mix(pa, "a"), Mix(pb, "b")
            players = [b, a] if r == 0 else [a, b]
            rec = play_game(v, shuffled_deck(v, deck_seed), d % 2, players, seed=deck_seed)
            rb, ra = rec.result.ranks[0 if r == 0 else 1], rec.result.ranks[1 if r == 0 else 0]
            score += 2 if rb < ra else 1 if rb == ra else 0
        out.append(score)
    return out


def simulate(pool: list[int], sprt: Sprt, runs: int, rng: random.Random, cap: int = 20000) -> tuple[dict[str, int], list[int]]:
    """Run ``runs`` SPRTs on blocks drawn from ``pool``; the verdict counts and the stopping blocks."""
    verdicts = {H0: 0, H1: 0, "cap": 0}
    lengths = []
    for _ in range(runs):
        counts = [0] * 5
        for n in range(1, cap + 1):
            counts[rng.choice(pool)] += 1
            if n % 4 and n > 8:  # the LLR every 4 blocks: the verdict is the same, the run 4x cheaper
                continue
            v = sprt.verdict(sprt.llr(counts))
            if v != "inconclusive":
                verdicts[v] += 1
                lengths.append(n)
                break
        else:
            verdicts["cap"] += 1
    return verdicts, lengths


def share(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f}% (95% {100 * lo:.1f}-{100 * hi:.1f}%)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=3000, help="real blocks played per pairing")
    ap.add_argument("--runs", type=int, default=400, help="simulated SPRTs per case")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()

    print("== variance of B's score per pair of games: a duplicate block against two independent games")
    for p in (0.5, 0.9):
        for label, dup in (("duplicate block (one deck, seats swapped)", True), ("two games, two decks", False)):
            pool = play_blocks(p, p, args.blocks // 2, args.seed, duplicate=dup)
            n = len(pool)
            m = sum(pool) / n / 4
            var = sum((x / 4 - m) ** 2 for x in pool) / n
            print(f"  Mix({p}) vs Mix({p}), {label}: mean {m:.4f}, variance {var:.5f} over {n} pairs")

    cases = [("no difference: Mix(0.5) vs Mix(0.5)", 0.5, 0.5, Sprt(0, 10, 0.05, 0.05)),
             ("random level, about 20 Elo: Mix(0.05) vs Mix(0)", 0.0, 0.05, Sprt(0, 20, 0.05, 0.05, "logistic")),
             ("greedy level, about 20 Elo: Mix(1) vs Mix(0.95)", 0.95, 1.0, Sprt(0, 20, 0.05, 0.05, "logistic"))]
    for title, pa, pb, sprt in cases:
        pool = play_blocks(pa, pb, args.blocks, args.seed)
        if pa == pb:  # no difference: the played sample's own luck is mirrored away (A and B exchangeable)
            pool = pool + [4 - x for x in pool]
        counts = [pool.count(k) for k in range(5)]
        e = estimate(counts)
        print(f"== {title}: {len(pool)} real blocks, Ptnml(0-2) {counts}, {e.text()}")
        verdicts, lengths = simulate(pool, sprt, args.runs, rng)
        runs = args.runs
        print(f"  SPRT {sprt.model} [{sprt.elo0:g}, {sprt.elo1:g}] alpha {sprt.alpha} beta {sprt.beta}, {runs} runs: "
              f"H1 {share(verdicts[H1], runs)}, H0 {share(verdicts[H0], runs)}, undecided {verdicts['cap']}")
        if lengths:
            lengths.sort()
            print(f"  blocks to a decision: mean {sum(lengths) / len(lengths):.0f}, median {lengths[len(lengths) // 2]}, "
                  f"90th percentile {lengths[int(0.9 * (len(lengths) - 1))]}")
    # the false-H0 rate where the truth is exactly elo1: the blocks of a pairing whose measured Elo is
    # the H1 bound (beta is defined there), by shifting the SPRT to the measured difference
    pool = play_blocks(0.0, 0.25, args.blocks, args.seed)
    e = estimate([pool.count(k) for k in range(5)])
    sprt = Sprt(e.elo - 20, e.elo, 0.05, 0.05, "logistic")
    verdicts, _ = simulate(pool, sprt, args.runs, rng)
    print(f"== beta at the H1 bound: Mix(0.25) vs Mix(0), SPRT logistic [{sprt.elo0:.1f}, {sprt.elo1:.1f}] "
          f"(elo1 = the measured {e.elo:.1f}): H0 {share(verdicts[H0], args.runs)}")
    sprt = Sprt(e.elo, e.elo + 20, 0.05, 0.05, "logistic")
    verdicts, _ = simulate(pool, sprt, args.runs, rng)
    print(f"== alpha at the H0 bound: the same blocks, SPRT logistic [{sprt.elo0:.1f}, {sprt.elo1:.1f}] "
          f"(elo0 = the measured difference): H1 {share(verdicts[H1], args.runs)}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
