"""Moving games between stores and files: export to JSON lines, import with full checking, verify.

An export is JSON lines: for each tournament a header line (``format: tute-arena/tournament-1``, its
config and entrants), then its game records (``tute-arena/1``; a variant played by the match stores
``tute-arena-match/1`` records holding the deals), each with a ``schedule`` field saying where it sits in
the tournament. Readers of plain records skip header lines and ignore the field.
Import checks every line (it parses, its record replays, no id twice or already stored, it fits its
tournament: as stored, else as its header says) while it stores the games in one transaction, and
rolls it back unless all of it is sound: nothing is stored from a file with a bad line, and memory does
not grow with the file (export and verify stream too).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import queue
import re
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator, NamedTuple

from arena import GameRecord, ReplayError, get_variant, replay
from arena.match import derive_seed
from arena.matchplay import MatchRecord, MatchRule, is_match_json, verify_match
from arena.record_schema import CONTROL, check_record, check_rules, check_seed, text_problem
from arena.variants import Variant, past_presets

from leagues.tournament.checks import NAME_MAX, id_unsafe
from leagues.tournament.config import ConfigError, TournamentConfig, parse_config
from leagues.tournament.leaderboard import keep_fold
from leagues.tournament.lock import LockedError, LockFileError, RunLock
from leagues.tournament.runner import planned_games
from leagues.tournament.schedule import GameSpec
from leagues.tournament.store import EntrantRow, Store, StoreError, game_row

HEADER_FORMAT = "tute-arena/tournament-1"
_ID = re.compile(r"^(?P<t>.+)/(?P<v>[^/]+)/r(?P<r>\d+)/t(?P<tb>\d+)/d(?P<d>\d+)/s(?P<s>\d+)$")


def tournament_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an imported tournament, or None. A config's name has no '/'; an
    import's may (a league's seasons are named club/s1), but never spaces, control characters or
    nothing, which the game ids and the commands that take a name could not carry."""
    if not name or id_unsafe(name, slash=False) or CONTROL.search(name):
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
    """A text file, gzip-compressed when its name ends in .gz. Read, a byte that is not UTF-8 comes
    through escaped (``surrogateescape``) for ``read_lines`` to name its line: the strict decoder
    fails on a chunk of 8 kB, lines past the one it was on."""
    p = str(path)
    errors = "surrogateescape" if mode[0] == "r" else "strict"
    if p.endswith(".gz"):
        # level 6, not gzip's 9: a third of the time for a file 2% larger
        return gzip.open(p, mode, encoding="utf-8", errors=errors, compresslevel=6)  # type: ignore[return-value]
    return open(p, mode[0], encoding="utf-8", errors=errors)


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name} (JSON has no such number)")


def parse_line(line: str) -> Any:
    """One JSON line of a records file; anything that is not JSON (deep nesting included) is a
    ValueError with a one-line reason, never a RecursionError. Python's reader takes NaN and
    Infinity, which no JSON holds: stored, an export would carry them to readers that refuse them."""
    try:
        return json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        # json's messages may end in "at" ("Invalid control character at"): the column follows once
        raise ValueError(f"not JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}") from None
    except RecursionError:
        raise ValueError("not JSON a record can be: nested too deeply") from None


