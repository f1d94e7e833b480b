"""``random``: a uniform choice among the legal actions, the yardstick every other bot must beat."""

from __future__ import annotations

import zlib
from typing import Any

from arena import PlayerView

_MASK = (1 << 64) - 1
#: Knuth's MMIX linear congruential generator (modulus 2^64); a choice reads its high 32 bits
_MUL, _INC = 6364136223846793005, 1442695040888963407


def _mix(x: int) -> int:
    """SplitMix64's finalizer: nearby seeds (seat 0 and 1, game 7 and 8) start far apart."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


class RandomBot:
    """Uniform over legal actions. Its generator is reseeded from each game's seed and seat, so a game is
    reproducible whatever games this instance played before (and whichever worker plays it).

    The generator is a 64-bit LCG, not ``random.Random``: reseeding a Mersenne Twister costs 4 us, as
    much as a dozen of this bot's moves, and it is reseeded every game. A choice among n legal actions is
    ``(high 32 bits * n) >> 32``: uniform to within n / 2^32, far below anything a deal can show.
    """

    name = "random"
    #: its play's revision, raised whenever it plays a seeded deal otherwise (tests/test_bot_revisions.py
    #: holds each to a fingerprint of its play): a tournament records it with the entrant, and refuses
    #: to resume with another, whose games would differ from those already stored
    revision = 1

    @staticmethod
    def plays_by(v: Any) -> str:
        """How it plays ``v`` (``tute bots list``): at random, everywhere."""
        return "at random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        own = seed if isinstance(seed, int) else zlib.crc32(str(seed).encode())
        self._key = _mix(own & _MASK)
        self._state = self._key

    def new_game(self, info: dict[str, Any]) -> None:
        # the game's seat seed (``arena.match.bot_seed``: already one per game and seat) mixed with this
        # bot's own
        seed, seat = info.get("seed"), info.get("seat") or 0
        game = seed if isinstance(seed, int) else 0
        self._state = _mix((((game * 8 + seat) * 1_000_003) ^ self._key) & _MASK)

    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        x = self._state = (self._state * _MUL + _INC) & _MASK
        return legal[((x >> 32) * len(legal)) >> 32]
