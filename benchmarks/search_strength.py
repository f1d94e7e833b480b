"""Strength of ``search`` against another bot over duplicate deals, with a 95% interval.

    python benchmarks/search_strength.py [--variant tute-2] [--deals 2000] [--opponent greedy]
                                         [--workers 2] [--seed 0] [--param worlds=24 ...]

Each deal (deck order and dealer from the seed and the deal number) is played twice with the sides
swapped: in ``tute-2`` search sits at seat 0 then seat 1; in a pairs variant search takes both seats of
one side, then of the other. The deal's *block score* is search's mean score over its two games (1 a
win, 0.5 a shared first place, 0 a loss), so the luck of the cards cancels; the mean over blocks is the
score, and its 95% interval is mean +- 1.96 * sd / sqrt(blocks) (normal approximation, blocks are
independent). Also printed: forfeits, search's mean and maximum milliseconds per searched decision,
how many decisions stopped at ``max_ms`` (each such move depends on the machine's speed) and the wall
time. Games run in a ``multiprocessing`` pool; each deal is a pure function of (seed, deal number), so
the figures do not depend on the number of workers.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import derive_seed, get_variant, play_game, shuffled_deck  # noqa: E402
from arena.hosting import make_bot  # noqa: E402

from bots.search import SearchBot  # noqa: E402

_BUILTIN = {"greedy": "bots.greedy:GreedyBot", "random": "bots.random_bot:RandomBot",
            "search": "bots.search:SearchBot"}


def _make(name: str) -> Any:
    """An opponent by entry point name or module:Class (built-ins work before ``pip install -e``)."""
    return make_bot(_BUILTIN.get(name, name) if ":" not in name else name)


def play_block(args: tuple[str, str, int, int, dict[str, Any]]) -> dict[str, Any]:
    """Both games of one duplicate deal; search's block score, ms per searched move, forfeits."""
    variant_name, opponent, seed, deal, params = args
    v = get_variant(variant_name)
    n = v.players
    game_seed = derive_seed("search-strength", variant_name, seed, deal)
    deck = shuffled_deck(v, game_seed)
    dealer = deal % n
    score = 0.0
    forfeits = 0
    searched = 0
    seconds = 0.0
    slowest = 0.0
    capped = 0
    for side in (0, 1):
        # pairs: search holds both seats of one side; otherwise one seat, the rest are opponents
        mine = {side, side + 2} if v.pairs else {side}
        players = [SearchBot(**params) if s in mine else _make(opponent) for s in range(n)]
        rec = play_game(v, deck, dealer, players, game_id=f"strength/{deal}/{side}", seed=game_seed,
                        names=["search" if s in mine else opponent for s in range(n)])
        r = rec.result
        if r.ranks[side] == 0:
            first_sides = {t for t, team in enumerate(v.teams) if r.ranks[team[0]] == 0}
            score += 1.0 if len(first_sides) == 1 else 0.5
        if r.forfeit is not None:
            forfeits += 1
        for s in mine:
            searched += players[s].searched
            seconds += players[s].search_seconds
            slowest = max(slowest, players[s].search_max)
            capped += players[s].capped
    return {"deal": deal, "score": score / 2, "forfeits": forfeits, "searched": searched, "seconds": seconds,
            "slowest": slowest, "capped": capped}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [r["score"] for r in results]
    k = len(scores)
    mean = sum(scores) / k
    var = sum((x - mean) ** 2 for x in scores) / (k - 1) if k > 1 else 0.0
    half = 1.96 * math.sqrt(var / k) if k > 1 else float("nan")
    searched = sum(r["searched"] for r in results)
    ms = 1000 * sum(r["seconds"] for r in results) / searched if searched else 0.0
    return {"deals": k, "games": 2 * k, "score": mean, "low": mean - half, "high": mean + half,
            "forfeits": sum(r["forfeits"] for r in results), "ms_per_move": ms, "searched_moves": searched,
            "max_ms": 1000 * max(r["slowest"] for r in results), "capped": sum(r["capped"] for r in results)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="tute-2")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="SearchBot parameter (JSON value), e.g. --param worlds=48")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)
    params: dict[str, Any] = {}
    for p in a.param:
        key, _, value = p.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    jobs = [(a.variant, a.opponent, a.seed, d, params) for d in range(a.deals)]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    with mp.Pool(a.workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play_block, jobs, chunksize=4), 1):
            results.append(r)
            if i % 100 == 0:
                s = summarize(results)
                print(f"  {i} deals: score {s['score']:.4f} [{s['low']:.4f}, {s['high']:.4f}] "
                      f"{s['ms_per_move']:.1f} ms/move (max {s['max_ms']:.0f}), forfeits {s['forfeits']}, "
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    s = summarize(sorted(results, key=lambda r: r["deal"]))
    s.update(variant=a.variant, opponent=a.opponent, seed=a.seed, params=params, seconds=round(elapsed, 1),
             workers=a.workers)
    if a.json:
        print(json.dumps(s))
        return
    print(f"{a.variant}: search vs {a.opponent}, {s['deals']} duplicate deals ({s['games']} games), "
          f"seed {a.seed}, params {params or 'default'}")
    print(f"score {s['score']:.4f}  95% interval [{s['low']:.4f}, {s['high']:.4f}]  forfeits {s['forfeits']}")
    print(f"search: {s['ms_per_move']:.1f} ms per searched move (max {s['max_ms']:.0f} ms, "
          f"{s['capped']} stopped at max_ms) over {s['searched_moves']} moves; wall {elapsed:.1f} s with {a.workers} workers")


if __name__ == "__main__":
    main()
