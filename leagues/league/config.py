"""``league.toml`` -> a validated, frozen ``LeagueConfig``.

A league's file says how seasons are played (variants, format, deals, limits, divisions) and how ratings
carry over; who plays is not in it but in the store (``tute league submit``). The same checker as
``tournament.toml`` reads it, so errors have the same one-line form, ``league.toml: deals: must be at
least 1, not 0``. Every key is documented in docs/leagues.md.

A season snapshots the file's text when it starts and finishes with that snapshot, so editing
``league.toml`` (or a kill and a resume) never changes a season already under way.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena import derive_seed

from leagues.tournament.checks import Checker, ConfigError
from leagues.tournament.config import FORMATS, EntrantConfig, RatingConfig, TournamentConfig, VariantConfig, \
    MAX_DEALS, MAX_TIME_LIMIT_MS, check_sensible, max_workers, parse_variants

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 path
    import tomli as tomllib

FILENAME = "league.toml"
TOP_KEYS = {"name", "seed", "format", "rounds", "deals", "duplicate", "workers", "time_limit_ms", "memory_mb",
            "max_tables", "store", "log", "divisions", "promote", "variants", "rating", "check"}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "version_sigma", "draw_probability", "k"}
CHECK_KEYS = {"deals", "require_reproducible"}
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
    try:
        text = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such file (tute league init DIR makes one)") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_league(text, source=source, base=p.resolve().parent)


def _variants(c: Checker, data: dict[str, Any]) -> tuple[VariantConfig, ...]:
    variants = parse_variants(c, data, _ANY_FIELD)
    c.done()  # the variants' errors, collected
    return variants


def parse_league(text: str, *, source: str = FILENAME, base: Path | None = None) -> LeagueConfig:
    """Validate a league.toml's text; relative paths are taken from ``base`` (the file's folder)."""
    c = Checker(source, text)
    base = base or Path.cwd()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: TOML syntax error: {exc}") from None
    c.table(data, "", TOP_KEYS)
    name = c.name(c.get(data, "", "name", str), "name")
    fmt = c.get(data, "", "format", str, "round-robin")
    if fmt not in FORMATS:
        raise c.fail("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    rounds = c.get(data, "", "rounds", int, None)
    if fmt == "swiss" and rounds is None:
        raise c.fail("rounds", "missing (a Swiss season needs its number of rounds)")
    ints = {key: c.get(data, "", key, int, default) for key, default in (
        ("seed", 0), ("deals", 50), ("workers", 0), ("time_limit_ms", 1000), ("memory_mb", 1024),
        ("max_tables", 200), ("divisions", 1), ("promote", 1))}
    for key, low in (("deals", 1), ("workers", 0), ("time_limit_ms", 1), ("memory_mb", 16), ("max_tables", 1),
                     ("divisions", 1), ("promote", 0)):
        if ints[key] < low:
            raise c.fail(key, f"must be at least {low}, not {ints[key]}")
    # a season is a tournament: the same ceilings as tournament.toml's
    for key, high in (("deals", MAX_DEALS), ("workers", max_workers()), ("time_limit_ms", MAX_TIME_LIMIT_MS)):
        if ints[key] > high:
            raise c.fail(key, f"must be at most {high}, not {ints[key]}")
    if rounds is not None and rounds < 1:
        raise c.fail("rounds", f"must be at least 1, not {rounds}")
    store = base / c.get(data, "", "store", str, "league.sqlite")
    log = c.get(data, "", "log", str, None)
    check = c.table(c.get(data, "", "check", dict, {}), "check", CHECK_KEYS)
    check_deals = c.get(check, "check", "deals", int, 40)
    if check_deals < 1:
        raise c.fail("check.deals", f"must be at least 1, not {check_deals}")
    return LeagueConfig(
        name=name, seed=ints["seed"], format=fmt, rounds=rounds, deals=ints["deals"],
        duplicate=c.get(data, "", "duplicate", bool, True), workers=ints["workers"],
        time_limit_ms=ints["time_limit_ms"], memory_mb=ints["memory_mb"], max_tables=ints["max_tables"],
        store=store, log=base / log if log else store.with_suffix(".log"), divisions=ints["divisions"],
        promote=ints["promote"], variants=_variants(c, data), rating=_rating(c, data),
        check_deals=check_deals, check_reproducible=c.get(check, "check", "require_reproducible", bool, False),
        text=text, source=source)


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
name = "{name}"
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
