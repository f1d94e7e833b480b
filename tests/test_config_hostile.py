"""Hostile values in tournament.toml and league.toml: each is refused with one line naming the file, the
line and the key, exit status 2, and nothing is created or written; the league's keys are refused by
the tournament's own checks (paths, ceilings), not by a copy of them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leagues.league.config import load_league
from leagues.tournament.config import ConfigError, load_config

from league_util import config_text, tute, write_config, write_league

#: longer than Python reads from text (sys.get_int_max_str_digits(), 4300 by default)
HUGE = "7" * 4400


def files(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder): to see that nothing was written."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


def refused(capsys: pytest.CaptureFixture[str], folder: Path, *args: str) -> str:
    """Run ``tute ARGS``; it must exit 2 with one error line and leave ``folder`` exactly as it was."""
    before = files(folder)
    code, _, err = tute(capsys, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tute: error: "), err
    assert files(folder) == before
    return lines[0]


# ------------------------------------------------------------------------------------- tournament.toml
@pytest.mark.parametrize("store,log,message", [
    ("s/t.sqlite", "s", "log: {base}/s is the store's folder"),
    ("t.sqlite", ".", "log: {base} is the store's folder"),
    ("t.sqlite", "t.sqlite/run.log", "log: {base}/t.sqlite/run.log is under the store"),
    ("t.sqlite", "t.sqlite-wal", "log: {base}/t.sqlite-wal is the store's write-ahead log"),
    ("t.sqlite", "t.sqlite-shm", "log: {base}/t.sqlite-shm is the store's shared-memory index"),
    ("t.sqlite", "t.sqlite-journal", "log: {base}/t.sqlite-journal is the store's rollback journal"),
    ("t.sqlite", "t.sqlite.t.lock", "log: {base}/t.sqlite.t.lock is the name of a run's lock file"),
])
def test_a_log_that_is_the_stores_folder_or_companion_is_refused_before_anything_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], store: str, log: str, message: str) -> None:
    """The runner makes the store (and its folder) before it opens the log: a log naming the store's
    folder was a traceback that left the store behind, and one naming a file SQLite or the run lock
    keeps beside the store was accepted."""
    path = write_config(tmp_path, store=store, log=log, workers=1)
    line = refused(capsys, tmp_path, "run", str(path))
    assert re.search(rf"tournament\.toml:\d+: {re.escape(message.format(base=tmp_path))}", line), line


@pytest.mark.parametrize("top,message", [
    (dict(memory_mb=10 ** 22), "memory_mb: must be at most 1048576, not 10000000000000000000000"),
    (dict(format="swiss", rounds=100000), "rounds: must be at most 1000, not 100000"),
])
def test_counts_have_ceilings(tmp_path: Path, capsys: pytest.CaptureFixture[str], top: dict, message: str) -> None:
    """memory_mb = 10**22 was blamed on the bot (its preexec_fn failed); 100,000 Swiss rounds ran on."""
    path = write_config(tmp_path, **top)
    line = refused(capsys, tmp_path, "run", str(path))
    assert re.search(rf"tournament\.toml:\d+: {re.escape(message)}$", line), line


@pytest.mark.parametrize("old,number,key", [
    ("seed = 7", "7", "seed"),
    ("deals = 2", "2", "deals"),
    ("hand_size = 999", "999", "variants[0].options"),
    ("params = { seed = 2 }", "2", "entrants[1].params"),
])
def test_an_integer_too_long_for_python_is_the_keys_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             old: str, number: str, key: str) -> None:
    """tomllib raised Python's int/str limit as a bare ValueError: a traceback without file or key."""
    text = config_text(variants=[{"name": "tute-2", "options": {"hand_size": 999}}])
    lines = text.splitlines()
    line_no = next(i for i, t in enumerate(lines, 1) if old in t)
    path = tmp_path / "tournament.toml"
    path.write_text(text.replace(old, old.replace(number, HUGE)), encoding="utf-8")
    line = refused(capsys, tmp_path, "run", str(path))
    assert line == f"tute: error: {path}:{line_no}: {key}: an integer of more than 4300 digits, far past any " \
                   "setting's range"


def test_match_max_deals_is_named_as_itself(tmp_path: Path) -> None:
    path = write_config(tmp_path, variants=[{"name": "tute-2", "unit": "match", "match_max_deals": 0}])
    with pytest.raises(ConfigError, match=r"tournament\.toml:\d+: variants\[0\]\.match_max_deals: max_deals must be "
                                          r"from 1 to 10000, not 0$"):
        load_config(path)


