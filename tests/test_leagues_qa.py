"""QA of leagues as a club runs one over months: many seasons with league.toml edited between them
(variants added and dropped, tau, sigma and version_sigma changed, divisions changed), entrants
withdrawn, re-entered and upgraded, every table recomputed from the stored games; the same seasons with
1 and 2 workers; standings after newcomers arrive; past tables after an edit; the report with many
entrants, long and hostile names on a phone; hostile league.toml keys and bot commands."""

from __future__ import annotations

import json
import math
import sqlite3
import sys
import time
from collections import defaultdict
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from arena.record_schema import CONTROL
from leagues.league.config import load_league, parse_league
from leagues.league.league import League
from leagues.league.plugin_hash import plugin_files
from leagues.league.report import write_report
from leagues.league.store import LeagueStore, Version
from leagues.tournament.rating import Rater
from leagues.tournament.store import GameRow, Store

from league_util import carried_priors, tute, write_league
from test_league_cli import dump, one_line_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "random_bot.py"


def teams_of(cfg: Any) -> dict[str, list[tuple[int, ...]]]:
    return {v.label: [tuple(t) for t in v.variant.teams] for v in cfg.variants}


def outcome(g: GameRow, name: str, teams: dict[str, list[tuple[int, ...]]]) -> str:
    ranks = {g.seats[t[0]]: g.result.ranks[t[0]] for t in teams[g.variant]}
    if ranks[name] != 0:
        return "l"
    return "w" if list(ranks.values()).count(0) == 1 else "d"


