"""QA review 8: 06e1054 (a match unit's deals counted per entrant from each deal's own ``sit_out``, the
tally's ``COUNT`` 4 -> 5) and 032ae41 (``Watermark.check`` before a round's sit-outs are stored), and
beyond them every place that counts an entrant's deals or games for cabrero-5/6 (the dealer sits out)
and for ``unit = "match"``.

Checked and held:

- ``forfeits.played`` / ``match_played`` / ``row_forfeits``, ``leaderboard.landed``, ``Tally.add`` and
  ``ForfeitWatch.add_game`` agree: ``tute run``'s early warning, its summary (``N of M deals forfeited``),
  ``forfeit_watch`` and exit status 3 count the same deals (the deals an entrant played, sat-out ones
  left out) for single deals and for matches; ``tute play`` (deals, and ``--match``: its ``on_record``
  sees every deal of a match) exits 3 for a bot forfeiting every deal it plays in cabrero-5 (pinned
  below for ``--match``, not pinned elsewhere).
- Upgrade from ``COUNT`` 4: a store whose match-unit tally was kept by 4 (its ``forfeit_tallies`` counting
  every deal of a match for every entrant), the tournament interrupted: ``tute leaderboard`` equals
  ``--recompute``, ``tute verify`` exits 0, ``tute run`` resumes, exits 3 with the true counts and keeps
  the tally again at ``COUNT`` 5 equal to a fresh fold (pinned below). A finished tournament's re-run
  re-keeps it (``_run_locked``: ``Watermark(...).settle()``), ``tute import`` re-folds (``keep_fold``),
  ``tute league season``'s ``_finish_season`` and ``_season_forfeits`` read through ``tally_of``
  (re-folded when the kept count differs).
- 032ae41: ``Watermark.check`` runs over the round's (Swiss) or the whole schedule's (round robin, on a
  resume) games before any ``add_byes``; ``schedule`` still queues every game past the watermark. A
  normal resume (Swiss and round robin, with sit-outs in both a ``unit = "match"`` cabrero-5 variant and
  a single-deal variant, cut in the middle of a round, resumed with 2 workers) stores the same games,
  the same byes and the same tables as one uninterrupted run with 1 worker (pinned below).
- ``tute match`` in cabrero-5 with a field bot: the forfeit summary and exit 3 count the deals the bot
  played; the blocks leave out the games where A or B dealt (as docs/match.md says).

Defects found, each pinned by a strict xfail, all eight fixed since (their tests now pin the fixes:
``ScopeTally.add`` takes the match's forfeits; ``Store.iter_games(forfeits=True)`` merges the matches
with a forfeited deal (``_forfeited_matches``); ``RunSummary.forfeits`` is its watch's; a match no deal
of which a seat played has that seat as its ``sit_out`` (``MatchScore.result``; a record without it
still verifies); ``SeatTally.played`` counts deal by deal; the entrant filter leaves out the seat that
sat out; the pair pages take ``sides_in_play``; ``match_1`` says one deal):

1. ``unit = "match"``: ``tute leaderboard``'s ``forfeits`` column (every format; the table ``tute run``
   prints too) is 0 for a bot that forfeited every deal it played: ``ScopeTally.add`` counts only the
   stored row's own ``result.forfeit``, and a match's result has none (its deals' forfeits are in the
   record). The same run's summary says ``crash: 10 of 10 deals forfeited`` and exits 3; ``tute play
   --match``'s ``forfeits`` column counts the deals (8). Fix: ``Tally.add`` passes the match's forfeits
   (``landed``) to the scopes, which count each for the side holding the seat; ``COUNT`` 6.
2. ``unit = "match"``: ``tute games --forfeits`` ("Only games that ended by a forfeit") lists none of the
   matches whose every deal was forfeited ("no stored game matches"), where the run's summary names
   ``t/.../s0/d1`` as the first forfeit: ``Store._where``'s filter (and the partial index
   ``games_forfeited``) read only the row's result, whose ``forfeit`` is null for a match.
3. ``unit = "match"``: ``RunSummary.forfeits`` (``run_tournament``'s return) counts rows whose result has a
   forfeit (``play_batch``: ``'"forfeit":null' not in result``): 0 for a match-unit run whose summary
   watch holds 10 forfeited deals. Fix: count ``row_forfeits``' forfeits per row.
4. cabrero-5 ``unit = "match"`` with a match of one deal (``match = "letters:1"``, ``deals:1`` or
   ``match_max_deals = 1``): the dealer sits out the match's only deal, yet the match counts for it as a
   game with a shared first place (0 letters): leaderboard ``games`` and ``draws``, its rating, the
   head-to-head, its Swiss score and ``tute games``' sentence ("crash, r0 and r1 share first place"),
   against docs/rules.md ("It did not play, so nothing counts that deal for it"); the forfeit tally
   (``match_played``) gives it 0 deals there. Root: ``MatchScore.result`` (arena/matchplay.py) makes a
   result without ``sit_out`` even when a seat played none of the match's deals. Fix: set ``sit_out``
   to the seat that played no deal (or refuse one-deal match rules where the dealer sits out).
5. ``tute play cabrero-5 ... --match RULE``: ``points/deal`` divides each seat's points by every deal of
   the matches, the deals it sat out included (``_print_play``'s ``tally.deals - first.sat_out``:
   ``PlayTally.add_match`` counts ``sat_out`` per match result, which has no ``sit_out``); without
   ``--match`` it divides by the deals the seat played (test_sit_out). Seen: 2.3 for a seat with 21
   points over the 8 of 9 deals it played (2.6). Fix: count each deal's sit-out per seat in
   ``add_match``.
6. cabrero-5: ``tute games --entrant NAME`` ("Only games this entrant played") lists the deals NAME sat
   out as dealer: 5 for an entrant whose leaderboard ``games`` say 4 (``Store._where`` matches any seat,
   ``result.sit_out`` aside).
7. cabrero-5: the league report's pair pages say "5 games together" and list 5 deals for two entrants who
   played 3 deals together (each sat out one of them as dealer; the head-to-head counts 3 blocks):
   ``report._pair_pages`` takes every seat of a deal, the sat-out dealer's included.
8. ``tute games`` says "the match of 1 deals" (``wording.py``'s ``match`` phrase, in Spanish "1 manos")
   for a one-deal match.

Noted, not pinned: ``tally.fold`` (the library's "full recomputation", used by ``standings_of``) calls
``Tally.add`` without ``landed``, so its ``forfeits`` count a match as one deal with no forfeit (its
standings, which the league's ``fold_season`` reads, do not depend on it); ``tute run -j 2``'s early
warning names as "first" the first forfeit to come back from a worker, which can differ from the
summary's first in schedule order; ``Watermark.check`` builds its ``elsewhere`` map of every stored id
once per call, now twice per variant per Swiss round; ``tute verify`` counts a tournament whose kept
tally is of another ``COUNT`` among those whose "tables agree" (it compares nothing for it).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from leagues.tournament.config import load_config
from leagues.tournament.leaderboard import (all_tables, forfeit_watch, kept_tables_agree, render_all,
                                            standings, tournament_status)
from leagues.tournament.runner import RunSummary, run_tournament
from leagues.tournament.store import Store
from leagues.tournament.tally import COUNT

from league_util import TESTS, write_config, write_league

TUTE = str(Path(sys.executable).parent / "tute")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}

FOUR_RANDOM = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(4)]
CRASH = {"name": "crash", "bot": "league_bots:CrashBot", "isolation": "inprocess"}


def tute(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=ENV,
                          stdin=subprocess.DEVNULL)


def sql(path: Path, query: str, *args: Any) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute(query, args).fetchall()


def match_unit(folder: Path, match: str = "letters:2", **top: Any) -> Path:
    """cabrero-5 played by the match: four random bots and one that forfeits every deal it plays."""
    return write_config(folder, deals=1, variants=[{"name": "cabrero-5", "unit": "match", "match": match}],
                        entrants=[*FOUR_RANDOM, CRASH], **top)


def deals_played(store: Path, entrant: str) -> tuple[int, int]:
    """Read straight from the stored records: the deals ``entrant`` played (sat-out ones left out) in the
    tournament's matches, and how many of them it forfeited."""
    played = forfeited = 0
    with Store(store, readonly=True) as s:
        for row in s.games("t"):
            seat = list(row.seats).index(entrant)
            for d in s.match(row.id).deals:
                if d.result.sit_out != seat:
                    played += 1
                    forfeited += d.result.forfeit is not None and d.result.forfeit.seat == seat
    return played, forfeited


