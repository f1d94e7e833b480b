"""A league's own tables, in the same SQLite file as its seasons' games.

The tournament store (``leagues.tournament.store``, opened the same way by
``leagues.tournament.database``) keeps games; these tables keep what a league adds: who entered, each
version of each bot with the hash of its files, the seasons with the config they started with and who
played in which division, and every rating at the end of every season. Each change is one transaction
(a submission, a withdrawal, a season's start, a season's end), so a kill leaves either all of it or
none; the games in between are the runner's, journalled one by one.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from arena.record_schema import escaped
from leagues.tournament.database import Transaction, connect, peek_tables
from leagues.tournament.tally import POOLED  # noqa: F401  the pooled table's scope, defined once

SCHEMA = """
CREATE TABLE IF NOT EXISTS league (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS league_entrants (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    entered REAL NOT NULL,
    withdrawn REAL              -- NULL while active
);
CREATE TABLE IF NOT EXISTS league_versions (
    entrant TEXT NOT NULL REFERENCES league_entrants(name),
    version INTEGER NOT NULL,   -- 1, 2, ... per entrant
    owner TEXT NOT NULL,
    bot TEXT NOT NULL,          -- entry point, module:Class, or the command as a JSON array
    kind TEXT NOT NULL,         -- entrypoint, module, command
    origin TEXT NOT NULL,       -- distribution (entry points), else module / command
    dist_version TEXT NOT NULL,
    params TEXT NOT NULL,       -- JSON object
    isolation TEXT NOT NULL,
    plugin_hash TEXT NOT NULL,  -- sha256 over the plugin's files
    files TEXT NOT NULL,        -- JSON array of [name in hash, path]
    submitted REAL NOT NULL,
    PRIMARY KEY (entrant, version)
);
CREATE TABLE IF NOT EXISTS league_seasons (
    season INTEGER PRIMARY KEY,
    config TEXT NOT NULL,       -- league.toml's text when the season started
    tournaments TEXT NOT NULL,  -- JSON array: one tournament per division
    started REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS league_season_entrants (
    season INTEGER NOT NULL REFERENCES league_seasons(season),
    entrant TEXT NOT NULL,
    version INTEGER NOT NULL,
    division INTEGER NOT NULL,
    place INTEGER,              -- in its division, by pooled rating at the season's end
    next_division INTEGER,      -- after promotion and relegation
    PRIMARY KEY (season, entrant)
);
CREATE TABLE IF NOT EXISTS league_ratings (
    season INTEGER NOT NULL REFERENCES league_seasons(season),
    scope TEXT NOT NULL,        -- a variant label, or '*' for all variants pooled
    entrant TEXT NOT NULL,
    version INTEGER NOT NULL,
    prior_mu REAL NOT NULL,     -- where the season started it
    prior_sigma REAL NOT NULL,
    mu REAL NOT NULL,           -- where the season left it
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    PRIMARY KEY (season, scope, entrant)
);
"""


class LeagueStoreError(RuntimeError):
    """The store cannot be opened, or holds another league: one line for the user."""


@dataclass(frozen=True)
class Entrant:
    name: str
    owner: str
    entered: float
    withdrawn: float | None

    @property
    def active(self) -> bool:
        return self.withdrawn is None


@dataclass(frozen=True)
class Version:
    entrant: str
    version: int
    owner: str
    bot: str | tuple[str, ...]
    kind: str
    origin: str
    dist_version: str
    params: dict[str, Any]
    isolation: str
    plugin_hash: str
    files: tuple[tuple[str, str], ...]
    submitted: float

    @property
    def bot_text(self) -> str:
        """The bot as the terminal shows it: a command stored before its controls were refused has them
        as escapes."""
        return escaped(" ".join(self.bot) if isinstance(self.bot, tuple) else self.bot)


@dataclass(frozen=True)
class Season:
    season: int
    config: str
    tournaments: tuple[str, ...]
    started: float
    finished: float | None


@dataclass(frozen=True)
class SeasonEntrant:
    season: int
    entrant: str
    version: int
    division: int
    place: int | None = None
    next_division: int | None = None


@dataclass(frozen=True)
class RatingRow:
    season: int
    scope: str
    entrant: str
    version: int
    prior_mu: float
    prior_sigma: float
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int

    def conservative(self, k: float) -> float:
        return self.mu - k * self.sigma


class LeagueStore:
    """The league tables of one store file. Its own connection, autocommit: it never holds a lock while
    the runner writes games through its own."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        tables = peek_tables(self.path)
        if "tournaments" in tables and "league" not in tables:  # opening it would add a league's tables
            raise LeagueStoreError(f"{self.path}: a tournament store, not a league's (check league.toml's store)")
        self.db = connect(self.path, SCHEMA, LeagueStoreError, "league store")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "LeagueStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tx(self) -> Transaction:
        return Transaction(self.db, self.path, LeagueStoreError, " (is another tute league command running?)")

    # --------------------------------------------------------------------------------------- league
    def league_name(self) -> str | None:
        row = self.db.execute("SELECT name FROM league").fetchone()
        return None if row is None else str(row[0])

    def claim(self, name: str) -> None:
        """Make this store the league ``name``'s; refuse a store that belongs to another league."""
        held = self.league_name()
        if held is None:
            with self._tx():
                self.db.execute("INSERT INTO league (name, created) VALUES (?, ?)", (name, time.time()))
        elif held != name:
            raise LeagueStoreError(f"{self.path}: holds the league {held!r}, not {name!r} (check league.toml's "
                                   f"name and store)")

    # ------------------------------------------------------------------------------------- entrants
    def entrant(self, name: str) -> Entrant | None:
        row = self.db.execute("SELECT name, owner, entered, withdrawn FROM league_entrants WHERE name = ?",
                              (name,)).fetchone()
        return None if row is None else Entrant(*row)

    def entrants(self) -> list[Entrant]:
        rows = self.db.execute("SELECT name, owner, entered, withdrawn FROM league_entrants ORDER BY entered, name")
        return [Entrant(*r) for r in rows]

    def versions(self, entrant: str | None = None) -> list[Version]:
        sql = ("SELECT entrant, version, owner, bot, kind, origin, dist_version, params, isolation, plugin_hash, "
               "files, submitted FROM league_versions")
        args: tuple[Any, ...] = ()
        if entrant is not None:
            sql += " WHERE entrant = ?"
            args = (entrant,)
        return [self._version(r) for r in self.db.execute(sql + " ORDER BY submitted, entrant, version", args)]

    def latest(self, entrant: str) -> Version | None:
        found = self.versions(entrant)
        return max(found, key=lambda v: v.version) if found else None

    def add_version(self, v: Version, *, new_entrant: bool) -> None:
        """A submission: the entrant (if new, else re-activated) and its version, in one transaction."""
        bot = json.dumps(list(v.bot)) if isinstance(v.bot, tuple) else v.bot
        with self._tx():
            if new_entrant:
                self.db.execute("INSERT INTO league_entrants (name, owner, entered) VALUES (?, ?, ?)",
                                (v.entrant, v.owner, v.submitted))
            else:
                self.db.execute("UPDATE league_entrants SET withdrawn = NULL WHERE name = ?", (v.entrant,))
            self.db.execute(
                "INSERT INTO league_versions (entrant, version, owner, bot, kind, origin, dist_version, params, "
                "isolation, plugin_hash, files, submitted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (v.entrant, v.version, v.owner, bot, v.kind, v.origin, v.dist_version,
                 json.dumps(v.params, sort_keys=True), v.isolation, v.plugin_hash,
                 json.dumps([list(f) for f in v.files]), v.submitted))

    def reactivate(self, name: str) -> None:
        with self._tx():
            self.db.execute("UPDATE league_entrants SET withdrawn = NULL WHERE name = ?", (name,))

    def withdraw(self, name: str) -> None:
        with self._tx():
            self.db.execute("UPDATE league_entrants SET withdrawn = ? WHERE name = ? AND withdrawn IS NULL",
                            (time.time(), name))

    # -------------------------------------------------------------------------------------- seasons
    def seasons(self) -> list[Season]:
        rows = self.db.execute("SELECT season, config, tournaments, started, finished FROM league_seasons "
                               "ORDER BY season")
        return [Season(r[0], r[1], tuple(self._json(r[2], list, "league_seasons", f"season {r[0]}", "tournaments")),
                       r[3], r[4]) for r in rows]

    def season_entrants(self, season: int | None = None) -> list[SeasonEntrant]:
        sql = "SELECT season, entrant, version, division, place, next_division FROM league_season_entrants"
        args: tuple[Any, ...] = ()
        if season is not None:
            sql += " WHERE season = ?"
            args = (season,)
        return [SeasonEntrant(*r) for r in self.db.execute(sql + " ORDER BY season, division, entrant", args)]

    def start_season(self, season: int, config: str, tournaments: Sequence[str],
                     entrants: Iterable[SeasonEntrant], *, replacing: bool = False) -> None:
        """A season's start, in one transaction; ``replacing`` plans again a season that has no game
        played (its rows are replaced, so a failed start never locks the league)."""
        with self._tx():
            if replacing:
                self.db.execute("DELETE FROM league_season_entrants WHERE season = ?", (season,))
                self.db.execute("DELETE FROM league_seasons WHERE season = ? AND finished IS NULL", (season,))
            self.db.execute("INSERT INTO league_seasons (season, config, tournaments, started) VALUES (?, ?, ?, ?)",
                            (season, config, json.dumps(list(tournaments)), time.time()))
            self.db.executemany(
                "INSERT INTO league_season_entrants (season, entrant, version, division) VALUES (?, ?, ?, ?)",
                [(season, e.entrant, e.version, e.division) for e in entrants])

    def finish_season(self, season: int, ratings: Iterable[RatingRow], places: Iterable[SeasonEntrant]) -> None:
        """The season's ratings, places and next divisions, and its end, in one transaction."""
        with self._tx():
            self.db.executemany(
                "INSERT OR REPLACE INTO league_ratings (season, scope, entrant, version, prior_mu, prior_sigma, mu, "
                "sigma, games, wins, draws, losses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.season, r.scope, r.entrant, r.version, r.prior_mu, r.prior_sigma, r.mu, r.sigma, r.games,
                  r.wins, r.draws, r.losses) for r in ratings])
            self.db.executemany(
                "UPDATE league_season_entrants SET place = ?, next_division = ? WHERE season = ? AND entrant = ?",
                [(p.place, p.next_division, season, p.entrant) for p in places])
            self.db.execute("UPDATE league_seasons SET finished = ? WHERE season = ?", (time.time(), season))

    def ratings(self, *, season: int | None = None, scope: str | None = None,
                entrant: str | None = None) -> list[RatingRow]:
        sql = ("SELECT season, scope, entrant, version, prior_mu, prior_sigma, mu, sigma, games, wins, draws, "
               "losses FROM league_ratings WHERE 1=1")
        args: list[Any] = []
        for col, value in (("season", season), ("scope", scope), ("entrant", entrant)):
            if value is not None:
                sql += f" AND {col} = ?"
                args.append(value)
        return [self._rating(r) for r in self.db.execute(sql + " ORDER BY season, scope, entrant", args)]

    # ------------------------------------------------------------------ rows read back, checked
    # A store edited by hand (or by another program) must give the user one line naming the store and
    # the table at fault, not a traceback from deep inside a fold.
    def _damaged(self, table: str, row: str, what: str) -> LeagueStoreError:
        return LeagueStoreError(f"{self.path}: table {table}, {row}: {what} (the store is damaged: restore it "
                                f"from a backup)")

    def _json(self, text: Any, kind: type, table: str, row: str, column: str) -> Any:
        try:
            value = json.loads(text)
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, kind):
            raise self._damaged(table, row, f"{column} is not a JSON {'array' if kind is list else 'object'}")
        return value

    def _version(self, r: Sequence[Any]) -> Version:
        row = f"entrant {r[0]!r} version {r[1]}"
        bot = r[3]
        if not isinstance(bot, str) or not bot:
            raise self._damaged("league_versions", row, "bot is not text")
        if bot.startswith("["):
            bot = tuple(self._json(bot, list, "league_versions", row, "bot"))
            if not bot or not all(isinstance(a, str) for a in bot):
                raise self._damaged("league_versions", row, "bot is not a command (an array of strings)")
        params = self._json(r[7], dict, "league_versions", row, "params")
        files = self._json(r[10], list, "league_versions", row, "files")
        if not all(isinstance(f, list) and len(f) == 2 for f in files):
            raise self._damaged("league_versions", row, "files is not an array of [name, path] pairs")
        return Version(r[0], r[1], r[2], bot, r[4], r[5], r[6], params, r[8], r[9],
                       tuple((str(a), str(b)) for a, b in files), r[11])

    def _rating(self, r: Sequence[Any]) -> RatingRow:
        row = RatingRow(*r)
        for column in ("prior_mu", "prior_sigma", "mu", "sigma"):
            value = getattr(row, column)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise self._damaged("league_ratings", f"season {row.season} scope {row.scope!r} entrant "
                                    f"{row.entrant!r}", f"{column} is not a finite number ({value!r})")
        for column in ("games", "wins", "draws", "losses"):
            if not isinstance(getattr(row, column), int):
                raise self._damaged("league_ratings", f"season {row.season} scope {row.scope!r} entrant "
                                    f"{row.entrant!r}", f"{column} is not a whole number ({getattr(row, column)!r})")
        return row
