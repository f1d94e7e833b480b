"""The runner: the same stored games whatever the number of workers, resuming after SIGKILL gives the
uninterrupted result, a changed config is refused, a finished run only prints its table."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leagues.cli import main
from leagues.tournament.config import load_config
from leagues.tournament.leaderboard import render, standings
from leagues.tournament.runner import run_tournament
from leagues.tournament.store import Store

from league_util import write_config

TUTE = str(Path(sys.executable).parent / "tute")
FIVE = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(5)]
VARIANTS = [{"name": "tute-2"}, {"name": "tute-3"}, {"name": "tute-4-pairs"}]


def stored(path: Path) -> dict[str, tuple[str, str, str]]:
    db = sqlite3.connect(path)
    try:
        return {r[0]: (r[1], r[2], r[3]) for r in db.execute("SELECT id, seats, result, record FROM games")}
    finally:
        db.close()


def table_text(cfg_path: Path) -> str:
    cfg = load_config(cfg_path)
    with Store(cfg.store) as store:
        return "\n".join(render(standings(store, cfg.name, v)) for v in [None, *(v.label for v in cfg.variants)])


@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
def test_one_worker_or_two_store_identical_games(tmp_path: Path, fmt: str) -> None:
    results = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        path = write_config(folder, format=fmt, rounds=3 if fmt == "swiss" else None, deals=2,
                            variants=VARIANTS, entrants=FIVE)
        summary = run_tournament(load_config(path), workers=workers, quiet=True)
        assert summary.played == summary.total > 0
        results.append((stored(folder / "store.sqlite"), table_text(path)))
        if workers == 2:
            log = (folder / "store.log").read_text()
            workers_logged = {m for m in re.findall(r"^\S+ \S+ (\S+) leagues.tournament.runner INFO worker \d+ ready$", log, re.M)}
            assert len(workers_logged) == 2 and "MainProcess" not in workers_logged, \
                "every worker's log reaches the one log file"
            assert log.count("closed its players") == 2
    assert results[0] == results[1]
    if fmt == "swiss":
        db = sqlite3.connect(tmp_path / "w1" / "store.sqlite")
        byes = db.execute("SELECT variant, round, entrant FROM byes ORDER BY variant, round").fetchall()
        db.close()
        # tute-2: 5 entrants, one bye a round, never the same entrant twice; tute-3: two sit out
        two = [e for v, _, e in byes if v == "tute-2"]
        assert len(two) == 3 and len(set(two)) == 3
        assert len([e for v, _, e in byes if v == "tute-3"]) == 6


def test_games_a_bots_clock_decided_are_said_on_screen_and_in_the_log(tmp_path: Path) -> None:
    """A game in which a bot's clock, not its counted work, ended a decision may play otherwise with
    other workers: the run knows which (the same games with one worker or two), names each in the log,
    and its warning names the first in the schedule (d2 before d10, whatever the text says)."""
    from leagues.tournament.runner import clocked_warning

    sys.path.insert(0, str(Path(__file__).parent))
    slow = ["/d2/s0", "/d10/s0"]
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        path = write_config(folder, deals=12, variants=[{"name": "tute-2"}], entrants=[
            {"name": "slow", "bot": "league_bots:ClockedBot", "isolation": "inprocess", "params": {"at": slow}},
            {"name": "rand", "bot": "random"}])
        cfg = load_config(path)
        run_tournament(cfg, workers=workers, quiet=True)
        with Store(cfg.store, readonly=True) as store:
            assert store.clocked_games(cfg.name) == ["t/tute-2/r1/t0/d2/s0", "t/tute-2/r1/t0/d10/s0"]
            text = clocked_warning(store, [cfg.name])
        assert text is not None and text.startswith("warning: in 2 games a bot's clock, not its counted work, "
                                                     "ended a decision (first: t/tute-2/r1/t0/d2/s0): they may")
        log = (folder / "store.log").read_text()
        assert "t/tute-2/r1/t0/d10/s0: a bot's clock, not its counted work, ended 1 decision: this game" in log
    # a run with no such game has nothing to say
    folder = tmp_path / "none"
    folder.mkdir()
    path = write_config(folder, deals=2, variants=[{"name": "tute-2"}], entrants=FIVE[:2])
    cfg = load_config(path)
    run_tournament(cfg, workers=1, quiet=True)
    with Store(cfg.store, readonly=True) as store:
        assert store.clocked_games(cfg.name) == [] and clocked_warning(store, [cfg.name]) is None


def test_tute_run_says_the_clocked_games_last(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After the table, on stderr, as the last thing the command says. The games are kept in the store
    with the table they are part of: the finished tournament run again and ``tute leaderboard`` say
    them too (JSON lists them), and ``--new`` forgets them with the games."""
    from league_util import tute

    sys.path.insert(0, str(Path(__file__).parent))
    path = write_config(tmp_path, deals=2, variants=[{"name": "tute-2"}], entrants=[
        {"name": "slow", "bot": "league_bots:ClockedBot", "isolation": "inprocess", "params": {"at": ["/d1/s0"]}},
        {"name": "rand", "bot": "random"}])
    warning = ("warning: in 1 game a bot's clock, not its counted work, ended a decision (first: t/tute-2/r1/t0/d1/s0): "
               "it may play otherwise with another number of workers or on another machine; a larger move limit "
               "(time_limit_ms in the tournament's file) usually avoids it")
    code, out, err = tute(capsys, "run", str(path), "--quiet")
    assert code == 0 and "rank" in out
    assert err.strip().splitlines()[-1] == warning
    code, out, err = tute(capsys, "run", str(path), "--quiet")  # finished: the same table, the same warning
    assert code == 0 and "finished earlier" in err and err.strip().splitlines()[-1] == warning
    store = str(tmp_path / "store.sqlite")
    code, out, err = tute(capsys, "leaderboard", "--store", store)
    assert code == 0 and "rank" in out and err.strip().splitlines()[-1] == warning
    code, out, err = tute(capsys, "leaderboard", "--store", store, "--format", "json")
    assert code == 0 and json.loads(out)["clocked_games"] == ["t/tute-2/r1/t0/d1/s0"]
    # started again, with the bot's clock never ending a decision: nothing is left to say
    write_config(tmp_path, deals=2, variants=[{"name": "tute-2"}], entrants=[
        {"name": "slow", "bot": "league_bots:ClockedBot", "isolation": "inprocess", "params": {"at": ["/never"]}},
        {"name": "rand", "bot": "random"}])
    code, out, err = tute(capsys, "run", str(path), "--quiet", "--new", "--yes")
    assert code == 0 and "a bot's clock" not in err
    code, out, err = tute(capsys, "leaderboard", "--store", store, "--format", "json")
    assert code == 0 and json.loads(out)["clocked_games"] == [] and "a bot's clock" not in err


