"""The endgame solver for two sides of more seats (``bots/team_endgame.py``): its value is the referee's.

``search`` trusts it in the last tricks of ``tute-4-pairs``, in every world of a decision, with one
cache for all of them and a bound that decides a position without a move. These tests hold it to a
plain minimax over the referee itself (a side's seats maximising together, every seat declaring what
it can), from positions where a seat leads and from positions in the middle of a trick, in the rule
sets it is used in.
"""

from __future__ import annotations

import random

import pytest

from arena import GameState, get_variant, shuffled_deck
from arena.cards import mask_of, parse_card
from arena.rules import trick_state
from bots.endgame import WIN
from bots.oracle import OracleBot
from bots.team_endgame import TeamEndgame

from minimax import minimax
from positions import position

RULE_SETS = {
    "tute-4-pairs": {},
    "no last ten": {"last_trick_bonus": 0},
    "undertrump required": {"undertrump_required": True},
    "partner exemption": {"partner_exemption": True},
    "Tute at the first trick only": {"tute_mode": "first_team_trick"},
    "one cante a window per side": {"cantes_scope": "team"},
    "the 40 not first": {"forty_first": False},
    "a tie is a draw": {"tie": "draw"},
}


def _position(v, seed: int, cards: int, in_trick: int) -> GameState | None:
    """A random legal game stopped where every hand holds at most ``cards`` cards, ``in_trick`` cards are
    on the table and a card is to be played."""
    st = GameState.new(v, shuffled_deck(v, seed), seed % 4)
    rng = random.Random(seed)
    while not st.is_over:
        legal = st.legal_actions()
        if (len(st.trick) == in_trick and max(bin(h).count("1") for h in st.hands) <= cards
                and all(a.startswith("play") for a in legal)):
            return st
        st.apply(legal[rng.randrange(len(legal))])
    return None


def _solver_args(st: GameState, me: int) -> tuple:
    view = st.view(st.current)
    team = st.rules.team
    diff = sum(p if team[s] == team[me] else -p for s, p in enumerate(st.points))
    left = bin(st.hands[st.current]).count("1")
    return (list(st.hands), st.current, list(st.trick), view.leader, diff, view.sung_mask,
            list(view.tricks_won), left)


@pytest.mark.parametrize("name", RULE_SETS)
def test_the_solver_value_is_the_minimax_value(name: str) -> None:
    """From both sides, 3-card hands, a trick led or partly played: each legal card's value in a full
    window is the referee's minimax value after it (win, then margin; a Tute is the win alone), a null
    window around a draw gives its sign, and a cache shared by many deals changes neither."""
    v = get_variant("tute-4-pairs", **RULE_SETS[name])
    checked = 0
    shared: dict[tuple[int, int], TeamEndgame] = {}
    for seed in range(60):
        st = _position(v, seed, 3, seed % 4)
        if st is None:
            continue
        nxt = st.rules.next[st.dealer]
        for me in (st.current, nxt[st.current]):  # one seat of each side
            args = _solver_args(st, me)
            solver = shared.setdefault((me % 2, st.trump), TeamEndgame(v.rules, st.trump, me, nxt, 10**7))
            for a in st.legal_actions():
                child = st.copy()
                child.apply(a)
                truth = minimax(child, me)
                card = parse_card(a.split()[1])
                fresh = TeamEndgame(v.rules, st.trump, me, nxt, 10**7)
                assert fresh.solve(*args, -10 * WIN, 10 * WIN, card) == truth, (seed, me, a)
                win = solver.solve(*args, -1, 1, card)
                assert (win >= 1) == (truth > 0) and (win <= -1) == (truth < 0), (seed, me, a)
                checked += 1
            assert TeamEndgame(v.rules, st.trump, me, nxt, 10**7).solve(*args, -10 * WIN, 10 * WIN) \
                == minimax(st.copy(), me), (seed, me)
    assert checked > 150


def test_a_four_card_position_and_the_node_count() -> None:
    """Four cards a hand: still the referee's value, and the nodes are counted in ``spent``."""
    v = get_variant("tute-4-pairs")
    checked = 0
    for seed in range(200, 212):
        st = _position(v, seed, 4, 0)
        if st is None:
            continue
        me = st.current
        nxt = st.rules.next[st.dealer]
        solver = TeamEndgame(v.rules, st.trump, me, nxt, 10**7)
        assert solver.solve(*_solver_args(st, me), -10 * WIN, 10 * WIN) == minimax(st.copy(), me), seed
        assert solver.spent == solver.nodes > 0
        checked += 1
    assert checked >= 6