#: what ``surrogateescape`` makes of a byte that is not UTF-8 (valid UTF-8 never decodes to one)
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def read_lines(fh: IO[str], path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of a records file; a byte that is not UTF-8 is one error naming the line
    it is on (a file from ``open_text`` hands such a byte through escaped, and it is found here)."""
    lineno = 0
    try:
        for lineno, line in enumerate(fh, 1):
            if not line.isascii() and _ESCAPED_BYTE.search(line):
                raise ArchiveError([f"{path}:{lineno}: not UTF-8 text ({_utf8_problem(line)})"])
            yield lineno, line
    except UnicodeDecodeError as exc:  # a handle opened strictly: the line is a guess, the chunk's
        raise ArchiveError([f"{path}:{lineno + 1}: not UTF-8 text ({exc.reason})"]) from None
    except (OSError, EOFError) as exc:
        raise ArchiveError([f"{path}: cannot read: {exc}"]) from None


def _utf8_problem(line: str) -> str:
    """What the strict decoder says of a line read with its bad bytes escaped, and where."""
    raw = line.encode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"{exc.reason} at column {len(raw[:exc.start].decode('utf-8', 'replace')) + 1}"
    return "a byte that is not UTF-8"


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
        _, planned, finished = store.progress(name)
        if planned is None:  # a store from before plans were recorded: its config says how many
            planned = planned_of(row.config, store.path.parent)
        if planned is not None:  # an interrupted run's export stays resumable where it is imported
            header["planned"] = planned
        # a match its SPRT decided is finished with fewer games than its plan: said, not counted
        header["finished"] = finished
        yield json.dumps(header, sort_keys=True, separators=(",", ":"))
        for g, gid, text in store.game_records(name):
            if g is None or not text:
                continue  # a damaged row: named by the store, left out
            try:  # the same schema check as every reader: a damaged record is named and left out
                data = parse_line(text)
                MatchRecord.from_json(data) if is_match_json(data) else check_record(data)
            except (ValueError, KeyError, TypeError) as exc:
                store.mark_damaged(gid, name, f"{type(exc).__name__}: {str(exc)[:200]}")
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


class _Place(NamedTuple):
    """Where an imported game sits, and how that was known."""
    spec: GameSpec
    #: "schedule" (its ``schedule`` field), "id" (a tournament game's id) or "file" (neither: a place
    #: after the tournament's stored games is given to it)
    source: str


def _place(rec: GameRecord | MatchRecord, data: dict[str, Any], fallback_tournament: str) -> _Place:
    """Where an imported game sits: its ``schedule`` field, else what its id says, else after the games
    its tournament holds (``_Tournament.next_deal``; the ``deal`` here is a placeholder). A game of
    neither kind (``tute play --records``) is stored as ``{tournament}/{its id}``: its id (``play/7/0``)
    says only the seed and the deal, so the games of two such files, of two variants or of other bots,
    into two tournaments would otherwise take the same ids. Raises ValueError naming a schedule field
    that is missing or of the wrong type (never coerced: ``round: 1.7`` is not round 1)."""
    if isinstance(rec, MatchRecord):
        gid, dealer = rec.id, rec.first_dealer
    else:
        gid, dealer = rec.id, rec.dealer
    seed, seats = int(rec.seed or 0), tuple(rec.seats)
    units = tuple(dict.fromkeys(seats))
    if "schedule" in data:
        sched = data["schedule"]
        if not isinstance(sched, dict):
            raise ValueError(f"schedule: expected an object, got {_shown(sched)}")
        ints = {key: _schedule_int(sched, key) for key in ("variant_index", "round", "table", "deal", "rotation")}
        return _Place(GameSpec(id=gid, tournament=_schedule_str(sched, "tournament"),
                               variant=_schedule_str(sched, "variant"), seed=seed, dealer=dealer, seats=seats,
                               units=_schedule_units(sched), **ints), "schedule")
    m = _ID.match(gid)
    if m:
        return _Place(GameSpec(id=gid, tournament=m["t"], variant=m["v"], variant_index=0, round=int(m["r"]),
                               table=int(m["tb"]), deal=int(m["d"]), rotation=int(m["s"]), seed=seed,
                               dealer=dealer, seats=seats, units=units), "id")
    return _Place(GameSpec(id=gid, tournament=fallback_tournament, variant=rec.variant, variant_index=0, round=0,
                           table=0, deal=0, rotation=0, seed=seed, dealer=dealer, seats=seats, units=units), "file")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _schedule_field(sched: dict[str, Any], key: str) -> Any:
    if key not in sched:
        raise ValueError(f"schedule.{key}: missing")
    return sched[key]


def _schedule_int(sched: dict[str, Any], key: str) -> int:
    value = _schedule_field(sched, key)
    if type(value) is not int or not 0 <= value < _INT_MAX:  # bools and 1.7 are not places
        raise ValueError(f"schedule.{key}: must be an integer in [0, 2^63), not {_shown(value)}")
    return value


def _schedule_str(sched: dict[str, Any], key: str) -> str:
    value = _schedule_field(sched, key)
    if not isinstance(value, str):
        raise ValueError(f"schedule.{key}: must be a string, not {_shown(value)}")
    return value


def _schedule_units(sched: dict[str, Any]) -> tuple[str, ...]:
    value = _schedule_field(sched, "units")
    if not (isinstance(value, list) and value and all(isinstance(u, str) for u in value)):
        raise ValueError(f"schedule.units: must be a list of entrant names, not {_shown(value)}")
    return tuple(value)


class _Label(NamedTuple):
    """One variant of a tournament as its games must fit it."""
    #: its place in the config's variants (a game's ``variant_index``)
    number: int
    rules: Variant
    #: ``unit = "match"``: the rule each game is played to; None: each game is a single deal
    match: MatchRule | None
    #: the options the config sets over its preset (None: the rules come from the games themselves)
    overrides: dict[str, Any] | None = None
    #: the rules were fixed by the label's first game, not by today's preset (see ``_Tournament.fit``)
    pinned: bool = False


def _labels_of(config: dict[str, Any]) -> dict[str, _Label]:
    """A tournament config's variants by label, as the games it plays are made (``VariantConfig``:
    the preset with the options over it, the match rule with its cap). Raises ValueError/KeyError/
    TypeError for a config that does not say them."""
    labels: dict[str, _Label] = {}
    for i, v in enumerate(config["variants"]):
        rules = get_variant(v["preset"], **v.get("options", {}))
        match = None
        if v.get("unit") == "match":
            cap = v.get("match_max_deals", 200)
            match = MatchRule.parse(v["match"], cap) if v.get("match") is not None else MatchRule.default(rules)
            match = MatchRule(match.kind, match.target, cap)
        labels[str(v["label"])] = _Label(i, rules, match, dict(v.get("options", {})))
    return labels


def _rules_json(v: Variant) -> str:
    """Rules as one text to compare: the preset's name and every option, typed (1 is not true)."""
    return json.dumps([v.name, v.options()], sort_keys=True)


