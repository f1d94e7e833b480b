"""Killing `tute league season` (SIGKILL, workers and all) midway, then running it again, finishes the
season with nothing lost or doubled: the same games, ratings and places as an uninterrupted run, even
after league.toml was edited in between (a season finishes with the config it started with)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from leagues.league.league import League

from league_util import write_league

TUTE = str(Path(sys.executable).parent / "tute")
ENTRANTS = [("a", "random", {"seed": 1}), ("b", "random", {"seed": 2}), ("c", "random", {"seed": 3}),
            ("g", "greedy", {})]
DEALS = 250  # 6 pairs x 250 deals x 2 rotations = 3000 games


def make(folder: Path) -> None:
    folder.mkdir()
    write_league(folder, deals=DEALS, workers=2)
    with League.open(folder) as lg:
        for name, bot, params in ENTRANTS:
            lg.submit(name, bot, params=params)


def count_games(path: Path) -> int:
    try:
        db = sqlite3.connect(path, timeout=1)
        try:
            return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def snapshot(path: Path) -> dict[str, Any]:
    db = sqlite3.connect(path)
    try:
        return {
            "games": {r[0]: r[1:] for r in db.execute("SELECT id, seats, seed, result, record FROM games")},
            "ratings": db.execute("SELECT * FROM league_ratings ORDER BY season, scope, entrant").fetchall(),
            "field": db.execute("SELECT * FROM league_season_entrants ORDER BY season, entrant").fetchall(),
            "seasons": db.execute("SELECT season, tournaments, finished IS NOT NULL FROM league_seasons").fetchall(),
        }
    finally:
        db.close()


def test_sigkill_midway_then_season_again_equals_uninterrupted(tmp_path: Path) -> None:
    ref, cut = tmp_path / "ref", tmp_path / "cut"
    make(ref)
    make(cut)
    store = cut / "league.sqlite"
    proc = subprocess.Popen([TUTE, "league", "season", "-l", str(cut), "--quiet"], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and count_games(store) < 300:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, mid-season
    proc.wait()
    partial = snapshot(store)
    assert 300 <= len(partial["games"]) < 3000, "killed midway"
    assert partial["seasons"] == [(1, '["club/s1"]', 0)] and partial["ratings"] == []
    # an edit made now applies from the next season; this one finishes as it started
    text = (cut / "league.toml").read_text()
    (cut / "league.toml").write_text(text.replace(f"deals = {DEALS}", "deals = 3"))

    again = subprocess.run([TUTE, "league", "season", "-l", str(cut), "--quiet"], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert f"({len(partial['games'])} already stored)" in again.stderr
    full = subprocess.run([TUTE, "league", "season", "-l", str(ref), "--quiet"], capture_output=True, text=True)
    assert full.returncode == 0, full.stderr
    resumed, reference = snapshot(store), snapshot(ref / "league.sqlite")
    assert len(reference["games"]) == 3000 and len(reference["ratings"]) == 4 * 2
    assert resumed == reference, "no game lost, none doubled; the same ratings and places"
    assert partial["games"].items() <= resumed["games"].items()
    assert again.stdout == full.stdout, "the same standings"

    with League.open(cut) as lg:
        season, summaries = lg.play_season(quiet=True)
    assert season.season == 2 and summaries[0].played == 6 * 3 * 2, "the edit applies to the next season"
