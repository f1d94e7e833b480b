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
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterator

from arena import GameRecord, ReplayError, get_variant, replay
from arena.matchplay import MatchRecord, is_match_json, verify_match
from arena.record_schema import check_record

from leagues.tournament.checks import ID_UNSAFE, NAME_MAX
from leagues.tournament.config import ConfigError, TournamentConfig, parse_config
from leagues.tournament.leaderboard import tally_of
from leagues.tournament.schedule import GameSpec
from leagues.tournament.store import EntrantRow, Store, game_row
from leagues.tournament.tally import Tally

HEADER_FORMAT = "tute-arena/tournament-1"
_ID = re.compile(r"^(?P<t>.+)/(?P<v>[^/]+)/r(?P<r>\d+)/t(?P<tb>\d+)/d(?P<d>\d+)/s(?P<s>\d+)$")


def tournament_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an imported tournament, or None. A config's name has no '/'; an
    import's may (a league's seasons are named club/s1), but never spaces, control characters or
    nothing, which the game ids and the commands that take a name could not carry."""
    if not name or any(ch in ID_UNSAFE - {"/"} or ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return f"tournament name {name[:80]!r}: must be non-empty, without spaces or control characters"
    if len(name) > 2 * NAME_MAX:
        return f"tournament name {name[:80]!r}...: longer than {2 * NAME_MAX} characters"
    return None


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
        # json's messages may end in "at" ("Invalid control character at"): the column follows once
        raise ValueError(f"not JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}") from None
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
        header: dict[str, Any] = {"format": HEADER_FORMAT, "name": row.name, "config_hash": row.config_hash, "config": row.config,
                  "entrants": [e.__dict__ for e in store.entrants(name)]}
        planned = store.progress(name)[1]
        if planned is not None:  # an interrupted run's export stays resumable where it is imported
            header["planned"] = planned
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
    """Where an imported game sits: its ``schedule`` field, else what its id says, else the file order.
    A game of neither kind (``tute play --records``) is stored as ``{tournament}/{its id}``: its id
    (``play/7/0``) says only the seed and the deal, so the games of two such files, of two variants or
    of other bots, into two tournaments would otherwise take the same ids."""
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
    return GameSpec(id=f"{fallback_tournament}/{gid or position}", tournament=fallback_tournament,
                    variant=variant, variant_index=0, round=0, table=0, deal=position, rotation=0,
                    seed=int(seed or 0), dealer=dealer, seats=tuple(seats), units=units)


@dataclass
class _Seen:
    """What an import remembers of the tournaments it meets (a few per file, never per game)."""
    headers: dict[str, dict[str, Any]]
    variants: dict[str, dict[str, dict[str, Any]]]
    entrants: dict[str, dict[str, None]]
    #: each tournament's variant labels, read once (``labels``)
    known_labels: dict[str, set[str] | None] = field(default_factory=dict)
    #: each tournament's entrant names, read once (``entrant_names``)
    known_entrants: dict[str, set[str] | None] = field(default_factory=dict)

    def labels(self, store: Store, name: str) -> set[str] | None:
        """The variant labels tournament ``name`` has (from its header, else as stored), or None when
        neither is known (its config is then made from the games). Read once per tournament: a header
        comes before its games."""
        if name not in self.known_labels:
            self.known_labels[name] = self._labels(store, name)
        return self.known_labels[name]

    def _labels(self, store: Store, name: str) -> set[str] | None:
        header = self.headers.get(name)
        config = header["config"] if header is not None else None
        if config is None:
            row = store.tournament(name)
            config = row.config if row is not None else None
        if config is None:
            return None
        return {str(v.get("label")) for v in config.get("variants", []) if isinstance(v, dict)}

    def entrant_names(self, store: Store, name: str) -> set[str] | None:
        """The entrant names tournament ``name`` has (from its header, else as stored), or None when
        neither is known (its entrants are then the games' players). Read once per tournament."""
        if name not in self.known_entrants:
            header = self.headers.get(name)
            if header is not None:
                self.known_entrants[name] = {str(e["name"]) for e in header.get("entrants", [])} or {
                    str(e.get("name")) for e in header["config"].get("entrants", []) if isinstance(e, dict)}
            else:
                row = store.tournament(name)
                self.known_entrants[name] = None if row is None else {
                    str(e.get("name")) for e in row.config.get("entrants", []) if isinstance(e, dict)}
        return self.known_entrants[name]

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
                name = tournament or str(data.get("name"))
                why = tournament_name_problem(name)
                if why:
                    problem(f"{where}: tournament header: {why}")
                    continue
                try:
                    seen.headers[name] = _checked_header(data, where, store.path.parent)
                except ArchiveError as exc:
                    problem(exc.problems[0])
                continue
            row = _checked(data, where, store, tournament, fallback, position, skip_existing, lineno, problem, out,
                           seen)
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
        for key, kind in (("result", dict), ("deals", list), ("match", dict)):
            if not isinstance(data.get(key), kind):
                raise ValueError(f"{key}: must be a JSON {'object' if kind is dict else 'array'}")
        match = MatchRecord.from_json(data)
        _match_envelope(match)
        verify_match(match)
        return match
    rec = GameRecord.from_json(data)
    replay(rec)
    return rec


def _match_envelope(match: MatchRecord) -> None:
    """What ``verify_match`` does not look at but the store needs: the match's id and seats (its deals
    carry their own, checked by the referee)."""
    if not isinstance(match.id, str) or not match.id:
        raise ValueError(f"id: must be a non-empty string, not {match.id!r}")
    players = match.rules().players
    if len(match.seats) != players or not all(isinstance(s, str) for s in match.seats):
        raise ValueError(f"seats: must be {players} entrant names, not {match.seats!r}")
    if any(list(d.seats) != list(match.seats) for d in match.deals):
        raise ValueError("seats: the deals are seated otherwise than the match")


def _checked(data: Any, where: str, store: Store, tournament: str | None, fallback: str, position: int,
             skip_existing: bool, lineno: int, problem: Any, out: ImportResult,
             seen: _Seen) -> tuple[GameSpec, str, str] | None:
    """One record line checked as the import needs it, or None (a problem said, or a game skipped)."""
    try:
        rec = replayed(data)
    except ReplayError as exc:
        problem(f"{where}: the record is not true to the rules: {exc}")
        return None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        problem(f"{where}: not a game record: {exc!r}"[:400])
        return None
    try:
        spec = _spec(rec, data, fallback, position)
    except (KeyError, TypeError, ValueError) as exc:
        problem(f"{where}: bad schedule field: {exc}"[:400])
        return None
    if not 0 <= spec.seed < 2 ** 63:
        problem(f"{where}: seed: must be an integer in [0, 2^63), not {spec.seed}")
        return None
    if tournament:
        spec = spec._replace(tournament=tournament)
    why = _spec_problem(spec, seen.labels(store, spec.tournament), seen.entrant_names(store, spec.tournament),
                        spec.tournament not in seen.headers)
    if why:
        problem(f"{where}: {why}"[:400])
        return None
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


#: SQLite's integers (and so the store's columns and a JSON number it reads back) are 64-bit
_INT_MAX = 2 ** 63


def _spec_problem(spec: GameSpec, labels: set[str] | None, entrants: set[str] | None,
                  stored: bool) -> str | None:
    """What in a game's place (its ``schedule`` field or its id) the store cannot hold or the tables
    cannot fold, or None: a tournament name no id can carry, a number beyond SQLite's integers, units
    that are not names, a variant label or a player its tournament does not have (the tables would
    count the game for some of its players and not the others). ``stored``: the tournament is one
    already in the store, not one of this file's headers (another name is then the way out)."""
    why = tournament_name_problem(spec.tournament)
    if why:
        return f"schedule.tournament: {why}"
    for key in ("variant_index", "round", "table", "deal", "rotation"):
        value = getattr(spec, key)
        if not 0 <= value < _INT_MAX:
            return f"schedule.{key}: must be an integer in [0, 2^63), not {value}"
    if not all(isinstance(u, str) for u in spec.units) or not spec.units:
        return f"schedule.units: must be a list of entrant names, not {list(spec.units)!r}"
    if labels is not None and spec.variant not in labels:
        return (f"schedule.variant: {spec.variant!r} is not a variant of tournament {spec.tournament!r} "
                f"(its variants: {', '.join(sorted(labels))})")
    if entrants is not None:
        strangers = [p for p in dict.fromkeys((*spec.units, *spec.seats)) if p not in entrants]
        if strangers:
            return (f"players {', '.join(map(repr, strangers))}: not entrants of tournament {spec.tournament!r} "
                    f"(its entrants: {', '.join(sorted(entrants))}"
                    + ("; -t NAME imports into another tournament)" if stored else ")"))[:400]
    return None


def _write_tournaments(store: Store, seen: _Seen, path: str | Path) -> None:
    """Create the tournaments the import brought (from their headers, else a minimal config the
    leaderboard can read), mark each finished when it holds every game it planned, and fold each one's
    tables anew."""
    for name, variants in seen.variants.items():
        if store.tournament(name) is None:
            header = seen.headers.get(name)
            if header is not None:  # checked as it was read (_checked_header)
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
        # the plan: a plan already stored stays; else the header's (an interrupted run's export says how
        # many games its schedule holds); else the tournament is whole: it planned the games it holds
        planned = seen.headers[name].get("planned") if name in seen.headers else None
        store.db.execute("INSERT OR IGNORE INTO plans (tournament, planned) SELECT ?, MAX(COUNT(*), COALESCE(?, 0)) "
                         "FROM games WHERE tournament = ?", (name, planned, name))
        # finished only when every planned game is stored: a partial tournament stays resumable by `tute run`
        store.db.execute("UPDATE tournaments SET finished = COALESCE(finished, ?) WHERE name = ? AND "
                         "(SELECT COUNT(*) FROM games WHERE tournament = ?) >= "
                         "(SELECT planned FROM plans WHERE tournament = ?)", (time.time(), name, name, name))
        refold(store, name)


#: the fields of an entrant in a tournament header (the store's ``entrants`` rows)
_ENTRANT_FIELDS = {"name": str, "bot": str, "plugin": str, "version": str, "params": dict}


def _checked_header(header: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """A tournament header line, refused (ArchiveError naming ``where``) unless the leaderboard, verify
    and a resumed run can read what it would store: its config is checked by the same checker as
    tournament.toml (the bots are not looked up: the games are played already), its entrants must be
    the store's rows, ``planned`` a count."""
    config = header.get("config")
    if not isinstance(config, dict):
        raise ArchiveError([f"{where}: tournament header: config: expected an object, got {config!r}"[:300]])
    # the name is not the checker's to judge: a league's seasons are named club/s1 (the ids say where
    # a game sits, and each record's id is checked); "imported" is the mark of import's own configs
    identity = {k: v for k, v in dict(config, name="checked").items() if k != "imported"}
    try:
        data = TournamentConfig.data_of_identity(identity)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        why = f"missing key {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise ArchiveError([f"{where}: tournament header: config: not a tournament's config ({why})"[:300]]) from None
    try:
        parse_config(data, source=f"{where}: tournament header config", base=base, bots=False)
    except ConfigError as exc:
        lines = str(exc).splitlines()
        raise ArchiveError([lines[0] + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else "")]) from None
    entrants = header.get("entrants", [])
    if not isinstance(entrants, list):
        raise ArchiveError([f"{where}: tournament header: entrants: expected a list, got {entrants!r}"[:300]])
    for i, e in enumerate(entrants):
        if not (isinstance(e, dict) and e.keys() == _ENTRANT_FIELDS.keys()
                and all(isinstance(e[k], t) for k, t in _ENTRANT_FIELDS.items())):
            raise ArchiveError([f"{where}: tournament header: entrants[{i}]: expected an object of "
                                f"{', '.join(_ENTRANT_FIELDS)}, got {e!r}"[:300]])
    planned = header.get("planned")
    if planned is not None and not (type(planned) is int and 0 <= planned < 2 ** 63):
        raise ArchiveError([f"{where}: tournament header: planned: must be a count of games, not {planned!r}"[:300]])
    if not isinstance(header.get("config_hash", ""), str):
        raise ArchiveError([f"{where}: tournament header: config_hash: expected a string"])
    return header


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
            except (ReplayError, ValueError, KeyError, TypeError, AttributeError) as exc:
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
