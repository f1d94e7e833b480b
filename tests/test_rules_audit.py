"""An audit of the referee against the project's rule book (docs/rules.md), one hand-built scenario per
rule line that no other scenario test pinned, across every preset of ``arena.variants.VARIANTS``.

Why a separate file: the scenario files each follow one section of docs/rules.md and mostly exercise
``tute-2``, ``tute-4`` and ``tute-4-pairs``; an audit reads the rules the other way round (rule by rule,
preset by preset) and finds lines that were only checked by random property tests, or in one preset.
Every test here was checked to fail against a deliberately wrong referee (a mutated kernel function or
preset).
"""

from __future__ import annotations

import pytest
from positions import deal_state, holds, plays, position

from arena import GameState, IllegalAction, get_variant, shuffled_deck
from arena.result import GameResult
from arena.cards import BIT, NAMES, NO_CARD, NO_SUIT, parse_card
from arena.variants import VARIANTS

ALL = list(VARIANTS)
#: presets with a draw pile (two players, free play while it lasts)
PILE = [n for n in ALL if VARIANTS[n].draw_pile]
#: presets whose deals have losers (cabrón, cabrero)
LOSERS = [n for n in ALL if VARIANTS[n].scoring == "losers"]
#: presets where a card shows trump and every card is dealt: the dealer's last card is public
CARD_TRUMP_NO_PILE = [n for n in ALL if not VARIANTS[n].draw_pile and VARIANTS[n].trump_rule == "card"]


def res(st: GameState) -> GameResult:
    """The result of a deal that must be over (a deal still running is a test failure, not a None)."""
    r = st.result()
    assert r is not None, "the deal is not over"
    return r


def play_names(st: GameState) -> list[str]:
    """The play actions on offer, as card names (declarations left out)."""
    return [a[5:] for a in st.legal_actions() if a.startswith("play ")]


def declarations(st: GameState) -> list[str]:
    """The actions on offer that are not plays (exchanges, cantes, Tutes, pass)."""
    return [a for a in st.legal_actions() if not a.startswith("play ")]


# ================================================================================== the presets' table
#: docs/rules.md "The presets": players, deck, hand, draw pile, pairs; the option presets
#: (-classic, -online, tute-2-8) are the sources' versions of the base rows
TABLE: dict[str, tuple[int, int, int, bool, bool]] = {
    "tute-2": (2, 40, 6, True, False),
    "habanero": (2, 40, 8, True, False),
    "tute-3": (3, 36, 12, False, False),
    "tute-4": (4, 40, 10, False, False),
    "tute-4-pairs": (4, 40, 10, False, True),
    "subastado": (4, 40, 10, False, True),
    "subastado-3": (3, 36, 12, False, False),
    "cabron": (3, 36, 12, False, False),
    "cabron-4": (4, 40, 10, False, False),
    "cabrero": (4, 40, 10, False, False),
    "cabrero-3": (3, 36, 12, False, False),
    "cabrero-5": (5, 40, 10, False, False),  # the dealer sits out: four hold 10 each
    "cabrero-6": (6, 40, 8, False, False),  # the dealer sits out: five hold 8 each
    "tute-2-8": (2, 40, 8, True, False),
    "tute-3-classic": (3, 36, 12, False, False),
    "tute-4-classic": (4, 40, 10, False, False),
    "tute-4-pairs-online": (4, 40, 10, False, True),
}


def test_the_audit_table_names_every_preset() -> None:
    """A preset added later must be audited too: this fails until it has a row above."""
    assert set(TABLE) == set(VARIANTS)


@pytest.mark.parametrize("name", ALL)
def test_every_preset_has_the_shape_of_the_rules_table(name: str) -> None:
    """docs/rules.md's preset table, checked on a real deal (not only the dataclass): the deck, the cards in
    every hand that plays, the pile, the partnerships."""
    players, deck, hand, pile, pairs = TABLE[name]
    v = get_variant(name)
    assert (v.players, v.deck_size, v.hand_size, v.draw_pile, v.pairs) == (players, deck, hand, pile, pairs)
    st = GameState.new(v, shuffled_deck(v, 3), 0)
    held = [bin(h).count("1") for s, h in enumerate(st.hands) if s != st.sit_out]
    assert held == [hand] * len(held)
    assert len(held) == (players - 1 if players > 4 else players)
    if pile:
        assert st.stock_left == 40 - 2 * hand  # the face-down pile and the face-up card
    else:
        assert st.stock_left == 0 and sum(held) == deck  # every card dealt
    assert v.teams == (((0, 2), (1, 3)) if pairs else tuple((s,) for s in range(players)))


