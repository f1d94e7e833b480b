"""A bot's seed: its own per seat, below 2^53 (exact in every language's JSON), and never the deck's
(with the deck's seed a bot could deal the deck again and see every hand)."""

from __future__ import annotations

from typing import Any

from arena import PlayerView, get_variant, play_game, shuffled_deck
from arena.match import BOT_SEED_BITS, bot_seed, derive_seed


class SeedSpy:
    def __init__(self) -> None:
        self.infos: list[dict[str, Any]] = []

    def new_game(self, info: dict[str, Any]) -> None:
        self.infos.append(info)

    def choose(self, view: PlayerView) -> str:
        return view.legal[0]


def test_bots_get_a_53_bit_seed_of_their_own_that_is_not_the_decks() -> None:
    v = get_variant("tute-4")
    for game_seed in (0, 1, 2**62 + 12345, 2**63 - 1):
        spies = [SeedSpy() for _ in range(4)]
        deck = shuffled_deck(v, game_seed)
        rec = play_game(v, deck, 0, spies, seed=game_seed)
        seeds = [s.infos[0]["seed"] for s in spies]
        assert rec.seed == game_seed  # the record keeps the deck's seed
        assert len(set(seeds)) == 4 and all(0 <= x < 2**53 for x in seeds)
        assert all(shuffled_deck(v, x) != deck for x in seeds)
        assert seeds == [bot_seed(game_seed, s) for s in range(4)]
        # the numbers are derive_seed's (docs/protocol.md): a change of the fast path cannot move them
        assert seeds == [derive_seed("bot", game_seed, s) >> (63 - BOT_SEED_BITS) for s in range(4)]
    assert bot_seed(None, 0) is None
