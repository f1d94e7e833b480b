"""Fit and judge ``bots/strict_estimate.py``: the static estimate of a two-player endgame at the pile's end.

    python benchmarks/strict_estimate.py [--games 300] [--test-games 100] [--seed 0] [--workers 2]

In games of `greedy` (tute-2, deck and dealer from the seed and the game number), at half of the pile
decisions further back than the exact leaves (more than ``solve_pile``, 6, cards left in the pile), three
worlds are dealt from the view and every legal card is played out by the policy to where the pile runs
out, as ``search`` does; each such frontier is solved exactly (the win, then the margin). The win's
logistic model and the final margin's linear model are fitted (least squares, Newton's method; pure
Python) on the first ``--games`` games and printed as the coefficients to keep in the module; on the
other ``--test-games`` they are judged against what they replace, one policy playout of the same
frontier (the same random draws up to it): squared error of the win, of the margin per 130 and of the
playout's value (win + 0.25 margin / 130), and microseconds per frontier.

Why: the estimate is a model of perfect play fitted to solutions, so its coefficients are data, and
this is how to make them again (another rule set, other features) and see what they are worth before
any game is played.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# its sibling benchmarks, also when a test loads it, after the root
sys.path.append(str(Path(__file__).resolve().parent))

from arena import PlayerView, derive_seed, get_variant, play_game, shuffled_deck  # noqa: E402
from arena.actions import CODE  # noqa: E402

from bots.endgame import WIN, Endgame  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from bots.playout import Frontier, Position, playout  # noqa: E402
from bots.search import SearchBot  # noqa: E402
from bots.strict_estimate import MARGIN_COEF, WIN_COEF, estimate, features, strict_sung  # noqa: E402

from work_cost import solve  # noqa: E402  (Gaussian elimination, as work_cost fits its costs)

VARIANT = "tute-2"
#: ``search`` at its defaults: which decisions it estimates (``leaf_kind``) and its ``margin_weight``
SEARCH = SearchBot()
MW = SEARCH.margin_weight
#: one frontier: features, exact win (1, 0.5, 0), exact final margin, the policy playout's win and margin,
#: and the frontier itself (mine, other, trump, diff, leading, sung) to time the estimate on
Row = tuple[list[float], float, float, float, float, tuple[int, int, int, int, bool, int]]


class Recorder(GreedyBot):
    """`greedy`, keeping the views of the decisions ``search`` would estimate."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[PlayerView] = []

    def choose(self, view: PlayerView) -> str:
        if any(a.startswith("play") for a in view.legal) and SEARCH.leaf_kind(view) == "estimate":
            self.views.append(view)
        return super().choose(view)


def frontiers(args: tuple[int, int]) -> list[Row]:
    """The frontiers of one game, each solved exactly and played out once by the policy."""
    seed, game = args
    v = get_variant(VARIANT)
    r = v.rules
    bots = [Recorder() for _ in range(v.players)]
    play_game(v, shuffled_deck(v, derive_seed(seed, "strict_estimate", game)), game % v.players, bots,
              seed=derive_seed(seed, "strict_estimate/game", game))
    rng = random.Random(derive_seed(seed, "strict_estimate/worlds", game))
    out: list[Row] = []
    for bot in bots:
        for view in bot.views:
            if rng.random() < 0.5:
                continue
            me = view.seat
            pos = Position(view)
            plays = [CODE[a] for a in view.legal if a.startswith("play")]
            solver = Endgame(r, view.trump, me, 10 ** 8)
            for _ in range(3):
                hands, pile = view.knowledge.deal_unseen(rng)
                for c in plays:
                    draws = rng.random()
                    f = playout(r, pos, list(hands), pile, c, random.Random(draws).random, 0.1, None, True)
                    if not isinstance(f, Frontier):
                        continue  # a Tute before the pile ran out: nothing to estimate
                    o = playout(r, pos, list(hands), pile, c, random.Random(draws).random, 0.1)
                    diff = f.points[me] - f.points[1 - me]
                    val = solver.solve(f.hands, f.leader, diff, f.sung, f.won, f.left, -10 * WIN, 10 * WIN)
                    won, margin = (1.0, val - WIN) if val > WIN // 2 else \
                        (0.0, val + WIN) if val < -WIN // 2 else (0.5, val)
                    mine, other = f.hands[me], f.hands[1 - me]
                    leading = f.leader == me
                    sung = strict_sung(r, f.sung)
                    x = features(mine, other, view.trump, diff, leading, sung)
                    out.append((x, won, margin / 130, o.value(r, me, 0.0), o.margin(r, me) / 130,
                                (mine, other, view.trump, diff, leading, sung)))
    return out


