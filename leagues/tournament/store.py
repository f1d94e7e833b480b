"""The tournament store: one SQLite file (WAL), the journal of everything played.

There is no other state file: a run resumes by reading which game ids are stored, and every table or
rating is a fold over the stored results. Only the parent process writes, one transaction per batch of
finished games a worker returns (a fraction of a second of play, see ``runner.Executor``), so a crash
loses at most the games still in flight and never leaves half a game. (One transaction per game cost
the parent about 40 us a game, more than a worker's whole overhead; a batch costs about 10 us a game.)

Games carry one secondary index, in schedule order per tournament (readers take twenty rows, a range
after the watermark, or a count through it), and no per-seat table, because every index is paid on
every insert; ``games(entrant=...)`` reads the seats JSON with ``json_each`` instead. The tables
(ratings, counts, head-to-head, forfeits) are kept as the games land, in the same transaction
(leagues/tournament/tally.py), so no reader folds every game ever stored.
The query functions (``games``, ``record``, ``tournaments``, ``byes``) are the surface later commands
(games, replay, verify, export, import) build on.
"""

from __future__ import annotations

import heapq
import itertools
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from arena import GameRecord, GameResult
from arena.matchplay import MatchRecord, is_match_json
from arena.jsontext import quote

from leagues.tournament.checks import clip
from leagues.tournament.database import Transaction, connect, table_names
from leagues.tournament.packing import pack, unpack
from leagues.tournament.schedule import GameSpec, block_of, schedule_order

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
    record BLOB NOT NULL,       -- the full game record (tute-arena/1): packed JSON (packing.py), or
                                -- the JSON text in rows stored before packing
    finished REAL NOT NULL
);
-- schedule order: the runner's watermark, readers' LIMIT and ordered streams, per-tournament counts
CREATE INDEX IF NOT EXISTS games_order ON games (tournament, round, variant_index, tbl, deal, rotation);
-- the games that ended by a forfeit, in the same order (``tute games --forfeits``: a few among many;
-- its terms are the query's own, ``Store._where``, which is how SQLite knows it may use it)
CREATE INDEX IF NOT EXISTS games_forfeited ON games (tournament, round, variant_index, tbl, deal, rotation)
    WHERE result NOT LIKE '%"forfeit":null%' AND result NOT LIKE '%"forfeit": null%';
-- the matches (``unit = "match"``), whose forfeits are their deals' (``Store._forfeited_matches``: a listing
-- of forfeits reads the matches' records, never every deal's row); its terms are the query's, ``A_MATCH``
CREATE INDEX IF NOT EXISTS games_matches ON games (tournament, round, variant_index, tbl, deal, rotation)
    WHERE (result LIKE '%"reason":"match"%' OR result LIKE '%"reason": "match"%');
