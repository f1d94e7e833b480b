"""``benchmarks/policy_agreement.py``: how often the playout policy plays a bot's card. A bot that
plays the policy itself agrees every time, another bot does not, and cards of equal effect are told
apart from cards that are not."""

from __future__ import annotations

from arena import PlayerView
from arena.cards import BIT, NAMES
from bots.oracle import OracleBot

from test_search_variants import _bench

AGREEMENT = _bench("policy_agreement")


def _hand(*names: str) -> int:
    return sum(BIT[NAMES.index(n)] for n in names)


def test_equivalent_cards_are_the_same_suit_and_points_with_nothing_between_them_elsewhere() -> None:
    eq = AGREEMENT.equivalent
    c = NAMES.index
    # seat 0 holds the 6 and the 4 of oros; the 5 of oros lies between them in strength
    hands = [_hand("6o", "4o", "5o", "3o", "12o"), _hand("1c"), _hand("2o"), _hand("7e")]
    assert eq(c("6o"), c("4o"), hands, 0, 0)  # the 5 is in seat 0's own hand
    hands[0] &= ~BIT[c("5o")]
    assert eq(c("6o"), c("4o"), hands, 0, 0)  # the 5 is gone (played)
    hands[1] |= BIT[c("5o")]
    assert not eq(c("6o"), c("4o"), hands, 0, 0)  # another seat holds the 5: it splits them
    assert eq(c("6o"), c("6o"), hands, 0, 0)
    assert not eq(c("3o"), c("12o"), hands, 0, 0)  # 10 points and 4: never the same effect
    assert not eq(c("4o"), c("7e"), hands, 0, 0)  # other suits
    # trumps are oros (suit 0): the 7 and the 6 are alike once no card can be exchanged, not while the 7
    # (and the 2) may still take the face-up card
    hands = [_hand("7o", "6o"), _hand("1c"), _hand("2c"), _hand("3c")]
    assert eq(c("7o"), c("6o"), hands, 0, 0)
    assert not eq(c("7o"), c("6o"), hands, 0, BIT[c("7o")] | BIT[c("2o")])


class _Policy(OracleBot):
    """Plays the playout policy's card on the real deal (no random moves): a perfect match for it."""

    def choose(self, view: PlayerView) -> str:
        if not all(a.startswith("play ") for a in view.legal):
            return view.legal[0]
        return "play " + NAMES[AGREEMENT.policy_card(self._real(view))]


def test_the_policy_agrees_with_itself_and_not_with_a_random_bot() -> None:
    from bots.random_bot import RandomBot

    for variant in ("tute-4-pairs", "tute-2"):
        tally = AGREEMENT.tally_deal(variant, 0, 1, _Policy, lambda: RandomBot(seed=3))
        mine = tally[("bot", "all", "decisions")]
        assert mine > 5
        assert tally[("bot", "all", "same")] == tally[("bot", "all", "equivalent")] == mine
        assert sum(tally[("bot", p, "decisions")] for p in AGREEMENT.PLACES) == mine
        theirs = tally[("opponent", "all", "decisions")]
        assert theirs > 5
        assert tally[("opponent", "all", "same")] <= tally[("opponent", "all", "equivalent")] < theirs


def test_the_exchangeable_cards_are_the_rules_7_and_2_of_trumps_while_the_face_up_card_lasts() -> None:
    from arena import GameState, get_variant, shuffled_deck

    v = get_variant("tute-2")
    state = GameState.new(v, shuffled_deck(v, 5), 0)
    view = state.view(state.current)
    assert AGREEMENT.exchangeable(view) == BIT[view.trump * 10 + 6] | BIT[view.trump * 10 + 1]
    pairs = get_variant("tute-4-pairs")
    assert AGREEMENT.exchangeable(GameState.new(pairs, shuffled_deck(pairs, 5), 0).view(0)) == 0
