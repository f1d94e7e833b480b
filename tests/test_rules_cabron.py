"""Scenario tests: docs/rules.md "Cabrón", "Cabrero" and "Deals with losers", one or more per rule
line (losers, letters, a dealer sitting out)."""

from __future__ import annotations

import dataclasses

import json
import random

import pytest
from positions import deal_state, plays, position

from arena import GameRecord, GameState, IllegalAction, PlayerView, get_variant, replay, shuffled_deck
from arena.matchplay import Letters, play_match
from bots.random_bot import RandomBot
from arena.cards import NO_CARD, NO_SUIT


def cabron(hands: list[str], leader: int = 0, variant: str = "cabron") -> GameState:
    """A cabrón position with no trump yet (``position`` needs a suit; cabrón has none at first)."""
    st = position(variant, hands, trump="o", leader=leader, strict=False)
    st.trump = -1
    st._legal = None
    return st


def ended(variant: str, points: list[int], tricks: list[int], cantes: tuple = (), dealer: int = 0) -> GameState:
    """A deal of ``variant`` brought to its end with the given points and tricks per seat."""
    v = get_variant(variant)
    st = GameState.new(v, shuffled_deck(v, 1), dealer)
    st.points = list(points)
    st.tricks_won = list(tricks)
    st.cantes = cantes
    st._end_with_losers()
    return st


# ------------------------------------------------------------------------------------------- cabrón
def test_cabron_deals_without_a_trump_card() -> None:
    for name, size, hand in (("cabron", 36, 12), ("cabron-4", 40, 10)):
        v = get_variant(name)
        st = GameState.new(v, shuffled_deck(v, 3), 0)
        assert v.deck_size == size and all(bin(h).count("1") == hand for h in st.hands)
        assert st.trump == NO_SUIT and st.trump_card == NO_CARD and st.phase_name == "play"
        assert st.view(1).to_json()["trump"] is None
        while not st.is_over:
            st.apply(st.legal_actions()[-1])
        data = json.loads(GameRecord.from_state(st).dumps())
        assert data["trump_card"] is None
        replay(GameRecord.from_json(data))


def test_cabron_only_follow_suit_no_duty_to_beat_or_to_trump() -> None:
    st = cabron(["4o 1c", "1o 2o", "7c 6c"])
    st.apply("play 4o")
    assert plays(st) == {"1o", "2o"}  # may play under the 4
    st.apply("play 2o")
    assert plays(st) == {"7c", "6c"}  # void: any card
    # once there is a trump, still no duty to trump
    st = cabron(["4o 1c", "5b 11e", "7c 6c"])
    st.trump = 2
    st._legal = None
    st.apply("play 4o")
    assert plays(st) == {"5b", "11e"}
    st = cabron(["4o 1c", "1o 5b", "7c 6c"])
    st.apply("play 4o")
    with pytest.raises(IllegalAction, match="asistir"):
        st.apply("play 5b")


def test_a_pair_trick_scores_forty_and_makes_trump_then_twenty_and_trump_changes_again() -> None:
    st = cabron(["12o 12c 5b 1e", "11o 11c 4e 3e", "4o 4c 7e 6e"])
    for c in ("12o", "11o", "4o"):
        st.apply(f"play {c}")
    assert st.pair_tricks == ((0, 0, 0, 40),) and st.trump == 0  # oros trump from the next trick
    assert st.points[0] == 4 + 3 + 40
    assert st.view(2).to_json()["trump"] == "o"
    for c in ("12c", "11c", "4c"):
        st.apply(f"play {c}")
    assert st.pair_tricks[-1] == (1, 0, 1, 20) and st.trump == 1  # copas now
    assert st.points[0] == 47 + 4 + 3 + 20
    # nobody has a copa left: the bastos lead wins
    for c in ("5b", "4e", "7e"):
        st.apply(f"play {c}")
    assert st.tricks[-1][2] == 0
    assert st.view(1).pair_tricks == st.pair_tricks


