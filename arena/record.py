"""The game record (DESIGN.md, format ``tute-arena/1``) and its verification by replay.

A record is self-sufficient: the deck order, what the deal made of it, the exact rule options and every
decision with its seat. ``replay`` runs the referee over it again and refuses the first difference, so a
stored or shared game can always be proven true.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Iterator, Sequence

from .cards import NAMES, NO_CARD, cards_list, parse_card, shuffled
from .jsontext import compact, quote, strs
from .record_schema import check_record
from .result import GameResult
from .state import GameState, IllegalAction
from .variants import Variant, VariantError


def _names(cards: Sequence[int]) -> list[str]:
    """The names of ``cards`` in order. A record is made at the end of every game, and one itemgetter
    call reads a deck's forty names in a quarter of the time a ``map`` takes."""
    if len(cards) < 2:  # itemgetter of one index returns the item itself, of none raises
        return [NAMES[c] for c in cards]
    return list(itemgetter(*cards)(NAMES))


FORMAT = "tute-arena/1"


class ReplayError(ValueError):
    """A record that the referee does not reproduce; ``index`` is the first wrong action (or -1)."""

    def __init__(self, message: str, index: int = -1) -> None:
        super().__init__(message)
        self.index = index


@dataclass
class GameRecord:
    id: str
    variant: str
    options: dict[str, Any]
    seed: int | None
    dealer: int
    seats: list[str]
    teams: list[list[int]]
    deck: list[str]
    hands: list[list[str]]
    stock: list[str]
    #: None when no card shows trump (subastado, cabrón)
    trump_card: str | None
    actions: list[tuple[int, str]]
    result: GameResult
    format: str = FORMAT
    #: fields this version does not know, kept so that reading and writing a record loses nothing
    extra: dict[str, Any] = field(default_factory=dict)
    #: the ``result`` object as read (``from_json``), which ``result`` does not keep whole (``winner`` is
    #: derived from the ranks): ``replay`` judges it all, since a store keeps and exports it as it is
    result_json: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_state(cls, state: GameState, *, game_id: str = "", seed: int | None = None,
                   seats: Sequence[str] | None = None) -> "GameRecord":
        v = state.variant
        if state.result_ is None:
            raise ValueError("the deal is not over")
        return cls(
            id=game_id, variant=v.name, options=v.options(), seed=seed, dealer=state.dealer,
            seats=list(seats) if seats else [f"seat{s}" for s in range(state.n)],
            teams=[list(t) for t in v.teams], deck=_names(state.deck),
            hands=[_names(cards_list(h)) for h in state.initial_hands],
            stock=_names(state.stock),
            trump_card=NAMES[state.trump_card] if state.trump_card != NO_CARD else None,
            actions=list(state.actions), result=state.result_)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": self.format, "id": self.id, "variant": self.variant, "options": dict(self.options),
            "seed": self.seed, "dealer": self.dealer, "seats": list(self.seats),
            "teams": [list(t) for t in self.teams], "deck": list(self.deck),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock), "trump_card": self.trump_card,
            "actions": [[s, a] for s, a in self.actions], "result": self.result.to_json()}
        for k, v in self.extra.items():
            out.setdefault(k, v)
        return out

    def dumps(self) -> str:
        return self.encode()[0]

    def encode(self) -> tuple[str, str]:
        """(record JSON, result JSON), exactly ``json.dumps(to_json(), separators=(",", ":"))`` and the
        same for ``result``. A tournament worker encodes every game it plays, so this joins prepared
        pieces (about 3x faster than ``json.dumps``); a field of an unexpected type (a record read
        from elsewhere) takes the general encoder instead."""
        try:
            return self._encode_fast()
        except TypeError:
            data = self.to_json()
            return compact(data), compact(data["result"])

    def _encode_fast(self) -> tuple[str, str]:
        result = compact(self.result.to_json())
        seed = self.seed
        parts = [
            '{"format":', quote(self.format), ',"id":', quote(self.id), ',"variant":', quote(self.variant),
            ',"options":', _options_json(self.options),
            ',"seed":', str(seed) if type(seed) is int else compact(seed),
            ',"dealer":', str(int(self.dealer)), ',"seats":', strs(self.seats), ',"teams":', compact(self.teams),
            ',"deck":', _cards_json(self.deck), ',"hands":[', ",".join(map(_cards_json, self.hands)), '],"stock":',
            _cards_json(self.stock), ',"trump_card":', "null" if self.trump_card is None else quote(self.trump_card),
            ',"actions":[', _actions_json(self.actions),
            '],"result":', result]
        for k, v in self.extra.items():
            if k not in _FIELDS:
                parts += [",", quote(k), ":", compact(v)]
        parts.append("}")
        return "".join(parts), result

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameRecord":
        """Read a record; a missing or mistyped field raises ValueError naming it."""
        if not isinstance(data, dict):
            raise ValueError("a game record is a JSON object")
        fmt = data.get("format")
        if fmt != FORMAT:  # a later version extends this one under the same name: another name is not one
            raise ValueError(f"format: expected {FORMAT!r}, got {str(fmt)[:60]!r}")
        check_record(data)  # every field's type and range, and their fit to the record's rules
        try:
            return cls(
                id=str(data["id"]), variant=str(data["variant"]), options=dict(data["options"]),
                seed=data.get("seed"), dealer=int(data["dealer"]), seats=[str(s) for s in data["seats"]],
                teams=[list(t) for t in data["teams"]], deck=list(data["deck"]),
                hands=[list(h) for h in data["hands"]], stock=list(data["stock"]),
                trump_card=None if data["trump_card"] is None else str(data["trump_card"]),
                actions=[(int(s), str(a)) for s, a in data["actions"]],
                result=GameResult.from_json(data["result"]), format=fmt,
                extra={k: v for k, v in data.items() if k not in _FIELDS}, result_json=data["result"])
        except KeyError as exc:
            raise ValueError(f"missing field {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"malformed field: {exc}") from None

    @classmethod
    def loads(cls, text: str) -> "GameRecord":
        return cls.from_json(json.loads(text))

    def rules(self) -> Variant:
        return Variant.from_options(self.variant, self.options)


#: the record's own fields, in the order they are written; anything else is kept in ``extra``
_FIELDS = ("format", "id", "variant", "options", "seed", "dealer", "seats", "teams", "deck", "hands", "stock",
           "trump_card", "actions", "result")
_OPTIONS_JSON: dict[tuple[tuple[str, type, Any], ...], str] = {}


def _options_json(options: dict[str, Any]) -> str:
    """A variant's options as JSON, remembered: a tournament has a handful of rule sets and writes
    each thousands of times. The key holds each value's type: ``0 == False`` and ``1 == True`` in Python,
    but not in JSON."""
    key = tuple((k, type(v), v) for k, v in options.items())
    text = _OPTIONS_JSON.get(key)
    if text is None:
        text = compact(options)
        if len(_OPTIONS_JSON) < 256:
            _OPTIONS_JSON[key] = text
    return text


_CARD_NAMES = frozenset(NAMES)


def _cards_json(cards: list[str]) -> str:
    """A JSON array of card names: when all are names from the deck (no character to escape), one
    join does it."""
    if not cards:
        return "[]"
    if _CARD_NAMES.issuperset(cards):
        return '["' + '","'.join(cards) + '"]'
    return strs(cards)


_ACTION_JSON: dict[tuple[int, str], str] = {}


def _actions_json(actions: list[tuple[int, str]]) -> str:
    """The items of the ``actions`` array, ``[seat,"action"],...``. Each (seat, action) pair is
    remembered as text: a referee speaks a few hundred distinct actions, so after the first games every
    pair is one dictionary lookup."""
    found: list[str | None] = list(map(_ACTION_JSON.get, actions))
    if None not in found:
        return ",".join(found)  # type: ignore[arg-type]  # no None in it
    texts = []
    for pair, text in zip(actions, found):
        if text is None:
            text = f"[{int(pair[0])},{quote(pair[1])}]"
            if len(_ACTION_JSON) < 8192:
                _ACTION_JSON[pair] = text
        texts.append(text)
    return ",".join(texts)


def _start(record: GameRecord) -> GameState:
    try:
        variant = record.rules()
        deck = [parse_card(c) for c in record.deck]
        state = GameState.new(variant, deck, record.dealer)
    except (VariantError, ValueError) as exc:
        raise ReplayError(f"record {record.id!r}: cannot deal: {exc}") from None
    if type(record.seed) is int and deck != shuffled(variant.deck_size, record.seed):  # null: a deck from elsewhere
        raise ReplayError(f"record {record.id!r}: the deck is not the shuffle of its seed {record.seed}")
    dealt = [_names(cards_list(h)) for h in state.initial_hands]
    if [sorted(h) for h in record.hands] != [sorted(h) for h in dealt]:
        raise ReplayError(f"record {record.id!r}: hands do not match the deal of this deck")
    dealt_trump = NAMES[state.trump_card] if state.trump_card != NO_CARD else None
    if list(record.stock) != [NAMES[c] for c in state.stock] or record.trump_card != dealt_trump:
        raise ReplayError(f"record {record.id!r}: stock or trump card does not match the deal of this deck")
    return state


def replay_steps(record: GameRecord) -> Iterator[tuple[int, GameState]]:
    """Yield (action index, state before it) for each recorded action, then (len, final state).

    Raises ReplayError at the first action the referee refuses.
    """
    state = _start(record)
    for i, (seat, action) in enumerate(record.actions):
        yield i, state
        if state.is_over:
            raise ReplayError(f"record {record.id!r}: action {i} ({seat}, {action!r}) after the deal ended", i)
        try:
            state.apply(action, seat)
        except IllegalAction as exc:
            raise ReplayError(f"record {record.id!r}: action {i} ({seat}, {action!r}) is illegal: {exc}", i) from None
    yield len(record.actions), state


def replay(record: GameRecord) -> GameState:
    """Re-run the referee over ``record`` and check that it ends exactly as recorded."""
    state: GameState | None = None
    for _, state in replay_steps(record):
        pass
    assert state is not None
    f = record.result.forfeit
    if f is not None and not state.is_over:
        # the referee forfeits the seat it asked (a failing new_game too, at the seat's first decision);
        # a record with no action may forfeit any seat (before 213a6e5 a new_game forfeited at once)
        if record.actions and f.seat != state.current:
            raise ReplayError(f"record {record.id!r}: the forfeit is seat {f.seat}'s, but seat {state.current} "
                              f"is on move", len(record.actions))
        state.forfeit(f.seat, f.reason, f.detail)
    if not state.is_over:
        raise ReplayError(f"record {record.id!r}: the actions end before the deal does "
                          f"(seat {state.current} is on move)", len(record.actions))
    got = state.result_
    assert got is not None
    said = got.to_json()
    # the field that differs, named first: the two whole results can be longer than a line shows
    why = result_disagreement(record.result_json if record.result_json is not None else record.result.to_json(), said)
    if why:
        raise ReplayError(f"record {record.id!r}: {why}", len(record.actions))
    if said != record.result.to_json():
        raise ReplayError(f"record {record.id!r}: result differs: recorded {record.result.to_json()}, "
                          f"referee says {said}", len(record.actions))
    return state


#: the fields of a result the format knows (``GameResult.to_json`` writes those that apply)
RESULT_FIELDS = ("points", "ranks", "winner", "tute", "forfeit", "reason", "score", "contract", "losers", "sit_out",
                 "match")


def result_disagreement(recorded: dict[str, Any], said: dict[str, Any]) -> str | None:
    """Where a record's ``result`` as written (``recorded``) differs from the result the referee gives
    (``said``, a ``GameResult.to_json``), or None. ``GameResult`` reads only what it needs (``winner``
    follows from the ranks, a false ``tute`` is none), but a store keeps the record as written and
    exports it so: every field the format knows must be what the referee says, or absent where the
    referee gives none. Fields the format does not know are a later version's and are kept."""
    for key in RESULT_FIELDS:
        if key in said:
            if key not in recorded:
                return f"result.{key}: missing (the referee says {_short(said[key])})"
            if json.dumps(recorded[key], sort_keys=True) != json.dumps(said[key], sort_keys=True):  # 1 is not true
                return f"result.{key}: recorded {_short(recorded[key])}, the referee says {_short(said[key])}"
        elif key in recorded:
            return f"result.{key}: recorded {_short(recorded[key])}, the referee gives none"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