def test_an_interrupted_run_says_the_clocked_games_as_it_stops(tmp_path: Path) -> None:
    """Ctrl-C: no table follows, so the warning comes with the stop (and exit 130)."""
    from league_util import wait_for_games

    path = write_config(tmp_path, deals=40, workers=1, variants=[{"name": "tute-2"}], entrants=[
        {"name": "slow", "bot": "league_bots:ClockedBot", "isolation": "inprocess", "params": {"sleep": 0.01}},
        {"name": "rand", "bot": "random"}])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(Path(__file__).parent),
                                                                  os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, "-m", "leagues", "run", str(path), "-q"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    try:
        assert 2 < wait_for_games(tmp_path / "store.sqlite", 2, proc) < 80, "the run ended before the stop"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "a bot's clock, not its counted work, ended a decision (first: t/tute-2/r1/t0/d0/s0)" in err
    assert "interrupted" in err.splitlines()[-1]
    # each game's mark landed with it: every stored first rotation, nothing else, for the resumed run to say
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        firsts = [g.id for g in store.games("t") if g.id.endswith("/s0")]
        assert firsts and store.clocked_games("t") == firsts


def test_sigkill_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    kw = dict(format="swiss", rounds=3, deals=100, workers=2, variants=[{"name": "tute-2"}, {"name": "tute-3"}],
              entrants=FIVE)
    ref, cut = tmp_path / "ref", tmp_path / "cut"
    ref.mkdir()
    cut.mkdir()
    ref_cfg, cut_cfg = write_config(ref, **kw), write_config(cut, **kw)
    proc = subprocess.Popen([TUTE, "run", str(cut_cfg), "--quiet"], cwd=cut, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db_path = cut / "store.sqlite"
    deadline = time.monotonic() + 60
    count = 0
    while time.monotonic() < deadline:
        if db_path.exists():
            try:
                db = sqlite3.connect(db_path, timeout=1)
                count = db.execute("SELECT count(*) FROM games").fetchone()[0]
                db.close()
            except sqlite3.Error:
                count = 0
            if count >= 300:
                break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, mid-run
    proc.wait()
    partial = stored(db_path)
    assert 300 <= len(partial) < 2100, "killed midway"
    again = subprocess.run([TUTE, "run", str(cut_cfg), "--quiet"], cwd=cut, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert f"({len(partial)} already stored)" in again.stderr
    full = subprocess.run([TUTE, "run", str(ref_cfg), "--quiet"], cwd=ref, capture_output=True, text=True)
    assert full.returncode == 0, full.stderr
    resumed, reference = stored(db_path), stored(ref / "store.sqlite")
    assert len(reference) == 2100  # 3 rounds x (2 tables x 100 deals x 2 + 1 table x 100 deals x 3)
    assert resumed == reference, "no game lost, none doubled, all identical"
    assert again.stdout.replace(str(cut), "") == full.stdout.replace(str(ref), "")


def test_changed_config_refused_new_restarts_finished_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path, deals=1)
    main(["run", str(path), "--quiet"])
    out = capsys.readouterr()
    assert "2 games played" in out.err and "rank" in out.out
    main(["run", str(path), "--quiet"])
    out = capsys.readouterr()
    assert "finished earlier" in out.err and "rank" in out.out
    write_config(tmp_path, deals=2)
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different config (changed: deals)" in err[0] and "--new" in err[0]
    assert len(stored(tmp_path / "store.sqlite")) == 2
    main(["run", str(path), "--new", "--yes", "--quiet"])
    assert len(stored(tmp_path / "store.sqlite")) == 4


def test_sigint_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=400, workers=2, variants=[{"name": "tute-2"}], entrants=FIVE[:4])
    proc = subprocess.Popen([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    db_path = tmp_path / "store.sqlite"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            db = sqlite3.connect(db_path, timeout=1)
            n = db.execute("SELECT count(*) FROM games").fetchone()[0]
            db.close()
            if n >= 200:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run again to resume" in err and "Traceback" not in err
    again = subprocess.run([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert again.returncode == 0 and len(stored(db_path)) == 6 * 400 * 2


def test_a_worker_that_dies_ends_the_run_with_one_line_and_keeps_the_store(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=20, workers=2, variants=[{"name": "tute-2"}],
                        entrants=[*FIVE[:3], {"name": "exit", "bot": "league_bots:ExitBot", "isolation": "inprocess"}])
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent))
    out = subprocess.run([TUTE, "run", str(path), "--quiet"], cwd=tmp_path, capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "worker process died" in lines[0] and "Traceback" not in out.stderr
    games = stored(tmp_path / "store.sqlite")
    # the bot dies inside its first game, so no game of its is stored; what finished before is, intact
    assert len(games) < 6 * 20 * 2
    assert all("exit" not in json.loads(seats) for seats, _, _ in games.values())
    check = subprocess.run([TUTE, "verify", "--store", str(tmp_path / "store.sqlite")], cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
