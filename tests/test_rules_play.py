"""Scenario tests: one hand-built position per rule of docs/rules.md "The deck", "Seats, dealing, trump" and
"Playing a trick"."""

from __future__ import annotations

import pytest
from positions import cards, deal_state, holds, plays, position

from arena import GameState, IllegalAction, get_variant, parse_card, shuffled_deck
from arena.cards import FACE, NAMES, POINTS, STRENGTH, SUIT, card, deck, long_name
from arena.cards import NO_CARD


# ------------------------------------------------------------------------------------------ the deck
def test_order_inside_a_suit_high_to_low() -> None:
    faces = sorted((1, 2, 3, 4, 5, 6, 7, 10, 11, 12), key=lambda f: -STRENGTH[card(f, "o")])
    assert faces == [1, 3, 12, 11, 10, 7, 6, 5, 4, 2]


def test_points_of_the_deck() -> None:
    assert {f: POINTS[card(f, "c")] for f in (1, 3, 12, 11, 10, 7, 2)} == {1: 11, 3: 10, 12: 4, 11: 3, 10: 2,
                                                                          7: 0, 2: 0}
    assert sum(POINTS[c] for c in deck(40)) == 120
    assert sum(POINTS[c] for c in deck(36)) == 120  # the 2s are worth nothing


def test_notation_round_trips_and_reads_like_the_game() -> None:
    assert [NAMES[parse_card(t)] for t in "1o 3c 12e 11b 10o 7b".split()] == "1o 3c 12e 11b 10o 7b".split()
    assert long_name(parse_card("3c")) == "3 de copas" and long_name(parse_card("11o")) == "caballo de oros"
    assert long_name(parse_card("12e"), "en") == "king of swords"
    for bad in ("8o", "13c", "1x", "", "o1"):
        with pytest.raises(ValueError):
            parse_card(bad)


# -------------------------------------------------------------------------------- seats, dealing, trump
def test_two_players_deal_six_turn_up_trump_and_pile() -> None:
    v = get_variant("tute-2")
    d = shuffled_deck(v, 5)
    st = GameState.new(v, d, dealer=1)
    assert st.leader == 0 and st.current_player == 0  # the seat after the dealer leads
    assert st.hands[0] == sum(1 << c for c in d[0:12:2]) and st.hands[1] == sum(1 << c for c in d[1:12:2])
    assert st.trump_card == d[12] and st.trump == SUIT[d[12]] and st.face_up == d[12]
    assert list(st.stock) == d[13:] and st.stock_left == 28


@pytest.mark.parametrize("name,size,hand", [("tute-3", 36, 12), ("tute-4", 40, 10), ("tute-4-pairs", 40, 10)])
def test_no_pile_deals_all_and_dealer_last_card_shows_trump(name: str, size: int, hand: int) -> None:
    v = get_variant(name)
    d = shuffled_deck(v, 9)
    assert len(d) == size
    dealer = 2
    st = GameState.new(v, d, dealer)
    assert all(bin(h).count("1") == hand for h in st.hands)
    assert st.trump_card == d[-1] and st.hands[dealer] >> d[-1] & 1
    assert st.leader == (dealer + 1) % v.players and st.stock_left == 0
    if name == "tute-3":
        assert not any(FACE[c] == 2 for c in d)


def test_three_players_with_forty_cards_leave_a_dead_trump_card() -> None:
    v = get_variant("tute-3", three_player_deck=40)
    assert v.hand_size == 13
    d = shuffled_deck(v, 3)
    st = GameState.new(v, d, 0)
    dead = d[39]
    assert st.trump_card == dead and st.trump == SUIT[dead]
    assert not any(h >> dead & 1 for h in st.hands)
    while not st.is_over:
        st.apply(st.legal_actions()[-1])
    played = {c for _, cs, _ in st.tricks for c in cs}
    assert dead not in played and len(played) == 39


