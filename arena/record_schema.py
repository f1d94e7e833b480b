"""The one schema check of a game record (``tute-arena/1``): every field's type and range, and how
the fields fit the record's own rules, before anything reads them.

``GameRecord.from_json`` runs it, so every reader gets it: ``tute import``, ``tute replay --file``,
``tute verify`` and the store's reader. The replay then checks the play itself (that the actions are
legal and the result follows); this checks what a replay cannot see or would trip over: seats as
numbers, an id that is an object, a seed of 1.5 or ``true``, teams that are not the variant's, an option
the variant refuses. A problem raises ``RecordError`` naming the field.
"""

from __future__ import annotations

import re
from typing import Any

from .cards import NAMES
from .result import FORFEIT_REASONS
from .state import FORFEIT_DETAIL
from .variants import VARIANTS, Variant, VariantError

_CARD_NAMES = frozenset(NAMES)
#: the characters no name may hold, wherever names come from (a record, a config, a league): the C0 and
#: C1 controls and DEL, which a terminal acts on (U+009B begins an escape sequence as ESC [ does); the
#: bidirectional marks, embeddings, overrides and isolates, which reorder the text shown around them;
#: the invisible ones (soft hyphen, zero widths, word joiner, byte-order mark), which make two names
#: that look alike differ; and lone surrogates, which are no text (a byte that is not UTF-8, from a
#: command line), and which no file or page can write
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\xad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")
#: how ``escaped`` writes the commonest controls; any other as ``\xNN`` or ``\uNNNN``
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(text: str) -> str:
    """``text`` with every ``CONTROL`` character written as its escape: a bot's words (a forfeit's
    detail, its stderr) shown on one line of a terminal, where an escape sequence would act (clear the
    screen, set the title) and a newline would split a listing's row."""
    if not CONTROL.search(text):
        return text
    return CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                                               else f"\\u{ord(m.group()):04x}"), text)


#: the longest id and seat name a record may carry
ID_MAX = 300
SEED_LIMIT = 2 ** 63


class RecordError(ValueError):
    """A record whose field breaks the format; the message starts with the field's name."""


def _fail(field: str, message: str, value: Any = ...) -> RecordError:
    shown = ""
    if value is not ...:
        text = repr(value)
        shown = f", got {text if len(text) <= 60 else text[:57] + '...'}"
    return RecordError(f"{field}: {message}{shown}")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def text_problem(value: str, limit: int = ID_MAX) -> str | None:
    """What keeps ``value`` from being a record's id or seat name, or None: what writes a seat name
    (``tute play``'s bot specs) asks it before a game, so that its records read back."""
    if len(value) > limit:
        return f"longer than {limit} characters"
    if CONTROL.search(value):
        return "must not hold control characters"
    return None


def _text(value: Any, field: str, *, empty: bool = False, limit: int = ID_MAX) -> str:
    if not isinstance(value, str):
        raise _fail(field, "expected a string", value)
    if not value and not empty:
        raise _fail(field, "must not be empty")
    problem = text_problem(value, limit)
    if problem is not None:
        raise _fail(field, problem, value)  # the value clipped to 60 characters
    return value


def _cards(value: Any, field: str) -> list[str]:
    if isinstance(value, list):
        try:
            if _CARD_NAMES.issuperset(value):  # one set operation: every reader runs this on every record
                return value
        except TypeError:  # an unhashable element
            pass
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise _fail(field, "expected a list of cards", value)
    bad = next(c for c in value if c not in _CARD_NAMES)
    raise _fail(field, f"{bad[:20]!r} is not a card")


def check_rules(data: dict[str, Any]) -> Variant:
    """A record's ``variant`` and ``options`` (a deal's or a match's): a known preset's name and options
    it accepts; return the rules they make. A name that is no preset would still build a Variant, and
    a reader (the tables, a replay page) would take it for one."""
    name = data.get("variant")
    if not isinstance(name, str) or name not in VARIANTS:
        raise _fail("variant", "not a known variant", name)
    if not isinstance(data.get("options"), dict):
        raise _fail("options", "expected an object", data.get("options"))
    try:
        return Variant.from_options(name, data["options"])
    except (VariantError, TypeError, ValueError) as exc:
        raise _fail("options", str(exc)) from None


