"""arena.knowledge: deductions from a view are sound, and every sampled world agrees with the view.

Soundness is checked against the real deal (a deduction the true hands contradict is a bug), and
consistency against the view itself (``PlayerView.of(world, seat) == view``), over random positions of
random games in every variant, from every seat, with a few non-default rule options too.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from arena import GameState, PlayerView, get_variant, shuffled_deck
from arena.cards import BIT, SUIT_MASK, parse_card
from arena.knowledge import popcount

from positions import deal_state
from rulesets import RULESETS

VARIANTS = RULESETS  # every preset and the option sets (tests/rulesets.py)
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def random_position(name: str, seed: int, frac: float) -> GameState:
    """A state part-way (``frac`` of the deal's decisions, roughly) through a random legal game that
    prefers declarations, so that cantes, exchanges and last-draw cards appear often."""
    v = VARIANTS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    total = v.deck_size // v.players * v.players
    stop = int(frac * total)
    plays = 0
    while not state.is_over and plays < stop:
        legal = state.legal_actions()
        decl = [a for a in legal if not a.startswith("play") and not a.startswith("tute")]
        if decl and rng.random() < 0.8:
            state.apply(decl[0])
            continue
        choice = [a for a in legal if not a.startswith("tute")] or list(legal)
        a = choice[rng.randrange(len(choice))]
        state.apply(a)
        plays += a.startswith("play")
    return state


def check_world(state: GameState, seat: int, rng: random.Random) -> None:
    view = PlayerView.of(state, seat)
    k = view.knowledge
    n = state.n
    # soundness against the truth
    for s in range(n):
        known = view.known_cards(s)
        assert known & state.hands[s] == known, f"seat {s}: known cards not all in its hand"
        assert not view.excluded_cards(s) & state.hands[s], f"seat {s}: an excluded card is in its hand"
        for su in range(4):
            if view.voids(s) >> su & 1:
                assert not state.hands[s] & SUIT_MASK[su]
    assert k.unseen & state.hands[seat] == 0
    assert view.seen_cards & view.unseen_cards == 0
    for _ in range(3):
        world = view.sample_world(rng)
        assert PlayerView.of(world, seat) == view
        assert world.hands[seat] == state.hands[seat]
        for s in range(n):
            assert popcount(world.hands[s]) == popcount(state.hands[s]), "hand sizes"
            assert view.known_cards(s) & world.hands[s] == view.known_cards(s), "known card misplaced"
            assert not view.excluded_cards(s) & world.hands[s], "exclusion broken"
        assert world.stock_left == state.stock_left
        assert sorted(world.stock[world.stock_pos:]) == sorted(state.stock[state.stock_pos:]) or \
            len(world.stock) - world.stock_pos == len(state.stock) - state.stock_pos
        all_cards = 0
        for h in world.hands:
            assert not all_cards & h
            all_cards |= h
        for c in world.stock[world.stock_pos:]:
            assert not all_cards & BIT[c]
            all_cards |= BIT[c]
        assert all_cards | view.seen_cards | k.unseen == all_cards | view.seen_cards
        assert sorted(world.deck) == sorted(state.deck)
        # the world plays on: every legal action applies, and a random continuation ends the deal
        cont = world.copy()
        while not cont.is_over:
            legal = cont.legal_actions()
            cont.apply(legal[rng.randrange(len(legal))])


@settings(max_examples=250, **COMMON)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6), frac=st.floats(0, 1),
       seat=st.integers(0, 3))
def test_sampled_worlds_agree_with_the_view(name: str, seed: int, frac: float, seat: int) -> None:
    state = random_position(name, seed, frac)
    if state.is_over:
        return
    check_world(state, seat % state.n, random.Random(seed))


@settings(max_examples=150, **COMMON)
@given(name=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6), frac=st.floats(0, 1))
def test_what_a_seat_showed_by_its_plays_every_view_reads_alike(name: str, seed: int, frac: float) -> None:
    """Voids and exclusions come from the public tricks only, so every seat's view deduces the same
    for a seat, that seat's own view included (its ``voids`` are what the others know of it)."""
    state = random_position(name, seed, frac)
    views = [PlayerView.of(state, s) for s in range(state.n)]
    for s in range(state.n):
        assert len({v.voids(s) for v in views}) == 1, f"seat {s}: voids differ between views"
        assert len({v.excluded_cards(s) for v in views}) == 1, f"seat {s}: exclusions differ between views"


def test_every_decision_of_some_games() -> None:
    """Every decision point of whole games, from the seat on move (what a search bot samples)."""
    for name in VARIANTS:
        for seed in range(6):
            v = VARIANTS[name]
            rng = random.Random(seed)
            state = GameState.new(v, shuffled_deck(v, 1000 + seed), seed % v.players)
            while not state.is_over:
                check_world(state, state.current, rng)
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])