def test_pairs_are_seats_0_2_and_1_3_and_play_goes_up() -> None:
    v = get_variant("tute-4-pairs")
    assert v.teams == ((0, 2), (1, 3))
    st = GameState.new(v, shuffled_deck(v, 1), 3)
    seats = []
    for _ in range(4):
        seats.append(st.current_player)
        st.apply(st.legal_actions()[0])
    assert seats == [0, 1, 2, 3]


# ------------------------------------------------------------------------------------- playing a trick
def test_any_card_while_the_pile_lasts() -> None:
    st = deal_state("tute-2", ["1o 3o 12o 4c 5c 6c", "2o 7e 10e 11e 12e 1b"], dealer=1, trump_card="7b")
    st.apply("play 1o")
    assert plays(st) == {"2o", "7e", "10e", "11e", "12e", "1b"}


def test_habanero_trump_lead_must_be_followed_with_a_trump_while_the_pile_lasts() -> None:
    st = deal_state("habanero", ["1b 3o 12o 4c 5c 6c 7c 10c", "2b 7e 10e 11e 12e 1o 2o 4o"], dealer=1,
                    trump_card="7b")
    st.apply("play 1b")
    assert plays(st) == {"2b"}  # only trump, even a low one
    st2 = deal_state("habanero", ["3o 1b 12o 4c 5c 6c 7c 10c", "2b 7e 10e 11e 12e 1o 2o 4o"], dealer=1,
                     trump_card="7b")
    st2.apply("play 3o")
    assert len(plays(st2)) == 8  # a non-trump lead: any card


def test_follow_and_beat_montar() -> None:
    st = position("tute-4", ["10c", "3c 4c 1o", "11c 2c 7o", "5e 6e 7e"], trump="o", trick="10c")
    assert plays(st) == {"3c"}  # must follow copas and beat the 10
    st.apply("play 3c")
    assert plays(st) == {"11c", "2c"}  # cannot beat the 3: any copas (asistir)
    with pytest.raises(IllegalAction, match="follow suit c"):
        st.apply("play 7o")


def test_beat_the_led_suit_unless_a_trump_was_played() -> None:
    hands = ["10c", "1o 2e 3e", "3c 4c 5e", "5c 6c 7e"]
    st = position("tute-4", hands, trump="o", trick="10c 1o")
    assert plays(st) == {"3c", "4c"}  # trumped: any copas will do
    st2 = position("tute-4", hands, trump="o", trick="10c 1o", must_beat_led_after_trumped=True)
    assert plays(st2) == {"3c"}


def test_void_must_trump_fallar() -> None:
    st = position("tute-4", ["10c", "4o 12o 1e", "2c", "3c"], trump="o", trick="10c")
    assert plays(st) == {"4o", "12o"}


def test_void_must_overtrump_pisar_when_possible() -> None:
    st = position("tute-4", ["10c", "11o 2e 3e", "12o 4o 1e", "3c 4c 5c"], trump="o", trick="10c 11o")
    assert plays(st) == {"12o"}


def test_only_lower_trumps_means_any_card_unless_undertrump_required() -> None:
    hands = ["10c", "1o 2e 3e", "4o 1e 5e", "3c 4c 5c"]
    st = position("tute-4", hands, trump="o", trick="10c 1o")
    assert plays(st) == {"4o", "1e", "5e"}
    st2 = position("tute-4", hands, trump="o", trick="10c 1o", undertrump_required=True)
    assert plays(st2) == {"4o"}


def test_neither_suit_nor_trump_means_any_card() -> None:
    st = position("tute-4", ["10c", "1e 2e 3b", "3c", "4c"], trump="o", trick="10c")
    assert plays(st) == {"1e", "2e", "3b"}


def test_trump_lead_higher_trump_else_any_trump_else_any_card() -> None:
    st = position("tute-4", ["10o", "3o 4o 1e", "4b 5o 2c", "1c 2e 3e"], trump="o", trick="10o")
    assert plays(st) == {"3o"}
    st.apply("play 3o")
    assert plays(st) == {"5o"}  # cannot beat the 3: any trump
    st.apply("play 5o")
    assert plays(st) == {"1c", "2e", "3e"}


