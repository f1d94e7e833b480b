"""The two-player endgame solver (``bots/endgame.py``): its value is the referee's minimax value.

``search`` trusts the solver twice, for the exact endgame and for the leaves of its playouts, and the
solver cuts corners to be fast enough for the leaves: a position whose margin can no longer turn is
decided without a move, and one cache serves every leaf of a decision. These tests hold the solver to
a plain minimax over the referee (``test_search._brute``) in the rule sets it plays, and hold its cache
to positions, not to whichever deal filled it.
"""

from __future__ import annotations

import random

import pytest

from arena import GameState, get_variant, shuffled_deck
from arena.cards import NO_CARD, parse_card
from bots.endgame import WIN, Endgame

from test_search import _brute

RULE_SETS = {
    "tute-2": {},
    "no cantes after the pile": {"cantes_after_stock": False},
    "undertrump required": {"undertrump_required": True},
    "Tute at the first trick only": {"tute_mode": "first_team_trick"},
    "no last ten": {"last_trick_bonus": 0},
    "habanero": None,
}


def strict_lead(v, seed: int, cards: int) -> GameState | None:
    """A random legal game stopped where a seat leads with ``cards`` in hand, the pile gone and no
    declaration due."""
    st = GameState.new(v, shuffled_deck(v, seed), seed % 2)
    rng = random.Random(seed)
    while not st.is_over:
        legal = st.legal_actions()
        if (st.face_up == NO_CARD and not st.trick and bin(st.hands[st.current]).count("1") == cards
                and all(a.startswith("play") for a in legal)):
            return st
        st.apply(legal[rng.randrange(len(legal))])
    return None


@pytest.mark.parametrize("name", RULE_SETS)
def test_the_solver_value_is_the_minimax_value(name: str) -> None:
    """From both seats, on 4-card positions: the full-window value equals the referee's minimax (win,
    then margin; a Tute is the win alone), and a null window around a draw gives its sign."""
    opts = RULE_SETS[name]
    v = get_variant("habanero") if opts is None else get_variant("tute-2", **opts)
    checked = 0
    solvers: dict[tuple[int, int], Endgame] = {}
    for seed in range(90):
        st = strict_lead(v, seed, 4)
        if st is None:
            continue
        view = st.view(st.current)
        for me in (0, 1):
            truth = _brute(st.copy(), me)
            diff = st.points[me] - st.points[1 - me]
            fresh = Endgame(v.rules, st.trump, me, 10**7)
            args = (list(st.hands[:2]), st.current, diff, view.sung_mask, list(view.tricks_won), 4)
            assert fresh.solve(*args, -10 * WIN, 10 * WIN) == truth, (seed, me)
            shared = solvers.setdefault((me, st.trump), Endgame(v.rules, st.trump, me, 10**7))
            win = shared.solve(*args, -1, 1)
            assert (win >= 1) == (truth > 0) and (win <= -1) == (truth < 0), (seed, me)
            checked += 1
    assert checked > 40


def test_the_cache_tells_a_first_trick_tute_apart() -> None:
    """With a Tute only at a side's first won trick, the same hands are a Tute for a side that has not
    won a trick yet and not for one that has: a solver that cached the second must still see the first."""
    v = get_variant("tute-2", hand_size=5, tute_mode="first_team_trick")
    kings = sum(1 << parse_card(c) for c in ("1o", "12o", "12c", "12e", "12b"))  # the ace takes a trick
    other = sum(1 << parse_card(c) for c in ("4o", "5c", "6e", "7b", "2b"))
    args = ([kings, other], 0, -100, 0)  # far behind on points: only the Tute wins
    for first, then in (([3, 2], [0, 6]), ([0, 6], [3, 2])):
        shared = Endgame(v.rules, 0, 0, 10**6)
        shared.solve(*args, first, 5, -10 * WIN, 10 * WIN)
        fresh = Endgame(v.rules, 0, 0, 10**6)
        assert shared.solve(*args, then, 5, -10 * WIN, 10 * WIN) == fresh.solve(*args, then, 5, -10 * WIN,
                                                                                  10 * WIN)
    assert Endgame(v.rules, 0, 0, 10**6).solve(*args, [0, 6], 5, -10 * WIN, 10 * WIN) == WIN
    assert Endgame(v.rules, 0, 0, 10**6).solve(*args, [3, 2], 5, -10 * WIN, 10 * WIN) < 0


def test_a_cante_still_held_can_turn_the_margin() -> None:
    """40 behind with 18 card points and the last ten left, the margin looks lost; but the 40 in
    trumps is still in hand, to be sung after the next won trick: the solver must not call it early."""
    v = get_variant("tute-2", hand_size=4)
    mine = sum(1 << parse_card(c) for c in ("12o", "11o", "1c", "4e"))
    other = sum(1 << parse_card(c) for c in ("2c", "5e", "6b", "7b"))
    for alpha, beta in ((-10 * WIN, 10 * WIN), (-1, 1)):
        assert Endgame(v.rules, 0, 0, 10**6).solve([mine, other], 0, -40, 0, [3, 5], 4, alpha, beta) > 0
