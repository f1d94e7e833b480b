"""The engine protocol: JSON lines over a bot's stdin/stdout, so a bot can be written in any language.

One JSON object per line, UTF-8, ``\\n`` terminated (docs/protocol.md has the full description and an
example exchange). Referee to bot::

    {"type": "hello", "protocol": 1}
    {"type": "new_game", ...game info...}
    {"type": "act", "view": {...PlayerView.to_json()...}, "legal": ["play 1o", ...], "time_ms": 1000}
    {"type": "game_over", "result": {...GameResult.to_json()...}}
    {"type": "quit"}

Bot to referee: ``{"type": "hello", "name": "..."}`` once, after the hello, and ``{"action": "play 1o"}``
after each ``act``: nothing else. A bot may answer either with ``{"type": "error", "message": "..."}`` to
say it failed (the referee scores it as a crash with that message).

This module is shared by both ends: the referee's hosts encode views here, and ``arena.hosting.child``
(the Python end) decodes them back into a ``PlayerView``. Both directions are on the hot path of every
isolated decision, so the view is encoded by hand (same JSON as ``json.dumps(view.to_json())``, with the
finished tricks cached between decisions) and decoded with per-game caches.
"""

from __future__ import annotations

import json
from typing import Any

from .jsontext import strs
from .public import TRICKS
from .variants import Variant, VariantError, get_variant
from .view import PlayerView, variant_keys, view_from_dict, view_json

PROTOCOL_VERSION = 1

HELLO = json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION}, separators=(",", ":")).encode() + b"\n"
QUIT = b'{"type":"quit"}\n'


class ProtocolError(ValueError):
    """A message that does not follow the protocol; the text says what was wrong, quoting the input."""


def dumps_line(message: dict[str, Any]) -> bytes:
    """One protocol line: compact JSON plus ``\\n`` (``ensure_ascii`` keeps it one line whatever the text)."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def new_game_message(info: dict[str, Any]) -> bytes:
    msg = {"type": "new_game"}
    msg.update(info)
    return dumps_line(msg)


def game_over_message(result: dict[str, Any]) -> bytes:
    return dumps_line({"type": "game_over", "result": result})


def _short(raw: bytes | str, limit: int = 200) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def parse_answer(line: bytes) -> Any:
    """The ``action`` of a bot's answer line. Not JSON, not an object, no ``action``: ProtocolError.

    The action is returned as sent (a non-string included): whether it is a legal action string is the
    referee's question, answered by ``play_game``.
    """
    return parse_answer_request(line)[0]


def parse_answer_request(line: bytes) -> tuple[Any, Any]:
    """The ``action`` of an answer line and the ``request`` number it echoes (None when it echoes none)."""
    return parse_answer_fields(line)[:2]


def parse_answer_fields(line: bytes) -> tuple[Any, Any, Any]:
    """``parse_answer_request``, and the ``clock_stops`` the answer reports (None when it reports none):
    the bot's own count of its decisions its clock ended (docs/protocol.md)."""
    if line.startswith(b'{"action":"') and line.endswith(b'"}') and line.count(b'"') == 4 and b"\\" not in line:
        try:  # the common answer, exactly as most JSON libraries write it
            return line[11:-2].decode(), None, None
        except UnicodeDecodeError:
            pass
    try:
        msg = _ANSWER.decode(line.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"answer is not JSON: {_short(line)} (an answer is one JSON object on one line, "
                            "not printed over several)") from None
    except RecursionError:
        raise ProtocolError(f"answer is nested too deeply to read: {_short(line)}") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"answer is not a JSON object: {_short(line)}")
    if "action" in msg:
        return msg["action"], msg.get("request"), msg.get("clock_stops")
    if msg.get("type") == "error":
        raise BotReportedError(str(msg.get("message", ""))[:1000])
    raise ProtocolError(f"answer has no 'action': {_short(line)}")


def _json_int(text: str) -> int | float:
    """An integer of an answer: past 30 digits no field of the protocol means it, and past 4,300 Python
    would refuse the whole line, so it reads as infinity (no request number, no ``clock_stops``)."""
    return int(text) if len(text) <= 30 else float("inf")


#: made once: ``json.loads`` with a keyword builds a decoder per call, a third of a plugin's pipe overhead
_ANSWER = json.JSONDecoder(parse_int=_json_int)


#: the largest ``clock_stops`` taken as a report: past it (a bot's nonsense), none; 2^53 is exact in
#: every language's JSON numbers
MAX_STOPS = 2**53


def stops_value(n: Any) -> int | None:
    """A reported ``clock_stops`` as an int, or None: an integer (not a bool) from 0 to ``MAX_STOPS``;
    any other value is no report (ignored, never a forfeit)."""
    if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_STOPS:
        return int(n)
    return None


class BotReportedError(Exception):
    """The bot said it failed (``{"type": "error"}``): scored as a crash with its message."""


