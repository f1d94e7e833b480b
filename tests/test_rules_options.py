"""Scenario tests for the rule options the source texts give beyond the first presets (docs/rules.md):
the exchange before the draw and by any face (S2), a tie as a draw (S2), subastado scoring the points
taken (S2), the pairs rules of the online platform (S3: no Tute after a cante, a cante not made is lost),
and a Tute in cabrero. Hand-built positions where a position says it best; random games with an
independent check where the rule is about how a deal ends."""

from __future__ import annotations

import random

import pytest
from positions import deal_state, holds

from arena import GameState, IllegalAction, PlayerView, get_variant, shuffled_deck
from arena.cards import BIT, parse_card

TWO = dict(dealer=1)  # seat 0 leads


def win_first_trick(st: GameState) -> None:
    st.apply("play 1c")
    st.apply("play 2c")


# ------------------------------------------------------------------------------------ exchange timing
def test_before_draw_the_winner_exchanges_then_draws_and_the_window_offers_no_exchange() -> None:
    st = deal_state("tute-2", ["1c 7o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o", stock="2e 3e",
                    exchange_timing="before_draw", **TWO)
    win_first_trick(st)
    assert st.phase_name == "exchange" and st.current == 0
    assert st.legal_actions() == ("exchange 7o", "pass")
    assert bin(st.hands[0]).count("1") == 5  # not drawn yet
    st.apply("exchange 7o")
    assert holds(st, 0, "1o") and holds(st, 0, "2e") and holds(st, 1, "3e")  # then the draw
    assert st.phase_name == "play" and st.current == 0
    assert not [a for a in st.legal_actions() if a.startswith("exchange")]


def test_before_draw_pass_keeps_the_seven_and_draws() -> None:
    st = deal_state("tute-2", ["1c 7o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o", stock="2e 3e",
                    exchange_timing="before_draw", **TWO)
    win_first_trick(st)
    st.apply("pass")
    assert holds(st, 0, "7o") and holds(st, 0, "2e") and st.face_up == parse_card("1o")
    assert "exchange 7o" not in st.legal_actions()  # only before a draw


@pytest.mark.parametrize("timing, offered", [("after_draw", True), ("before_draw", False)])
def test_a_seven_just_drawn_exchanges_at_once_only_after_the_draw(timing: str, offered: bool) -> None:
    st = deal_state("tute-2", ["1c 4o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o", stock="7o 3e",
                    exchange_timing=timing, **TWO)
    win_first_trick(st)
    assert st.phase_name == "play" and holds(st, 0, "7o")
    assert ("exchange 7o" in st.legal_actions()) is offered


def test_a_view_in_the_exchange_phase_samples_worlds_that_give_it_back() -> None:
    st = deal_state("tute-2", ["1c 7o 4e 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o", stock="2e 3e",
                    exchange_timing="before_draw", **TWO)
    win_first_trick(st)
    view = PlayerView.of(st, 0)
    assert view.phase == "exchange" and view.hand_sizes == (5, 5)
    for seed in range(5):
        world = view.sample_world(random.Random(seed))
        assert PlayerView.of(world, 0) == view
        world.apply("exchange 7o")
        assert bin(world.hands[0]).count("1") == 6


# ------------------------------------------------------------------------------------ exchange rule
def test_exchange_rule_seven_takes_any_face_up_card_and_the_two_none() -> None:
    st = deal_state("tute-2", ["1c 7o 2o 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="4o",
                    exchange_rule="seven", **TWO)
    win_first_trick(st)
    exchanges = [a for a in st.legal_actions() if a.startswith("exchange")]
    assert exchanges == ["exchange 7o"]  # by face the 7 would not take a 4, and the 2 would


def test_exchange_rule_two_takes_any_face_up_card_and_the_seven_none() -> None:
    st = deal_state("tute-2", ["1c 7o 2o 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], trump_card="1o",
                    exchange_rule="two", **TWO)
    win_first_trick(st)
    exchanges = [a for a in st.legal_actions() if a.startswith("exchange")]
    assert exchanges == ["exchange 2o"]
    st.apply("exchange 2o")
    with pytest.raises(IllegalAction):
        st.apply("exchange 7o")


# ------------------------------------------------------------------------------------ the pairs of S3
def test_no_tute_after_the_side_sang() -> None:
    hands = ["12o 11o 12c 12e 12b 1c", "2c 4b 5b 6b 7b 10b"]
    for after, offered in ((True, True), (False, False)):
        st = deal_state("tute-2", hands, trump_card="4c", stock="2e 3e", tute_from_deal=False,
                        tute_after_cante=after, **TWO)
        win_first_trick(st)
        assert "tute 12" in st.legal_actions() and "sing o" in st.legal_actions()
        st.apply("sing o")
        assert ("tute 12" in st.legal_actions()) is offered


def test_a_cante_not_made_is_lost_for_the_deal_and_only_its_holder_sees_it() -> None:
    hands = ["12c 11c 1c 3c 4e 5e", "2c 4c 5c 6c 7c 10c"]
    for lost_rule in (False, True):
        st = deal_state("tute-2", hands, trump_card="4b", stock="2e 3e 6e 7e", skipped_cante_lost=lost_rule,
                        **TWO)
        win_first_trick(st)
        assert "sing c" in st.legal_actions()
        st.apply("play 3c")  # the window closes without the cante
        st.apply("play 4c")
        assert st.current == 0  # won again
        assert ("sing c" in st.legal_actions()) is not lost_rule
        eleven = BIT[parse_card("11c")]
        assert PlayerView.of(st, 0).lost_cantes == (eleven if lost_rule else 0)
        assert PlayerView.of(st, 1).lost_cantes == 0


def test_a_partner_who_passes_a_cante_loses_it() -> None:
    v = get_variant("tute-4-pairs-online")
    checked = 0
    for seed in range(400):
        rng = random.Random(seed)
        st = GameState.new(v, shuffled_deck(v, seed), seed % 4)
        while not st.is_over:
            legal = st.legal_actions()
            if st.phase_name == "declare" and any(a.startswith("sing") for a in legal):
                seat, suits = st.current, [a[5:] for a in legal if a.startswith("sing")]
                st.apply("pass")
                for s in suits:
                    assert st.lost[seat] & BIT[parse_card("11" + s)]
                checked += 1
                continue
            st.apply(legal[rng.randrange(len(legal))])
    assert checked > 5


def test_the_online_pairs_preset_allows_one_cante_per_team_and_no_tute_from_the_deal() -> None:
    v = get_variant("tute-4-pairs-online")
    assert v.cantes_scope == "team" and v.tute_mode == "first_team_trick" and not v.tute_from_deal
    assert not v.tute_after_cante and v.skipped_cante_lost


# ------------------------------------------------------------------------------------ how a deal ends
def random_games(v, count: int, seed0: int = 0):
    """Random legal deals; in an auction the first seat bids the minimum and the rest pass, so that
    contracts are made often enough to test how they score."""
    for seed in range(seed0, seed0 + count):
        rng = random.Random(seed)
        st = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
        while not st.is_over:
            legal = st.legal_actions()
            if st.phase_name == "auction":
                st.apply(legal[0] if not st.bids else "pass")
                continue
            st.apply(legal[rng.randrange(len(legal))])
        yield st


def test_a_tie_is_a_draw_with_tie_draw_else_the_last_tricks_side_wins() -> None:
    ties = 0
    for tie in ("last_trick", "draw"):
        v = get_variant("tute-2", tie=tie, cantes=False)  # no cantes: ties on 65 come often enough
        for st in random_games(v, 1500):
            r = st.result_
            if r.reason != "points" or r.points[0] != r.points[1]:
                continue
            ties += 1
            if tie == "draw":
                assert r.ranks == (0, 0)
            else:
                assert r.ranks[st.last_trick_winner] == 0 and r.ranks[1 - st.last_trick_winner] == 1
    assert ties >= 4


@pytest.mark.parametrize("scoring", ["bid", "points"])
def test_subastado_scores_the_bid_or_the_points_taken_when_made(scoring: str) -> None:
    v = get_variant("subastado", bid_scoring=scoring)
    made = 0
    for st in random_games(v, 300):
        r = st.result_
        if r.reason not in ("made", "failed"):
            continue
        side = v.teams[st.rules.team[st.declarer]]
        taken = sum(st.points[s] for s in side)
        expected = -st.contract if r.reason == "failed" else (taken if scoring == "points" else st.contract)
        assert all(r.score[s] == expected for s in side)
        made += r.reason == "made"
    assert made >= 3


def test_a_tute_in_cabrero_makes_every_other_player_lose() -> None:
    v = get_variant("cabrero-5", tute_mode="any_won_trick")
    tutes = 0
    for st in random_games(v, 3000):
        r = st.result_
        if r.reason != "tute":
            continue
        tutes += 1
        seat = r.tute["seat"]
        assert set(r.losers) == {s for s in range(5) if s not in (seat, st.sit_out)}
        assert r.ranks[seat] == 0 and r.ranks[st.sit_out] == 0
    assert tutes >= 1


def test_records_store_later_options_only_when_set() -> None:
    assert "exchange_timing" not in get_variant("tute-2").options()
    assert get_variant("tute-2-8").options()["exchange_timing"] == "before_draw"
    assert get_variant("tute-2", tie="draw").options()["tie"] == "draw"
