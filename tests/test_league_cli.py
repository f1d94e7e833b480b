"""`tute league` refusals (a bot failing compliance, a duplicate name, a missing plugin, bad input): one
line on stderr, exit 2, nothing stored; withdrawing and re-entering; divisions with promotion and
relegation; every command's help has an example."""

from __future__ import annotations

import re

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from leagues.league.league import League
from leagues.league.config import load_league
from leagues.league.store import LeagueStore
from leagues.tournament.store import Store

from league_util import tute, write_league

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile" / "hostile_cmd.py"


def dump(path: Path) -> dict[str, list[Any]]:
    """Every row of every table of the store."""
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        db.close()


def one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tute: error: ") and "Traceback" not in err, err
    for n in needles:  # "league.toml: key" may carry the key's line: "league.toml:5: key"
        assert re.search(re.escape(n).replace(r"\.toml:\ ", r"\.toml(:\d+)?:\ ", 1), lines[0]) or n in lines[0], \
            (n, lines[0])


def test_refusals_are_one_line_and_store_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_league(tmp_path)
    lg = ["-l", str(tmp_path)]
    code, out, err = tute(capsys, "league", "submit", "ok", "greedy", *lg, "--owner", "ana")
    assert code == 0 and "ok: new, version 1" in out, err
    store = tmp_path / "league.sqlite"
    before = dump(store)
    assert before["league_versions"] and before["league_entrants"]

    bad = f"{sys.executable} {HOSTILE} illegal 1"
    code, out, err = tute(capsys, "league", "submit", "cheat", bad, *lg)
    assert "FAIL" in out and "tute-2" in out and "illegal" in out, out  # the compliance report
    one_line_error(code, err, "fails the compliance run", "illegal",
                   "'cheat' not stored")

    code, _, err = tute(capsys, "league", "submit", "ok", "random", *lg)
    one_line_error(code, err, "'ok' is already in the league", "version 1, bot greedy, owner ana", "--update")

    for missing, needle in [("nosuchbot", "unknown bot 'nosuchbot'"), ("nomod:Bot", "No module named 'nomod'"),
                            ("bots.greedy:Nope", "has no attribute 'Nope'"),
                            (f"{sys.executable} {tmp_path / 'gone.py'}", "gone.py: no such file"),
                            ("./not-here", "not an executable file"),
                            ("python3 'x", "No closing quotation")]:
        code, _, err = tute(capsys, "league", "submit", "new", missing, *lg)
        one_line_error(code, err, needle)

    cases = [
        (["ok", "greedy", "--update", "--owner", "ana"], "nothing changed"),
        (["ok", "greedy", "--update", "--owner", "bob"], "belongs to ana"),
        (["zz", "greedy", "--update"], "no entrant 'zz'"),
        (["a/b", "greedy"], "entrant name 'a/b'"),
        (["a\x01b", "greedy"], "control characters"),
        (["a\u202eb", "greedy"], "control characters"),
        (["a\udcffb", "greedy"], "control characters"),  # a byte that is not UTF-8 on the command line
        (["x", "greedy", "--owner", "a\udcffb"], "--owner 'a\\udcffb': up to 100 characters, without control"),
        (["x", "greedy", "--owner", "\u202eowner"], "--owner"),
        (["x", "greedy", "--params", "[1]"], "--params '[1]': expected a JSON object"),
        (["x", "greedy", "--params", '{"a":' * 5000 + "1" + "}" * 5000], "not JSON a bot can take"),
        (["x", "random", "--params", '{"bogus": 1}'], "cannot construct"),
    ]
    for args, needle in cases:
        code, _, err = tute(capsys, "league", "submit", *args, *lg)
        one_line_error(code, err, needle)
    code, _, err = tute(capsys, "league", "withdraw", "zz", *lg)
    one_line_error(code, err, "no entrant 'zz'", "entered: ok")
    code, _, err = tute(capsys, "league", "season", *lg)
    one_line_error(code, err, "needs at least 2 active entrants", "has 1")
    code, _, err = tute(capsys, "league", "history", "zz", *lg)
    one_line_error(code, err, "no entrant 'zz'")
    assert dump(store) == before, "no refusal stores anything"


