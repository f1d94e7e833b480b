"""Property tests for subastado, cabrón and cabrero: random legal games checked against an independent
reading of docs/rules.md (the auction, the seat order with a dealer sitting out, trump as named or as made by
pair tricks, follow-only play, the losers, the bid score), replays, and views that leak nothing.

The strict duties themselves reuse ``expected_plays`` of ``test_properties`` (written from the rules, not
from the referee); everything new is recomputed here with card lists.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings, strategies as st
from test_properties import _hidden_shuffle, cards_of, expected_plays, trick_winner

from arena import GameRecord, GameState, PlayerView, get_variant, replay, shuffled_deck
from arena.cards import FACE, NAMES, POINTS, SUIT
from arena.variants import Variant
from arena.cards import NO_CARD, NO_SUIT

CONFIGS: dict[str, Variant] = {name: get_variant(name) for name in (
    "subastado", "subastado-3", "cabron", "cabron-4", "cabrero", "cabrero-3", "cabrero-5", "cabrero-6")}
CUSTOM: dict[str, Variant] = {
    "subastado/70-10": get_variant("subastado", bid_min=70, bid_step=10, bid_max=150),
    "cabron/no-over-limit": get_variant("cabron", over_points_loses=0, no_trick_loses=False),
}
GAMES = 250
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def expected_losers(v: Variant, points: list[int], tricks: list[int], singers: set[int],
                    active: list[int], total: int) -> tuple[set[int], str]:
    """docs/rules.md "Cabrón", "Cabrero" and "Deals with losers", from scratch."""
    for s in active:
        if tricks[s] == total:
            if v.capote_after_cante_loses and s in singers:
                return {s}, "capote_after_cante"
            return set(active) - {s}, "capote"
    if v.no_trick_loses and any(tricks[s] == 0 for s in active):
        return {s for s in active if tricks[s] == 0}, "no_trick"
    if v.over_points_loses and any(points[s] > v.over_points_loses for s in active):
        return {s for s in active if points[s] > v.over_points_loses}, "over_points"
    ranked = sorted(active, key=lambda s: -points[s])
    losing_points = {points[s] for s in ranked[1:-1]}
    return {s for s in active if points[s] in losing_points}, "middle"


def pairs_in(cards: list[int]) -> list[int]:
    return [s for s in range(4) if any(FACE[c] == 12 and SUIT[c] == s for c in cards)
            and any(FACE[c] == 11 and SUIT[c] == s for c in cards)]


def play_checked(v: Variant, seed: int, bid_bias: float) -> GameState:
    rng = random.Random(seed)
    n = v.players
    dealer = seed % n
    state = GameState.new(v, shuffled_deck(v, seed), dealer)
    out = dealer if v.sit_out_from and v.players >= v.sit_out_from else -1
    active = [s for s in range(n) if s != out]

    def after(s: int) -> int:
        s = (s + 1) % n
        return (s + 1) % n if s == out else s

    dealt = [set(cards_of(h)) for h in state.hands]
    if out >= 0:
        assert not dealt[out]
    assert all(len(dealt[s]) == v.deck_size // len(active) for s in active)
    all_cards = set().union(*dealt)
    assert len(all_cards) == v.deck_size
    # trump as the rules say, tracked here
    trump = SUIT[state.deck[-1]] if v.trump_rule == "card" else NO_SUIT
    assert (state.trump_card == state.deck[-1]) == (v.trump_rule == "card")
    if v.trump_rule == "card":
        order = [after(dealer)]
        while len(order) < len(active):
            order.append(after(order[-1]))
        assert state.deck[-1] in dealt[order[(v.deck_size - 1) % len(active)]]
    passed: set[int] = set()
    high, declarer = 0, -1
    on_move = after(dealer)
    pair_events = 0
    pair_points = 0
    cante_points = 0
    singers: set[int] = set()
    trick: list[tuple[int, int]] = []
    leader = on_move
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal) and legal and seat != out
        phase = state.phase_name
        if phase == "auction":
            assert seat == on_move
            low = high + v.bid_step if high else v.bid_min
            assert legal == tuple(f"bid {b}" for b in range(low, v.bid_max + 1, v.bid_step)) + ("pass",)
            action = legal[0] if rng.random() < bid_bias and len(legal) > 1 else rng.choice(legal)
            if action == "pass":
                passed.add(seat)
            else:
                high, declarer = int(action[4:]), seat
            state.apply(action)
            if state.is_over:
                assert passed == set(range(n)) and state.result().reason == "redeal"
                break
            left = [s for s in range(n) if s not in passed]
            s = after(seat)
            while s in passed:
                s = after(s)
            on_move = s
            if s == declarer:
                assert state.phase_name == "trump"
            assert left
            continue
        if phase == "trump":
            assert seat == declarer and legal == ("trump o", "trump c", "trump e", "trump b")
            action = rng.choice(legal)
            trump = "oceb".index(action[-1])
            state.apply(action)
            leader = declarer
            assert state.current_player == declarer
            continue
        assert state.trump == trump
        if phase == "play":
            expected_seat = leader if not trick else after(trick[-1][0])
            assert seat == expected_seat
            hand = cards_of(state.hands[seat])
            if v.follow_only:
                led = SUIT[trick[0][1]] if trick else -1
                want = {c for c in hand if SUIT[c] == led} or set(hand)
            else:
                want = expected_plays(v, hand, trick, trump, True, seat)
            got = {NAMES.index(a[5:]) for a in legal if a.startswith("play ")}
            assert got == want, (seed, [NAMES[c] for c in want], legal)
        decl = [a for a in legal if not a.startswith("play ")]
        for a in decl:
            kind, _, arg = a.partition(" ")
            assert kind in ("sing", "pass"), a  # no Tute, no exchange in these variants
            if kind == "sing":
                assert v.cantes
                if v.trump_rule == "auction":
                    assert v.teams[state.team_of(seat)] == v.teams[state.team_of(declarer)]
        action = rng.choice(decl) if decl and rng.random() < 0.7 else rng.choice(legal)
        if action.startswith("sing"):
            suit = "oceb".index(action[5:])
            cante_points += 40 if suit == trump else 20
            singers.add(seat)
        state.apply(action)
        if action.startswith("play"):
            trick.append((seat, NAMES.index(action[5:])))
            if len(trick) == len(active):
                w = trick_winner(trick, trump)
                assert state.tricks[-1][2] == w
                leader = w
                if v.trump_rule == "pair_tricks":
                    cards = [c for _, c in trick]
                    found = pairs_in(cards)
                    if found:
                        win_suit = SUIT[dict(trick)[w]]
                        assert win_suit in found or len(found) == 1
                        trump = win_suit if win_suit in found else found[0]
                        for _ in found:
                            pair_points += 40 if pair_events == 0 else 20
                            pair_events += 1
                trick = []
    r = state.result()
    assert r is not None
    if r.reason == "redeal":
        assert r.ranks == (0,) * n and r.score == (0,) * n and not state.tricks
        return state
    played = [c for _, cs, _ in state.tricks for c in cs]
    assert len(played) == len(set(played)) == v.deck_size and set(played) == all_cards
    assert all(len(cs) == len(active) for _, cs, _ in state.tricks)
    assert sum(r.points) == sum(POINTS[c] for c in all_cards) + v.last_trick_bonus + cante_points + pair_points
    assert sum(p for *_, p in state.pair_tricks) == pair_points
    if out >= 0:
        assert r.points[out] == 0 and r.ranks[out] == 0 and r.sit_out == out
    if v.scoring == "losers":
        tricks = [0] * n
        for _, _, w in state.tricks:
            tricks[w] += 1
        want_losers, why = expected_losers(v, list(r.points), tricks, singers, active, len(state.tricks))
        assert set(r.losers) == want_losers and r.reason == why
        assert all(r.ranks[s] == (n - len(want_losers) if s in want_losers else 0) for s in range(n))
    else:
        team = v.teams[state.team_of(declarer)]
        made = sum(r.points[s] for s in team) >= high
        assert r.reason == ("made" if made else "failed")
        for s in range(n):
            side = v.teams[state.team_of(s)]
            want = (high if made else -high) if side == team else sum(r.points[x] for x in side)
            assert r.score[s] == want
            assert (r.ranks[s] == 0) == ((side == team) == made)
        assert r.contract == {"seat": declarer, "bid": high, "trump": "oceb"[trump], "made": made}
    return state


def _check(v: Variant, seed: int) -> None:
    bias = (seed % 7) / 7  # from random bidding (climbs to the top) to quick auctions
    state = play_checked(v, seed, bias)
    rec = GameRecord.from_state(state, game_id=f"prop/{seed}", seed=seed)
    again = GameRecord.loads(json.dumps(rec.to_json()))
    assert again.to_json() == rec.to_json()
    replayed = replay(again)
    assert replayed.actions == state.actions and replayed.result() == state.result()
    assert play_checked(v, seed, bias).actions == state.actions


def _given(name: str, v: Variant, examples: int):
    @settings(max_examples=examples, **COMMON)
    @given(seed=st.integers(0, 2**63 - 1))  # seeds are 63-bit (derive_seed; the record format)
    def test(seed: int) -> None:
        _check(v, seed)
    test.__name__ = f"test_random_games_{name}"
    return test


for _name, _v in CONFIGS.items():
    globals()[f"test_random_games_{_name.replace('-', '_')}"] = _given(_name, _v, GAMES)
for _name, _v in CUSTOM.items():
    globals()[f"test_random_games_{_name.replace('-', '_').replace('/', '__')}"] = _given(_name, _v, 100)


# ------------------------------------------------------------------------------------------ views
def _public(state: GameState, seat: int) -> set[str]:
    seen = set(cards_of(state.hands[seat])) | ({state.trump_card} if state.trump_card != NO_CARD else set())
    seen |= {c for _, cs, _ in state.tricks for c in cs} | set(state.trick)
    for _, suit, _ in state.cantes:
        seen |= {suit * 10 + 8, suit * 10 + 9}
    return {NAMES[c] for c in seen}


@settings(max_examples=300, **COMMON)
@given(seed=st.integers(0, 2**63 - 1), name=st.sampled_from(sorted(CONFIGS)), cut=st.floats(0, 1))
def test_views_show_the_auction_and_trump_but_no_hidden_card(seed: int, name: str, cut: float) -> None:
    v = CONFIGS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    for _ in range(int(cut * 50)):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[0] if state.phase_name == "auction" and rng.random() < 0.5 else rng.choice(legal))
    views = [PlayerView.of(state, s) for s in range(v.players)]
    # the auction, the declarer and trump are public: every seat sees the same
    assert len({(w.bids, w.declarer, w.contract, w.trump, w.pair_tricks, w.sit_out) for w in views}) == 1
    assert views[0].bids == state.bids and views[0].trump == state.trump
    for seat in range(v.players):
        mine = views[seat]
        twin = _hidden_shuffle(state, seat, rng)
        assert PlayerView.of(twin, seat) == mine
        data = mine.to_json()
        assert json.dumps(PlayerView.of(twin, seat).to_json()) == json.dumps(data)
        names = set(data["hand"]) | set(data["trick"]) | {c for t in data["tricks"] for c in t["cards"]}
        names |= {data["trump_card"]} - {None}
        names |= {a.split()[1] for a in data["legal"] if a.startswith("play")}
        assert names <= _public(state, seat)
        assert [b["seat"] for b in data["bids"]] == [s for s, _ in state.bids]
        assert sum(data["hand_sizes"]) == sum(bin(h).count("1") for h in state.hands)
