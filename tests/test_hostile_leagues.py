"""Hostile leagues: a league.toml with nan or huge ratings, a bot that stops starting after it was
submitted, an entrant that forfeits every deal, a cluster out of reach, a store damaged by hand. Each
must end in one line on stderr (exit 2, or 3 for the forfeits, as ``tute run``), store nothing on a
refusal and never lock the league."""

from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from leagues.tournament.config import EntrantConfig
from leagues.league.league import League
from leagues.league.store import SeasonEntrant

from league_util import tute, write_league
from test_league_cli import dump, one_line_error

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile" / "hostile_cmd.py"

#: a command bot whose behaviour its folder's MODE file sets after submission (the file is not one of
#: the bot's hashed files): "ok" plays randomly, "nohello" exits 4 at start, "illegal" forfeits every deal
SWITCH = f'''
import os, runpy, sys
here = os.path.dirname(os.path.abspath(__file__))
mode = open(os.path.join(here, "MODE")).read().strip()
if mode == "nohello":
    sys.exit(4)
if mode == "illegal":
    sys.argv = ["hostile_cmd.py", "illegal"]
    runpy.run_path({str(HOSTILE)!r}, run_name="__main__")
else:
    runpy.run_path({str(ROOT / "examples" / "random_bot.py")!r}, run_name="__main__")
'''


def switch_league(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], Path]:
    """A league of greedy, random and the switchable command bot 'hf' (submitted while it works)."""
    write_league(tmp_path)
    (tmp_path / "hf.py").write_text(SWITCH, encoding="utf-8")
    (tmp_path / "MODE").write_text("ok", encoding="utf-8")
    lg = ["-l", str(tmp_path)]
    for name, bot in (("g", "greedy"), ("r", "random"), ("hf", f"{sys.executable} {tmp_path / 'hf.py'}")):
        code, _, err = tute(capsys, "league", "submit", name, bot, *lg)
        assert code == 0, err
    return lg, tmp_path / "league.sqlite"


# ------------------------------------------------------------------------------ 1: [rating] numbers
@pytest.mark.parametrize("key, value", [("mu", float("nan")), ("sigma", float("inf")), ("k", float("nan")),
                                        ("mu", 1e308), ("version_sigma", float("inf"))])
def test_rating_numbers_must_be_finite_and_sensible(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    key: str, value: float) -> None:
    write_league(tmp_path, tables={"rating": {key: value}})
    code, _, err = tute(capsys, "league", "standings", "-l", str(tmp_path))
    one_line_error(code, err, "league.toml", f"rating.{key}", "must be a finite number of sensible size")


