"""``bots/strict_estimate.py``: the static estimate of a two-player endgame where the pile runs out, and the
pile decisions of ``search`` that use it.

The features are checked against a plain count over the cards (they are bit tricks for speed) and for
being one side's minus the other's; the estimate against the exact solver on frontiers of random games
(it is a fitted model, so the test asks for a share of winners told right, not for exactness); and
``search`` for which decisions it estimates, in every preset.
"""

from __future__ import annotations

import math
import random

import pytest

from arena import VARIANTS, GameState, get_variant, play_game, shuffled_deck
from arena.cards import HIGHER, POINTS, SUIT, SUIT_MASK
from arena.rules import ELEVENS, TRUMP_MASK, cante_points
from bots import strict_estimate
from bots.endgame import WIN, Endgame
from bots.greedy import GreedyBot
from bots.search import ESTIMATED_MARGIN, SearchBot
from bots.strict_estimate import estimate, features

from test_exact_leaves import frontiers, pile_turn
from test_search_variants import _bench

TUTE_2 = get_variant("tute-2")


def plain_features(mine: int, other: int, trump: int, diff: int, leading: bool, sung: int) -> list[float]:
    """The module docstring's features, counted card by card."""
    def cards(mask: int) -> list[int]:
        return [c for c in range(40) if mask >> c & 1]

    def points(mask: int) -> int:
        return sum(POINTS[c] for c in cards(mask))

    def masters(hand: int, against: int) -> int:  # cards no card of ``against`` beats in their suit
        return sum(1 for c in cards(hand) if not HIGHER[c] & against)

    def cantes(hand: int) -> int:
        pairs = hand & hand >> 1 & ELEVENS & ~sung
        return sum(cante_points(SUIT[c], trump) for c in cards(pairs))

    def master_points(hand: int, against: int) -> int:
        return sum(POINTS[c] for c in cards(hand) if not HIGHER[c] & against)

    def exposed(hand: int, against: int) -> int:  # side points ``against`` takes by a higher card or a ruff
        ruffs = bool(against & TRUMP_MASK[trump])
        return sum(POINTS[c] for c in cards(hand) if SUIT[c] != trump and (
            HIGHER[c] & against or ruffs and not against & SUIT_MASK[SUIT[c]]))

    t = TRUMP_MASK[trump]
    trumps = len(cards(mine & t)) - len(cards(other & t))
    return [1.0, diff / 130, (points(mine) - points(other)) / 130, float(trumps),
            (points(mine & t) - points(other & t)) / 130, float(masters(mine, other) - masters(other, mine)),
            float(masters(mine & t, other) - masters(other & t, mine)), 1.0 if leading else -1.0,
            (cantes(mine) - cantes(other)) / 130, (master_points(mine, other) - master_points(other, mine)) / 130,
            (exposed(mine, other) - exposed(other, mine)) / 130, trumps * abs(diff) / 130]


def random_frontier(rng: random.Random) -> tuple[int, int, int, int, bool, int]:
    """Two 6-card hands of a shuffled deck (any cards, voids and pairs included) and the rest at random."""
    deck = list(range(40))
    rng.shuffle(deck)
    size = rng.randint(1, 6)
    mine = sum(1 << c for c in deck[:size])
    other = sum(1 << c for c in deck[size:2 * size])
    sung = sum(1 << (s * 10 + 8) for s in range(4) if rng.random() < 0.3)
    return mine, other, rng.randrange(4), rng.randint(-80, 80), rng.random() < 0.5, sung


def test_the_features_are_the_plain_counts() -> None:
    rng = random.Random(1)
    for _ in range(3000):
        f = random_frontier(rng)
        assert features(*f) == pytest.approx(plain_features(*f)), f


def test_the_features_are_one_sides_minus_the_others() -> None:
    """Seen from the other hand every feature but the bias changes sign, so the estimate does not
    depend on which seat is asking."""
    rng = random.Random(2)
    for _ in range(2000):
        mine, other, trump, diff, leading, sung = random_frontier(rng)
        here = features(mine, other, trump, diff, leading, sung)
        there = features(other, mine, trump, -diff, not leading, sung)
        assert here[0] == there[0] == 1.0
        assert here[1:] == pytest.approx([-x for x in there[1:]])


