"""Scenario tests: docs/rules.md "Declarations: exchange, cantes, Tute" and "The end of a deal"."""

from __future__ import annotations

import pytest
from positions import deal_state, holds, position

from arena import GameState, IllegalAction, get_variant, shuffled_deck

# seat 0 leads (dealer 1); 1o beats 2o, so seat 0 wins the first trick and draws first
TWO = dict(dealer=1)


def win_first_trick(st: GameState) -> None:
    st.apply("play 1c")
    st.apply("play 2c")
    assert st.current_player == 0 and st.window_seat == 0


# ------------------------------------------------------------------------------------------- exchange
@pytest.mark.parametrize("up", ["1o", "3o", "12o", "11o", "10o"])
def test_seven_of_trumps_takes_a_face_up_picture_or_ace(up: str) -> None:
    st = deal_state("tute-2", ["1c 7o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card=up, **TWO)
    assert "exchange 7o" not in st.legal_actions()  # the first leader has won no trick
    win_first_trick(st)
    assert "exchange 7o" in st.legal_actions()
    st.apply("exchange 7o")
    assert holds(st, 0, up) and not holds(st, 0, "7o") and st.face_up == 6  # 7o face up now
    assert st.exchanges == ((0, 6, st.trump_card),)
    assert "exchange 7o" not in st.legal_actions() and st.current_player == 0


@pytest.mark.parametrize("up", ["7o", "6o", "5o", "4o"])
def test_two_of_trumps_takes_a_face_up_low_card(up: str) -> None:
    st = deal_state("tute-2", ["1c 2o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card=up, **TWO)
    win_first_trick(st)
    assert "exchange 2o" in st.legal_actions()
    st.apply("exchange 2o")
    assert holds(st, 0, up) and st.face_up == 1


def test_exchanges_refused_for_the_wrong_face_up_card_or_when_switched_off() -> None:
    st = deal_state("tute-2", ["1c 7o 2o 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="4o", **TWO)
    win_first_trick(st)
    assert "exchange 7o" not in st.legal_actions() and "exchange 2o" in st.legal_actions()
    st = deal_state("tute-2", ["1c 7o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o",
                    exchange_seven=False, **TWO)
    win_first_trick(st)
    assert not [a for a in st.legal_actions() if a.startswith("exchange")]
    with pytest.raises(IllegalAction):
        st.apply("exchange 7o")


def test_the_seven_exchange_then_the_two_takes_the_seven_once_each() -> None:
    st = deal_state("tute-2", ["1c 7o 2o 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o", **TWO)
    win_first_trick(st)
    st.apply("exchange 7o")
    assert "exchange 2o" in st.legal_actions()  # 7o is face up now, and the 2 takes a 7
    st.apply("exchange 2o")
    assert holds(st, 0, "7o") and holds(st, 0, "1o") and st.face_up == 1
    assert not [a for a in st.legal_actions() if a.startswith("exchange")]


def test_no_exchange_once_the_pile_is_gone() -> None:
    st = position("tute-2", ["1c 7o", "2c 4b"], trump="o", leader=0, trick="1c 2c")
    assert st.window_seat == 0 and not [a for a in st.legal_actions() if a.startswith("exchange")]


# ------------------------------------------------------------------------------------------- cantes
def test_cante_twenty_and_forty_after_a_won_trick_keeps_the_singer_on_move() -> None:
    st = deal_state("tute-2", ["1c 12e 11e 4b 5b 6b", "2c 4c 5c 6c 7c 10c"], trump_card="7o", **TWO)
    assert not [a for a in st.legal_actions() if a.startswith("sing")]
    win_first_trick(st)
    assert st.legal_actions()[0] == "sing e"
    before = st.points[0]
    st.apply("sing e")
    assert st.points[0] == before + 20 and st.cantes == ((0, 2, 20),) and st.current_player == 0
    assert not [a for a in st.legal_actions() if a.startswith("sing")]  # one cante per won trick
    st2 = deal_state("tute-2", ["1c 12o 11o 4b 5b 6b", "2c 4c 5c 6c 7c 10c"], trump_card="7o", **TWO)
    win_first_trick(st2)
    st2.apply("sing o")
    assert st2.points[0] == 11 + 40


def test_forty_first_and_each_suit_once_per_deal() -> None:
    hands = ["1c 12o 11o 12e 11e 3c", "2c 4c 5b 6b 7b 10b"]
    st = deal_state("tute-2", hands, trump_card="7o", stock="4e 5e 6e 7e", **TWO)
    win_first_trick(st)
    assert [a for a in st.legal_actions() if a.startswith("sing")] == ["sing o"]
    st.apply("sing o")
    st.apply("play 3c")
    st.apply("play 4c")  # seat 0 wins again
    assert [a for a in st.legal_actions() if a.startswith("sing")] == ["sing e"]
    st.apply("sing e")
    assert st.points[0] == 11 + 40 + 10 + 20
    # without forty_first, either suit may come first
    st2 = deal_state("tute-2", hands, trump_card="7o", forty_first=False, **TWO)
    win_first_trick(st2)
    assert [a for a in st2.legal_actions() if a.startswith("sing")] == ["sing o", "sing e"]


def test_a_sung_suit_is_not_offered_again() -> None:
    st = deal_state("tute-2", ["1c 3c 12e 11e 4b 5b", "2c 4c 5c 6c 7c 10c"], trump_card="7o",
                    stock="6b 7b 10b 4e", **TWO)
    win_first_trick(st)
    st.apply("sing e")
    st.apply("play 3c")
    st.apply("play 4c")
    assert st.window_seat == 0 and "sing e" not in st.legal_actions()


def test_cantes_after_the_pile_only_when_allowed() -> None:
    hands = ["1c 12e 11e", "2c 4c 5c"]
    assert "sing e" in position("tute-2", hands, trump="o", trick="1c 2c").legal_actions()
    st = position("tute-2", hands, trump="o", trick="1c 2c", cantes_after_stock=False)
    assert "sing e" not in st.legal_actions()


def test_pairs_partner_sings_first_then_the_winner_each_one_cante() -> None:
    hands = ["1c 12b 11b", "2c 4e 5e", "3c 12e 11e", "4c 6e 7e"]
    st = position("tute-4-pairs", hands, trump="o", leader=0, trick="1c 2c 3c 4c")
    assert st.current_player == 2 and st.legal_actions() == ("sing e", "pass")
    st.apply("sing e")
    assert st.current_player == 0 and st.legal_actions()[0] == "sing b"  # partner done: the winner
    st.apply("sing b")
    assert st.points[2] == 20 and st.points[0] == 11 + 10 + 20
    assert [s for s, _ in st.actions[-2:]] == [2, 0]


def test_pairs_partner_may_pass_and_is_not_asked_with_nothing_to_declare() -> None:
    hands = ["1c 12b 11b", "2c 4e 5e", "3c 12e 11e", "4c 6e 7e"]
    st = position("tute-4-pairs", hands, trump="o", leader=0, trick="1c 2c 3c 4c")
    st.apply("pass")
    assert st.current_player == 0 and "sing b" in st.legal_actions()
    st = position("tute-4-pairs", ["1c 12b 11b", "2c 4e 5e", "3c 5b 11e", "4c 6e 7e"], trump="o",
                  trick="1c 2c 3c 4c")
    assert st.current_player == 0 and st.phase_name == "play"


def test_team_scope_allows_one_cante_per_side() -> None:
    hands = ["1c 12b 11b", "2c 4e 5e", "3c 12e 11e", "4c 6e 7e"]
    st = position("tute-4-pairs", hands, trump="o", trick="1c 2c 3c 4c", cantes_scope="team")
    st.apply("sing e")
    assert st.current_player == 0 and not [a for a in st.legal_actions() if a.startswith("sing")]


def test_a_cante_not_made_in_its_window_cannot_be_made_after_the_lead() -> None:
    st = deal_state("tute-2", ["1c 12e 11e 4b 5b 6b", "2c 4c 5c 6c 7c 10c"], trump_card="7o", **TWO)
    win_first_trick(st)
    st.apply("play 4b")
    assert st.current_player == 1
    with pytest.raises(IllegalAction, match="declarations belong"):
        st.apply("sing e")


# --------------------------------------------------------------------------------------------- Tute
def test_tute_after_a_won_trick_wins_at_once() -> None:
    st = deal_state("tute-2", ["1c 12o 12c 12e 12b 4b", "2c 4c 5c 6c 7c 10c"], trump_card="7o",
                    tute_from_deal=False, **TWO)
    assert not [a for a in st.legal_actions() if a.startswith("tute")]  # the first leader won no trick
    win_first_trick(st)
    assert "tute 12" in st.legal_actions()
    st.apply("tute 12")
    r = st.result()
    assert st.is_over and r is not None and r.reason == "tute" and r.ranks == (0, 1)
    assert r.tute == {"seat": 0, "face": 12}


def test_tute_of_knights_and_tute_disabled_in_habanero() -> None:
    st = position("tute-4", ["1c 11o 11c 11e 11b", "2c 4e 5e 6e 7e", "3c 4b 5b 6b 7b", "4c 4o 5o 6o 7o"],
                  trump="o", trick="1c 2c 3c 4c")
    assert "tute 11" in st.legal_actions()
    st.apply("tute 11")
    assert st.result().ranks == (0, 1, 1, 1)
    hab = position("habanero", ["1c 12o 12c 12e 12b", "2c 4e 5e 6e 7e"], trump="o", trick="1c 2c")
    assert not [a for a in hab.legal_actions() if a.startswith("tute")]


def test_tute_first_team_trick_mode() -> None:
    hands = ["1c 3c 12o 12c 12e 12b", "2c 4c 5e 6e 7e 10e", "10c 5c 4b 5b 6b 7b", "6c 7c 4o 5o 6o 7o"]
    st = position("tute-4-pairs", hands, trump="o", trick="1c 2c 10c 6c", tute_mode="first_team_trick")
    assert "tute 12" in st.legal_actions()
    st.apply("play 3c")
    st.apply("play 4c")
    st.apply("play 5c")
    st.apply("play 7c")  # the side's second trick
    assert "tute 12" not in st.legal_actions()
    st2 = position("tute-4-pairs", hands, trump="o", trick="1c 2c 10c 6c 3c 4c 5c 7c")
    assert "tute 12" in st2.legal_actions()  # any_won_trick (the default)


def test_tute_in_pairs_may_be_declared_by_the_partner() -> None:
    hands = ["1c 4b 5b 6b", "2c 4e 5e 6e", "3c 12o 12e 12b", "4c 12c 7e 7b"]
    st = position("tute-4-pairs", hands, trump="o", trick="1c 2c 3c 4c")
    assert st.current_player == 0  # seat 2 holds three kings only: not asked
    hands = ["1c 4b 5b 6b 7b", "2c 4e 5e 6e 7e", "3c 12o 12c 12e 12b", "4c 5o 6o 7o 7c"]
    st = position("tute-4-pairs", hands, trump="o", trick="1c 2c 3c 4c")
    assert st.current_player == 2 and st.legal_actions() == ("tute 12", "pass")
    st.apply("tute 12")
    assert st.result().ranks == (0, 1, 0, 1) and st.result().winner == (0, 2)


def test_tute_from_the_deal_offered_in_play_order_before_the_first_lead() -> None:
    v = get_variant("tute-4")
    hands = ["12o 12c 12e 12b 1o 2o 3o 4o 5o 6o", "11o 11c 11e 11b 1c 2c 3c 4c 5c 6c",
             "1e 2e 3e 4e 5e 6e 7e 10e 1b 2b", "3b 4b 5b 6b 7b 10b 7o 10o 7c 10c"]
    st = deal_state(v, hands, dealer=0, trump_card="1o")
    assert st.current_player == 1 and st.legal_actions() == ("tute 11", "pass")  # seat 1 leads
    st.apply("pass")
    assert st.current_player == 0 and st.legal_actions() == ("tute 12", "pass")
    st.apply("pass")
    assert st.current_player == 1 and all(a.startswith("play") for a in st.legal_actions())
    st = deal_state(v, hands, dealer=0, trump_card="1o")
    st.apply("pass")
    st.apply("tute 12")
    r = st.result()
    assert r.reason == "tute" and r.ranks == (0, 1, 1, 1) and st.tricks == ()
    off = deal_state(v, hands, dealer=0, trump_card="1o", tute_from_deal=False)
    assert off.phase_name == "play" and off.current_player == 1


def test_no_window_after_the_last_trick() -> None:
    st = position("tute-2", ["1c", "2c"], trump="o", trick="1c")
    st.apply("play 2c")
    assert st.is_over and st.legal_actions() == ()
    assert st.result().points == (11 + 10, 0)


# ---------------------------------------------------------------------------------------- end of deal
def test_most_points_wins_and_last_trick_ten() -> None:
    st = position("tute-2", ["2o 1c", "4o 3c"], trump="o")
    st.apply("play 1c")
    st.apply("play 3c")  # seat 0: 21
    st.apply("play 2o")
    st.apply("play 4o")  # seat 1 wins the last trick: 10
    r = st.result()
    assert r.points == (21, 10) and r.ranks == (0, 1) and r.reason == "points"


def test_tie_goes_to_the_last_trick_winner() -> None:
    st = position("tute-2", ["2o", "4o"], trump="o")
    st.points[0] = 10
    st.apply("play 2o")
    st.apply("play 4o")
    assert st.result().points == (10, 10) and st.result().ranks == (1, 0)


def test_three_or_more_ties_are_shared_unless_the_last_trick_winner_is_in_them() -> None:
    st = position("tute-4", ["2o", "4o", "5o", "6o"], trump="o")
    st.points[:] = [30, 30, 5, 0]
    for c in "2o 4o 5o 6o".split():
        st.apply(f"play {c}")
    assert st.result().points == (30, 30, 5, 10) and st.result().ranks == (0, 0, 3, 2)
    st = position("tute-4", ["2o", "4o", "5o", "6o"], trump="o")
    st.points[:] = [20, 20, 5, 10]
    for c in "2o 4o 5o 6o".split():
        st.apply(f"play {c}")
    assert st.result().points == (20, 20, 5, 20) and st.result().ranks == (1, 1, 3, 0)


def test_renuncio_loses_the_deal_two_sides_and_many_players() -> None:
    v = get_variant("tute-2")
    st = GameState.new(v, shuffled_deck(v, 1), 0)
    st.forfeit(1, "timeout", "no answer in 1000 ms")
    r = st.result()
    assert r.reason == "forfeit" and r.ranks == (0, 1) and r.forfeit.reason == "timeout"
    st = position("tute-4", ["2o 1c", "4o 2c", "5o 3c", "6o 4c"], trump="o")
    st.points[:] = [5, 30, 20, 30]
    st.forfeit(1, "illegal")
    assert st.result().ranks == (2, 3, 1, 0)  # the offender last, the others by points now
    pairs = position("tute-4-pairs", ["2o", "4o", "5o", "6o"], trump="o")
    pairs.points[:] = [50, 0, 50, 0]
    pairs.forfeit(2, "crash")
    assert pairs.result().ranks == (1, 0, 1, 0)


def test_illegal_wrong_type_and_out_of_turn_raise_and_change_nothing() -> None:
    st = position("tute-4", ["10c 1e", "3c 4c 1o", "11c 2c 7o", "5e 6e 7e"], trump="o", trick="10c")
    snapshot = {k: getattr(st, k) for k in GameState.__slots__ if k != "_legal"}
    snapshot["hands"] = list(st.hands)
    cases = [("play 4c", None, "beat 10c"), ("play 1o", None, "follow suit c"), ("play 12o", None, "not in the hand"),
             (7, None, "string"), ("play 3c", 2, "out of turn"), ("dance", None, "malformed"),
             ("sing o", None, "declarations belong"), ("pass", None, "pass")]
    for action, seat, words in cases:
        with pytest.raises(IllegalAction, match=words):
            st.apply(action, seat)  # type: ignore[arg-type]
        now = {k: getattr(st, k) for k in GameState.__slots__ if k != "_legal"}
        now["hands"] = list(st.hands)
        assert now == snapshot