@pytest.mark.parametrize("name", ALL)
def test_every_preset_keeps_the_rules_defaults_of_play(name: str) -> None:
    """docs/rules.md "Playing a trick": no duty to beat the led suit after a trump fell, no duty to
    under-trump, no partner exemption, in every preset but the two S0 "-classic" ones; cabrón's only duty
    is to follow suit. A preset that silently changed a duty would pass the duty tests of other presets."""
    v = get_variant(name)
    classic = name.endswith("-classic")
    assert v.must_beat_led_after_trumped is classic
    assert v.undertrump_required is classic
    assert v.partner_exemption is False
    assert v.follow_only is name.startswith("cabron")
    assert v.follow_trump_lead_in_stock is (name == "habanero")


@pytest.mark.parametrize("name", ALL)
def test_every_preset_keeps_the_rules_defaults_of_declarations(name: str) -> None:
    """docs/rules.md "Declarations": both exchanges on, the 40 first, one cante per player per won trick
    (per team only on the platform's pairs), cantes after the pile; cabrón has no cantes in hand."""
    v = get_variant(name)
    assert v.exchange_seven and v.exchange_two
    assert v.forty_first and v.cantes_after_stock
    assert v.cantes_scope == ("team" if name == "tute-4-pairs-online" else "player")
    assert v.cantes is not name.startswith("cabron")
    assert v.last_trick_bonus == 10


TUTE_DISABLED = {"habanero", "subastado", "subastado-3", "cabron", "cabron-4"}


@pytest.mark.parametrize("name", [n for n in ALL if not n.startswith("cabrero")])
def test_tute_mode_per_preset(name: str) -> None:
    """docs/rules.md "Declarations": any won trick by default, the team's first on the platform, disabled for
    habanero and subastado (and cabrón: "no Tute"); a Tute from the deal wherever Tute is on, except the
    platform's pairs (S3 has none)."""
    v = get_variant(name)
    if name in TUTE_DISABLED:
        assert v.tute_mode == "disabled" and not v.rules.tute_from_deal
    elif name == "tute-4-pairs-online":
        assert v.tute_mode == "first_team_trick" and not v.tute_from_deal
    elif name == "tute-2-8":  # S2: "después de ganar una baza", so not from the deal
        assert v.tute_mode == "any_won_trick" and not v.tute_from_deal
    else:
        assert v.tute_mode == "any_won_trick" and v.tute_from_deal


@pytest.mark.parametrize("name", ALL)
def test_losers_rules_and_auction_per_preset(name: str) -> None:
    """docs/rules.md "Deals with losers": a player with no trick loses (both), over 100 loses in cabrón only
    (S4: no penalty in cabrero), a capote after a cante loses in cabrero only; "Auction": minimum 60,
    step 5 in both subastado presets."""
    v = get_variant(name)
    if name in LOSERS:
        assert v.no_trick_loses
        assert v.over_points_loses == (100 if name.startswith("cabron") else 0)
        assert v.capote_after_cante_loses is name.startswith("cabrero")
    else:
        assert v.scoring != "losers"
    if name.startswith("subastado"):
        assert (v.trump_rule, v.scoring, v.bid_min, v.bid_step) == ("auction", "bid", 60, 5)
    assert v.sits_out is (name in ("cabrero-5", "cabrero-6"))


# ====================================================================================== seats and trump
@pytest.mark.parametrize("name", ALL)
def test_the_seat_after_the_dealer_acts_first_for_every_dealer(name: str) -> None:
    """docs/rules.md "Seats": the seat after the dealer leads the first trick (subastado: bids first; with a
    dealer sitting out the seat after it is still the next one), for every dealer seat."""
    v = get_variant(name)
    for dealer in range(v.players):
        st = GameState.new(v, shuffled_deck(v, 5 + dealer), dealer)
        first = (dealer + 1) % v.players
        assert st.leader == first
        if st.phase_name != "deal_tute":  # a Tute from the deal is asked first, in play order from it
            assert st.current_player == first
        if v.trump_rule == "auction":
            assert st.phase_name == "auction"


