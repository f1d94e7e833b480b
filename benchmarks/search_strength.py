"""Strength of ``search`` (and of the ``oracle`` ceiling) against another bot over duplicate deals.

    python benchmarks/search_strength.py [--variant tute-2 ... | --variant all] [--deals 2000]
                                         [--opponent greedy | git:COMMIT] [--oracle] [--workers 2]
                                         [--seed 0] [--param worlds=24 ...] [--opponent-param ...]
                                         [--baseline git:COMMIT [--baseline-param ...]]

Each deal (deck order and dealer from the seed and the deal number) is played once per seat rotation:
search at each seat in turn (a dealer who sits out is skipped), or in a pairs variant holding both
seats of one side, then of the other; every other seat is the opponent bot. A game's score is search's
*pairwise* score against every seat of another side: 1 for each it ranks above, 0.5 level, 0 below
(in a two-sided game: 1 a win, 0.5 a shared first place, 0 a loss; in cabrón, where the deal has a
loser, staying out of it against each opponent that did not). Two equal bots score 0.5 by symmetry,
in every variant. The deal's *block score* is the mean over its rotations, so the luck of the cards
cancels; the mean over blocks is the score, and its 95% interval is mean +- 1.96 * sd / sqrt(blocks)
(normal approximation, blocks are independent).

With ``--baseline git:COMMIT`` they are played again by search as it was at that commit (its
``bots/`` extracted and run on today's ``arena``), and the paired difference is printed: the mean over
deals of (search's block score - the baseline's), with its interval; the deals' luck cancels twice, so
a change to search is measured on the same cards, against the same opponent, as the one it replaces.

With ``--oracle`` the same rotations of the same deals are played again by ``oracle`` (``bots/oracle.py``:
the same search given the real hidden cards), and the share of the gap search closes is printed:
``(search - 0.5) / (oracle - 0.5)``. Also: forfeits, search's mean and maximum milliseconds per searched
decision, how many decisions stopped at the time budget (each such move depends on the machine's speed)
and the wall time. Games run in a ``multiprocessing`` pool; each deal is a pure function of (seed, deal
number), so the figures do not depend on the number of workers.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import multiprocessing as mp
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena import VARIANTS, derive_seed, get_variant, play_game, shuffled_deck  # noqa: E402
from arena.hosting import make_bot  # noqa: E402
from arena.result import GameResult, seat_pairwise  # noqa: E402
from arena.variants import Variant, VariantError  # noqa: E402

from bots.oracle import OracleBot, play_open  # noqa: E402
from bots.search import SearchBot  # noqa: E402

_BUILTIN = {"greedy": "bots.greedy:GreedyBot", "random": "bots.random_bot:RandomBot",
            "search": "bots.search:SearchBot"}


def _make(name: str, params: dict[str, Any] | None = None) -> Any:
    """An opponent by entry point name, module:Class (built-ins work before ``pip install -e``), or
    ``git:COMMIT``: ``search`` as it was at that commit of this repository."""
    if name.startswith("git:"):
        return commit_search(name[4:])(**(params or {}))
    return make_bot(_BUILTIN.get(name, name) if ":" not in name else name, params or None)


def commit_search(commit: str) -> Any:
    """``SearchBot`` as it was at ``commit``: that commit's ``bots/*.py`` extracted (once) into a package
    of their own and imported next to today's (they run on today's ``arena``, whose interface they must
    still fit). How a change to search is measured against the search it replaces."""
    root = Path(__file__).resolve().parents[1]
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", commit + "^{commit}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    package = f"search_at_{sha[:12]}"
    base = Path(tempfile.gettempdir()) / "tute-search-commits"
    target = base / package
    if not (target / "__init__.py").exists():
        files = subprocess.run(["git", "-C", str(root), "ls-tree", "--name-only", sha, "bots/"],
                               capture_output=True, text=True, check=True).stdout.split()
        base.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=base))
        for f in files:
            if f.endswith(".py"):
                text = subprocess.run(["git", "-C", str(root), "show", f"{sha}:{f}"], capture_output=True,
                                      text=True, check=True).stdout
                (staging / Path(f).name).write_text(text)
        try:
            staging.rename(target)  # atomic: a parallel worker either wins or finds it there
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    if str(base) not in sys.path:
        sys.path.insert(0, str(base))
    return importlib.import_module(f"{package}.search").SearchBot


def require_commits(ap: argparse.ArgumentParser, specs: dict[str, str | None]) -> None:
    """Every ``git:COMMIT`` among the options' values (option -> value) has a search to extract, or
    the command stops with a one-line error that names the option (before any deal is played)."""
    for option, spec in specs.items():
        if spec and spec.startswith("git:"):
            try:
                commit_search(spec[4:])
            except (subprocess.CalledProcessError, OSError, ImportError, AttributeError) as e:
                ap.error(f"{option} {spec}: no search at that commit of this repository ({type(e).__name__})")


def add_head_to_head_options(ap: argparse.ArgumentParser, deals: int, bot_help: str) -> None:
    """The options of a benchmark that watches ``--bot`` against ``--opponent`` (by default c69bec0's
    search, at its time a move) on these deals: ``policy_agreement.py``, ``inference_information.py``."""
    ap.add_argument("--variant", default="tute-4-pairs")
    ap.add_argument("--deals", type=int, default=deals)
    ap.add_argument("--bot", default="search", help=bot_help)
    ap.add_argument("--opponent", default="git:c69bec0", help="a bot name, module:Class, or git:COMMIT")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="the bot's parameter")
    ap.add_argument("--opponent-param", action="append", default=[], metavar="KEY=VALUE",
                    help="the opponent's parameter (default worlds=256 for git:c69bec0, its time a move)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)


def head_to_head(ap: argparse.ArgumentParser, a: argparse.Namespace, fits: Callable[[Variant], bool],
                 why_not: str) -> dict[str, Any]:
    """Check the options of ``add_head_to_head_options`` (a variant the benchmark measures, ``fits``,
    else ``why_not``; commits with a search) before any deal; the opponent's parameters."""
    try:
        v = get_variant(a.variant)
    except (KeyError, VariantError) as e:
        ap.error(f"--variant {a.variant}: {e}")
    if not fits(v):
        ap.error(f"--variant {a.variant}: {why_not}")
    require_commits(ap, {"--bot": a.bot, "--opponent": a.opponent})
    return key_values(a.opponent_param) or ({"worlds": 256} if a.opponent == "git:c69bec0" else {})


