"""Typed reads of TOML tables with one-line errors: the config checker of tournaments and leagues.

``tournament.toml`` and ``league.toml`` are both read through a ``Checker``, so every error has the same
form, ``FILE: key.path: what is wrong``, and names refused in one are refused in the other.
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar

from arena.record_schema import CONTROL

T = TypeVar("T")


def id_unsafe(name: str, slash: bool = True) -> bool:
    """Whether ``name`` holds what a game id, a path made of names, cannot: '/' (unless not ``slash``,
    for names made of parts) or any whitespace (U+00A0 and U+3000 as much as a space)."""
    return any(ch.isspace() or (slash and ch == "/") for ch in name)


#: the longest name (of a tournament, entrant, variant label): it is part of every game id
NAME_MAX = 100
#: the longest message an error carries after the file, line and key
MESSAGE_MAX = 300


class ConfigError(ValueError):
    """A config problem; the message is the one line the user sees (file: key: what is wrong)."""


class Checker:
    """Typed reads of one TOML table, each error prefixed with the file, the line where the key stands
    (when the file's text is known) and the key path: ``tournament.toml:12: entrants[2].bot: ...``.

    ``collect`` runs one independent check and keeps its error instead of stopping, so that a file's
    every problem is reported at once (``done`` raises them together, one per line)."""

    def __init__(self, source: str, text: str | None = None) -> None:
        self.source = source
        self.lines = key_lines(text) if text is not None else {}
        #: a file the user wrote, not a config read back from a store: some checks added since refuse
        #: only such a file, so that a stored tournament played under the older rule still reads
        self.from_text = text is not None
        self.errors: list[str] = []

    def fail(self, key: str, message: str, at: str | None = None) -> ConfigError:
        """``key``'s error, at the line of ``at`` (a key within it, where the message names one) or its own."""
        if len(message) > MESSAGE_MAX:  # a value quoted whole would flood the screen: one readable line
            message = message[:MESSAGE_MAX - 3] + "..."
        line = self.line_of(at or key)
        where = f"{self.source}:{line}" if line else self.source
        return ConfigError(f"{where}: {key}: {message}" if key else f"{where}: {message}")

    def line_of(self, key: str) -> int | None:
        """The line of ``key`` (``entrants[2].bot``), or of the nearest enclosing key or table found."""
        path = key
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None

    def collect(self, check: Callable[[], T], default: T) -> T:
        """Run ``check``; on a ConfigError keep its message, return ``default`` and go on."""
        try:
            return check()
        except ConfigError as exc:
            self.errors.append(str(exc))
            return default

    def done(self) -> None:
        """Raise every error collected, one per line (the first is the one a quick look needs)."""
        if self.errors:
            raise ConfigError("\n".join(dict.fromkeys(self.errors)))

    def table(self, data: Any, where: str, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(where, f"expected a table, got {_tname(data)}")
        for key in data:
            if key not in allowed:
                raise self.fail(_join(where, key), f"unknown key (known: {', '.join(sorted(allowed))})")
        return data

    def get(self, data: dict[str, Any], where: str, key: str, kind: type | tuple[type, ...], default: Any = ...,
            ) -> Any:
        path = _join(where, key)
        if key not in data:
            if default is ...:
                raise self.fail(path, "missing")
            return default
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise self.fail(path, f"expected {_kname(kinds)}, got boolean {value!r}")
        if not isinstance(value, kinds):
            raise self.fail(path, f"expected {_kname(kinds)}, got {_tname(value)} {clip(value)}")
        return value

    def name(self, value: str, path: str) -> str:
        if not value or id_unsafe(value):
            raise self.fail(path, f"{clip(value)} must be non-empty, without '/' or spaces (it is part of game ids)")
        if CONTROL.search(value):
            raise self.fail(path, f"{clip(value)} must not hold control characters")
        if len(value) > NAME_MAX:
            raise self.fail(path, f"{clip(value)} is longer than {NAME_MAX} characters")
        return value


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def clip(value: Any, limit: int = 80) -> str:
    """A value as an error message shows it: its repr, cut to ``limit`` characters (a 100,000-character
    value is still one readable line)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _tname(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(value), type(value).__name__)


def _kname(kinds: tuple[type, ...]) -> str:
    return " or ".join({bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
                        dict: "table"}.get(k, k.__name__) for k in kinds)


_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"]+)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")


def key_lines(text: str) -> dict[str, int]:
    """Where each key stands in a TOML text, by the key path the checker names (``rating.tau``,
    ``entrants[2].bot``, ``entrants[2]`` for the table itself): a line scan of headers and ``key =``
    lines, enough for error messages (a key inside an inline table maps to the line of the table's key)."""
    out: dict[str, int] = {}
    counts: dict[str, int] = {}
    prefix = ""
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        m = _HEADER.match(line)
        if m:
            name = m.group(2).replace('"', "")
            if m.group(1) == "[[":
                i = counts.get(name, 0)
                counts[name] = i + 1
                prefix = f"{name}[{i}]"
            else:
                parts = name.split(".")
                if parts[0] in counts:  # [variants.options] under the last [[variants]]
                    prefix = ".".join([f"{parts[0]}[{counts[parts[0]] - 1}]", *parts[1:]])
                else:
                    prefix = name
            out.setdefault(prefix, number)
            continue
        m = _KEY.match(line)
        if m:
            key = m.group(1).strip('"')
            out.setdefault(f"{prefix}.{key}" if prefix else key, number)
    return out
