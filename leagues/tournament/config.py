"""``tournament.toml`` -> a validated, frozen ``TournamentConfig``.

Everything a tournament does follows from this object, so it is checked whole before anything runs:
a bad file must fail in one line that names the file and the key (``tournament.toml: entrants[2].bot:
unknown bot 'x'``) and must not touch the store. The keys are documented in docs/config.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from arena import Variant, VariantError, get_variant
from arena.matchplay import MatchError, MatchRule
from arena.hosting import ISOLATIONS, TRUSTED_DISTRIBUTION, BotLoadError, is_command, load_class, resolve_spec
from arena.record_schema import CONTROL

from leagues.tournament.checks import Checker, ConfigError, clip, key_lines
from leagues.tournament.lock import RunLock
from leagues.tournament.sprt import Sprt, SprtError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 path
    import tomli as tomllib

FORMATS = ("round-robin", "swiss", "match", "gauntlet")
#: the formats that pit entrants two by two in duplicate blocks, with an optional SPRT (docs/match.md)
MATCH_FORMATS = ("match", "gauntlet")
#: the name of the entrant that fills the other seats of 3 to 6 seat variants in a match or gauntlet
FIELD = "field"


@dataclass(frozen=True)
class VariantConfig:
    """One variant of the tournament: a preset plus rule overrides, under a label used in game ids."""
    label: str
    preset: str
    options: Mapping[str, Any]
    variant: Variant
    #: ``unit = "match"``: each game of the schedule is a match under this rule; None: a single deal
    match: MatchRule | None = None

    @property
    def sides(self) -> int:
        """Units at a table: entrants per table (pairs: two sides of two copies each)."""
        return 2 if self.variant.pairs else self.variant.players


@dataclass(frozen=True)
class EntrantConfig:
    """One competitor: a bot (entry point, ``module:Class`` or command list) with its parameters."""
    name: str
    bot: str | tuple[str, ...]
    params: Mapping[str, Any]
    isolation: str = "auto"
    #: a command runs in this folder (the config file's), so its relative paths are taken from there
    cwd: str | None = None

    @property
    def bot_arg(self) -> str | list[str]:
        """The form ``make_player`` takes (a command is a list)."""
        return list(self.bot) if isinstance(self.bot, tuple) else self.bot


@dataclass(frozen=True)
class RatingConfig:
    """TrueSkill environment. ``draw_probability`` None means "fit the variant" (see rating.py)."""
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 0.0
    draw_probability: float | None = None
    k: float = 3.0


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    seed: int
    format: str
    rounds: int | None
    deals: int
    duplicate: bool
    workers: int
    time_limit_ms: int
    memory_mb: int
    store: Path
    log: Path
    max_tables: int
    variants: tuple[VariantConfig, ...]
    entrants: tuple[EntrantConfig, ...]
    rating: RatingConfig = field(default_factory=RatingConfig)
    source: str = "tournament.toml"
    #: match and gauntlet: the entrants each tested against the others (a match: the second entrant)
    challengers: tuple[str, ...] = ()
    #: match and gauntlet: the SPRT that may stop a pairing early (None: play ``deals`` blocks)
    sprt: Sprt | None = None
    #: a Dask scheduler to play on (``tcp://HOST:8786``, or ``local:N``): like ``workers``, not part of
    #: the tournament's identity (leagues/tournament/cluster.py)
    cluster: str | None = None
    #: where entrants' ratings start, per table ("*" every variant, else a label): a league's season
    #: carries them from earlier seasons (leagues/league/rating.py); not a tournament.toml key
    priors: Mapping[str, Mapping[str, tuple[float, float]]] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """What decides the games and the table: workers, paths and the log are left out, so running
        with more workers or moving the store is the same tournament."""
        return {
            "name": self.name, "seed": self.seed, "format": self.format, "rounds": self.rounds,
            "deals": self.deals, "duplicate": self.duplicate, "time_limit_ms": self.time_limit_ms,
            "memory_mb": self.memory_mb, "max_tables": self.max_tables,
            "variants": [{"label": v.label, "preset": v.preset, "options": dict(v.options),
                          **({"unit": "match", "match": v.match.text, "match_max_deals": v.match.max_deals}
                             if v.match else {})} for v in self.variants],
            "entrants": [{"name": e.name, "bot": list(e.bot) if isinstance(e.bot, tuple) else e.bot,
                          "params": dict(e.params), "isolation": e.isolation} for e in self.entrants],
            "rating": {"mu": self.rating.mu, "sigma": self.rating.sigma, "beta": self.rating.beta,
                       "tau": self.rating.tau, "draw_probability": self.rating.draw_probability,
                       "k": self.rating.k},
            **({"challengers": list(self.challengers)} if self.challengers else {}),
            **({"priors": {scope: {n: list(p) for n, p in sorted(ps.items())} for scope, ps in sorted(self.priors.items())}}
               if self.priors else {}),
            **({"sprt": {"elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
                         "beta": self.sprt.beta, "model": self.sprt.model}} if self.sprt else {}),
        }

    @staticmethod
    def data_of_identity(identity: dict[str, Any]) -> dict[str, Any]:
        """The ``tournament.toml`` data that gives back a stored ``identity`` (to rebuild a stored
        tournament's config, e.g. for a match's summary): the inverse of ``identity``."""
        data = {k: v for k, v in identity.items() if v is not None and k not in ("variants", "entrants", "rating",
                                                                               "challengers", "priors")}
        data["variants"] = [{"name": v["preset"], "label": v["label"], "options": v.get("options", {}),
                             **{k: v[k] for k in ("unit", "match", "match_max_deals") if k in v}}
                            for v in identity["variants"]]
        entrants = [dict(e) for e in identity["entrants"]]
        if identity.get("format") in MATCH_FORMATS:
            for e in [e for e in entrants if e["name"] == FIELD]:
                entrants.remove(e)
                data["field"] = e["bot"]
        data["entrants"] = entrants
        data["rating"] = {k: v for k, v in identity["rating"].items() if v is not None}
        if identity.get("format") == "gauntlet":
            data["challengers"] = identity.get("challengers", [])
        return data

    def identity_json(self) -> str:
        return json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))

    def config_hash(self) -> str:
        return hashlib.sha256(self.identity_json().encode()).hexdigest()[:16]

    def variant(self, label: str) -> VariantConfig:
        for v in self.variants:
            if v.label == label:
                return v
        raise KeyError(label)

    def entrant(self, name: str) -> EntrantConfig:
        for e in self.entrants:
            if e.name == name:
                return e
        raise KeyError(name)


# ---------------------------------------------------------------------------------------------- loading
#: the scope of the table over every variant ("*"): no variant's label
POOLED = "*"
TOP_KEYS = {"name", "seed", "format", "rounds", "deals", "duplicate", "workers", "cluster", "time_limit_ms", "memory_mb",
            "store", "log", "max_tables", "variants", "entrants", "rating", "challengers", "field", "sprt"}
SPRT_KEYS = {"elo0", "elo1", "alpha", "beta", "model"}
VARIANT_KEYS = {"name", "label", "options", "unit", "match", "match_max_deals"}
UNITS = ("deal", "match")
ENTRANT_KEYS = {"name", "bot", "params", "isolation"}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "draw_probability", "k"}


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and validate ``path``; every problem raises ConfigError with one line naming file and key."""
    p = Path(path)
    source = str(path)
    text = read_text(p, source)
    return parse_config(toml_loads(text, source), source=source, base=p.resolve().parent, text=text)


