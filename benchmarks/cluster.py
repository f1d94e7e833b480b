"""The cluster's overhead per core: one tournament on the local pool of 2 workers and on a Dask
LocalCluster of 2 worker processes (``--cluster local:2``), on this machine, best of 3 each.

    .venv/bin/python benchmarks/cluster.py [--deals 800] [--repeat 3]

Random bots, tute-2, 12 entrants (132 games a deal): the default is about 100,000 games, 25 s or more
of play each way. The figure is the run's own games/s (from its first game to its last, as ``tute run``
prints it); the cluster's start (about 2 s) is printed apart. Target (docs/cluster.md): the cluster at
least 85% of the local pool's games/s: it is the same machine, the difference is the engine's
overhead (scheduling, serialising a batch, the round trips).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TUTE = str(Path(sys.executable).parent / "tute")


def config(folder: Path, deals: int) -> Path:
    lines = ['name = "bench"', "seed = 1", f"deals = {deals}", "workers = 2", 'store = "bench.sqlite"',
             "[[variants]]", 'name = "tute-2"']
    for i in range(12):
        lines += ["[[entrants]]", f'name = "r{i:02d}"', 'bot = "random"', f"params = {{ seed = {i} }}"]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def once(folder: Path, cfg: Path, *args: str) -> tuple[float, float]:
    """(games/s of the run, wall seconds of the command)."""
    start = time.perf_counter()
    out = subprocess.run([TUTE, "run", str(cfg), "--new", "--yes", "--quiet", *args], cwd=folder,
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    m = re.search(r"([\d.]+) games/s", out.stderr)
    assert m, out.stderr
    return float(m.group(1)), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=800)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tute-cluster-"))
    cfg = config(folder, args.deals)
    games = 132 * args.deals
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):  # interleaved, so both see the same machine
        for label, extra in (("local pool, 2 workers", ["-j", "2"]), ("--cluster local:2", ["--cluster", "local:2"])):
            rate, wall = once(folder, cfg, *extra)
            if label not in best or rate > best[label][0]:
                best[label] = (rate, wall)
    print(f"{games:,} games of tute-2, random bots, best of {args.repeat}")
    for label, (rate, wall) in best.items():
        print(f"  {label:24s} {rate:8.0f} games/s   ({wall:.1f} s wall, start and table included)")
    local, cluster = best["local pool, 2 workers"][0], best["--cluster local:2"][0]
    print(f"  cluster / local: {cluster / local:.0%} (target: at least 85%)")


if __name__ == "__main__":
    main()
