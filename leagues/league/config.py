"""``league.toml`` -> a validated, frozen ``LeagueConfig``.

A league's file says how seasons are played (variants, format, deals, limits, divisions) and how ratings
carry over; who plays is not in it but in the store (``tute league submit``). The same checker as
``tournament.toml`` reads it, so errors have the same one-line form, ``league.toml: deals: must be at
least 1, not 0``. Every key is documented in docs/leagues.md.

A season snapshots the file's text when it starts and finishes with that snapshot, so editing
``league.toml`` (or a kill and a resume) never changes a season already under way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena import derive_seed

from leagues.tournament.checks import Checker, ConfigError, clip
from leagues.tournament.config import FORMATS, EntrantConfig, RatingConfig, TournamentConfig, VariantConfig, \
    MAX_DEALS, MAX_MEMORY_MB, MAX_TIME_LIMIT_MS, at_least, check_files, check_rounds, check_sensible, \
    max_workers, parse_variants, read_text, toml_loads, within, without_bom

FILENAME = "league.toml"
TOP_KEYS = {"name", "seed", "format", "rounds", "deals", "duplicate", "workers", "time_limit_ms", "memory_mb",
            "max_tables", "store", "log", "divisions", "promote", "variants", "rating", "check"}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "version_sigma", "draw_probability", "k"}
CHECK_KEYS = {"deals", "require_reproducible"}
#: a season is one tournament per division of every entrant against every other (or paired by score):
#: "match" and "gauntlet" test chosen entrants against the rest, which a ladder has no place for
LEAGUE_FORMATS = ("round-robin", "swiss")
#: the most divisions: each must seat a table, so more would need thousands of entrants, and a typo of
#: 10**30 divisions made ``league season`` count them forever
MAX_DIVISIONS = 1000
#: a variant check can never fail on too few entrants: who plays is known only when a season starts
_ANY_FIELD = 1 << 30


@dataclass(frozen=True)
class LeagueRating:
    """The TrueSkill environment, plus how ratings move between seasons: ``tau`` is added (in
    quadrature) to every carried sigma once per season passed, ``version_sigma`` once more when a new
    version of a bot takes over from the old one; no sigma grows past the initial ``sigma``."""
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 1.0
    version_sigma: float = 25.0 / 6
    draw_probability: float | None = None
    k: float = 3.0

    def in_season(self) -> RatingConfig:
        """Within a season a version does not change: TrueSkill's own per-game tau is 0."""
        return RatingConfig(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=0.0,
                            draw_probability=self.draw_probability, k=self.k)


