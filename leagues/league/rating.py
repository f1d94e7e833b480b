"""Ratings across seasons: where each version starts, what a season makes of it, and the standings.

A season is folded by the same code as a tournament's table (leaderboard.standings_of, rating.Rater),
per variant and pooled, each entrant starting from a *prior*:

- a version seen before starts where its last season left it, its sigma widened by ``tau`` once per
  season since (``sigma^2 + n * tau^2``): time passes for the field, if not for the bot;
- a new version of a known entrant starts from the entrant's latest rating, widened by ``tau`` per
  season and once more by ``version_sigma``: probably near the old one, but less certain;
- anyone else starts from the environment's ``mu`` and ``sigma``.
No sigma grows past the initial ``sigma``. Everything here is a fold over stored rows (games, the
league's ratings), so standings and histories read the same whenever they are computed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from leagues.tournament.leaderboard import standings_of
from leagues.tournament.tally import Standing as TableRow
from leagues.league.config import LeagueConfig, LeagueRating
from leagues.league.store import POOLED, LeagueStore, RatingRow, SeasonEntrant
from leagues.tournament.store import GameRow

#: seasons shown in a standing's form
FORM_SEASONS = 5


def prior(rows: Sequence[RatingRow], version: int, season: int, r: LeagueRating) -> tuple[float, float]:
    """Where ``version`` of an entrant starts ``season``, from its rows (one scope) of earlier seasons."""
    earlier = [x for x in rows if x.season < season]
    same = [x for x in earlier if x.version == version]
    if same:
        last = max(same, key=lambda x: x.season)
        var = last.sigma ** 2 + (season - last.season) * r.tau ** 2
    elif earlier:
        last = max(earlier, key=lambda x: (x.season, x.version))
        var = last.sigma ** 2 + (season - last.season) * r.tau ** 2 + r.version_sigma ** 2
    else:
        return r.mu, r.sigma
    return last.mu, min(r.sigma, math.sqrt(var))


def _by_scope_entrant(rows: Iterable[RatingRow]) -> dict[tuple[str, str], list[RatingRow]]:
    out: dict[tuple[str, str], list[RatingRow]] = defaultdict(list)
    for x in rows:
        out[(x.scope, x.entrant)].append(x)
    return out


Priors = dict[str, dict[str, tuple[float, float]]]


def season_priors(cfg: LeagueConfig, season: int, entrants: Sequence[SeasonEntrant],
                  history: Iterable[RatingRow]) -> Priors:
    """Where each entrant starts ``season``, per table (pooled and each variant): what the season's
    tournaments fold from, as their games land."""
    version = {e.entrant: e.version for e in entrants}
    before = _by_scope_entrant(x for x in history if x.season < season)
    return {scope: {n: prior(before.get((scope, n), []), version[n], season, cfg.rating) for n in version}
            for scope in [POOLED, *cfg.labels]}


def rating_rows(cfg: LeagueConfig, season: int, entrants: Sequence[SeasonEntrant], priors: Priors,
                table_of: Callable[[str], Sequence[TableRow]]) -> list[RatingRow]:
    """The season's rating rows from its tables (``table_of(scope)``) and where each entrant started."""
    version = {e.entrant: e.version for e in entrants}
    out: list[RatingRow] = []
    for scope in [POOLED, *cfg.labels]:
        for s in table_of(scope):
            p_mu, p_sigma = priors[scope][s.entrant]
            out.append(RatingRow(season, scope, s.entrant, version[s.entrant], p_mu, p_sigma, s.mu, s.sigma, s.games,
                                 s.wins, s.draws, s.losses))
    return out


def fold_season(cfg: LeagueConfig, season: int, entrants: Sequence[SeasonEntrant], games: Sequence[GameRow],
                history: Iterable[RatingRow]) -> list[RatingRow]:
    """The season's rating rows, pooled and per variant, folded from its games and the ratings before
    it: the recomputation of what the season's tournaments kept as they were played."""
    teams = {v.label: [tuple(t) for t in v.variant.teams] for v in cfg.variants}
    names = [e.entrant for e in entrants]
    rc = cfg.rating.in_season()
    priors = season_priors(cfg, season, entrants, history)

    def table_of(scope: str) -> Sequence[TableRow]:
        rows = list(games) if scope == POOLED else [g for g in games if g.variant == scope]
        return standings_of(rows, teams, rc, names, priors[scope])
    return rating_rows(cfg, season, entrants, priors, table_of)


