"""The public state of a deal, declared once: every field a seat may see, with its JSON form.

One table (``FIELDS``) drives everything that carries a view: ``PlayerView.of`` (which state attribute
each field comes from), view equality, the protocol's JSON encoder and decoder (``arena.protocol``), the
plugin codec (``arena.hosting``), and ``GameState.from_view`` (a full state from a view plus hidden
cards, for search). A field added here reaches all of them; nothing else lists the fields.

Each field has a *kind* that converts it between its Python value (ints, bitmasks, tuples: what the
referee keeps) and the protocol's JSON (cards and suits in notation, ``null`` for "none"). The JSON is a
contract that outside bots read: fields are only ever added, never renamed or dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .cards import NAMES, NO_CARD, NO_SUIT, SUITS, cards_of

_Q: tuple[str, ...] = tuple(json.dumps(n) for n in NAMES)
_QS: tuple[str, ...] = tuple(json.dumps(s) for s in SUITS)
CARD = {n: c for c, n in enumerate(NAMES)}
SUIT = {s: i for i, s in enumerate(SUITS)}


def cards_json(cards: Any) -> str:
    q = _Q
    return "[" + ",".join([q[c] for c in cards]) + "]"


def _ints(values: Any) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _strs(values: Any) -> str:
    return json.dumps(list(values), separators=(",", ":"))


#: the phases of a deal, by the index the referee keeps (``GameState.phase``) and the name a view shows
PHASES: tuple[str, ...] = ("play", "declare", "deal_tute", "over", "auction", "trump", "exchange")


@dataclass(frozen=True)
class Kind:
    """How a field's Python value becomes JSON text and comes back from parsed JSON."""
    encode: Callable[[Any], str]
    decode: Callable[[Any], Any]


INT = Kind(str, int)
TEXT = Kind(lambda v: json.dumps(v), str)
#: a seat, or -1 for none (``null``)
SEAT = Kind(lambda s: "null" if s < 0 else str(s), lambda d: -1 if d is None else int(d))
#: a card, or ``NO_CARD`` (``null``)
CARD_OR_NONE = Kind(lambda c: "null" if c == NO_CARD else _Q[c], lambda d: NO_CARD if d is None else CARD[d])
#: a suit, or ``NO_SUIT`` (``null``)
SUIT_OR_NONE = Kind(lambda s: "null" if s == NO_SUIT else _QS[s], lambda d: NO_SUIT if d is None else SUIT[d])
#: a number where 0 means none (``null``): the contract before any bid
ZERO_OR_NONE = Kind(lambda v: str(v) if v else "null", lambda d: int(d or 0))
HAND = Kind(lambda m: cards_json(cards_of(m)), lambda d: sum(1 << CARD[c] for c in d))
CARDS = Kind(cards_json, lambda d: tuple(CARD[c] for c in d))
INTS = Kind(_ints, lambda d: tuple(int(x) for x in d))
STRS = Kind(_strs, lambda d: tuple(str(x) for x in d))
TRICKS = Kind(
    lambda ts: "[" + ",".join([f'{{"leader":{ld},"cards":{cards_json(cs)},"winner":{w}}}' for ld, cs, w in ts]) + "]",
    lambda d: tuple((t["leader"], tuple(CARD[c] for c in t["cards"]), t["winner"]) for t in d))
CANTES = Kind(
    lambda cs: "[" + ",".join([f'{{"seat":{s},"suit":{_QS[su]},"points":{p}}}' for s, su, p in cs]) + "]",
    lambda d: tuple((c["seat"], SUIT[c["suit"]], c["points"]) for c in d))
EXCHANGES = Kind(
    lambda es: "[" + ",".join([f'{{"seat":{s},"gave":{_Q[g]},"took":{_Q[t]}}}' for s, g, t in es]) + "]",
    lambda d: tuple((e["seat"], CARD[e["gave"]], CARD[e["took"]]) for e in d))
