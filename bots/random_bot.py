"""``random``: a uniform choice among the legal actions, the yardstick every other bot must beat."""

from __future__ import annotations

import random
from typing import Any

from arena import PlayerView


class RandomBot:
    """Uniform over legal actions. Its RNG is reseeded from each game's seed and seat, so a game is
    reproducible whatever games this instance played before (and whichever worker plays it)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(f"{self.seed}/{info.get('seed')}/{info.get('seat')}")

    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        return legal[self.rng.randrange(len(legal))]
