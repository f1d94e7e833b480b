"""bots.playout: the fast playouts follow the referee's rules exactly.

A playout is traced from the true hidden cards of a random position (every action with the playable
mask it saw), then the trace is replayed on the ``GameState`` itself: every action must be legal, the
playable masks equal, and the deal must end with the same points, last-trick winner and Tute.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from arena import GameState, shuffled_deck
from arena.cards import NAMES, STRENGTH
from bots import referee_playout
from bots.playout import CHEAP, Outcome, Position, cheapest, dearest, playout, supports, weakest

from rulesets import RULESETS

#: every rule set the fast playouts cover (``supports``); the conformance tests pin which those are
VARIANTS = {name: v for name, v in RULESETS.items() if supports(v)}


def play_turn(name: str, seed: int, frac: float) -> GameState | None:
    """A random legal game stopped at a play turn part-way through (declarations taken often)."""
    v = VARIANTS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    stop = int(frac * v.hand_size * v.players)
    plays = 0
    while not state.is_over:
        legal = state.legal_actions()
        decl = [a for a in legal if not a.startswith("play") and not a.startswith("tute")]
        if decl and rng.random() < 0.7:
            state.apply(decl[0])
            continue
        choice = [a for a in legal if not a.startswith("tute")] or list(legal)
        if plays >= stop and all(a.startswith("play") for a in legal) and len(legal) > 1:
            return state
        a = choice[rng.randrange(len(choice))]
        state.apply(a)
        plays += a.startswith("play")
    return None


def replay_trace(state: GameState, trace: list[tuple[int, str, int]], outcome: Outcome) -> None:
    for seat, action, mask in trace:
        assert state.current == seat, f"{action}: seat {seat} acted, the referee expected {state.current}"
        if action.startswith("play"):
            assert state.playable() == mask, action
            assert not any(a.startswith("tute") for a in state.legal_actions()), "a Tute left undeclared"
        assert action in state.legal_actions(), f"{action} not in {state.legal_actions()}"
        state.apply(action)
    assert state.is_over
    r = state.result_
    assert list(state.points) == outcome.points
    if outcome.tute >= 0:
        assert r.reason == "tute" and r.tute["seat"] == outcome.tute
    else:
        assert r.reason == "points" and state.last_trick_winner == outcome.last


def check(name: str, seed: int, frac: float, eps: float) -> None:
    state = play_turn(name, seed, frac)
    if state is None:
        return
    view = state.view(state.current)
    rng = random.Random(seed)
    first = state.legal_actions()[rng.randrange(len(state.legal_actions()))]
    r = state.variant.rules
    trace: list[tuple[int, str, int]] = []
    hands = list(state.hands)
    pile = list(state.stock[state.stock_pos:])
    out = playout(r, Position(view), hands, pile, [c for c, n in enumerate(NAMES) if first == "play " + n][0],
                  rng.random, eps, trace)
    replay_trace(state.copy(), trace, out)
    # the value agrees with the referee's ranks
    t = state.copy()
    for _, action, _ in trace:
        t.apply(action)
    ranks = t.result_.ranks
    # the seat's score against every other side, from the referee's ranks (two sides: 1 a win, 0.5 a
    # shared first place, 0 a loss)
    teams = state.variant.teams
    mine = ranks[view.seat]
    others = [ranks[team[0]] for team in teams if view.seat not in team]
    expected = sum(1.0 if mine < o else 0.5 if mine == o else 0.0 for o in others) / len(others)
    assert out.value(r, view.seat, 0.0) == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6), frac=st.floats(0, 1),
       eps=st.sampled_from([0.0, 0.3, 1.0]))
def test_playouts_follow_the_referee(name: str, seed: int, frac: float, eps: float) -> None:
    check(name, seed, frac, eps)


def test_tute_and_exchanges_happen() -> None:
    """Over many playouts the rarer paths (exchanges, cantes, a Tute) are exercised and agree."""
    seen: set[str] = set()
    for seed in range(400):
        name = ("tute-2", "tute-4-pairs", "pairs/exempt")[seed % 3]
        state = play_turn(name, seed, 0.0)
        if state is None:
            continue
        view = state.view(state.current)
        trace: list[tuple[int, str, int]] = []
        rng = random.Random(seed)
        first = next(c for c, n in enumerate(NAMES) if "play " + n in state.legal_actions())
        out = playout(state.variant.rules, Position(view), list(state.hands), list(state.stock[state.stock_pos:]),
                      first, rng.random, 0.2, trace)
        replay_trace(state.copy(), trace, out)
        seen.update(a.split()[0] for _, a, _ in trace)
    assert {"play", "sing", "exchange"} <= seen


@settings(max_examples=500, deadline=None, derandomize=True)
@given(mask=st.integers(1, (1 << 40) - 1), trump=st.integers(0, 4))
def test_card_orders_follow_their_keys(mask: int, trump: int) -> None:
    """``cheapest``/``dearest``/``weakest`` read rank tables for speed; the definition is the sort key
    (``CHEAP[trump]``, ``STRENGTH``), ties to the lowest card: the tables must pick what the key picks."""
    cards = [c for c in range(40) if mask >> c & 1]
    key = CHEAP[trump]
    assert cheapest(mask, trump) == min(cards, key=lambda c: (key[c], c))
    assert dearest(mask, trump) == min(cards, key=lambda c: (-key[c], c))
    assert weakest(mask) == min(cards, key=lambda c: (STRENGTH[c], c))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6), frac=st.floats(0, 1))
def test_both_kinds_of_playout_play_the_same_policy(name: str, seed: int, frac: float) -> None:
    """The referee's playouts (``referee_playout``, for the variants these do not model) and these ones
    play one policy: wherever both can play, from the same real deal, without random moves, the first
    card of this module's traced playout is the card ``referee_playout.card`` chooses."""
    state = play_turn(name, seed, frac)
    if state is None:
        return
    trace: list[tuple[int, str, int]] = []
    playout(state.variant.rules, Position(state.view(state.current)), list(state.hands),
            list(state.stock[state.stock_pos:]), -1, random.Random(seed).random, 0.0, trace)
    assert trace[0][1] == "play " + NAMES[referee_playout.card(state, state.playable())]