def test_known_cards_scenario() -> None:
    """Two players: the 40 sung, the exchange, the last draw; then the pile is empty and all is known."""
    v = get_variant("tute-2")
    state = deal_state(v, ["12o 11o 7o 4c 5c 6c", "1c 3c 12c 11c 10c 7c"], dealer=1, trump_card="1o",
                       stock="2e 3e")
    state.apply("play 4c")
    state.apply("play 1c")  # seat 1 wins, draws 2e; seat 0 draws 3e
    view = state.view(1)
    assert view.known_cards(0) == 0
    state.apply("sing c")
    assert state.view(0).known_cards(1) & BIT[parse_card("12c")]
    state.apply("play 7c")
    state.apply("play 5c")  # seat 1 wins again
    v0 = state.view(0)
    assert v0.known_cards(1) == BIT[parse_card("12c")] | BIT[parse_card("11c")]
    assert v0.excluded_cards(1) == 0  # the pile lasts: no duties, no deductions


def test_void_and_cannot_beat() -> None:
    """Strict play: not following proves a void; following low proves no higher card of the suit;
    discarding when void proves no trump."""
    v = get_variant("tute-4")
    hands = ["1o 2o 3c 4c 5c 6c 7c 10c 11c 12c",
             "3o 1e 2e 3e 4e 5e 6e 7e 10e 11e",
             "4o 12e 1b 2b 3b 4b 5b 6b 7b 10b",
             "5o 6o 7o 10o 11o 12o 11b 12b 1c 2c"]
    state = deal_state(v, hands, dealer=3, trump_card="2c")  # seat 0 leads, trump copas
    state.apply("play 2o")
    state.apply("play 3o")   # seat 1 beats
    state.apply("play 4o")   # seat 2 cannot beat 3o: no 1o (true: seat 0 has it)
    state.apply("play 5o")   # seat 3 cannot beat either
    view = state.view(0)
    assert view.excluded_cards(2) & BIT[parse_card("1o")]
    assert view.excluded_cards(3) & BIT[parse_card("1o")]
    assert view.known_cards(3) == BIT[parse_card("2c")]


def test_the_audit_example_cabron_knows_no_false_void() -> None:
    """Cabrón has no trump at first and only asks to follow suit: a discard proves a void in the led
    suit, never in trumps (there are none). The audit's deal: seat 1 discards 4e on 1c; seat 2's view
    once said seat 1 had no bastos, of which it holds seven."""
    state = deal_state("cabron", ["1c 3c 4c 5c 6c 7c 10c 11c 12c 1o 3o 4o",
                                  "1b 3b 4b 5b 6b 7b 10b 4e 5e 6e 7e 10e",
                                  "11b 12b 5o 6o 7o 10o 11o 12o 1e 3e 11e 12e"], dealer=2)
    state.apply("play 1c")
    state.apply("play 4e")
    view = state.view(2)
    assert view.voids(1) == 1 << 1  # copas, and only copas
    assert not view.excluded_cards(1) & state.hands[1]
    assert view.known_cards(2) == state.hands[2] and view.known_cards(1) & state.hands[1] == view.known_cards(1)
