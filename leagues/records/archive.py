"""Moving games between stores and files: export to JSON lines, import with full checking, verify.

An export is JSON lines: for each tournament a header line (``format: tute-arena/tournament-1``, its
config and entrants), then its game records (``tute-arena/1``; a variant played by the match stores
``tute-arena-match/1`` records holding the deals), each with a ``schedule`` field saying where it sits in
the tournament. Readers of plain records skip header lines and ignore the field.
Import checks every line (it parses, its record replays, no id twice or already stored) while it
stores the games in one transaction, and rolls it back unless all of it is sound: nothing is stored
from a file with a bad line, and memory does not grow with the file (export and verify stream too).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import queue
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from arena import GameRecord, ReplayError, get_variant, replay
from arena.matchplay import MatchRecord, is_match_json, verify_match
from arena.record_schema import check_record

from leagues.tournament.leaderboard import tally_of
from leagues.tournament.schedule import GameSpec
from leagues.tournament.store import EntrantRow, Store, game_row
from leagues.tournament.tally import Tally

HEADER_FORMAT = "tute-arena/tournament-1"
_ID = re.compile(r"^(?P<t>.+)/(?P<v>[^/]+)/r(?P<r>\d+)/t(?P<tb>\d+)/d(?P<d>\d+)/s(?P<s>\d+)$")


class ArchiveError(ValueError):
    """A file that cannot be imported; ``problems`` lists every bad line as ``FILE:LINE: why``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems[0] if len(problems) == 1 else f"{problems[0]} (and {len(problems) - 1} more)")
        self.problems = problems


def open_text(path: str | Path, mode: str = "rt") -> IO[str]:
    """A text file, gzip-compressed when its name ends in .gz."""
    p = str(path)
    if p.endswith(".gz"):
        # level 6, not gzip's 9: a third of the time for a file 2% larger
        return gzip.open(p, mode, encoding="utf-8", compresslevel=6)  # type: ignore[return-value]
    return open(p, mode[0], encoding="utf-8")


def parse_line(line: str) -> Any:
    """One JSON line of a records file; anything that is not JSON (deep nesting included) is a
    ValueError with a one-line reason, never a RecursionError."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise ValueError("not JSON a record can be: nested too deeply") from None


def read_lines(fh: IO[str], path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a records file; a byte that is not UTF-8 is one error naming the line."""
    lineno = 0
    try:
        for lineno, line in enumerate(fh, 1):
            yield lineno, line
    except UnicodeDecodeError as exc:
        raise ArchiveError([f"{path}:{lineno + 1}: not UTF-8 text ({exc.reason})"]) from None
    except (OSError, EOFError) as exc:
        raise ArchiveError([f"{path}: cannot read: {exc}"]) from None