#: a UTF-8 byte-order mark: some editors (Windows Notepad) begin a UTF-8 file with one; TOML has no room
#: for it, so it is dropped rather than reported as a syntax error on line 1
BOM = "\ufeff"


def without_bom(text: str) -> str:
    return text[len(BOM):] if text.startswith(BOM) else text


def read_text(path: Path, source: str, hint: str = "") -> str:
    """A config file's text (``tournament.toml`` or ``league.toml``), without a byte-order mark; a file
    that is missing, unreadable or not UTF-8 is one line naming it (``hint`` follows "no such file")."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such file{hint}") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return without_bom(text)


def toml_loads(text: str, source: str) -> dict[str, Any]:
    """``tomllib.loads`` with its failures as one line naming the file: a syntax error, nesting deeper
    than the parser's recursion, and an integer longer than Python converts from text (4,300 digits by
    default), which tomllib raises as a bare ValueError; that one names its line and key too."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: TOML syntax error: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: arrays or tables nested too deeply") from None
    except ValueError as exc:  # int(digits) past sys.get_int_max_str_digits()
        raise _long_integer(text, source, exc) from None


def _long_integer(text: str, source: str, exc: ValueError) -> ConfigError:
    """The error for an integer too long to read: the first run of more digits than Python converts,
    with the key it is the value of (the nearest key at or above its line, as ``Checker`` finds lines)."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300
    found = re.search(rf"(?<![\w.\"'])[+-]?\d(?:_?\d){{{limit},}}", text)
    if found is None:
        return ConfigError(f"{source}: cannot read a number: {exc}")
    line = text.count("\n", 0, found.start()) + 1
    keys = [(n, key) for key, n in key_lines(text).items() if n <= line]
    key = max(keys)[1] if keys else ""
    c = Checker(source, text)
    return c.fail(key, f"an integer of more than {limit} digits, far past any setting's range")


def parse_config(data: dict[str, Any], *, source: str = "tournament.toml",
                 base: Path | None = None, text: str | None = None, bots: bool = True) -> TournamentConfig:
    """Validate parsed TOML; relative paths are taken from ``base`` (the file's folder). Every problem
    of the file is reported at once: each key (and each variant and entrant) is checked on its own and
    the errors are raised together, one line each, with the line the key stands on when ``text`` (the
    file's text) is given. ``bots=False``: the bots are not looked up (an imported tournament's games are
    played already; its bots need not be installed where it is imported), nor counted against the
    tables (records of ``tute play`` may have one bot in every seat)."""
    c = Checker(source, text)
    base = base or Path.cwd()
    c.collect(lambda: c.table(data, "", TOP_KEYS), None)
    name = c.collect(lambda: c.name(c.get(data, "", "name", str), "name"), "?")
    seed = c.collect(lambda: c.get(data, "", "seed", int, 0), 0)
    fmt = c.collect(lambda: _choice(c, data, "format", FORMATS, "round-robin"), "round-robin")
    rounds = c.collect(lambda: check_rounds(c, data, fmt), None)
    deals = c.collect(lambda: within(c, data, "deals", 2, 1, MAX_DEALS), 2)
    duplicate = c.collect(lambda: c.get(data, "", "duplicate", bool, True), True)
    workers = c.collect(lambda: within(c, data, "workers", 0, 0, max_workers(), "0 (one per CPU) or more"), 0)
    cluster = c.collect(lambda: _cluster(c, data), None)
    time_limit_ms = c.collect(lambda: within(c, data, "time_limit_ms", 1000, 1, MAX_TIME_LIMIT_MS), 1000)
    memory_mb = c.collect(lambda: within(c, data, "memory_mb", 1024, 16, MAX_MEMORY_MB), 1024)
    max_tables = c.collect(lambda: at_least(c, data, "max_tables", 200, 1), 200)
    store, log_path = check_files(c, data, base, f"runs/{name}.sqlite")

    entrants = _entrants(c, data, base, bots)
    listed = data.get("entrants")  # the entrants named, valid or not: a bad one is its own error
    # a match's field fills tables; the games of an import are played already, by whoever sat where
    # (``tute play tute-3 random random random``: one entrant in every seat)
    sized = bots and fmt not in MATCH_FORMATS and isinstance(listed, list) and listed
    variants = parse_variants(c, data, len(listed) if sized and isinstance(listed, list) else None)
    rating = c.collect(lambda: _rating(c, data), RatingConfig())
    challengers: tuple[str, ...] = ()
    sprt = None
    if fmt in MATCH_FORMATS:
        # a file's rounds was accepted silently, as if it set something of the match (a config stored
        # by then, read back without its text, still reads)
        if "rounds" in data and c.from_text:
            c.errors.append(str(c.fail("rounds", f"not a key of a {fmt}: its blocks go on until the SPRT decides "
                                                 "or `deals` blocks are played")))
        entrants = c.collect(lambda: _with_field(c, data, entrants, variants, base, bots), entrants)
        challengers = c.collect(lambda: _challengers(c, data, fmt, entrants), ())
        sprt = c.collect(lambda: _sprt(c, data), None)
    else:
        for key in ("challengers", "field", "sprt"):
            if key in data:
                c.errors.append(str(c.fail(key, 'only with format = "match" or "gauntlet"')))
    c.done()
    return TournamentConfig(
        name=name, seed=seed, format=fmt, rounds=rounds, deals=deals, duplicate=duplicate,
        workers=workers, time_limit_ms=time_limit_ms, memory_mb=memory_mb, store=store, log=log_path,
        max_tables=max_tables, variants=variants, entrants=entrants, rating=rating, source=source,
        challengers=challengers, sprt=sprt, cluster=cluster)


def _cluster(c: Checker, data: dict[str, Any]) -> str | None:
    """``cluster``: a Dask scheduler's address (tcp://HOST:PORT, tls://...) or local:N."""
    from leagues.tournament.cluster import address_problem  # no Dask import: that waits for a run

    value = c.get(data, "", "cluster", str, None)
    if value is None:
        return None
    problem = address_problem(value)
    if problem is not None:
        raise c.fail("cluster", f"{clip(value)}: {problem}")
    return value


def _with_field(c: Checker, data: dict[str, Any], entrants: tuple[EntrantConfig, ...],
                variants: tuple[VariantConfig, ...], base: Path, bots: bool = True) -> tuple[EntrantConfig, ...]:
    """A match or gauntlet: ``field`` (a bot) fills the seats of 3 to 6 seat variants beyond A and B; a
    command runs in the config file's folder, as an entrant's does. Where no variant has a seat for it,
    a config to be played refuses it (it would be started, and never play); one read back from a store
    (``bots`` False) still reads."""
    bot = c.get(data, "", "field", str, None)
    wide = [v.label for v in variants if v.sides > 2]
    if any(e.name == FIELD for e in entrants):  # with a field bot or not: the matches leave that name out
        raise c.fail("entrants", f"an entrant is named {FIELD!r}, the field bot's name in a match or gauntlet: "
                                 "rename it")
    if bot is None:
        if wide:
            raise c.fail("field", f"missing: {', '.join(wide)} {'has' if len(wide) == 1 else 'have'} more than two "
                                  "sides; name the bot that fills the other seats (e.g. field = \"greedy\")")
        return entrants
    if not wide and bots:
        raise c.fail("field", "every variant has two sides: no seat is left for a field bot")
    cwd = str(base) if is_command(bot) else None
    try:
        if bots:
            check_bot(bot, cwd)
    except BotLoadError as exc:
        raise c.fail("field", str(exc)) from None
    return entrants + (EntrantConfig(FIELD, bot, {}, "auto", cwd),)


def _challengers(c: Checker, data: dict[str, Any], fmt: str, entrants: tuple[EntrantConfig, ...]) -> tuple[str, ...]:
    players = [e.name for e in entrants if e.name != FIELD]
    named = data.get("entrants")
    listed = named if isinstance(named, list) else []
    if fmt == "match":
        if "challengers" in data:
            raise c.fail("challengers", 'only with format = "gauntlet" (a match tests its second entrant '
                                        "against its first)")
        if len(listed) != 2:
            raise c.fail("entrants", f"a match is between exactly 2 entrants, got {len(listed)}")
        if len(players) != 2:
            return ()  # a bad entrant: its own error says why
        return (players[1],)
    names = c.get(data, "", "challengers", list)
    if not names or not all(isinstance(n, str) for n in names):
        raise c.fail("challengers", "name at least one entrant to test against the others")
    for n in names:
        if n not in players:
            raise c.fail("challengers", f"{n!r} is not an entrant")
    if len(set(names)) == len(players):
        raise c.fail("challengers", "leave at least one entrant as the field to test against")
    return tuple(dict.fromkeys(names))


def _sprt(c: Checker, data: dict[str, Any]) -> Sprt | None:
    if "sprt" not in data:
        return None
    raw = c.table(c.get(data, "", "sprt", dict), "sprt", SPRT_KEYS)
    num = (int, float)
    try:
        return Sprt(float(c.get(raw, "sprt", "elo0", num)), float(c.get(raw, "sprt", "elo1", num)),
                    float(c.get(raw, "sprt", "alpha", num, 0.05)), float(c.get(raw, "sprt", "beta", num, 0.05)),
                    c.get(raw, "sprt", "model", str, "normalized"))
    except SprtError as exc:
        raise c.fail("sprt", str(exc)) from None


def _choice(c: Checker, data: dict[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = c.get(data, "", key, str, default)
    if value not in allowed:
        raise c.fail(key, f"must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


#: the most deals a tournament may ask for, and workers per CPU (a typo must not fork a million processes)
MAX_DEALS = 1_000_000
WORKERS_PER_CPU = 8
#: the longest move limit (a day), for the config and every --time-limit: the hosts wait for a move in
#: calls that overflow beyond 2**31 ms (about 24 days), which made every move a forfeit of the bot
MAX_TIME_LIMIT_MS = 86_400_000
#: the largest address-space limit (1 TiB): RLIMIT_AS takes it on every 64-bit system, while a typo such as
#: 10**22 failed only in the bot's child process, blamed on the bot ("did not start: ... preexec_fn")
MAX_MEMORY_MB = 1_048_576
#: the most rounds (Swiss, or a balanced round robin's subset): a field of n meets whole in n - 1 rounds,
#: so more than this only repeats meetings, and a typo of 100,000 rounds ran until someone killed it
MAX_ROUNDS = 1000


def max_workers() -> int:
    return WORKERS_PER_CPU * (os.cpu_count() or 1)


def within(c: Checker, data: dict[str, Any], key: str, default: int, low: int, high: int, words: str = "",
            where: str = "") -> int:
    """An integer key from ``low`` to ``high`` (``where``: the table it is in, e.g. league.toml's
    ``check``): every count a config gives has a ceiling, so a typo is an error, not a run without end."""
    value = at_least(c, data, key, default, low, words, where)
    if value > high:
        raise c.fail(f"{where}.{key}" if where else key, f"must be at most {high}, not {value}")
    return value


def check_files(c: Checker, data: dict[str, Any], base: Path, default_store: str) -> tuple[Path, Path]:
    """``store`` and ``log`` (relative to ``base``): files a run can create, apart from each other. One
    rule for tournament.toml and league.toml; each key's problem is collected. Checked here, before
    anything is created: a run makes the store (and its folder) before it opens the log."""
    store = base / c.collect(lambda: c.get(data, "", "store", str, default_store), default_store)
    if not store.name or store.name in (".", ".."):
        c.errors.append(str(c.fail("store", f"{clip(str(store))} is not a file name")))
        store = base / "runs" / "store.sqlite"
    log = c.collect(lambda: c.get(data, "", "log", str, None), None)
    if log == "":
        c.errors.append(str(c.fail("log", "empty: a file name, or no log key for the store's own log")))
    log_path = base / log if log else store.with_suffix(".log")
    key = "log" if log else "store"
    before = len(c.errors)
    c.collect(lambda: _writable_file(c, "store", store), None)
    if log or len(c.errors) == before:  # a log named after a bad store is no second problem of the user's
        c.collect(lambda: _log_file(c, key, log_path, store), None)
    return store, log_path


def _log_file(c: Checker, key: str, log: Path, store: Path) -> None:
    """The log's checks in order, the first problem only: a log that is the store is said so, not as
    "exists and is not a tute log"."""
    _apart(c, key, log, store)
    _writable_file(c, key, log, log=True)


#: the files SQLite keeps beside a store, by the suffix of their name
_SQLITE_FILES = {"-wal": "write-ahead log", "-shm": "shared-memory index", "-journal": "rollback journal"}


def _apart(c: Checker, key: str, log: Path, store: Path) -> None:
    problem = store_clash(log, store, "the log")
    if problem is not None:
        same = key != "log" and log.resolve() == store.resolve()  # a log named after the store
        hint = " (the log is the store's name with .log: name the store .sqlite)" if same else ""
        raise c.fail(key, problem + hint)


def store_clash(path: Path, store: Path, what: str) -> str | None:
    """Why a file a command writes (``what``: a run's log, an export, a page) cannot be ``path``, or
    None: it must be a file of its own, not the store (or a link to it), whose pages its lines would
    break; not a folder the store is in, nor under the store (one of them would have to be a file and
    a folder at once); not one of SQLite's files beside the store, nor a run's lock file there."""
    try:
        path_r, store_r = path.resolve(), store.resolve()
    except (OSError, ValueError, RuntimeError):  # a path no file can have: the writer says why
        return None
    if path_r == store_r:
        return f"{path} is the store and {what} at once; give them different files"
    if store_r.is_relative_to(path_r):
        return f"{path} is the store's folder ({store}); name a file for {what}"
    if path_r.is_relative_to(store_r):
        return f"{path} is under the store {store}, a file; name a file beside it"
    if path_r.parent != store_r.parent:
        return None
    for suffix, kind in _SQLITE_FILES.items():
        if path_r.name == store_r.name + suffix:
            return f"{path} is the store's {kind} (SQLite's file beside it); name another file"
    if _is_lock_name(path_r.name, store_r):
        return f"{path} is the name of a run's lock file beside the store; name another file"
    return None


def _is_lock_name(name: str, store: Path) -> bool:
    """Whether ``name`` is the lock file of some tournament of ``store`` (a league's seasons are many):
    the part of ``RunLock``'s name that does not depend on the tournament, taken from two samples, so
    that the lock's naming stays defined in lock.py alone."""
    one, two = RunLock(store, "a").path.name, RunLock(store, "b").path.name
    head = os.path.commonprefix([one, two])
    tail = os.path.commonprefix([one[::-1], two[::-1]])[::-1]
    return len(name) > len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def _writable_file(c: Checker, key: str, path: Path, log: bool = False) -> None:
    """A file the run will create or append to: not a folder, not under a file, a name the file system
    takes; a log that exists must be a log written by tute (nobody's other file gets a run appended)."""
    if CONTROL.search(str(path)):
        raise c.fail(key, f"{clip(str(path))}: a path must not hold control characters")
    if len(path.name.encode()) > 255:
        raise c.fail(key, f"{clip(path.name)}: the name is too long for a file")
    if path.is_dir():
        raise c.fail(key, f"{path} is a folder, not a file")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise c.fail(key, f"{path}: {parent} is a file, not a folder")
    if str(path.resolve()).startswith(("/proc/", "/sys/", "/dev/")):
        raise c.fail(key, f"{path} is not a place for a file")
    if log and path.is_file() and path.stat().st_size:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                first = fh.readline()
        except OSError as exc:
            raise c.fail(key, f"{path}: {exc.strerror or exc}") from None
        if not LOG_LINE.match(first):
            raise c.fail(key, f"{path} exists and is not a tute log; name another file (or delete it)")


#: a line of a run's log: ``2026-12-03 10:00:00,123 Process name LEVEL message``
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


def at_least(c: Checker, data: dict[str, Any], key: str, default: int, low: int, words: str = "",
              where: str = "") -> int:
    """An integer key of at least ``low``, its error worded by ``words`` where "at least" says too little
    (``workers``: "0 (one per CPU) or more")."""
    value = c.get(data, where, key, int, default)
    if value < low:
        raise c.fail(f"{where}.{key}" if where else key, f"must be {words or f'at least {low}'}, not {value}")
    return int(value)


def check_rounds(c: Checker, data: dict[str, Any], fmt: str, what: str = "tournament") -> int | None:
    """``rounds``: required for Swiss (``what`` is a tournament, or a league's season), 1 to MAX_ROUNDS."""
    rounds = c.get(data, "", "rounds", int, None)
    if rounds is not None and rounds < 1:
        raise c.fail("rounds", f"must be at least 1, not {rounds}")
    if rounds is not None and rounds > MAX_ROUNDS:
        raise c.fail("rounds", f"must be at most {MAX_ROUNDS}, not {rounds}")
    if fmt == "swiss" and rounds is None:
        raise c.fail("rounds", f"missing (a Swiss {what} needs its number of rounds)")
    return rounds


def parse_variants(c: Checker, data: dict[str, Any], n_entrants: int | None) -> tuple[VariantConfig, ...]:
    """Every variant table, each checked on its own (its errors collected in ``c``)."""
    items: list[Any] = c.collect(lambda: c.get(data, "", "variants", list), [])
    if not items and "variants" in data and isinstance(data["variants"], list):
        c.errors.append(str(c.fail("variants", "empty: name at least one variant")))
    elif "variants" not in data:
        pass  # "missing", collected above
    out: list[VariantConfig] = []
    for i, item in enumerate(items):
        vc = c.collect(lambda: _variant(c, item, f"variants[{i}]", out, n_entrants), None)
        if vc is not None:
            out.append(vc)
    return tuple(out)


def _variant(c: Checker, item: Any, where: str, before: list[VariantConfig], n_entrants: int | None) -> VariantConfig:
    c.table(item, where, VARIANT_KEYS)
    preset = c.get(item, where, "name", str)
    options = c.get(item, where, "options", dict, {})
    try:
        get_variant(preset)
    except VariantError as exc:
        raise c.fail(f"{where}.name", str(exc)) from None
    try:
        variant = get_variant(preset, **options)
    except VariantError as exc:
        # an option's own error ("hand_size: ...") is said on the line its key stands on
        option = str(exc).partition(": ")[0]
        raise c.fail(f"{where}.options", str(exc), at=f"{where}.options.{option}" if option in options else None) from None
    label = c.name(c.get(item, where, "label", str, preset), f"{where}.label")
    if label == POOLED and c.from_text:
        raise c.fail(f"{where}.label", f"{label!r} names the table of every variant: give this one another label")
    if any(v.label == label for v in before):
        raise c.fail(f"{where}.label", f"{label!r} is used twice (give each variant its own label)")
    vc = VariantConfig(label, preset, dict(options), variant, _match_rule(c, item, where, variant))
    if n_entrants is not None and vc.sides > n_entrants:
        raise c.fail(f"{where}.name", f"{preset} needs {vc.sides} entrants at a table, "
                                      f"the tournament has {n_entrants}")
    return vc


def _match_rule(c: Checker, item: dict[str, Any], where: str, variant: Variant) -> MatchRule | None:
    """``unit = "match"`` with an optional ``match`` rule (default: the variant's usual match) and
    ``match_max_deals``; the match keys without the match unit are an error, not silently ignored."""
    unit = c.get(item, where, "unit", str, "deal")
    if unit not in UNITS:
        raise c.fail(f"{where}.unit", f"must be one of {', '.join(UNITS)}, not {unit!r}")
    text = c.get(item, where, "match", str, None)
    cap = c.get(item, where, "match_max_deals", int, 200)
    if unit == "deal":
        for key in ("match", "match_max_deals"):
            if key in item:
                raise c.fail(f"{where}.{key}", 'needs unit = "match"')
        return None
    try:  # the cap first, on the variant's usual rule: its error names its own key, not ``match``
        dataclasses.replace(MatchRule.default(variant), max_deals=cap)
    except MatchError as exc:
        raise c.fail(f"{where}.match_max_deals", str(exc)) from None
    try:
        rule = MatchRule.parse(text, cap) if text is not None else MatchRule.default(variant)
        rule = MatchRule(rule.kind, rule.target, cap)
        rule.check(variant)
    except MatchError as exc:
        raise c.fail(f"{where}.match", str(exc)) from None
    if rule.kind == "deals" and rule.target > cap and c.from_text:  # every match would end at the cap
        raise c.fail(f"{where}.match", f"{rule.text} is longer than match_max_deals = {cap}: raise the cap")
    return rule


def _entrants(c: Checker, data: dict[str, Any], base: Path, bots: bool = True) -> tuple[EntrantConfig, ...]:
    """Every entrant table, each checked on its own (its errors collected in ``c``)."""
    items: list[Any] = c.collect(lambda: c.get(data, "", "entrants", list), [])
    if bots and "entrants" in data and isinstance(data["entrants"], list) and len(items) < 2:
        c.errors.append(str(c.fail("entrants", f"a tournament needs at least 2 entrants, got {len(items)}")))
    out: list[EntrantConfig] = []
    for i, item in enumerate(items):
        e = c.collect(lambda: _entrant(c, item, f"entrants[{i}]", out, base, bots), None)
        if e is not None:
            out.append(e)
    return tuple(out)


def _entrant(c: Checker, item: Any, where: str, before: list[EntrantConfig], base: Path,
             bots: bool = True) -> EntrantConfig:
    c.table(item, where, ENTRANT_KEYS)
    name = c.name(c.get(item, where, "name", str), f"{where}.name")
    if any(e.name == name for e in before):
        raise c.fail(f"{where}.name", f"{name!r} is used twice")
    bot = c.get(item, where, "bot", (str, list))
    if isinstance(bot, list):
        if not bot or not all(isinstance(a, str) for a in bot):
            raise c.fail(f"{where}.bot", "a command must be a non-empty array of strings")
        bot = tuple(bot)
    params = c.get(item, where, "params", dict, {})
    _json_only(c, params, f"{where}.params")
    isolation = c.get(item, where, "isolation", str, "auto")
    if isolation not in ISOLATIONS:
        raise c.fail(f"{where}.isolation", f"must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
    # a command (an array, or a string with a space or a path) runs beside the config file, whatever
    # folder tute runs in; a plugin is found by its name, anywhere
    cwd = str(base) if isinstance(bot, tuple) or is_command(bot) else None
    try:
        if bots:
            check_bot(bot, cwd)
    except BotLoadError as exc:
        raise c.fail(f"{where}.bot", str(exc)) from None
    return EntrantConfig(name, bot, dict(params), isolation, cwd)


def _json_only(c: Checker, value: Any, path: str) -> None:
    """Refuse a value JSON cannot carry (a TOML date or time, nan, inf), naming its key: a bot's params
    are stored and sent to bots as JSON, and such a value failed only when the run stored them."""
    if isinstance(value, dict):
        for key, item in value.items():
            _json_only(c, item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _json_only(c, item, f"{path}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise c.fail(path, f"{value!r} is not a JSON number")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        raise c.fail(path, f"a {type(value).__name__} ({clip(str(value))}) is not a JSON value: "
                           "quote it as a string")


def _rating(c: Checker, data: dict[str, Any]) -> RatingConfig:
    raw = c.table(c.get(data, "", "rating", dict, {}), "rating", RATING_KEYS)
    num = (int, float)
    r = RatingConfig(
        mu=float(c.get(raw, "rating", "mu", num, 25.0)),
        sigma=float(c.get(raw, "rating", "sigma", num, 25.0 / 3)),
        beta=float(c.get(raw, "rating", "beta", num, 25.0 / 6)),
        tau=float(c.get(raw, "rating", "tau", num, 0.0)),
        draw_probability=_opt_float(c.get(raw, "rating", "draw_probability", num, None)),
        k=float(c.get(raw, "rating", "k", num, 3.0)))
    for key in ("mu", "sigma", "beta", "tau", "k"):
        check_sensible(c, f"rating.{key}", getattr(r, key))
    for key in ("sigma", "beta"):
        if getattr(r, key) <= 0:
            raise c.fail(f"rating.{key}", "must be positive")
    if r.tau < 0:
        raise c.fail("rating.tau", "must not be negative")
    if r.draw_probability is not None and not 0 <= r.draw_probability < 1:
        raise c.fail("rating.draw_probability", f"must be in [0, 1), not {r.draw_probability}")
    return r


def check_sensible(c: Checker, key: str, value: float) -> None:
    """A rating number must be finite and of sensible size: nan, inf or 1e308 would only fail later,
    inside TrueSkill or a report. league.toml's ``[rating]`` is checked by this one rule too."""
    if not math.isfinite(value) or abs(value) > 1e6 or (value != 0 and abs(value) < 1e-6):
        raise c.fail(key, f"must be a finite number of sensible size (1e-6 to 1e6), not {value!r}")


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def check_bot(bot: str | tuple[str, ...], cwd: str | None = None) -> str:
    """Resolve a bot name without starting it: an entry point must be installed, ``module:Class``
    importable, a command's program present (relative to ``cwd``). Returns the bot's version text."""
    spec = resolve_spec(list(bot) if isinstance(bot, tuple) else bot, cwd=cwd)
    if spec.kind == "module":
        load_class(bot if isinstance(bot, str) else "")
    if spec.kind == "entrypoint" and spec.origin == TRUSTED_DISTRIBUTION:
        # the built-in bots say when their play changed (``revision``, held to their play by
        # tests/test_bot_revisions.py): a resumed tournament must not mix two versions' games, and a
        # release of tute-arena that leaves them playing alike must not stop it either
        revision = getattr(load_class(str(spec.target)), "revision", None)
        if revision is not None:
            return f"{spec.origin} r{revision}"
    return f"{spec.origin} {spec.version}".strip()
