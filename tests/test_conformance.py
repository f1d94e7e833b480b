"""Every part that reads the rules agrees with the referee, in every preset and option set.

The facts are recomputed here from the action log alone (who played which card, in what order), not
from the rules kernel, so a part that drifts from the referee fails here whatever copy of a rule it
carries: the view's seats and hand sizes, its deductions (known, excluded, void) against the true
deal, worlds sampled for search in every phase (auction included), the replay timeline's seat of every
trick card, greedy's reading of what a play proves, and the unchecked ``push`` path move by move.
Playouts against the referee are in test_playout.py, over the same rule sets (tests/rulesets.py).
"""

from __future__ import annotations

import json
import pickle
import random

import pytest

from arena import GameRecord, GameState, PlayerView, play_game, replay, shuffled_deck
from arena.actions import CODE
from arena.cards import NAMES, SUIT_MASK
from arena.hosting.codecs import PickleDecoder, PickleEncoder
from arena.protocol import ViewEncoder, view_from_json
from arena.variants import Variant
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from leagues.records.timeline import frames

from rulesets import RULESETS

GAMES = 12


def active_seats(v: Variant, dealer: int) -> list[int]:
    """The seats that play, in seat order: all but the dealer when the dealer sits out."""
    out = v.sit_out_from and v.players >= v.sit_out_from
    return [s for s in range(v.players) if not (out and s == dealer)]


def plays_so_far(state: GameState) -> list[list[tuple[int, int]]]:
    """The tricks as the action log tells them: (seat, card) groups of one card per active seat."""
    size = len(active_seats(state.variant, state.dealer))
    plays = [(s, NAMES.index(a[5:])) for s, a in state.actions if a.startswith("play ")]
    return [plays[i:i + size] for i in range(0, len(plays), size)]


def random_game(v: Variant, seed: int) -> GameState:
    """A fresh deal; the caller drives it."""
    return GameState.new(v, shuffled_deck(v, seed), seed % v.players)


def check_view(state: GameState, seat: int, rng: random.Random, sample: bool) -> None:
    view = PlayerView.of(state, seat)
    v = state.variant
    n = v.players
    seats = active_seats(v, state.dealer)
    # what the view says about seats and hands
    assert view.hand == state.hands[seat]
    assert list(view.hand_sizes) == [bin(h).count("1") for h in state.hands]
    for i, s in enumerate(seats):
        assert view.next_seat(s) == seats[(i + 1) % len(seats)], f"the seat after {s}"
    groups = plays_so_far(state)
    on_table = groups[-1] if groups and len(groups[-1]) < len(seats) else []
    assert view.trick_seats == on_table, "the seats of the cards on the table"
    assert [list(zip(view.trick_order(t[0]), t[1])) for t in view.tricks] == groups[:len(view.tricks)]
    # deductions are true of the real deal
    for s in range(n):
        known, excluded = view.known_cards(s), view.excluded_cards(s)
        assert known & state.hands[s] == known, f"seat {s}: a known card is not in its hand"
        assert not excluded & state.hands[s], f"seat {s}: an excluded card is in its hand"
        for suit in range(4):
            if view.voids(s) >> suit & 1:
                assert not state.hands[s] & SUIT_MASK[suit], f"seat {s}: void in {suit} but holds one"
    if not sample:
        return
    # a world sampled from the view is the view, and plays on to the end
    world = view.sample_world(rng)
    assert PlayerView.of(world, seat) == view
    for s in range(n):
        assert bin(world.hands[s]).count("1") == bin(state.hands[s]).count("1")
    while not world.is_over:
        legal = world.legal_actions()
        world.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("name", list(RULESETS))
def test_views_agree_with_the_deal_at_every_decision(name: str) -> None:
    v = RULESETS[name]
    for seed in range(GAMES):
        rng = random.Random(seed)
        state = random_game(v, 7000 + seed)
        enc, penc, pdec = ViewEncoder(), PickleEncoder(), PickleDecoder()
        while not state.is_over:
            for seat in range(v.players):
                check_view(state, seat, rng, sample=seat == state.current)
            view = PlayerView.of(state, state.current)
            assert view_from_json(json.loads(enc.view_json(view)), v) == view
            assert pdec.view(pickle.loads(penc.act_message(view, 1000)[4:])) == view
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("name", list(RULESETS))
def test_the_timeline_puts_every_card_under_the_seat_that_played_it(name: str) -> None:
    v = RULESETS[name]
    for seed in range(GAMES):
        players = [RandomBot(seed * 10 + s) for s in range(v.players)]
        record = play_game(v, shuffled_deck(v, seed), seed % v.players, players, seed=seed)
        record = GameRecord.loads(record.dumps())
        state = replay(record)
        assert state.result_ == record.result
        tricks = [[(s, NAMES[c]) for s, c in t] for t in plays_so_far(state)]
        done = 0
        for f in frames(record):
            if "trick" in f.tags:
                assert f.last_trick == tricks[done], f"trick {done + 1} at action {f.index}"
                done += 1
            assert f.trick == (tricks[done][:len(f.trick)] if f.trick else [])
        assert done == len([t for t in tricks if len(t) == len(active_seats(v, record.dealer))])


@pytest.mark.parametrize("name", list(RULESETS))
def test_greedy_deductions_are_true_of_the_deal(name: str) -> None:
    """Greedy reads voids and missing trumps from the tricks; what it reads must hold of the real hands."""
    v = RULESETS[name]
    for seed in range(GAMES):
        rng = random.Random(seed)
        state = random_game(v, 9000 + seed)
        bot = GreedyBot()
        bot.new_game({"players": v.players})
        while not state.is_over:
            view = PlayerView.of(state, state.current)
            bot.choose(view)
            for s in range(v.players):
                for suit in range(4):
                    if bot.voids[s] >> suit & 1:
                        assert not state.hands[s] & SUIT_MASK[suit], f"greedy: seat {s} void in {suit}, holds one"
                if s != state.current:
                    assert bot.voids[s] & ~view.voids(s) == 0, "greedy reads a void the view does not"
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("name", list(RULESETS))
def test_the_unchecked_push_agrees_with_apply_move_by_move(name: str) -> None:
    """Searches drive ``push(code)`` on copies; every seat's view of a pushed copy must equal the checked
    state's after every action, and the deal must end the same."""
    v = RULESETS[name]
    for seed in range(GAMES):
        rng = random.Random(seed)
        checked = random_game(v, 11000 + seed)
        fast = checked.copy()
        while not checked.is_over:
            legal = checked.legal_actions()
            action = legal[rng.randrange(len(legal))]
            checked.apply(action)
            fast.push(CODE[action])
            fast = fast.copy()  # the copy a search takes must carry everything on
            for seat in range(v.players):
                assert PlayerView.of(fast, seat) == PlayerView.of(checked, seat), f"after {action!r}"
        assert fast.is_over and fast.result_ == checked.result_
