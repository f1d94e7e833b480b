"""The SQLite plumbing both stores share: one file (WAL), opened the same way, written in transactions.

The tournament store (``store.py``) and the league's tables (``leagues.league.store``) live in the same
file, so they open it with the same settings and turn database errors into the same kind of one-line
message naming the file, instead of each keeping its own copy of this.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from urllib.parse import quote


#: the file opened last (a list of one): a database error met later in a query (a page of the file
#: damaged, text that is not UTF-8) is said by the command line naming the file (``leagues.cli.main``)
OPENED: list[Path] = []


def connect(path: Path, schema: str, error: type[Exception], what: str, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (or create) the store file at ``path`` in autocommit mode and make sure ``schema`` exists;
    a failure raises ``error`` naming the file and ``what`` it was meant to be. ``readonly``: a reader's
    connection, which never writes (no schema, no pragma that writes) and works on read-only media."""
    OPENED[:] = [path]
    if readonly:
        return _connect_readonly(path, error, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), isolation_level=None, timeout=30)
        _refuse_foreign(db, path, schema, error, what)
        # a new file only: a game's row (its record is about 2 kB) fills most of a 4 kB page, three share
        # an 8 kB page, so the file is a third smaller and an insert allocates fewer pages
        db.execute("PRAGMA page_size=8192")
        db.execute("PRAGMA journal_mode=WAL")
        # no fsync per commit (a killed process loses nothing committed); a checkpoint every 8 MB of
        # journal, done by the parent while the workers play rather than all at the end
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA wal_autocheckpoint=1000")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(schema)
    except (OSError, sqlite3.Error) as exc:
        raise error(f"{path}: cannot open the {what}: {exc}") from None
    return db


#: a table of each of tute's schemas (the tournament store's, the league's): the two share one file, so
#: a file holding either is tute's to open with the other's schema too
TUTE_TABLES = frozenset({"tournaments", "games", "league"})


def table_names(db: sqlite3.Connection) -> set[str]:
    """The tables a SQLite file holds (SQLite's own left out)."""
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite_%'")}


def peek_tables(path: Path) -> set[str]:
    """The tables of the SQLite file at ``path``, read without writing anything (none if it cannot be
    read): what a store is, asked before it is opened as one kind or another."""
    if not path.is_file():
        return set()
    try:
        db = _open("file:" + quote(str(path.resolve())) + "?mode=ro")
        try:
            return table_names(db)
        finally:
            db.close()
    except sqlite3.Error:
        return set()


def _refuse_foreign(db: sqlite3.Connection, path: Path, schema: str, error: type[Exception], what: str) -> None:
    """A SQLite file that holds tables, none of them tute's, is someone else's database: adding tute's
    tables to it and switching it to WAL would change a file tute did not write, so refuse it whole
    (as the log file check refuses a log tute did not write). An empty file, or a new one, is tute's."""
    tables = table_names(db)
    ours = TUTE_TABLES | set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", schema))
    if tables and not tables & ours:
        db.close()
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise error(f"{path}: not a tute-arena {what}: a SQLite file with other tables ({shown}); "
                    f"give a new file or a store tute wrote")


#: how long a reader waits for a writer's lock (seconds) before it says the store is busy
READ_TIMEOUT = 30.0


def _open(uri: str) -> sqlite3.Connection:
    db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=READ_TIMEOUT)
    db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    return db


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds the file (not a damaged one)."""
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in str(exc)


def _connect_readonly(path: Path, error: type[Exception], what: str) -> sqlite3.Connection:
    """``mode=ro`` first; where even that needs to write (a WAL store on read-only media, whose shared
    memory file cannot be made), ``immutable=1``: the file is read as it lies. Never in place of a
    lock another process holds, nor over a write-ahead log with commits in it: immutable reads ignore
    both, and a reader would report a store short of games it holds as if it were whole."""
    uri = "file:" + quote(str(path.resolve()))
    try:
        return _open(uri + "?mode=ro")
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise error(f"{path}: the {what} is locked by another process ({exc}); try again when it is done") from None
        first = exc
    wal = Path(str(path) + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise error(f"{path}: cannot open the {what}: {first}; its write-ahead log {wal.name} holds commits "
                    f"that cannot be read here (read-only media?): open it once where it can be written")
    try:
        return _open(uri + "?immutable=1")
    except sqlite3.Error as exc:
        raise error(f"{path}: cannot open the {what}: {exc}") from None


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, ROLLBACK on error: one unit of the journal. A database error (a lock
    held too long, a row written meanwhile by another ``tute``) becomes ``error`` naming the file, with
    ``hint`` after it; one met while writing, the commit included (a full disk), ``write_error``: it is
    no damaged file, and what was committed before stays whole."""

    def __init__(self, db: sqlite3.Connection, path: Path, error: type[Exception], hint: str = "",
                 write_error: type[Exception] | None = None) -> None:
        self.db = db
        self.path = path
        self.error = error
        self.hint = hint
        self.write_error = write_error or error

    def __enter__(self) -> None:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self.error(f"{self.path}: {exc}{self.hint}") from None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
                return
            except sqlite3.Error as failed:
                exc = failed
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.Error:  # none left to roll back (SQLite ended it on the error)
            pass
        if isinstance(exc, sqlite3.Error):
            raise self.write_error(f"{self.path}: cannot write: {exc}{self.hint}") from None