@pytest.mark.parametrize("name", CARD_TRUMP_NO_PILE)
def test_the_trump_card_is_public_and_known_in_its_holders_hand_until_played(name: str) -> None:
    """docs/rules.md "Seats": with all cards dealt, the dealer's last card is shown to all,
    "public knowledge that the dealer holds it until played" (with the dealer sitting out: the last seat
    dealt). Every other seat's view must show it and place it; once played it is nowhere."""
    v = get_variant(name)
    dealer = 1 if v.players > 2 else 0
    st = GameState.new(v, shuffled_deck(v, 21), dealer)
    tc = st.trump_card
    assert tc == st.deck[-1] and st.trump != NO_SUIT
    holder = next(s for s in range(v.players) if st.hands[s] & BIT[tc])
    if not v.sits_out:
        assert holder == dealer
    for seat in range(v.players):
        if seat == st.sit_out:
            continue
        view = st.view(seat)
        assert view.trump_card == tc
        assert view.known_cards(holder) & BIT[tc]
        assert not any(view.known_cards(s) & BIT[tc] for s in range(v.players) if s != holder)
    while not st.is_over and st.hands[holder] & BIT[tc]:
        acts = st.legal_actions()
        st.apply(f"play {NAMES[tc]}" if f"play {NAMES[tc]}" in acts else acts[-1])
    if not st.is_over:
        other = next(s for s in range(v.players) if s not in (holder, st.sit_out))
        assert not st.view(other).known_cards(holder) & BIT[tc]


def test_forty_cards_for_three_the_shown_card_is_dead_and_in_no_hand() -> None:
    """docs/rules.md table, tute-3: ``three_player_deck = 40`` gives 13 each with the last card face up and
    dead: nobody holds it, so no view may place it in a hand."""
    v = get_variant("tute-3", three_player_deck=40)
    st = GameState.new(v, shuffled_deck(v, 4), 2)
    dead = st.trump_card
    assert not any(h & BIT[dead] for h in st.hands)
    for seat in range(3):
        view = st.view(seat)
        assert view.trump_card == dead and not any(view.known_cards(s) & BIT[dead] for s in range(3))


def test_two_players_the_shown_trump_card_lies_under_the_pile_and_is_in_no_hand() -> None:
    """docs/rules.md: in the two-player game the turned card lies face up under the pile and is drawn last;
    until then it is public and in nobody's hand."""
    st = deal_state("tute-2", ["1c 4e 5e 6e 7e 10e", "2c 4b 5b 6b 7b 10b"], dealer=1, trump_card="3o")
    tc = parse_card("3o")
    assert st.face_up == tc and st.trump_card == tc and not any(h & BIT[tc] for h in st.hands)
    assert st.view(0).face_up == tc and st.view(1).face_up == tc


# ====================================================================================== playing a trick
def test_habanero_a_trump_lead_lets_a_player_without_trumps_play_anything() -> None:
    """docs/rules.md: habanero's trump lead must be followed "with a trump if you hold one": without one,
    any card (not "follow suit then any": there is no duty to beat either)."""
    st = deal_state("habanero", ["1b 3o 12o 4c 5c 6c 7c 10c", "2e 7e 10e 11e 12e 1o 2o 4o"], dealer=1,
                    trump_card="7b")
    st.apply("play 1b")
    assert set(play_names(st)) == set("2e 7e 10e 11e 12e 1o 2o 4o".split())


def test_habanero_a_trump_lead_in_the_pile_phase_needs_no_higher_trump() -> None:
    """While the pile lasts habanero only asks for a trump, not a higher one (montar is a strict-phase
    duty)."""
    st = deal_state("habanero", ["3b 3o 12o 4c 5c 6c 7c 10c", "2b 1b 10e 11e 12e 1o 2o 4o"], dealer=1,
                    trump_card="7b")
    st.apply("play 3b")
    assert set(play_names(st)) == {"2b", "1b"}


