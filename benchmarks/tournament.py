"""Tournament throughput: end to end (schedule, workers, store) against the bare ``play_game`` loop over
the same games in the same run, and 2 workers against 1.

    .venv/bin/python benchmarks/tournament.py [--deals N] [--entrants N] [--repeat N]

The bare loop plays exactly the tournament's games (same decks, dealers, seats, random bots) in one
process, with no store, shuffling each game's deck as a caller of ``play_game`` does; "end to end" is
``run_tournament`` into a fresh SQLite store (the leaderboard's rating fold is timed apart), whose
workers shuffle a deal's deck once for all its rotations (about 5% of a random game). Each figure is the best of ``--repeat`` runs, as timeit does: on a shared
machine the best run is the one least disturbed. CPU time per game (parent, workers) is printed too:
it shows where the time goes whatever else the machine is doing.
Targets: end to end with 1 worker >= 85% of the bare loop; 2 workers >= 1.8x of 1 worker (meaningful
only with 2 free cores).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import Player, play_game, shuffled_deck  # noqa: E402
from arena.hosting import make_bot  # noqa: E402
from leagues.tournament.config import parse_config  # noqa: E402
from leagues.tournament.leaderboard import standings  # noqa: E402
from leagues.tournament.runner import run_tournament  # noqa: E402
from leagues.tournament.schedule import round_robin_games  # noqa: E402
from leagues.tournament.store import Store  # noqa: E402


BOT = "random"


def config(folder: Path, deals: int, entrants: int, name: str) -> object:
    data = {"name": name, "seed": 1, "format": "round-robin", "deals": deals, "store": f"{name}.sqlite",
            "variants": [{"name": "tute-2"}, {"name": "tute-3"}, {"name": "tute-4-pairs"}],
            "entrants": [{"name": f"r{i}", "bot": BOT, "params": {"seed": i} if BOT == "random" else {}}
                         for i in range(entrants)]}
    return parse_config(data, source="benchmark", base=folder)


def cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process and of its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def bare(cfg) -> tuple[float, int, float]:  # type: ignore[no-untyped-def]
    """(seconds, games, CPU seconds) of the plain loop."""
    specs = round_robin_games(cfg)
    variants = {v.label: v.variant for v in cfg.variants}
    bots: dict[tuple[str, int], Player] = {}
    cpu0 = time.process_time()
    start = time.perf_counter()
    for s in specs:
        seen: dict[str, int] = {}
        players: list[Player] = []
        for name in s.seats:
            c = seen.get(name, 0)
            seen[name] = c + 1
            if (name, c) not in bots:
                bots[(name, c)] = make_bot(BOT, dict(cfg.entrant(name).params))
            players.append(bots[(name, c)])
        v = variants[s.variant]
        play_game(v, shuffled_deck(v, s.seed), s.dealer, players, game_id=s.id, seed=s.seed, names=list(s.seats))
    return time.perf_counter() - start, len(specs), time.process_time() - cpu0


def end_to_end(cfg, workers: int) -> tuple[float, int, float, float, float]:  # type: ignore[no-untyped-def]
    """(seconds, games, parent CPU seconds, workers' CPU seconds, seconds of the rating fold)."""
    cpu0 = cpu()
    start = time.perf_counter()
    summary = run_tournament(cfg, workers=workers, quiet=True)
    elapsed = time.perf_counter() - start
    cpu1 = cpu()
    t = time.perf_counter()
    with Store(cfg.store) as store:
        standings(store, cfg.name)
    return elapsed, summary.played, cpu1[0] - cpu0[0], cpu1[1] - cpu0[1], time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--entrants", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each measurement; the best counts")
    ap.add_argument("--bot", default="random", help="the entrants' bot (random: the cheapest decisions, so the "
                                                     "tournament's own cost shows most)")
    args = ap.parse_args()
    global BOT
    BOT = args.bot
    best: dict[str, tuple[float, ...]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i in range(args.repeat):  # interleaved, so a slow spell of the machine hits all three alike
            runs = {"bare": bare(config(folder, args.deals, args.entrants, "bare")),
                    "one": end_to_end(config(folder, args.deals, args.entrants, f"one{i}"), 1),
                    "two": end_to_end(config(folder, args.deals, args.entrants, f"two{i}"), 2)}
            for key, run in runs.items():
                if key not in best or run[0] < best[key][0]:
                    best[key] = run
    games = best["bare"][1]
    assert games == best["one"][1] == best["two"][1]
    bare_rate = games / best["bare"][0]
    r1, r2 = games / best["one"][0], games / best["two"][0]
    us = 1e6 / games
    print(f"tournament: {games} games ({BOT} bots; tute-2, tute-3, tute-4-pairs; {args.entrants} entrants, "
          f"{args.deals} deals, duplicate); best of {args.repeat}")
    print(f"bare play_game loop      : {bare_rate:8.0f} games/s  (CPU {best['bare'][2] * us:4.0f} us a game)")
    for label, key, extra in (("end to end, 1 worker", "one", f"= {100 * r1 / bare_rate:5.1f}% of bare (target >= 85%)"),
                              ("end to end, 2 workers", "two", f"= {r2 / r1:4.2f}x one worker (target >= 1.8x)")):
        run = best[key]
        print(f"{label:<25}: {games / run[0]:8.0f} games/s  {extra}")
        print(f"{'':<25}  CPU a game: parent {run[2] * us:4.0f} us, workers {run[3] * us:4.0f} us")
    print(f"rating fold + table      : {best['one'][4]:8.2f} s for {games} games")


if __name__ == "__main__":
    main()
