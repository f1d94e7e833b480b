"""``search``'s exact leaves (``solve_pile``): a playout stopped where the pile runs out is the referee's
position there, and the solver's verdict on it is the minimax one.

Two players: once the pile is gone every card of a world is known, so the rest of the deal can be
solved instead of played out by the policy. These tests pin both halves of that: the ``Frontier`` the
fast playout hands over (replayed on the referee: same hands, points, cantes, tricks, player to lead)
and the win the solver reads from it (a plain minimax over the referee itself, on 4-card hands).
"""

from __future__ import annotations

import random
from typing import Iterator

import pytest

from arena import GameState, get_variant, play_game, shuffled_deck
from arena.cards import NAMES, NO_CARD
from bots.greedy import GreedyBot
from bots.endgame import Endgame
from bots.playout import Frontier, Position, playout
from bots.search import SearchBot

from test_search import _brute

SMALL = get_variant("tute-2", hand_size=4)  # 4-card hands at the frontier: the brute force is cheap


def pile_turn(v, seed: int) -> GameState | None:
    """A random legal game stopped at a play turn while the pile lasts (declarations taken)."""
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % 2)
    stop = rng.randrange(max(1, (v.deck_size - 2 * v.hand_size) // 2))
    while not state.is_over and state.face_up != NO_CARD:
        legal = state.legal_actions()
        decl = [a for a in legal if not a.startswith("play") and not a.startswith("tute")]
        if decl:
            state.apply(decl[0])
            continue
        if len(state.tricks) >= stop and not state.trick and len(legal) > 1:
            return state
        state.apply(legal[rng.randrange(len(legal))])
    return None


def frontier_of(state: GameState, seed: int) -> tuple[Frontier, GameState] | None:
    """Play out from ``state`` with ``stop_at_strict``; replay the trace on the referee to the same
    point. None when the deal ended before the pile did (a Tute)."""
    view = state.view(state.current)
    rng = random.Random(seed)
    first = next(c for c, n in enumerate(NAMES) if "play " + n in view.legal)
    trace: list[tuple[int, str, int]] = []
    out = playout(state.variant.rules, Position(view), list(state.hands), list(state.stock[state.stock_pos:]),
                  first, rng.random, 0.3, trace, True)
    ref = state.copy()
    for seat, action, mask in trace:
        assert ref.current == seat and action in ref.legal_actions(), action
        ref.apply(action)
    if not isinstance(out, Frontier):
        assert ref.is_over
        return None
    return out, ref


def frontiers(v, seeds: range) -> Iterator[tuple[GameState, Frontier, GameState]]:
    """For each seed whose random game reaches a pile turn and whose playout from it reaches the pile's
    end: the turn, the playout's frontier and the referee replayed to it."""
    for seed in seeds:
        state = pile_turn(v, seed)
        if state is None:
            continue
        got = frontier_of(state, seed)
        if got is not None:
            yield state, got[0], got[1]


@pytest.mark.parametrize("v", [get_variant("tute-2"), SMALL, get_variant("habanero")],
                         ids=["tute-2", "tute-2 hand_size=4", "habanero"])
def test_the_frontier_is_the_referees_position_where_the_pile_ran_out(v) -> None:
    seen = 0
    for state, f, ref in frontiers(v, range(150)):
        # the referee, after the same actions, is where the pile just ran out, nothing owed but a lead
        assert ref.face_up == NO_CARD and ref.stock_left == 0 and not ref.trick
        # every declaration due was made before the stop: the solver sings only after its own tricks
        assert not [a for a in ref.legal_actions() if a.split()[0] in ("sing", "tute", "exchange")]
        while not any(a.startswith("play") for a in ref.legal_actions()):  # a declaration window left open
            ref.apply("pass")
        assert ref.current == f.leader
        assert list(ref.hands) == f.hands
        assert list(ref.points) == f.points
        assert ref.view(0).sung_mask == f.sung
        assert list(ref.tricks_won) == f.won
        assert f.left == bin(f.hands[f.leader]).count("1")
        seen += 1
    assert seen > 60


def test_the_leaf_value_is_the_minimax_win() -> None:
    """On 4-card frontiers: the solver's win (null window) is the sign of the referee's minimax. One
    solver per seat and trump serves every deal, as one serves every leaf of a decision: what it
    caches from one position must not mislead it on another."""
    bot = SearchBot()
    checked = {0: 0, 1: 0}
    solvers: dict[tuple[int, int], Endgame] = {}
    for seed in range(200):
        state = pile_turn(SMALL, seed)
        got = frontier_of(state, seed) if state is not None else None
        if got is None:
            continue
        f, ref = got
        for seat in (0, 1):
            solver = solvers.setdefault((seat, ref.trump), Endgame(SMALL.rules, ref.trump, seat, 10**6))
            value = bot._leaf(solver, f, 0.0, {})
            truth = _brute(ref.copy(), seat)
            assert value == (1.0 if truth > 0 else 0.0 if truth < 0 else 0.5), (seed, seat, truth)
            checked[value == 1.0] += 1
    assert min(checked.values()) > 30  # both verdicts tested


def test_search_with_exact_leaves_plays_legal_reproducible_deals() -> None:
    """No time budget (a loaded machine must not cut a decision short): the same deal twice; leaves
    solved where the hands are small enough, none in habanero (8 cards)."""
    for v in (get_variant("tute-2"), SMALL, get_variant("habanero"), get_variant("tute-2-8")):
        runs = []
        for _ in range(2):
            bot = SearchBot(worlds=6, solve_pile=8, seed=3, max_ms=1e9)
            solved = []
            leaf = bot._leaf
            bot._leaf = lambda *a: solved.append(1) or leaf(*a)  # type: ignore[method-assign]
            rec = play_game(v, shuffled_deck(v, 5), 1, [bot, GreedyBot()], seed=9)
            assert rec.result.forfeit is None
            runs.append(rec.actions)
            assert bool(solved) == (v.hand_size <= 6), v.name  # tute-2-8 and habanero deal 8
        assert runs[0] == runs[1]


def test_a_leaf_over_its_node_budget_is_played_out_by_the_policy() -> None:
    """``leaf_nodes`` bounds a leaf (so the time of a world): over it ``_leaf`` says so (None, counted),
    and the search plays that card out by the policy, as without leaves, and still plays legally."""
    state = next(s for s in (pile_turn(SMALL, seed) for seed in range(50)) if s is not None)
    f, ref = frontier_of(state, 0) or (None, None)
    assert f is not None
    bot = SearchBot(leaf_nodes=0)
    assert bot._leaf(Endgame(SMALL.rules, ref.trump, 0, bot.leaf_nodes), f, 0.0, {}) is None
    assert bot.leaf_aborts == 1
    v = get_variant("tute-2")
    over = SearchBot(worlds=4, leaf_nodes=0, max_ms=1e9)
    rec = play_game(v, shuffled_deck(v, 2), 0, [over, GreedyBot()], seed=2)
    assert rec.result.forfeit is None and over.leaf_aborts > 0


def test_the_leaf_cost_benchmark_counts_the_leaves_it_times() -> None:
    """``benchmarks/leaf_cost.py``: its positions are what it says (the cards left, a choice), each
    decision solves leaves, a leaf counts once however often its frontier recurs, and the search is
    left as it was found."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "leaf_cost.py"
    spec = importlib.util.spec_from_file_location("leaf_cost", path)
    bench = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    views = bench.positions("tute-2", 2, 4)
    assert len(views) == 4 and all(v.stock_left == 2 and sum(a.startswith("play") for a in v.legal) > 1
                                   for v in views)
    inner = SearchBot._leaf
    solves = []
    solve = Endgame.solve
    Endgame.solve = lambda self, *a: solves.append(1) or solve(self, *a)  # type: ignore[method-assign]
    try:
        _, solved, per_leaf = bench.measure(SearchBot, views, 6)
    finally:
        Endgame.solve = solve  # type: ignore[method-assign]
    assert SearchBot._leaf is inner
    assert solved * len(views) == len(solves) > 0 and per_leaf > 0  # the solver's calls, no more
    # fewer than one a world and a card: frontiers recur (2 cards left: few to deal)
    assert len(solves) < 6 * sum(sum(a.startswith("play") for a in v.legal) for v in views)
