"""``benchmarks/inference_information.py``: the share of sampled worlds that put each unseen card where
it really is. The real deal scores 1, worlds that misplace a card score less, and against players the
policy models (``greedy``) the inference's weights place the cards better than uniform worlds do."""

from __future__ import annotations

from arena.cards import BIT, NAMES
from bots.greedy import GreedyBot
from bots.search import SearchBot

from test_search_variants import _bench

INFORMATION = _bench("inference_information")


def _hand(*names: str) -> int:
    return sum(BIT[NAMES.index(n)] for n in names)


def test_the_true_place_probability_counts_each_unseen_card_where_the_weighted_worlds_put_it() -> None:
    real = [_hand("1o"), _hand("3o", "12c"), _hand("7e")]  # seat 0 looks; 5b is in the pile
    unseen = _hand("3o", "12c", "7e", "5b")
    tp = INFORMATION.true_place
    assert tp(unseen, real, [real], [1.0]) == 1.0
    swapped = [_hand("1o"), _hand("7e", "12c"), _hand("3o")]  # two of the four cards misplaced
    assert tp(unseen, real, [swapped], [1.0]) == 0.5
    assert tp(unseen, real, [real, swapped], [1.0, 1.0]) == 0.75
    assert tp(unseen, real, [real, swapped], [3.0, 1.0]) == 0.875  # weights count, not worlds
    in_pile = [_hand("1o"), _hand("3o", "12c"), _hand("5b")]  # the 7 put in the pile, the 5 in a hand
    assert tp(unseen, real, [in_pile], [1.0]) == 0.5
    assert INFORMATION.place(real, NAMES.index("5b")) == -1


def test_against_greedy_the_inference_places_the_cards_better_than_uniform_worlds() -> None:
    rows = INFORMATION.measure_deal("tute-4", 0, 0, lambda: SearchBot(worlds=8), GreedyBot, 0.3, 60, 2)
    assert len(rows) > 10
    assert all(0.0 < u <= 1.0 and 0.0 < i <= 1.0 for u, i in rows)
    gain = sum(i - u for u, i in rows) / len(rows)
    assert gain > 0.01
    # no inference (a likelihood of 1 for every play): the same worlds, the same weights
    rows = INFORMATION.measure_deal("tute-4", 0, 0, lambda: SearchBot(worlds=8), GreedyBot, 1.0, 60, 2)
    assert all(u == i for u, i in rows)