def test_the_estimate_tells_the_winner_of_solved_frontiers() -> None:
    """On frontiers of random tute-2 games (a policy playout stopped where the pile ran out), the
    estimate's likelier side is the exact solver's winner in most of them, and its value is nearer the
    exact value than a coin's or than the margin so far alone would put it."""
    r = TUTE_2.rules
    told = total = 0
    err = err_margin_only = 0.0
    for state, f, _ in frontiers(TUTE_2, range(400)):
        me = state.current
        diff = f.points[me] - f.points[1 - me]
        val = Endgame(r, state.trump, me, 10 ** 7).solve(f.hands, f.leader, diff, f.sung, f.won, f.left,
                                                          -10 * WIN, 10 * WIN)
        if -WIN // 2 < val < WIN // 2:
            continue  # a draw: no winner to tell
        won = val > 0
        p = estimate(f.hands[me], f.hands[1 - me], state.trump, diff, f.leader == me, f.sung, 0.0)
        total += 1
        told += (p > 0.5) == won
        err += (p - won) ** 2
        err_margin_only += ((diff > 0) + 0.5 * (diff == 0) - won) ** 2
    assert total > 150
    assert told / total > 0.85
    assert err / total < min(0.25, err_margin_only / total)


def test_search_estimates_only_the_two_player_pile_decisions_before_the_exact_leaves(monkeypatch) -> None:
    """In a tute-2 game the estimate is called at the pile decisions with more than ``solve_pile``
    cards left, never once the leaves or the exact endgame take over, and never with ``estimate`` off;
    its value weighs the margin ``ESTIMATED_MARGIN`` times the bot's ``margin_weight``."""
    calls: list[float] = []
    kinds: list[tuple[int, str]] = []
    real = strict_estimate.estimate

    class Probe(SearchBot):
        def _pimc(self, view, plays, start):  # type: ignore[no-untyped-def]
            kinds.append((view.stock_left, self.leaf_kind(view)))
            before = len(calls)
            card = super()._pimc(view, plays, start)
            assert (len(calls) > before) == (self.leaf_kind(view) == "estimate")
            return card

    monkeypatch.setattr(strict_estimate, "estimate", lambda *a, **k: calls.append(a[6]) or real(*a, **k))
    play_game(TUTE_2, shuffled_deck(TUTE_2, 4), 0, [Probe(worlds=3, margin_weight=0.1), GreedyBot()], seed=4)
    assert calls and {k for _, k in kinds} == {"estimate", "solve"}
    assert set(calls) == {0.1 * ESTIMATED_MARGIN} and ESTIMATED_MARGIN != 1
    assert all((k == "estimate") == (left > 6) for left, k in kinds)
    calls.clear()
    play_game(TUTE_2, shuffled_deck(TUTE_2, 4), 0, [Probe(worlds=4, estimate=False), GreedyBot()], seed=4)
    assert not calls


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_which_presets_estimate(name: str) -> None:
    """Only two-player decks with hands of at most six cards estimate (the model is fitted on tute-2's
    endgames); every other preset plays its decisions as before, whatever the pile holds."""
    v = VARIANTS[name]
    bot = SearchBot()
    state = pile_turn(v, 3) if v.players == 2 else None
    if state is None:  # no pile phase to stop in: any position of the deal
        state = GameState.new(v, shuffled_deck(v, 3), 0)
    view = state.view(state.current)
    kind = bot.leaf_kind(view)
    small_pile = v.players == 2 and v.hand_size <= 6 and view.stock_left > 0
    assert (kind != "") == small_pile, (name, kind)
    if small_pile:
        assert kind == ("estimate" if view.stock_left > bot.solve_pile else "solve")


def test_the_fit_recovers_a_planted_model() -> None:
    """The benchmark's pure-Python least squares and Newton's method give back the coefficients that
    made the data (the module's coefficients are what they print)."""
    bench = _bench("strict_estimate")
    rng = random.Random(5)
    xs = [[1.0, rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(6000)]
    assert bench.fit_linear(xs, [0.5 - 2 * x[1] + 3 * x[2] for x in xs]) == pytest.approx([0.5, -2, 3], abs=1e-9)
    planted = [0.3, 2.0, -1.5]
    ys = [float(rng.random() < 1 / (1 + math.exp(-sum(a * b for a, b in zip(planted, x))))) for x in xs]
    assert bench.fit_logistic(xs, ys) == pytest.approx(planted, abs=0.2)


def test_the_benchmarks_frontiers_are_solved_and_featured() -> None:
    """One game's rows: the features of the frontier it names, an exact win that agrees with the sign
    of the exact margin, and a policy playout's win."""
    bench = _bench("strict_estimate")
    rows = bench.frontiers((0, 1))
    assert len(rows) > 20
    for x, won, margin, played, _, frame in rows:
        assert x == features(*frame)
        assert won in (0.0, 0.5, 1.0) and played in (0.0, 0.5, 1.0)
        assert (margin > 0 and won == 1.0) or (margin < 0 and won == 0.0) or margin == 0
