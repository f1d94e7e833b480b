"""The record's hand-joined JSON (``GameRecord.encode``, ``arena.jsontext``) is byte for byte what
``json.dumps(..., separators=(",", ":"))`` writes, for referee-made records of every preset and for odd
records read from elsewhere (any names, any extra fields, values of unexpected types)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import VARIANTS, GameRecord, play_game, shuffled_deck
from arena.jsontext import compact, ints, strs
from bots.random_bot import RandomBot


def reference(record: GameRecord) -> tuple[str, str]:
    data = record.to_json()
    return (json.dumps(data, separators=(",", ":")), json.dumps(data["result"], separators=(",", ":")))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**63 - 1))
def test_referee_records_encode_exactly_as_json_dumps(name: str, seed: int) -> None:
    v = VARIANTS[name]
    players = [RandomBot(seed + s) for s in range(v.players)]
    record = play_game(v, shuffled_deck(v, seed), seed % v.players, players, game_id=f"t/{name}/{seed}",
                       seed=seed, names=[f"bot {s} é\"\\" for s in range(v.players)])
    assert record.encode() == reference(record)
    assert record.dumps() == reference(record)[0]
    assert GameRecord.loads(record.dumps()) == record


json_scalars = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=8) \
    | st.floats(allow_nan=False)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 1000), text=st.text(max_size=12), odd=json_values,
       extra=st.dictionaries(st.sampled_from(["id", "seed", "result", "note"]) | st.text(max_size=6), json_values,
                             max_size=3),
       card_lists=st.lists(st.text(max_size=3), max_size=4), actions=st.lists(st.text(max_size=10), max_size=4))
def test_odd_records_encode_exactly_as_json_dumps(seed: int, text: str, odd: Any, extra: dict[str, Any],
                                                  card_lists: list[str], actions: list[str]) -> None:
    v = VARIANTS["tute-2"]
    record = play_game(v, shuffled_deck(v, seed), 0, [RandomBot(1), RandomBot(2)], game_id=text, seed=seed)
    record.seats = [text, "x"]
    record.seed = odd  # an imported record may hold anything here
    record.extra = dict(extra)
    record.stock = card_lists + record.stock
    record.hands = [list(record.hands[0]), card_lists]
    record.actions = record.actions + [(1, a) for a in actions]
    record.options = dict(record.options, **{text: odd})
    assert record.encode() == reference(record)
    record.deck = [1, "1o"]  # type: ignore[list-item]  # not even strings: the general encoder
    assert record.encode() == reference(record)


@settings(max_examples=500, deadline=None)
@given(value=json_values)
def test_compact_is_json_dumps(value: Any) -> None:
    assert compact(value) == json.dumps(value, separators=(",", ":"))


def test_list_helpers() -> None:
    rng = random.Random(3)
    names = ["".join(chr(rng.randrange(1, 400)) for _ in range(rng.randrange(5))) for _ in range(200)]
    assert strs(names) == json.dumps(names, separators=(",", ":"))
    assert strs([]) == "[]" and ints([]) == "[]"
    assert ints([3, -1, 2**65]) == json.dumps([3, -1, 2**65], separators=(",", ":"))


def test_options_equal_in_python_but_not_in_json_encode_apart() -> None:
    """``0 == False``: the encoder's memo of option texts must not serve one for the other."""
    v = VARIANTS["tute-2"]
    record = play_game(v, shuffled_deck(v, 1), 0, [RandomBot(1), RandomBot(2)], seed=1)
    for value in (False, 0, True, 1, 1.0, 0.0):
        record.options = dict(v.options(), extra=value)
        assert record.encode() == reference(record), value