def test_a_season_started_with_a_bad_rating_is_planned_again(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A season stored with ``mu = nan`` (before the check) played no game: once league.toml is
    fixed, ``season`` plans it again from it instead of crashing on the stored copy for ever."""
    lg, store = switch_league(tmp_path, capsys)
    with League.open(tmp_path) as league:
        bad = league.cfg.text + "\n[rating]\nmu = nan\n"
        league.db.start_season(1, bad, ["club/s1"], [SeasonEntrant(1, n, 1, 1) for n in ("g", "r", "hf")])
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    assert code == 0, err
    with League.open(tmp_path) as league:
        (season,) = league.db.seasons()
        assert season.finished is not None and "nan" not in season.config


def test_a_played_season_with_a_bad_stored_copy_is_one_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """With games stored the season cannot be planned again: its copy is checked by the same checker
    and the user gets one line saying which season's copy and key, not a traceback."""
    lg, store = switch_league(tmp_path, capsys)
    assert tute(capsys, "league", "season", *lg, "--quiet")[0] == 0
    with closing(sqlite3.connect(store)) as db, db:
        text = db.execute("SELECT config FROM league_seasons").fetchone()[0]
        db.execute("UPDATE league_seasons SET finished = NULL, config = ?", (text + "\n[rating]\nk = nan\n",))
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    one_line_error(code, err, "season 1's league.toml", "rating.k", "must be a finite number",
                   "cannot be finished with this copy")


# ------------------------------------------------------------------- 2: a bot that stops starting
def test_a_bot_that_stops_starting_is_named_and_can_be_withdrawn(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    lg, store = switch_league(tmp_path, capsys)
    (tmp_path / "MODE").write_text("nohello", encoding="utf-8")
    before = dump(store)
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    one_line_error(code, err, "season 1 not started", "entrant 'hf' did not start", "tute league withdraw hf")
    assert "league.toml" not in err, err  # the bot is at fault, not the config
    assert dump(store) == before  # a refusal stores nothing
    assert tute(capsys, "league", "withdraw", "hf", *lg)[0] == 0
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    assert code == 0, err
    with League.open(tmp_path) as league:
        assert {e.entrant for e in league.db.season_entrants(1)} == {"g", "r"}


def test_a_withdrawal_applies_to_a_stored_season_with_no_game(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A store from before the start check: season 1 stored as started with 'hf', which then stopped
    starting. Withdrawing it must let the season be played (planned again without it)."""
    lg, store = switch_league(tmp_path, capsys)
    with League.open(tmp_path) as league:
        league._start_season()
    (tmp_path / "MODE").write_text("nohello", encoding="utf-8")
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    one_line_error(code, err, "entrant 'hf' did not start", "tute league withdraw hf")
    assert tute(capsys, "league", "withdraw", "hf", *lg)[0] == 0
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    assert code == 0, err
    with League.open(tmp_path) as league:
        assert [s.season for s in league.db.seasons()] == [1]
        assert {e.entrant for e in league.db.season_entrants(1)} == {"g", "r"}


def test_a_season_planned_again_in_fewer_divisions_leaves_no_empty_division(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Season 1 planned in two divisions, its first one's tournament stored as a run makes it, then
    stopped before a game; a withdrawal leaves three entrants, one division. The season played then
    holds only the new division: the old ones are not left as tournaments that never finish."""
    from leagues.tournament.runner import prepare
    from leagues.tournament.store import Store

    write_league(tmp_path, divisions=2)
    lg = ["-l", str(tmp_path)]
    for name, bot in (("g", "greedy"), ("r", "random"), ("g2", "greedy"), ("r2", "random")):
        assert tute(capsys, "league", "submit", name, bot, *lg)[0] == 0
    with League.open(tmp_path) as league:
        season = league._start_season()
        assert list(season.tournaments) == ["club/s1/div1", "club/s1/div2"]
        cfg = league.season_config(season)
        entries = league.db.season_entrants(1)
        first = [EntrantConfig(e.entrant, "greedy" if e.entrant.startswith("g") else "random", {}, "auto")
                 for e in entries if e.division == 1]
        with Store(cfg.store) as store:
            prepare(cfg.season_tournament(1, 1, 2, first, {}), store)
    assert tute(capsys, "league", "withdraw", "r2", *lg)[0] == 0
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    assert code == 0, err
    with League.open(tmp_path) as league:
        assert list(league.db.seasons()[0].tournaments) == ["club/s1"]
    with closing(sqlite3.connect(tmp_path / "league.sqlite")) as db:
        assert [r[0] for r in db.execute("SELECT name FROM tournaments")] == ["club/s1"]


def test_a_bot_that_stops_starting_mid_season_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A season with games stored keeps its field: the entrant that no longer starts is named (not the
    season's league.toml), exit 2."""
    lg, store = switch_league(tmp_path, capsys)
    assert tute(capsys, "league", "season", *lg, "--quiet")[0] == 0
    with closing(sqlite3.connect(store)) as db, db:  # as if killed before the tournament's end
        db.execute("UPDATE league_seasons SET finished = NULL")
        db.execute("UPDATE tournaments SET finished = NULL")
    (tmp_path / "MODE").write_text("nohello", encoding="utf-8")
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet")
    one_line_error(code, err, "season 1 cannot go on", "entrant 'hf' did not start", "--forfeit-missing")
    assert "league.toml" not in err, err
    # a bot gone for good does not lock the league: its games left are forfeits, said first
    code, out, err = tute(capsys, "league", "season", *lg, "--quiet", "--forfeit-missing")
    assert code == 0, err
    assert "warning: season 1: entrant 'hf' did not start" in err and "standings after season 1" in out
    with League.open(tmp_path) as league:
        assert league.db.seasons()[0].finished is not None


# ------------------------------------------------------------------ 3: every deal forfeited
def test_an_entrant_forfeiting_every_deal_is_said_and_exits_3(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    lg, store = switch_league(tmp_path, capsys)
    (tmp_path / "MODE").write_text("illegal", encoding="utf-8")
    code, out, err = tute(capsys, "league", "season", *lg, "--quiet")
    assert code == 3, err
    assert "forfeits:" in err and "hf:" in err, err
    assert "tute: error: hf forfeited every deal" in err, err
    assert "standings after season 1" in out  # the table is still printed, above the error
    header = next(line for line in out.splitlines() if line.startswith("rank"))
    assert header.split()[-1] == "forfeits", out
    row = next(line for line in out.splitlines() if " hf " in line)
    assert int(row.split()[-1]) > 0, out
    with League.open(tmp_path) as league:
        assert league.db.seasons()[0].finished is not None  # the season is stored: nothing to resume


# ------------------------------------------------------------------------ 5: cluster out of reach
def test_an_unreachable_cluster_stores_no_season(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lg, store = switch_league(tmp_path, capsys)
    before = dump(store)
    code, _, err = tute(capsys, "league", "season", *lg, "--quiet", "--cluster", "tcp://127.0.0.1:1")
    one_line_error(code, err, "--cluster tcp://127.0.0.1:1")
    assert dump(store) == before


# ------------------------------------------------------------------------------ 4: a damaged store
@pytest.mark.parametrize("table, sql", [
    ("league_versions", "UPDATE league_versions SET params = 'garbage' WHERE entrant = 'g'"),
    ("league_versions", "UPDATE league_versions SET files = '{oops' WHERE entrant = 'g'"),
    ("league_versions", "UPDATE league_versions SET bot = '[1, 2' WHERE entrant = 'hf'"),
    ("league_seasons", "UPDATE league_seasons SET tournaments = 'garbage'"),
    ("league_ratings", "UPDATE league_ratings SET mu = 'lots' WHERE entrant = 'g'"),
])
def test_a_damaged_store_is_one_line_naming_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      table: str, sql: str) -> None:
    lg, store = switch_league(tmp_path, capsys)
    assert tute(capsys, "league", "season", *lg, "--quiet")[0] == 0
    with closing(sqlite3.connect(store)) as db, db:
        db.execute(sql)
    commands = [["season", "--quiet"], ["standings"], ["report", "--out", str(tmp_path / "report")]]
    if table in ("league_ratings", "league_versions"):
        commands.append(["history", "g" if "hf" not in sql else "hf"])
    for args in commands:
        code, _, err = tute(capsys, "league", *args, *lg)
        one_line_error(code, err, str(store), f"table {table}")


@pytest.mark.parametrize("key, value", [("time_limit_ms", 99_999_999_999), ("deals", 10**9), ("workers", 10**6)])
def test_a_league_has_the_ceilings_of_a_tournament(key: str, value: int) -> None:
    """A season is a tournament: a move limit beyond the hosts' waits (every move a forfeit), or a typo
    asking for a million workers, is refused in league.toml as in tournament.toml."""
    from leagues.league.config import parse_league
    from leagues.tournament.checks import ConfigError

    with pytest.raises(ConfigError, match=f"{key}: must be at most"):
        parse_league(f'name = "club"\n{key} = {value}\n[[variants]]\nname = "tute-2"\n')
