"""Typed reads of TOML tables with one-line errors: the config checker of tournaments and leagues.

``tournament.toml`` and ``league.toml`` are both read through a ``Checker``, so every error has the same
form, ``FILE: key.path: what is wrong``, and names refused in one are refused in the other.
"""

from __future__ import annotations

from typing import Any

#: characters refused in names, because game ids are paths made of them
ID_UNSAFE = set("/ \t\n")


class ConfigError(ValueError):
    """A config problem; the message is the one line the user sees (file: key: what is wrong)."""


class Checker:
    """Typed reads of one TOML table, each error prefixed with the file and the key path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {key}: {message}" if key else f"{self.source}: {message}")

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
            raise self.fail(path, f"expected {_kname(kinds)}, got {_tname(value)} {value!r}")
        return value

    def name(self, value: str, path: str) -> str:
        if not value or any(ch in ID_UNSAFE for ch in value):
            raise self.fail(path, f"{value!r} must be non-empty, without '/' or spaces (it is part of game ids)")
        return value


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _tname(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(value), type(value).__name__)


def _kname(kinds: tuple[type, ...]) -> str:
    return " or ".join({bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
                        dict: "table"}.get(k, k.__name__) for k in kinds)
