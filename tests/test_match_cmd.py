"""``tute match`` and the match and gauntlet formats: an SPRT over duplicate blocks that decides, the
same stopping block with one worker or two, a killed match resumed to the same decision, one-line
errors, the summary in the leaderboard, and configs rebuilt from what the store keeps."""

from __future__ import annotations

import os
import signal
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from leagues.tournament.config import TournamentConfig, load_config, parse_config

from league_util import TESTS, wait_for_games, write_config

TUTE = str(Path(sys.executable).parent / "tute")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}


def tute(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, timeout=600, env=ENV,
                          stdin=subprocess.DEVNULL)


def verdict_line(out: str) -> str:
    return [line for line in out.splitlines() if "SPRT" in line][-1]


def test_greedy_against_random_accepts_h1_within_a_few_hundred_blocks(tmp_path: Path) -> None:
    out = tute("match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", "-q", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    line = verdict_line(out.stdout)
    assert "H1 accepted at block" in line
    assert int(line.rsplit(" ", 1)[1]) <= 300
    assert "greedy vs random" in out.stdout and "Ptnml(0-2)" in out.stdout and "LOS" in out.stdout
    again = tute("match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", "-q", cwd=tmp_path)
    assert again.returncode == 0 and verdict_line(again.stdout) == line  # finished: the same summary


def test_the_same_stopping_block_with_one_worker_or_two(tmp_path: Path) -> None:
    lines = []
    for workers in ("1", "2"):
        folder = tmp_path / workers
        folder.mkdir()
        out = tute("match", "random", "greedy", "-v", "tute-2", "-v", "tute-4-pairs", "--sprt", "0,10",
                   "-j", workers, "-q", cwd=folder)
        assert out.returncode == 0, out.stderr
        lines.append(out.stdout)
    assert lines[0] == lines[1]


def test_a_killed_match_resumes_to_the_same_decision(tmp_path: Path) -> None:
    args = ["match", "random", "league_bots:SlowGreedyBot", "-v", "tute-2", "--sprt", "0,10", "-q", "-j", "2"]
    ref, cut = tmp_path / "ref", tmp_path / "cut"
    ref.mkdir()
    cut.mkdir()
    reference = tute(*args, cwd=ref)
    assert reference.returncode == 0, reference.stderr
    proc = subprocess.Popen([TUTE, *args], cwd=cut, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    wait_for_games(cut / "runs" / "match.sqlite", 19, poll=0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    resumed = tute(*args, cwd=cut)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == reference.stdout


@pytest.mark.parametrize("args, message", [
    (["--sprt", "10,0"], "elo0 (10) must be below elo1 (0)"),
    (["--sprt", "0,10", "--alpha", "0.7"], "alpha: must be in (0, 0.5)"),
    (["--sprt", "zero"], "expected ELO0,ELO1"),
    (["-v", "tute-3"], "--field: missing: tute-3 has more than two sides; name the bot that fills the other "
                       "seats (e.g. --field greedy)"),
])
def test_bad_match_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    base = ["match", "random", "greedy"] + ([] if "-v" in args else ["-v", "tute-2"])
    out = tute(*base, *args, cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr
    unknown = tute("match", "random", "nosuchbot", "-v", "tute-2", cwd=tmp_path)
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_a_gauntlet_decides_each_pairing_and_the_leaderboard_shows_it(tmp_path: Path) -> None:
    path = write_config(tmp_path, format="gauntlet", deals=300, challengers=["greedy"],
                        sprt={"elo0": 0, "elo1": 10}, field="random",
                        variants=[{"name": "tute-2"}, {"name": "tute-3"}],
                        entrants=[{"name": "r1", "bot": "random", "params": {"seed": 1}},
                                  {"name": "r2", "bot": "random", "params": {"seed": 2}},
                                  {"name": "greedy", "bot": "greedy"}])
    out = tute("run", str(path), "--quiet", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    board = tute("leaderboard", "--store", "store.sqlite", cwd=tmp_path)
    assert board.stdout.count("H1 accepted at block") == 2  # greedy vs r1, greedy vs r2
    assert "tute-3 Ptnml(0-3)" in board.stdout  # three seats: greedy, r1 and the field
    # no pairing of the field entrants against each other
    ids = [r[0] for r in sqlite3.connect(tmp_path / "store.sqlite").execute("SELECT seats FROM games")]
    assert all("greedy" in s for s in ids)
    # the field bot is a row where it sat (tute-3), not a row of no games where it never did (tute-2)
    tables = json.loads(tute("leaderboard", "--store", "store.sqlite", "-f", "json", cwd=tmp_path).stdout)
    rows = {label: {r["entrant"]: r["games"] for r in t["standings"]} for label, t in tables["variants"].items()}
    assert "field" not in rows["tute-2"] and rows["tute-3"]["field"] > 0


def test_configs_come_back_from_their_stored_identity(tmp_path: Path) -> None:
    for kw in (dict(format="gauntlet", challengers=["c"], field="random", sprt={"elo0": -5, "elo1": 5},
                    variants=[{"name": "tute-3", "options": {"undertrump_required": True}}],
                    entrants=[{"name": "a", "bot": "random"}, {"name": "c", "bot": "greedy"}]),
               dict(format="match", variants=[{"name": "tute-2", "unit": "match", "match": "first_to:2"}]),
               dict(format="swiss", rounds=2)):
        cfg = load_config(write_config(tmp_path, **kw))
        again = parse_config(TournamentConfig.data_of_identity(cfg.identity()), source="stored")
        assert again.identity() == cfg.identity()


def test_the_move_limit_of_a_match_is_its_own_option(tmp_path: Path) -> None:
    """``--time-limit`` reaches the match's config (the limit a subprocess bot is held to, and what
    search plans to); out of range it is one line and exit 2."""
    out = tute("match", "random", "greedy", "-v", "tute-2", "--max-blocks", "2", "--time-limit", "3000",
               "--store", "m.sqlite", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    db = sqlite3.connect(tmp_path / "m.sqlite")
    (config,), = db.execute("SELECT config_json FROM tournaments").fetchall()
    db.close()
    assert json.loads(config)["time_limit_ms"] == 3000
    bad = tute("match", "random", "greedy", "-v", "tute-2", "--time-limit", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--time-limit" in bad.stderr and "Traceback" not in bad.stderr


def test_a_match_never_takes_the_name_of_another_kind_of_tournament(tmp_path: Path) -> None:
    """``tute match --new --name t`` on a store whose 't' is a round robin deleted it without asking
    (--new does not ask, for a match): refused, with or without --new, and nothing is touched."""
    path = write_config(tmp_path, deals=1, workers=1)
    assert tute("run", str(path), "-q", cwd=tmp_path).returncode == 0
    store = tmp_path / "store.sqlite"
    before = sqlite3.connect(store).execute("SELECT id, record FROM games ORDER BY id").fetchall()
    for extra in ([], ["--new"]):
        out = tute("match", "random", "greedy", "-v", "tute-2", "--store", str(store), "--name", "t", "-q",
                   "--max-blocks", "1", *extra, cwd=tmp_path)
        assert out.returncode == 2 and out.stderr.strip().endswith(
            "'t' is a round-robin tournament, not a match: give the match another --name (nothing deleted)"), out.stderr
    assert sqlite3.connect(store).execute("SELECT id, record FROM games ORDER BY id").fetchall() == before
