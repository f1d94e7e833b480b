"""Statistics of a match on duplicate blocks: Elo and normalized Elo with 95% intervals, LOS, and the
generalized SPRT (GSPRT) that fishtest and fastchess run on game pairs.

The unit is the *duplicate block*: one deck order played once per seat rotation. Its games share the
cards, so they are correlated, and only blocks are independent; every interval and the SPRT count
blocks. A block of ``g`` games scores ``0, 0.5, ..., g`` for A (1 a game A's side ranks above B's, 0.5 a
tie); normalised by ``g`` it takes ``2g + 1`` values. With two seats a block is exactly a chess game pair
with colours reversed, and its five values are fastchess's pentanomial ``Ptnml(0-2)``: on the same counts
the figures here are fastchess's.

Method (Michel Van den Bergh, "Comments on Normalized Elo", https://www.cantate.be/Fishtest/normalized_elo_practical.pdf,
as fishtest's ``stats/LLRcalc.py`` and fastchess's ``sprt.cpp`` implement it): the log-likelihood ratio of
the observed distribution of block scores between the maximum-likelihood distributions constrained to
H0 and to H1. Under the ``normalized`` model (the default, as in fishtest and fastchess) H0 and H1 are
normalized Elo values: ``t = (mu - 1/2) / sigma_block = sqrt(g) * nElo / (800 / ln 10)``; under the
``logistic`` model they are Elo values: ``mu = 1 / (1 + 10^(-Elo / 400))``. Empty categories count as
1e-3 blocks (fastchess's regularisation). Bounds: ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

Z95 = 1.959963984540054
NELO_SCALE = 800.0 / math.log(10.0)
MODELS = ("normalized", "logistic")
H0, H1, INCONCLUSIVE = "H0 accepted", "H1 accepted", "inconclusive"


#: the widest bounds each model computes: beyond about t = 0.94 (nElo 140 in blocks of six games) the
#: normalized model's constrained maximum likelihood has no fixed point its iteration reaches, and past
#: some thousand Elo the logistic score rounds to 1, where the likelihood has no maximum
ELO_LIMITS = {"normalized": 100.0, "logistic": 1000.0}


class SprtError(ValueError):
    """SPRT parameters that make no test; the message names the one."""


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise SprtError(f"{name}: must be a finite number, not {getattr(self, name)!r}")
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise SprtError(f"{name}: must be in (0, 0.5), not {getattr(self, name):g}")
        if self.model not in MODELS:
            raise SprtError(f"model: must be one of {', '.join(MODELS)}, not {self.model!r}")
        limit = ELO_LIMITS[self.model]
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) > limit:
                raise SprtError(f"{name}: at most {limit:g} either way under the {self.model} model, not "
                                f"{getattr(self, name):g} (a test's bounds are a few Elo: 0,10 or 0,5)")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The LLR of H1 against H0 for ``counts[k]`` blocks scoring ``k / 2`` games of ``len(counts) - 1) / 2``."""
        games = (len(counts) - 1) / 2
        total, scores, probs = _regularised(counts)
        if self.model == "normalized":
            t0 = math.sqrt(games) * self.elo0 / NELO_SCALE
            t1 = math.sqrt(games) * self.elo1 / NELO_SCALE
            p0, p1 = _mle_normalized(scores, probs, t0), _mle_normalized(scores, probs, t1)
        else:
            p0 = _mle_mean(scores, probs, logistic_score(self.elo0))
            p1 = _mle_mean(scores, probs, logistic_score(self.elo1))
        return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1))

    def verdict(self, llr: float) -> str:
        if llr >= self.upper:
            return H1
        if llr <= self.lower:
            return H0
        return INCONCLUSIVE


def logistic_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _regularised(counts: Sequence[int]) -> tuple[float, list[float], list[float]]:
    n = len(counts) - 1
    reg = [c if c else 1e-3 for c in counts]
    total = sum(reg)
    return total, [k / n for k in range(n + 1)], [c / total for c in reg]


def _bisect(f: Callable[[float], float], lo: float, hi: float, eps: float = 1e-12) -> float:
    """The root of an increasing-or-decreasing ``f`` between ``lo`` and ``hi`` (open ends allowed: the
    ends are where ``f`` blows up)."""
    a, b = lo, hi
    fa = f(a)
    for _ in range(200):
        m = (a + b) / 2
        fm = f(m)
        if fm == 0 or b - a < eps:
            return m
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return (a + b) / 2


def _interior(lo: float, hi: float) -> tuple[float, float]:
    span = hi - lo
    return lo + span * 1e-12, hi - span * 1e-12


