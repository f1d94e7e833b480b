"""bots.search: legal in every variant, deterministic, exact in the endgame, better than random.

The strength run against ``greedy`` (thousands of duplicate deals) is a benchmark:
``benchmarks/search_strength.py``, figures in docs/search.md. Here only a small sanity match.
"""

from __future__ import annotations

import random

import pytest

from arena import GameState, VARIANTS, get_variant, play_game, shuffled_deck
from arena.actions import CODE
from arena.cards import NAMES
from bots.random_bot import RandomBot
from bots.endgame import Endgame
from bots.search import ESTIMATED_WORLDS, SearchBot

from minimax import minimax
from arena.cards import NO_CARD

FAST = dict(worlds=4)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_plays_every_variant_without_forfeit(name: str) -> None:
    v = VARIANTS[name]
    for g in range(2):
        players = [SearchBot(**FAST) if s % 2 == 0 else RandomBot(seed=s) for s in range(v.players)]
        rec = play_game(v, shuffled_deck(v, g), g % v.players, players, seed=g)
        assert rec.result.forfeit is None


def test_custom_options_without_forfeit() -> None:
    for v in (get_variant("tute-3", three_player_deck=40),
              get_variant("tute-4-pairs", partner_exemption=True, cantes_scope="team", tute_mode="first_team_trick"),
              get_variant("tute-2", hand_size=8, cantes_after_stock=False, undertrump_required=True)):
        players = [SearchBot(**FAST) for _ in range(v.players)]
        rec = play_game(v, shuffled_deck(v, 3), 0, players, seed=3)
        assert rec.result.forfeit is None


def test_deterministic_for_a_seed() -> None:
    """Same seed, same game seed, same budget: the same actions (fresh instances or reused ones)."""
    for name in ("tute-2", "tute-4-pairs"):
        v = VARIANTS[name]
        deck = shuffled_deck(v, 11)
        runs = []
        # no time budget: a decision stops on its worlds, never on a loaded machine's clock
        reused = [SearchBot(seed=5, worlds=6, max_ms=1e9) for _ in range(v.players)]
        for players in ([SearchBot(seed=5, worlds=6, max_ms=1e9) for _ in range(v.players)], reused, reused):
            rec = play_game(v, deck, 1, players, seed=42)
            runs.append(rec.actions)
        assert runs[0] == runs[1] == runs[2]
        other = play_game(v, deck, 1, [SearchBot(seed=6, worlds=6) for _ in range(v.players)], seed=42)
        assert other.result.forfeit is None


_brute = minimax  # the referee's minimax (tests/minimax.py), imported by the solvers' tests too


def test_endgame_is_exact() -> None:
    """Two players, pile gone, four cards each: the bot's card is a minimax-optimal one."""
    v = get_variant("tute-2")
    checked = 0
    for seed in range(120):
        st = GameState.new(v, shuffled_deck(v, seed), seed % 2)
        rng = random.Random(seed)
        while not st.is_over and not (st.face_up == NO_CARD and bin(st.hands[st.current]).count("1") <= 4):
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])
        if st.is_over:
            continue
        view = st.view(st.current)
        if len(view.legal) < 2 or not all(a.startswith("play") for a in view.legal):
            continue
        values = {}
        for a in view.legal:
            t = st.copy()
            t.apply(a)
            values[a] = _brute(t, view.seat)
        card = SearchBot()._endgame(view, [CODE[a] for a in view.legal], Endgame(v.rules, view.trump, view.seat, 10 ** 7))
        assert values["play " + NAMES[card]] == max(values.values())
        checked += 1
    assert checked > 40


def test_beats_random_in_a_small_duplicate_match() -> None:
    """40 duplicate deals of tute-2 (each deck twice, seats swapped): search scores above 50%."""
    v = VARIANTS["tute-2"]
    score = 0.0
    deals = 40
    for d in range(deals):
        deck = shuffled_deck(v, 900 + d)
        for side in (0, 1):
            players = [SearchBot(worlds=6) if s == side else RandomBot(seed=d) for s in range(2)]
            r = play_game(v, deck, d % 2, players, seed=d).result
            score += r.ranks[side] == 0
    assert score / (2 * deals) > 0.5


class _Kept(SearchBot):
    """``search`` keeping, per PIMC decision, its legal cards, the values each world gave them, and its card."""

    def __init__(self, **params: object) -> None:
        super().__init__(**params)  # type: ignore[arg-type]
        self.decisions: list[tuple[list[int], list[list[float]], int]] = []

    def _pimc(self, view, plays, start):  # type: ignore[no-untyped-def]
        self.world_values = []
        card = super()._pimc(view, plays, start)
        self.decisions.append((plays, self.world_values, card))
        self.world_values = None
        return card


@pytest.mark.parametrize("name", ["tute-2", "tute-4-pairs"])
def test_world_values_are_what_the_decision_weighed(name: str) -> None:
    """``world_values`` (for ``benchmarks/world_noise.py``) holds each world's value of each card, the
    exact leaves' and the pairs' last tricks' included: summed, they choose the card the bot played, and
    keeping them changes no action."""
    v = VARIANTS[name]
    deck = shuffled_deck(v, 21)
    kept = [_Kept(seed=2, worlds=12, max_ms=1e9) for _ in range(v.players)]
    plain = [SearchBot(seed=2, worlds=12, max_ms=1e9) for _ in range(v.players)]
    assert play_game(v, deck, 0, kept, seed=4).actions == play_game(v, deck, 0, plain, seed=4).actions
    decisions = [d for bot in kept for d in bot.decisions]
    assert len(decisions) > 10
    for plays, rows, card in decisions:
        # 12 worlds, a third more where the endgames are estimated
        assert 1 <= len(rows) <= round(12 * ESTIMATED_WORLDS) and all(len(r) == len(plays) for r in rows)
        sums = [sum(r[i] for r in rows) for i in range(len(plays))]
        assert card == plays[max(range(len(plays)), key=sums.__getitem__)]