@pytest.fixture(scope="module")
def match_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunSummary]:
    sys.path.insert(0, str(TESTS))
    folder = tmp_path_factory.mktemp("match-unit")
    summary = run_tournament(load_config(match_unit(folder)), workers=1, quiet=True)
    return folder, summary


@pytest.fixture(scope="module")
def play_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("play-match")
    out = tute("play", "cabrero-5", "random", "greedy", "random", "random", "league_bots:CrashBot", "-n", "4",
               "--match", "letters:2", "--records", "m.jsonl", cwd=folder)
    return folder, out


@pytest.fixture(scope="module")
def deal_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cabrero-5 single deals, five random bots, one deal in five rotations: each sits one out."""
    folder = tmp_path_factory.mktemp("deals")
    path = write_config(folder, deals=1, variants=[{"name": "cabrero-5"}],
                        entrants=[*FOUR_RANDOM, {"name": "r4", "bot": "random", "params": {"seed": 4}}])
    run_tournament(load_config(path), workers=1, quiet=True)
    return folder


# ------------------------------------------------------------------------------------------------ held
def test_tute_play_match_in_cabrero_5_exits_3_for_a_bot_forfeiting_every_deal_it_plays(
        play_match: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """``tute play --match``'s ``on_record`` (06e1054: ``played`` per deal) sees each deal of a match:
    the sat-out deals are no deals played, so the bot that forfeits all the others forfeited every deal."""
    folder, out = play_match
    deals = [json.loads(line)["result"] for line in (folder / "m.jsonl").read_text().splitlines()]
    assert any(r.get("sit_out") == 4 for r in deals), "the crashing seat sat some deals out"
    played = [r for r in deals if r.get("sit_out") != 4]
    assert all(r["forfeit"] and r["forfeit"]["seat"] == 4 for r in played)
    assert out.returncode == 3, out.stderr
    assert "league_bots:CrashBot forfeited every deal" in out.stderr
    assert f"forfeits of seat 4 (league_bots:CrashBot): {len(played)} crash" in out.stdout, out.stdout


def snapshot(folder: Path) -> tuple[list[Any], list[Any], str, bool]:
    store = folder / "store.sqlite"
    games = sql(store, "SELECT id, seats, units, seed, dealer, result FROM games ORDER BY id")
    byes = sql(store, "SELECT variant, round, entrant FROM byes ORDER BY 1, 2, 3")
    with Store(store, readonly=True) as s:
        table = render_all(all_tables(s, "t", None, True), "json", "t", tournament_status(s, "t"))
        agree = kept_tables_agree(s, "t")
    return games, byes, table, agree


@pytest.mark.parametrize("fmt", ["swiss", "round-robin"])
def test_a_resume_cut_in_a_round_stores_the_same_games_byes_and_tables_as_one_run(tmp_path: Path, fmt: str) -> None:
    """032ae41 moved the byes after ``Watermark.check``: a normal resume still stores every round's
    sit-outs once, and the games and tables are those of one uninterrupted run, whatever the workers."""
    if fmt == "swiss":  # seven entrants: two sit out at the cabrero-5 table, one at the tute-3 tables
        entrants = [{"name": f"e{i}", "bot": "random" if i % 2 else "greedy", "params": {"seed": i} if i % 2 else {}}
                    for i in range(7)]
        variants = [{"name": "cabrero-5", "unit": "match", "match": "letters:2"}, {"name": "tute-3"}]
        top: dict[str, Any] = {"rounds": 3}
    else:  # five at tables of two: one bye a round; cabrero-5 by the match (the dealer sits out)
        entrants = [{"name": f"e{i}", "bot": "random", "params": {"seed": i}} for i in range(5)]
        variants = [{"name": "tute-2"}, {"name": "cabrero-5", "unit": "match", "match": "letters:2"}]
        top = {}
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        write_config(folder, deals=1, format=fmt, entrants=entrants, variants=variants, **top)
    run_tournament(load_config(one / "tournament.toml"), workers=1, quiet=True)
    ref = snapshot(one)
    assert ref[1] and ref[3], "sit-outs stored, the kept tables agree with a fold"
    run_tournament(load_config(two / "tournament.toml"), workers=2, quiet=True)
    store = two / "store.sqlite"
    order = sql(store, "SELECT round, variant_index, tbl, deal, rotation FROM games "
                       "ORDER BY round, variant_index, tbl, deal, rotation")
    cut = order[len(order) // 2]  # as a run killed there left it: its later games and later rounds' byes gone
    with closing(sqlite3.connect(store)) as db:
        db.execute("DELETE FROM games WHERE (round, variant_index, tbl, deal, rotation) >= (?, ?, ?, ?, ?)", cut)
        if fmt == "swiss":  # a Swiss round's sit-outs are stored as the round is paired
            db.execute("DELETE FROM byes WHERE round > ?", (cut[0],))
        db.execute("UPDATE tournaments SET finished = NULL")
        db.commit()
    deleted = len(order) - len(sql(store, "SELECT id FROM games"))
    summary = run_tournament(load_config(two / "tournament.toml"), workers=2, quiet=True)
    assert summary.played == deleted > 0 and not summary.already_finished
    got = snapshot(two)
    assert got[0] == ref[0]
    assert got[1] == ref[1]
    assert got[2] == ref[2]
    assert got[3]


def test_a_match_unit_tally_kept_by_count_4_is_folded_again_by_every_reader_and_the_resume(tmp_path: Path) -> None:
    """An interrupted tournament whose tally was kept by COUNT 4 (every deal of a match credited to every
    entrant): the leaderboard folds the games, verify passes, and the resume exits 3 with the true
    counts and keeps the tally again at COUNT 5, equal to a fresh fold."""
    sys.path.insert(0, str(TESTS))
    run_tournament(load_config(match_unit(tmp_path)), workers=1, quiet=True)
    store = tmp_path / "store.sqlite"
    with Store(store, readonly=True) as s:
        true = {n: (e.games, e.forfeits) for n, e in forfeit_watch(s, "t").entrants.items()}
    with closing(sqlite3.connect(store)) as db:  # as 4 kept it, and a run killed after three matches
        db.execute("DELETE FROM games WHERE rotation >= 3")
        db.execute("UPDATE tally_counts SET count = 4")
        db.execute("UPDATE forfeit_tallies SET deals = deals + 2")
        db.execute("UPDATE tournaments SET finished = NULL")
        db.commit()
    kept = tute("leaderboard", "--store", "store.sqlite", "--format", "json", cwd=tmp_path)
    folded = tute("leaderboard", "--store", "store.sqlite", "--format", "json", "--recompute", cwd=tmp_path)
    assert kept.returncode == 0 and kept.stdout == folded.stdout, kept.stderr
    verify = tute("verify", "--store", "store.sqlite", cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    out = tute("run", "tournament.toml", "--quiet", cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    games, forfeits = true["crash"]
    assert f"crash: {forfeits} of {games} deals forfeited" in out.stderr and games == forfeits, out.stderr
    assert sql(store, "SELECT count FROM tally_counts") == [(COUNT,)]
    assert {n: (d, f) for n, d, f in sql(store, "SELECT entrant, deals, forfeits FROM forfeit_tallies")} == true


# ----------------------------------------------------------------------------------------------- defects
def test_the_leaderboards_forfeits_column_counts_a_match_units_forfeited_deals(
        match_run: tuple[Path, RunSummary]) -> None:
    folder, _ = match_run
    played, forfeited = deals_played(folder / "store.sqlite", "crash")
    assert played == forfeited > 0
    with Store(folder / "store.sqlite", readonly=True) as s:
        assert forfeit_watch(s, "t").entrants["crash"].forfeits == forfeited  # what the summary says
    out = tute("leaderboard", "--store", "store.sqlite", "--format", "csv", cwd=folder)
    assert out.returncode == 0, out.stderr
    rows = {r["entrant"]: r for r in csv.DictReader(io.StringIO(out.stdout))}
    data = json.loads(tute("leaderboard", "--store", "store.sqlite", "--format", "json", cwd=folder).stdout)
    by = {s["entrant"]: s for s in data["pooled"]["standings"]}
    assert (int(rows["crash"]["forfeits"]), by["crash"]["forfeits"]) == (forfeited, forfeited)


def test_tute_games_forfeits_lists_the_matches_whose_deals_were_forfeited(match_run: tuple[Path, RunSummary]) -> None:
    folder, _ = match_run
    with Store(folder / "store.sqlite", readonly=True) as s:
        ids = [row.id for row in s.games("t")]
    assert deals_played(folder / "store.sqlite", "crash")[1] > 0
    out = tute("games", "--store", "store.sqlite", "--forfeits", "-n", "0", cwd=folder)
    assert out.returncode == 0, out.stderr
    assert [line.split()[0] for line in out.stdout.splitlines() if line.startswith("t/")] == ids, out.stdout


def test_run_summary_forfeits_counts_a_match_units_forfeited_deals(match_run: tuple[Path, RunSummary]) -> None:
    folder, summary = match_run
    watched = sum(e.forfeits for e in summary.watch.entrants.values())
    assert watched == deals_played(folder / "store.sqlite", "crash")[1] > 0
    assert summary.forfeits == watched


def test_a_match_an_entrant_sat_out_whole_counts_no_game_for_it(tmp_path: Path) -> None:
    sys.path.insert(0, str(TESTS))
    run_tournament(load_config(match_unit(tmp_path, "letters:1")), workers=1, quiet=True)
    store = tmp_path / "store.sqlite"
    sat_out_whole = 0
    with Store(store, readonly=True) as s:
        for row in s.games("t"):
            m = s.match(row.id)
            seat = list(row.seats).index("crash")
            sat_out_whole += all(d.result.sit_out == seat for d in m.deals)
        matches = s.count_games("t")
        table = {x.entrant: x for x in standings(s, "t")}
        watch = forfeit_watch(s, "t")
    assert sat_out_whole == 1 and matches == 5, "one match of one deal a rotation: crash dealt one"
    played, forfeited = deals_played(store, "crash")
    assert watch.entrants["crash"].games == played == forfeited == 4  # the forfeit tally leaves it out
    # it lost every deal it played: no draw, and the match it never played is no game of its
    assert (table["crash"].games, table["crash"].draws, table["crash"].losses) == (4, 0, 4)


def test_tute_play_match_averages_a_seats_points_over_the_deals_it_played(
        play_match: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, out = play_match
    deals = [json.loads(line)["result"] for line in (folder / "m.jsonl").read_text().splitlines()]
    expected = {}
    for seat in range(5):
        played = [r for r in deals if r.get("sit_out") != seat]
        expected[seat] = f"{sum(r['points'][seat] for r in played) / len(played):.1f}"
    shown = {}
    for line in out.stdout.splitlines():
        cells = line.split()
        if cells and cells[0].isdigit() and len(cells) == 8:  # seats bot won shared lost points/deal tutes forfeits
            shown[int(cells[0])] = cells[5]
    assert len(shown) == 5, out.stdout
    assert shown == expected, out.stdout


def test_tute_games_entrant_lists_only_the_deals_it_played(deal_run: Path) -> None:
    with Store(deal_run / "store.sqlite", readonly=True) as s:
        games = {x.entrant: x.games for x in standings(s, "t")}
        played = [row.id for row in s.games("t") if row.result.sit_out is None or row.seats[row.result.sit_out] != "r0"]
    assert games["r0"] == len(played) == 4
    out = tute("games", "--store", "store.sqlite", "--entrant", "r0", "-n", "0", cwd=deal_run)
    assert out.returncode == 0, out.stderr
    assert [line.split()[0] for line in out.stdout.splitlines() if line.startswith("t/")] == played, out.stdout


def test_the_league_reports_pair_pages_count_only_the_deals_both_played(tmp_path: Path) -> None:
    from leagues.league.league import League

    folder = tmp_path / "club"
    folder.mkdir()
    path = write_league(folder, "club", variants=[{"name": "cabrero-5"}], deals=1)
    with League.open(path) as lg:
        for i in range(5):
            lg.submit(f"r{i}", "random", params={"seed": i})
        lg.play_season(workers=1, quiet=True)
    out = tute("league", "report", "-l", ".", "--out", "rep", cwd=folder)
    assert out.returncode == 0, out.stderr
    pages = sorted((folder / "rep" / "pairs").glob("*.html"))
    assert len(pages) == 10, pages  # every pair of five
    with Store(folder / "league.sqlite", readonly=True) as s:
        (t,) = [x.name for x in s.tournaments()]
        rows = s.games(t)
    for page in pages:
        text = page.read_text()
        head = re.sub(r"<[^>]+>", "", re.search(r"<h1>(.+?)</h1>", text).group(1))  # type: ignore[union-attr]
        a, b = re.fullmatch(r"(.+?) and (.+?): their games", head).groups()  # type: ignore[union-attr]
        sat = {r.id: r.seats[r.result.sit_out] for r in rows if r.result.sit_out is not None}
        both = sum(1 for r in rows if {a, b} <= set(r.seats) and sat.get(r.id) not in (a, b))
        assert both == 3
        assert f"{both} games together" in text, (a, b, re.findall(r"\d+ games together", text))


def test_a_one_deal_match_is_said_in_the_singular(tmp_path: Path) -> None:
    sys.path.insert(0, str(TESTS))
    run_tournament(load_config(match_unit(tmp_path, "letters:1")), workers=1, quiet=True)
    out = tute("games", "--store", "store.sqlite", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.count("the match of 1 deal") == 5, out.stdout + out.stderr
    assert re.findall(r"the match of 1 deals?\b", out.stdout) == ["the match of 1 deal"] * 5, out.stdout