def _mle_mean(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution closest (in likelihood) to ``probs`` with mean ``s``: ``p_i = q_i / (1 + x (a_i - s))``
    where ``x`` solves ``sum q_i (a_i - s) / (1 + x (a_i - s)) = 0`` (Van den Bergh, proposition 1.1)."""
    lo, hi = _interior(-1.0 / (scores[-1] - s), -1.0 / (scores[0] - s))
    x = _bisect(lambda x: sum(q * (a - s) / (1 + x * (a - s)) for a, q in zip(scores, probs)), lo, hi)
    return [q / (1 + x * (a - s)) for a, q in zip(scores, probs)]


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The distribution closest to ``probs`` with ``(mu - 1/2) / sigma = t`` (Van den Bergh, section 4.1),
    by the fixed-point iteration from the uniform distribution."""
    n = len(scores)
    p = [1.0 / n] * n
    for _ in range(50):
        mu = sum(a * w for a, w in zip(scores, p))
        sigma = math.sqrt(sum(w * (a - mu) ** 2 for a, w in zip(scores, p)))
        phi = [a - 0.5 - 0.5 * t * sigma * (1 + ((a - mu) / sigma) ** 2) for a in scores]
        lo, hi = _interior(-1.0 / max(phi), -1.0 / min(phi))
        x = _bisect(lambda x: sum(q * f / (1 + x * f) for q, f in zip(probs, phi)), lo, hi)
        new = [q / (1 + x * f) for q, f in zip(probs, phi)]
        done = max(abs(a - b) for a, b in zip(new, p)) < 1e-10
        p = new
        if done:
            break
    return p


# ------------------------------------------------------------------------------------------- estimates
@dataclass(frozen=True)
class Estimate:
    """A match's figures on ``blocks`` blocks of ``games`` games each (per block: A's mean score)."""
    blocks: int
    games: int
    score: float
    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float
    #: the ends of the Elo interval (infinite where the score's interval reaches 0 or 1)
    elo_low: float = -math.inf
    elo_high: float = math.inf

    def text(self) -> str:
        if self.blocks and not 0 < self.score < 1:
            return self._one_sided()
        nelo = f"nElo {_fmt(self.nelo)} +/- {_half(self.nelo_error)}, LOS {100 * self.los:.2f}%"
        # an interval with one end unbounded (a score near 0 or 1) says its other end, not "+/- inf";
        # that end no further than Wilson's over the games puts it, as a perfect score's is (else one
        # level block among forty won would read surer than forty won)
        n = self.blocks * self.games
        lo, hi = wilson(self.score * n, n)
        if math.isfinite(self.elo_low) and not math.isfinite(self.elo_high):
            return f"Elo {_fmt(self.elo)} (at least {min(self.elo_low, _elo(lo)):+.2f} at 95%), {nelo}"
        if math.isfinite(self.elo_high) and not math.isfinite(self.elo_low):
            return f"Elo {_fmt(self.elo)} (at most {max(self.elo_high, _elo(hi)):+.2f} at 95%), {nelo}"
        return f"Elo {_fmt(self.elo)} +/- {_half(self.elo_error)}, {nelo}"

    def _one_sided(self) -> str:
        """Every game won (or lost): the Elo is infinite and a two-sided interval says nothing ("inf
        +/- inf"), but the games still bound it on one side. The bound is Wilson's over the games, as
        if each were apart: it is the figure a user can act on ("at least +X")."""
        n = self.blocks * self.games
        won = self.score >= 1
        lo, hi = wilson(n if won else 0, n)
        bound, word, sign = (_elo(lo), "won", "at least") if won else (_elo(hi), "lost", "at most")
        return (f"Elo {_fmt(self.elo)} (every game {word}: {sign} {bound:+.2f} at 95% over {n} games), "
                f"nElo {_fmt(self.nelo)}, LOS {100 * self.los:.2f}%")


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf"
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text  # a level score is no loss


def _half(x: float) -> str:
    """An interval's half-width: unbounded (a score of 0 or 1, where Elo is infinite) reads inf, never
    -inf or nan."""
    return f"{x:.2f}" if math.isfinite(x) and x >= 0 else "inf"


def _elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def estimate(counts: Sequence[int]) -> Estimate:
    """Elo (logistic), normalized Elo and LOS from block counts (``counts[k]``: blocks scoring ``k / 2``),
    with 95% intervals from the variance of block scores, as fastchess computes them for game pairs."""
    n = len(counts) - 1
    return estimate_values([k / n for k, c in enumerate(counts) for _ in range(c)], n / 2)


def estimate_values(values: Sequence[float], games: float) -> Estimate:
    """The same from each block's mean score (``values``, in [0, 1]) with ``games`` games per block on
    average (blocks of several variants may differ in size)."""
    n_blocks = len(values)
    g = games
    if n_blocks == 0:
        return Estimate(0, round(g), 0.5, 0.0, math.inf, 0.0, math.inf, 0.5)
    mu = sum(values) / n_blocks
    var = sum((v - mu) ** 2 for v in values) / n_blocks
    per_block = var / n_blocks
    hi, lo = mu + Z95 * math.sqrt(per_block), mu - Z95 * math.sqrt(per_block)
    elo_error = (_elo(hi) - _elo(lo)) / 2
    if var > 0:
        nelo = (mu - 0.5) / math.sqrt(g * var) * NELO_SCALE
        nelo_error = (hi - lo) / 2 / math.sqrt(g * var) * NELO_SCALE
        los = 0.5 * (1 + math.erf((mu - 0.5) / math.sqrt(2 * per_block)))
    else:
        nelo = math.inf if mu > 0.5 else -math.inf if mu < 0.5 else 0.0
        nelo_error = math.inf
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return Estimate(n_blocks, round(g), mu, _elo(mu), elo_error, nelo, nelo_error, los, _elo(lo), _elo(hi))


#: Student's t, the 97.5% point with 1 to 30 degrees of freedom (beyond, ``t95``'s expansion is within
#: 1e-5 of it); ``tests/test_results_qa.py`` checks each against the t density integrated
_T975 = (12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252,
         2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688,
         2.131449546, 2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447, 2.079613845,
         2.073873068, 2.068657610, 2.063898562, 2.059538553, 2.055529439, 2.051830516, 2.048407142,
         2.045229642, 2.042272456)


def t95(df: int) -> float:
    """The two-sided 95% point of Student's t with ``df`` degrees of freedom: the half-width of a mean's
    interval over ``df + 1`` samples is this times its standard error (1.96 only for many samples:
    over 5 blocks, 2.78)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95  # the Cornish-Fisher expansion in 1/df
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: right at 0 and 1, where a normal interval has no width."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