def _rules_difference(want: _Label, rec: GameRecord | MatchRecord) -> str | None:
    """How a record's rules differ from its variant's, or None."""
    got = rec.rules()
    if got.name != want.rules.name:
        return f"the record plays {got.name}, the variant is {want.rules.name}"
    if _rules_json(got) != _rules_json(want.rules):
        mine, theirs = got.options(), want.rules.options()
        diff = [f"{k} = {json.dumps(mine.get(k))} (the variant's: {json.dumps(theirs.get(k))})"
                for k in sorted(set(mine) | set(theirs)) if json.dumps(mine.get(k)) != json.dumps(theirs.get(k))]
        return "the record has " + ", ".join(diff[:3]) + (f" and {len(diff) - 3} more" if len(diff) > 3 else "")
    rule = rec.rule if isinstance(rec, MatchRecord) else None
    if rule != want.match:
        return f"the record is {_unit(rule)}, the variant plays {_unit(want.match)}"
    return None


def _unit(rule: MatchRule | None) -> str:
    return "a single deal" if rule is None else f"a match of {rule.text} (at most {rule.max_deals} deals)"


@dataclass
class _Tournament:
    """What the games of one tournament must fit, fixed by the first line of the file that names it:
    the tournament as stored (a header must then say the same config), else its header, else its games
    (the first game of a label fixes that label's rules, and any player may play). Kept per tournament,
    never per game."""
    name: str
    #: "stored", "header" or "games"
    source: str
    labels: dict[str, _Label]
    #: the entrants' names, or None where the games' players are its entrants
    entrants: set[str] | None
    #: the checked header line, and its line number
    header: dict[str, Any] | None = None
    header_line: int = 0
    #: games of this file in it, and the players who played them
    games: int = 0
    players: dict[str, None] = field(default_factory=dict)
    #: where the next game without a place goes (``deal`` of round 0, after every stored game)
    next_deal: int | None = None

    @property
    def stored(self) -> bool:
        return self.source == "stored"

    def fit(self, place: _Place, rec: GameRecord | MatchRecord) -> tuple[GameSpec | None, str | None]:
        """The game's place with its variant's index, or a reason the game does not belong here: a
        variant label the tournament does not have, rules other than its label's, a player who is not
        an entrant (the tables would count the game for some of its players and not the others)."""
        spec = place.spec
        label = self.labels.get(spec.variant)
        if label is None and self.source == "games":
            label = self.labels[spec.variant] = _Label(len(self.labels), rec.rules(),
                                                       rec.rule if isinstance(rec, MatchRecord) else None)
        if label is None:
            return None, (f"schedule.variant: {spec.variant!r} is not a variant of tournament {self.name!r} "
                          f"(its variants: {', '.join(sorted(self.labels))})")
        why = _rules_difference(label, rec)
        if why and not label.pinned and label.overrides is not None:
            # a preset whose rules a later version changed (tute-2-8's Tute from the deal): its old games
            # play it as it was. The label's first game fixes which, and every other game must play it too
            for past in past_presets(label.rules.name, **label.overrides):
                if _rules_difference(label._replace(rules=past), rec) is None:
                    label = self.labels[spec.variant] = label._replace(rules=past, pinned=True)
                    why = None
                    break
        elif not why and not label.pinned:  # today's rules, fixed for the label's other games too
            label = self.labels[spec.variant] = label._replace(pinned=True)
        if why:
            what = "stored tournament" if self.stored else "tournament"
            return None, f"rules differ from variant {spec.variant} of {what} {self.name!r}: {why}"
        if place.source != "schedule":
            spec = spec._replace(variant_index=label.number)
        elif spec.variant_index != label.number:
            return None, (f"schedule.variant_index: {spec.variant_index}, but variant {spec.variant} is number "
                          f"{label.number} of tournament {self.name!r}")
        if self.entrants is not None:
            strangers = [p for p in dict.fromkeys((*spec.units, *spec.seats)) if p not in self.entrants]
            if strangers:
                what = "stored tournament" if self.stored else "tournament"
                return None, (f"players {', '.join(map(repr, strangers))}: not entrants of {what} {self.name!r} "
                              f"(its entrants: {', '.join(sorted(self.entrants))}"
                              + ("; -t NAME imports into another tournament)" if self.stored else ")"))
        return spec, None


