"""Small bots for the league tests (importable as ``league_bots:Class`` with tests/ on the path)."""

from __future__ import annotations

from typing import Any

from arena import PlayerView, parse_card
from arena.cards import POINTS, STRENGTH, SUIT


def _cost(c: int) -> tuple[int, int]:
    return POINTS[c], STRENGTH[c]


def _beats(c: int, best: int, trump: int) -> bool:
    if SUIT[c] == SUIT[best]:
        return STRENGTH[c] > STRENGTH[best]
    return SUIT[c] == trump


class CheapWinBot:
    """Honest and simple, yet clearly better than random: declares whatever it can, wins a trick with
    its cheapest winning card, otherwise throws its cheapest card, and leads low outside trumps."""

    def __init__(self, **_: Any) -> None:
        pass

    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        for prefix in ("tute", "sing", "exchange"):
            for a in legal:
                if a.startswith(prefix):
                    return a
        plays = {parse_card(a.split()[1]): a for a in legal if a.startswith("play")}
        if not plays:
            return legal[0]
        cards = list(plays)
        if not view.trick:
            plain = [c for c in cards if SUIT[c] != view.trump] or cards
            return plays[min(plain, key=_cost)]
        best = view.trick[0]
        for c in view.trick[1:]:
            if _beats(c, best, view.trump):
                best = c
        winners = [c for c in cards if _beats(c, best, view.trump)]
        return plays[min(winners or cards, key=_cost)]


class CrashBot:
    """Raises on every decision: each of its games is a crash forfeit."""

    def choose(self, view: PlayerView) -> str:
        raise RuntimeError("boom")


class ExitBot:
    """Ends the whole process it plays in at its fifth decision: in-process, that is a tournament
    worker dying under the runner."""

    def __init__(self, **_: Any) -> None:
        self.decisions = 0

    def choose(self, view: PlayerView) -> str:
        self.decisions += 1
        if self.decisions >= 5:
            import os
            os._exit(3)
        return view.legal[0]


class SlowGreedyBot:
    """``greedy``, taking ``ms`` milliseconds a move: a match long enough to be killed in the middle."""

    def __init__(self, ms: float = 3.0, **_: Any) -> None:
        from bots.greedy import GreedyBot
        self.inner = GreedyBot()
        self.ms = ms

    def new_game(self, info: dict[str, Any]) -> None:
        self.inner.new_game(info)

    def choose(self, view: PlayerView) -> str:
        import time
        time.sleep(self.ms / 1000)
        return self.inner.choose(view)


class ClockedBot:
    """Plays its first legal card and says, as ``search`` would, that its clock ended a decision in the
    games whose id ends with one of ``at`` (default: the first rotation of every deal; ``clock_stops``):
    a stand-in for a machine too slow."""

    def __init__(self, at: list[str] | None = None, sleep: float = 0.0, **_: Any) -> None:
        self.stops = 0
        self.at = tuple(at or ["/s0"])
        self.sleep = float(sleep)  # seconds a decision: a run slow enough to stop in the middle

    def new_game(self, info: dict[str, Any]) -> None:
        self.slow = str(info.get("game_id")).endswith(self.at)

    def choose(self, view: PlayerView) -> str:
        if self.slow:
            self.stops += 1
            self.slow = False
        if self.sleep:
            import time

            time.sleep(self.sleep)
        return view.legal[0]

    def clock_stops(self) -> int:
        return self.stops


class EvenClockedBot(ClockedBot):
    """``ClockedBot`` for ``tute play``'s ids (``play/SEED/G``): its clock ends a decision in the even deals."""

    def new_game(self, info: dict[str, Any]) -> None:
        self.slow = int(str(info.get("game_id")).rsplit("/", 1)[-1]) % 2 == 0


class UnsteadyBot(ClockedBot):
    """Its clock ends a decision in every deal, and such a decision is cut short at a card of chance
    (an unseeded draw, as a search stopped by the clock plays whatever its worlds so far said)."""

    def new_game(self, info: dict[str, Any]) -> None:
        self.slow = True

    def choose(self, view: PlayerView) -> str:
        if self.slow:
            import random

            self.stops += 1
            self.slow = False
            return random.SystemRandom().choice(view.legal)
        return view.legal[0]