def is_header(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == HEADER_FORMAT


# ------------------------------------------------------------------------------------------ export
def export_lines(store: Store, tournament: str | None = None) -> Iterator[str]:
    names = [tournament] if tournament else [t.name for t in store.tournaments()]
    for name in names:
        row = store.tournament(name)
        if row is None:
            raise ArchiveError([f"{store.path}: no tournament {name!r}"])
        header = {"format": HEADER_FORMAT, "name": row.name, "config_hash": row.config_hash, "config": row.config,
                  "entrants": [e.__dict__ for e in store.entrants(name)]}
        yield json.dumps(header, sort_keys=True, separators=(",", ":"))
        for g, gid, text in store.game_records(name):
            if g is None or not text:
                continue  # a damaged row: named by the store, left out
            try:  # the same schema check as every reader: a damaged record is named and left out
                data = parse_line(text)
                MatchRecord.from_json(data) if is_match_json(data) else check_record(data)
            except (ValueError, KeyError, TypeError) as exc:
                store.damaged[gid] = f"{type(exc).__name__}: {str(exc)[:200]}"
                continue
            schedule = {"tournament": g.tournament, "variant": g.variant, "variant_index": g.variant_index,
                        "round": g.round, "table": g.table, "deal": g.deal, "rotation": g.rotation,
                        "units": list(g.units)}
            if "schedule" in data or not text.endswith("}"):  # never stored so; said whole to be safe
                data["schedule"] = schedule
                yield json.dumps(data, separators=(",", ":"))
            else:  # the stored text is the record's JSON: add the field without writing it all again
                yield text[:-1] + ',"schedule":' + json.dumps(schedule, separators=(",", ":")) + "}"


def export(store: Store, out: IO[str], tournament: str | None = None) -> int:
    """Write the export lines to ``out``; returns how many. The writing (gzip's compression, which
    frees the interpreter while it works) happens on a second thread in chunks of lines, beside the
    reading and checking: about a third faster on two cores."""
    count = 0
    chunks: queue.Queue[str | None] = queue.Queue(maxsize=4)
    failure: list[BaseException] = []

    def writer() -> None:
        while (chunk := chunks.get()) is not None:
            if not failure:
                try:
                    out.write(chunk)
                except BaseException as exc:  # noqa: BLE001 - handed to the reading thread
                    failure.append(exc)

    thread = threading.Thread(target=writer, name="export-writer", daemon=True)
    thread.start()
    try:
        lines: list[str] = []
        for line in export_lines(store, tournament):
            lines.append(line)
            count += 1
            if len(lines) >= EXPORT_CHUNK:
                chunks.put("\n".join(lines) + "\n")
                lines = []
                if failure:
                    break
        if lines and not failure:
            chunks.put("\n".join(lines) + "\n")
    finally:
        chunks.put(None)
        thread.join()
    if failure:
        raise failure[0]
    return count


#: lines handed to the writing thread at a time
EXPORT_CHUNK = 256


# ------------------------------------------------------------------------------------------ import
#: games inserted per statement while an import streams (all of them in one transaction)
IMPORT_BATCH = 500
#: problems kept for the message (every bad line is counted)
MAX_PROBLEMS = 1000


@dataclass
class ImportResult:
    stored: int = 0
    #: games already stored with exactly this record (``skip_existing``)
    skipped: int = 0


def _spec(rec: GameRecord | MatchRecord, data: dict[str, Any], fallback_tournament: str, position: int) -> GameSpec:
    """Where an imported game sits: its ``schedule`` field, else what its id says, else the file order."""
    if isinstance(rec, MatchRecord):
        return _spec_of(rec.id, rec.variant, rec.seed, rec.first_dealer, rec.seats, data, fallback_tournament,
                        position)
    return _spec_of(rec.id, rec.variant, rec.seed, rec.dealer, rec.seats, data, fallback_tournament, position)


def _spec_of(gid: str, variant: str, seed: int | None, dealer: int, seats: list[str], data: dict[str, Any],
             fallback_tournament: str, position: int) -> GameSpec:
    sched = data.get("schedule")
    if isinstance(sched, dict):
        return GameSpec(id=gid, tournament=str(sched["tournament"]), variant=str(sched["variant"]),
                        variant_index=int(sched["variant_index"]), round=int(sched["round"]),
                        table=int(sched["table"]), deal=int(sched["deal"]), rotation=int(sched["rotation"]),
                        seed=int(seed or 0), dealer=dealer, seats=tuple(seats),
                        units=tuple(sched["units"]))
    m = _ID.match(gid)
    units = tuple(dict.fromkeys(seats))
    if m:
        return GameSpec(id=gid, tournament=m["t"], variant=m["v"], variant_index=0, round=int(m["r"]),
                        table=int(m["tb"]), deal=int(m["d"]), rotation=int(m["s"]), seed=int(seed or 0),
                        dealer=dealer, seats=tuple(seats), units=units)
    return GameSpec(id=gid or f"{fallback_tournament}/{position}", tournament=fallback_tournament,
                    variant=variant, variant_index=0, round=0, table=0, deal=position, rotation=0,
                    seed=int(seed or 0), dealer=dealer, seats=tuple(seats), units=units)


@dataclass
class _Seen:
    """What an import remembers of the tournaments it meets (a few per file, never per game)."""
    headers: dict[str, dict[str, Any]]
    variants: dict[str, dict[str, dict[str, Any]]]
    entrants: dict[str, dict[str, None]]

    def game(self, spec: GameSpec, data: dict[str, Any]) -> None:
        variants = self.variants.setdefault(spec.tournament, {})
        if spec.variant not in variants:
            variants[spec.variant] = {"label": spec.variant, "preset": data["variant"], "options": data["options"]}
        self.entrants.setdefault(spec.tournament, {}).update(dict.fromkeys(spec.seats))


def import_records(path: str | Path, store: Store, tournament: str | None = None, *,
                   skip_existing: bool = False) -> ImportResult:
    """Check every line of ``path`` and store its games, streaming: one transaction, games inserted in
    batches as the file is read, the tables of each tournament folded at the end. If any line is bad
    (it does not parse or replay, its id comes twice or is already stored), the transaction is rolled
    back, nothing is stored, and ArchiveError lists every problem. With ``skip_existing`` a game
    already stored with the same record is skipped (and counted); one stored under the same id with
    another record is still an error. Memory does not grow with the file."""
    problems: list[str] = []
    bad = 0
    out = ImportResult()
    seen = _Seen({}, {}, {})
    fallback = tournament or "imported"
    try:
        fh = open_text(path)
    except OSError as exc:
        raise ArchiveError([f"{path}: {exc.strerror or exc}"]) from None

    def problem(text: str) -> None:
        nonlocal bad
        bad += 1
        if len(problems) < MAX_PROBLEMS:
            problems.append(text)

    db = store.db
    with fh, store.transaction():
        db.execute("PRAGMA defer_foreign_keys = ON")  # the tournaments are written after their games
        db.execute("CREATE TEMP TABLE IF NOT EXISTS import_lines (id TEXT PRIMARY KEY, line INTEGER NOT NULL)")
        db.execute("DELETE FROM import_lines")
        batch: list[tuple[Any, ...]] = []
        position = 0
        for lineno, line in read_lines(fh, path):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                data = parse_line(line)
            except ValueError as exc:
                problem(f"{where}: {exc}")
                continue
            if is_header(data):
                seen.headers[tournament or str(data.get("name"))] = data
                continue
            row = _checked(data, where, store, tournament, fallback, position, skip_existing, lineno, problem, out)
            position += 1
            if row is None:
                continue
            spec, result_json, record_json = row
            seen.game(spec, data)
            batch.append(game_row(spec, result_json, record_json))
            if len(batch) >= IMPORT_BATCH:
                out.stored += store.insert_games(batch)
                batch = []
        if batch:
            out.stored += store.insert_games(batch)
        if bad:
            more = [f"... and {bad - len(problems)} more"] if bad > len(problems) else []
            raise ArchiveError(problems + more)  # rolls the transaction back: nothing stored
        _write_tournaments(store, seen, path)
    return out


def replayed(data: Any) -> GameRecord | MatchRecord:
    """A parsed record (a deal or a match) read and replayed through the referee: import and verify
    both ask it. Raises ReplayError, or ValueError/KeyError/TypeError for a record that is not one."""
    if is_match_json(data):
        match = MatchRecord.from_json(data)
        verify_match(match)
        return match
    rec = GameRecord.from_json(data)
    replay(rec)
    return rec


def _checked(data: Any, where: str, store: Store, tournament: str | None, fallback: str, position: int,
             skip_existing: bool, lineno: int, problem: Any, out: ImportResult) -> tuple[GameSpec, str, str] | None:
    """One record line checked as the import needs it, or None (a problem said, or a game skipped)."""
    try:
        rec = replayed(data)
    except ReplayError as exc:
        problem(f"{where}: the record is not true to the rules: {exc}")
        return None
    except (ValueError, KeyError, TypeError) as exc:
        problem(f"{where}: not a game record: {exc!r}")
        return None
    try:
        spec = _spec(rec, data, fallback, position)
    except (KeyError, TypeError, ValueError) as exc:
        problem(f"{where}: bad schedule field: {exc}")
        return None
    if not 0 <= spec.seed < 2 ** 63:
        problem(f"{where}: seed: must be an integer in [0, 2^63), not {spec.seed}")
        return None
    if tournament:
        spec = spec._replace(tournament=tournament)
    db = store.db
    earlier = db.execute("SELECT line FROM import_lines WHERE id = ?", (spec.id,)).fetchone()
    if earlier is not None:
        problem(f"{where}: duplicate of line {earlier[0]} (game {spec.id})")
        return None
    data.pop("schedule", None)
    if data.get("id") != spec.id:  # a record without an id is stored under the one made for it
        data["id"] = spec.id
    if store.has_game(spec.id):
        if skip_existing and json.loads(store.record_json(spec.id)) == data:
            out.skipped += 1
            return None
        problem(f"{where}: game {spec.id} is already in {store.path}"
                + (" with a different record" if skip_existing else " (--skip-existing skips games stored "
                                                                     "identically)"))
        return None
    db.execute("INSERT INTO import_lines (id, line) VALUES (?, ?)", (spec.id, lineno))
    return spec, json.dumps(rec.result.to_json(), separators=(",", ":")), json.dumps(data, separators=(",", ":"))


def _write_tournaments(store: Store, seen: _Seen, path: str | Path) -> None:
    """Create the tournaments the import brought (from their headers, else a minimal config the
    leaderboard can read), mark them finished, and fold each one's tables anew."""
    for name, variants in seen.variants.items():
        if store.tournament(name) is None:
            header = seen.headers.get(name)
            if header is not None:
                config = dict(header["config"], name=name)
                entrants = [EntrantRow(**e) for e in header.get("entrants", [])]
                digest = str(header.get("config_hash", ""))
            else:
                for v in variants.values():
                    try:
                        get_variant(v["preset"])  # an unknown preset cannot be rated: refuse, store nothing
                    except ValueError as exc:
                        raise ArchiveError([f"{path}: {exc}"]) from None
                config = _minimal_config(name, list(variants.values()), list(seen.entrants[name]))
                entrants = [EntrantRow(e, "imported", "imported", "?", {}) for e in seen.entrants[name]]
                digest = ""
            text = json.dumps(config, sort_keys=True, separators=(",", ":"))
            store.insert_tournament(name, digest or hashlib.sha256(text.encode()).hexdigest()[:16], text, entrants)
        store.db.execute("UPDATE tournaments SET finished = COALESCE(finished, ?) WHERE name = ?",
                         (time.time(), name))
        # an imported tournament is whole: it planned the games it holds (a plan already stored stays)
        store.db.execute("INSERT OR IGNORE INTO plans (tournament, planned) SELECT ?, COUNT(*) FROM games "
                         "WHERE tournament = ?", (name, name))
        refold(store, name)


def refold(store: Store, name: str) -> None:
    """Fold every stored game of ``name`` into a new tally and save it (inside the caller's transaction)."""
    tally = tally_of(store, name, recompute=True)
    Tally.drop(store.db, name)
    tally.save(store.db)


def _minimal_config(name: str, variants: list[dict[str, Any]], entrants: list[str]) -> dict[str, Any]:
    """A config the leaderboard can read for games that came without a tournament header."""
    return {"name": name, "imported": True, "variants": variants,
            "entrants": [{"name": e, "bot": "imported", "params": {}, "isolation": "auto"} for e in entrants],
            "rating": {"mu": 25.0, "sigma": 25.0 / 3, "beta": 25.0 / 6, "tau": 0.0, "draw_probability": None,
                       "k": 3.0}}


def import_file(path: str | Path, store: Store, tournament: str | None = None, *,
                skip_existing: bool = False) -> int:
    """Import every game of ``path`` into ``store``, or nothing; returns the number stored."""
    return import_records(path, store, tournament, skip_existing=skip_existing).stored


# ------------------------------------------------------------------------------------------ verify
def verify(store: Store, tournament: str | None = None) -> Iterator[tuple[str, str | None]]:
    """(game id, None if the record is true, else what is wrong) for every stored game, streamed."""
    names = [tournament] if tournament else [t.name for t in store.tournaments()]
    for name in names:
        for g, gid, text in store.game_records(name):
            if g is None or not text:
                continue  # a damaged row: reported below
            try:
                rec = replayed(parse_line(text))
            except (ReplayError, ValueError, KeyError, TypeError) as exc:
                yield gid, str(exc)
                continue
            if rec.id != gid:
                yield gid, f"the record calls itself {rec.id!r}"
            elif rec.result.to_json() != g.result.to_json():
                yield gid, "the stored result differs from the record's"
            elif list(rec.seats) != list(g.seats):
                yield gid, "the stored seats differ from the record's"
            else:
                yield gid, None
    for gid, why in sorted(store.damaged.items()):
        yield gid, f"the stored row cannot be read: {why}"
