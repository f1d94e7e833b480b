"""Property tests over thousands of random legal games per variant.

The duties of play are recomputed here by an independent checker written from docs/rules.md with card
lists and face orders (not the referee's bitmask tables), and compared both ways with the referee's
legal plays at every decision.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from arena import GameRecord, GameState, PlayerView, get_variant, play_game, replay, shuffled_deck
from arena.cards import FACE, NAMES, POINTS, SUIT
from arena.variants import Variant
from arena.cards import NO_CARD

ORDER = [1, 3, 12, 11, 10, 7, 6, 5, 4, 2]

CONFIGS: dict[str, Variant] = {
    "tute-2": get_variant("tute-2"),
    "habanero": get_variant("habanero"),
    "tute-3": get_variant("tute-3"),
    "tute-4": get_variant("tute-4"),
    "tute-4-pairs": get_variant("tute-4-pairs"),
}
CUSTOM: dict[str, Variant] = {
    "tute-3/40": get_variant("tute-3", three_player_deck=40),
    "tute-4/strict-options": get_variant("tute-4", undertrump_required=True, must_beat_led_after_trumped=True),
    "pairs/exempt-team": get_variant("tute-4-pairs", partner_exemption=True, cantes_scope="team",
                                     tute_mode="first_team_trick"),
    "tute-2/no-exchange-late-cantes": get_variant("tute-2", exchange_two=False, cantes_after_stock=False,
                                                 forty_first=False, hand_size=8),
}
GAMES_PER_VARIANT = 1000
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def strength(c: int) -> int:
    return -ORDER.index(FACE[c])


def trick_winner(trick: list[tuple[int, int]], trump: int) -> int:
    led = SUIT[trick[0][1]]
    trumps = [(strength(c), s) for s, c in trick if SUIT[c] == trump]
    if trumps:
        return max(trumps)[1]
    return max((strength(c), s) for s, c in trick if SUIT[c] == led)[1]


def expected_plays(v: Variant, hand: list[int], trick: list[tuple[int, int]], trump: int, strict: bool,
                   seat: int) -> set[int]:
    """docs/rules.md "Playing a trick", from scratch."""
    if not trick:
        return set(hand)
    led = SUIT[trick[0][1]]
    if not strict:
        trumps = [c for c in hand if SUIT[c] == trump]
        if v.follow_trump_lead_in_stock and led == trump and trumps:
            return set(trumps)
        return set(hand)
    same = [c for c in hand if SUIT[c] == led]
    if v.partner_exemption and v.pairs and trick_winner(trick, trump) == (seat + 2) % 4:
        return set(same or hand)
    trumped = led != trump and any(SUIT[c] == trump for _, c in trick)
    if same:
        if not trumped or v.must_beat_led_after_trumped:
            top = max(strength(c) for _, c in trick if SUIT[c] == led)
            higher = [c for c in same if strength(c) > top]
            if higher:
                return set(higher)
        return set(same)
    trumps = [c for c in hand if SUIT[c] == trump]
    if trumps:
        on_table = [strength(c) for _, c in trick if SUIT[c] == trump]
        if on_table:
            higher = [c for c in trumps if strength(c) > max(on_table)]
            if higher:
                return set(higher)
            return set(trumps) if v.undertrump_required else set(hand)
        return set(trumps)
    return set(hand)


def cards_of(mask: int) -> list[int]:
    return [c for c in range(40) if mask >> c & 1]


def play_checked(v: Variant, seed: int) -> GameState:
    """A random game (declarations favoured, to exercise them) with every duty checked on the way."""
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    draws = (40 - 2 * v.hand_size) // 2 if v.draw_pile else 0
    dealt = [set(cards_of(h)) for h in state.hands]
    in_hands = set().union(*dealt)
    assert len(in_hands) == sum(len(h) for h in dealt)  # no card dealt twice
    pile = set(state.stock) | ({state.trump_card} if v.draw_pile else set())
    assert not in_hands & pile
    all_cards = in_hands | pile
    assert len(all_cards) == v.deck_size - v.dead_card  # every card dealt (the dead one shows trump only)
    sung: set[int] = set()
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        assert len(set(legal)) == len(legal) and legal
        if state.phase_name == "play":
            trick = [((state.leader + i) % v.players, c) for i, c in enumerate(state.trick)]
            strict = not v.draw_pile or len(state.tricks) >= draws
            want = expected_plays(v, cards_of(state.hands[seat]), trick, state.trump, strict, seat)
            got = {int(c) for c in (NAMES.index(a[5:]) for a in legal if a.startswith("play "))}
            assert got == want, (seed, NAMES, trick, [NAMES[c] for c in want], legal)
            if not trick:
                assert state.window_seat in (seat, -1)
        decl = [a for a in legal if not a.startswith("play ")]
        for a in decl:  # soundness of every declaration offered
            kind, _, arg = a.partition(" ")
            hand = state.hands[seat]
            if kind == "sing":
                s = "oceb".index(arg)
                assert hand >> (s * 10 + 8) & 1 and hand >> (s * 10 + 9) & 1 and s not in sung
                assert state.tricks and state.team_of(state.tricks[-1][2]) == state.team_of(seat)
            elif kind == "tute":
                f = int(arg)
                assert all(hand >> (s * 10 + (9 if f == 12 else 8)) & 1 for s in range(4))
            elif kind == "exchange":
                assert v.draw_pile and state.face_up != NO_CARD and state.tricks and state.tricks[-1][2] == seat
        action = rng.choice(decl) if decl and rng.random() < 0.6 else rng.choice(legal)
        if action.startswith("sing"):
            sung.add("oceb".index(action[5:]))
        state.apply(action)
    r = state.result()
    assert r is not None
    played = [c for _, cs, _ in state.tricks for c in cs]
    assert len(played) == len(set(played)) and set(played) <= all_cards
    cante_pts = sum(p for _, _, p in state.cantes)
    for seat, suit, pts in state.cantes:
        assert pts == (40 if suit == state.trump else 20)
        team = v.teams[state.team_of(seat)]
        assert sum(state.tricks_won[s] for s in team) > 0  # cantes count only for a side with a trick
    if r.reason == "points":
        assert set(played) == all_cards
        assert sum(r.points) - cante_pts == sum(POINTS[c] for c in all_cards) + v.last_trick_bonus
        if not v.dead_card:
            assert sum(r.points) - cante_pts == 130
        assert 0 in r.ranks and len(r.ranks) == v.players
        for team in v.teams:
            assert len({r.ranks[s] for s in team}) == 1
    return state


def _check_config(v: Variant, seed: int) -> None:
    state = play_checked(v, seed)
    rec = GameRecord.from_state(state, game_id=f"prop/{seed}", seed=seed)
    again = GameRecord.loads(json.dumps(rec.to_json()))
    assert again.to_json() == rec.to_json()
    replayed = replay(again)
    assert replayed.actions == state.actions and replayed.result() == state.result()
    # the same seed gives the same game
    assert play_checked(v, seed).actions == state.actions


def _given_variant(name: str, v: Variant, examples: int):
    @settings(max_examples=examples, **COMMON)
    @given(seed=st.integers(0, 2**63 - 1))  # seeds are 63-bit (derive_seed; the record format)
    def test(seed: int) -> None:
        _check_config(v, seed)
    test.__name__ = f"test_random_games_{name}"
    return test


for _name, _v in CONFIGS.items():
    globals()[f"test_random_games_{_name.replace('-', '_')}"] = _given_variant(_name, _v, GAMES_PER_VARIANT)
for _name, _v in CUSTOM.items():
    _key = _name.replace("-", "_").replace("/", "__")
    globals()[f"test_random_games_{_key}"] = _given_variant(_name, _v, 250)


# ------------------------------------------------------------------------------------------ views
def _hidden_shuffle(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same state with every card ``seat`` cannot see (other hands, face-down pile) redistributed."""
    other = state.copy()
    hidden = [c for s in range(state.n) if s != seat for c in cards_of(state.hands[s])]
    rest = list(state.stock[state.stock_pos:])
    pool = hidden + rest
    rng.shuffle(pool)
    k = 0
    for s in range(state.n):
        if s == seat:
            continue
        size = bin(state.hands[s]).count("1")
        other.hands[s] = sum(1 << c for c in pool[k:k + size])
        k += size
    other.stock = tuple(state.stock[:state.stock_pos]) + tuple(pool[k:])
    other._legal = None
    return other