def test_no_exemption_when_partner_is_winning() -> None:
    hands = ["1c 5c", "4c 7b", "3c 12c", "5e 6e"]
    st = position("tute-4-pairs", hands, trump="o", leader=1, trick="4c 3c 5e")  # partner 2 winning
    assert plays(st) == {"1c"}  # seat 0 must still beat its partner's 3
    st2 = position("tute-4-pairs", hands, trump="o", leader=1, trick="4c 3c 5e", partner_exemption=True)
    assert plays(st2) == {"1c", "5c"}
    void = ["2b 7e", "4c 6b", "3c 12c", "5e 6e"]
    assert plays(position("tute-4-pairs", void, trump="b", leader=1, trick="4c 3c 5e")) == {"2b"}
    assert plays(position("tute-4-pairs", void, trump="b", leader=1, trick="4c 3c 5e",
                          partner_exemption=True)) == {"2b", "7e"}


def test_highest_trump_wins_else_highest_of_led_suit_and_winner_leads() -> None:
    st = position("tute-4", ["10c 1e", "2o 4e", "1c 5e", "4o 6e"], trump="o", trick="10c 2o 1c")
    assert plays(st) == {"4o"}
    st.apply("play 4o")
    assert st.tricks[-1] == (0, tuple(cards("10c 2o 1c 4o")), 3)
    assert st.current_player == 3 and st.points[3] == 2 + 11
    st = position("tute-4", ["10c 1e", "12c 4e", "1b 5e", "2c 6e"], trump="o", trick="10c 12c 1b 2c")
    assert st.tricks[-1][2] == 1 and st.current_player == 1


def test_winner_draws_first_and_loser_takes_the_face_up_card_last() -> None:
    v = get_variant("tute-2")
    st = GameState.new(v, shuffled_deck(v, 11), 0)
    while st.stock_left > 2:
        st.apply([a for a in st.legal_actions() if a.startswith("play")][0])
    # one face-down card and the face-up trump card are left: play the last trick before the draw
    face_down_top = st.stock[-1]
    face_up = st.face_up
    while len(st.tricks) < 14:
        st.apply([a for a in st.legal_actions() if a.startswith("play")][0])
    w = st.tricks[-1][2]
    assert st.hands[w] >> face_down_top & 1 and st.hands[1 - w] >> face_up & 1
    assert st.stock_left == 0 and st.face_up == NO_CARD and st.strict


def test_draws_go_to_winner_first() -> None:
    st = deal_state("tute-2", ["1o 4c 5c 6c 7c 10c", "2o 4e 5e 6e 7e 10e"], dealer=1, trump_card="3b",
                    stock="1c 1e 12b 11b")
    st.apply("play 1o")
    st.apply("play 2o")
    assert holds(st, 0, "1c") and holds(st, 1, "1e")
    st.apply("play 4c")
    st.apply("play 4e")  # seat 0 wins again (led suit), draws 12b; seat 1 draws 11b
    assert holds(st, 0, "12b") and holds(st, 1, "11b")


def test_strict_from_the_trick_right_after_the_last_draw() -> None:
    v = get_variant("tute-2")
    for seed in range(40):
        st = GameState.new(v, shuffled_deck(v, seed), 0)
        while len(st.tricks) < 14 and not st.is_over:
            st.apply([a for a in st.legal_actions() if a.startswith("play")][-1])
        if st.is_over:
            continue
        assert st.strict
        lead = [a for a in st.legal_actions() if a.startswith("play")][0]
        st.apply(lead)
        led = SUIT[parse_card(lead[5:])]
        other = st.hands[st.current_player]
        suited = [c for c in range(40) if other >> c & 1 and SUIT[c] == led]
        if suited:
            assert all(SUIT[parse_card(p)] == led for p in plays(st))
            return
    pytest.fail("no seed reached a strict trick with a suit to follow")
