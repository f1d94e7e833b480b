"""Compact JSON text for the hot paths (protocol messages, game records), built from pieces.

``json.dumps`` builds a new encoder on every call and walks every small list item by item; a view or
a record is mostly flat lists of short strings and ints, which joining does several times faster. Every
function here returns exactly what ``json.dumps(x, separators=(",", ":"))`` returns for the same value
(the tests compare them), so readers never see the difference.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as quote
from typing import Any, Callable, Iterable

try:
    from json.encoder import c_make_encoder  # type: ignore[attr-defined]  # CPython's C accelerator
except ImportError:  # pragma: no cover - interpreters without the C accelerator
    c_make_encoder = None


def _unserializable(o: Any) -> Any:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _compact_encoder() -> Callable[[Any], str]:
    """``json.dumps(value, separators=(",", ":"))`` with the C encoder built once instead of per call
    (no check for circular containers: only plain data built here is passed)."""
    if c_make_encoder is None:  # pragma: no cover
        return json.JSONEncoder(separators=(",", ":")).encode
    chunks = c_make_encoder(None, _unserializable, quote, None, ":", ",", False, False, True)

    def compact(value: Any) -> str:
        if isinstance(value, str):
            return quote(value)
        return "".join(chunks(value, 0))
    return compact


compact = _compact_encoder()


def strs(xs: Iterable[str]) -> str:
    """A JSON array of strings."""
    return "[" + ",".join(map(quote, xs)) + "]"


def ints(xs: Iterable[int]) -> str:
    """A JSON array of ints (plain ints: a bool would print as ``True``)."""
    return "[" + ",".join(map(str, xs)) + "]"


__all__ = ["compact", "quote", "strs", "ints"]
