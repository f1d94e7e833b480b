"""Moving games between stores and files: export to JSON lines, import with full checking, verify.

An export is JSON lines: for each tournament a header line (``format: tute-arena/tournament-1``, its
config and entrants), then its game records (``tute-arena/1``; a variant played by the match stores
``tute-arena-match/1`` records holding the deals), each with a ``schedule`` field saying where it sits in
the tournament. Readers of plain records skip header lines and ignore the field.
Import checks the whole file first (every line parses, every record replays, no id twice or already
stored) and stores nothing unless all of it is sound.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from arena import GameRecord, ReplayError, get_variant, replay
from arena.matchplay import MatchRecord, is_match_json, verify_match

from leagues.tournament.schedule import GameSpec
from leagues.tournament.store import EntrantRow, Store, game_row

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
        return gzip.open(p, mode, encoding="utf-8")  # type: ignore[return-value]  # text mode: str lines
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
        for g in store.games(name):
            try:  # the same schema check as every reader: a damaged record is named and left out
                data = parse_line(store.record_json(g.id))
                MatchRecord.from_json(data) if is_match_json(data) else GameRecord.from_json(data)
            except (ValueError, KeyError, TypeError) as exc:
                store.damaged[g.id] = f"{type(exc).__name__}: {str(exc)[:200]}"
                continue
            data["schedule"] = {"tournament": g.tournament, "variant": g.variant, "variant_index": g.variant_index,
                                "round": g.round, "table": g.table, "deal": g.deal, "rotation": g.rotation,
                                "units": list(g.units)}
            yield json.dumps(data, separators=(",", ":"))


def export(store: Store, out: IO[str], tournament: str | None = None) -> int:
    count = 0
    for line in export_lines(store, tournament):
        out.write(line + "\n")
        count += 1
    return count


# ------------------------------------------------------------------------------------------ import
@dataclass
class PendingImport:
    headers: dict[str, dict[str, Any]]
    games: list[tuple[GameSpec, str, str]]
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


def read_import(path: str | Path, store: Store, tournament: str | None = None, *,
                skip_existing: bool = False) -> PendingImport:
    """Parse and check every line of ``path`` against ``store``; raise ArchiveError listing all problems.
    With ``skip_existing`` a game already stored with the same record is skipped (and counted); one
    stored under the same id with another record is still an error."""
    problems: list[str] = []
    pending = PendingImport({}, [])
    seen: dict[str, int] = {}
    fallback = tournament or "imported"
    try:
        fh = open_text(path)
    except OSError as exc:
        raise ArchiveError([f"{path}: {exc.strerror or exc}"]) from None
    with fh:
        lines = list(read_lines(fh, path))
    for lineno, line in lines:
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            data = parse_line(line)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if is_header(data):
            name = tournament or str(data.get("name"))
            pending.headers[name] = data
            continue
        try:
            rec: GameRecord | MatchRecord
            if is_match_json(data):
                rec = MatchRecord.from_json(data)
                verify_match(rec)
            else:
                rec = GameRecord.from_json(data)
                replay(rec)
        except ReplayError as exc:
            problems.append(f"{where}: the record is not true to the rules: {exc}")
            continue
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(f"{where}: not a game record: {exc!r}")
            continue
        try:
            spec = _spec(rec, data, fallback, len(pending.games))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{where}: bad schedule field: {exc}")
            continue
        if not 0 <= spec.seed < 2 ** 63:
            problems.append(f"{where}: seed: must be an integer in [0, 2^63), not {spec.seed}")
            continue
        if tournament:
            spec = spec._replace(tournament=tournament)
        if spec.id in seen:
            problems.append(f"{where}: duplicate of line {seen[spec.id]} (game {spec.id})")
            continue
        seen[spec.id] = lineno
        data.pop("schedule", None)
        if data.get("id") != spec.id:  # a record without an id is stored under the one made for it
            data["id"] = spec.id
        if store.has_game(spec.id):
            if skip_existing and json.loads(store.record_json(spec.id)) == data:
                pending.skipped += 1
                continue
            problems.append(f"{where}: game {spec.id} is already in {store.path}"
                            + (" with a different record" if skip_existing else " (--skip-existing skips "
                                                                                 "games stored identically)"))
            continue
        pending.games.append((spec, json.dumps(rec.result.to_json(), separators=(",", ":")),
                              json.dumps(data, separators=(",", ":"))))
    if problems:
        raise ArchiveError(problems)
    return pending


def _minimal_config(name: str, games: list[tuple[GameSpec, str, str]]) -> dict[str, Any]:
    """A config the leaderboard can read for games that came without a tournament header."""
    variants: dict[str, dict[str, Any]] = {}
    entrants: dict[str, None] = {}
    for spec, _, record_json in games:
        if spec.tournament != name:
            continue
        rec = json.loads(record_json)
        if spec.variant not in variants:
            preset = rec["variant"]
            get_variant(preset)  # an unknown preset cannot be rated: refuse rather than store half a setup
            variants[spec.variant] = {"label": spec.variant, "preset": preset, "options": rec["options"]}
        entrants.update(dict.fromkeys(spec.seats))
    return {"name": name, "imported": True, "variants": list(variants.values()),
            "entrants": [{"name": e, "bot": "imported", "params": {}, "isolation": "auto"} for e in entrants],
            "rating": {"mu": 25.0, "sigma": 25.0 / 3, "beta": 25.0 / 6, "tau": 0.0, "draw_probability": None,
                       "k": 3.0}}


def import_file(path: str | Path, store: Store, tournament: str | None = None, *,
                skip_existing: bool = False) -> int:
    """Import every game of ``path`` into ``store``, or nothing; returns the number stored (see
    ``read_import`` for ``skip_existing``)."""
    return import_pending(read_import(path, store, tournament, skip_existing=skip_existing), path, store)


def import_pending(pending: PendingImport, path: str | Path, store: Store) -> int:
    """Store what ``read_import`` checked: the games in one transaction; if that fails, the tournaments
    this import created are removed again, so a store is never left with half a file."""
    names = list(dict.fromkeys(spec.tournament for spec, _, _ in pending.games))
    created = [n for n in names if store.tournament(n) is None]
    try:
        stored = _store_pending(pending, path, store, names)
    except Exception:
        for name in created:
            if store.tournament(name) is not None:
                store.delete_tournament(name)
        raise
    return stored


def _store_pending(pending: PendingImport, path: str | Path, store: Store, names: list[str]) -> int:
    for name in names:
        if store.tournament(name) is not None:
            continue
        header = pending.headers.get(name)
        if header is not None:
            config = dict(header["config"], name=name)
            entrants = [EntrantRow(**e) for e in header.get("entrants", [])]
            digest = str(header.get("config_hash", ""))
        else:
            try:
                config = _minimal_config(name, pending.games)
            except ValueError as exc:
                raise ArchiveError([f"{path}: {exc}"]) from None
            entrants = [EntrantRow(e["name"], "imported", "imported", "?", {}) for e in config["entrants"]]
            digest = ""
        text = json.dumps(config, sort_keys=True, separators=(",", ":"))
        store.create_tournament(name, digest or hashlib.sha256(text.encode()).hexdigest()[:16], text, entrants)
    stored = store.add_games([game_row(spec, result_json, record_json) for spec, result_json, record_json
                              in pending.games])
    for name in names:
        store.mark_finished(name)
    return stored


# ------------------------------------------------------------------------------------------ verify
def verify(store: Store, tournament: str | None = None) -> Iterator[tuple[str, str | None]]:
    """(game id, None if the record is true, else what is wrong) for every stored game."""
    for g in store.games(tournament):
        try:
            rec: GameRecord | MatchRecord
            if store.is_match(g.id):
                rec = store.match(g.id)
                verify_match(rec)
            else:
                rec = store.record(g.id)
                replay(rec)
        except (ReplayError, ValueError, KeyError, TypeError) as exc:
            yield g.id, str(exc)
            continue
        if rec.id != g.id:
            yield g.id, f"the record calls itself {rec.id!r}"
        elif rec.result.to_json() != g.result.to_json():
            yield g.id, "the stored result differs from the record's"
        elif list(rec.seats) != list(g.seats):
            yield g.id, "the stored seats differ from the record's"
        else:
            yield g.id, None
    for gid, why in sorted(store.damaged.items()):
        yield gid, f"the stored row cannot be read: {why}"