@pytest.mark.parametrize("name", PILE)
def test_two_player_presets_are_strict_once_the_pile_is_gone(name: str) -> None:
    """docs/rules.md: the strict phase holds for two players once the pile is empty, in every two-player
    preset (habanero's pile-phase duty gives way to the full strict duties)."""
    st = position(name, ["10c 4e", "3c 4c 1o"], trump="o", trick="10c")
    assert plays(st) == {"3c"}  # follow and beat (montar)
    st = position(name, ["10c 4e", "1o 2o 5e"], trump="o", trick="10c")
    assert plays(st) == {"1o", "2o"}  # void: trump (fallar)
    st = position(name, ["10c 4e", "1o 2o 5e"], trump="o", trick="10c", strict=False)
    assert plays(st) == {"1o", "2o", "5e"}  # the same position while the pile lasts: any card


STRICT_NO_PILE = ["tute-3", "tute-4", "tute-4-pairs", "subastado", "subastado-3", "cabrero", "cabrero-3",
                  "tute-3-classic", "tute-4-classic", "tute-4-pairs-online"]


def _hands(name: str, first: list[str]) -> list[str]:
    """Pad ``first`` (hands for seats 0, 1, 2) with filler hands of the same size up to the preset's
    seats, so one position serves three and four players."""
    v = get_variant(name)
    filler = ["5b 6b 7b", "4b 10b 2b"]
    return (first + filler)[:v.players]


@pytest.mark.parametrize("name", STRICT_NO_PILE)
def test_strict_duties_from_the_first_trick_in_every_preset_without_pile(name: str) -> None:
    """docs/rules.md: every variant but the two-player pile phase (and cabrón) is strict from the first trick:
    follow and beat (montar), void: trump (fallar) and over-trump (pisar)."""
    st = position(name, _hands(name, ["10c 4e 5e", "3c 4c 1o", "11o 2e 3e"]), trump="o", trick="10c")
    assert plays(st) == {"3c"}
    st = position(name, _hands(name, ["10c 4e 5e", "11o 12o 6e", "1o 2o 3e"]), trump="o", trick="10c 11o")
    assert plays(st) == {"1o"}  # void in copas, over-trump the 11
    st = position(name, _hands(name, ["10c 4e 5e", "1o 12o 6e", "2o 4o 3e"]), trump="o", trick="10c 1o")
    if get_variant(name).undertrump_required:  # S0: trump even with only lower trumps
        assert plays(st) == {"2o", "4o"}
    else:
        assert plays(st) == {"2o", "4o", "3e"}


@pytest.mark.parametrize("name", ["tute-3-classic", "tute-4-classic"])
def test_classic_presets_beat_the_led_suit_even_after_a_trump(name: str) -> None:
    """S0 (the -classic presets): beat the highest card of the led suit even when someone trumped."""
    st = position(name, _hands(name, ["10c 4e 5e", "1o 12o 6e", "3c 4c 3e"]), trump="o", trick="10c 1o")
    assert plays(st) == {"3c"}
    st = position("tute-3", _hands("tute-3", ["10c 4e 5e", "1o 12o 6e", "3c 4c 3e"]), trump="o",
                  trick="10c 1o")
    assert plays(st) == {"3c", "4c"}  # the default: any card of the led suit


def test_cabron_4_a_lead_of_the_trump_suit_asks_only_to_follow() -> None:
    """docs/rules.md "Cabrón": only follow suit is required, also when the led suit is the current trump:
    no duty to play higher."""
    st = position("cabron-4", ["4o 1c", "1o 2o", "3o 5b", "6b 7b"], trump="o", strict=False)
    st.apply("play 4o")
    assert plays(st) == {"1o", "2o"}
    st.apply("play 2o")
    assert plays(st) == {"3o"}
    st.apply("play 3o")
    assert plays(st) == {"6b", "7b"}  # void: any card, no duty to trump


