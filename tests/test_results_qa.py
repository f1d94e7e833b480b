"""QA of the results a user reads: ratings per scope, schedules and pairing, the SPRT's numbers.

Each test reproduces one defect found in a QA pass (or pins a figure checked independently)."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena import GameResult
from leagues.tournament.config import RatingConfig
from leagues.tournament.rating import rate
from leagues.tournament.store import GameRow
from leagues.tournament.tally import POOLED, Tally, fold, standings_of


def _row(variant: str, seats: tuple[str, ...], ranks: tuple[int, ...], i: int, tournament: str = "t") -> GameRow:
    result = GameResult(points=tuple(10 for _ in seats), ranks=ranks, reason="points")
    return GameRow(f"{tournament}/{variant}/r1/t0/d{i}/s0", tournament, variant, 0, 1, 0, i, 0, seats, seats, 1, 0,
                   "done", result)


# ------------------------------------------------------------------------------ per-variant priors
def test_single_variant_table_starts_from_its_own_priors() -> None:
    """A league season of one variant whose pooled and per-variant ratings were carried apart (the
    league played two variants before and dropped one): the variant's table must start from the
    variant's priors, not be the pooled fold. It was the pooled table, so the stored per-variant
    rating of every entrant jumped to the pooled one (and `fold_season`, the recomputation, disagreed)."""
    teams = {"tute-2": [(0,), (1,)]}
    rc = RatingConfig()
    priors = {POOLED: {"a": (30.0, 2.0), "b": (20.0, 2.0)}, "tute-2": {"a": (25.0, 5.0), "b": (25.0, 5.0)}}
    rows = [_row("tute-2", ("a", "b"), (0, 1) if i % 3 else (1, 0), i) for i in range(6)]
    tally = Tally("t", rc, teams, priors)
    for r in rows:
        tally.add(r)
    alone = rate(rows, rc, teams, priors=priors["tute-2"])
    pooled = rate(rows, rc, teams, priors=priors[POOLED])
    for n in ("a", "b"):
        assert tally.scope("tute-2").rater.state(n) == (alone[n].mu, alone[n].sigma)
        assert tally.scope(None).rater.state(n) == (pooled[n].mu, pooled[n].sigma)
    # the recomputation and the one-variant helper agree with the kept fold
    again = fold(rows, rc, teams, priors)
    assert again.scope("tute-2").rater.state("a") == tally.scope("tute-2").rater.state("a")
    table = standings_of(rows, teams, rc, ["a", "b"], priors["tute-2"], variant="tute-2")
    assert {s.entrant: s.mu for s in table} == {n: alone[n].mu for n in ("a", "b")}


def test_single_variant_with_equal_priors_is_still_one_fold() -> None:
    teams = {"tute-2": [(0,), (1,)]}
    tally = Tally("t", RatingConfig(), teams)
    tally.add(_row("tute-2", ("a", "b"), (0, 1), 0))
    assert tally.scope("tute-2") is tally.scope(None)


# ------------------------------------------------------------------------------ round-robin seats
def _cfg(tmp_path: Path, **top: Any) -> Any:
    from leagues.tournament.config import parse_config

    data = {"name": "qa", "seed": 3, "store": str(tmp_path / "s.sqlite"), "variants": [{"name": "tute-2"}],
            "entrants": [{"name": f"e{i}", "bot": "random", "params": {"seed": i}} for i in range(top.pop("n", 6))]}
    data.update(top)
    return parse_config(data, base=tmp_path)


@pytest.mark.parametrize("n", [4, 5, 6, 9, 10])
def test_round_robin_without_duplicates_balances_first_seats(tmp_path: Path, n: int) -> None:
    """Without duplicate deals and with an odd number of deals, a two-unit table's first unit holds the
    first seat once more than the other. The circle method left one entrant first at none of its tables
    and another at all (10 entrants, 1 deal: 0 against 9 first seats), against the docs' "first seats
    alternating" and "seats still balance over the deals"."""
    from leagues.tournament.schedule import round_robin_games

    cfg = _cfg(tmp_path, n=n, deals=1, duplicate=False)
    games = round_robin_games(cfg)
    first = Counter(g.seats[0] for g in games)
    played = Counter(x for g in games for x in g.seats)
    for name in played:
        assert abs(2 * first[name] - played[name]) <= 1, (name, first[name], played[name])
    # still every pair exactly once
    assert Counter(frozenset(g.seats) for g in games) == Counter(
        frozenset(p) for p in itertools.combinations(sorted(played), 2))


def test_round_robin_with_duplicates_keeps_its_tables(tmp_path: Path) -> None:
    """With duplicate deals the tables (and so every stored game id's seats) are unchanged."""
    from leagues.tournament.pairing import circle_rounds
    from leagues.tournament.schedule import round_robin_rounds

    cfg = _cfg(tmp_path, n=6)
    assert round_robin_rounds(cfg, 0) == circle_rounds([f"e{i}" for i in range(6)])