class _Seen:
    """The tournaments an import meets (a few per file, never per game)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tournaments: dict[str, _Tournament] = {}
        self.locks: dict[str, RunLock] = {}

    def tournament(self, name: str) -> _Tournament:
        """Tournament ``name``'s rules for this import: as stored, else made from its games."""
        t = self.tournaments.get(name)
        if t is None:
            self.lock(name)
            t = self.tournaments[name] = self._stored(name) or _Tournament(name, "games", {}, None)
        return t

    def lock(self, name: str) -> None:
        """Hold ``name``'s run lock until the import ends, as ``tute run`` does: a run beside the import
        would play the games it brings again, fold its own copies into the tables and count them as
        its own. Raises ArchiveError (the import then stores nothing) if a run holds it."""
        if name in self.locks:
            return
        lock = RunLock(self.store.path, name)
        try:
            lock.__enter__()
        except LockedError as exc:
            raise ArchiveError([f"{self.store.path}: tournament {name!r} is being run by another tute (pid "
                                f"{exc.holder}): import its games when the run ends"]) from None
        except LockFileError as exc:
            raise ArchiveError([f"{self.store.path}: {exc}"]) from None
        self.locks[name] = lock

    def release(self) -> None:
        for lock in self.locks.values():
            lock.__exit__()
        self.locks.clear()

    def _stored(self, name: str) -> _Tournament | None:
        row = self.store.tournament(name)
        if row is None:
            return None
        try:
            labels = _labels_of(row.config)
        except (KeyError, TypeError, ValueError) as exc:
            raise ArchiveError([f"{self.store.path}: stored tournament {name!r}: its variants cannot be read "
                                f"({type(exc).__name__}: {exc})"[:400]]) from None
        # a label that has stored games plays their rules (a preset changed since: its games play it as
        # it was), and every game imported into it must play them too
        for label, spec in list(labels.items()):
            try:
                stored = self.store.a_record(name, spec.number)
            except StoreError:
                stored = None  # a damaged record: the check below names the game that does not fit
            if stored is not None:
                labels[label] = spec._replace(rules=stored.rules(), pinned=True)
        entrants = {str(e.get("name")) for e in row.config.get("entrants", []) if isinstance(e, dict)}
        return _Tournament(name, "stored", labels, entrants)

    def header(self, name: str, header: dict[str, Any], lineno: int, where: str) -> None:
        """Take a checked header line: the tournament it names, unless stored already (then it must
        say the stored config: a header never changes a stored tournament) or met already in this file
        (a second header, or one after its games, would change what earlier lines were checked
        against). Raises ArchiveError naming ``where``."""
        t = self.tournaments.get(name)
        if t is None:
            self.lock(name)
            t = self._stored(name)
        if t is not None and t.header is not None:
            raise ArchiveError([f"{where}: tournament header: a second header for tournament {name!r} "
                                f"(the first is line {t.header_line})"])
        config = dict(header["config"], name=name)
        if t is not None and t.stored:
            row = self.store.tournament(name)
            assert row is not None
            if json.dumps(config, sort_keys=True) != json.dumps(dict(row.config, name=name), sort_keys=True):
                raise ArchiveError([f"{where}: tournament header: config differs from stored tournament {name!r} "
                                    f"(config_hash {header.get('config_hash', '')!r}, stored {row.config_hash!r}; "
                                    "-t NAME imports into another tournament)"[:400]])
        elif t is not None:
            raise ArchiveError([f"{where}: tournament header: comes after games of tournament {name!r}: a header "
                                "goes before its games"])
        else:
            entrants = {str(e.get("name")) for e in config.get("entrants", []) if isinstance(e, dict)}
            try:
                labels = _labels_of(config)
            except (KeyError, TypeError, ValueError) as exc:  # the checker passed it: not expected
                raise ArchiveError([f"{where}: tournament header: config: variants: {exc}"[:400]]) from None
            t = _Tournament(name, "header", labels, entrants)
        t.header, t.header_line = header, lineno
        self.tournaments[name] = t