def parse_hello(line: bytes) -> str:
    """The bot's name from its hello line."""
    try:
        msg = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"hello is not JSON: {_short(line)}") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"hello is not a JSON object: {_short(line)}")
    if msg.get("type") == "error":
        raise BotReportedError(str(msg.get("message", ""))[:1000])
    if msg.get("type") != "hello":
        raise ProtocolError(f"expected {{\"type\": \"hello\", ...}}, got {_short(line)}")
    return str(msg.get("name") or "")


# ------------------------------------------------------------------------------------- encoding
class ViewEncoder:
    """Encodes views as protocol JSON (``arena.view.view_json``, field by field from
    ``arena.public.FIELDS``). One per host: it remembers the last finished-tricks tuple (which only
    grows within a deal), the variant's constant keys and recent legal lists, so a decision costs only
    what changed."""

    __slots__ = ("_tricks", "_tricks_parts", "_tricks_json", "_variant", "_variant_json", "_legal_cache")

    def __init__(self) -> None:
        self._tricks: tuple[Any, ...] = ()
        self._tricks_parts: list[str] = []
        self._tricks_json = "[]"
        self._variant: Variant | None = None
        self._variant_json = ""
        self._legal_cache: dict[tuple[str, ...], str] = {}

    def _tricks_of(self, tricks: tuple[Any, ...]) -> str:
        if tricks is self._tricks:
            return self._tricks_json
        prev = self._tricks
        n = len(prev)
        if len(tricks) >= n and tricks[:n] == prev:
            parts = self._tricks_parts
        else:
            parts = self._tricks_parts = []
            n = 0
        encode = TRICKS.encode
        parts.extend(encode((t,))[1:-1] for t in tricks[n:])
        self._tricks = tricks
        self._tricks_json = "[" + ",".join(parts) + "]"
        return self._tricks_json

    def legal_json(self, legal: tuple[str, ...]) -> str:
        cache = self._legal_cache
        s = cache.get(legal)
        if s is None:
            if len(cache) > 4096:
                cache.clear()
            s = cache[legal] = strs(legal)
        return s

    def view_json(self, view: PlayerView) -> str:
        v = view.variant
        if v is not self._variant:
            self._variant = v
            self._variant_json = variant_keys(v)
        return view_json(view, self._variant_json, self._tricks_of(view.tricks), self.legal_json(view.legal))

    def act_message(self, view: PlayerView, time_ms: int, request: int | None = None) -> bytes:
        """The ``act`` line for ``view``, numbered ``request`` (a bot may echo it in its answer)."""
        number = "" if request is None else f',"request":{request}'
        return (f'{{"type":"act","view":{self.view_json(view)},"legal":{self.legal_json(view.legal)},'
                f'"time_ms":{time_ms}{number}}}\n').encode()


# ------------------------------------------------------------------------------------- decoding
def rules_of(info: dict[str, Any]) -> Variant | None:
    """The exact rules a ``new_game`` message names (its options win over the preset), or None."""
    name = str(info.get("variant", ""))
    options = info.get("options")
    try:
        return Variant.from_options(name, options) if isinstance(options, dict) else get_variant(name)
    except (VariantError, TypeError):
        return None


class ViewDecoder:
    """Turns ``act`` views back into ``PlayerView`` objects for a Python bot behind the protocol, so a
    plugin sees exactly the interface it would see in-process. Keeps the rules of the current game (from
    ``new_game``) and the decoded finished tricks, which only grow within a deal."""

    def __init__(self) -> None:
        self.variant: Variant | None = None
        self._tricks_raw: list[Any] = []
        self._tricks: tuple[Any, ...] = ()

    def new_game(self, info: dict[str, Any]) -> None:
        self.variant = rules_of(info)
        self._tricks_raw = []
        self._tricks = ()

    def view(self, data: dict[str, Any]) -> PlayerView:
        """A PlayerView from its JSON form; raises ProtocolError on a view it cannot read."""
        try:
            return self._view(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, VariantError) as exc:
            raise ProtocolError(f"cannot read the view: {exc!r}") from None

    def _view(self, d: dict[str, Any]) -> PlayerView:
        v = self.variant
        if v is None or v.name != d["variant"]:
            v = self.variant = get_variant(d["variant"])
        raw = d["tricks"]
        n = len(self._tricks_raw)
        if len(raw) < n or raw[:n] != self._tricks_raw:
            self._tricks_raw, self._tricks, n = [], (), 0
        if len(raw) > n:
            self._tricks = self._tricks + TRICKS.decode(raw[n:])
            self._tricks_raw = raw
        d = dict(d)
        d["tricks"] = []  # decoded above, incrementally
        view = view_from_dict(d, v)
        view.tricks = self._tricks
        return view


def view_from_json(data: dict[str, Any], variant: Variant | None = None) -> PlayerView:
    """One-off decoding of a view (tests, tools); hosts use a ``ViewDecoder``."""
    dec = ViewDecoder()
    dec.variant = variant
    return dec.view(data)


__all__ = ["PROTOCOL_VERSION", "HELLO", "QUIT", "ProtocolError", "BotReportedError", "ViewEncoder",
           "ViewDecoder", "view_from_json", "parse_answer", "parse_answer_request", "parse_answer_fields",
           "stops_value", "parse_hello", "dumps_line", "new_game_message", "game_over_message", "rules_of"]