@pytest.mark.parametrize("variant,n,deals", [("tute-3", 5, 1), ("tute-3", 5, 2), ("tute-3", 6, 1), ("tute-4", 7, 2),
                                              ("tute-4-pairs", 6, 3), ("cabrero-5", 6, 3), ("subastado", 4, 3)])
def test_round_robin_without_duplicates_balances_the_dealer(tmp_path: Path, variant: str, n: int, deals: int) -> None:
    """Without duplicate deals the rotation cycled in step with the dealer, so the first unit of a table
    dealt every one of its deals (who deals decides who leads); and with fewer deals than units the
    first of each table's sorted units dealt at nearly every table (tute-3, 5 entrants, one deal: 0 to
    3 deals an entrant). Now the units of a table deal in turn, and the odd deals fall evenly."""
    from leagues.tournament.schedule import round_robin_games

    cfg = _cfg(tmp_path, n=n, deals=deals, duplicate=False, variants=[{"name": variant}])
    games = round_robin_games(cfg)
    k = cfg.variants[0].sides
    dealer_unit = {g.id: next(u for u in g.units if g.seats[g.dealer] == u) for g in games}
    for table in {(g.round, g.table) for g in games}:
        deals_of = [dealer_unit[g.id] for g in games if (g.round, g.table) == table]
        # in turn: k deals in a row at a table have k different dealers
        for i in range(0, len(deals_of), k):
            assert len(set(deals_of[i:i + k])) == len(deals_of[i:i + k]), (table, deals_of)
    dealt = Counter(dealer_unit.values())
    played = Counter(u for g in games for u in g.units)
    assert max(dealt[u] for u in played) - min(dealt[u] for u in played) <= 1, dict(dealt)


# ------------------------------------------------------------------------------ head-to-head intervals
def _t_cdf(x: float, df: int, steps: int = 20000) -> float:
    """Student's t distribution function at ``x`` > 0, by Simpson's rule over its density."""
    import math

    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda u: c * (1 + u * u / df) ** (-(df + 1) / 2)  # noqa: E731
    h = x / steps
    total = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
    return 0.5 + total * h / 3


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 15, 29, 30, 31, 40, 100, 1000])
def test_t95_is_students_97_5_percent_point(df: int) -> None:
    """The head-to-head interval is a t interval, as docs/match.md says: it used 1.96 whatever the
    number of blocks, too narrow over few (over 5 blocks the t point is 2.78)."""
    from leagues.tournament.sprt import t95

    assert _t_cdf(t95(df), df) == pytest.approx(0.975, abs=2e-6 if df > 30 else 1e-8)


def test_a_head_to_head_interval_over_few_blocks_is_a_t_interval() -> None:
    from leagues.tournament.sprt import t95
    from leagues.tournament.tally import PairStat

    stat = PairStat()
    scores = [1.0, 0.5, 0.0, 1.0, 1.0]
    for i, x in enumerate(scores):
        stat.add(f"b{i}", x)
    h = stat.final("a", "b")
    mean = sum(scores) / 5
    sd = (sum((x - mean) ** 2 for x in scores) / 4) ** 0.5
    assert h.blocks == 5 and h.score == pytest.approx(mean)
    assert h.half_width == pytest.approx(t95(4) * sd / 5 ** 0.5) and h.half_width > 1.96 * sd / 5 ** 0.5 * 1.3


# ------------------------------------------------------------------------------ a unit of several sides
def test_a_field_bot_of_two_seats_is_rated_by_both() -> None:
    """A match of tute-4 seats B, A and two copies of the field bot. The copies were rated as two
    players of one name, and only the last copy's update was kept; the head to head against the field
    read only the last copy's place. Now its rating moves by the mean of the copies' updates, and
    each copy counts a game and meets the others, as a bot playing itself does."""
    import trueskill

    from leagues.tournament.rating import make_env

    teams = {"tute-4": [(0,), (1,), (2,), (3,)]}
    rc = RatingConfig()
    seats = ("b", "field", "a", "field")
    ranks = (1, 0, 2, 3)  # one copy first, the other last
    tally = Tally("t", rc, teams)
    tally.add(_row("tute-4", seats, ranks, 0))
    scope = tally.scope(None)
    assert scope.counts["field"].games == 2 and scope.counts["field"].wins == 1
    assert scope.counts["a"].games == 1 and scope.rater.games["field"] == 2
    env = make_env(rc, 0.005)
    new = env.rate([{n: trueskill.Rating(rc.mu, rc.sigma)} for n in seats], ranks=ranks)
    copies = [g["field"] for g in new if "field" in g]
    mu, sigma = scope.rater.state("field")
    assert mu == pytest.approx(sum(r.mu for r in copies) / 2) and sigma == pytest.approx(sum(r.sigma for r in copies) / 2)
    assert scope.rater.state("a")[0] == pytest.approx(new[2]["a"].mu)
    h = scope.head_to_head()
    assert h[("b", "field")].score == 0.5 and h[("a", "field")].score == 0.5 and h[("field", "a")].score == 0.5