def rotations(v: Variant, dealer: int) -> list[set[int]]:
    """The seats search holds in each game of a deal: one side of a pairs variant after the other, else
    each seat in turn (not a dealer who sits the deal out)."""
    if v.pairs:
        return [set(team) for team in v.teams]
    return [{s} for s in range(v.players) if not (v.sits_out and s == dealer)]


def deal_of(variant_name: str, seed: int, deal: int) -> tuple[Variant, int, list[int], int]:
    """Deal number ``deal`` of a run: the variant, the game seed, the deck and the dealer (one definition
    for every benchmark that plays these deals)."""
    v = get_variant(variant_name)
    game_seed = derive_seed("search-strength", variant_name, seed, deal)
    return v, game_seed, list(shuffled_deck(v, game_seed)), deal % v.players


def play_block(args: tuple[str, str, int, int, dict[str, Any], bool, dict[str, Any], str | None,
                           dict[str, Any]]) -> dict[str, Any]:
    """Every rotation of one duplicate deal, by search, (``oracle``) by the oracle and (``baseline``)
    by the baseline search."""
    variant_name, opponent, seed, deal, params, oracle, opponent_params, baseline, baseline_params = args
    v, game_seed, deck, dealer = deal_of(variant_name, seed, deal)
    n = v.players
    out: dict[str, Any] = {"deal": deal, "forfeits": 0, "searched": 0, "seconds": 0.0, "slowest": 0.0,
                           "capped": 0, "worked_out": 0, "opponent_searched": 0, "opponent_seconds": 0.0}
    kinds = ["search"] + (["oracle"] if oracle else []) + (["baseline"] if baseline else [])
    for kind in kinds:
        score = 0.0
        games = rotations(v, dealer)
        for k, mine in enumerate(games):
            if kind == "baseline":
                assert baseline is not None
                players = [_make(baseline, baseline_params) if s in mine else _make(opponent, opponent_params)
                           for s in range(n)]
            else:
                bot = SearchBot if kind == "search" else OracleBot
                players = [bot(**params) if s in mine else _make(opponent, opponent_params) for s in range(n)]
            names = [kind if s in mine else opponent for s in range(n)]
            gid = f"strength/{deal}/{k}"
            if kind != "oracle":
                result: GameResult = play_game(v, deck, dealer, players, game_id=gid, seed=game_seed,
                                               names=names).result
            else:
                st = play_open(v, deck, dealer, players, game_id=gid, seed=game_seed, names=names)
                assert st.result_ is not None
                result = st.result_
            score += seat_pairwise(result, min(mine), v.teams)
            if result.forfeit is not None:
                out["forfeits"] += 1
            if kind == "search":
                for s in mine:
                    out["searched"] += players[s].searched
                    out["seconds"] += players[s].search_seconds
                    out["slowest"] = max(out["slowest"], players[s].search_max)
                    out["capped"] += players[s].capped
                    out["worked_out"] += getattr(players[s], "worked_out", 0)
                for s in set(range(n)) - mine:  # a searching opponent: its time, to match budgets
                    out["opponent_searched"] += getattr(players[s], "searched", 0)
                    out["opponent_seconds"] += getattr(players[s], "search_seconds", 0.0)
            if kind == "baseline":
                for s in mine:
                    out["baseline_searched"] = out.get("baseline_searched", 0) + getattr(players[s], "searched", 0)
                    out["baseline_seconds"] = out.get("baseline_seconds", 0.0) + getattr(players[s], "search_seconds",
                                                                                        0.0)
        out[kind] = score / len(games)
    return out


