"""Tournament throughput: end to end (schedule, workers, store, one transaction per game) against the
bare ``play_game`` loop over the same games in the same run, and 2 workers against 1.

    .venv/bin/python benchmarks/tournament.py [--deals N] [--entrants N]

The bare loop plays exactly the tournament's games (same decks, dealers, seats, random bots) in one
process, with no store; "end to end" is ``run_tournament`` into a fresh SQLite store, the leaderboard's
rating fold timed apart. Targets: end to end with 1 worker >= 85% of the bare loop; 2 workers >= 1.8x
of 1 worker (meaningful only with 2 free cores).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import play_game, shuffled_deck  # noqa: E402
from arena.loader import make_bot  # noqa: E402
from leagues.config import parse_config  # noqa: E402
from leagues.leaderboard import standings  # noqa: E402
from leagues.runner import run_tournament  # noqa: E402
from leagues.schedule import round_robin_games  # noqa: E402
from leagues.store import Store  # noqa: E402


def config(folder: Path, deals: int, entrants: int, name: str) -> object:
    data = {"name": name, "seed": 1, "format": "round-robin", "deals": deals, "store": f"{name}.sqlite",
            "variants": [{"name": "tute-2"}, {"name": "tute-3"}, {"name": "tute-4-pairs"}],
            "entrants": [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(entrants)]}
    return parse_config(data, source="benchmark", base=folder)


def bare(cfg) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    specs = round_robin_games(cfg)
    variants = {v.label: v.variant for v in cfg.variants}
    bots: dict[tuple[str, int], object] = {}
    start = time.perf_counter()
    for s in specs:
        seen: dict[str, int] = {}
        players = []
        for name in s.seats:
            c = seen.get(name, 0)
            seen[name] = c + 1
            if (name, c) not in bots:
                bots[(name, c)] = make_bot("random", dict(cfg.entrant(name).params))
            players.append(bots[(name, c)])
        v = variants[s.variant]
        play_game(v, shuffled_deck(v, s.seed), s.dealer, players, game_id=s.id, seed=s.seed, names=list(s.seats))
    return time.perf_counter() - start, len(specs)


def end_to_end(cfg, workers: int) -> tuple[float, int, float]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    summary = run_tournament(cfg, workers=workers, quiet=True)
    elapsed = time.perf_counter() - start
    t = time.perf_counter()
    with Store(cfg.store) as store:
        standings(store, cfg.name)
    return elapsed, summary.played, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--entrants", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        b_time, games = bare(config(folder, args.deals, args.entrants, "bare"))
        e1_time, n1, rate_time = end_to_end(config(folder, args.deals, args.entrants, "one"), 1)
        e2_time, n2, _ = end_to_end(config(folder, args.deals, args.entrants, "two"), 2)
        b_time2, _ = bare(config(folder, args.deals, args.entrants, "bare"))  # again: the machine drifts
    assert games == n1 == n2
    bare_rate = games / min(b_time, b_time2)
    r1, r2 = n1 / e1_time, n2 / e2_time
    print(f"tournament: {games} games (random bots; tute-2, tute-3, tute-4-pairs; {args.entrants} entrants, "
          f"{args.deals} deals, duplicate)")
    print(f"bare play_game loop      : {bare_rate:8.0f} games/s")
    print(f"end to end, 1 worker     : {r1:8.0f} games/s  = {100 * r1 / bare_rate:5.1f}% of bare (target >= 85%)")
    print(f"end to end, 2 workers    : {r2:8.0f} games/s  = {r2 / r1:4.2f}x one worker (target >= 1.8x)")
    print(f"rating fold + table      : {rate_time:8.2f} s for {games} games")


if __name__ == "__main__":
    main()
