"""The built-in bots' ``revision`` against a fingerprint of their play.

A tournament records each entrant's version, and refuses to resume with another (its games would mix
two versions' play: ``runner._refuse_other_versions``). A built-in bot's version is tute-arena's, which
does not change when the bot's play does, so each built-in bot carries a ``revision`` (recorded as
``tute-arena r1``, whatever the release). This test is what keeps it honest: seeded deals in every preset, hashed; a
change of play without a new revision fails here, and so does a new revision without a change of play.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

import pytest

from arena import VARIANTS, play_game, shuffled_deck
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from bots.search import SearchBot

#: bot -> (revision, fingerprint of its play at that revision); update both together
PINNED = {
    "random": (1, "2046bfbf141b42ee"),
    "greedy": (1, "06d5b920c16f7d0d"),
    "search": (1, "d7c07f289b3b31db"),
}
#: each bot in every preset, in the seat that deals rotate through, the others random
MAKERS: dict[str, tuple[type, Callable[[], Any], int]] = {
    "random": (RandomBot, lambda: RandomBot(seed=3), 20),
    "greedy": (GreedyBot, GreedyBot, 20),
    # a small search: its code paths (the endgame, the estimate, the auction, the referee's playouts) at
    # a cost a test can pay; its default budget plays the same code
    "search": (SearchBot, lambda: SearchBot(seed=2, worlds=4, bid_worlds=4, max_ms=1e9), 3),
}


def fingerprint(make: Callable[[], Any], deals: int) -> str:
    h = hashlib.sha256()
    for name in sorted(VARIANTS):
        v = VARIANTS[name]
        for d in range(deals):
            # the bot's seat turns with the deals, and the dealer turns on another cycle: the bot plays
            # every place (first to a trick or last), and is not always the dealer who sits out
            n = v.players
            players = [make() if s == d % n else RandomBot(seed=7) for s in range(n)]
            rec = play_game(v, shuffled_deck(v, 1000 + d), (d + 1 + d // n) % n, players, seed=d)
            h.update(repr((name, d, rec.actions)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("bot", sorted(PINNED))
def test_a_built_in_bot_raises_its_revision_exactly_when_its_play_changes(bot: str) -> None:
    cls, make, deals = MAKERS[bot]
    revision, pinned = PINNED[bot]
    now = fingerprint(make, deals)
    if now != pinned:
        assert cls.revision != revision, (
            f"{cls.__name__} plays otherwise than at revision {revision} (fingerprint {now}, pinned {pinned}): "
            f"raise its revision and pin ({cls.revision + 1}, {now!r}) here")
        pytest.fail(f"{cls.__name__}: pin ({cls.revision}, {now!r}) here")
    assert cls.revision == revision, f"{cls.__name__}.revision {cls.revision}: its play is revision {revision}'s"
