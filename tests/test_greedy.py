"""greedy: always legal, fast, and clearly stronger than random in every preset variant."""

from __future__ import annotations

import random
from math import sqrt

import pytest

from arena import VARIANTS, GameState, get_variant, play_game, shuffled_deck
from arena.hosting import make_player
from bots.greedy import GreedyBot


def _games(variant: str, deals: int, seed: int = 11):
    """greedy in one seat (both seats of one side in pairs), random elsewhere; seat and dealer rotate."""
    v = get_variant(variant)
    n = v.players
    greedy = [make_player("greedy") for _ in range(n)]
    rand = [make_player("random") for _ in range(n)]
    wins = 0
    pts_mine = pts_theirs = 0.0
    for g in range(deals):
        k = g // n  # the dealer turns every deal, greedy's seat every n deals: every pairing of the two
        mine = {k % 2, k % 2 + 2} if v.pairs else {k % n}
        seats = [greedy[s] if s in mine else rand[s] for s in range(n)]
        rec = play_game(v, shuffled_deck(v, 1000 * seed + g), g % n, seats, seed=g)
        r = rec.result
        assert r.forfeit is None, r.forfeit
        wins += any(r.ranks[s] == 0 for s in mine) and not any(r.ranks[s] == 0 for s in range(n) if s not in mine)
        pts_mine += sum(r.points[s] for s in mine) / len(mine)
        pts_theirs += sum(r.points[s] for s in range(n) if s not in mine) / (n - len(mine))
    return wins, pts_mine / deals, pts_theirs / deals


# deals, and the share of wins a bot no better than random would get (one side of 2, one of 3, one of 4)
CASES = {"tute-2": (200, 1 / 2), "habanero": (200, 1 / 2), "tute-3": (600, 1 / 3), "tute-4": (800, 1 / 4),
         "tute-4-pairs": (600, 1 / 2)}


@pytest.mark.parametrize("variant", list(CASES))
def test_greedy_beats_random(variant: str) -> None:
    deals, fair = CASES[variant]
    wins, mine, theirs = _games(variant, deals)
    # at least 4 standard deviations above a coin with the fair share: p < 4e-5 if greedy were no better
    threshold = deals * fair + 4 * sqrt(deals * fair * (1 - fair))
    assert wins > threshold, f"{variant}: greedy won {wins}/{deals}, needed > {threshold:.0f}"
    assert mine > theirs + 5, f"{variant}: greedy {mine:.1f} points per deal against random's {theirs:.1f}"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_greedy_is_legal_from_any_position(variant: str) -> None:
    """From positions random play reaches (odd ones included), greedy answers a legal action (its speed
    per decision: benchmarks/decision_time.py)."""
    v = VARIANTS[variant]
    rng = random.Random(variant)
    bot = GreedyBot()
    asked = 0
    for g in range(40):
        st = GameState.new(v, shuffled_deck(v, g), g % v.players)
        bot.new_game({"players": v.players, "seat": 0})
        while not st.is_over:
            view = st.view(st.current)
            action = bot.choose(view)
            asked += 1
            assert action in view.legal
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))] if rng.random() < 0.5 else action)
    assert asked > 40 * 5


def test_greedy_declares_first() -> None:
    """Tute, then exchange, then cante, whenever the rules offer them."""
    class V:
        legal = ("exchange 7o", "sing c", "play 1o")
    assert GreedyBot().choose(V()) == "exchange 7o"  # type: ignore[arg-type]
    V.legal = ("sing o", "tute 12", "play 1o")
    assert GreedyBot().choose(V()) == "tute 12"  # type: ignore[arg-type]
    V.legal = ("sing b", "pass")
    assert GreedyBot().choose(V()) == "sing b"  # type: ignore[arg-type]


@pytest.mark.parametrize("options", [{"partner_exemption": True}, {"cantes_scope": "team"},
                                     {"undertrump_required": True, "must_beat_led_after_trumped": True}])
def test_greedy_under_custom_rules(options: dict) -> None:
    v = get_variant("tute-4-pairs", **options)
    players = [make_player("greedy"), make_player("random"), make_player("greedy"), make_player("random")]
    for g in range(60):
        rec = play_game(v, shuffled_deck(v, g), g % 4, players, seed=g)
        assert rec.result.forfeit is None
