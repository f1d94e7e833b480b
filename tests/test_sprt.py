"""The match statistics against figures computed here, independently, from the published formulas:
the constrained maximum-likelihood distributions satisfy their constraint and the optimality (KKT)
conditions of Van den Bergh's derivation; the LLR agrees with fishtest's closed-form approximation;
Elo, nElo, LOS and their intervals are the fastchess pentanomial formulas worked by hand."""

from __future__ import annotations

import math

import pytest

from leagues.tournament.sprt import (H0, H1, INCONCLUSIVE, Sprt, SprtError, _mle_mean, _mle_normalized,
                                     _regularised, estimate, logistic_score, wilson)

PENTA = [12, 41, 96, 55, 21]  # blocks scoring 0, 0.5, 1, 1.5, 2 (LL, LD, WL+DD, WD, WW)


def affine_residual(xs: list[float], ys: list[float]) -> float:
    """How far ``ys`` is from an affine function of ``xs`` (least squares), relative to its size."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    return max(abs(y - (a + b * x)) for x, y in zip(xs, ys)) / max(abs(y) for y in ys)


@pytest.mark.parametrize("s", [0.45, 0.5, 0.52, 0.6])
def test_the_mean_constrained_mle_meets_its_constraint_and_kkt(s: float) -> None:
    _, scores, probs = _regularised(PENTA)
    p = _mle_mean(scores, probs, s)
    assert sum(p) == pytest.approx(1, abs=1e-9)
    assert sum(a * w for a, w in zip(scores, p)) == pytest.approx(s, abs=1e-9)
    # KKT of max sum q log p with sum p = 1 and sum a p = s: q_i / p_i is affine in a_i
    assert affine_residual(scores, [q / w for q, w in zip(probs, p)]) < 1e-8


@pytest.mark.parametrize("t", [-0.05, 0.0, 0.03, 0.1])
def test_the_normalized_mle_meets_its_constraint_and_kkt(t: float) -> None:
    _, scores, probs = _regularised(PENTA)
    p = _mle_normalized(scores, probs, t)
    mu = sum(a * w for a, w in zip(scores, p))
    sigma = math.sqrt(sum(w * (a - mu) ** 2 for a, w in zip(scores, p)))
    assert sum(p) == pytest.approx(1, abs=1e-9)
    assert (mu - 0.5) / sigma == pytest.approx(t, abs=1e-8)
    # KKT with g(p) = mu - 1/2 - t sigma: dg/dp_i = a_i - t (a_i^2 - 2 mu a_i) / (2 sigma)
    grad = [a - t * (a * a - 2 * mu * a) / (2 * sigma) for a in scores]
    assert affine_residual(grad, [q / w for q, w in zip(probs, p)]) < 1e-6


def test_the_llr_agrees_with_fishtests_closed_form_approximation() -> None:
    # fishtest's LLR_alt2 (the GSPRT approximation): N (s1 - s0) (2 xbar - s0 - s1) / (2 var)
    n = sum(PENTA)
    scores = [k / 4 for k in range(5)]
    xbar = sum(s * c for s, c in zip(scores, PENTA)) / n
    var = sum(c * (s - xbar) ** 2 for s, c in zip(scores, PENTA)) / n
    for elo0, elo1 in [(0, 10), (0, 40), (-10, 20)]:
        s0, s1 = logistic_score(elo0), logistic_score(elo1)
        approx = n * (s1 - s0) * (2 * xbar - s0 - s1) / (2 * var)
        exact = Sprt(elo0, elo1, model="logistic").llr(PENTA)
        assert exact == pytest.approx(approx, rel=0.03, abs=0.02)
        # normalized: the same with s = 1/2 + t sigma (sigma the observed pair sd, t = sqrt(2) nElo / scale)
        scale = 800 / math.log(10)
        n0 = 0.5 + math.sqrt(2) * elo0 / scale * math.sqrt(var)
        n1 = 0.5 + math.sqrt(2) * elo1 / scale * math.sqrt(var)
        approx_n = n * (n1 - n0) * (2 * xbar - n0 - n1) / (2 * var)
        assert Sprt(elo0, elo1).llr(PENTA) == pytest.approx(approx_n, rel=0.03, abs=0.02)


def test_bounds_and_verdicts() -> None:
    s = Sprt(0, 10, 0.05, 0.05)
    assert s.lower == pytest.approx(-2.944, abs=1e-3) and s.upper == pytest.approx(2.944, abs=1e-3)
    assert s.verdict(3.0) == H1 and s.verdict(-3.0) == H0 and s.verdict(0.1) == INCONCLUSIVE
    strong = [0, 0, 5, 40, 200]
    assert s.llr(strong) > s.upper
    weak = [200, 40, 5, 0, 0]
    assert s.llr(weak) < s.lower


def test_estimates_are_the_pentanomial_formulas_by_hand() -> None:
    e = estimate(PENTA)
    n = sum(PENTA)
    ww, wd, mid, ld = (x / n for x in (PENTA[4], PENTA[3], PENTA[2], PENTA[1]))
    score = ww + 0.75 * wd + 0.5 * mid + 0.25 * ld
    ll = PENTA[0] / n
    var = (ww * (1 - score) ** 2 + wd * (0.75 - score) ** 2 + mid * (0.5 - score) ** 2
           + ld * (0.25 - score) ** 2 + ll * (0 - score) ** 2)
    hi, lo = score + 1.959963984540054 * math.sqrt(var / n), score - 1.959963984540054 * math.sqrt(var / n)

    def elo(x: float) -> float:
        return -400 * math.log10(1 / x - 1)

    def nelo(x: float) -> float:
        return (x - 0.5) / math.sqrt(2 * var) * 800 / math.log(10)

    assert e.score == pytest.approx(score) and e.blocks == n and e.games == 2
    assert e.elo == pytest.approx(elo(score)) and e.elo_error == pytest.approx((elo(hi) - elo(lo)) / 2)
    assert e.nelo == pytest.approx(nelo(score)) and e.nelo_error == pytest.approx((nelo(hi) - nelo(lo)) / 2)
    assert e.los == pytest.approx(0.5 * (1 + math.erf((score - 0.5) / math.sqrt(2 * var / n))))
    # rounded as the summary prints them
    assert f"{e.elo:.2f}" == f"{elo(score):.2f}"


@pytest.mark.parametrize("kw, message", [(dict(elo0=5, elo1=5), "below"), (dict(elo0=0, elo1=5, alpha=0.5), "alpha"),
                                         (dict(elo0=0, elo1=5, beta=0), "beta"),
                                         (dict(elo0=0, elo1=math.inf), "finite"),
                                         (dict(elo0=0, elo1=5, model="bayes"), "model")])
def test_bad_parameters_are_named(kw: dict, message: str) -> None:
    with pytest.raises(SprtError, match=message):
        Sprt(**kw)


def test_wilson_has_width_at_the_edges() -> None:
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo < 0.8
    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi > 0.2
    lo, hi = wilson(5, 10)
    assert lo < 0.5 < hi


def test_head_to_head_at_a_score_of_one_keeps_a_width() -> None:
    from arena import GameResult
    from leagues.tournament.leaderboard import head_to_head
    from leagues.tournament.store import GameRow

    rows = []
    for d in range(8):
        for r in range(2):
            seats = ("good", "bad") if r == 0 else ("bad", "good")
            ranks = (0, 1) if r == 0 else (1, 0)
            rows.append(GameRow(f"t/tute-2/r1/t0/d{d}/s{r}", "t", "tute-2", 0, 1, 0, d, r, seats, ("good", "bad"),
                                0, 0, "done", GameResult(points=(70, 60), ranks=ranks, reason="points")))
    h = head_to_head(rows, {"tute-2": [(0,), (1,)]})
    assert h[("good", "bad")].score == 1.0 and h[("good", "bad")].half_width > 0.1
    assert h[("bad", "good")].score == 0.0 and h[("bad", "good")].half_width > 0.1


def test_a_perfect_score_reads_a_one_sided_bound_never_inf_plus_minus_inf() -> None:
    """Every block won (or lost): Elo is infinite, and the text once said "+/- -inf", then "inf +/- inf",
    which tells a user nothing; the games still bound it on one side (Wilson's, over the games)."""
    from leagues.tournament.sprt import _elo, estimate, wilson

    for counts, sign, word in (([0, 0, 0, 0, 5], "at least +", "won"), ([5, 0, 0, 0, 0], "at most -", "lost")):
        text = estimate(counts).text()
        assert "+/-" not in text and "nan" not in text, text
        assert f"every game {word}: {sign}166.20 at 95% over 10 games" in text, text
    assert _elo(wilson(10, 10)[0]) == pytest.approx(166.20, abs=0.01)
    # a bound that grows with the games: 200 blocks of 2 games all won say far more than 5
    assert "at least +807.03 at 95% over 400 games" in estimate([0, 0, 0, 0, 200]).text()
    # short of perfect, the interval's upper end unbounded: its lower end, never "+/- inf", and never surer
    # than the perfect score's (one level block among forty won ones read +567 against +527 for forty won)
    text = estimate([0, 1, 0, 0, 5]).text()
    assert "(at least +68.66 at 95%)" in text and "every game" not in text and "+/- inf, nElo" not in text, text
    near = estimate([0, 0, 1, 0, 39]).text()
    assert "(at least +456.24 at 95%)" in near and "at least +527.44" in estimate([0, 0, 0, 0, 40]).text()
    assert "(at most -456.24 at 95%)" in estimate([39, 0, 1, 0, 0]).text()
    assert estimate([3, 5, 9, 5, 3]).text().startswith("Elo 0.00 +/- ")  # level: no "-0.00"


def test_bounds_are_held_to_what_each_model_computes() -> None:
    """Wide bounds crashed the match at its first block (math domain error under the normalized model,
    from nElo 240 with two games a block; ZeroDivisionError under the logistic one at 1e300): refused
    when the test is made, and every bound allowed computes, whatever the blocks' results."""
    import random

    from leagues.tournament.sprt import ELO_LIMITS, SprtError

    for model, limit in ELO_LIMITS.items():
        for elo0, elo1 in ((0, limit * 1.01), (-limit * 1.01, 0), (0, 1e30)):
            with pytest.raises(SprtError, match="at most"):
                Sprt(elo0, elo1, model=model)
        rng = random.Random(7)
        for games in range(1, 7):
            for elo0, elo1 in ((0, limit), (-limit, limit), (-limit, 0)):
                test = Sprt(elo0, elo1, model=model)
                for _ in range(30):
                    llr = test.llr([rng.choice([0, 0, 1, 3, 40]) for _ in range(2 * games + 1)])
                    assert math.isfinite(llr)