def test_the_new_trump_wins_tricks_from_the_next_trick() -> None:
    st = cabron(["12o 5b", "11o 4o", "10o 7b"])
    for c in ("12o", "11o", "10o"):
        st.apply(f"play {c}")
    assert st.trump == 0
    st.apply("play 5b")
    assert plays(st) == {"4o"}  # its last card
    st.apply("play 4o")
    st.apply("play 7b")
    assert st.tricks[-1][2] == 1  # the 4 of the new trump beats the bastos


def test_a_pair_on_a_trick_won_by_another_suit_scores_for_the_winner() -> None:
    st = cabron(["10c 5b", "12o 4e", "11o 7b"])
    for c in ("10c", "12o", "11o"):
        st.apply(f"play {c}")
    assert st.tricks[-1][2] == 0 and st.pair_tricks == ((0, 0, 0, 40),) and st.trump == 0


def test_two_pairs_in_one_trick_both_score_and_the_winning_suit_becomes_trump() -> None:
    st = cabron(["12c 5b", "11c 6b", "12o 7b", "11o 4b"], variant="cabron-4")
    for c in ("12c", "11c", "12o", "11o"):
        st.apply(f"play {c}")
    assert st.tricks[-1][2] == 0
    assert st.pair_tricks == ((0, 0, 1, 40), (0, 0, 0, 20)) and st.trump == 1
    assert st.points[0] == 14 + 60


def test_no_cantes_in_hand_and_no_tute_in_cabron() -> None:
    st = cabron(["1o 12c 11c 12o 12e 12b", "3o 4c 5c 6c 7c 4e", "2o 5e 6e 7e 10e 4b"])
    for c in ("1o", "3o", "2o"):
        st.apply(f"play {c}")
    assert st.current_player == 0 and all(a.startswith("play") for a in st.legal_actions())


# ------------------------------------------------------------------------------------------- losers
def test_the_middle_loses() -> None:
    r = ended("cabron", [70, 40, 20], [5, 4, 3]).result()
    assert r.losers == (1,) and r.reason == "middle" and r.ranks == (0, 2, 0) and r.winner == (0, 2)
    r = ended("cabron-4", [60, 40, 20, 10], [3, 3, 2, 2]).result()
    assert r.losers == (1, 2) and r.ranks == (0, 2, 2, 0)


def test_ties_at_the_losing_place_all_lose() -> None:
    assert ended("cabron", [55, 55, 20], [5, 4, 3]).result().losers == (0, 1)
    assert ended("cabron", [80, 25, 25], [5, 4, 3]).result().losers == (1, 2)
    r = ended("cabron-4", [40, 40, 40, 10], [3, 3, 2, 2]).result()
    assert r.losers == (0, 1, 2) and r.ranks == (1, 1, 1, 0)
    assert ended("cabron-4", [60, 30, 30, 10], [3, 3, 2, 2]).result().losers == (1, 2)


def test_a_player_who_takes_no_trick_loses_instead() -> None:
    r = ended("cabron", [90, 40, 0], [8, 4, 0]).result()
    assert r.losers == (2,) and r.reason == "no_trick" and r.ranks == (0, 0, 2)
    r = ended("cabron-4", [90, 40, 0, 0], [8, 2, 0, 0]).result()
    assert r.losers == (2, 3)  # every player without a trick loses


def test_a_trick_without_points_still_counts() -> None:
    assert ended("cabron", [130, 0, 0], [10, 1, 1]).result().reason == "over_points"


def test_over_100_points_without_capote_loses() -> None:
    r = ended("cabron", [105, 15, 10], [9, 2, 1]).result()
    assert r.losers == (0,) and r.reason == "over_points" and r.ranks == (2, 0, 0)
    assert ended("cabron", [100, 20, 10], [9, 2, 1]).result().losers == (1,)  # 100 is not over 100