def test_a_byte_order_mark_is_ignored_and_lines_still_count(tmp_path: Path) -> None:
    """Windows editors save UTF-8 with a BOM: it was "Invalid statement (line 1, column 1)"."""
    text = config_text()
    path = tmp_path / "tournament.toml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_config(path).name == "t"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("deals = 2", "deals = 0").encode())
    line_no = text.splitlines().index("deals = 2") + 1
    with pytest.raises(ConfigError, match=rf"tournament\.toml:{line_no}: deals: must be at least 1"):
        load_config(path)


# ----------------------------------------------------------------------------------------- league.toml
@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A league folder with its store and a notes file of the user's beside league.toml."""
    folder = tmp_path / "club"
    write_league(folder)
    (folder / "notes.txt").write_text("my notes\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("log,message", [
    ("league.toml", "log: {base}/league.toml exists and is not a tute log"),
    ("notes.txt", "log: {base}/notes.txt exists and is not a tute log"),
    ("league.sqlite", "log: {base}/league.sqlite is the store and the log at once"),
    (".", "log: {base} is the store's folder"),
    ("league.sqlite-wal", "log: {base}/league.sqlite-wal is the store's write-ahead log"),
    ("league.sqlite.club%2Fs1.lock", "log: {base}/league.sqlite.club%2Fs1.lock is the name of a run's lock file"),
])
def test_a_leagues_log_is_checked_as_a_tournaments(club: Path, capsys: pytest.CaptureFixture[str], log: str,
                                                   message: str) -> None:
    """league.toml's log was never checked: a season appended its log to league.toml itself (breaking
    every later command) or to a user's file, or failed with a traceback on a folder."""
    path = write_league(club, log=log)
    line = refused(capsys, club, "league", "season", "-l", str(club))
    assert re.search(rf"league\.toml:\d+: {re.escape(message.format(base=club))}", line), line
    assert path.read_text(encoding="utf-8").endswith('name = "tute-2"\n')


@pytest.mark.parametrize("top,tables,message", [
    (dict(format="gauntlet"), {}, "format: must be one of round-robin, swiss, not 'gauntlet'"),
    (dict(format="match"), {}, "format: must be one of round-robin, swiss, not 'match'"),
    (dict(divisions=10 ** 30), {}, "divisions: must be at most 1000, not 1000000000000000000000000000000"),
    (dict(format="swiss", rounds=100000), {}, "rounds: must be at most 1000, not 100000"),
    (dict(memory_mb=10 ** 22), {}, "memory_mb: must be at most 1048576, not 10000000000000000000000"),
    ({}, {"check": {"deals": 10 ** 14}}, "check.deals: must be at most 1000000, not 100000000000000"),
])
def test_a_leagues_formats_and_ceilings(club: Path, capsys: pytest.CaptureFixture[str], top: dict, tables: dict,
                                        message: str) -> None:
    """A gauntlet or match season played no game and used up a season number; 10**30 divisions hung
    ``league season``; a huge [check] deals made ``league submit`` run on and on."""
    write_league(club, tables=tables, **top)
    line = refused(capsys, club, "league", "submit", "g", "greedy", "-l", str(club))
    assert re.search(rf"league\.toml:\d+: {re.escape(message)}", line), line


def test_a_leagues_long_seed_and_byte_order_mark(club: Path) -> None:
    path = club / "league.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("seed = 3", f"seed = {HUGE}"), encoding="utf-8")
    line_no = text.splitlines().index("seed = 3") + 1
    with pytest.raises(ConfigError, match=rf"league\.toml:{line_no}: seed: an integer of more than 4300 digits"):
        load_league(club)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    cfg = load_league(club)
    assert cfg.seed == 3 and cfg.text == text  # the season's snapshot holds no BOM


def test_every_problem_at_once_in_both_files(tmp_path: Path, club: Path) -> None:
    """docs/config.md: every problem of the file is reported at once; league.toml stopped at the first."""
    empty = tmp_path / "tournament.toml"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(empty)
    assert [line.split(": ", 1)[1] for line in str(err.value).splitlines()] == \
        ["name: missing", "entrants: missing", "variants: missing"]
    (club / "league.toml").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_league(club)
    assert [line.split(": ", 1)[1] for line in str(err.value).splitlines()] == ["name: missing", "variants: missing"]
    write_league(club, deals=0, log=".", tables={"rating": {"tau": -1}})
    with pytest.raises(ConfigError) as err:
        load_league(club)
    assert [re.sub(r"^.*league\.toml:\d+: ", "", line).split(":")[0] for line in str(err.value).splitlines()] == \
        ["deals", "log", "rating.tau"]