BIDS = Kind(
    lambda bs: "[" + ",".join([f'{{"seat":{s},"bid":{b or "null"}}}' for s, b in bs]) + "]",
    lambda d: tuple((b["seat"], b["bid"] or 0) for b in d))
#: suits as the bits of their 11s (how the referee keeps sung and lost cantes): a list of suit letters
SUITS_BY_ELEVEN = Kind(lambda m: "[" + ",".join([_QS[s] for s in range(4) if m >> (s * 10 + 8) & 1]) + "]",
                       lambda d: sum(1 << (SUIT[x] * 10 + 8) for x in d))
PAIR_TRICKS = Kind(
    lambda ps: "[" + ",".join([f'{{"trick":{i},"seat":{s},"suit":{_QS[su]},"points":{p}}}'
                               for i, s, su, p in ps]) + "]",
    lambda d: tuple((p["trick"], p["seat"], SUIT[p["suit"]], p["points"]) for p in d))


@dataclass(frozen=True)
class Field:
    """One public field: its name (the view attribute, the JSON key and, unless ``state`` says
    otherwise, the ``GameState`` attribute it is read from), its kind, and the JSON value to assume
    when a message lacks it (fields added after protocol 1 began)."""
    name: str
    kind: Kind
    #: where the view takes it: ``"attr"`` the state attribute of the same name; ``"view"`` computed by
    #: ``PlayerView.of`` itself (seat, phase name, own hand, points, legal actions, cards left to draw)
    state: str = "attr"
    missing: Any = ...


#: every field a seat may see, in the order of the protocol's JSON view (``variant``, ``players``,
#: ``teams`` and ``hand_sizes`` are written around them: they follow from the rules and the fields)
FIELDS: tuple[Field, ...] = (
    Field("seat", INT, "view"),
    Field("dealer", INT),
    Field("phase", TEXT, "view"),
    Field("current", INT),
    Field("leader", INT),
    Field("hand", HAND, "view"),
    Field("trump", SUIT_OR_NONE),
    Field("trump_card", CARD_OR_NONE),
    Field("face_up", CARD_OR_NONE),
    Field("stock_left", INT, "view"),
    Field("trick", CARDS),
    Field("tricks", TRICKS),
    Field("cantes", CANTES),
    Field("exchanges", EXCHANGES),
    Field("points", INTS, "view"),
    Field("legal", STRS, "view"),
    Field("bids", BIDS, missing=[]),
    Field("declarer", SEAT, missing=None),
    Field("contract", ZERO_OR_NONE, missing=None),
    Field("pair_tricks", PAIR_TRICKS, missing=[]),
    Field("sit_out", SEAT, missing=None),
    #: the viewer's own cantes lost by not making them when it could (``skipped_cante_lost``); private
    Field("lost_cantes", SUITS_BY_ELEVEN, "view", missing=[]),
)
NAMES_OF_FIELDS: tuple[str, ...] = tuple(f.name for f in FIELDS)
#: the fields a view copies straight from the state's attribute of the same name
STATE_ATTRS: tuple[str, ...] = tuple(f.name for f in FIELDS if f.state == "attr")
#: JSON keys written before and after ``variant``/``players``/``teams`` and ``hand_sizes``
JSON_HEAD = ("seat",)
JSON_BEFORE_HAND_SIZES = "points"


def compile_assigner(name: str, params: str, assignments: dict[str, str], doc: str,
                     env: dict[str, Any] | None = None) -> Callable[..., Any]:
    """A function that sets each attribute of ``assignments`` (name -> expression) on ``o`` and returns
    it, generated once from a field table, as ``dataclasses`` generates ``__init__``: a loop of
    ``setattr`` over the table costs three times as much, and these run once per decision. ``env``
    holds the names the expressions use."""
    lines = [f"def {name}({params}):", f"    {doc!r}"]
    lines += [f"    o.{attr} = {expr}" for attr, expr in assignments.items()]
    lines.append("    return o")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), dict(env or {}), namespace)  # noqa: S102 - source built from the constant tables above
    return namespace[name]  # type: ignore[no-any-return]