def test_a_player_with_no_trick_outranks_the_over_100_rule() -> None:
    assert ended("cabron", [120, 10, 0], [10, 2, 0]).result().losers == (2,)


def test_capote_everyone_else_loses_even_over_100() -> None:
    r = ended("cabron", [170, 0, 0], [12, 0, 0]).result()
    assert r.losers == (1, 2) and r.reason == "capote" and r.ranks == (0, 1, 1)


def test_a_real_cabron_game_ends_with_losers_and_replays() -> None:
    v = get_variant("cabron")
    for seed in range(20):
        st = GameState.new(v, shuffled_deck(v, seed), seed % 3)
        rng = random.Random(seed)
        while not st.is_over:
            st.apply(rng.choice(st.legal_actions()))
        r = st.result()
        assert r.losers and set(r.winner).isdisjoint(r.losers)
        assert sum(r.points) == 130 + sum(p for *_, p in st.pair_tricks)
        replay(GameRecord.loads(GameRecord.from_state(st).dumps()))


def test_a_forfeit_makes_the_offender_the_only_loser() -> None:
    v = get_variant("cabron")
    st = GameState.new(v, shuffled_deck(v, 5), 0)
    st.forfeit(1, "illegal", "answered 'play 8o'")
    r = st.result()
    assert r.reason == "forfeit" and r.losers == (1,) and r.ranks == (0, 2, 0)


# ------------------------------------------------------------------------------------------- cabrero
def test_cabrero_trump_is_the_dealer_last_card_with_cantes_and_strict_play() -> None:
    hands = ["1o 3o 12o 11o 10o 12c 11c 7c 6c 5c", "1c 3c 2o 4c 4e 5e 6e 7e 10e 4b",
             "1e 3e 12e 11e 2e 5b 6b 7b 10b 2c", "1b 3b 12b 11b 2b 4o 5o 6o 7o 10c"]
    st = deal_state("cabrero", hands, dealer=3, trump_card="7o")
    assert st.trump == 0 and st.trump_card == st.deck[-1]
    st.apply("play 1o")
    assert plays(st) == {"2o"}
    st.apply("play 2o")
    assert plays(st) == {"1e", "3e", "12e", "11e", "2e", "5b", "6b", "7b", "10b", "2c"}  # void, no trumps
    st.apply("play 2e")
    assert plays(st) == {"4o", "5o", "6o", "7o"}  # follow, cannot beat the 1
    st.apply("play 4o")
    assert st.legal_actions()[0] == "sing o"  # the 40 first, then the copas later
    st.apply("sing o")
    assert st.points[0] == 11 + 40


def test_cabrero_has_no_tute() -> None:
    hands = ["12o 12c 12e 12b 1o 3o 10o 7o 6o 5o", "11o 11c 11e 11b 1c 3c 10c 7c 6c 5c",
             "1e 3e 10e 7e 6e 5e 4e 2e 4o 4c", "1b 3b 10b 7b 6b 5b 4b 2b 2o 2c"]
    st = deal_state("cabrero", hands, dealer=3, trump_card="2c")
    assert st.phase_name == "play"
    for c in ("1o", "11o", "4o", "2o"):
        st.apply(f"play {c}")
    assert st.current_player == 0 and not [a for a in st.legal_actions() if a.startswith("tute")]


def test_cabrero_capote_after_a_cante_loses_and_without_one_everyone_else_loses() -> None:
    r = ended("cabrero", [170, 0, 0, 0], [10, 0, 0, 0], cantes=((0, 0, 40),)).result()
    assert r.losers == (0,) and r.reason == "capote_after_cante" and r.ranks == (3, 0, 0, 0)
    r = ended("cabrero", [130, 0, 0, 0], [10, 0, 0, 0]).result()
    assert r.losers == (1, 2, 3) and r.reason == "capote"