-- the tables kept as the games land (leagues/tournament/tally.py): the fold of the stored games of a
-- tournament in schedule order up to its watermark
CREATE TABLE IF NOT EXISTS tallies (
    tournament TEXT NOT NULL,
    scope TEXT NOT NULL,        -- '*' every variant, else a variant's label
    entrant TEXT NOT NULL,
    mu REAL, sigma REAL,        -- NULL until rated
    rated INTEGER NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL, draws INTEGER NOT NULL,
    losses INTEGER NOT NULL, points INTEGER NOT NULL, forfeits INTEGER NOT NULL,
    PRIMARY KEY (tournament, scope, entrant)
);
CREATE TABLE IF NOT EXISTS pair_tallies (
    tournament TEXT NOT NULL, scope TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
    blocks INTEGER NOT NULL, mean REAL NOT NULL, m2 REAL NOT NULL,
    open_block TEXT, open_sum REAL NOT NULL, open_n INTEGER NOT NULL,
    PRIMARY KEY (tournament, scope, a, b)
);
CREATE TABLE IF NOT EXISTS forfeit_tallies (
    tournament TEXT NOT NULL, entrant TEXT NOT NULL,
    deals INTEGER NOT NULL, forfeits INTEGER NOT NULL,
    reasons TEXT NOT NULL,      -- JSON {reason: count}
    first TEXT NOT NULL,        -- JSON {reason: [deal id, detail]}: the first of each, in schedule order
    PRIMARY KEY (tournament, entrant)
);
CREATE TABLE IF NOT EXISTS watermarks (
    tournament TEXT PRIMARY KEY,
    round INTEGER NOT NULL, variant_index INTEGER NOT NULL, tbl INTEGER NOT NULL, deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    games INTEGER NOT NULL      -- games folded in
);
-- what the tally counts (leagues/tournament/tally.py's COUNT); a tally without a row here counted 1
CREATE TABLE IF NOT EXISTS tally_counts (
    tournament TEXT PRIMARY KEY,
    count INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS plans (
    tournament TEXT PRIMARY KEY REFERENCES tournaments(name) ON DELETE CASCADE,
    planned INTEGER NOT NULL    -- games the schedule holds (Swiss: every round), for "9 of 336"
);
-- the games in which a bot's clock, not its counted work, ended a decision (``Batch.clocked``): they
-- may play otherwise on a rerun, which every table of the tournament says (``clocked_games``)
CREATE TABLE IF NOT EXISTS clocked (
    id TEXT PRIMARY KEY,        -- a game's id
    tournament TEXT NOT NULL
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
        return schedule_order(self)

    @property
    def block(self) -> str:
        return block_of(self.id)


#: ``schedule_order`` in the store's columns: the order games are read and folded in
ORDER_COLUMNS = "round, variant_index, tbl, deal, rotation"

#: the tables a tournament's tally is kept in (leagues/tournament/tally.py)
TALLY_TABLES = ("tallies", "pair_tallies", "forfeit_tallies", "watermarks", "tally_counts")


def tally_count(db: sqlite3.Connection, tournament: str) -> int | None:
    """What the tally kept for ``tournament`` counts (``COUNT`` of leagues/tournament/tally.py; 1 for a
    tally kept before the number), or None where the store keeps none."""
    try:
        row = db.execute("SELECT c.count FROM watermarks w LEFT JOIN tally_counts c "
                         "ON c.tournament = w.tournament WHERE w.tournament = ?", (tournament,)).fetchone()
    except sqlite3.OperationalError:  # a store older than the tallies or their count, opened read-only
        return None
    return None if row is None else (row[0] or 1)


#: the columns a ``GameRow`` is read from, in ``Store._row``'s order
_ROW_COLUMNS = "id, tournament, variant, variant_index, round, tbl, deal, rotation, seats, units, seed, dealer, status, result"

_INSERT_GAME = ("INSERT OR IGNORE INTO games (id, tournament, variant, variant_index, round, tbl, deal, rotation, "
                "seats, units, seed, dealer, status, result, record, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)")


#: where the result JSON sits in a ``game_row`` tuple
ROW_RESULT = 12


def names_json(names: Sequence[str]) -> str:
    """``json.dumps(list(names))``, as the seats and units columns have always been written."""
    return "[" + ", ".join(map(quote, names)) + "]"


def game_row(spec: GameSpec, result_json: str, record_json: str) -> tuple[Any, ...]:
    """One finished game as ``Store.add_games`` takes it, its record packed. Plain data, so a worker
    process can build it (and pay for the packing) and the parent's share of a game is only the insert."""
    return (spec.id, spec.tournament, spec.variant, spec.variant_index, spec.round, spec.table, spec.deal,
            spec.rotation, names_json(spec.seats), names_json(spec.units), spec.seed, spec.dealer, result_json,
            pack(record_json), time.time())


class StoreError(RuntimeError):
    """The store cannot be opened or does not hold what was asked for."""


class StoreWriteError(StoreError):
    """A write to the store failed (a full disk, a file that cannot grow); what was committed before
    stays whole, so a run that meets it can be run again."""


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Store:
    """One SQLite file. Open it, use it, ``close()`` it (or use ``with``)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """``readonly``: for readers (leaderboard, games, verify, export, replay), which never write and
        so open a store on read-only media too."""
        self.path = Path(path)
        self.db = connect(self.path, SCHEMA, StoreError, "store", readonly=readonly)
        #: the file opened, as (device, inode): ``replaced`` tells a store deleted or replaced under a run
        self._identity = _identity(self.path)
        if readonly:
            self._require_tables()
        #: rows that could not be read (game id -> why), filled by ``games``: readers report and skip them
        self.damaged: dict[str, str] = {}
        #: the tournament of each of them: a fold of a tournament with holes is never kept as its table
        self.damaged_in: dict[str, str] = {}

    def mark_damaged(self, game_id: str, tournament: str, why: str) -> None:
        """A game whose row (or record) could not be read: readers name it, no table is kept without it."""
        self.damaged[game_id] = why
        self.damaged_in[game_id] = tournament

    def damaged_of(self, tournament: str) -> list[str]:
        """The games of ``tournament`` found damaged so far (by the reads made on this connection)."""
        return sorted(gid for gid, name in self.damaged_in.items() if name == tournament)

    def replaced(self) -> bool:
        """Whether the store's path no longer names the file opened (deleted, or another file put there):
        what this connection wrote since is in no file anyone can open."""
        return self._identity is not None and _identity(self.path) != self._identity

    def _require_tables(self) -> None:
        """A reader's store must hold tute's tables: an empty file or someone else's SQLite file would
        otherwise fail at the first query as ``no such table``, a traceback instead of a message."""
        tables = table_names(self.db)
        missing = {"tournaments", "entrants", "games"} - tables
        if missing and "league" in tables:
            self.db.close()
            raise StoreError(f"{self.path}: no games stored yet (a league's store before its first season)")
        if missing:
            self.db.close()
            raise StoreError(f"{self.path}: not a tute-arena store (no tournaments stored; missing tables: "
                             f"{', '.join(sorted(missing))})")

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
        return None if row is None else self._tournament_row(row)

    def tournaments(self) -> list[TournamentRow]:
        rows = self.db.execute("SELECT name, config_hash, config_json, created, finished FROM tournaments "
                               "ORDER BY created").fetchall()
        return [self._tournament_row(r) for r in rows]

    def _tournament_row(self, r: Sequence[Any]) -> TournamentRow:
        """A ``tournaments`` row decoded; one whose config the readers cannot use (a store edited by
        hand, a damaged file) is a StoreError naming the row, not a traceback in whichever reader
        touches it first."""
        config = self._json(r[2], f"tournaments row {r[0]!r}: config_json")
        problem = _config_problem(config)
        if problem:
            raise StoreError(f"{self.path}: tournaments row {r[0]!r}: config_json: {problem} (the store is damaged)")
        return TournamentRow(r[0], r[1], config, r[3], r[4])

    def _json(self, text: Any, where: str) -> Any:
        """A JSON column's value, or a StoreError naming ``where`` in the store."""
        try:
            return json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise StoreError(f"{self.path}: {where}: not JSON ({str(exc)[:100]}); the store is damaged") from None

    def create_tournament(self, name: str, config_hash: str, config_json: str,
                          entrants: Iterable[EntrantRow]) -> None:
        with self._tx():
            self.insert_tournament(name, config_hash, config_json, entrants)

    def insert_tournament(self, name: str, config_hash: str, config_json: str, entrants: Iterable[EntrantRow]) -> None:
        """``create_tournament`` inside the caller's transaction (an import's)."""
        self.db.execute("INSERT INTO tournaments (name, config_hash, config_json, created) VALUES (?, ?, ?, ?)",
                        (name, config_hash, config_json, time.time()))
        self.db.executemany(
            "INSERT INTO entrants (tournament, name, bot, plugin, version, params) VALUES (?, ?, ?, ?, ?, ?)",
            [(name, e.name, e.bot, e.plugin, e.version, json.dumps(e.params, sort_keys=True)) for e in entrants])

    def delete_tournament(self, name: str) -> None:
        with self._tx():
            for table in ("games", "byes", "entrants", "plans", "clocked", *TALLY_TABLES):
                self.db.execute(f"DELETE FROM {table} WHERE tournament = ?", (name,))
            self.db.execute("DELETE FROM tournaments WHERE name = ?", (name,))

    def drop_games_past(self, tournament: str, table: int, variants: int, block: int) -> int:
        """Delete the games of ``table`` from duplicate block ``block`` on (block ``deal * variants +
        variant_index``, a match's order: ``matches.blocks``): those a pairing's SPRT decided without
        (``runner._run_matches``). Returns how many."""
        with self._tx():
            where = "tournament = ? AND tbl = ? AND deal * ? + variant_index >= ?"
            args = (tournament, table, variants, block)
            self.db.execute(f"DELETE FROM clocked WHERE id IN (SELECT id FROM games WHERE {where})", args)
            return self.db.execute(f"DELETE FROM games WHERE {where}", args).rowcount

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
        if row is not None and not (type(row[0]) is int and row[0] >= 0):
            raise StoreError(f"{self.path}: plans row {name!r}: planned: {row[0]!r} is not a count of games "
                             f"(the store is damaged)")
        t = self.tournament(name)
        return int(played), (int(row[0]) if row else None), bool(t is not None and t.finished is not None)

    def mark_finished(self, name: str) -> None:
        with self._tx():
            self.db.execute("UPDATE tournaments SET finished = ? WHERE name = ? AND finished IS NULL",
                            (time.time(), name))

    def entrants(self, tournament: str) -> list[EntrantRow]:
        rows = self.db.execute("SELECT name, bot, plugin, version, params FROM entrants WHERE tournament = ? "
                               "ORDER BY rowid", (tournament,)).fetchall()
        out = []
        for r in rows:
            params = self._json(r[4], f"entrants row {tournament!r}/{r[0]!r}: params")
            if not isinstance(params, dict):
                raise StoreError(f"{self.path}: entrants row {tournament!r}/{r[0]!r}: params: not a JSON object "
                                 f"(the store is damaged)")
            out.append(EntrantRow(r[0], r[1], r[2], r[3], params))
        return out

    # ----------------------------------------------------------------------------------- games
    def stored_ids(self, tournament: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM games WHERE tournament = ?", (tournament,))}

    def stored_seats(self, tournament: str) -> dict[str, str]:
        """Every stored game id of ``tournament`` with its seats as stored (``names_json``): a resume
        checks that the schedule still puts the same entrants at the same seats."""
        return {r[0]: r[1] for r in self.db.execute("SELECT id, seats FROM games WHERE tournament = ?", (tournament,))}

    def has_game(self, game_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def add_game(self, spec: GameSpec, result_json: str, record_json: str) -> bool:
        """Store one finished game in its own transaction; False if the id was already stored."""
        return self.add_games([game_row(spec, result_json, record_json)]) == 1

    def add_games(self, rows: Sequence[tuple[Any, ...]], then: Callable[[sqlite3.Connection], None] | None = None) -> int:
        """Store finished games (``game_row`` tuples) in one transaction: all of them or, on any error,
        none; ``then`` runs in the same transaction (the runner saves its tally there, so the tables
        and the games never disagree). Ids already stored are skipped; returns how many were new."""
        with self._tx():
            added = self.insert_games(rows)
            if then is not None:
                then(self.db)
            return added

    def insert_games(self, rows: Sequence[tuple[Any, ...]]) -> int:
        """``add_games`` inside the caller's transaction (an import's batches)."""
        before = self.db.total_changes
        self.db.executemany(_INSERT_GAME, rows)
        return self.db.total_changes - before

    def add_clocked(self, tournament: str, ids: Iterable[str]) -> None:
        """Mark games a bot's clock decided, inside the transaction storing them (``add_games``'s
        ``then``), so a game and its mark land together."""
        self.db.executemany("INSERT OR IGNORE INTO clocked (id, tournament) VALUES (?, ?)",
                            [(i, tournament) for i in ids])

    def clocked_games(self, tournament: str) -> list[str]:
        """The ids of ``tournament``'s games a bot's clock decided, in schedule order (none in a store
        from before they were kept)."""
        if "clocked" not in table_names(self.db):
            return []
        # from the marks to their games (by id), never the other way: a tournament's games read in
        # schedule order to find the few marked would read every row of it (no index holds the id)
        return [r[0] for r in self.db.execute(
            "SELECT g.id FROM clocked AS c CROSS JOIN games AS g ON g.id = c.id "
            "WHERE c.tournament = ? AND g.tournament = ? "
            "ORDER BY g.round, g.variant_index, g.tbl, g.deal, g.rotation", (tournament, tournament))]

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

    def games(self, tournament: str | None = None, *, variant: str | None = None, entrant: str | None = None,
              round_no: int | None = None, limit: int = 0, forfeits: bool = False) -> list[GameRow]:
        """Stored games in schedule order (tournament, round, variant, table, deal, rotation), filtered;
        ``limit`` > 0: only the first that many (read through the index, not the whole table)."""
        return list(self.iter_games(tournament, variant=variant, entrant=entrant, round_no=round_no, limit=limit,
                                    forfeits=forfeits))

    def iter_games(self, tournament: str | None = None, *, variant: str | None = None, entrant: str | None = None,
                   round_no: int | None = None, limit: int = 0, after: tuple[int, ...] | None = None,
                   forfeits: bool = False) -> Iterator[GameRow]:
        """``games`` as a stream (constant memory); ``after``: only games past this schedule position
        (a tally's watermark) of ``tournament``; ``forfeits``: only games that ended by a forfeit, and
        the matches with a deal that did (``_forfeited_matches``), in schedule order."""
        where, args = self._where(tournament, variant, entrant, round_no, after, FORFEITED if forfeits else "")
        sql = f"SELECT {_ROW_COLUMNS} FROM games{where} ORDER BY tournament, {ORDER_COLUMNS}"
        if limit and not forfeits:
            sql += f" LIMIT {int(limit)}"
        rows: Iterator[GameRow] = (g for g in map(self._row, self.db.execute(sql, args)) if g is not None)
        if forfeits:
            matches = self._forfeited_matches(tournament, variant, entrant, round_no, after)
            rows = itertools.islice(heapq.merge(rows, matches, key=lambda g: (g.tournament, g.order)), limit or None)
        yield from rows

    def _forfeited_matches(self, tournament: str | None, variant: str | None, entrant: str | None,
                           round_no: int | None, after: tuple[int, ...] | None) -> Iterator[GameRow]:
        """The stored matches (``unit = "match"``) of which a deal ended by a forfeit. A match's own result
        has none (its deals' are in its record), so each match's record is read: a listing's cost, in
        proportion to the matches, never the deals. A record that cannot be read is named as damaged."""
        from leagues.tournament.forfeits import deal_forfeits  # it reads the store's rows: imported here

        where, args = self._where(tournament, variant, entrant, round_no, after, A_MATCH)
        for r in self.db.execute(f"SELECT {_ROW_COLUMNS}, record FROM games{where} ORDER BY tournament, "
                                 f"{ORDER_COLUMNS}", args):
            g = self._row(r[:-1])
            if g is None:
                continue
            try:
                if deal_forfeits(json.loads(unpack(r[-1])).get("deals", []), g.id):
                    yield g
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                self.mark_damaged(g.id, g.tournament, f"record: {type(exc).__name__}: {str(exc)[:200]}")

    def count_games(self, tournament: str | None = None, *, variant: str | None = None, entrant: str | None = None,
                    forfeits: bool = False) -> int:
        where, args = self._where(tournament, variant, entrant, None, None, FORFEITED if forfeits else "")
        deals = int(self.db.execute(f"SELECT COUNT(*) FROM games{where}", args).fetchone()[0])
        return deals + (sum(1 for _ in self._forfeited_matches(tournament, variant, entrant, None, None))
                        if forfeits else 0)

    @staticmethod
    def _where(tournament: str | None, variant: str | None, entrant: str | None, round_no: int | None,
               after: tuple[int, ...] | None, only: str) -> tuple[str, list[Any]]:
        parts: list[str] = []
        args: list[Any] = []
        for column, value in (("tournament", tournament), ("variant", variant), ("round", round_no)):
            if value is not None:
                parts.append(f"{column} = ?")
                args.append(value)
        if after is not None:
            parts.append(f"({ORDER_COLUMNS}) > (?, ?, ?, ?, ?)")
            args.extend(after)
        if only:  # ``FORFEITED``, ``A_MATCH``
            parts.append(only)
        if entrant is not None:
            if tournament is None:  # only the tournaments it entered (a run and an import hold every seat's
                # name to the tournament's entrants): the others' games are never read
                parts.append("tournament IN (SELECT tournament FROM entrants WHERE name = ?)")
                args.append(entrant)
            # a seat it holds, but not the dealer's who sat the deal out (cabrero with 5 or 6: a deal it
            # did not play, ``arena.result.names_in_play``). A seats or result column that is not JSON
            # (damaged by hand) matches every entrant, so that the reader names it as damaged; json_each
            # over it would fail the whole query (CASE is lazy)
            parts.append("CASE WHEN NOT json_valid(games.seats) THEN 1 WHEN json_type(games.seats) <> 'array' "
                         "THEN 1 WHEN NOT json_valid(games.result) THEN 1 ELSE EXISTS (SELECT 1 FROM "
                         "json_each(games.seats) WHERE json_each.value = ? "
                         "AND json_each.key IS NOT json_extract(games.result, '$.sit_out')) END")
            args.append(entrant)
        return (" WHERE " + " AND ".join(parts) if parts else ""), args

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
            self.mark_damaged(str(r[0]), str(r[1]), f"{type(exc).__name__}: {str(exc)[:200]}")
            return None

    def a_record(self, tournament: str, variant_index: int) -> GameRecord | None:
        """The record of one stored deal of a tournament's variant (a match's first deal), or None: the
        rules that variant's games were played by, which every game of it shares."""
        failed: StoreError | None = None
        # the first readable one: a damaged first record must not hide the rules the others were played by
        for (text,) in self.db.execute("SELECT record FROM games WHERE tournament = ? AND variant_index = ?",
                                       (tournament, variant_index)):
            try:
                data = self._json(_text(tournament, text, self.path), f"tournament {tournament!r}: a record")
                try:
                    if is_match_json(data):
                        deals = MatchRecord.from_json(data).deals
                        return deals[0] if deals else None
                    return GameRecord.from_json(data)
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise StoreError(f"{self.path}: tournament {tournament!r}: a stored record is not a record "
                                     f"({type(exc).__name__}: {str(exc)[:200]}); the store is damaged") from None
            except StoreError as exc:
                failed = failed or exc
        if failed is not None:
            raise failed
        return None

    def record(self, game_id: str) -> GameRecord:
        """The record of a deal: a stored game, or deal ``K`` of a stored match as ``MATCH_ID/dK``."""
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            base, sep, index = game_id.rpartition("/d")
            # a deal's number as the ids write it: d0, d12 (not d01, nor other scripts' digits)
            if sep and index.isascii() and index.isdigit() and str(int(index)) == index and self.is_match(base):
                deals = self.match(base).deals
                if int(index) < len(deals):
                    return deals[int(index)]
                raise StoreError(f"{self.path}: the match {base!r} has {len(deals)} deals (d0 to d{len(deals) - 1})")
            raise StoreError(f"{self.path}: no game {clip(game_id)}")
        data = self._json(_text(game_id, row[0], self.path), f"game {game_id!r}: record")
        if is_match_json(data):
            n = len(data.get("deals", []))
            raise StoreError(f"{self.path}: {game_id!r} is a match of {n} deals: its deals are {game_id}/d0 to "
                             f"{game_id}/d{n - 1}")
        try:
            return GameRecord.from_json(data)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise StoreError(f"{self.path}: game {game_id!r}: the stored record cannot be read "
                             f"({type(exc).__name__}: {str(exc)[:150]}); the store is damaged") from None

    def is_match(self, game_id: str) -> bool:
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        return row is not None and is_match_json(self._json(_text(game_id, row[0], self.path),
                                                            f"game {game_id!r}: record"))

    def match(self, game_id: str) -> MatchRecord:
        """A stored match (a game of a variant played with ``unit = "match"``)."""
        data = self._json(self.record_json(game_id), f"game {game_id!r}: record")
        if not is_match_json(data):
            raise StoreError(f"{self.path}: {game_id!r} is a single deal, not a match")
        try:
            return MatchRecord.from_json(data)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise StoreError(f"{self.path}: game {game_id!r}: the stored match cannot be read "
                             f"({type(exc).__name__}: {str(exc)[:150]}); the store is damaged") from None

    def record_json(self, game_id: str) -> str:
        row = self.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no game {clip(game_id)}")
        return _text(game_id, row[0], self.path)

    def game_records(self, tournament: str) -> Iterator[tuple[GameRow | None, str, str]]:
        """(row or None if damaged, game id, record JSON text) of every game of ``tournament`` in schedule
        order, streamed: export and verify read a million games in constant memory. A record that
        cannot be unpacked comes as "" (the reader names the game)."""
        for r in self.db.execute(f"SELECT {_ROW_COLUMNS}, record FROM games WHERE tournament = ? "
                                 f"ORDER BY {ORDER_COLUMNS}", (tournament,)):
            try:
                text = unpack(r[-1])
            except ValueError as exc:
                self.mark_damaged(str(r[0]), str(r[1]), str(exc))
                text = ""
            yield self._row(r[:-1]), str(r[0]), text

    def transaction(self) -> Transaction:
        """One unit of the journal, for writes beside the games (a tally rebuilt whole)."""
        return self._tx()

    def _tx(self) -> Transaction:
        return Transaction(self.db, self.path, StoreError, write_error=StoreWriteError)


def _config_problem(config: Any) -> str | None:
    """What in a stored config the readers need (``leaderboard.stored_setup``: the variants, the rating,
    the entrants' names) is missing or of the wrong kind, or None. Only the shape: the values were
    checked by tournament.toml's checker when the run (or the import) stored them."""
    if not isinstance(config, dict):
        return "not a JSON object"
    variants, rating, entrants = config.get("variants"), config.get("rating"), config.get("entrants")
    if not (isinstance(variants, list) and variants and all(
            isinstance(v, dict) and isinstance(v.get("label"), str) and isinstance(v.get("preset"), str)
            and isinstance(v.get("options"), dict) for v in variants)):
        return "variants: not a list of variants (label, preset, options)"
    if not (isinstance(rating, dict) and all(
            isinstance(rating.get(k), (int, float)) for k in ("mu", "sigma", "beta", "tau", "k"))
            and isinstance(rating.get("draw_probability"), (int, float, type(None)))):
        return "rating: not a rating (mu, sigma, beta, tau, draw_probability, k)"
    if not (isinstance(entrants, list) and all(isinstance(e, dict) and isinstance(e.get("name"), str)
                                               for e in entrants)):
        return "entrants: not a list of entrants with names"
    return None


#: the games that ended by a forfeit: the stored result JSON is compact; a row written with spaces reads
#: the same (the terms of the partial index games_forfeited: written the same, so that it serves)
FORFEITED = "result NOT LIKE '%\"forfeit\":null%' AND result NOT LIKE '%\"forfeit\": null%'"
#: the matches (``unit = "match"``), whose forfeits are their deals'
A_MATCH = "(result LIKE '%\"reason\":\"match\"%' OR result LIKE '%\"reason\": \"match\"%')"


def _text(game_id: str, value: Any, path: Path) -> str:
    """A stored record's JSON text; one that cannot be unpacked is a StoreError naming the game."""
    try:
        return unpack(value)
    except ValueError as exc:
        raise StoreError(f"{path}: game {game_id!r}: {exc}") from None