def weighted_normal(xs: list[list[float]], w: list[float], y: list[float], ridge: float) -> list[float]:
    """Solve (X' W X + ridge I) beta = X' W y."""
    n = len(xs[0])
    a = [[ridge if i == j else 0.0 for j in range(n)] for i in range(n)]
    b = [0.0] * n
    for x, wi, yi in zip(xs, w, y):
        for i in range(n):
            xi = x[i] * wi
            b[i] += xi * yi
            row = a[i]
            for j in range(i, n):
                row[j] += xi * x[j]
    for i in range(n):
        for j in range(i):
            a[i][j] = a[j][i]
    return solve(a, b)


def fit_linear(xs: list[list[float]], y: list[float]) -> list[float]:
    return weighted_normal(xs, [1.0] * len(xs), y, 0.0)


def fit_logistic(xs: list[list[float]], y: list[float], ridge: float = 1e-3, rounds: int = 25) -> list[float]:
    """Newton's method (iteratively reweighted least squares) for the win's chance; ``y`` may be 0.5."""
    beta = [0.0] * len(xs[0])
    for _ in range(rounds):
        w, z = [], []
        for x, yi in zip(xs, y):
            eta = sum(a * b for a, b in zip(beta, x))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, eta))))
            wi = max(p * (1 - p), 1e-6)
            w.append(wi)
            z.append(eta + (yi - p) / wi)
        new = weighted_normal(xs, w, z, ridge)
        done = max(abs(a - b) for a, b in zip(new, beta)) < 1e-6
        beta = new
        if done:
            break
    return beta


def mse(a: list[float], b: list[float]) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300, help="games of `greedy` to fit on")
    ap.add_argument("--test-games", type=int, default=100, help="other games to judge on")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    started = time.perf_counter()
    games = [(a.seed, g) for g in range(a.games + a.test_games)]
    with Pool(a.workers) as pool:
        per_game = pool.map(frontiers, games, chunksize=4)
    train = [row for rows in per_game[:a.games] for row in rows]
    test = [row for rows in per_game[a.games:] for row in rows]
    print(f"{VARIANT}: {len(train)} frontiers of {a.games} games to fit, {len(test)} of {a.test_games} to judge "
          f"({time.perf_counter() - started:.0f} s to deal and solve)")
    xs = [r[0] for r in train]
    win = fit_logistic(xs, [r[1] for r in train])
    margin = fit_linear(xs, [r[2] for r in train])
    fmt = ", ".join
    print("WIN_COEF: tuple[float, ...] = (" + fmt(f"{c:.4f}" for c in win) + ")")
    print("MARGIN_COEF: tuple[float, ...] = (" + fmt(f"{c:.4f}" for c in margin) + ")")
    for label, (wc, mc) in (("fitted now", (win, margin)), ("in the module", (WIN_COEF, MARGIN_COEF))):
        est_win = [1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, sum(p * q for p, q in zip(wc, r[0])))))) for r in test]
        est_margin = [sum(p * q for p, q in zip(mc, r[0])) for r in test]
        exact_value = [r[1] + MW * r[2] for r in test]
        print(f"  held out, {label}: squared error of the win {mse(est_win, [r[1] for r in test]):.4f}, "
              f"of the margin {mse(est_margin, [r[2] for r in test]):.4f}, of the value "
              f"{mse([w + MW * m for w, m in zip(est_win, est_margin)], exact_value):.4f}")
    won = [r[1] for r in test]
    print(f"  held out, one policy playout: squared error of the win {mse([r[3] for r in test], won):.4f}, "
          f"of the margin {mse([r[4] for r in test], [r[2] for r in test]):.4f}, of the value "
          f"{mse([r[3] + MW * r[4] for r in test], [r[1] + MW * r[2] for r in test]):.4f}")
    frames = [r[5] for r in test]
    start = time.perf_counter()
    for f in frames:
        estimate(*f, MW)
    print(f"  {1e6 * (time.perf_counter() - start) / len(frames):.1f} us an estimate")


if __name__ == "__main__":
    main()