def import_records(path: str | Path, store: Store, tournament: str | None = None, *,
                   skip_existing: bool = False) -> ImportResult:
    """Check every line of ``path`` and store its games, streaming: one transaction, games inserted in
    batches as the file is read, the tables of each tournament folded at the end. If any line is bad
    (it does not parse or replay, its id comes twice or is already stored, it does not fit its
    tournament), the transaction is rolled back, nothing is stored, and ArchiveError lists every
    problem. With ``skip_existing`` a game already stored with the same record is skipped (and counted);
    one stored under the same id with another record is still an error. Memory does not grow with the
    file."""
    problems: list[str] = []
    bad = 0
    out = ImportResult()
    seen = _Seen(store)
    fallback = tournament or "imported"
    try:
        fh = open_text(path)
    except OSError as exc:
        raise ArchiveError([f"{path}: {exc.strerror or exc}"]) from None

    def problem(text: str) -> None:
        nonlocal bad
        bad += 1
        if len(problems) < MAX_PROBLEMS:
            problems.append(text[:400])

    db = store.db
    _say_if_locked(store)
    try:
        with fh, store.transaction():
            db.execute("PRAGMA defer_foreign_keys = ON")  # the tournaments are written after their games
            db.execute("DROP TABLE IF EXISTS temp.import_lines")
            db.execute("CREATE TEMP TABLE import_lines (id TEXT PRIMARY KEY, line INTEGER NOT NULL, "
                       "tournament TEXT NOT NULL, round INTEGER, variant_index INTEGER, tbl INTEGER, deal INTEGER, "
                       "rotation INTEGER)")
            db.execute("CREATE INDEX temp.import_places ON import_lines "
                       "(tournament, round, variant_index, tbl, deal, rotation)")
            batch: list[tuple[Any, ...]] = []
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
                    name = tournament or data.get("name")
                    if not isinstance(name, str):
                        problem(f"{where}: tournament header: name: expected a string, got {_shown(name)}")
                        continue
                    why = tournament_name_problem(name)
                    if why:
                        problem(f"{where}: tournament header: {why}")
                        continue
                    try:
                        seen.header(name, _checked_header(data, where, store.path.parent), lineno, where)
                    except ArchiveError as exc:
                        problem(exc.problems[0])
                    continue
                row = _checked(data, where, store, tournament, fallback, skip_existing, lineno, problem, out, seen)
                if row is None:
                    continue
                batch.append(row)
                if len(batch) >= IMPORT_BATCH:
                    out.stored += store.insert_games(batch)
                    batch = []
            if batch:
                out.stored += store.insert_games(batch)
            if bad:
                more = [f"... and {bad - len(problems)} more"] if bad > len(problems) else []
                raise ArchiveError(problems + more)  # rolls the transaction back: nothing stored
            _write_tournaments(store, seen, path)
    finally:
        seen.release()  # after the transaction ends: a run started next finds the games stored
    return out


