"""TrueSkill folding: reference values, monotonicity, teams and ties as TrueSkill expects them,
bit-identical replays, and a strong bot above a weak one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trueskill
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import GameResult
from leagues.tournament.config import RatingConfig, load_config
from leagues.tournament.leaderboard import standings, stored_setup
from leagues.tournament.rating import Rater, rate
from leagues.tournament.runner import run_tournament
from leagues.tournament.store import GameRow, Store

from league_util import TESTS, write_config

TEAMS = {"tute-2": [(0,), (1,)], "tute-3": [(0,), (1,), (2,)], "tute-4": [(0,), (1,), (2,), (3,)],
         "tute-4-pairs": [(0, 2), (1, 3)]}


def row(variant: str, seats: tuple[str, ...], ranks: tuple[int, ...], i: int = 0) -> GameRow:
    result = GameResult(points=tuple(10 for _ in seats), ranks=ranks, reason="points")
    return GameRow(f"t/{variant}/r1/t0/d{i}/s0", "t", variant, 0, 1, 0, i, 0, seats, seats, 1, 0, "done", result)


def test_reference_values_of_one_win() -> None:
    lib = trueskill.TrueSkill()  # the library's defaults: draw probability 0.10, tau 25/300
    rc = RatingConfig(draw_probability=lib.draw_probability, tau=lib.tau)
    r = rate([row("tute-2", ("a", "b"), (0, 1))], rc, TEAMS)
    assert (round(r["a"].mu, 3), round(r["a"].sigma, 3)) == (29.396, 7.171)
    assert (round(r["b"].mu, 3), round(r["b"].sigma, 3)) == (20.604, 7.171)
    assert r["a"].conservative() == pytest.approx(r["a"].mu - 3 * r["a"].sigma)


def test_teams_and_ties_reach_trueskill_as_groups_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[dict], list[int]]] = []
    real = trueskill.TrueSkill.rate

    def spy(self, groups, ranks=None, **kw):  # type: ignore[no-untyped-def]
        calls.append(([dict(g) for g in groups], list(ranks)))
        return real(self, groups, ranks=ranks, **kw)

    monkeypatch.setattr(trueskill.TrueSkill, "rate", spy)
    rater = Rater(RatingConfig(), TEAMS)
    rater.add(row("tute-4-pairs", ("a", "b", "a", "b"), (1, 0, 1, 0)))
    assert calls == []  # two sides and a winner: the closed form (checked against the library below)
    lib = trueskill.TrueSkill(mu=25, sigma=25 / 3, beta=25 / 6, tau=0, draw_probability=0)
    (a,), (b,) = real(lib, [(lib.create_rating(),), (lib.create_rating(),)], ranks=[1, 0])
    assert rater.rating("a").mu == pytest.approx(a.mu, abs=1e-9) and rater.rating("b").mu == pytest.approx(b.mu, abs=1e-9)
    assert rater.rating("b").mu > rater.rating("a").mu
    rater.add(row("tute-3", ("a", "b", "c"), (0, 0, 2), 1))
    groups, ranks = calls[-1]
    assert [list(g) for g in groups] == [["a"], ["b"], ["c"]] and ranks == [0, 0, 2]
    # a tie under a zero draw probability is still rated (fallback environment), never a crash
    rater2 = Rater(RatingConfig(draw_probability=0.0), TEAMS)
    rater2.add(row("tute-2", ("a", "b"), (0, 0)))
    assert rater2.rating("a").mu == pytest.approx(rater2.rating("b").mu)


@settings(max_examples=300, deadline=None)
@given(mu=st.tuples(st.floats(-20, 70), st.floats(-20, 70)), sigma=st.tuples(st.floats(0.3, 9), st.floats(0.3, 9)),
       first_wins=st.booleans(), tau=st.sampled_from([0.0, 0.05, 25 / 300]),
       draw=st.sampled_from([None, 0.0, 0.02, 0.1]))
def test_the_two_sided_closed_form_is_the_librarys_update(mu: tuple[float, float], sigma: tuple[float, float],
                                                          first_wins: bool, tau: float, draw: float | None) -> None:
    """Two sides and a winner are rated in closed form (every table's hot path): the library's factor
    graph gives the same numbers, within 1e-9, or the closed form steps aside."""
    rater = Rater(RatingConfig(tau=tau, draw_probability=draw), TEAMS)
    rater.ratings["a"], rater.ratings["b"] = (mu[0], sigma[0]), (mu[1], sigma[1])
    ranks = [0, 1] if first_wins else [1, 0]
    env = rater.env(2, False, None)
    try:
        (x,), (y,) = env.rate([(trueskill.Rating(mu[0], sigma[0]),), (trueskill.Rating(mu[1], sigma[1]),)], ranks=ranks)
    except FloatingPointError:
        return  # the library itself needs its mpmath fallback here, and so does the Rater
    if rater._two(["a", "b"], ranks):
        for got, want in ((rater.rating("a"), x), (rater.rating("b"), y)):
            assert got.mu == pytest.approx(want.mu, abs=1e-9) and got.sigma == pytest.approx(want.sigma, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(games=st.lists(st.tuples(st.sampled_from(["tute-2", "tute-3", "tute-4"]), st.randoms(use_true_random=False)),
                      min_size=1, max_size=25))
def test_winner_never_falls_last_never_rises(games: list) -> None:
    names = ["a", "b", "c", "d"]
    rater = Rater(RatingConfig(), TEAMS)
    for i, (variant, rng) in enumerate(games):
        k = len(TEAMS[variant])
        seats = tuple(rng.sample(names, k))
        raw = [rng.randrange(k) for _ in range(k)]
        ranks = tuple(sum(1 for o in raw if o < x) for x in raw)  # competition ranks, ties possible
        before = {n: rater.rating(n).mu for n in seats}
        rater.add(row(variant, seats, ranks, i))
        for s, rk in zip(seats, ranks):
            if rk == 0 and ranks.count(0) == 1:
                assert rater.rating(s).mu >= before[s] - 1e-9
            if rk == max(ranks) and ranks.count(rk) == 1:
                assert rater.rating(s).mu <= before[s] + 1e-9


def test_order_is_schedule_order_not_input_order() -> None:
    rows = [row("tute-2", ("a", "b") if i % 3 else ("b", "a"), (0, 1), i) for i in range(12)]
    shuffled = list(rows)
    random.Random(3).shuffle(shuffled)
    assert rate(rows, RatingConfig(), TEAMS) == rate(shuffled, RatingConfig(), TEAMS)


def test_strong_bot_above_weak_and_bit_identical_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TESTS))
    path = write_config(tmp_path, deals=6, variants=[{"name": "tute-2"}, {"name": "tute-3"}], entrants=[
        {"name": "weak1", "bot": "random", "params": {"seed": 1}},
        {"name": "strong", "bot": "league_bots:CheapWinBot", "isolation": "inprocess"},
        {"name": "weak2", "bot": "random", "params": {"seed": 2}}])
    cfg = load_config(path)
    run_tournament(cfg, workers=1, quiet=True)
    with Store(cfg.store) as store:
        table = standings(store, "t")
        assert table[0].entrant == "strong" and table[0].wins > table[0].losses
        teams, rc, names = stored_setup(store, "t")
        rows = store.games("t")
        first = rate(rows, rc, teams, names)
        again = rate(list(reversed(rows)), rc, teams, names)
        assert {n: (r.mu, r.sigma) for n, r in first.items()} == {n: (r.mu, r.sigma) for n, r in again.items()}
        assert [s.rating for s in standings(store, "t")] == [s.rating for s in table]


def test_redeals_and_sit_outs_do_not_move_ratings() -> None:
    from arena import GameResult
    from leagues.tournament.rating import Rater
    from leagues.tournament.config import RatingConfig
    from leagues.tournament.store import GameRow

    def row(i: int, result: GameResult, seats: tuple[str, ...]) -> GameRow:
        return GameRow(f"t/v/r1/t0/d{i}/s0", "t", "v", 0, 1, 0, i, 0, seats, seats, 1, 0, "done", result)

    rater = Rater(RatingConfig(), {"v": [(0,), (1,), (2,), (3,), (4,)]})
    seats = ("a", "b", "c", "d", "e")
    rater.add(row(0, GameResult(points=(0,) * 5, ranks=(0,) * 5, reason="redeal"), seats))
    assert rater.result() == {}
    played = GameResult(points=(40, 30, 20, 40, 0), ranks=(0, 1, 1, 0, 0), reason="points", losers=(1, 2), sit_out=4)
    rater.add(row(1, played, seats))
    got = rater.result()
    assert set(got) == {"a", "b", "c", "d"} and got["a"].mu > 25 > got["b"].mu


def test_priors_start_an_entrant_elsewhere_and_default_is_unchanged() -> None:
    rows = [row("tute-2", ("a", "b"), (0, 1), i) for i in range(3)]
    plain = rate(rows, RatingConfig(), TEAMS)
    same = rate(rows, RatingConfig(), TEAMS, priors={})
    assert plain == same
    carried = rate(rows, RatingConfig(), TEAMS, priors={"a": (30.0, 2.0)})
    # a confident strong prior moves little on three expected wins; b starts from the default
    assert abs(carried["a"].mu - 30.0) < abs(plain["a"].mu - 25.0)
    assert carried["a"].sigma < 2.0 and carried["b"].sigma > 2.0
    env = trueskill.TrueSkill(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=0.0, draw_probability=0.0)
    a, b = env.create_rating(30.0, 2.0), env.create_rating()
    for _ in range(3):
        (a,), (b,) = env.rate([(a,), (b,)], ranks=[0, 1])
    assert (carried["a"].mu, carried["a"].sigma) == pytest.approx((a.mu, a.sigma), abs=1e-12)