# ------------------------------------------------------------ many seasons, league.toml edited between
@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five seasons of one league whose league.toml changes between them, with withdrawals, a
    re-entry, new versions (params and files) and a newcomer:

    s1: tute-2; r1, r2, r3, g, mine (a command)
    s2: + tute-3, tau 0.5, version_sigma 2; r3 withdrawn; r1 new params (v2); mine's file changed (v2)
    s3: tute-3 only, [rating] sigma 3 (caps every carried sigma); r3 re-entered unchanged; newcomer n
    s4: tute-2 and tute-3 again, 2 divisions
    s5: nothing changed
    """
    folder = tmp_path_factory.mktemp("edited")
    write_league(folder, variants=[{"name": "tute-2"}])
    script = folder / "mine.py"
    script.write_text(EXAMPLE.read_text())
    cmd = f"{sys.executable} {script}"
    with League.open(folder) as lg:
        for i in (1, 2, 3):
            lg.submit(f"r{i}", "random", owner="o", params={"seed": i})
        lg.submit("g", "greedy", owner="o")
        lg.submit("mine", cmd, owner="eva")
        lg.play_season(quiet=True)
    write_league(folder, variants=[{"name": "tute-2"}, {"name": "tute-3"}],
                 tables={"rating": {"tau": 0.5, "version_sigma": 2.0}})
    script.write_text(EXAMPLE.read_text() + "\n# v2\n")
    with League.open(folder) as lg:
        lg.withdraw("r3")
        assert lg.submit("r1", "random", owner="o", params={"seed": 11}, update=True).version.version == 2
        assert lg.submit("mine", cmd, owner="eva", update=True).version.version == 2
        lg.play_season(quiet=True)
    write_league(folder, variants=[{"name": "tute-3"}], tables={"rating": {"sigma": 3.0}})
    with League.open(folder) as lg:
        assert lg.submit("r3", "random", owner="o", params={"seed": 3}, update=True).what == "re-entered"
        lg.submit("n", "random", owner="o", params={"seed": 9})
        lg.play_season(quiet=True)
    write_league(folder, variants=[{"name": "tute-2"}, {"name": "tute-3"}], divisions=2)
    with League.open(folder) as lg:
        lg.play_season(quiet=True)
        lg.play_season(quiet=True)
    return folder


def recompute(folder: Path) -> tuple[dict[tuple[int, str, str], dict[str, Any]], dict[int, dict[str, int]]]:
    """Every season's rating rows from its games alone, each season with the rules of its own copy of
    league.toml (docs/leagues.md, "Ratings across seasons"); and each season's places by the copy's k."""
    out: dict[tuple[int, str, str], dict[str, Any]] = {}
    places: dict[int, dict[str, int]] = {}
    # (scope, entrant) -> (version, mu, sigma, season)
    state: dict[tuple[str, str], tuple[int, float, float, int]] = {}
    cfg_now = load_league(folder)
    with LeagueStore(cfg_now.store) as db, Store(cfg_now.store) as store:
        for season in db.seasons():
            n = season.season
            cfg = parse_league(season.config, base=folder, files=False)
            r, teams = cfg.rating, teams_of(cfg)
            entries = db.season_entrants(n)
            field = {e.entrant: e.version for e in entries}
            division = {e.entrant: e.division for e in entries}
            games = [g for t in season.tournaments for g in store.games(t)]
            for g in games:
                assert len({division[x] for x in g.seats}) == 1, "a division plays alone"
            for scope in ["*", *cfg.labels]:
                priors = carried_priors(state, scope, field, n, r)
                rater = Rater(r.in_season(), teams, priors)
                counts: dict[str, dict[str, int]] = {name: defaultdict(int) for name in field}
                for g in sorted((g for g in games if scope == "*" or g.variant == scope),
                                key=lambda g: (g.tournament, g.order)):
                    rater.add(g)
                    for name in set(g.seats):
                        counts[name][outcome(g, name, teams)] += 1
                for name, version in field.items():
                    mu, sigma = rater.state(name)
                    state[(scope, name)] = (version, mu, sigma, n)
                    c = counts[name]
                    out[(n, scope, name)] = {"version": version, "prior": priors[name], "mu": mu, "sigma": sigma,
                                             "games": c["w"] + c["d"] + c["l"], "wins": c["w"], "draws": c["d"],
                                             "losses": c["l"]}
            places[n] = {}
            for d in sorted(set(division.values())):
                members = sorted((x for x in field if division[x] == d),
                                 key=lambda x: (-(out[(n, "*", x)]["mu"] - r.k * out[(n, "*", x)]["sigma"]),
                                                -out[(n, "*", x)]["mu"], x))
                places[n].update({x: i for i, x in enumerate(members, start=1)})
    return out, places


def test_five_seasons_with_league_toml_edits_agree_with_the_stored_games(edited: Path) -> None:
    want, places = recompute(edited)
    cfg = load_league(edited)
    with LeagueStore(cfg.store) as db:
        seasons = db.seasons()
        stored = db.ratings()
        entries = db.season_entrants()
    assert [s.season for s in seasons] == [1, 2, 3, 4, 5] and all(s.finished for s in seasons)
    assert [s.tournaments for s in seasons][3:] == [("club/s4/div1", "club/s4/div2"), ("club/s5/div1", "club/s5/div2")]
    field = {n: {e.entrant: e.version for e in entries if e.season == n} for n in (1, 2, 3)}
    assert field[1] == {"r1": 1, "r2": 1, "r3": 1, "g": 1, "mine": 1}
    assert field[2] == {"r1": 2, "r2": 1, "g": 1, "mine": 2}
    assert field[3] == {"r1": 2, "r2": 1, "r3": 1, "g": 1, "mine": 2, "n": 1}
    # scopes: only the variants of each season's own copy of league.toml
    assert {(x.season, x.scope) for x in stored} == {(1, "*"), (1, "tute-2"), (2, "*"), (2, "tute-2"), (2, "tute-3"),
                                                     (3, "*"), (3, "tute-3"), (4, "*"), (4, "tute-2"), (4, "tute-3"),
                                                     (5, "*"), (5, "tute-2"), (5, "tute-3")}
    assert len(stored) == len(want)
    for x in stored:
        w = want[(x.season, x.scope, x.entrant)]
        assert x.version == w["version"]
        assert (x.prior_mu, x.prior_sigma) == pytest.approx(w["prior"], abs=1e-9), (x.season, x.scope, x.entrant)
        assert (x.mu, x.sigma) == pytest.approx((w["mu"], w["sigma"]), abs=1e-9)
        assert (x.games, x.wins, x.draws, x.losses) == (w["games"], w["wins"], w["draws"], w["losses"])
    for e in entries:
        assert e.place == places[e.season][e.entrant], (e.season, e.entrant)
    # not vacuous: season 3's [rating] sigma = 3 caps every carried sigma, r3 came back after a season
    # out, and tute-2 came back in season 4 after a season away
    assert all(x.prior_sigma <= 3.0 + 1e-12 for x in stored if x.season == 3)
    r3 = want[(3, "*", "r3")]
    assert r3["prior"][0] == want[(1, "*", "r3")]["mu"]
    g4 = want[(4, "tute-2", "g")]
    assert g4["prior"][0] == want[(2, "tute-2", "g")]["mu"]


def test_divisions_after_an_edit_follow_the_documented_rules(edited: Path) -> None:
    """Season 4 is the first with two divisions: everyone's last season put it in division 1 (one
    division then), so the field is cut again, in order of rating, into two even halves; season 5
    follows season 4's promotion and relegation."""
    cfg = load_league(edited)
    with LeagueStore(cfg.store) as db:
        entries = db.season_entrants()
        ratings = {(x.season, x.entrant): x for x in db.ratings(scope="*")}
    s3 = {e.entrant: e for e in entries if e.season == 3}
    s4 = {e.entrant: e for e in entries if e.season == 4}
    s5 = {e.entrant: e for e in entries if e.season == 5}
    by_rating = sorted(s3, key=lambda x: (-ratings[(3, x)].conservative(cfg.rating.k), x))
    assert [s4[x].division for x in by_rating] == [1, 1, 1, 2, 2, 2]
    for x, e in s4.items():
        assert s5[x].division == e.next_division
        want = e.division - 1 if e.division == 2 and e.place == 1 else \
            e.division + 1 if e.division == 1 and e.place == 3 else e.division
        assert e.next_division == want, x


