"""TrueSkill ratings as a fold over stored results, in schedule order.

Each game updates the entrants of its sides: two sides for two players and for pairs (a side of two
copies of one entrant is that one entrant: one rating group holding one rating, never the same rating
twice), free-for-all with ranks and ties for three or four individuals. Forfeits need no special case:
the result's ranks already put the offender last. Games are folded sorted by (round, variant, table,
deal, rotation), never by completion order, so the same results give bit-identical ratings.

``tau`` defaults to 0 (bots do not change during a tournament). The draw probability fits the variant:
0 for two-sided Tute (a tie on points goes to the last trick's winner, so no deal is drawn), and a small
one for three or four individuals, where a shared place can happen. The table ranks by the conservative
rating ``mu - k * sigma`` with ``k = 3``.

An entrant may start from a given ``(mu, sigma)`` instead of the environment's (``priors``): a league
carries its ratings from one season's tournament into the next this way (leagues/league/rating.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import trueskill

from arena.result import sides_in_play, thrown_in
from leagues.tournament.config import RatingConfig
from leagues.tournament.store import GameRow

#: shared places between individuals, per adjacent pair of ranks (random bots: about 0.2-0.5% of deals)
FFA_DRAW_PROBABILITY = 0.005
#: used only for a tie met under a zero draw probability (which TrueSkill cannot rate)
TIE_FALLBACK_DRAW_PROBABILITY = 0.001


@dataclass(frozen=True)
class Rated:
    mu: float
    sigma: float
    games: int

    def conservative(self, k: float = 3.0) -> float:
        return self.mu - k * self.sigma


def draw_probability(sides: int, rc: RatingConfig) -> float:
    if rc.draw_probability is not None:
        return rc.draw_probability
    return 0.0 if sides == 2 else FFA_DRAW_PROBABILITY


def make_env(rc: RatingConfig, draw: float, backend: str | None = None) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(mu=rc.mu, sigma=rc.sigma, beta=rc.beta, tau=rc.tau, draw_probability=draw,
                               backend=backend)


class Rater:
    """Running ratings; ``add`` one game after another in schedule order."""

    def __init__(self, rc: RatingConfig, teams: Mapping[str, Sequence[Sequence[int]]],
                 priors: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.rc = rc
        #: (mu, sigma) an entrant starts from instead of the environment's (a league's carried ratings)
        self.priors = dict(priors or {})
        self.teams = {label: [tuple(t) for t in ts] for label, ts in teams.items()}
        self._envs: dict[tuple[int, bool, str | None], trueskill.TrueSkill] = {}
        #: each entrant's (mu, sigma), as plain floats: the library's Rating keeps 1/sigma^2 and mu/sigma^2
        #: and gives mu and sigma back only to the last bit, so a rating kept as a Rating would differ
        #: from one stored and read back (a kept tally against the fold of every game, --recompute)
        self.ratings: dict[str, tuple[float, float]] = {}
        self.games: dict[str, int] = {}
        self.fallbacks = 0

    def env(self, sides: int, tied: bool, backend: str | None) -> trueskill.TrueSkill:
        key = (sides, tied, backend)
        if key not in self._envs:
            draw = draw_probability(sides, self.rc)
            if tied and draw == 0:
                draw = TIE_FALLBACK_DRAW_PROBABILITY
            self._envs[key] = make_env(self.rc, draw, backend)
        return self._envs[key]

    def state(self, name: str) -> tuple[float, float]:
        """``name``'s (mu, sigma): its prior until it has played."""
        r = self.ratings.get(name)
        if r is None:
            mu, sigma = self.priors.get(name, (self.rc.mu, self.rc.sigma))
            r = self.ratings[name] = (float(mu), float(sigma))
        return r

    def rating(self, name: str) -> trueskill.Rating:
        mu, sigma = self.state(name)
        return trueskill.Rating(mu=mu, sigma=sigma)

    def add(self, row: GameRow) -> None:
        """Fold one game in. A redeal (subastado, all passed) was never played, and a seat sitting the
        deal out (cabrero with 5 or 6) took no part: neither moves a rating."""
        if thrown_in(row.result):
            return
        teams = sides_in_play(self.teams[row.variant], row.result.sit_out)
        names = [row.seats[t[0]] for t in teams]
        ranks = [row.result.ranks[t[0]] for t in teams]
        tied = len(set(ranks)) < len(ranks)
        if len(names) == 2 and not tied and names[0] != names[1] and self._two(names, ranks):
            return
        groups = [{n: self.rating(n)} for n in names]
        try:
            new = self.env(len(teams), tied, None).rate(groups, ranks=ranks)
        except (FloatingPointError, ValueError, ZeroDivisionError, OverflowError):
            self.fallbacks += 1
            new = self.env(len(teams), tied, "mpmath").rate(groups, ranks=ranks)
        if len(set(names)) == len(names):
            for g in new:
                for n, r in g.items():
                    self.ratings[n] = (float(r.mu), float(r.sigma))
                    self.games[n] = self.games.get(n, 0) + 1
            return
        # a unit holding several sides (a match's field bot, a bot against itself): a game for each side,
        # as its table row counts them, and the mean of the sides' updates, each side an instance of the
        # same bot (the last side's update alone was kept before: self-play moved a rating at random)
        moved: dict[str, list[tuple[float, float]]] = {}
        for g in new:
            for n, r in g.items():
                moved.setdefault(n, []).append((float(r.mu), float(r.sigma)))
        for n, rs in moved.items():
            self.ratings[n] = (math.fsum(m for m, _ in rs) / len(rs), math.fsum(sd for _, sd in rs) / len(rs))
            self.games[n] = self.games.get(n, 0) + len(rs)

    def _two(self, names: Sequence[str], ranks: Sequence[int]) -> bool:
        """Two sides and a winner, TrueSkill's update in closed form (the two-player factor graph reduces
        to it: Herbrich, Minka and Graepel 2007, with the library's own v and w functions): what the
        library computes by message passing, to 1e-12, in a tenth of the time. Every table folds
        every game through this, so it sets how fast a run can store results. False (nothing
        changed) where the numbers leave the formula's range: the library and its fallback decide."""
        env = self.env(2, False, None)
        w, l_ = (0, 1) if ranks[0] < ranks[1] else (1, 0)
        (mu_w, sigma_w), (mu_l, sigma_l) = self.state(names[w]), self.state(names[l_])
        tau2, beta = env.tau ** 2, env.beta
        sw2, sl2 = sigma_w ** 2 + tau2, sigma_l ** 2 + tau2
        c2 = 2 * beta * beta + sw2 + sl2
        c = math.sqrt(c2)
        margin = trueskill.calc_draw_margin(env.draw_probability, 2, env) / c  # as the library: even at 0
        try:
            t = (mu_w - mu_l) / c
            v = env.v_win(t, margin)
            wf = env.w_win(t, margin)
            new_w = (mu_w + sw2 / c * v, math.sqrt(sw2 * (1 - sw2 / c2 * wf)))
            new_l = (mu_l - sl2 / c * v, math.sqrt(sl2 * (1 - sl2 / c2 * wf)))
        except (FloatingPointError, ValueError, ZeroDivisionError, OverflowError):
            return False
        self.ratings[names[w]], self.ratings[names[l_]] = new_w, new_l
        for n in names:
            self.games[n] = self.games.get(n, 0) + 1
        return True

    def result(self) -> dict[str, Rated]:
        return {n: Rated(mu, sigma, self.games.get(n, 0)) for n, (mu, sigma) in self.ratings.items()}


def rate(rows: Iterable[GameRow], rc: RatingConfig, teams: Mapping[str, Sequence[Sequence[int]]],
         entrants: Iterable[str] = (), priors: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Rated]:
    """Ratings after every game of ``rows`` (any order in, schedule order applied), each entrant
    starting from its ``priors`` entry if it has one."""
    rater = Rater(rc, teams, priors)
    for name in entrants:
        rater.state(name)
    for row in sorted(rows, key=lambda r: r.order):
        rater.add(row)
    return rater.result()
