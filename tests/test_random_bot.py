"""The ``random`` bot: the yardstick must be uniform, reproducible per game and seat, and independent of
what the instance played before."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from arena import VARIANTS, play_game, shuffled_deck
from bots.random_bot import RandomBot


def _choices(bot: RandomBot, n: int, k: int) -> list[str]:
    view = SimpleNamespace(legal=tuple(str(i) for i in range(n)))
    return [bot.choose(view) for _ in range(k)]  # type: ignore[arg-type]


def test_choices_are_uniform_for_every_count_a_deal_offers() -> None:
    bot = RandomBot(seed=3)
    bot.new_game({"seed": 12345, "seat": 1})
    for n in (2, 3, 5, 7, 10, 13):
        k = 2000 * n
        counts = Counter(_choices(bot, n, k))
        assert len(counts) == n
        expected = k / n
        chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
        # far above the 99.9th percentile of chi-square with 12 degrees of freedom (32.9): a biased
        # generator (say one that never picks the last action) fails by thousands
        assert chi2 < 40, (n, chi2, counts)


def test_a_game_seed_and_seat_give_the_same_moves_whatever_was_played_before() -> None:
    a, b = RandomBot(seed=1), RandomBot(seed=1)
    b.new_game({"seed": 99, "seat": 0})
    _choices(b, 9, 50)
    a.new_game({"seed": 7, "seat": 2})
    b.new_game({"seed": 7, "seat": 2})
    assert _choices(a, 9, 40) == _choices(b, 9, 40)


def test_seats_games_and_own_seeds_give_different_streams() -> None:
    def stream(own: int | str, seed: int, seat: int) -> list[str]:
        bot = RandomBot(seed=own)  # type: ignore[arg-type]
        bot.new_game({"seed": seed, "seat": seat})
        return _choices(bot, 10, 30)

    base = stream(0, 5, 0)
    assert stream(0, 5, 1) != base
    assert stream(0, 6, 0) != base
    assert stream(1, 5, 0) != base
    assert stream("name", 5, 0) != base


def test_random_games_replay_identically() -> None:
    v = VARIANTS["tute-3"]
    deck = shuffled_deck(v, 4)
    first = play_game(v, deck, 0, [RandomBot(s) for s in range(3)], seed=11)
    again = play_game(v, deck, 0, [RandomBot(s) for s in range(3)], seed=11)
    other = play_game(v, deck, 0, [RandomBot(s) for s in range(3)], seed=12)
    assert first.actions == again.actions
    assert first.actions != other.actions
