"""How much of a ``search`` decision's quality the number of worlds buys, trick by trick.

    python benchmarks/world_noise.py [--variant tute-2] [--games 60] [--reference 2048] \
        [--counts 64,192,384] [--reps 100] [--workers 2] [--seed 0] [--param worlds=192 ...]

PIMC plays the card with the best mean value over a sample of worlds; with too few worlds the noise of
the sample picks a worse card than the same search would with unlimited worlds. This measures that
loss apart from the game's luck and from PIMC's own errors. In games of ``search`` against itself
(deck and dealer from the seed and the game number), at every other decision searched by the bitmask
playouts, the decision is searched again with ``--reference`` worlds, keeping every world's value of
every card (``SearchBot.world_values``). A decision of N worlds is then drawn from one half of them
(``--reps`` times, and again with the halves swapped) and charged the value lost against the other
half's mean. Printed: the mean regret a decision by the number of tricks played before it, for each
N, with the time the decision took in the games (the search at its defaults, or with ``--param``).
The reference half has noise of its own, the same for every N: compare the columns, not a value
with zero.

Why: telling two world budgets apart by games takes thousands of deals (docs/search.md, "What the
budget buys"); this shows in a quarter of an hour where more worlds would pay, and whether a change
meant to lower the noise does (run it before and after, on the same seed).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import VARIANTS, PlayerView, derive_seed, get_variant, play_game, shuffled_deck  # noqa: E402

from bots.playout import supports  # noqa: E402
from bots.search import SearchBot  # noqa: E402

from search_strength import key_values  # noqa: E402  (KEY=VALUE parameters, read as that benchmark reads them)

#: one decision: tricks played before it, and per world the value of each legal card
Sample = tuple[int, list[list[float]]]


class Probe(SearchBot):
    """``search`` that, at every other PIMC decision, also has the decision searched by ``analyst`` with
    unlimited worlds' budget and keeps the values it saw; and times its own decisions."""

    def __init__(self, game: int, reference: int, params: dict[str, Any]) -> None:
        super().__init__(**params)
        self.game = game
        fixed = {k: v for k, v in params.items() if k not in ("worlds", "work_ms", "max_ms")}
        self.analyst = SearchBot(**dict(fixed, seed=1, worlds=reference, work_ms=1e12, max_ms=1e12))
        self.samples: list[Sample] = []
        self.times: list[tuple[int, float]] = []

    def new_game(self, info: dict[str, Any]) -> None:
        super().new_game(info)
        self.analyst.new_game(info)

    def _pimc(self, view: PlayerView, plays: list[int], start: float) -> int:
        played = len(view.tricks)
        if (self.game + played) % 2 == 0:
            self.analyst.world_values = []
            self.analyst._pimc(view, plays, self.clock())
            self.samples.append((played, self.analyst.world_values))
            self.analyst.world_values = None
        begin = self.clock()  # the analysis is not this decision's time
        card = super()._pimc(view, plays, begin)
        self.times.append((played, self.clock() - begin))
        return card


def play(args: tuple[str, int, int, int, dict[str, Any]]) -> tuple[list[Sample], list[tuple[int, float]]]:
    """One game of probes: the decisions they sampled and the time of each of their decisions."""
    name, seed, game, reference, params = args
    v = get_variant(name)
    deck = shuffled_deck(v, derive_seed(seed, "world_noise", game))
    probes = [Probe(game, reference, params) for _ in range(v.players)]
    play_game(v, deck, game % v.players, probes, seed=derive_seed(seed, "world_noise/game", game))
    return [s for p in probes for s in p.samples], [t for p in probes for t in p.times]


def regrets(values: list[list[float]], counts: list[int], reps: int, rng: random.Random) -> list[float]:
    """Mean value lost by an N-world decision (each of ``counts``) drawn from one half of the worlds,
    against the other half's mean; both ways round, ``reps`` draws each."""
    order = list(range(len(values)))
    rng.shuffle(order)
    half = len(order) // 2
    cards = range(len(values[0]))
    lost = [0.0] * len(counts)
    for sample, judge in ((order[:half], order[half:]), (order[half:], order[:half])):
        mean = [sum(values[w][i] for w in judge) / len(judge) for i in cards]
        best = max(mean)
        for _ in range(reps):
            rng.shuffle(sample)
            totals = [0.0] * len(values[0])
            n = 0
            for j, most in enumerate(counts):
                while n < most:
                    row = values[sample[n]]
                    for i in cards:
                        totals[i] += row[i]
                    n += 1
                lost[j] += best - mean[max(cards, key=totals.__getitem__)]
    return [x / (2 * reps) for x in lost]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="tute-2", help="a preset the bitmask playouts model")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--reference", type=int, default=2048, help="worlds of the reference search")
    ap.add_argument("--counts", default="64,192,384", help="world counts to charge, comma-separated")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a search parameter, for the games and the reference search (JSON value or text)")
    a = ap.parse_args(argv)
    if a.variant not in VARIANTS or not supports(VARIANTS[a.variant]):
        ap.error(f"--variant: {a.variant!r} is not a preset the bitmask playouts model")
    counts = sorted({int(x) for x in a.counts.split(",")})
    if not counts or counts[0] < 1 or 2 * counts[-1] > a.reference:
        ap.error("--counts: each from 1 to half of --reference")
    params = key_values(a.param)
    jobs = [(a.variant, a.seed, g, a.reference, params) for g in range(a.games)]
    start = time.perf_counter()
    with Pool(a.workers) as pool:
        games = pool.map(play, jobs, chunksize=1)
    rng = random.Random(a.seed)
    by_trick: dict[int, list[list[float]]] = {}
    times: dict[int, list[float]] = {}
    for samples, timed in games:
        for played, values in samples:
            if len(values[0]) > 1:
                by_trick.setdefault(played, []).append(regrets(values, counts, a.reps, rng))
        for played, seconds in timed:
            times.setdefault(played, []).append(seconds)
    print(f"{a.variant}: {a.games} games of search against itself, seed {a.seed}, reference "
          f"{a.reference} worlds, {time.perf_counter() - start:.0f} s")
    print("mean regret a decision (value lost against the reference) for N worlds")
    print(f"{'tricks played':>13} {'decisions':>9} {'ms':>7} " + " ".join(f"{'N=' + str(n):>8}" for n in counts))
    every: list[list[float]] = []
    for played in sorted(by_trick):
        rows = by_trick[played]
        every.extend(rows)
        ms = 1000 * sum(times[played]) / len(times[played])
        print(f"{played:>13} {len(rows):>9} {ms:>7.1f} " + " ".join(f"{_mean(rows, j):>8.4f}" for j in range(len(counts))))
    if every:
        print(f"{'all':>13} {len(every):>9} {'':>7} " + " ".join(f"{_mean(every, j):>8.4f}" for j in range(len(counts))))


def _mean(rows: list[list[float]], j: int) -> float:
    return sum(r[j] for r in rows) / len(rows)


if __name__ == "__main__":
    main()
