"""The rules kernel (``arena.rules``) against independent statements of the same rules.

Every part that plays (referee, knowledge, playouts, search, greedy, timeline) calls these functions, so
they are checked here directly: the trick winner against the plain wording of docs/rules.md, the duties'
inverse (``lacks``) against the duties themselves (``playable``) over random hands, the seat order
against the dealer who sits out.
"""

from __future__ import annotations

import random

import pytest

from arena import VARIANTS, get_variant
from arena import rules as R
from arena.cards import BIT, HIGHER, NO_SUIT, STRENGTH, SUIT, SUIT_MASK, cards_of, parse_card


def winner_by_the_book(cards: list[int], trump: int) -> int:
    """docs/rules.md: the highest trump wins the trick; with no trump, the highest card of the led suit."""
    trumps = [i for i, c in enumerate(cards) if SUIT[c] == trump]
    pool = trumps or [i for i, c in enumerate(cards) if SUIT[c] == SUIT[cards[0]]]
    return max(pool, key=lambda i: STRENGTH[cards[i]])


@pytest.mark.parametrize("trump", [0, 1, 2, 3, NO_SUIT])
def test_trick_state_wins_as_the_rules_say(trump: int) -> None:
    rng = random.Random(trump)
    for _ in range(3000):
        cards = rng.sample(range(40), rng.randint(1, 5))
        seats = list(range(len(cards)))
        led, best_led, top, win = R.trick_state(cards, seats, trump)
        assert led == SUIT[cards[0]]
        assert win == winner_by_the_book(cards, trump) and top == cards[win]
        in_led = [c for c in cards if SUIT[c] == led]
        assert best_led == max(in_led, key=STRENGTH.__getitem__)


RULE_SETS = [
    get_variant("tute-4"),
    get_variant("tute-4-pairs"),
    get_variant("tute-4-pairs", partner_exemption=True),
    get_variant("tute-4", must_beat_led_after_trumped=True, undertrump_required=True),
    get_variant("tute-3", undertrump_required=True),
    get_variant("habanero"),
    get_variant("cabron"),
]


@pytest.mark.parametrize("variant", RULE_SETS, ids=[f"{v.name}-{i}" for i, v in enumerate(RULE_SETS)])
@pytest.mark.parametrize("mode", [R.FREE, R.FOLLOW, R.TRUMP_LEAD, R.STRICT])
def test_lacks_is_the_exact_inverse_of_playable(variant: object, mode: int) -> None:
    """For every hand holding the card played: playable iff the hand holds none of what it 'lacks'."""
    r = variant.rules  # type: ignore[attr-defined]
    rng = random.Random(mode)
    checked = 0
    for _ in range(4000):
        trump = rng.choice([0, 1, 2, 3, NO_SUIT])
        deck = rng.sample(range(40), 40)
        table = deck[:rng.randint(1, 3)]
        hand_cards = deck[10:10 + rng.randint(1, 10)]
        hand = sum(BIT[c] for c in hand_cards)
        led, best_led, top, _ = R.trick_state(table, list(range(len(table))), trump)
        partner_wins = rng.random() < 0.3
        allowed = R.playable(mode, hand, led, best_led, top, trump, partner_wins, r)
        assert allowed and allowed & ~hand == 0
        for c in cards_of(hand):
            proof = R.lacks(mode, c, led, best_led, top, trump, partner_wins, r)
            assert bool(allowed & BIT[c]) == (hand & proof == 0), (trump, table, hand_cards, c)
            checked += 1
    assert checked > 10000


def test_a_void_is_a_whole_suit_lacked() -> None:
    """``void_suits`` names the suits wholly proven absent, never one only partly: a discard on a led
    suit shows that void (and trumps' too when it did not trump); following low shows none."""
    r = get_variant("tute-4").rules
    oros, copas, espadas = 0, 1, 2
    four_c, five_c, two_e = (parse_card(n) for n in ("4c", "5c", "2e"))
    assert R.void_suits(R.lacks(R.STRICT, two_e, copas, four_c, four_c, oros, False, r)) == 1 << copas | 1 << oros
    assert R.lacks(R.STRICT, four_c, copas, five_c, five_c, oros, False, r) == HIGHER[five_c]
    assert R.void_suits(R.lacks(R.STRICT, four_c, copas, five_c, five_c, oros, False, r)) == 0
    assert R.void_suits(HIGHER[parse_card("2c")]) == 0 and R.void_suits(SUIT_MASK[espadas]) == 1 << espadas


@pytest.mark.parametrize("name", list(VARIANTS))
def test_seat_order_skips_the_dealer_who_sits_out(name: str) -> None:
    v = VARIANTS[name]
    r = v.rules
    for dealer in range(v.players):
        for leader in range(v.players):
            order = r.order[dealer][leader]
            assert len(order) == v.active_players and len(set(order)) == len(order) and order[0] == leader
            if v.sits_out:
                assert dealer not in order or leader == dealer
            for a, b in zip(order, order[1:]):
                assert r.next[dealer][a] == b


def test_losers_and_points_ranks() -> None:
    r = VARIANTS["cabron"].rules
    assert R.losers(r, [0, 1, 2], [4, 4, 4], [50, 40, 40], set()) == ((1, 2), "middle")
    assert R.losers(r, [0, 1, 2], [12, 0, 0], [130, 0, 0], set()) == ((1, 2), "capote")
    assert R.losers(r, [0, 1, 2], [6, 6, 0], [60, 70, 0], set()) == ((2,), "no_trick")
    assert R.losers(r, [0, 1, 2], [6, 3, 3], [101, 15, 14], set()) == ((0,), "over_points")
    assert R.points_ranks(get_variant('tute-2').rules, [65, 65], 1) == [1, 0]
    assert R.points_ranks(get_variant('tute-3').rules, [40, 50, 40], 1) == [1, 0, 1]