def test_config_and_folder_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tute(capsys, "league", "standings", "-l", str(tmp_path / "none"))
    one_line_error(code, err, "none/league.toml: no such file")
    write_league(tmp_path, rating={"tau": -1})
    code, _, err = tute(capsys, "league", "standings", "-l", str(tmp_path))
    one_line_error(code, err, "league.toml: rating.tau: must not be negative")
    write_league(tmp_path, colour="red")
    code, _, err = tute(capsys, "league", "season", "-l", str(tmp_path))
    one_line_error(code, err, "league.toml: colour: unknown key")
    write_league(tmp_path, variants=[{"name": "tute-9"}])
    code, _, err = tute(capsys, "league", "submit", "g", "greedy", "-l", str(tmp_path))
    one_line_error(code, err, "league.toml: variants[0].name")
    write_league(tmp_path, name="other")
    code, _, err = tute(capsys, "league", "standings", "-l", str(tmp_path))
    one_line_error(code, err, "holds the league 'club', not 'other'")
    code, _, err = tute(capsys, "league", "init", str(tmp_path))
    one_line_error(code, err, "league.toml: exists already")
    code, out, err = tute(capsys, "league", "init", str(tmp_path / "new club"))
    assert code == 0 and 'name = "new-club"' in (tmp_path / "new club" / "league.toml").read_text(), err
    code, out, _ = tute(capsys, "league", "standings", "-l", str(tmp_path / "new club"))
    assert code == 0 and "before the first season" in out


def test_withdraw_then_reenter_unchanged_keeps_the_version(tmp_path: Path) -> None:
    write_league(tmp_path)
    with League.open(tmp_path) as lg:
        lg.submit("a", "random", params={"seed": 1})
        lg.submit("b", "random", params={"seed": 2})
        lg.submit("c", "greedy")
        lg.play_season(quiet=True)
        lg.withdraw("c")
        season, _ = lg.play_season(quiet=True)
        assert {e.entrant for e in lg.db.season_entrants(season.season)} == {"a", "b"}
        again = lg.submit("c", "greedy", update=True)
        assert (again.what, again.version.version, again.report) == ("re-entered", 1, None)
        changed = lg.submit("b", "random", params={"seed": 5}, update=True)
        assert (changed.what, changed.version.version) == ("new version", 2)
        season, _ = lg.play_season(quiet=True)
        field = {(e.entrant, e.version) for e in lg.db.season_entrants(season.season)}
        assert field == {("a", 1), ("b", 2), ("c", 1)}
        # c sat season 2 out: its prior for season 3 is widened by two seasons of tau
        c1 = lg.db.ratings(season=1, scope="*", entrant="c")[0]
        c3 = lg.db.ratings(season=3, scope="*", entrant="c")[0]
        tau = lg.cfg.rating.tau
        assert (c3.prior_mu, c3.prior_sigma) == pytest.approx((c1.mu, (c1.sigma ** 2 + 2 * tau ** 2) ** 0.5))


def test_divisions_promote_and_relegate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_league(tmp_path, divisions=2, promote=1)
    with League.open(tmp_path) as lg:
        for i in range(1, 6):
            lg.submit(f"r{i}", "random", params={"seed": i})
        lg.submit("g", "greedy")
        for _ in range(3):
            lg.play_season(quiet=True)
        seasons = lg.db.seasons()
        k = lg.cfg.rating.k
        entries = lg.db.season_entrants()
        ratings = {(x.season, x.entrant): x for x in lg.db.ratings(scope="*")}
    assert [s.tournaments for s in seasons] == [(f"club/s{n}/div1", f"club/s{n}/div2") for n in (1, 2, 3)]
    cfg = load_league(tmp_path)
    with Store(cfg.store) as store:
        for s in seasons:
            div = {e.entrant: e.division for e in entries if e.season == s.season}
            assert sorted(div.values()) == [1, 1, 1, 2, 2, 2]
            for d, t in enumerate(s.tournaments, start=1):
                games = store.games(t)
                assert games and all(div[n] == d for g in games for n in g.seats), "a division plays alone"
    for n in (1, 2):
        now = {e.entrant: e for e in entries if e.season == n}
        nxt = {e.entrant: e for e in entries if e.season == n + 1}
        for d in (1, 2):
            members = sorted((e for e in now.values() if e.division == d),
                             key=lambda e: -ratings[(n, e.entrant)].conservative(k))
            assert [e.place for e in members] == [1, 2, 3], "places follow the season's ratings"
        up = [e.entrant for e in now.values() if e.division == 2 and e.place == 1]
        down = [e.entrant for e in now.values() if e.division == 1 and e.place == 3]
        assert [nxt[x].division for x in up] == [1] and [nxt[x].division for x in down] == [2]
        assert all(nxt[x].division == now[x].division for x in now if x not in up + down)
    code, out, _ = tute(capsys, "league", "standings", "-l", str(tmp_path))
    assert code == 0 and "division" in out and "up" in out and "down" in out
    # a division left too small to seat a table is cut again from the whole field
    with League.open(tmp_path) as lg:
        top = [e.entrant for e in entries if e.season == 3 and e.next_division == 1]
        for name in top[:2]:
            lg.withdraw(name)
        season, _ = lg.play_season(quiet=True)
        field = lg.db.season_entrants(season.season)
    assert sorted(e.division for e in field) == [1, 1, 2, 2]