@pytest.mark.parametrize("name", RULE_SETS)
def test_the_solver_s_duties_are_the_referee_s(name: str) -> None:
    """Every follower's cards in the solver are the referee's legal plays, at every card of the last
    tricks of random games (the exemption of a partner's trick included)."""
    v = get_variant("tute-4-pairs", **RULE_SETS[name])
    checked = 0
    for seed in range(40):
        st = GameState.new(v, shuffled_deck(v, seed), seed % 4)
        rng = random.Random(seed)
        nxt = st.rules.next[st.dealer]
        solver = TeamEndgame(v.rules, st.trump, 0, nxt, 10)
        while not st.is_over:
            legal = st.legal_actions()
            if st.trick and all(a.startswith("play") for a in legal):
                seats = [st.leader]
                for _ in range(len(st.trick) - 1):
                    seats.append(nxt[seats[-1]])
                led, best_led, top, win = trick_state(st.trick, seats, st.trump)
                mask = solver.moves(st.hands[st.current], st.current, led, best_led, top, win)
                assert mask == mask_of(parse_card(a.split()[1]) for a in legal), (seed, st.trick)
                checked += 1
            st.apply(legal[rng.randrange(len(legal))])
    assert checked > 500


def test_the_partner_of_the_trick_winner_declares_first() -> None:
    """One cante a window per side: seat 0 takes the first trick with the ace of clubs and holds the 40
    (oros are trumps); its partner, seat 2, holds the 20 in espadas. The referee asks the partner first,
    so the window gives the side 20, and the 40 is never sung (seat 0 leads a half of it next). Asked
    the other way round, the side would sing 40 now and 20 at the next trick. The solver counts 20."""
    st = position("tute-4-pairs", ["1c 12o 11o", "1b 3b 4b", "12e 11e 4c", "5b 6b 7b"], "o", leader=0,
                  cantes_scope="team")
    nxt = st.rules.next[st.dealer]
    args = _solver_args(st, 0)
    for me in (0, 1):
        solver = TeamEndgame(st.rules, st.trump, me, nxt, 10**6)
        assert solver.solve(*_solver_args(st, me), -10 * WIN, 10 * WIN) == minimax(st.copy(), me)
    value = TeamEndgame(st.rules, st.trump, 0, nxt, 10**6).solve(*args, -10 * WIN, 10 * WIN)
    # side 0 takes every trick: all the points in play (1c 11, 1b 11, 3b 10, 12o and 12e 4 each, 11o and
    # 11e 3 each), the last ten and one cante of 20 (not 40 + 20)
    assert value == WIN + 46 + 10 + 20, value


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def test_search_plays_the_last_tricks_for_the_win() -> None:
    """``search`` with every card known (``oracle``, one world) in the last three tricks of tute-4-pairs:
    the card it plays wins, draws or loses as the best card does under the referee's minimax. Played
    out by the policy instead (``solve_tricks = 0``), the card chosen loses where another wins in
    about 2% of such positions; the last nine seeds are such positions."""
    v = get_variant("tute-4-pairs")
    checked = worse_by_policy = 0
    for seed in [*range(300, 340), 568, 675, 940, 1026, 1065, 1394, 1776, 1922, 1939]:
        st = _position(v, seed, 3, seed % 4)
        if st is None or len(st.legal_actions()) < 2:
            continue
        me = st.current
        outcome = {}
        for a in st.legal_actions():
            child = st.copy()
            child.apply(a)
            outcome[a] = _sign(minimax(child, me))
        chosen = []
        for solve in (3, 0):
            bot = OracleBot(worlds=1, solve_tricks=solve, epsilon=0.0)
            bot.new_game({"seed": seed, "seat": me})
            bot.see(st)
            chosen.append(bot.choose(st.view(me)))
        assert outcome[chosen[0]] == max(outcome.values()), (seed, chosen[0], outcome)
        worse_by_policy += outcome[chosen[1]] < max(outcome.values())
        checked += 1
    assert checked > 30
    assert worse_by_policy >= 9


def test_a_partner_s_tute_wins_the_deal_for_the_side() -> None:
    """Seat 0 takes the first trick with the ace of clubs; its partner, seat 2, keeps its four kings by
    following with the 4 of clubs, and declares the Tute in the window. Side 0 is 200 points behind, so
    only the Tute wins it the deal (five cards a hand: with four or fewer no hand still holds four kings
    after a trick). With the Tute disabled the same cards lose."""
    hands = ["1c 2b 3b 4b 5b", "2c 6b 7b 10b 11b", "12o 12c 12e 12b 4c", "5c 6c 7c 10c 11c"]

    def value(st: GameState, me: int) -> int:
        args = list(_solver_args(st, me))
        args[4] = -200 if me % 2 == 0 else 200  # side 0's points minus side 1's, from me's side
        solver = TeamEndgame(st.rules, st.trump, me, st.rules.next[st.dealer], 10**6)
        return solver.solve(*args, -10 * WIN, 10 * WIN)

    st = position("tute-4-pairs", hands, "o", leader=0)
    assert [value(st, me) for me in range(4)] == [WIN, -WIN, WIN, -WIN]
    off = position("tute-4-pairs", hands, "o", leader=0, tute_mode="disabled")
    assert value(off, 0) < 0 < value(off, 1)