def _interval(scores: list[float]) -> tuple[float, float, float]:
    k = len(scores)
    mean = sum(scores) / k
    var = sum((x - mean) ** 2 for x in scores) / (k - 1) if k > 1 else 0.0
    half = 1.96 * math.sqrt(var / k) if k > 1 else float("nan")
    return mean, mean - half, mean + half


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    mean, low, high = _interval([r["search"] for r in results])
    searched = sum(r["searched"] for r in results)
    ms = 1000 * sum(r["seconds"] for r in results) / searched if searched else 0.0
    theirs = sum(r["opponent_searched"] for r in results)
    out = {"deals": len(results), "score": mean, "low": low, "high": high,
           "forfeits": sum(r["forfeits"] for r in results), "ms_per_move": ms, "searched_moves": searched,
           "max_ms": 1000 * max(r["slowest"] for r in results), "capped": sum(r["capped"] for r in results),
           "worked_out": sum(r.get("worked_out", 0) for r in results),
           "opponent_ms_per_move": 1000 * sum(r["opponent_seconds"] for r in results) / theirs if theirs else None}
    if all("oracle" in r for r in results):
        o, o_low, o_high = _interval([r["oracle"] for r in results])
        out.update(oracle=o, oracle_low=o_low, oracle_high=o_high,
                   gap_closed=(mean - 0.5) / (o - 0.5) if o != 0.5 else float("nan"))
    if all("baseline" in r for r in results):
        b, b_low, b_high = _interval([r["baseline"] for r in results])
        d, d_low, d_high = _interval([r["search"] - r["baseline"] for r in results])
        searched_b = sum(r.get("baseline_searched", 0) for r in results)
        out.update(baseline=b, baseline_low=b_low, baseline_high=b_high, difference=d, difference_low=d_low,
                   difference_high=d_high, baseline_ms_per_move=1000 * sum(r.get("baseline_seconds", 0.0)
                                                                           for r in results) / searched_b
                   if searched_b else None)
    return out