def _public_cards(state: GameState, seat: int) -> set[int]:
    seen = set(cards_of(state.hands[seat])) | {state.trump_card}
    seen |= {c for _, cs, _ in state.tricks for c in cs} | set(state.trick)
    for s, suit, _ in state.cantes:
        seen |= {suit * 10 + 8, suit * 10 + 9}
    for _, g, t in state.exchanges:
        seen |= {g, t}
    return seen


@settings(max_examples=400, **COMMON)
@given(seed=st.integers(0, 2**63 - 1), name=st.sampled_from(sorted(CONFIGS)), cut=st.floats(0, 1))
def test_states_differing_only_in_hidden_cards_give_equal_views(seed: int, name: str, cut: float) -> None:
    v = CONFIGS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), 0)
    steps = int(cut * 45)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_actions()))
    for seat in range(v.players):
        mine = PlayerView.of(state, seat)
        twin = _hidden_shuffle(state, seat, rng)
        assert PlayerView.of(twin, seat) == mine
        assert json.dumps(PlayerView.of(twin, seat).to_json()) == json.dumps(mine.to_json())
        # and the view does change when what the seat sees changes (the property is not vacuous)
        if state.hands[seat] and any(state.hands[s] for s in range(v.players) if s != seat):
            changed = state.copy()
            s2 = next(s for s in range(v.players) if s != seat and state.hands[s])
            a = cards_of(state.hands[seat])[0]
            b = cards_of(state.hands[s2])[0]
            changed.hands[seat] ^= (1 << a) | (1 << b)
            changed.hands[s2] ^= (1 << a) | (1 << b)
            changed._legal = None
            assert PlayerView.of(changed, seat) != mine
        # no card name in the protocol view that the seat could not know
        names = set()
        data = mine.to_json()
        for key in ("hand", "trick"):
            names |= set(data[key])
        names |= {c for t in data["tricks"] for c in t["cards"]}
        names |= {data["trump_card"]} | ({data["face_up"]} if data["face_up"] else set())
        names |= {e[k] for e in data["exchanges"] for k in ("gave", "took")}
        names |= {a.split()[1] for a in data["legal"] if a.startswith(("play", "exchange"))}
        assert names <= {NAMES[c] for c in _public_cards(state, seat)} | ({NAMES[state.face_up]}
                                                                          if state.face_up != NO_CARD else set())


class _Mutator:
    """A player that vandalises its view: the referee must not notice."""

    def __init__(self) -> None:
        self.rng = random.Random(1)

    def choose(self, view: PlayerView) -> str:
        action = self.rng.choice(view.legal)
        for k in PlayerView.__slots__:
            setattr(view, k, None)
        return action


def test_a_player_that_mutates_its_view_changes_nothing() -> None:
    v = CONFIGS["tute-2"]

    class Quiet:
        def __init__(self) -> None:
            self.rng = random.Random(1)

        def choose(self, view: PlayerView) -> str:
            return self.rng.choice(view.legal)

    for seed in range(50):
        a = play_game(v, shuffled_deck(v, seed), 0, [_Mutator(), Quiet()], seed=seed)
        b = play_game(v, shuffled_deck(v, seed), 0, [Quiet(), Quiet()], seed=seed)
        assert a.actions == b.actions and a.result == b.result
        replay(a)