def _say_if_locked(store: Store) -> None:
    """Say once on stderr that the import waits for another writer's lock (``tute run`` writing the
    store), instead of waiting its 30 seconds without a word."""
    db = store.db
    timeout = db.execute("PRAGMA busy_timeout").fetchone()[0]
    try:
        db.execute("PRAGMA busy_timeout = 0")
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:  # anything but a lock is the transaction's to say
        if "locked" in str(exc) or "busy" in str(exc):
            print(f"tute: waiting for the store's lock ({store.path} is being written by another process)",
                  file=sys.stderr, flush=True)
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(timeout)}")


def replayed(data: Any) -> GameRecord | MatchRecord:
    """A parsed record (a deal or a match) read and replayed through the referee: import and verify
    both ask it. Raises ReplayError, or ValueError/KeyError/TypeError for a record that is not one."""
    if is_match_json(data):
        for key, kind in (("result", dict), ("deals", list), ("match", dict)):
            if not isinstance(data.get(key), kind):
                raise ValueError(f"{key}: must be a JSON {'object' if kind is dict else 'array'}")
        check_rules(data)
        check_seed(data.get("seed"))
        for key, words in (("rule", "a string"), ("target", "an integer"), ("max_deals", "an integer")):
            value = data["match"].get(key)  # true is not a target of 1
            if (key in data["match"] or key != "max_deals") and type(value) is not (str if key == "rule" else int):
                raise ValueError(f"match.{key}: expected {words}, got {_shown(value)}")
        match = MatchRecord.from_json(data)
        _match_envelope(match)
        verify_match(match, data["result"])  # the result as written, field by field and by JSON type
        return match
    rec = GameRecord.from_json(data)
    replay(rec)
    return rec


def _match_envelope(match: MatchRecord) -> None:
    """What ``verify_match`` does not look at but the store needs: the match's id, seats and first
    dealer, and that its deals are of its rules and seed (its deals carry their own, checked by the
    referee: a match of one variant with deals of another, or of decks not its seed's, is not one)."""
    if not isinstance(match.id, str) or not match.id:
        raise ValueError(f"id: must be a non-empty string, not {match.id!r}")
    problem = text_problem(match.id)  # as a deal's id: it is shown by every listing
    if problem is not None:
        raise ValueError(f"id: {problem}")
    rules = match.rules()
    players = rules.players
    if len(match.seats) != players or not all(isinstance(s, str) for s in match.seats):
        raise ValueError(f"seats: must be {players} entrant names, not {match.seats!r}")
    if not (type(match.first_dealer) is int and 0 <= match.first_dealer < players):
        raise ValueError(f"first_dealer: expected a seat from 0 to {players - 1}, got {_shown(match.first_dealer)}")
    for i, d in enumerate(match.deals):
        if list(d.seats) != list(match.seats):
            raise ValueError("seats: the deals are seated otherwise than the match")
        if _rules_json(d.rules()) != _rules_json(rules):
            raise ValueError(f"deals[{i}]: plays {d.variant} with other options than the match's {match.variant}")
        if match.seed is not None and d.seed != derive_seed("match", match.seed, i):
            raise ValueError(f"deals[{i}]: seed {d.seed} is not the match's deal {i} (derive_seed('match', "
                             f"{match.seed}, {i}))")