@pytest.mark.parametrize("name", PILE)
def test_at_the_last_draw_the_loser_takes_the_card_lying_face_up_after_an_exchange(name: str) -> None:
    """docs/rules.md "Playing a trick": at the last draw the winner takes the last face-down card and the
    loser the face-up card, which after an exchange is the 7 (or 2) of trumps given for it."""
    v = get_variant(name)
    h = v.hand_size
    hand0 = ["1c", "7o"] + ["4e", "5e", "6e", "7e", "10e", "11e"][:h - 2]
    hand1 = ["2c", "4b", "5b", "6b", "7b", "10b", "11b", "12b"][:h]
    st = deal_state(v, [" ".join(hand0), " ".join(hand1)], dealer=1, trump_card="1o")
    st.apply("play 1c")
    st.apply("play 2c")  # seat 0 wins: it exchanges (before or after its draw, as the preset says)
    assert "exchange 7o" in st.legal_actions()
    st.apply("exchange 7o")
    assert holds(st, 0, "1o") and st.face_up == parse_card("7o")
    while st.face_up != NO_CARD:  # play the pile out, the first card on offer each time
        if st.phase_name == "exchange":
            st.apply("pass")
        else:
            st.apply(f"play {play_names(st)[0]}")
    loser = 1 - st.tricks[-1][2]
    assert holds(st, loser, "7o")
    assert st.view(1 - loser).known_cards(loser) & BIT[parse_card("7o")]  # public: it lay face up


# ====================================================================================== declarations
@pytest.mark.parametrize("name", [n for n in ALL if VARIANTS[n].trump_rule == "card"])
def test_the_first_leader_may_declare_nothing(name: str) -> None:
    """docs/rules.md "Declarations": the first leader of a deal has won no trick and may declare nothing,
    though it holds a pair (no cante before the first trick, in any preset with a trump card)."""
    v = get_variant(name)
    for seed in range(200):
        st = GameState.new(v, shuffled_deck(v, seed), 0)
        if st.phase_name != "play":
            continue
        hand = st.hands[st.current_player]
        if hand & hand >> 1 & sum(1 << (s * 10 + 8) for s in range(4)):  # holds a 12-11 pair
            assert declarations(st) == []
            return
    pytest.fail("no deal gave the first leader a pair")


def test_the_subastado_declarer_leads_without_a_window() -> None:
    """docs/rules.md "Subastado": the last bidder names trump and leads first; it has won no trick, so it may
    not sing before that lead."""
    hands = ["1o 3o 12o 11o 10o 7o 6o 5o 4o 2c", "1c 3c 12c 11c 10c 7c 6c 5c 4c 2o",
             "1e 3e 12e 11e 10e 7e 6e 5e 4e 2e", "1b 3b 12b 11b 10b 7b 6b 5b 4b 2b"]
    st = deal_state("subastado", hands, dealer=3)
    for a in ("bid 60", "pass", "pass", "pass", "trump o"):
        st.apply(a)
    assert st.current_player == 0 and st.leader == 0 and declarations(st) == []


def test_the_loser_of_a_trick_is_never_offered_an_exchange_or_a_cante() -> None:
    """docs/rules.md: declarations belong to the trick winner about to lead; the loser, holding the 7 of
    trumps and a pair, may not declare while it follows."""
    st = deal_state("tute-2", ["1c 4e 5e 6e 7e 10e", "2c 7o 12b 11b 4c 5c"], dealer=1, trump_card="1o",
                    stock="6c 7c")
    st.apply("play 1c")
    st.apply("play 2c")
    assert st.current_player == 0
    st.apply("play 4e")
    assert st.current_player == 1 and declarations(st) == []
    with pytest.raises(IllegalAction):
        st.apply("exchange 7o")
    with pytest.raises(IllegalAction):
        st.apply("sing b")


def test_an_exchange_then_the_forty_it_completes_in_one_window() -> None:
    """docs/rules.md: a declaration keeps the winner on move with the declarations left: taking the face-up 12
    of trumps with the 7 completes the 40, which it may then sing before leading."""
    st = deal_state("tute-2", ["1c 7o 11o 5e 6e 7e", "2c 4b 5b 6b 7b 10b"], dealer=1, trump_card="12o",
                    stock="4e 4c")
    st.apply("play 1c")
    st.apply("play 2c")
    assert "sing o" not in st.legal_actions()
    st.apply("exchange 7o")
    assert st.current_player == 0 and st.legal_actions()[0] == "sing o"
    st.apply("sing o")
    assert st.points[0] == 11 + 40 and st.current_player == 0
    assert declarations(st) == []


