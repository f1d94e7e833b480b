"""Scenario tests: docs/rules.md "Subastado", one or more per rule line."""

from __future__ import annotations

import json

import pytest
from positions import deal_state, plays

from arena import GameRecord, GameState, IllegalAction, PlayerView, get_variant, replay, shuffled_deck
from arena.cards import NO_CARD, NO_SUIT

SUITED = ["1o 3o 12o 11o 10o 7o 6o 5o 4o 2o", "1c 3c 12c 11c 10c 7c 6c 5c 4c 2c",
          "1e 3e 12e 11e 10e 7e 6e 5e 4e 2e", "1b 3b 12b 11b 10b 7b 6b 5b 4b 2b"]
# seat 0 holds four trumps' worth of honours and a copas pair; seat 1 the copas; dealer 3: seat 0 bids first
MIXED = ["1o 3o 12o 11o 10o 7o 6o 12c 11c 2c", "1c 3c 10c 7c 6c 5c 4c 5o 4o 2o",
         "1e 3e 12e 11e 10e 7e 6e 5e 4e 2e", "1b 3b 12b 11b 10b 7b 6b 5b 4b 2b"]


def auction(st: GameState, *acts: str) -> None:
    for a in acts:
        st.apply(a)


def play_out(st: GameState) -> None:
    """Finish the deal taking the first legal action each time (cantes come first, so they are made)."""
    while not st.is_over:
        st.apply(st.legal_actions()[0])


# --------------------------------------------------------------------------------------- the auction
def test_the_auction_starts_after_the_deal_from_the_seat_after_the_dealer() -> None:
    v = get_variant("subastado")
    st = GameState.new(v, shuffled_deck(v, 1), dealer=2)
    assert st.phase_name == "auction" and st.current_player == 3
    legal = st.legal_actions()
    assert legal[0] == "bid 60" and legal[-2] == "bid 230" and legal[-1] == "pass"
    assert len(legal) == (230 - 60) // 5 + 2
    assert not [a for a in legal if a.startswith("play")]
    with pytest.raises(IllegalAction, match="auction"):
        st.apply(f"play {st.view(3).to_json()['hand'][0]}")


def test_no_trump_before_the_auction_ends_and_no_card_is_turned() -> None:
    v = get_variant("subastado")
    st = GameState.new(v, shuffled_deck(v, 2), dealer=0)
    assert st.trump == NO_SUIT and st.trump_card == NO_CARD
    view = st.view(1).to_json()
    assert view["trump"] is None and view["trump_card"] is None and view["declarer"] is None
    assert all(bin(h).count("1") == 10 for h in st.hands)  # every card is dealt, the dealer's included


def test_each_bid_must_be_higher_than_the_last_by_the_step() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    st.apply("bid 70")
    assert st.current_player == 1 and st.legal_actions()[0] == "bid 75"
    for bad in ("bid 70", "bid 65", "bid 72", "bid 235"):
        with pytest.raises(IllegalAction):
            st.apply(bad)
    assert st.current_player == 1 and st.contract == 70 and st.declarer == 0


def test_minimum_and_step_are_options() -> None:
    st = deal_state(get_variant("subastado", bid_min=70, bid_step=10), SUITED, dealer=3)
    assert st.legal_actions()[:3] == ("bid 70", "bid 80", "bid 90")
    st.apply("bid 80")
    assert st.legal_actions()[0] == "bid 90"


def test_a_pass_is_final() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 60", "pass", "bid 65", "bid 70")
    assert st.current_player == 0  # seat 1 passed: skipped from now on
    auction(st, "bid 75")
    assert st.current_player == 2
    auction(st, "pass", "pass")
    assert st.phase_name == "trump" and st.current_player == 0 and st.declarer == 0 and st.contract == 75
    assert st.bids == ((0, 60), (1, 0), (2, 65), (3, 70), (0, 75), (2, 0), (3, 0))


def test_the_last_bidder_names_trump_and_leads_first() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "pass", "bid 90", "pass", "pass")
    assert st.phase_name == "trump" and st.current_player == 1
    assert st.legal_actions() == ("trump o", "trump c", "trump e", "trump b")
    with pytest.raises(IllegalAction, match="name trump"):
        st.apply("play 1c")
    st.apply("trump c")
    assert st.trump == 1 and st.phase_name == "play" and st.current_player == 1 and st.leader == 1
    view = st.view(2).to_json()
    assert view["trump"] == "c" and view["declarer"] == 1 and view["contract"] == 90
    assert view["bids"] == [{"seat": 0, "bid": None}, {"seat": 1, "bid": 90}, {"seat": 2, "bid": None},
                            {"seat": 3, "bid": None}]


def test_the_first_bidder_wins_when_everyone_else_passes() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass")
    assert st.phase_name == "trump" and st.current_player == 0


def test_the_last_seat_may_still_bid_after_three_passes() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "pass", "pass", "pass")
    assert st.current_player == 3 and st.legal_actions()[0] == "bid 60"
    st.apply("bid 60")
    assert st.phase_name == "trump" and st.current_player == 3


def test_all_pass_is_a_redeal_recorded_with_shared_ranks_and_no_score() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "pass", "pass", "pass", "pass")
    r = st.result()
    assert st.is_over and r.reason == "redeal"
    assert r.ranks == (0, 0, 0, 0) and r.score == (0, 0, 0, 0) and r.points == (0, 0, 0, 0)
    assert r.contract is None and st.legal_actions() == ()
    rec = GameRecord.from_state(st, game_id="redeal")
    data = json.loads(rec.dumps())
    assert data["actions"] == [[0, "pass"], [1, "pass"], [2, "pass"], [3, "pass"]]
    assert data["trump_card"] is None and data["result"]["reason"] == "redeal"
    replay(GameRecord.from_json(data))


