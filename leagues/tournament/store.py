"""The tournament store: one SQLite file (WAL), the journal of everything played.

There is no other state file: a run resumes by reading which game ids are stored, and every table or
rating is a fold over the stored results. Only the parent process writes, one transaction per batch of
finished games a worker returns (a fraction of a second of play, see ``runner.Executor``), so a crash
loses at most the games still in flight and never leaves half a game. (One transaction per game cost
the parent about 40 us a game, more than a worker's whole overhead; a batch costs about 10 us a game.)

Games carry no secondary index and no per-seat table, because every index is paid on every insert;
``games(entrant=...)`` reads the seats JSON with ``json_each`` instead.
The query functions (``games``, ``record``, ``tournaments``, ``byes``) are the surface later commands
(games, replay, verify, export, import) build on.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from arena import GameRecord, GameResult
from arena.matchplay import MatchRecord, is_match_json
from arena.jsontext import quote

from leagues.tournament.database import Transaction, connect
from leagues.tournament.schedule import GameSpec

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY,
    config_hash TEXT NOT NULL,
    config_json TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    bot TEXT NOT NULL,          -- entry point, module:Class, or the command as a JSON array
    plugin TEXT NOT NULL,       -- what it resolved to (distribution / module / command)
    version TEXT NOT NULL,
    params TEXT NOT NULL,       -- JSON object
    PRIMARY KEY (tournament, name)
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,        -- {tournament}/{variant}/r{round}/t{table}/d{deal}/s{rotation}
    tournament TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    variant TEXT NOT NULL,
    variant_index INTEGER NOT NULL,
    round INTEGER NOT NULL,
    tbl INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seats TEXT NOT NULL,        -- JSON array: entrant per seat
    units TEXT NOT NULL,        -- JSON array: the table's entrants in table order
    seed INTEGER NOT NULL,      -- deck seed (shared by the rotations of a deal)
    dealer INTEGER NOT NULL,
    status TEXT NOT NULL,       -- done
    result TEXT NOT NULL,       -- JSON, GameResult.to_json()
    record TEXT NOT NULL,       -- JSON, the full game record (tute-arena/1)
    finished REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS plans (
    tournament TEXT PRIMARY KEY REFERENCES tournaments(name) ON DELETE CASCADE,
    planned INTEGER NOT NULL    -- games the schedule holds (Swiss: every round), for "9 of 336"
);
CREATE TABLE IF NOT EXISTS byes (
    tournament TEXT NOT NULL REFERENCES tournaments(name) ON DELETE CASCADE,
    variant TEXT NOT NULL,
    round INTEGER NOT NULL,
    entrant TEXT NOT NULL,
    PRIMARY KEY (tournament, variant, round, entrant)
);
"""


@dataclass(frozen=True)
class TournamentRow:
    name: str
    config_hash: str
    config: dict[str, Any]
    created: float
    finished: float | None


@dataclass(frozen=True)
class EntrantRow:
    name: str
    bot: str
    plugin: str
    version: str
    params: dict[str, Any]


@dataclass(frozen=True)
class GameRow:
    """A stored game without its record (``Store.record`` reads that)."""
    id: str
    tournament: str
    variant: str
    variant_index: int
    round: int
    table: int
    deal: int
    rotation: int
    seats: tuple[str, ...]
    units: tuple[str, ...]
    seed: int
    dealer: int
    status: str
    result: GameResult

    @property
    def order(self) -> tuple[int, int, int, int, int]:
        return self.round, self.variant_index, self.table, self.deal, self.rotation

    @property
    def block(self) -> str:
        return self.id.rsplit("/", 1)[0]


_INSERT_GAME = ("INSERT OR IGNORE INTO games (id, tournament, variant, variant_index, round, tbl, deal, rotation, "
                "seats, units, seed, dealer, status, result, record, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)")


#: where the result JSON sits in a ``game_row`` tuple
ROW_RESULT = 12


def _names_json(names: Sequence[str]) -> str:
    """``json.dumps(list(names))``, as the seats and units columns have always been written."""
    return "[" + ", ".join(map(quote, names)) + "]"


def game_row(spec: GameSpec, result_json: str, record_json: str) -> tuple[Any, ...]:
    """One finished game as ``Store.add_games`` takes it. Plain data, so a worker process can build it
    and the parent's share of a game is only the insert."""
    return (spec.id, spec.tournament, spec.variant, spec.variant_index, spec.round, spec.table, spec.deal,
            spec.rotation, _names_json(spec.seats), _names_json(spec.units), spec.seed, spec.dealer, result_json, record_json,
            time.time())