@pytest.mark.parametrize("name", ["tute-2", "tute-3", "tute-4", "tute-4-pairs", "cabrero"])
def test_a_cante_makes_its_two_cards_public(name: str) -> None:
    """docs/rules.md "Declarations": the two cards become public: every other seat knows the singer holds them until
    they are played."""
    v = get_variant(name)
    n = v.players
    hands = {2: ["1c 12e 11e", "2c 4b 5b"],
             3: ["1c 12e 11e", "2c 4b 5b", "4c 6b 7b"],
             4: ["1c 12e 11e", "2c 4b 5b", "4c 6b 7b", "5c 10b 2b"]}[n]
    st = position(name, hands, trump="o", trick=" ".join(h.split()[0] for h in hands))
    while st.current_player != 0:  # a partner with nothing to declare is not asked
        st.apply("pass")
    st.apply("sing e")
    pair = BIT[parse_card("12e")] | BIT[parse_card("11e")]
    for seat in range(1, n):
        assert st.view(seat).known_cards(0) & pair == pair
    st.apply("play 12e")
    assert st.view(1).known_cards(0) & pair == BIT[parse_card("11e")]


@pytest.mark.parametrize("name", ["tute-2", "tute-2-8"])
def test_a_tute_from_the_deal_in_the_two_player_game(name: str) -> None:
    """docs/rules.md: a Tute held from the deal wins before the first trick (S0), offered in play order
    from the leader: here the dealer (not the leader) holds it. Not in tute-2-8 (S2: a Tute after a won
    trick): there the deal opens with the first lead."""
    if name == "tute-2-8":
        st = deal_state(name, ["1c 4e 5e 6e 7e 10e 2e 3e", "12o 12c 12e 12b 2c 4b 5b 6b"], dealer=1, trump_card="1o")
        assert st.phase_name == "play" and st.current_player == 0
        return
    st = deal_state(name, ["1c 4e 5e 6e 7e 10e",
                           "12o 12c 12e 12b 2c 4b"],
                    dealer=1, trump_card="1o")
    assert st.phase_name == "deal_tute" and st.current_player == 1 and st.legal_actions() == ("tute 12", "pass")
    st.apply("tute 12")
    r = res(st)
    assert r.reason == "tute" and r.ranks == (1, 0) and st.tricks == ()


def test_habanero_has_no_tute_from_the_deal() -> None:
    """docs/rules.md: habanero has no Tute declaration, from the deal included."""
    st = deal_state("habanero", ["1c 4e 5e 6e 7e 10e 2e 3e", "12o 12c 12e 12b 2c 4b 5b 6b"], dealer=1,
                    trump_card="1o")
    assert st.phase_name == "play" and st.current_player == 0


@pytest.mark.parametrize("name", ["tute-3", "tute-4", "tute-3-classic", "tute-4-classic"])
def test_a_tute_after_a_won_trick_in_the_individual_presets(name: str) -> None:
    """docs/rules.md "Declarations": all four 11s held after a won trick win the deal at once: the holder ranks first,
    every other player shares second place (no counting)."""
    v = get_variant(name)
    hands = ["1c 11o 11c 11e 11b", "2c 4e 5e 6e 7e", "3c 4b 5b 6b 7b", "4c 4o 5o 6o 7o"][:v.players]
    st = position(name, hands, trump="o", trick=" ".join(h.split()[0] for h in hands))
    assert st.current_player == 0 and "tute 11" in st.legal_actions()
    st.apply("tute 11")
    assert res(st).reason == "tute" and res(st).ranks == (0,) + (1,) * (v.players - 1)