def run(variant: str, a: argparse.Namespace, params: dict[str, Any],
        opponent_params: dict[str, Any]) -> dict[str, Any]:
    jobs = [(variant, a.opponent, a.seed, d, params, a.oracle, opponent_params, a.baseline,
             key_values(a.baseline_param)) for d in range(a.deals)]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    with mp.Pool(a.workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play_block, jobs, chunksize=2), 1):
            results.append(r)
            if i % 100 == 0:
                s = summarize(results)
                print(f"  {variant} {i} deals: score {s['score']:.4f} [{s['low']:.4f}, {s['high']:.4f}]"
                      + (f" oracle {s['oracle']:.4f}" if "oracle" in s else "")
                      + (f" baseline {s['baseline']:.4f}" if "baseline" in s else "")
                      + f" {s['ms_per_move']:.1f} ms/move (max {s['max_ms']:.0f}), forfeits {s['forfeits']}, "
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    s = summarize(sorted(results, key=lambda r: r["deal"]))
    s.update(variant=variant, opponent=a.opponent, opponent_params=opponent_params, seed=a.seed, params=params,
             seconds=round(time.perf_counter() - started, 1), workers=a.workers)
    return s


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", default=[],
                    help="a preset (repeatable), or all (every preset); default tute-2")
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--opponent", default="greedy",
                    help="a bot name, module:Class, or git:COMMIT (search as it was at that commit)")
    ap.add_argument("--oracle", action="store_true", help="also play the oracle on the same deals")
    ap.add_argument("--baseline", metavar="git:COMMIT",
                    help="also play search as it was at COMMIT on the same deals; print the paired difference")
    ap.add_argument("--baseline-param", action="append", default=[], metavar="KEY=VALUE",
                    help="the baseline's parameter (default: none, its own defaults)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="SearchBot parameter (JSON value), e.g. --param worlds=48")
    ap.add_argument("--opponent-param", action="append", default=[], metavar="KEY=VALUE",
                    help="the opponent's parameter, e.g. --opponent-param worlds=256 to match CPU budgets")
    ap.add_argument("--json", action="store_true", help="print each summary as a JSON line")
    a = ap.parse_args(argv)
    params, opponent_params = key_values(a.param, ap), key_values(a.opponent_param, ap)
    require_commits(ap, {"--opponent": a.opponent, "--baseline": a.baseline})
    variants = a.variant or ["tute-2"]
    if "all" in variants:
        variants = list(VARIANTS)
    # what would fail in the worker pool, with its traceback, refused here in one line
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"--variant: no preset {', '.join(map(repr, unknown))} (presets: {', '.join(VARIANTS)}, or all)")
    if a.deals < 1 or a.workers < 1:
        ap.error("--deals and --workers must be at least 1")
    try:
        SearchBot(**params)
    except (TypeError, ValueError) as exc:
        ap.error(f"--param: {exc}")
    for name in variants:
        s = run(name, a, params, opponent_params)
        if a.json:
            print(json.dumps(s), flush=True)
            continue
        print(f"{name}: search vs {a.opponent}, {s['deals']} duplicate deals, seed {a.seed}, "
              f"params {params or 'default'}")
        print(f"  score {s['score']:.4f}  95% interval [{s['low']:.4f}, {s['high']:.4f}]  forfeits {s['forfeits']}")
        if "baseline" in s:
            print(f"  baseline {a.baseline} {s['baseline']:.4f}  95% interval [{s['baseline_low']:.4f}, "
                  f"{s['baseline_high']:.4f}]  paired difference {s['difference']:+.4f}  95% interval "
                  f"[{s['difference_low']:+.4f}, {s['difference_high']:+.4f}]"
                  + (f"  baseline {s['baseline_ms_per_move']:.1f} ms per searched move"
                     if s["baseline_ms_per_move"] is not None else ""))
        if "oracle" in s:
            print(f"  oracle {s['oracle']:.4f}  95% interval [{s['oracle_low']:.4f}, {s['oracle_high']:.4f}]  "
                  f"gap closed {s['gap_closed']:.2f}")
        print(f"  search: {s['ms_per_move']:.1f} ms per searched move (max {s['max_ms']:.0f} ms, "
              f"{s['worked_out']} stopped on work, {s['capped']} on the clock) over {s['searched_moves']} moves; "
              f"wall {s['seconds']:.1f} s with {a.workers} workers", flush=True)
        if s["opponent_ms_per_move"] is not None:
            print(f"  {a.opponent}: {s['opponent_ms_per_move']:.1f} ms per searched move, "
                  f"params {opponent_params or 'default'}", flush=True)


def key_values(pairs: list[str], ap: argparse.ArgumentParser | None = None) -> dict[str, Any]:
    """KEY=VALUE options as keyword arguments (a JSON value, else the string); ``ap`` refuses a pair
    without its ``=`` in one line."""
    out: dict[str, Any] = {}
    for p in pairs:
        key, eq, value = p.partition("=")
        if ap is not None and (not eq or not key):
            ap.error(f"expected KEY=VALUE, not {p!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


if __name__ == "__main__":
    main()