def check_seed(seed: Any) -> None:
    """A record's ``seed`` (a deal's or a match's): null or an integer the store's columns hold."""
    if seed is not None and not (_int(seed) and 0 <= seed < SEED_LIMIT):
        raise _fail("seed", "expected null or an integer in [0, 2^63)", seed)


def check_record(data: Any) -> Variant:
    """Check a parsed record (a dict from JSON) against the format; return its rules."""
    if not isinstance(data, dict):
        raise RecordError("a game record is a JSON object")
    for key in ("id", "variant", "options", "dealer", "seats", "teams", "deck", "hands", "stock", "trump_card",
                "actions", "result"):
        if key not in data:
            raise _fail(key, "missing")
    _text(data["id"], "id", empty=True)  # a record made by play_game without an id; a store gives it one
    v = check_rules(data)
    check_seed(data.get("seed"))
    n = v.players
    if not (_int(data["dealer"]) and 0 <= data["dealer"] < n):
        raise _fail("dealer", f"expected a seat from 0 to {n - 1}", data["dealer"])
    seats = data["seats"]
    if not isinstance(seats, list) or len(seats) != n:
        raise _fail("seats", f"expected a list of {n} names", seats)
    for i, s in enumerate(seats):
        _text(s, f"seats[{i}]")
    if data["teams"] != [list(t) for t in v.teams]:
        raise _fail("teams", f"are not {v.name}'s ({[list(t) for t in v.teams]})", data["teams"])
    _cards(data["deck"], "deck")
    hands = data["hands"]
    if not isinstance(hands, list) or len(hands) != n:
        raise _fail("hands", f"expected a list of {n} hands", hands)
    for i, h in enumerate(hands):
        _cards(h, f"hands[{i}]")
    _cards(data["stock"], "stock")
    trump_card = data["trump_card"]
    if trump_card is not None and not (isinstance(trump_card, str) and trump_card in _CARD_NAMES):
        raise _fail("trump_card", "expected null or a card", data["trump_card"])
    actions = data["actions"]
    if not isinstance(actions, list):
        raise _fail("actions", "expected a list", actions)
    for i, a in enumerate(actions):
        # ``type(..) is``: bools are not seats, and this loop runs for every action of every record read
        if not (type(a) is list and len(a) == 2 and type(a[0]) is int and 0 <= a[0] < n and type(a[1]) is str
                and len(a[1]) <= 40):
            raise _fail(f"actions[{i}]", f"expected [seat from 0 to {n - 1}, action]", a)
    result = data["result"]
    if not isinstance(result, dict):
        raise _fail("result", "expected an object", result)
    for key in ("points", "ranks"):
        values = result.get(key)
        if not (isinstance(values, list) and len(values) == n and all(_int(x) for x in values)):
            raise _fail(f"result.{key}", f"expected a list of {n} integers", values)
    if not isinstance(result.get("reason"), str):
        raise _fail("result.reason", "expected a string", result.get("reason"))
    _forfeit(result.get("forfeit"), n)
    return v


def _forfeit(f: Any, n: int) -> None:
    """``result.forfeit``: null or a seat, one of the reasons and a detail, as the referee writes it (a
    replay copies it into the deal, so nothing else would check it)."""
    if f is None:
        return
    if not isinstance(f, dict):
        raise _fail("result.forfeit", "expected null or an object", f)
    if not (_int(f.get("seat")) and 0 <= f["seat"] < n):
        raise _fail("result.forfeit.seat", f"expected a seat from 0 to {n - 1}", f.get("seat"))
    if f.get("reason") not in FORFEIT_REASONS:
        raise _fail("result.forfeit.reason", f"expected one of {', '.join(FORFEIT_REASONS)}", f.get("reason"))
    detail = f.get("detail", "")
    if not isinstance(detail, str):
        raise _fail("result.forfeit.detail", "expected a string", detail)
    if len(detail) > FORFEIT_DETAIL:
        raise _fail("result.forfeit.detail", f"longer than {FORFEIT_DETAIL} characters")