def test_standings_history_and_report_read_a_league_whose_variants_changed(edited: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    want, _ = recompute(edited)
    k = load_league(edited).rating.k
    code, out, err = tute(capsys, "league", "history", "r1", "-l", str(edited), "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["seasons"]
    assert [(r["season"], r["version"]) for r in rows] == [(1, 1), (2, 2), (3, 2), (4, 2), (5, 2)]
    assert [sorted(r["variants"]) for r in rows] == [["tute-2"], ["tute-2", "tute-3"], ["tute-3"],
                                                     ["tute-2", "tute-3"], ["tute-2", "tute-3"]]
    for r in rows:
        w = want[(r["season"], "*", "r1")]
        assert r["rating"] == pytest.approx(w["mu"] - k * w["sigma"], abs=1e-9)
        assert (r["games"], r["wins"], r["draws"], r["losses"]) == (w["games"], w["wins"], w["draws"], w["losses"])
    code, out, err = tute(capsys, "league", "standings", "-l", str(edited), "--format", "json", "--all")
    assert code == 0, err
    table = {s["entrant"]: s for s in json.loads(out)["standings"]}
    # the current version's games over every season it played
    r1 = sum(want[(n, "*", "r1")]["games"] for n in (2, 3, 4, 5))
    assert table["r1"]["games"] == r1 and table["r1"]["version"] == 2
    assert table["r3"]["games"] == sum(want[(n, "*", "r3")]["games"] for n in (1, 3, 4, 5))
    assert len(table["r3"]["form"]) == 4 and table["r3"]["active"] and table["r3"]["version"] == 1
    code, _, err = tute(capsys, "league", "report", "-l", str(edited), "--out", str(tmp_path / "r"), "--replays", "1")
    assert code == 0, err
    index = (tmp_path / "r" / "index.html").read_text()
    assert "5 seasons, 6 entrants" in index and index.count('class="standings"') == 6


# --------------------------------------------------------------------------- workers change nothing
def _play(folder: Path, workers: int) -> dict[str, Any]:
    write_league(folder, divisions=2, workers=workers, variants=[{"name": "tute-2"}, {"name": "tute-3"}])
    with League.open(folder) as lg:
        for i in range(1, 5):
            lg.submit(f"r{i}", "random", owner="o", params={"seed": i})
        lg.submit("g", "greedy", owner="o")
        lg.submit("g2", "greedy", owner="o")
        for n in range(3):
            lg.play_season(quiet=True)
            if n == 0:
                lg.submit("r1", "random", owner="o", params={"seed": 11}, update=True)
            if n == 1:
                lg.withdraw("r2")
    with closing(sqlite3.connect(folder / "league.sqlite")) as db:
        return {
            "games": db.execute("SELECT id, tournament, seats, units, seed, result, record FROM games "
                                "ORDER BY id").fetchall(),
            "ratings": db.execute("SELECT * FROM league_ratings ORDER BY season, scope, entrant").fetchall(),
            "entrants": db.execute("SELECT * FROM league_season_entrants ORDER BY season, entrant").fetchall(),
            "tournaments": db.execute("SELECT tournaments FROM league_seasons ORDER BY season").fetchall(),
        }


def test_three_seasons_are_the_same_with_one_and_two_workers(tmp_path: Path) -> None:
    one, two = _play(tmp_path / "w1", 1), _play(tmp_path / "w2", 2)
    assert len(one["games"]) > 100 and len(one["ratings"]) > 30
    for key in one:
        assert one[key] == two[key], key


# ------------------------------------------------------------------------ standings with newcomers
def _three_and_a_season(folder: Path) -> None:
    """A league of three entrants (two random, greedy) that has played its first season."""
    write_league(folder)
    with League.open(folder) as lg:
        lg.submit("a", "random", owner="o", params={"seed": 1})
        lg.submit("b", "random", owner="o", params={"seed": 2})
        lg.submit("c", "greedy", owner="o")
        lg.play_season(quiet=True)


def test_newcomers_are_ranked_with_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After season 1 two newcomers are submitted: the table (one division) ranks them with everyone
    by rating, 1 to 5; they were both shown as rank 1 below rank 3."""
    _three_and_a_season(tmp_path)
    with League.open(tmp_path) as lg:
        lg.submit("new1", "random", owner="o", params={"seed": 5})
        lg.submit("new2", "greedy", owner="o")
    code, out, err = tute(capsys, "league", "standings", "-l", str(tmp_path), "--format", "json")
    assert code == 0, err
    table = json.loads(out)["standings"]
    assert [s["rank"] for s in table] == [1, 2, 3, 4, 5], [(s["entrant"], s["rank"]) for s in table]
    ratings = [s["rating"] for s in table]
    assert ratings == sorted(ratings, reverse=True)


def test_with_all_the_withdrawn_are_ranked_after_the_active(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``standings --all`` ranked withdrawn entrants with the active ones, so an active entrant could be
    rank 2 behind one that had left; they come after, ranked among themselves."""
    _three_and_a_season(tmp_path)
    code, out, err = tute(capsys, "league", "standings", "-l", str(tmp_path), "--format", "json")
    best = json.loads(out)["standings"][0]["entrant"]
    with League.open(tmp_path) as lg:
        lg.withdraw(best)
    code, out, err = tute(capsys, "league", "standings", "-l", str(tmp_path), "--format", "json", "--all")
    assert code == 0, err
    table = [(s["entrant"], s["rank"], s["active"]) for s in json.loads(out)["standings"]]
    assert [a for _, _, a in table] == [True, True, False] and [r for _, r, _ in table] == [1, 2, 1], table
    assert table[-1][0] == best


# --------------------------------------------------------------------- past tables after an edit
def test_a_past_seasons_table_reads_the_same_after_league_toml_is_edited(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """docs/leagues.md: an edit of league.toml "applies from the next season", and "every table is a
    fold over stored rows and reads the same whenever it is printed". Raising k and adding a variant
    for season 2 changed the table after season 1: other ratings (another order than the places the
    season stored) and a column for a variant season 1 never played."""
    write_league(tmp_path)
    with League.open(tmp_path) as lg:
        for i in range(1, 4):
            lg.submit(f"r{i}", "random", owner="o", params={"seed": i})
        lg.play_season(quiet=True)
        lg.submit("g", "greedy", owner="o")  # a newcomer: wider sigma than the others after season 2
        lg.play_season(quiet=True)
    lg_ = ["-l", str(tmp_path)]
    before = {n: tute(capsys, "league", "standings", *lg_, "--season", str(n), "--format", "json")[1] for n in (1, 2)}
    history_before = tute(capsys, "league", "history", "g", *lg_, "--format", "json")[1]
    write_league(tmp_path, variants=[{"name": "tute-2"}, {"name": "tute-3"}], tables={"rating": {"k": 12}})
    after = {n: tute(capsys, "league", "standings", *lg_, "--season", str(n), "--format", "json")[1] for n in (1, 2)}
    for n in (1, 2):
        assert json.loads(after[n]) == json.loads(before[n]), n
    assert json.loads(tute(capsys, "league", "history", "g", *lg_, "--format", "json")[1])["seasons"] == \
        json.loads(history_before)["seasons"]


# ------------------------------------------------------------------------------- the report, in Chromium
def _fast_entrants(lg: League, names: list[str], owner: str = "o") -> None:
    """Entrants of the built-in random bot stored as a submission stores them (the compliance run is
    tested elsewhere; forty of them would take a while)."""
    p = plugin_files("random")
    for i, name in enumerate(names):
        lg.db.add_version(Version(name, 1, owner, p.bot, p.kind, p.origin, p.dist_version, {"seed": i}, "auto",
                                  p.digest, p.files, time.time()), new_entrant=True)


def test_a_report_of_many_entrants_in_chromium(tmp_path: Path) -> None:
    """42 entrants: the standings list all of them ranked 1 to 42, the chart draws the 16 best, the
    matrix gives way to a sentence (no pair pages), and the page reads on a phone."""
    from browser import browser

    folder = tmp_path / "lg"
    folder.mkdir()
    write_league(folder, deals=1, duplicate=False)
    names = [f"e{i:02d}" for i in range(42)]
    with League.open(folder) as lg:
        _fast_entrants(lg, names)
        lg.play_season(quiet=True)
        index = write_report(lg, tmp_path / "r", replays=1)
    assert not (tmp_path / "r" / "pairs").exists() or not list((tmp_path / "r" / "pairs").glob("*.html"))
    with browser() as b:
        page = b.new_page(390, 800).open(index)
        pooled = page.locator("table.standings").first
        assert pooled.locator("tr td:first-child").all_inner_texts() == [str(i) for i in range(1, 43)]
        assert sorted(pooled.locator("td.name a").all_inner_texts()) == names
        assert page.locator("#rating-chart polyline.line").count() == 16
        assert page.locator("table.h2h").count() == 0
        assert "42 entrants: more than a matrix can show (40)" in page.locator("body").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.errors == []


RTL = "\u05d0\u05d1\u05d2"
#: names a submitter may choose: markup (no '/' nor space), right to left, the longest allowed
HOSTILE_NAMES = ["<b>bold", "<i>it&amp;", RTL + "1", "javascript:alert(1)", "\"q'", "W" * 64]


def _hostile_report(tmp_path: Path) -> Path:
    folder = tmp_path / "lg"
    folder.mkdir()
    write_league(folder, "<u>lg", variants=[{"name": "tute-2", "label": "<i>v&amp;"}, {"name": "tute-3", "label": RTL}])
    with League.open(folder) as lg:
        _fast_entrants(lg, HOSTILE_NAMES, owner="<u>" + RTL)
        lg.play_season(quiet=True)
        lg.play_season(quiet=True)
        return write_report(lg, tmp_path / "r", replays=2)


def test_hostile_league_and_variant_names_stay_text_on_every_page(tmp_path: Path) -> None:
    """A league named `<u>lg` and variant labels with markup: every page of the report (index, pair
    pages, replays) shows them as typed and builds no element of theirs."""
    from browser import browser, plain

    index = _hostile_report(tmp_path)
    out = index.parent
    pages = [index, *sorted((out / "pairs").glob("*.html")), *sorted((out / "replays").glob("*.html"))]
    assert len(pages) == 1 + 15 + 4
    with browser() as b:
        page = b.new_page(1280, 800)
        for p in pages:
            page.open(p)
            # a replay page's own <b id=...> and its two scripts (the record as JSON, the player) are its
            # own; nothing else of the kind, and no script at all on the report's pages
            mine = "u, i, img, b:not([id])" + ("" if p.parent.name == "replays" else ", script")
            assert page.evaluate(f"document.querySelectorAll('{mine}').length") == 0, p
            text = plain(page.locator("body").inner_text())
            assert "<u>lg" in text or p.parent.name == "replays", p
            assert page.errors == [], p
        page.open(index)
        text = plain(page.locator("body").inner_text())
        for typed in HOSTILE_NAMES + ["<i>v&amp;", "<u>" + RTL]:
            assert typed in text, typed
        assert page.title() == "<u>lg: league report"


def test_a_long_name_does_not_make_the_report_scroll_sideways_on_a_phone(tmp_path: Path) -> None:
    from browser import browser

    index = _hostile_report(tmp_path)
    with browser() as b:
        page = b.new_page(390, 800).open(index)
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > 392 && !e.closest('.scroll'))
            .map(e => e.tagName + '.' + e.className)""")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, wide


# ---------------------------------------------------------------------------- hostile league.toml
@pytest.mark.parametrize("top, tables, needle", [
    ({"divisions": 0}, None, "divisions: must be at least 1, not 0"),
    ({"divisions": 10 ** 9}, None, "divisions: must be at most 1000"),
    ({"promote": -1}, None, "promote: must be at least 0, not -1"),
    ({"format": "gauntlet"}, None, "format: must be one of round-robin, swiss, not 'gauntlet'"),
    ({"format": "swiss"}, None, "rounds: missing"),
    ({"seed": 1.5}, None, "seed: expected integer, got float 1.5"),
    (None, {"check": {"deals": 0}}, "check.deals: must be at least 1, not 0"),
    (None, {"check": {"require_reproducible": "yes"}}, "check.require_reproducible: expected boolean"),
    (None, {"rating": {"version_sigma": -1}}, "rating.version_sigma: must not be negative"),
    (None, {"rating": {"draw_probability": 1}}, "rating.draw_probability: must be in [0, 1)"),
    ({"store": "."}, None, "store:"),
])
def test_a_hostile_edit_between_seasons_is_one_line_and_stores_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], top: dict[str, Any] | None,
        tables: dict[str, Any] | None, needle: str) -> None:
    write_league(tmp_path)
    with League.open(tmp_path) as lg:
        lg.submit("a", "random", owner="o", params={"seed": 1})
        lg.submit("b", "greedy", owner="o")
        lg.play_season(quiet=True)
    before = dump(tmp_path / "league.sqlite")
    tbl = {"check": {"deals": 8}, **(tables or {})}
    if "check" in (tables or {}):
        tbl["check"] = {"deals": 8, **tables["check"]}  # type: ignore[index]
    write_league(tmp_path, tables=tbl, **(top or {}))
    for args in (["season", "-q"], ["standings"], ["submit", "c", "greedy"], ["report", "--out", str(tmp_path / "r")]):
        code, _, err = tute(capsys, "league", *args, "-l", str(tmp_path))
        one_line_error(code, err, "league.toml", needle)
    assert dump(tmp_path / "league.sqlite") == before


# ------------------------------------------------------------------------- hostile bot commands
def test_a_bot_command_with_control_characters_never_reaches_the_terminal(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Names and owners with control characters are refused; a command's arguments were not, and
    `tute league history` (and the duplicate refusal another submitter sees) printed them as they
    are: an OSC sequence retitles the club admin's terminal, a CR overwrites the line shown."""
    write_league(tmp_path)
    (tmp_path / "mine.py").write_text(EXAMPLE.read_text())
    lg = ["-l", str(tmp_path)]
    bot = f"{sys.executable} {tmp_path / 'mine.py'} \x1b]0;pwned\x07\rgreedy"
    code, out, err = tute(capsys, "league", "submit", "x", bot, *lg, "--owner", "o")
    if code == 2:  # refused: one line, nothing stored
        one_line_error(code, err, "control characters")
        return
    shown = [out, err]
    shown += list(tute(capsys, "league", "history", "x", *lg)[1:])
    shown += list(tute(capsys, "league", "submit", "x", "greedy", *lg, "--owner", "o")[1:])
    for text in shown:
        assert not CONTROL.search(text.replace("\n", "")), repr(text)