def test_cabrero_has_no_over_100_rule_but_no_trick_still_loses() -> None:
    assert ended("cabrero", [110, 10, 6, 4], [6, 2, 1, 1]).result().losers == (1, 2)
    assert ended("cabrero", [110, 10, 10, 0], [6, 2, 2, 0]).result().losers == (3,)


@pytest.mark.parametrize("name,players,hand", [("cabrero-5", 5, 10), ("cabrero-6", 6, 8)])
def test_cabrero_with_five_or_six_the_dealer_sits_out(name: str, players: int, hand: int) -> None:
    v = get_variant(name)
    assert v.players == players and v.active_players == players - 1 and v.hand_size == hand
    assert get_variant("cabrero", players=players) == dataclasses.replace(v, name="cabrero")
    dealer = 2
    st = GameState.new(v, shuffled_deck(v, 7), dealer)
    assert st.hands[dealer] == 0 and st.sit_out == dealer
    assert all(bin(st.hands[s]).count("1") == hand for s in range(players) if s != dealer)
    assert st.hands[dealer - 1] >> st.trump_card & 1  # the last card dealt, to the seat before the dealer
    rng = random.Random(7)
    while not st.is_over:
        assert st.current_player != dealer
        st.apply(rng.choice(st.legal_actions()))
    assert all(len(cs) == players - 1 for _, cs, _ in st.tricks)
    assert all(seat != dealer for seat, _ in st.actions)
    r = st.result()
    assert r.sit_out == dealer and dealer not in r.losers and r.ranks[dealer] == 0 and r.points[dealer] == 0
    rec = GameRecord.loads(GameRecord.from_state(st).dumps())
    assert len(rec.seats) == players and rec.hands[dealer] == [] and rec.to_json()["result"]["sit_out"] == dealer
    replay(rec)


def test_the_view_skips_the_seat_sitting_out() -> None:
    v = get_variant("cabrero-5")
    st = GameState.new(v, shuffled_deck(v, 2), 4)
    assert st.current_player == 0
    for _ in range(3):
        st.apply(st.legal_actions()[0])
    view = PlayerView.of(st, 1)
    assert [s for s, _ in view.trick_seats] == [0, 1, 2] and view.sit_out == 4
    assert view.hand_sizes == (9, 9, 9, 10, 0) and st.current_player == 3
    st.apply(st.legal_actions()[0])
    assert st.current_player == st.tricks[-1][2] and len(st.tricks[-1][1]) == 4


def test_five_or_six_players_need_the_dealer_to_sit_out() -> None:
    from arena import VariantError
    with pytest.raises(VariantError, match="sits out"):
        get_variant("tute-4", players=5)
    with pytest.raises(VariantError):
        get_variant("cabrero", players=7)


# ------------------------------------------------------------------------------------------- letters
def test_each_loss_is_a_letter_and_six_are_out() -> None:
    t = Letters(3)
    r = ended("cabron", [70, 40, 20], [5, 4, 3]).result()
    for i in range(5):
        assert t.add(r) == []
    assert t.word(1) == "CABRO" and t.word(0) == ""
    assert t.add(r) == [1] and t.word(1) == "CABRON"


def test_a_match_plays_until_a_seat_completes_cabron_with_the_dealer_rotating() -> None:
    v = get_variant("cabron")
    m = play_match(v, [RandomBot(seed=s) for s in range(3)], seed=11)
    letters = m.result.match["letters"]
    assert max(letters) == 6 and m.rule.text == "letters:6" and m.result.match["ended"] == "rule"
    assert [r.dealer for r in m.deals] == [i % 3 for i in range(len(m.deals))]
    assert sum(len(r.result.losers) for r in m.deals) == sum(letters)
    out = [s for s in range(3) if letters[s] == 6]
    assert all(m.result.ranks[s] == max(m.result.ranks) for s in out)
    again = play_match(v, [RandomBot(seed=s) for s in range(3)], seed=11)
    assert [r.actions for r in again.deals] == [r.actions for r in m.deals]