# ====================================================================================== end of a deal
def test_pairs_equal_points_go_to_the_side_of_the_last_trick() -> None:
    """docs/rules.md "The end of a deal": ties go to the winner of the last trick, for pairs as a side."""
    st = position("tute-4-pairs", ["2o", "4o", "5o", "6o"], trump="o")
    st.points[:] = [30, 20, 10, 10]  # side 0+2: 40; side 1+3: 30 before the last trick's 10
    for c in "2o 4o 5o 6o".split():
        st.apply(f"play {c}")
    r = res(st)
    assert r.points == (30, 20, 10, 20) and r.ranks == (1, 0, 1, 0)


def test_three_players_a_tie_with_the_last_trick_winner_goes_to_it_and_others_share() -> None:
    """docs/rules.md: with 3 or more individual players the last-trick winner takes a tie it is in; a tie it is
    not in is a shared place."""
    st = position("tute-3", ["2o", "4o", "5o"], trump="o")
    st.points[:] = [40, 30, 40]
    for c in "2o 4o 5o".split():
        st.apply(f"play {c}")  # seat 2 takes the last trick: 50
    assert res(st).ranks == (1, 2, 0)
    st = position("tute-3", ["2o", "4o", "5o"], trump="o")
    st.points[:] = [50, 50, 0]
    for c in "2o 4o 5o".split():
        st.apply(f"play {c}")
    assert res(st).points == (50, 50, 10) and res(st).ranks == (0, 0, 2)


def test_renuncio_with_three_players_the_others_rank_by_points_now() -> None:
    """docs/rules.md "The end of a deal": more players: the offender is placed last, the others by their points at that
    moment (equal points share)."""
    st = position("tute-3", ["2o 1c", "4o 2c", "5o 3c"], trump="o")
    st.points[:] = [10, 50, 30]
    st.forfeit(1, "crash")
    forfeit = res(st).forfeit
    assert res(st).ranks == (1, 2, 0) and forfeit is not None and forfeit.seat == 1
    st = position("tute-3", ["2o 1c", "4o 2c", "5o 3c"], trump="o")
    st.points[:] = [30, 50, 30]
    st.forfeit(1, "illegal")
    assert res(st).ranks == (0, 2, 0)


@pytest.mark.parametrize("name", LOSERS)
def test_renuncio_in_a_deal_with_losers_makes_the_offender_the_loser(name: str) -> None:
    """docs/rules.md "The end of a deal": the offender loses the deal (here: the only letter of the deal), whatever the
    points; a dealer sitting out is never the loser."""
    v = get_variant(name)
    st = GameState.new(v, shuffled_deck(v, 2), 0)
    offender = st.current_player
    st.forfeit(offender, "timeout")
    r = res(st)
    assert r.losers == (offender,) and r.reason == "forfeit"
    assert [s for s in range(v.players) if r.ranks[s] == 0] == [s for s in range(v.players) if s != offender]


def test_the_last_trick_is_worth_ten_and_a_deal_130_before_cantes() -> None:
    """docs/rules.md "The deck": 120 card points and 10 for the last trick: 130 per deal before cantes, in a
    deal played out (here tute-4 with every trick taken by the first legal card)."""
    v = get_variant("tute-4")
    st = GameState.new(v, shuffled_deck(v, 8), 0)
    while not st.is_over:
        plays_now = [a for a in st.legal_actions() if a.startswith("play ")]
        st.apply(plays_now[0])  # never sing: points are cards and the last trick only
    assert sum(res(st).points) == 130


# ====================================================================================== losers
def ended(name: str, points: list[int], tricks: list[int], dealer: int = 0) -> GameState:
    """A deal of ``name`` brought to its end with these points and tricks per seat (the end of a deal
    reads nothing else for the losers)."""
    v = get_variant(name)
    st = GameState.new(v, shuffled_deck(v, 1), dealer)
    st.points = list(points)
    st.tricks_won = list(tricks)
    st._end_with_losers()
    return st


def test_cabrero_5_the_middle_among_those_who_played_and_the_sitter_safe() -> None:
    """docs/rules.md: the middle players lose; the dealer sitting out (0 points, no trick) is neither a middle
    player nor a player without a trick."""
    r = res(ended("cabrero-5", [0, 60, 40, 20, 10], [0, 4, 3, 2, 1], dealer=0))
    assert r.losers == (2, 3) and r.reason == "middle" and r.sit_out == 0 and r.ranks[0] == 0


