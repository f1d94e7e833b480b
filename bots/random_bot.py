"""``random``: a uniform choice among the legal actions, the yardstick every other bot must beat."""

from __future__ import annotations

import random
import zlib
from typing import Any

from arena import PlayerView


class RandomBot:
    """Uniform over legal actions. Its RNG is reseeded from each game's seed and seat, so a game is
    reproducible whatever games this instance played before (and whichever worker plays it)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, info: dict[str, Any]) -> None:
        # the game's seat seed (``arena.match.bot_seed``: already one per game and seat) mixed with this
        # bot's own; seeded from integers, not a string, whose hashing cost more than the bot's moves
        seed, seat = info.get("seed"), info.get("seat") or 0
        own = self.seed if isinstance(self.seed, int) else zlib.crc32(str(self.seed).encode())
        self.rng.seed(((seed if isinstance(seed, int) else 0) * 8 + seat) * 1_000_003 + own)

    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        # ``int(random() * n)``, not ``randrange(n)``: uniform for any n a deal has (at most a few
        # dozen, far below 2^53), and a third of the cost of the yardstick's only work
        return legal[int(self.rng.random() * len(legal))]