# ------------------------------------------------------------------------------------------- play
def test_strict_play_from_the_first_trick() -> None:
    st = deal_state("subastado", MIXED, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    st.apply("play 1o")
    assert plays(st) == {"5o", "4o", "2o"}  # follow the trump lead (cannot beat the 1)
    st.apply("play 2o")
    assert plays(st) == set(SUITED[2].split())  # void in trumps: any card
    st = deal_state("subastado", MIXED, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    st.apply("play 2c")
    assert plays(st) == {"1c", "3c", "10c", "7c", "6c", "5c", "4c"}  # follow and beat (montar)


def test_only_the_declarer_side_may_sing_and_the_forty_comes_first() -> None:
    st = deal_state("subastado", MIXED, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    auction(st, "play 1o", "play 2o", "play 1e", "play 1b")
    # the declarer's partner (seat 2) holds 12e 11e: it is asked first
    assert st.phase_name == "declare" and st.current_player == 2
    assert st.legal_actions() == ("sing e", "pass")
    st.apply("sing e")
    assert st.current_player == 0
    legal = st.legal_actions()
    assert "sing o" in legal and "sing c" not in legal  # 40 first
    st.apply("sing o")
    assert st.cantes == ((2, 2, 20), (0, 0, 40))


def test_a_defender_cante_is_refused() -> None:
    hands = ["1o 3o 12o 11o 10o 7o 6o 5o 4o 2c", "1c 3c 12c 11c 10c 7c 6c 5c 4c 2o",
             "1e 3e 12e 11e 10e 7e 6e 5e 4e 2e", "1b 3b 12b 11b 10b 7b 6b 5b 4b 2b"]
    st = deal_state("subastado", hands, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    auction(st, "play 2c", "play 1c", "play 2e", "play 2b")
    assert st.tricks[-1][2] == 1 and st.current_player == 1  # a defender won, holding 12c 11c
    assert not [a for a in st.legal_actions() if a.startswith("sing")]
    with pytest.raises(IllegalAction):
        st.apply("sing c")
    assert st.cantes == ()


def test_no_tute_in_subastado() -> None:
    hands = ["12o 12c 12e 12b 1o 3o 10o 7o 6o 5o", "11o 11c 11e 11b 1c 3c 10c 7c 6c 5c",
             "1e 3e 10e 7e 6e 5e 4e 2e 4o 2o", "1b 3b 10b 7b 6b 5b 4b 2b 4c 2c"]
    st = deal_state("subastado", hands, dealer=3)
    assert st.phase_name == "auction"  # no Tute from the deal
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    auction(st, "play 1o", "play 11o", "play 4o", "play 2b")
    assert not [a for a in st.legal_actions() if a.startswith("tute")]


# ---------------------------------------------------------------------------------------- scoring
def test_made_bid_scores_plus_bid_and_defenders_keep_their_points() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 60", "pass", "pass", "pass", "trump o")
    play_out(st)
    r = st.result()
    assert r.reason == "made"
    # every card, the last trick and the 40 for seat 0, the partner's 20: points keep their meaning
    assert r.points == (170, 0, 20, 0)
    assert r.score == (60, 0, 60, 0) and r.ranks == (0, 1, 0, 1) and r.winner == (0, 2)
    assert r.contract == {"seat": 0, "bid": 60, "trump": "o", "made": True}
    replay(GameRecord.loads(GameRecord.from_state(st).dumps()))


def test_failed_bid_scores_minus_bid_and_the_defenders_win() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 195", "pass", "pass", "pass", "trump o")
    play_out(st)
    r = st.result()
    assert r.reason == "failed" and sum(r.points[s] for s in (0, 2)) == 190 < 195
    assert r.score == (-195, 0, -195, 0) and r.ranks == (1, 0, 1, 0)
    assert r.contract["made"] is False


def test_reaching_the_bid_exactly_makes_it() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 190", "pass", "pass", "pass", "trump o")
    play_out(st)
    assert st.result().reason == "made" and st.result().score[0] == 190


def test_three_players_the_declarer_plays_alone() -> None:
    v = get_variant("subastado-3")
    assert v.players == 3 and v.deck_size == 36 and v.hand_size == 12
    st = GameState.new(v, shuffled_deck(v, 4), dealer=0)
    assert st.current_player == 1
    auction(st, "bid 200", "pass", "pass", "trump b")
    play_out(st)
    r = st.result()
    assert r.reason == "failed"
    assert r.ranks == (0, 2, 0) and r.score == (r.points[0], -200, r.points[2])
    assert all(s == 1 for s, _, _ in st.cantes)  # only the declarer sings


def test_a_forfeit_in_the_auction_loses_for_the_offender_side() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 80")
    st.forfeit(1, "timeout")
    r = st.result()
    assert r.reason == "forfeit" and r.ranks == (0, 1, 0, 1) and r.score == (0, -80, 0, -80)
    assert r.contract == {"seat": 0, "bid": 80, "trump": None, "made": None}


def test_other_seats_bids_are_public_in_the_view() -> None:
    st = deal_state("subastado", SUITED, dealer=3)
    auction(st, "bid 60", "bid 65")
    views = [PlayerView.of(st, s) for s in range(4)]
    assert {v.bids for v in views} == {((0, 60), (1, 65))}
    assert {(v.declarer, v.contract) for v in views} == {(1, 65)}
    assert views[2].legal == st.legal_actions() and views[0].legal == ()
    assert sorted(views[0].to_json()["hand"]) == sorted(SUITED[0].split()) and views[0].to_json()["phase"] == "auction"