@dataclass(frozen=True)
class LeagueConfig:
    name: str
    seed: int
    format: str
    rounds: int | None
    deals: int
    duplicate: bool
    workers: int
    time_limit_ms: int
    memory_mb: int
    max_tables: int
    store: Path
    log: Path
    divisions: int
    promote: int
    variants: tuple[VariantConfig, ...]
    rating: LeagueRating
    check_deals: int
    check_reproducible: bool
    #: the file's text, snapshotted by each season when it starts
    text: str
    source: str = FILENAME

    @property
    def labels(self) -> list[str]:
        return [v.label for v in self.variants]

    @property
    def min_field(self) -> int:
        """Entrants a division needs: the largest table of its variants."""
        return max(v.sides for v in self.variants)

    def presets(self) -> list[str]:
        """The presets to run the compliance check in (the league's, once each)."""
        return list(dict.fromkeys(v.preset for v in self.variants))

    def tournament_name(self, season: int, division: int, divisions: int) -> str:
        return f"{self.name}/s{season}" if divisions == 1 else f"{self.name}/s{season}/div{division}"

    def season_seed(self, season: int, division: int) -> int:
        """Each season (and division) its own deals, from the league seed by hashing."""
        return derive_seed(self.seed, "season", season, division)

    def season_tournament(self, season: int, division: int, divisions: int, entrants: Sequence[EntrantConfig],
                          priors: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> TournamentConfig:
        """One division's share of a season: an ordinary tournament in the league's store, so the
        runner's resume, determinism, forfeits and logging apply unchanged; its tables start from
        ``priors`` (the league's ratings), so they are the season's ratings as the games land."""
        return TournamentConfig(
            name=self.tournament_name(season, division, divisions), seed=self.season_seed(season, division),
            format=self.format, rounds=self.rounds, deals=self.deals, duplicate=self.duplicate,
            workers=self.workers, time_limit_ms=self.time_limit_ms, memory_mb=self.memory_mb, store=self.store,
            log=self.log, max_tables=self.max_tables, variants=self.variants, entrants=tuple(entrants),
            rating=self.rating.in_season(), source=self.source, priors=dict(priors or {}))


def load_league(path: str | os.PathLike[str]) -> LeagueConfig:
    """Read ``path`` (a league.toml, or the folder holding one); problems raise ConfigError."""
    p = Path(path)
    if p.is_dir() or (not p.exists() and p.suffix != ".toml"):
        p = p / FILENAME
    source = str(p)
    text = read_text(p, source, " (tute league init DIR makes one)")
    return parse_league(text, source=source, base=p.resolve().parent)


def parse_league(text: str, *, source: str = FILENAME, base: Path | None = None, files: bool = True) -> LeagueConfig:
    """Validate a league.toml's text; relative paths are taken from ``base`` (the file's folder). The
    keys a season shares with a tournament are read by tournament.toml's own checks (the same ranges,
    ceilings and path rules), and, as there, every problem of the file is reported at once. Without
    ``files`` the store and log are not looked at on disk: a season's stored copy, whose store and log
    the league's file as it is now gives."""
    text = without_bom(text)
    c = Checker(source, text)
    base = base or Path.cwd()
    data = toml_loads(text, source)
    c.collect(lambda: c.table(data, "", TOP_KEYS), None)
    name = c.collect(lambda: c.name(c.get(data, "", "name", str), "name"), "?")
    seed = c.collect(lambda: c.get(data, "", "seed", int, 0), 0)
    fmt = c.collect(lambda: _format(c, data), "round-robin")
    rounds = c.collect(lambda: check_rounds(c, data, fmt, "season"), None)
    deals = c.collect(lambda: within(c, data, "deals", 50, 1, MAX_DEALS), 50)
    duplicate = c.collect(lambda: c.get(data, "", "duplicate", bool, True), True)
    workers = c.collect(lambda: within(c, data, "workers", 0, 0, max_workers(), "0 (one per CPU) or more"), 0)
    time_limit_ms = c.collect(lambda: within(c, data, "time_limit_ms", 1000, 1, MAX_TIME_LIMIT_MS), 1000)
    memory_mb = c.collect(lambda: within(c, data, "memory_mb", 1024, 16, MAX_MEMORY_MB), 1024)
    max_tables = c.collect(lambda: at_least(c, data, "max_tables", 200, 1), 200)
    divisions = c.collect(lambda: within(c, data, "divisions", 1, 1, MAX_DIVISIONS), 1)
    promote = c.collect(lambda: at_least(c, data, "promote", 1, 0), 1)
    store, log = check_files(c, data, base, "league.sqlite") if files else (base / "league.sqlite", base / "league.log")
    no_check: dict[str, Any] = {}
    check = c.collect(lambda: c.table(c.get(data, "", "check", dict, {}), "check", CHECK_KEYS), no_check)
    check_deals = c.collect(lambda: within(c, check, "deals", 40, 1, MAX_DEALS, where="check"), 40)
    reproducible = c.collect(lambda: c.get(check, "check", "require_reproducible", bool, False), False)
    variants = parse_variants(c, data, _ANY_FIELD)
    rating = c.collect(lambda: _rating(c, data), LeagueRating())
    c.done()
    return LeagueConfig(
        name=name, seed=seed, format=fmt, rounds=rounds, deals=deals, duplicate=duplicate, workers=workers,
        time_limit_ms=time_limit_ms, memory_mb=memory_mb, max_tables=max_tables, store=store, log=log,
        divisions=divisions, promote=promote, variants=variants, rating=rating, check_deals=check_deals,
        check_reproducible=reproducible, text=text, source=source)


def _format(c: Checker, data: dict[str, Any]) -> str:
    """``format``: a league's seasons are round robins or Swiss (a match or gauntlet, which tournaments
    may be, would play no game of a season)."""
    fmt = c.get(data, "", "format", str, "round-robin")
    if fmt not in LEAGUE_FORMATS:
        raise c.fail("format", f"must be one of {', '.join(LEAGUE_FORMATS)}, not {clip(fmt)}"
                               + (" (a tournament's format, for tute run or tute match)" if fmt in FORMATS else ""))
    return str(fmt)


def _rating(c: Checker, data: dict[str, Any]) -> LeagueRating:
    raw = c.table(c.get(data, "", "rating", dict, {}), "rating", RATING_KEYS)
    num = (int, float)
    d = LeagueRating()
    values = {key: float(c.get(raw, "rating", key, num, getattr(d, key)))
              for key in ("mu", "sigma", "beta", "tau", "version_sigma", "k")}
    draw = c.get(raw, "rating", "draw_probability", num, None)
    r = LeagueRating(**values, draw_probability=None if draw is None else float(draw))
    for key, value in values.items():  # the bounds of tournament.toml's [rating]: nan or 1e308 crash a season
        check_sensible(c, f"rating.{key}", value)
    for key in ("sigma", "beta"):
        if getattr(r, key) <= 0:
            raise c.fail(f"rating.{key}", "must be positive")
    for key in ("tau", "version_sigma"):
        if getattr(r, key) < 0:
            raise c.fail(f"rating.{key}", "must not be negative")
    if r.draw_probability is not None and not 0 <= r.draw_probability < 1:
        raise c.fail("rating.draw_probability", f"must be in [0, 1), not {r.draw_probability}")
    return r


def template(name: str, seed: int = 0) -> str:
    """The league.toml ``tute league init`` writes: the keys a league usually sets, at their defaults,
    commented (the rest, such as ``rounds`` or the rating's ``mu``, keep their defaults unwritten), and
    the ``seed`` it is given (``init`` draws a random one: the key to every deal, docs/leagues.md)."""
    return f'''# A tute-arena league: every key is described in docs/leagues.md.
name = {json.dumps(name, ensure_ascii=False)}
seed = {seed}  # the key to every deal: a bot that knew it could rebuild the decks, so keep it private
format = "round-robin"      # or "swiss" (then set rounds)
deals = 50                  # deck orders per pairing, each played once per seat rotation (a season of 3
                            # bots in tute-2: 300 games; a few seconds with the built-in bots)
duplicate = true
time_limit_ms = 1000        # per move, for isolated bots and commands
memory_mb = 1024
workers = 0                 # 0: one per CPU
store = "league.sqlite"     # entrants, versions, seasons, games and ratings
divisions = 1               # more: each plays its own tournament; promotion and relegation
promote = 1                 # entrants moving up and down between adjacent divisions each season

[check]                     # the compliance run a submitted bot must pass
deals = 40
require_reproducible = false

[rating]
tau = 1.0                   # added to a carried sigma for each season passed
version_sigma = 4.166666666666667  # 25/6: added to the sigma a new version inherits from the old one

[[variants]]
name = "tute-2"
'''


__all__ = ["ConfigError", "LeagueConfig", "LeagueRating", "load_league", "parse_league", "template", "FILENAME"]
