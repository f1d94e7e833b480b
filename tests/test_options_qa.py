"""QA of the rule options and custom variants (docs/rules.md "Options", docs/config.md "[[variants]]").

The rule book's option list against the code; hand-built positions for options and combinations the
other scenario tests leave thin (a dealer sitting out with four players, auction edges, a pile of one
card, cabrón with cantes in hand, follow-only play with a trump card, a partner's trick under
``first_team_trick``); random legal games under random valid option sets, their duties checked by the
independent ``expected_plays`` of ``test_properties``; and nonsense combinations refused in one line.

Among them the defects this pass found, each test seen failing before its fix.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from league_util import config_text, tute
from positions import deal_state, plays, position
from test_properties import cards_of, expected_plays

from arena import VARIANTS, GameRecord, GameState, PlayerView, VariantError, get_variant, replay, shuffled_deck
from arena import rules as R
from arena import variants as V
from arena.cards import NAMES, NO_CARD, NO_SUIT, POINTS, SUIT
from arena.variants import OPTION_NOTES, Variant
from leagues.tournament.config import ConfigError, load_config

DOCS = Path(__file__).resolve().parent.parent / "docs"
FIELDS = {f.name for f in dataclasses.fields(Variant)} - {"name", "description"}


# ------------------------------------------------------------------------------------------ the docs
def test_the_rule_books_option_list_is_every_option_and_each_has_a_note() -> None:
    section = (DOCS / "rules.md").read_text(encoding="utf-8").split("## Options", 1)[1]
    named = set(re.findall(r"`([a-z_]+)`", section))
    assert FIELDS <= named, sorted(FIELDS - named)
    values = {v for t in (V.TUTE_MODES, V.TRUMP_RULES, V.SCORINGS, V.CANTES_SCOPES) for v in t}
    assert named - FIELDS <= values  # the rest are values of tute_mode, trump_rule, scoring, cantes_scope
    assert set(OPTION_NOTES) == FIELDS


@pytest.mark.parametrize("option, allowed", [
    ("tute_mode", V.TUTE_MODES), ("cantes_scope", V.CANTES_SCOPES), ("trump_rule", V.TRUMP_RULES),
    ("scoring", V.SCORINGS), ("exchange_timing", V.EXCHANGE_TIMINGS), ("exchange_rule", V.EXCHANGE_RULES),
    ("bid_scoring", V.BID_SCORINGS), ("tie", V.TIES)])
def test_every_documented_value_of_a_choice_is_named_in_the_rule_book_and_others_refused(
        option: str, allowed: tuple[str, ...]) -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    for value in allowed:
        assert f"`{value}`" in text or f"= {value}" in text, (option, value)
    with pytest.raises(VariantError, match=rf"^{option}: must be one of"):
        bad: dict[str, Any] = {option: "nope"}
        Variant("x", players=4, draw_pile=False, hand_size=10, **bad)


def test_tute_variants_json_shows_every_option_of_every_preset_with_its_value(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = tute(capsys, "variants", "--format", "json")
    assert code == 0
    shown = {v["name"]: v["options"] for v in json.loads(out)}
    assert set(shown) == set(VARIANTS)
    for name, v in VARIANTS.items():
        assert shown[name] == v.settings(), name


# ------------------------------------------------------------------------------------------ positions
def test_cabrero_with_sit_out_from_four_the_dealer_sits_out_and_three_play_the_36_cards() -> None:
    for deck_size, hand in ((36, 12), (40, 13)):
        v = get_variant("cabrero", sit_out_from=4, three_player_deck=deck_size)
        assert (v.players, v.active_players, v.hand_size, v.deck_size) == (4, 3, hand, deck_size)
        for dealer in range(4):
            st = GameState.new(v, shuffled_deck(v, dealer), dealer)
            assert st.hands[dealer] == 0 and st.sit_out == dealer
            assert all(bin(st.hands[s]).count("1") == hand for s in range(4) if s != dealer)
            in_hands = sum(st.hands)
            if deck_size == 40:  # the 40th card shows trump and is in no hand
                assert not in_hands >> st.trump_card & 1 and st.trump_card == st.deck[-1]
            else:  # the seat before the dealer was dealt the last card, which shows trump
                assert st.hands[(dealer - 1) % 4] >> st.trump_card & 1
            assert st.current == (dealer + 1) % 4
            seen = []
            while not st.is_over:
                seen.append(st.current)
                st.apply(st.legal_actions()[0])
            assert dealer not in seen
            r = st.result()
            assert r is not None and r.losers is not None
            assert r.sit_out == dealer and r.ranks[dealer] == 0 and dealer not in r.losers
            assert all(len(cards) == 3 for _, cards, _ in st.tricks) and len(st.tricks) == hand


def test_an_auction_whose_top_is_off_the_steps_and_a_bid_at_the_top_leaves_only_pass() -> None:
    v = get_variant("subastado", bid_min=60, bid_step=30, bid_max=100)
    st = GameState.new(v, shuffled_deck(v, 1), 3)
    assert st.legal_actions() == ("bid 60", "bid 90", "pass")
    st.apply("bid 90")
    assert st.legal_actions() == ("pass",)  # 120 is past bid_max
    st.apply("pass")
    st.apply("pass")
    st.apply("pass")
    assert st.phase_name == "trump" and st.current == 0
    one = get_variant("subastado-3", bid_min=75, bid_max=75)
    st = GameState.new(one, shuffled_deck(one, 2), 2)
    assert st.legal_actions() == ("bid 75", "pass")
    st.apply("pass")
    st.apply("bid 75")
    assert st.legal_actions() == ("pass",)
    st.apply("pass")
    assert st.phase_name == "trump" and st.declarer == 1 and st.contract == 75


def test_an_illegal_bid_under_custom_steps_is_refused_and_the_explanation_gives_the_step() -> None:
    v = get_variant("subastado", bid_min=70, bid_step=10, bid_max=150)
    st = GameState.new(v, shuffled_deck(v, 3), 3)
    for bad in ("bid 65", "bid 75", "bid 160", "bid 60"):
        assert bad not in st.legal_actions()
        assert "step 10" in st.explain(bad) and "up to 150" in st.explain(bad)


@pytest.mark.parametrize("hand", [1, 7, 19])
def test_two_players_with_any_hand_size_draw_the_whole_pile_and_are_strict_after_the_last_draw(hand: int) -> None:
    v = get_variant("tute-2", hand_size=hand, cantes=False, tute_mode="disabled", exchange_seven=False,
                    exchange_two=False)
    st = GameState.new(v, shuffled_deck(v, hand), 1)
    assert len(st.stock) == 40 - 2 * hand - 1 and st.face_up == st.trump_card
    draws = (40 - 2 * hand) // 2
    assert v.rules.draw_rounds == draws and st.total_tricks == 20
    while len(st.tricks) < draws:
        assert not st.strict
        st.apply(st.legal_actions()[-1])
        st.apply(st.legal_actions()[-1])
        if len(st.tricks) < draws:
            assert [bin(h).count("1") for h in st.hands] == [hand, hand]
    loser = 1 - st.tricks[-1][2]
    assert st.strict and st.face_up == NO_CARD and st.stock_left == 0
    assert st.hands[loser] >> st.trump_card & 1  # the loser of the last draw took the face-up card
    assert [bin(h).count("1") for h in st.hands] == [20 - draws] * 2


def test_follow_only_with_a_trump_card_asks_only_to_follow_suit() -> None:
    hands = ["4c 5e", "1c 2c", "3o 5b", "6b 7b"]
    st = position("tute-4", hands, trump="o", leader=0, trick="4c", follow_only=True)
    assert plays(st) == {"1c", "2c"}  # no duty to beat the 4
    st.apply("play 2c")
    assert plays(st) == {"3o", "5b"}  # void: no duty to trump
    strict = position("tute-4", hands, trump="o", leader=0, trick="4c")
    assert plays(strict) == {"1c"}
    strict.apply("play 1c")
    assert plays(strict) == {"3o"}


def test_cabron_with_cantes_in_hand_sings_twenty_without_trump_and_the_pair_trick_then_makes_trump() -> None:
    st = position("cabron", ["1c 12o 11o 12e", "2c 4o 11e 4b", "3b 5o 6o 5b"], trump="o", cantes=True)
    st.trump = NO_SUIT  # cabrón starts with no trump
    st._legal = None
    for card in ("1c", "2c", "3b"):
        st.apply(f"play {card}")
    assert st.legal_actions()[0] == "sing o"  # forty_first has no 40 to prefer without trump
    st.apply("sing o")
    assert st.cantes == ((0, 0, 20),)
    for card in ("12e", "11e", "5b"):
        st.apply(f"play {card}")
    assert st.trump == 2 and st.pair_tricks == ((1, 0, 2, 40),)


def test_first_team_trick_counts_the_partners_trick() -> None:
    hands = ["2e 1c 12o 12c 12e 12b", "4e 6c 7o 2o 3o 4o", "1e 4c 5o 6o 10o 3e", "5e 5c 7e 6e 10e 11e"]
    for mode, offered in (("first_team_trick", False), ("any_won_trick", True)):
        st = position("tute-4-pairs", hands, trump="b", leader=0, trick="2e 4e 1e 5e", tute_mode=mode)
        assert st.tricks[-1][2] == 2  # the partner took the side's first trick
        assert st.phase_name == "declare" and st.current == 0  # the Tute holder is asked in that window
        assert st.legal_actions() == ("tute 12", "pass")
        st.apply("pass")
        assert st.current == 2
        for card in ("4c", "5c", "1c", "6c"):
            st.apply(f"play {card}")
        assert st.current == 0
        assert ("tute 12" in st.legal_actions()) is offered


@pytest.mark.parametrize("tie, points, last, ranks", [
    ("last_trick", [50, 50, 20], 2, [0, 0, 2]), ("last_trick", [50, 50, 20], 1, [1, 0, 2]),
    ("draw", [50, 50, 20], 1, [0, 0, 2]), ("draw", [40, 40, 40], 0, [0, 0, 0]),
    ("last_trick", [40, 40, 40], 0, [0, 1, 1])])
def test_three_sides_tied_on_points(tie: str, points: list[int], last: int, ranks: list[int]) -> None:
    r = get_variant("tute-3", tie=tie, last_trick_bonus=0).rules
    assert R.points_ranks(r, points, last) == ranks


def test_last_trick_bonus_zero_a_deal_is_worth_the_cards_and_cantes_only() -> None:
    for name in ("tute-4-pairs", "cabrero", "subastado-3"):
        v = get_variant(name, last_trick_bonus=0)
        for seed in range(20):
            st = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
            rng = random.Random(seed)
            while not st.is_over:
                st.apply(rng.choice(st.legal_actions()))
            r = st.result()
            assert r is not None
            if r.reason in ("tute", "redeal"):
                continue
            assert sum(r.points) == 120 + sum(p for *_, p in st.cantes)  # no 2 is worth a point


# ------------------------------------------------------------------------------------------ random option sets
CHOICES: dict[str, list[object]] = {
    "players": [2, 3, 4, 5, 6], "pairs": [True, False], "draw_pile": [True, False],
    "hand_size": [1, 5, 8, 19], "three_player_deck": [36, 40],
    "follow_trump_lead_in_stock": [True, False], "must_beat_led_after_trumped": [True, False],
    "undertrump_required": [True, False], "partner_exemption": [True, False],
    "exchange_seven": [True, False], "exchange_two": [True, False], "forty_first": [True, False],
    "cantes_scope": list(V.CANTES_SCOPES), "cantes_after_stock": [True, False], "tute_mode": list(V.TUTE_MODES),
    "tute_from_deal": [True, False], "last_trick_bonus": [0, 10, 37], "trump_rule": list(V.TRUMP_RULES),
    "follow_only": [True, False], "cantes": [True, False], "scoring": list(V.SCORINGS),
    "bid_min": [1, 60, 125], "bid_step": [1, 5, 25], "bid_max": [125, 230, 300],
    "no_trick_loses": [True, False], "over_points_loses": [0, 40, 100], "capote_after_cante_loses": [True, False],
    "sit_out_from": [0, 3, 4, 5, 6], "exchange_timing": list(V.EXCHANGE_TIMINGS),
    "exchange_rule": list(V.EXCHANGE_RULES), "bid_scoring": list(V.BID_SCORINGS), "tie": list(V.TIES),
    "tute_after_cante": [True, False], "skipped_cante_lost": [True, False],
}
assert set(CHOICES) == FIELDS


@st.composite
def custom_variants(draw: st.DrawFn) -> Variant:
    base = draw(st.sampled_from(sorted(VARIANTS)))
    keys = draw(st.lists(st.sampled_from(sorted(CHOICES)), min_size=1, max_size=7, unique=True))
    opts = {k: draw(st.sampled_from(CHOICES[k])) for k in keys}
    try:
        v = get_variant(base, **opts)
    except VariantError as exc:
        assert re.match(r"^[a-z_]+(, [a-z_]+)*: ", str(exc)), exc  # an error names its option
        assume(False)
    assume(not (v.dead_card and v.trump_rule != "card"))  # the defect shown by a test below
    return v


def _play_checked(v: Variant, seed: int) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    draws = v.rules.draw_rounds
    probe = rng.randrange(60)
    steps = 0
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        if state.phase_name == "play":
            hand = cards_of(state.hands[seat])
            order = state.trick_order(state.leader)
            trick = list(zip(order, state.trick))
            if v.follow_only:
                led = SUIT[state.trick[0]] if state.trick else -1
                want = {c for c in hand if SUIT[c] == led} or set(hand)
            else:
                strict = not v.draw_pile or len(state.tricks) >= draws
                want = expected_plays(v, hand, trick, state.trump, strict, seat)
            got = {NAMES.index(a[5:]) for a in legal if a.startswith("play ")}
            assert got == want, (v, seed, [NAMES[c] for c in want], legal)
        if steps == probe:  # a world sampled from the seat's view gives the view back
            view = PlayerView.of(state, seat)
            world = view.sample_world(rng)
            assert PlayerView.of(world, seat) == view
        state.apply(rng.choice(legal))
        steps += 1
        assert steps < 400
    return state


@settings(max_examples=600, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                                     HealthCheck.filter_too_much])
@given(v=custom_variants(), seed=st.integers(0, 2**63 - 1))
def test_random_games_under_random_option_sets_keep_the_duties_finish_and_replay(v: Variant, seed: int) -> None:
    state = _play_checked(v, seed)
    r = state.result()
    assert r is not None
    rec = GameRecord.loads(json.dumps(GameRecord.from_state(state, game_id=f"qa/{seed}", seed=seed).to_json()))
    assert Variant.from_options(rec.variant, rec.options) == v
    again = replay(rec)
    assert again.actions == state.actions and again.result() == r
    if r.reason not in ("tute", "redeal", "forfeit"):
        dead = POINTS[state.deck[-1]] if v.dead_card else 0
        extra = sum(p for *_, p in state.cantes) + sum(p for *_, p in state.pair_tricks)
        assert sum(r.points) == 120 - dead + v.last_trick_bonus + extra
        assert sum(state.tricks_won) == v.rules.total_tricks


# ------------------------------------------------------------------------------------------ refusals
NONSENSE = [
    ("cabrero-6", {"draw_pile": True}, "draw_pile"),  # a pile with six
    ("tute-2", {"players": 3}, "draw_pile"),
    ("tute-2", {"hand_size": 20}, "hand_size"),
    ("tute-3", {"hand_size": 13}, "hand_size"),
    ("tute-4", {"three_player_deck": 39}, "three_player_deck"),
    ("subastado", {"bid_min": 100, "bid_max": 90}, "bid_min"),
    ("subastado", {"bid_max": 301}, "bid_max"),
    ("subastado", {"bid_step": 0}, "bid_step"),
    ("tute-4-pairs", {"players": 3}, "pairs"),
    ("tute-4", {"players": 5}, "players"),
    ("cabrero", {"players": 6, "sit_out_from": 0}, "players"),
    ("tute-4", {"sit_out_from": 4}, "sit_out_from"),
    ("tute-2", {"trump_rule": "pair_tricks"}, "trump_rule"),
    ("tute-4", {"trump_rule": "auction"}, "scoring"),
    ("cabron", {"over_points_loses": -1}, "over_points_loses"),
    ("tute-2", {"last_trick_bonus": -10}, "last_trick_bonus"),
    ("tute-2", {"pairs": 1}, "pairs"),
]


@pytest.mark.parametrize("preset, options, option", NONSENSE)
def test_a_nonsense_combination_is_refused_naming_its_option(preset: str, options: dict, option: str) -> None:
    with pytest.raises(VariantError) as exc:
        get_variant(preset, **options)
    assert option in str(exc.value).split(":")[0], str(exc.value)
    assert "\n" not in str(exc.value)


def _play_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str, options: dict) -> str:
    bots = ["random"] * (VARIANTS[preset].players if not VARIANTS[preset].pairs else 2)
    args = ["play", preset, *bots, "-n", "1", "--log", str(tmp_path / "play.log")]
    for k, val in options.items():
        args += ["-o", f"{k}={json.dumps(val)}"]
    code, _, err = tute(capsys, *args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("tute: error: "), (code, err)
    return lines[0]


@pytest.mark.parametrize("preset, options, option", NONSENSE[:6] + NONSENSE[-4:])
def test_tute_play_refuses_the_combination_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       preset: str, options: dict, option: str) -> None:
    assert f"error: {option}" in _play_refused(capsys, tmp_path, preset, options)
    assert not (tmp_path / "play.log").exists()


@pytest.mark.parametrize("preset, options, option", NONSENSE[:6] + NONSENSE[-4:])
def test_tournament_toml_refuses_the_combination_naming_the_variants_options(
        tmp_path: Path, preset: str, options: dict, option: str) -> None:
    path = tmp_path / "tournament.toml"
    path.write_text(config_text(variants=[{"name": preset, "options": options}]), encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    text = str(exc.value)
    assert re.fullmatch(rf"{re.escape(str(path))}:\d+: variants\[0\]\.options: {option}\b.*", text), text


# ------------------------------------------------------------------------------------------ defects
@pytest.mark.parametrize("key", ["name", "description"])
def test_name_and_description_are_not_rule_options(key: str) -> None:
    with pytest.raises(VariantError, match=rf"^{key}: unknown rule option"):
        get_variant("tute-2", **{key: "x"})


@pytest.mark.parametrize("where", ["play", "toml"])
def test_an_option_called_name_is_a_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   where: str) -> None:
    if where == "play":
        try:
            line = _play_refused(capsys, tmp_path, "tute-2", {"name": "x"})
        except TypeError as exc:
            pytest.fail(f"traceback: {exc}")
        assert "name" in line
        return
    path = tmp_path / "tournament.toml"
    path.write_text(config_text(variants=[{"name": "tute-2", "options": {"name": "x"}}]), encoding="utf-8")
    try:
        load_config(path)
    except ConfigError as exc:
        assert "variants[0].options" in str(exc)
    except TypeError as exc:
        pytest.fail(f"traceback: {exc}")
    else:
        pytest.fail("accepted")


@pytest.mark.parametrize("preset", ["cabron", "subastado-3"])
def test_forty_cards_for_three_without_a_trump_card_views_sample_worlds(preset: str) -> None:
    try:
        v = get_variant(preset, three_player_deck=40)
    except VariantError:
        return  # refusing the combination is a fix too
    for seed in range(12):
        rng = random.Random(seed)
        st_ = GameState.new(v, shuffled_deck(v, seed), seed % 3)
        for _ in range(rng.randrange(4, 30)):
            if st_.is_over:
                break
            st_.apply(rng.choice(st_.legal_actions()))
        if st_.is_over:
            continue
        view = PlayerView.of(st_, st_.current)
        for k in range(3):
            world = view.sample_world(random.Random(k))
            assert PlayerView.of(world, st_.current) == view
            assert world.trump_card == NO_CARD and len(world.deck) == 40 and NO_CARD not in world.deck


@pytest.mark.parametrize("preset", ["tute-4", "tute-4-pairs", "cabrero"])
def test_cantes_after_stock_without_a_pile_is_refused_or_changes_nothing(preset: str) -> None:
    try:
        v = get_variant(preset, cantes_after_stock=False)
    except VariantError as exc:
        assert str(exc).startswith("cantes_after_stock")
        return
    hands = ["1c 12o 11o", "2c 4c 4b", "3b 5b 6b", "7b 10b 2b"]
    st_ = position(preset, hands, trump="e", leader=0, trick="1c 2c 3b 7b", cantes_after_stock=False)
    assert v.cantes_after_stock is False  # kept as given (a record says it), and without a pile it means nothing
    assert "sing o" in st_.legal_actions()


def test_a_tute_from_the_deal_in_subastado_is_offered_or_refused() -> None:
    try:
        v = get_variant("subastado", tute_mode="any_won_trick", tute_from_deal=True)
    except VariantError:
        return
    hands = ["12o 12c 12e 12b 1o 3o 1c 3c 1e 3e", "2o 4o 5o 6o 7o 10o 11o 2c 4c 5c",
             "6c 7c 10c 11c 2e 4e 5e 6e 7e 10e", "11e 1b 3b 2b 4b 5b 6b 7b 10b 11b"]
    st_ = deal_state(v, hands, dealer=3)
    offered = "tute 12" in st_.legal_actions()
    while not offered and st_.phase_name in ("auction", "trump"):
        st_.apply("bid 60" if st_.phase_name == "auction" and not st_.bids else st_.legal_actions()[-1])
        offered = "tute 12" in st_.legal_actions()
    assert offered


def test_a_tute_in_subastado_is_refused_or_scored_as_a_contract_deal() -> None:
    try:
        v = get_variant("subastado", tute_mode="any_won_trick")
    except VariantError:
        return
    hands = ["12o 12c 12e 12b 1o 3o 1c 3c 1e 3e", "2o 4o 5o 6o 7o 10o 11o 2c 4c 5c",
             "6c 7c 10c 11c 2e 4e 5e 6e 7e 10e", "11e 1b 3b 2b 4b 5b 6b 7b 10b 11b"]
    st_ = deal_state(v, hands, dealer=3)
    for a in ("bid 60", "pass", "pass", "pass", "trump o", "play 1c", "play 2c", "play 6c", "play 1b"):
        st_.apply(a)
    while "tute 12" not in st_.legal_actions():
        st_.apply(st_.legal_actions()[-1])
    st_.apply("tute 12")
    r = st_.result()
    assert r is not None and r.score is not None and r.contract is not None


def test_bid_max_below_bid_min_is_refused_in_every_variant() -> None:
    with pytest.raises(VariantError, match="bid_"):
        get_variant("tute-2", bid_min=100, bid_max=90)


def test_a_sit_out_that_leaves_two_players_names_sit_out_from() -> None:
    with pytest.raises(VariantError, match=r"^sit_out_from"):
        get_variant("cabrero-3", sit_out_from=3)


def test_a_bad_option_in_an_options_table_names_its_own_line(tmp_path: Path) -> None:
    text = config_text(variants=[{"name": "tute-2"}])
    text = text.replace('[[variants]]\nname = "tute-2"\n',
                        '[[variants]]\nname = "tute-2"\n[variants.options]\ntie = "draw"\nhand_size = 99\n')
    path = tmp_path / "tournament.toml"
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index("hand_size = 99") + 1
    with pytest.raises(ConfigError, match=rf"tournament\.toml:{line}: .*hand_size"):
        load_config(path)