def _checked(data: Any, where: str, store: Store, tournament: str | None, fallback: str, skip_existing: bool,
             lineno: int, problem: Callable[[str], None], out: ImportResult,
             seen: _Seen) -> tuple[Any, ...] | None:
    """One record line checked as the import needs it: the store's row, or None (a problem said, or a
    game skipped)."""
    try:
        rec = replayed(data)
    except ReplayError as exc:
        problem(f"{where}: the record is not true to the rules: {exc}")
        return None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        problem(f"{where}: not a game record: {exc!r}")
        return None
    try:
        place = _place(rec, data, fallback)
    except ValueError as exc:
        problem(f"{where}: {exc}")
        return None
    if tournament and tournament != place.spec.tournament:
        old = place.spec.tournament
        moved = place.spec._replace(tournament=tournament)
        if place.source != "file" and moved.id.startswith(old + "/"):  # its id names its tournament too
            moved = moved._replace(id=tournament + moved.id[len(old):])
        place = place._replace(spec=moved)
    why = _spec_problem(place.spec)
    if why:
        problem(f"{where}: {why}")
        return None
    t = seen.tournament(place.spec.tournament)
    spec, why = t.fit(place, rec)
    if spec is None:
        problem(f"{where}: {why}")
        return None
    db = store.db
    if place.source == "file":
        if t.next_deal is None:  # after every game stored: two files of one tournament take two ranges
            t.next_deal = db.execute("SELECT COALESCE(MAX(deal) + 1, 0) FROM games WHERE tournament = ?",
                                     (t.name,)).fetchone()[0]
        spec = spec._replace(deal=t.next_deal, id=f"{t.name}/{rec.id or t.next_deal}")
    earlier = db.execute("SELECT line FROM import_lines WHERE id = ?", (spec.id,)).fetchone()
    if earlier is not None:
        problem(f"{where}: duplicate of line {earlier[0]} (game {spec.id})")
        return None
    data.pop("schedule", None)
    if data.get("id") != spec.id:  # a record without an id is stored under the one made for it
        data["id"] = spec.id
        if isinstance(rec, MatchRecord):  # deal K of a match is MATCH_ID/dK
            for k, deal in enumerate(data["deals"]):
                deal["id"] = f"{spec.id}/d{k}"
    if store.has_game(spec.id):
        if skip_existing and json.loads(store.record_json(spec.id)) == data:
            out.skipped += 1
            return None
        problem(f"{where}: game {spec.id} is already in {store.path}"
                + (" with a different record" if skip_existing else " (--skip-existing skips games stored "
                                                                     "identically)"))
        return None
    place_key = (spec.tournament, spec.round, spec.variant_index, spec.table, spec.deal, spec.rotation)
    taken = db.execute("SELECT 'line ' || line FROM import_lines WHERE tournament = ? AND round = ? AND "
                       "variant_index = ? AND tbl = ? AND deal = ? AND rotation = ?", place_key).fetchone() \
        or db.execute("SELECT 'game ' || id || ' of the store' FROM games WHERE tournament = ? AND round = ? AND "
                      "variant_index = ? AND tbl = ? AND deal = ? AND rotation = ?", place_key).fetchone()
    if taken is not None:  # two games in one place: the tables could not fold them in an order
        problem(f"{where}: schedule: round {spec.round}, variant {spec.variant_index}, table {spec.table}, "
                f"deal {spec.deal}, rotation {spec.rotation} of tournament {spec.tournament!r} is taken by "
                f"{taken[0]}")
        return None
    if place.source == "file":
        t.next_deal = spec.deal + 1
    t.games += 1
    t.players.update(dict.fromkeys(spec.seats))
    db.execute("INSERT INTO import_lines VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (spec.id, lineno, *place_key))
    return game_row(spec, json.dumps(rec.result.to_json(), separators=(",", ":")),
                    json.dumps(data, separators=(",", ":")))


#: SQLite's integers (and so the store's columns and a JSON number it reads back) are 64-bit
_INT_MAX = 2 ** 63


def _spec_problem(spec: GameSpec) -> str | None:
    """What in a game's place (its ``schedule`` field or its id) the store cannot hold, or None: a
    tournament name no id can carry, a number beyond SQLite's integers. (Whether the place fits its
    tournament is ``_Tournament.fit``'s.)"""
    why = tournament_name_problem(spec.tournament)
    if why:
        return f"schedule.tournament: {why}"
    for key in ("variant_index", "round", "table", "deal", "rotation"):
        value = getattr(spec, key)
        if not 0 <= value < _INT_MAX:
            return f"schedule.{key}: must be an integer in [0, 2^63), not {value}"
    return None


def _write_tournaments(store: Store, seen: _Seen, path: str | Path) -> None:
    """Create the tournaments the import brought (from their headers, else a minimal config the
    leaderboard can read), mark each finished when it holds every game it planned, and fold each one's
    tables anew. A fold that fails (what every check above should have refused) is one error naming the
    file, and rolls the import back."""
    for name, t in seen.tournaments.items():
        if not t.games:
            continue
        try:
            _write_tournament(store, t, path)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            if isinstance(exc, ArchiveError):
                raise
            raise ArchiveError([f"{path}: the games of tournament {name!r} cannot be tallied "
                                f"({type(exc).__name__}: {exc})"[:400]]) from None


def _write_tournament(store: Store, t: _Tournament, path: str | Path) -> None:
    name = t.name
    if not t.stored:
        if t.header is not None:  # checked as it was read (_checked_header)
            config = dict(t.header["config"], name=name)
            entrants = [EntrantRow(**e) for e in t.header.get("entrants", [])]
            digest = str(t.header.get("config_hash", ""))
        else:
            config = _minimal_config(name, t.labels, list(t.players))
            entrants = [EntrantRow(e, "imported", "imported", "?", {}) for e in t.players]
            digest = ""
        text = json.dumps(config, sort_keys=True, separators=(",", ":"))
        store.insert_tournament(name, digest or hashlib.sha256(text.encode()).hexdigest()[:16], text, entrants)
    # the plan: a plan already stored stays; else the header's (an interrupted run's export says how
    # many games its schedule holds), or its config's where an older export did not say it (counting
    # the games instead made an interrupted tournament finished); else (no header) the tournament is
    # whole: it planned the games it holds
    planned = None
    if t.header is not None:
        planned = t.header.get("planned")
        if planned is None:
            planned = planned_of(t.header["config"], Path(path).parent)
    store.db.execute("INSERT OR IGNORE INTO plans (tournament, planned) SELECT ?, MAX(COUNT(*), COALESCE(?, 0)) "
                     "FROM games WHERE tournament = ?", (name, planned, name))
    # finished when the export said so (a match its SPRT decided holds fewer games than its plan), or
    # when every planned game is stored: a partial tournament stays resumable by `tute run`
    said = t.header is not None and t.header.get("finished") is True
    store.db.execute("UPDATE tournaments SET finished = COALESCE(finished, ?) WHERE name = ? AND "
                     "(? OR (SELECT COUNT(*) FROM games WHERE tournament = ?) >= "
                     "(SELECT planned FROM plans WHERE tournament = ?))", (time.time(), name, said, name, name))
    keep_fold(store, name)


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
    named = [e.get("name") for e in config.get("entrants", []) if isinstance(e, dict)]
    if entrants and [e["name"] for e in entrants] != named:  # the tables know the config's entrants only
        raise ArchiveError([f"{where}: tournament header: entrants: {[e['name'] for e in entrants]!r} are not the "
                            f"config's entrants {named!r}"[:300]])
    planned = header.get("planned")
    if planned is not None and not (type(planned) is int and 0 <= planned < 2 ** 63):
        raise ArchiveError([f"{where}: tournament header: planned: must be a count of games, not {planned!r}"[:300]])
    if header.get("finished") not in (None, True, False):
        raise ArchiveError([f"{where}: tournament header: finished: must be true or false, not "
                            f"{header['finished']!r}"[:300]])
    if not isinstance(header.get("config_hash", ""), str):
        raise ArchiveError([f"{where}: tournament header: config_hash: expected a string"])
    return header


def planned_of(config: dict[str, Any], base: Path) -> int | None:
    """The games a stored config's schedule holds (``runner.planned_games``), or None where the config
    cannot say (import's own minimal configs, a config this version refuses)."""
    if config.get("imported"):
        return None
    try:
        # the name does not change the count, and a league's seasons (club/s1) are no tournament.toml name
        identity = dict(config, name="planned")
        cfg = parse_config(TournamentConfig.data_of_identity(identity), source="stored config", base=base, bots=False)
        return planned_games(cfg)
    except (ConfigError, KeyError, TypeError, ValueError, AttributeError):
        return None


def _minimal_config(name: str, labels: dict[str, _Label], entrants: list[str]) -> dict[str, Any]:
    """A config the leaderboard can read for games that came without a tournament header: each label
    with the rules its games were played under (every option, so that a later import is checked
    against them) and, for matches, the rule (as ``TournamentConfig.identity`` says it)."""
    variants = [{"label": label, "preset": v.rules.name, "options": v.rules.options(),
                 **({"unit": "match", "match": v.match.text, "match_max_deals": v.match.max_deals} if v.match else {})}
                for label, v in sorted(labels.items(), key=lambda item: item[1].number)]
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
