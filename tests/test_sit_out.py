"""Every count of a deal counts the sides that played it, and no other.

In cabrero with five or six the dealer sits the deal out: its record ranks it 0 with the non-losers,
yet it held no card. The outcome of a seat, a table's games and head-to-head, a Swiss round's scores,
a match's blocks and the ratings all read who played from ``arena.result.sides_in_play``; these tests
hold each of them to it in every preset, on real deals.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena import GameState, VARIANTS, shuffled_deck
from arena.result import LOSS, SAT_OUT, SHARED, WIN, GameResult, outcome, seat_pairwise, sides_in_play
from leagues.tournament.config import RatingConfig, load_config
from leagues.tournament.matches import game_score
from leagues.tournament.runner import run_tournament
from leagues.tournament.schedule import GameSpec, unit_scores
from leagues.tournament.store import GameRow, Store
from leagues.tournament.tally import COUNT, Tally, fold, kept

from league_util import write_config

NAMES = ("a", "b", "c", "d", "e", "f")


def _deal(name: str, seed: int) -> GameResult:
    """The result of a random legal deal of preset ``name``."""
    v = VARIANTS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    while not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert state.result_ is not None
    return state.result_


def _seats(name: str) -> tuple[str, ...]:
    """One entrant per side (partners share a name), as a tournament seats them."""
    v = VARIANTS[name]
    seats = [""] * v.players
    for i, team in enumerate(v.teams):
        for s in team:
            seats[s] = NAMES[i]
    return tuple(seats)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_count_of_a_deal_counts_the_sides_that_played_it(name: str) -> None:
    v = VARIANTS[name]
    seats = _seats(name)
    rows = []
    for seed in range(6):
        result = _deal(name, seed)
        sides = sides_in_play(v.teams, result.sit_out)
        played = {seats[t[0]] for t in sides}
        absent = set(seats) - played
        assert len(absent) == (result.sit_out is not None)
        # outcome: the dealer who sat out has none; among the others, a first place held alone wins
        if result.sit_out is not None:
            assert outcome(result, result.sit_out, v.teams) == SAT_OUT
        firsts = [t for t in sides if result.ranks[t[0]] == 0]
        for t in sides:
            kind = outcome(result, t[0], v.teams)
            assert kind == (WIN if firsts == [t] else SHARED if t in firsts else LOSS)
        # a Swiss round's shares and a match's games are the pairwise scores of the sides in play
        spec = GameSpec(f"t/v/r1/t0/d{seed}/s0", "t", "v", 0, 1, 0, seed, 0, seed, 0, seats, seats)
        shares = unit_scores(result, spec, SimpleNamespace(variant=v))  # type: ignore[arg-type]
        assert shares == {seats[t[0]]: seat_pairwise(result, t[0], v.teams) for t in sides}
        assert sum(shares.values()) == pytest.approx(len(sides) / 2)
        for a in set(seats):
            for b in set(seats) - {a}:
                got = game_score(result, seats, b, a)
                if a in absent or b in absent:
                    assert got is None
                else:
                    rb, ra = (result.ranks[seats.index(x)] for x in (b, a))
                    assert got == (1.0 if rb < ra else 0.5 if rb == ra else 0.0)
        rows.append((GameRow(spec.id, "t", "v", 0, 1, 0, seed, 0, seats, seats, seed, 0, "done", result), played))
    # a table's fold: a game, an outcome and a deal for each entrant that played, head-to-head between them
    tally = fold([r for r, _ in rows], RatingConfig(), {"v": [tuple(t) for t in v.teams]})
    scope = tally.scope(None)
    for n in set(seats):
        games = sum(n in played for _, played in rows)
        c = scope.counts.get(n)
        assert (c.games if c else 0) == games
        if c:
            assert c.wins + c.draws + c.losses == games
        if games:
            assert tally.forfeits[n].games == games
        else:
            assert n not in tally.forfeits
    h2h = scope.head_to_head()
    for (a, b), x in h2h.items():
        met = [r for r, played in rows if {a, b} <= played]
        assert x.blocks == len(met)


def test_a_first_place_held_alone_among_the_players_is_a_win_though_the_dealer_ranks_0_too() -> None:
    # cabrero-5, a capote: seat 1 took every trick, the three others lose; seat 0 dealt and sat out
    result = GameResult(points=(0, 130, 0, 0, 0), ranks=(0, 0, 2, 2, 2), reason="capote", losers=(2, 3, 4),
                        sit_out=0)
    teams = [(s,) for s in range(5)]
    assert outcome(result, 1, teams) == WIN
    assert outcome(result, 0, teams) == SAT_OUT
    assert outcome(result, 2, teams) == LOSS


def test_a_tally_of_the_old_count_is_not_read_and_the_next_run_keeps_it_again(tmp_path: Path) -> None:
    """A store written before the dealer who sits out was left out keeps a tally without its count:
    readers fold the games instead, and the next ``tute run`` of the tournament folds and keeps it."""
    entrants = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(5)]
    path = write_config(tmp_path, deals=2, variants=[{"name": "cabrero-5"}], entrants=entrants)
    run_tournament(load_config(path), workers=1, quiet=True)
    store = tmp_path / "store.sqlite"
    with Store(store) as s:
        assert kept(s.db, "t")
        assert s.db.execute("SELECT count FROM tally_counts").fetchall() == [(COUNT,)]
        s.db.execute("DELETE FROM tally_counts")  # as an older tute-arena left it
        s.db.execute("UPDATE tallies SET games = games + 1")  # and counting the dealer's deals
    with Store(store, readonly=True) as s:
        assert not kept(s.db, "t")
        rc = RatingConfig()
        teams = {"cabrero-5": [(i,) for i in range(5)]}
        assert Tally.load(s.db, "t", rc, teams) is None
    run_tournament(load_config(path), workers=1, quiet=True)  # finished: only folds and keeps the tally
    with Store(store, readonly=True) as s:
        assert kept(s.db, "t")
        loaded = Tally.load(s.db, "t", RatingConfig(), teams)
        assert loaded is not None
        games = s.count_games("t")
        # five rotations a deal, each entrant dealing (and sitting out) in one of them
        assert {n: c.games for n, c in loaded.scope(None).counts.items()} == {f"r{i}": games * 4 // 5
                                                                              for i in range(5)}


def test_a_match_block_in_cabrero_5_counts_the_three_games_where_both_bots_played(tmp_path: Path) -> None:
    out = subprocess.run([str(Path(sys.executable).parent / "tute"), "match", "random", "greedy", "-v", "cabrero-5",
                          "--field", "random", "--max-blocks", "6", "-q"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=600, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "6 blocks, 18 games" in out.stdout and "cabrero-5 Ptnml(0-3)" in out.stdout, out.stdout


def test_tute_play_averages_a_seats_points_over_the_deals_it_played(tmp_path: Path) -> None:
    records = tmp_path / "deals.jsonl"
    out = subprocess.run([str(Path(sys.executable).parent / "tute"), "play", "cabrero-5", *["random"] * 5,
                          "--games", "10", "--seed", "3", "--records", str(records)],
                         capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    results = [json.loads(line)["result"] for line in records.read_text().splitlines()]
    assert {r["sit_out"] for r in results} == set(range(5))
    rows = [parts for parts in map(str.split, out.stdout.splitlines()) if parts[1:2] == ["random"]]
    assert len(rows) == 5
    for seat, row in enumerate(rows):
        played = [r["points"][seat] for r in results if r["sit_out"] != seat]
        assert float(row[3]) == pytest.approx(sum(played) / len(played), abs=0.05), (seat, row)


def test_a_swiss_round_scores_the_dealer_who_sat_out_its_one_game_as_a_bye(tmp_path: Path) -> None:
    """Without duplicate deals a table of cabrero-5 plays one game a deal; with one deal, the unit that
    dealt played no card that round and scores 0.5, like a bye; the others their pairwise scores."""
    from leagues.tournament.pairing import History
    from leagues.tournament.runner import fold_round
    from leagues.tournament.schedule import round_games, swiss_round

    entrants = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(5)]
    cfg = load_config(write_config(tmp_path, format="swiss", rounds=2, deals=1, duplicate=False,
                                   variants=[{"name": "cabrero-5"}], entrants=entrants))
    h = History()
    rnd = swiss_round(cfg, 0, 1, h)
    (spec,) = round_games(cfg, 0, 1, rnd)
    teams = VARIANTS["cabrero-5"].teams
    # seat 1 alone on top (a capote), the dealer's seat sat out
    ranks = tuple(0 if s in (spec.dealer, (spec.dealer + 1) % 5) else 2 for s in range(5))
    result = GameResult(points=(0,) * 5, ranks=ranks, reason="capote", sit_out=spec.dealer,
                        losers=tuple(s for s in range(5) if ranks[s]))
    fold_round(cfg, 0, h, rnd, [(spec, result)])
    expected = {spec.seats[s]: seat_pairwise(result, s, teams) for s in range(5) if s != spec.dealer}
    expected[spec.seats[spec.dealer]] = 0.5
    assert h.scores == expected
    assert expected[spec.seats[(spec.dealer + 1) % 5]] == 1.0


@pytest.mark.parametrize("name", ["cabrero-5", "cabrero-6"])
def test_without_duplicates_the_units_of_a_table_deal_and_sit_out_in_turn(tmp_path: Path, name: str) -> None:
    """One game a deal: the rotation once cycled in step with the dealer, so the table's first unit dealt,
    and sat out, every game and never held a card."""
    from leagues.tournament.schedule import table_games

    k = VARIANTS[name].players
    entrants = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(k)]
    cfg = load_config(write_config(tmp_path, deals=k * k, duplicate=False, variants=[{"name": name}],
                                   entrants=entrants))
    units = tuple(e.name for e in cfg.entrants)
    games = table_games(cfg, 0, 1, 0, units)
    assert len(games) == k * k
    dealt = {u: sum(g.seats[g.dealer] == u for g in games) for u in units}
    assert dealt == {u: k for u in units}
    for s in range(k):  # and every unit holds every seat as often
        assert sorted(g.seats[s] for g in games) == sorted(units * k)


def test_a_match_of_one_deal_is_sat_out_by_its_dealer_and_a_record_without_that_still_verifies() -> None:
    """A cabrero-5 match of one deal: its dealer played none of it, and the match's result says so
    (``sit_out``), so nothing counts the match for that seat. A match recorded before the result said it
    verifies as it was written; any other difference in the result does not."""
    from dataclasses import replace

    from arena.matchplay import MatchRule, play_match, verify_match
    from arena.record import ReplayError
    from bots.random_bot import RandomBot

    v = VARIANTS["cabrero-5"]
    players = [RandomBot(s) for s in range(5)]
    one = play_match(v, players, seed=3, rule=MatchRule("deals", 1), first_dealer=2)
    assert one.result.sit_out == one.deals[0].result.sit_out == 2
    assert outcome(one.result, 2, v.teams) == SAT_OUT
    verify_match(one)
    verify_match(replace(one, result=replace(one.result, sit_out=None)))  # as written before
    with pytest.raises(ReplayError):
        verify_match(replace(one, result=replace(one.result, sit_out=3)))
    two = play_match(v, players, seed=3, rule=MatchRule("deals", 2), first_dealer=2)
    assert two.result.sit_out is None  # every seat played one of its deals
    verify_match(two)
