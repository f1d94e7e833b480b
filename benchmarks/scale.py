"""What a store costs as it grows: every reader, a resume, the end of a run, import and export, at
10k, 100k and 300k stored games (random bots, tute-2 round robins, 2 workers).

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000,300000] [--folder DIR]

One store grows tournament by tournament to each size (``big``, then ``more1``, ``more2``...); at each
size every command runs as a user would run it, in its own process, timed (best of two) with its peak
memory (``/usr/bin/time -v``):

- ``tute leaderboard`` of the big tournament: plain, ``-f json --matrix``, and ``--recompute`` (the fold
  of every game, what every reader paid before the store kept its tables);
- ``tute games -n 20`` over the whole store; ``tute run`` of the finished big tournament (a resume with
  nothing to do);
- a new 2,000-game tournament played into the store: its games/s, and the end of the run (the table it
  prints, timed as ``tute leaderboard`` of it);
- ``tute export`` of the big tournament (gzip) and ``tute import`` of a 10,000-game file into a fresh
  store; the store's bytes per game.
The table printed at the end is the one docs/scaling.md shows.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTE = str(Path(sys.executable).parent / "tute")
ENTRANTS = 12


def config(folder: Path, name: str, deals: int, entrants: int = ENTRANTS) -> Path:
    lines = [f'name = "{name}"', "seed = 1", 'format = "round-robin"', f"deals = {deals}", "workers = 2",
             'store = "scale.sqlite"', "[[variants]]", 'name = "tute-2"']
    for i in range(entrants):
        lines += ["[[entrants]]", f'name = "r{i:02d}"', 'bot = "random"', f"params = {{ seed = {i} }}"]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def games_of(deals: int, entrants: int = ENTRANTS) -> int:
    return entrants * (entrants - 1) // 2 * deals * 2


def deals_for(games: int, entrants: int = ENTRANTS) -> int:
    return max(1, round(games / (entrants * (entrants - 1))))


def timed(args: list[str], cwd: Path, repeat: int = 2) -> tuple[float, float, str]:
    """(best seconds, peak MB, stdout) of ``tute ARGS``."""
    best, peak, out = float("inf"), 0.0, ""
    for _ in range(repeat):
        start = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-v", TUTE, *args], cwd=cwd, capture_output=True, text=True)
        took = time.perf_counter() - start
        if p.returncode not in (0, 1):
            raise SystemExit(f"tute {' '.join(args)}: exit {p.returncode}: {p.stderr[-500:]}")
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        best, peak, out = min(best, took), max(peak, int(m.group(1)) / 1024 if m else 0.0), p.stdout
    return best, peak, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,300000")
    ap.add_argument("--folder", default=None, help="keep the stores here (default: a temporary folder)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    folder = Path(args.folder or tempfile.mkdtemp(prefix="tute-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "scale.sqlite"
    rows: list[tuple[str, list[str]]] = []
    cells: dict[str, list[str]] = {}

    def put(label: str, text: str) -> None:
        cells.setdefault(label, []).append(text)

    big = config(folder, "big", deals_for(min(sizes[0], 10_000)))
    subprocess.run([TUTE, "run", str(big), "-q"], cwd=folder, check=True, capture_output=True)
    stored = games_of(deals_for(min(sizes[0], 10_000)))
    part = 0
    fresh_rate = None
    for size in sizes:
        while stored < size:
            part += 1
            more = config(folder, f"more{part}", deals_for(min(size - stored, 100_000)))
            start = time.perf_counter()
            subprocess.run([TUTE, "run", str(more), "-q"], cwd=folder, check=True, capture_output=True)
            stored += games_of(deals_for(min(size - stored, 100_000)))
            print(f"  grew to {stored} games ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        s = str(store)
        for label, cmd in [("tute leaderboard", ["leaderboard", "--store", s, "-t", "big"]),
                           ("tute leaderboard -f json --matrix", ["leaderboard", "--store", s, "-t", "big", "-f",
                                                                  "json", "--matrix"]),
                           ("tute leaderboard --recompute", ["leaderboard", "--store", s, "-t", "big", "--recompute"]),
                           ("tute games -n 20", ["games", "--store", s, "-n", "20"]),
                           ("tute run (finished: nothing to do)", ["run", str(big), "-q"])]:
            took, mb, _ = timed(cmd, folder)
            put(label, f"{took:.2f} s, {mb:.0f} MB")
        # a new tournament of 2,000 games into this store: its speed and the table at its end
        probe = config(folder, f"probe{size}", deals_for(2000))
        start = time.perf_counter()
        subprocess.run([TUTE, "run", str(probe), "-q"], cwd=folder, check=True, capture_output=True)
        rate = games_of(deals_for(2000)) / (time.perf_counter() - start)
        fresh_rate = fresh_rate or rate
        put("a 2,000-game run into the store (games/s, wall)", f"{rate:.0f}")
        took, mb, _ = timed(["leaderboard", "--store", s, "-t", f"probe{size}"], folder)
        put("end of a run: its table", f"{took:.2f} s, {mb:.0f} MB")
        out = folder / "big.jsonl.gz"
        took, mb, _ = timed(["export", "--store", s, "-t", "big", "--out", str(out)], folder, repeat=1)
        put("tute export (gzip) of the 10k-game tournament", f"{games_of(deals_for(min(sizes[0], 10_000))) / took:.0f} "
                                                             f"records/s, {mb:.0f} MB")
        put("store bytes per game", f"{store.stat().st_size / stored:.0f}")
        rows.append((f"{stored:,} games stored", []))
    imp = folder / "imported.sqlite"
    if imp.exists():
        imp.unlink()
    took, mb, _ = timed(["import", str(folder / "big.jsonl.gz"), "--store", str(imp)], folder, repeat=1)
    n = games_of(deals_for(min(sizes[0], 10_000)))
    print()
    print("| operation | " + " | ".join(label for label, _ in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for label, values in cells.items():
        print(f"| {label} | " + " | ".join(values) + " |")
    print(f"\ntute import of {n:,} records into a fresh store: {took:.1f} s ({n / took:.0f} records/s), "
          f"peak {mb:.0f} MB")
    print(f"store: {folder} ({os.path.getsize(store) / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