def test_cabrero_6_five_players_three_in_the_middle_lose() -> None:
    """Five players hold cards in cabrero-6: the three middle places lose, ties at them too."""
    r = res(ended("cabrero-6", [50, 0, 40, 30, 30, 10], [3, 0, 2, 1, 1, 1], dealer=1))
    assert r.losers == (2, 3, 4) and r.reason == "middle"


def test_cabron_4_ties_at_a_losing_place_all_lose_even_the_last() -> None:
    """docs/rules.md: ties at the losing place all lose: the middle of 60 20 20 20 is 20, so all three."""
    r = res(ended("cabron-4", [60, 20, 20, 20], [4, 2, 2, 2]))
    assert r.losers == (1, 2, 3)


@pytest.mark.parametrize("name", ["cabrero-3", "cabrero-5", "cabron-4"])
def test_capote_everyone_else_loses_in_every_loser_preset(name: str) -> None:
    """docs/rules.md: a capote (all tricks) by a player who did not sing: every other player (not a sitter)
    loses."""
    v = get_variant(name)
    pts = [0] * v.players
    tricks = [0] * v.players
    champ = 1
    pts[champ], tricks[champ] = 130, v.hand_size
    r = res(ended(name, pts, tricks, dealer=0))
    expected = tuple(s for s in range(v.players) if s != champ and not (v.sits_out and s == 0))
    assert r.losers == expected and r.reason == "capote"


# ====================================================================================== random sweeps
@pytest.mark.parametrize("name", [n for n in ALL if VARIANTS[n].cantes])
def test_every_cante_follows_a_trick_its_side_just_won_once_per_suit_forty_first(name: str) -> None:
    """docs/rules.md "Declarations", over random deals of every preset with cantes: a cante is made only in the window
    of a trick the singer's side just won (before the next lead), each suit once a deal, one per player
    per window (per side with ``cantes_scope = team``), with the 40 first while the singer holds it
    unsung. A scenario per preset would miss the interplay of windows, draws and the auction."""
    import random
    v = get_variant(name)
    r = v.rules
    sang = 0
    for seed in range(40):
        rng = random.Random(seed)
        st = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
        window: set[int] = set()
        suits: set[int] = set()
        while not st.is_over:
            legal = st.legal_actions()
            sings = [a for a in legal if a.startswith("sing ")]
            act = sings[0] if sings and rng.random() < 0.8 else rng.choice(legal)
            seat = st.current_player
            if act.startswith("sing "):
                suit = "oceb".index(act[5])
                assert st.tricks and not st.trick, "a cante only between a won trick and the next lead"
                assert r.team[st.tricks[-1][2]] == r.team[seat], "only the side that won the trick sings"
                assert suit not in suits, "each suit once per deal"
                who = r.team[seat] if r.cantes_scope_team else seat
                assert who not in window, "one cante per won trick"
                trump_pair = BIT[st.trump * 10 + 8] | BIT[st.trump * 10 + 9]
                if st.hands[seat] & trump_pair == trump_pair and st.trump not in suits:
                    assert suit == st.trump, "the 40 first"
                suits.add(suit)
                window.add(who)
                sang += 1
            n_tricks = len(st.tricks)
            st.apply(act)
            if len(st.tricks) != n_tricks:
                window = set()
    assert sang > 0


@pytest.mark.parametrize("name", ["tute-2", "tute-4-pairs", "subastado", "cabrero-5"])
def test_a_match_rotates_the_dealer_one_seat_a_deal(name: str) -> None:
    """docs/rules.md "Seats": the dealer rotates by one seat each deal of a match (a subastado redeal counts
    as a deal; with a dealer sitting out, the seat sitting out rotates with it)."""
    from arena.matchplay import MatchRule, play_match
    from bots.random_bot import RandomBot
    v = get_variant(name)
    m = play_match(v, [RandomBot(seed=s) for s in range(v.players)], seed=3, first_dealer=1,
                   rule=MatchRule("deals", v.players + 1))
    assert [d.dealer for d in m.deals] == [(1 + i) % v.players for i in range(v.players + 1)]
    if v.sits_out:
        assert [d.result.sit_out for d in m.deals] == [d.dealer for d in m.deals]