def test_a_bot_against_itself_keeps_its_rating() -> None:
    """Self-play (``tute play tute-2 greedy greedy``, imported): the rating was the last seat's update,
    the winner's or the loser's as the seats fell; it says nothing of the bot, and the mean of the
    two updates leaves it where it was."""
    teams = {"tute-2": [(0,), (1,)]}
    rc = RatingConfig()
    tally = Tally("t", rc, teams)
    for i in range(4):
        tally.add(_row("tute-2", ("g", "g"), (0, 1) if i % 2 else (1, 0), i))
    scope = tally.scope(None)
    mu, sigma = scope.rater.state("g")
    assert mu == pytest.approx(rc.mu) and sigma < rc.sigma
    assert scope.counts["g"].games == 8 and scope.counts["g"].wins == 4 and scope.head_to_head() == {}


def test_a_deal_everyone_passed_counts_nowhere(tmp_path: Path) -> None:
    """A subastado deal thrown in (everyone passed) moved no rating, as docs/rules.md says, but the
    table counted it a game and a draw, and the head to head, a match's block and a Swiss score scored
    it 0.5."""
    from leagues.tournament.matches import game_score

    teams = {"subastado": [(0, 2), (1, 3)]}
    seats = ("a", "b", "a", "b")
    redeal = GameRow("t/subastado/r1/t0/d0/s0", "t", "subastado", 0, 1, 0, 0, 0, seats, ("a", "b"), 1, 0, "done",
                     GameResult(points=(0, 0, 0, 0), ranks=(0, 0, 0, 0), reason="redeal"))
    tally = Tally("t", RatingConfig(), teams)
    tally.add(redeal)
    scope = tally.scope(None)
    assert scope.counts == {} and scope.head_to_head() == {} and scope.rater.games == {}
    assert game_score(redeal.result, seats, "b", "a") is None
    from leagues.tournament.schedule import round_robin_games, unit_scores

    cfg = _cfg(tmp_path, n=2, variants=[{"name": "subastado"}])
    spec = round_robin_games(cfg)[0]
    assert unit_scores(redeal.result, spec, cfg.variants[0]) == {}  # a Swiss score counts it neither


def test_a_match_block_with_a_deal_thrown_in_is_skipped_and_said(tmp_path: Path) -> None:
    """A subastado block of two rotations with one thrown in kept the other game alone: a block of
    one game where the distribution counts blocks of two (an index past its list when it came first).
    The block is skipped, and the summary counts it apart from the blocks counted."""
    from leagues.tournament.matches import MatchMonitor, block_specs, pairings, summary_lines

    cfg = _cfg(tmp_path, n=2, deals=3, format="match", variants=[{"name": "subastado"}])
    m = MatchMonitor(cfg)
    p = pairings(cfg)[0]
    for d in range(3):
        for g in block_specs(cfg, p, d, 0):
            side_b = 0 if g.seats[0] == p.b else 1
            if d == 0 and g.rotation == 0:
                result = GameResult(points=(0, 0, 0, 0), ranks=(0, 0, 0, 0), reason="redeal")
            else:
                ranks = tuple(0 if s % 2 == side_b else 1 for s in range(4))
                result = GameResult(points=(10, 0, 10, 0), ranks=ranks, reason="points")
            m.add(g.id, result, g.seats)
    m.advance()
    st = m.states[0]
    assert st.folded == 3 and st.skipped == 1 and st.games == [2, 2] and st.counts == {"subastado": [0, 0, 0, 0, 2]}
    assert summary_lines(cfg, m)[0].startswith(f"{p.b} vs {p.a}: 2 blocks (1 more with nothing to count), 4 games")


def test_swiss_without_duplicates_balances_the_dealer_at_tables_of_three(tmp_path: Path) -> None:
    """Swiss tables of three or more units were ordered by a hash alone without duplicate deals, so who
    dealt (and, in cabrero-5/6, sat out) was luck: 0 to 4 deals of 6 rounds in tute-3. The units are
    now ordered by the deals they dealt, and the first deals first."""
    import sqlite3

    from leagues.tournament.runner import run_tournament

    cfg = _cfg(tmp_path, n=6, deals=1, duplicate=False, format="swiss", rounds=6, workers=1,
               variants=[{"name": "tute-3"}])
    run_tournament(cfg, workers=1, quiet=True)
    db = sqlite3.connect(tmp_path / "s.sqlite")
    dealt = Counter(json.loads(seats)[dealer] for seats, dealer in db.execute("SELECT seats, dealer FROM games"))
    db.close()
    assert sorted(dealt.values()) == [2] * 6, dict(dealt)