class StoreError(RuntimeError):
    """The store cannot be opened or does not hold what was asked for."""


class Store:
    """One SQLite file. Open it, use it, ``close()`` it (or use ``with``)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """``readonly``: for readers (leaderboard, games, verify, export, replay), which never write and
        so open a store on read-only media too."""
        self.path = Path(path)
        self.db = connect(self.path, SCHEMA, StoreError, "store", readonly=readonly)
        #: rows that could not be read (game id -> why), filled by ``games``: readers report and skip them
        self.damaged: dict[str, str] = {}

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------------- tournaments
    def tournament(self, name: str) -> TournamentRow | None:
        row = self.db.execute("SELECT name, config_hash, config_json, created, finished FROM tournaments "
                              "WHERE name = ?", (name,)).fetchone()
        return None if row is None else TournamentRow(row[0], row[1], json.loads(row[2]), row[3], row[4])

    def tournaments(self) -> list[TournamentRow]:
        rows = self.db.execute("SELECT name, config_hash, config_json, created, finished FROM tournaments "
                               "ORDER BY created").fetchall()
        return [TournamentRow(r[0], r[1], json.loads(r[2]), r[3], r[4]) for r in rows]

    def create_tournament(self, name: str, config_hash: str, config_json: str,
                          entrants: Iterable[EntrantRow]) -> None:
        with self._tx():
            self.db.execute("INSERT INTO tournaments (name, config_hash, config_json, created) VALUES (?, ?, ?, ?)",
                            (name, config_hash, config_json, time.time()))
            self.db.executemany(
                "INSERT INTO entrants (tournament, name, bot, plugin, version, params) VALUES (?, ?, ?, ?, ?, ?)",
                [(name, e.name, e.bot, e.plugin, e.version, json.dumps(e.params, sort_keys=True)) for e in entrants])

    def delete_tournament(self, name: str) -> None:
        with self._tx():
            for table in ("games", "byes", "entrants"):
                self.db.execute(f"DELETE FROM {table} WHERE tournament = ?", (name,))
            self.db.execute("DELETE FROM tournaments WHERE name = ?", (name,))

    def set_planned(self, name: str, planned: int) -> None:
        """The number of games ``name``'s schedule holds (what a partial table is counted against)."""
        with self._tx():
            self.db.execute("INSERT OR REPLACE INTO plans (tournament, planned) VALUES (?, ?)", (name, planned))

    def progress(self, name: str) -> tuple[int, int | None, bool]:
        """(games stored, games planned or None if never recorded, finished) of a tournament."""
        played = self.db.execute("SELECT COUNT(*) FROM games WHERE tournament = ?", (name,)).fetchone()[0]
        try:
            row = self.db.execute("SELECT planned FROM plans WHERE tournament = ?", (name,)).fetchone()
        except sqlite3.OperationalError:  # a store older than the plans table, opened read-only
            row = None
        t = self.tournament(name)
        return int(played), (int(row[0]) if row else None), bool(t is not None and t.finished is not None)

    def mark_finished(self, name: str) -> None:
        with self._tx():
            self.db.execute("UPDATE tournaments SET finished = ? WHERE name = ? AND finished IS NULL",
                            (time.time(), name))

    def entrants(self, tournament: str) -> list[EntrantRow]:
        rows = self.db.execute("SELECT name, bot, plugin, version, params FROM entrants WHERE tournament = ? "
                               "ORDER BY rowid", (tournament,)).fetchall()
        return [EntrantRow(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    # ----------------------------------------------------------------------------------- games
    def stored_ids(self, tournament: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM games WHERE tournament = ?", (tournament,))}

    def has_game(self, game_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def add_game(self, spec: GameSpec, result_json: str, record_json: str) -> bool:
        """Store one finished game in its own transaction; False if the id was already stored."""
        return self.add_games([game_row(spec, result_json, record_json)]) == 1

    def add_games(self, rows: Sequence[tuple[Any, ...]]) -> int:
        """Store finished games (``game_row`` tuples) in one transaction: all of them or, on any error,
        none. Ids already stored are skipped; returns how many were new."""
        with self._tx():
            before = self.db.total_changes
            self.db.executemany(_INSERT_GAME, rows)
            return self.db.total_changes - before

    def add_byes(self, tournament: str, variant: str, round_no: int, names: Sequence[str]) -> None:
        with self._tx():
            self.db.executemany("INSERT OR IGNORE INTO byes (tournament, variant, round, entrant) VALUES (?, ?, ?, ?)",
                                [(tournament, variant, round_no, n) for n in names])

    def byes(self, tournament: str, variant: str | None = None) -> list[tuple[str, int, str]]:
        """(variant, round, entrant) of every bye, in round order."""
        sql = "SELECT variant, round, entrant FROM byes WHERE tournament = ?"
        args: list[Any] = [tournament]
        if variant is not None:
            sql += " AND variant = ?"
            args.append(variant)
        return [tuple(r) for r in self.db.execute(sql + " ORDER BY round, variant, entrant", args)]  # type: ignore[misc]

    def games(self, tournament: str | None = None, *, variant: str | None = None,
              entrant: str | None = None, round_no: int | None = None) -> list[GameRow]:
        """Stored games in schedule order (round, variant, table, deal, rotation), filtered."""
        sql = ("SELECT id, tournament, variant, variant_index, round, tbl, deal, rotation, seats, units, seed, "
               "dealer, status, result FROM games WHERE 1=1")
        args: list[Any] = []
        if tournament is not None:
            sql += " AND tournament = ?"
            args.append(tournament)
        if variant is not None:
            sql += " AND variant = ?"
            args.append(variant)
        if round_no is not None:
            sql += " AND round = ?"
            args.append(round_no)
        if entrant is not None:
            sql += " AND EXISTS (SELECT 1 FROM json_each(games.seats) WHERE json_each.value = ?)"
            args.append(entrant)
        try:
            raw = self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError:  # a damaged seats column breaks json_each: filter here instead
            raw = [r for r in self.db.execute(sql.split(" AND EXISTS")[0], args[:-1])
                   if entrant in _names_or_empty(r[8])]
        rows = [g for g in map(self._row, raw) if g is not None]
        # sorted here rather than by an index: one index less to update per stored game
        rows.sort(key=lambda g: (g.tournament, g.order))
        return rows

    def _row(self, r: Sequence[Any]) -> GameRow | None:
        """A stored game, or None when its row is damaged (kept in ``damaged`` with the reason): a reader
        names the game and goes on, never a traceback."""
        try:
            seats, units = json.loads(r[8]), json.loads(r[9])
            if not (isinstance(seats, list) and seats and all(isinstance(x, str) for x in seats)):
                raise ValueError("seats: not a list of names")
            result = GameResult.from_json(json.loads(r[13]))
            if len(result.ranks) != len(seats) or len(result.points) != len(seats):
                raise ValueError("result: ranks and points do not fit the seats")
            return GameRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], tuple(seats), tuple(units), r[10], r[11],
                           r[12], result)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            self.damaged[str(r[0])] = f"{type(exc).__name__}: {str(exc)[:200]}"
            return None

    def record(self, game_id: str) -> GameRecord:
        """The record of a deal: a stored game, or deal ``K`` of a stored match as ``MATCH_ID/dK``."""
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            base, sep, index = game_id.rpartition("/d")
            if sep and index.isdigit() and self.is_match(base):
                deals = self.match(base).deals
                if int(index) < len(deals):
                    return deals[int(index)]
                raise StoreError(f"{self.path}: the match {base!r} has {len(deals)} deals (d0 to d{len(deals) - 1})")
            raise StoreError(f"{self.path}: no game {game_id!r}")
        data = json.loads(row[0])
        if is_match_json(data):
            n = len(data.get("deals", []))
            raise StoreError(f"{self.path}: {game_id!r} is a match of {n} deals: its deals are {game_id}/d0 to "
                             f"{game_id}/d{n - 1}")
        return GameRecord.from_json(data)

    def is_match(self, game_id: str) -> bool:
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        return row is not None and is_match_json(json.loads(row[0]))

    def match(self, game_id: str) -> MatchRecord:
        """A stored match (a game of a variant played with ``unit = "match"``)."""
        text = self.record_json(game_id)
        data = json.loads(text)
        if not is_match_json(data):
            raise StoreError(f"{self.path}: {game_id!r} is a single deal, not a match")
        return MatchRecord.from_json(data)

    def record_json(self, game_id: str) -> str:
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no game {game_id!r}")
        return str(row[0])

    def _tx(self) -> Transaction:
        return Transaction(self.db, self.path, StoreError)


def _names_or_empty(text: Any) -> list[Any]:
    try:
        names = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return []
    return names if isinstance(names, list) else []