def places(cfg: LeagueConfig, entrants: Sequence[SeasonEntrant], ratings: Sequence[RatingRow]) -> list[SeasonEntrant]:
    """Each entrant's place in its division by pooled conservative rating, and its next division: with
    ``promote = p``, the top p of a division move up and the bottom p down (p at most half the
    division, so nobody does both)."""
    k = cfg.rating.k
    pooled = {x.entrant: x for x in ratings if x.scope == POOLED}
    divisions = sorted({e.division for e in entrants})
    last = max(divisions)
    out: list[SeasonEntrant] = []
    for d in divisions:
        members = sorted((e for e in entrants if e.division == d),
                         key=lambda e: (-pooled[e.entrant].conservative(k), -pooled[e.entrant].mu, e.entrant))
        p = min(cfg.promote, len(members) // 2)
        for i, e in enumerate(members, start=1):
            nxt = d
            if d > 1 and i <= p:
                nxt = d - 1
            elif d < last and i > len(members) - p:
                nxt = d + 1
            out.append(SeasonEntrant(e.season, e.entrant, e.version, d, i, nxt))
    return out


def plan_divisions(cfg: LeagueConfig, field_: Sequence[str], previous: Mapping[str, SeasonEntrant],
                   rating: Mapping[str, float]) -> dict[str, int]:
    """Divisions for a new season: where promotion and relegation put each entrant, newcomers in the
    lowest. If that leaves a division too small to seat a table, the field (in that order, then by
    rating) is cut again into as many even divisions as it fills."""
    n_div = cfg.divisions
    if n_div == 1:
        return {n: 1 for n in field_}
    wanted = {n: min(n_div, previous[n].next_division or n_div) if n in previous else n_div for n in field_}
    sizes = [sum(1 for d in wanted.values() if d == k) for k in range(1, n_div + 1)]
    if min(sizes) >= cfg.min_field:
        return wanted
    order = sorted(field_, key=lambda n: (wanted[n], -rating.get(n, 0.0), n))
    parts = max(1, min(n_div, len(order) // cfg.min_field))
    base, extra = divmod(len(order), parts)
    out: dict[str, int] = {}
    i = 0
    for d in range(1, parts + 1):
        size = base + (1 if d <= extra else 0)
        for n in order[i:i + size]:
            out[n] = d
        i += size
    return out


# ------------------------------------------------------------------------------------------- standings
@dataclass(frozen=True)
class Standing:
    """One entrant's line: its current version's rating (the season's end, or the prior it will start
    the next season from if it has not played yet), the change since the season before, and its
    record: ``games``/``wins``/``draws``/``losses`` count the current version's games in all seasons
    (in the table now), or the season's games (in the table after a given season)."""
    rank: int
    entrant: str
    version: int
    division: int | None
    rating: float
    change: float | None
    mu: float
    sigma: float
    variants: dict[str, float] = field(default_factory=dict)
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: the entrant's place in its division in each of its last seasons, oldest first
    form: tuple[int, ...] = ()
    played: bool = True
    active: bool = True
    next_division: int | None = None


def rating_view(by: Mapping[tuple[str, str], list[RatingRow]], scope: str, name: str, version: int, upto: int,
                r: LeagueRating) -> tuple[float, float, bool]:
    """(mu, sigma, played) of ``version`` after season ``upto``: its last season's end if it played,
    else the prior it would start season ``upto + 1`` from."""
    rows = [x for x in by.get((scope, name), []) if x.season <= upto]
    mine = [x for x in rows if x.version == version]
    if mine:
        last = max(mine, key=lambda x: x.season)
        return last.mu, last.sigma, True
    mu, sigma = prior(rows, version, upto + 1, r)
    return mu, sigma, False


def standings(db: LeagueStore, cfg: LeagueConfig, *, as_of: int | None = None,
              include_withdrawn: bool = False) -> list[Standing]:
    """The table after season ``as_of`` (its field), or now (the active entrants, newcomers and new
    versions included, with the rating they start from). Ranked within each division."""
    finished = [s.season for s in db.seasons() if s.finished is not None]
    upto = as_of if as_of is not None else (max(finished) if finished else 0)
    history = [x for x in db.ratings() if x.season <= upto]
    by = _by_scope_entrant(history)
    entries = [e for e in db.season_entrants() if e.season <= upto]
    latest_entry: dict[str, SeasonEntrant] = {}
    for e in entries:
        latest_entry[e.entrant] = e
    k = cfg.rating.k
    if as_of is not None:
        field_ = [(e.entrant, e.version, True) for e in entries if e.season == as_of]
    else:
        field_ = []
        for ent in db.entrants():
            if ent.active or include_withdrawn:
                v = db.latest(ent.name)
                if v is not None:
                    field_.append((ent.name, v.version, ent.active))
    labels = list(dict.fromkeys([*cfg.labels, *(x.scope for x in history if x.scope != POOLED)]))
    lines = []
    for name, version, active in field_:
        mu, sigma, played = rating_view(by, POOLED, name, version, upto, cfg.rating)
        rating = mu - k * sigma
        prev = [x for x in by.get((POOLED, name), []) if x.season <= upto - 1]
        change = rating - max(prev, key=lambda x: x.season).conservative(k) if prev else None
        per_variant = {}
        for label in labels:
            if (label, name) in by or label in cfg.labels:
                vm, vs, _ = rating_view(by, label, name, version, upto, cfg.rating)
                per_variant[label] = vm - k * vs
        mine = [x for x in by.get((POOLED, name), [])
                if x.version == version and (as_of is None or x.season == as_of)]
        form = tuple(e.place for e in entries if e.entrant == name and e.place is not None)[-FORM_SEASONS:]
        last = latest_entry.get(name)
        lines.append(Standing(0, name, version, last.division if last else None, rating, change, mu, sigma,
                              per_variant, sum(x.games for x in mine), sum(x.wins for x in mine),
                              sum(x.draws for x in mine), sum(x.losses for x in mine), form, played, active,
                              last.next_division if last else None))
    def group(s: Standing) -> tuple[bool, int]:
        """Where it is ranked: the active entrants first, each in its last division, or for an entrant
        yet to play the lowest, where it will start (``plan_divisions``; its division is still shown as
        none); the withdrawn ones (``include_withdrawn``) after them, ranked among themselves, so an
        active entrant is never ranked below one that left."""
        return (not s.active, s.division if s.division is not None else cfg.divisions)

    lines.sort(key=lambda s: (group(s), -s.rating, -s.mu, s.entrant))
    out: list[Standing] = []
    rank, last_group = 0, None
    for s in lines:
        rank = rank + 1 if group(s) == last_group else 1
        last_group = group(s)
        out.append(Standing(**{**s.__dict__, "rank": rank}))
    return out


@dataclass(frozen=True)
class HistoryRow:
    season: int
    version: int
    division: int
    place: int | None
    next_division: int | None
    #: the conservative rating it started the season from, and ended it with
    prior: float
    rating: float
    #: against its rating at the end of the season it played before (None for its first)
    change: float | None
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    variants: dict[str, float]


def history(db: LeagueStore, cfg: LeagueConfig, name: str, k_of: Mapping[int, float] | None = None) -> list[HistoryRow]:
    """One row per finished season the entrant played: its version, division and place, the rating it
    started from and ended with (pooled and per variant), and its record in that season. ``k_of``: each
    season's k, from the league.toml it started with (a row reads the same after an edit); else today's."""
    rows = db.ratings(entrant=name)
    entries = {e.season: e for e in db.season_entrants() if e.entrant == name}
    out: list[HistoryRow] = []
    for x in rows:
        if x.scope != POOLED:
            continue
        k = k_of.get(x.season, cfg.rating.k) if k_of is not None else cfg.rating.k
        e = entries[x.season]
        variants = {y.scope: y.conservative(k) for y in rows if y.season == x.season and y.scope != POOLED}
        end = x.conservative(k)
        out.append(HistoryRow(x.season, x.version, e.division, e.place, e.next_division,
                              x.prior_mu - k * x.prior_sigma, end, end - out[-1].rating if out else None, x.mu,
                              x.sigma, x.games, x.wins, x.draws, x.losses, variants))
    return out
