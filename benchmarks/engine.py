"""Referee speed: random against random in one process, per variant.

    python benchmarks/engine.py [--games N] [--peer schnapsen]

Two loops per variant. ``engine``: the bare referee (legal_actions, a random choice, apply), every
decision counted, as a search or a tournament worker drives it. ``play_game``: the same games through
``arena.play_game`` with the ``random`` bot, a fresh PlayerView per decision and a record at the end.
With ``--peer schnapsen`` (if that package is installed) the PyPI Schnapsen engine's random games are
timed in the same run, and the ratio per decision printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import GameState, VARIANTS, play_game, shuffled_deck  # noqa: E402
from bots.random_bot import RandomBot  # noqa: E402


def bare(name: str, games: int) -> tuple[float, int, int]:
    v = VARIANTS[name]
    decks = [shuffled_deck(v, s) for s in range(games)]
    rng = random.Random(1)
    rand = rng.random
    decisions = tricks = 0
    new = GameState.new
    start = time.perf_counter()
    for g in range(games):
        st = new(v, decks[g], g % v.players)
        legal_actions, apply = st.legal_actions, st.apply
        while st.phase != 3:
            legal = legal_actions()
            apply(legal[int(rand() * len(legal))])
        decisions += len(st.actions)
        tricks += len(st.tricks)
    return time.perf_counter() - start, decisions, tricks


def matched(name: str, games: int) -> tuple[float, int, int]:
    v = VARIANTS[name]
    decks = [shuffled_deck(v, s) for s in range(games)]
    players = [RandomBot(seed=s) for s in range(v.players)]
    decisions = tricks = 0
    start = time.perf_counter()
    for g in range(games):
        rec = play_game(v, decks[g], g % v.players, players, seed=g)
        decisions += len(rec.actions)
        tricks += sum(1 for _, a in rec.actions if a.startswith("play")) // v.players
    return time.perf_counter() - start, decisions, tricks


def schnapsen_peer(games: int) -> tuple[float, int] | None:
    try:
        from schnapsen.bots import RandBot  # type: ignore[import-not-found]
        from schnapsen.game import SchnapsenGamePlayEngine  # type: ignore[import-not-found]
    except ImportError:
        return None
    counter = [0]

    class Counted(RandBot):  # type: ignore[misc]
        def get_move(self, perspective, leader_move):  # type: ignore[no-untyped-def]
            counter[0] += 1
            return super().get_move(perspective, leader_move)

    engine = SchnapsenGamePlayEngine()
    a, b = Counted(random.Random(1), "a"), Counted(random.Random(2), "b")
    rng = random.Random(3)
    start = time.perf_counter()
    for _ in range(games):
        engine.play_game(a, b, rng)
    return time.perf_counter() - start, counter[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer", choices=["schnapsen"])
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS))
    args = ap.parse_args()
    print(f"Python {sys.version.split()[0]}, {args.games} games per variant, random vs random\n")
    print(f"{'variant':<20}{'loop':<11}{'games/s':>10}{'tricks/s':>11}{'us/decision':>13}{'decisions/game':>16}")
    per_decision = {}
    for name in args.variants:
        # best of --repeat runs, the two loops interleaved: each sees the machine as the other did
        runs: dict[str, list[tuple[float, int, int]]] = {"engine": [], "play_game": []}
        for _ in range(args.repeat):
            for label, fn in (("engine", bare), ("play_game", matched)):
                runs[label].append(fn(name, args.games))
        for label in ("engine", "play_game"):
            elapsed, decisions, tricks = min(runs[label])
            us = elapsed / decisions * 1e6
            per_decision[(name, label)] = us
            print(f"{name:<20}{label:<11}{args.games / elapsed:>10.0f}{tricks / elapsed:>11.0f}{us:>13.2f}"
                  f"{decisions / args.games:>16.1f}")
        print(f"{'':<20}play_game / engine per decision: "
              f"{per_decision[(name, 'play_game')] / per_decision[(name, 'engine')]:.2f}x (target: at most 1.6x)")
    if args.peer == "schnapsen":
        games = max(200, args.games // 10)
        peer = schnapsen_peer(games)
        if peer is None:
            print("\n--peer schnapsen: the schnapsen package is not installed (pip install schnapsen)")
        else:
            elapsed, decisions = peer
            us = elapsed / decisions * 1e6
            print(f"\nschnapsen (PyPI) random games: {games / elapsed:.0f} games/s, {us:.2f} us/decision")
            for name in ("tute-2",):
                if (name, "engine") in per_decision:
                    print(f"ratio per decision, schnapsen / {name}: engine loop "
                          f"{us / per_decision[(name, 'engine')]:.1f}x, play_game "
                          f"{us / per_decision[(name, 'play_game')]:.1f}x")


if __name__ == "__main__":
    main()
