"""Decision quality of ``search`` settings, paired on the same positions: regret against the real deal.

    python benchmarks/search_regret.py --variant tute-4 --games 60 \
        --arm '{"worlds": 64, "inference": 1.0}' --arm '{"worlds": 64}' [--phase pile|strict] [--seed 0]

Positions come from games of ``greedy`` players (deck and dealer from the seed and the game number): at
about half of the card plays with a choice, after the third trick, every arm (a ``SearchBot`` with those
parameters, reseeded the same way for each) chooses a card from the seat's view. The real deal then
scores every legal card: the mean value of 60 playouts from it (the playout policy for every seat,
``epsilon`` 0.1, the value ``search`` maximises). An arm's regret at a position is the best card's
value minus its card's. Arms are compared by the mean paired difference of regret to the first arm,
with its 95% interval.

Why: a game's result carries the luck of every later card, so telling two settings apart by games
against ``greedy`` takes thousands of deals; most positions have the same answer under both settings,
and this counts only the ones that differ, each scored on the cards actually held. It is a proxy (the
real deal is judged by playouts of the policy, so it favours what is good against players like it), so
a setting it prefers is then confirmed by ``search_strength.py --baseline``. Two-player endgames, which
``search`` solves exactly, are skipped.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import VARIANTS, PlayerView, derive_seed, get_variant, shuffled_deck  # noqa: E402
from arena.cards import NAMES  # noqa: E402
from arena.state import PLAY, GameState  # noqa: E402

from bots.greedy import GreedyBot  # noqa: E402
from bots.oracle import play_open  # noqa: E402
from bots.playout import Position, playout, supports  # noqa: E402
from bots.search import SearchBot  # noqa: E402

ROLLOUTS = 60


def regrets(variant: str, games: int, arms: list[dict[str, Any]], seed: int, phase: str | None) -> list[list[float]]:
    """Per arm, its regret at each position (the same positions for every arm)."""
    v = get_variant(variant)
    r = v.rules
    out: list[list[float]] = [[] for _ in arms]
    pick = random.Random(f"regret/{variant}/{seed}")
    for g in range(games):
        game_seed = derive_seed("search-regret", variant, seed, g)

        def judge(st: GameState, view: PlayerView) -> None:
            legal = view.legal
            plays = [c for c in range(40) if "play " + NAMES[c] in legal]
            wanted = phase is None or (view.stock_left > 0) == (phase == "pile")
            endgame = v.players == 2 and view.stock_left == 0
            if not (st.phase == PLAY and len(plays) == len(legal) > 1 and len(view.tricks) >= 3 and not endgame
                    and wanted and pick.random() < 0.5):
                return
            pos = Position(view)
            hands, pile = list(st.hands), list(st.stock[st.stock_pos:])
            rng = random.Random(f"{game_seed}/{len(st.actions)}")
            value = [sum(playout(r, pos, list(hands), pile, c, rng.random, 0.1).value(r, view.seat, 0.25)
                         for _ in range(ROLLOUTS)) / ROLLOUTS for c in plays]
            best = max(value)
            for i, params in enumerate(arms):
                bot = SearchBot(**params)
                bot.new_game({"seed": game_seed, "seat": view.seat})
                chosen = bot.choose(view)
                out[i].append(best - value[plays.index(next(c for c in plays if "play " + NAMES[c] == chosen))])

        play_open(v, shuffled_deck(v, game_seed), g % v.players, [GreedyBot() for _ in range(v.players)],
                  game_id=str(g), seed=game_seed, watch=judge)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="tute-4", choices=[n for n, v in VARIANTS.items() if supports(v)],
                    help="a preset the bitmask playouts model (they judge the real deal)")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--arm", action="append", default=[], metavar="JSON",
                    help="SearchBot parameters of one arm (repeatable; the first is the reference)")
    ap.add_argument("--phase", choices=["pile", "strict"], help="only positions with / without a pile")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    arms = [json.loads(x) for x in a.arm] or [{"inference": 1.0}, {}]
    per_arm = regrets(a.variant, a.games, arms, a.seed, a.phase)
    base = per_arm[0]
    for params, mine in zip(arms, per_arm):
        diff = [x - y for x, y in zip(mine, base)]
        k = len(diff)
        mean = sum(diff) / k if k else 0.0
        sd = math.sqrt(sum((x - mean) ** 2 for x in diff) / (k - 1)) if k > 1 else 0.0
        print(f"{a.variant} {json.dumps(params)}: {k} positions, mean regret {sum(mine) / max(1, k):.4f}, "
              f"against the first arm {mean:+.4f} +- {1.96 * sd / math.sqrt(max(1, k)):.4f}", flush=True)


if __name__ == "__main__":
    main()