@pytest.mark.parametrize("command", ["init", "submit", "withdraw", "season", "standings", "history", "report"])
def test_every_command_has_help_with_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = tute(capsys, "league", command, "--help")
    assert code == 0 and "Example" in out and f"tute league {command}" in out


def test_store_tables_are_the_leagues(tmp_path: Path) -> None:
    write_league(tmp_path)
    with LeagueStore(tmp_path / "league.sqlite") as db:
        assert db.league_name() == "club" and db.seasons() == [] and db.entrants() == []


def test_a_league_before_its_first_season(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its store holds the league's tables but no game yet: the report is the empty league, and the
    game readers say that (they said the league's own store was not tute's)."""
    lg = tmp_path / "club"
    code, _, err = tute(capsys, "league", "init", str(lg))
    assert code == 0, err
    code, out, err = tute(capsys, "league", "report", "-l", str(lg), "--out", str(tmp_path / "r"))
    assert code == 0 and "Traceback" not in err, err
    assert "0 seasons, 0 entrants" in (tmp_path / "r" / "index.html").read_text()
    for reader in (["games"], ["leaderboard"], ["export"], ["verify"]):
        code, _, err = tute(capsys, *reader, "--store", str(lg / "league.sqlite"))
        one_line_error(code, err, "no games stored yet (a league's store before its first season)")


def test_a_tournament_store_is_never_made_a_league(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """league.toml naming a tournament's store: every league command, reading ones too, added the
    league's tables to it and claimed it. Refused, the file untouched."""
    from league_util import write_config

    write_config(tmp_path, deals=1, workers=1)
    code, _, err = tute(capsys, "run", str(tmp_path / "tournament.toml"), "-q")
    assert code == 0, err
    store = tmp_path / "store.sqlite"
    sqlite3.connect(store).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    before = store.read_bytes()
    lg = tmp_path / "club"
    write_league(lg, store=str(store))
    for command in (["standings"], ["season"], ["submit", "g", "greedy"], ["report", "--out", str(tmp_path / "r")]):
        code, _, err = tute(capsys, "league", *command, "-l", str(lg))
        one_line_error(code, err, "a tournament store, not a league's (check league.toml's store)")
    assert store.read_bytes() == before


def test_init_writes_the_name_given_as_a_toml_string(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The name was written between quotes as it was: a quote and a newline in it wrote keys of their
    own into league.toml (a log anywhere). Written escaped, it is the name given, or refused."""
    code, _, err = tute(capsys, "league", "init", str(tmp_path / "a"), "--name", 'x"#')
    assert code == 0, err
    assert load_league(tmp_path / "a" / "league.toml").name == 'x"#'
    code, _, err = tute(capsys, "league", "init", str(tmp_path / "b"), "--name", 'pwn"\nlog="/tmp/injected.log"\n#')
    one_line_error(code, err, "name:", "must be non-empty, without '/' or spaces")
    assert not (tmp_path / "b").exists()


def test_a_second_season_at_the_same_time_is_refused_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Two ``tute league season`` started together both found no season open and both stored one: the
    second died on SQLite's own "UNIQUE constraint failed". One season is played at a time now, and the
    other is told who plays it, before anything is stored."""
    import subprocess
    import time

    from leagues.league.league import SEASON_LOCK

    write_league(tmp_path)
    with League.open(tmp_path) as lg:
        lg.submit("g", "greedy", owner="ana")
        lg.submit("r", "random", owner="ben")
        store = lg.cfg.store
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from leagues.tournament.lock import RunLock\n"
         "with RunLock(Path(sys.argv[1]), sys.argv[2]):\n    print('held', flush=True); time.sleep(60)",
         str(store), SEASON_LOCK], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = dump(store)
        code, _, err = tute(capsys, "league", "season", "-l", str(tmp_path), "-q")
        one_line_error(code, err, "club: a season is being played by another tute", f"pid {holder.pid}")
        assert dump(store) == before
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    code, _, err = tute(capsys, "league", "season", "-l", str(tmp_path), "-q")
    assert code == 0 and "season 1 finished" in err, err
