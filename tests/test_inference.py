"""bots.inference: what the other seats' plays say about their hands.

The evidence rebuilds, for every past decision of another side's seat, the hand it held then from a
world's hands now; with the real hands that must be exactly the hand it had, so the card it played is
always among the cards the rules let it play (a property over random legal games in every rule set the
policy models). Against players who do play like the policy (``greedy``), the real deal must weigh more
than a typical sampled one: the evidence is evidence.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from arena import VARIANTS, GameState, PlayerView, shuffled_deck
from arena import rules as R
from arena.cards import BIT
from arena.state import PLAY
from bots.greedy import GreedyBot
from bots.inference import Evidence, models, resample
from bots.oracle import play_open
from bots.search import SearchBot

from rulesets import RULESETS

MODELLED = sorted(name for name, v in RULESETS.items() if models(v))


def _random_turn(name: str, seed: int, frac: float) -> GameState | None:
    """A random legal game stopped at a card play part-way through."""
    v = RULESETS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    stop = int(frac * v.deck_size)
    plays = 0
    while not state.is_over:
        legal = state.legal_actions()
        if plays >= stop and state.phase == PLAY and legal[0].startswith("play"):
            return state
        a = legal[rng.randrange(len(legal))]
        plays += a.startswith("play")
        state.apply(a)
    return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(name=st.sampled_from(MODELLED), seed=st.integers(0, 10**6), frac=st.floats(0, 1))
def test_each_past_choice_is_legal_in_the_hand_rebuilt_from_the_real_deal(name: str, seed: int,
                                                                          frac: float) -> None:
    state = _random_turn(name, seed, frac)
    if state is None:
        return
    view = PlayerView.of(state, state.current)
    ev = Evidence(view, 0.3)
    r = view.variant.rules
    for d in ev.decisions:
        seat, c, later, prefix, led, best_led, top, mode, holds = (d.seat, d.card, d.later, d.prefix, d.led,
                                                                   d.best_led, d.top, d.mode, d.holds)
        assert r.team[seat] != r.team[view.seat]  # only the other sides' choices
        hand = state.hands[seat] | later
        assert hand & BIT[c]
        mask = R.playable(mode, hand, led, best_led, top, view.trump, holds, r) if prefix and mode != R.FREE \
            else hand
        assert mask & BIT[c], (name, seat, c)
        if prefix:  # the trick it answered, as the referee's kernel sees it
            leader = next(lead for lead, cards, _ in list(view.tricks) + [(view.leader, view.trick, -1)]
                          if cards and cards[0] == prefix[0])
            assert (led, best_led, top) == R.trick_state(prefix, view.trick_order(leader), view.trump)[:3]
    assert ev.weight(list(state.hands)) > 0.0


@pytest.mark.parametrize("name", ["tute-4", "tute-4-pairs", "cabrero-5", "tute-3", "subastado"])
def test_against_greedy_the_real_deal_weighs_more_than_a_sampled_one(name: str) -> None:
    """In games of ``greedy`` players, at decisions late enough to have evidence, the real hidden cards
    are likelier than the average sampled world in most decisions."""
    v = VARIANTS[name]
    rng = random.Random(7)
    above = total = 0
    for deal in range(12):
        def judge(state: GameState, view: PlayerView) -> None:
            nonlocal above, total
            if state.phase == PLAY and len(view.tricks) >= 3 and rng.random() < 0.25:
                ev = Evidence(view, 0.3)
                sampled = [ev.weight(view.knowledge.deal_unseen(rng)[0]) for _ in range(60)]
                total += 1
                above += ev.weight(list(state.hands)) > sum(sampled) / len(sampled)

        play_open(v, shuffled_deck(v, 100 + deal), deal % v.players, [GreedyBot() for _ in range(v.players)],
                  seed=deal, watch=judge)
    assert total >= 20
    assert above / total >= 0.75, (above, total)


def test_resample_keeps_items_in_proportion_to_their_weight() -> None:
    items = list(range(4))
    assert resample(items, [1, 1, 1, 1], 4, 0.5) == items
    assert resample(items, [0, 0, 3, 1], 4, 0.5) == [2, 2, 2, 3]
    assert resample(items, [0, 0, 0, 0], 2, 0.5) == [0, 1]  # no evidence: the first ones
    kept = resample(list(range(100)), [1.0 if i < 10 else 0.01 for i in range(100)], 50, 0.3)
    assert sum(1 for i in kept if i < 10) >= 45


def test_inference_off_or_not_modelled_samples_uniformly() -> None:
    """``inference = 1`` (every weight 1) and cabrón (its trump moves) draw plain deals, one per world."""
    for name, params in (("tute-4", {"inference": 1.0}), ("cabron", {})):
        state = _random_turn(name, 3, 0.6)
        assert state is not None
        view = PlayerView.of(state, state.current)
        a, b = SearchBot(**params), SearchBot(**params)
        b.inference = 1.0
        worlds = a.worlds_for(view)
        assert [next(worlds) for _ in range(5)] == [b.deal(view) for _ in range(5)]


def test_with_evidence_the_worlds_are_resampled() -> None:
    """Where there is evidence, the worlds drawn differ from the plain deals (and stay reproducible)."""
    state = _random_turn("tute-4", 5, 0.6)
    assert state is not None
    view = PlayerView.of(state, state.current)
    assert Evidence(view, 0.3).decisions
    a, b, c = SearchBot(), SearchBot(), SearchBot()
    wa, wb = a.worlds_for(view), b.worlds_for(view)
    first = [next(wa) for _ in range(20)]
    assert first == [next(wb) for _ in range(20)]
    assert first != [c.deal(view) for _ in range(20)]
