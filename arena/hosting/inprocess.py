"""A trusted Python bot called directly in the referee's process: no copy, no pipe, no memory limit."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Sequence

from ..match import BotFailure, users_stop
from ..protocol import stops_value
from .spec import BotSpec
from .subprocess import GRACE_MS

log = logging.getLogger(__name__)


class InProcessHost:
    """A trusted Python bot called directly: no copy, no pipe. The view is a fresh object per decision
    holding only immutable referee values, so even a careless bot cannot change the game."""

    def __init__(self, bot: Any, name: str, spec: BotSpec | None = None, time_limit_ms: int | None = None) -> None:
        self.bot = bot
        #: the tournament's move limit, told to the bot in ``new_game`` (``time_ms``). tute-arena's own
        #: bots are not held to it: they plan their time (``search`` stops on counted work, so a loaded
        #: machine cannot change a game); any other bot's answer is a timeout when it comes later than
        #: the limit and the subprocess hosts' grace (checked when it answers: a call cannot be cut short)
        self.time_limit_ms = time_limit_ms
        self.name = name
        self.spec = spec
        # the hot path: tute-arena's own bots are called bare; any other is guarded against sys.exit
        self.choose = bot.choose if spec is not None and spec.trusted else _guarded(bot.choose, "choose",
                                                                                    time_limit_ms)
        self._new_game = _guarded(bot.new_game, "new_game") if hasattr(bot, "new_game") else None
        self._game_over = _guarded(bot.game_over, "game_over") if hasattr(bot, "game_over") else None

    def new_game(self, info: dict[str, Any]) -> None:
        if self._new_game is not None:
            self._new_game(info if self.time_limit_ms is None else dict(info, time_ms=self.time_limit_ms))

    def game_over(self, result: dict[str, Any]) -> None:
        if self._game_over is not None:
            self._game_over(result)

    def clock_stops(self) -> int:
        """The bot's own count of decisions its clock ended (``reported_stops``), 0 if it says none."""
        return reported_stops(self.bot) or 0

    def start(self) -> None:
        """Nothing to start: the bot was built when the host was."""

    def close(self) -> None:
        closer = getattr(self.bot, "close", None)
        if callable(closer):
            try:
                closer()
            except (Exception, SystemExit):  # noqa: BLE001 - closing must never fail (nor end) a run
                log.exception("bot %s: close() raised", self.name)

    def describe(self) -> str:
        target = self.spec.target if self.spec else type(self.bot).__name__
        return f"{self.name} (in-process, {target})"

    def __enter__(self) -> "InProcessHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reported_stops(bot: Any) -> int | None:
    """A Python bot's ``clock_stops()`` (optional, a method or an attribute; docs/bots.md): the decisions
    so far its clock ended, or None when it keeps no such count or fails to say one (a report, never a
    reason to lose a game, even from a property that raises or exits). The in-process host reads it, and
    the plugin host process, which sends it in its answers."""
    try:
        counter = getattr(bot, "clock_stops", None)
        n = counter() if callable(counter) else counter
    except BaseException as exc:  # noqa: BLE001 - a bot's report must never fail (nor end) a run
        if users_stop(exc):
            raise
        return None
    return stops_value(n)


def clock_stops(players: Sequence[Any]) -> int:
    """Decisions the players' own clocks ended so far (``clock_stops``: an in-process bot's method, or
    the count a bot in a subprocess reports in its answers). Read before and after a game: if it grew,
    the game may play otherwise with other workers or on another machine."""
    return sum(p.clock_stops() for p in players if callable(getattr(p, "clock_stops", None)))


def _guarded(method: Callable[..., Any], what: str, limit_ms: int | None = None) -> Callable[..., Any]:
    """``method`` with a ``SystemExit`` it raises (a bot's ``sys.exit``) turned into a crash forfeit:
    the referee forfeits a seat on an ``Exception``, and a ``SystemExit`` would otherwise end the whole
    run (or silently kill a worker process) with the bot's exit status. A ``KeyboardInterrupt`` passes
    through: ``play_game`` tells the user's stop from the bot's own (``arena.match.users_stop``). With
    ``limit_ms``, an answer later than it (and ``GRACE_MS``, as a subprocess is allowed) is a timeout
    forfeit, as it would be from a subprocess."""

    def call(*args: Any) -> Any:
        try:
            return method(*args)
        except SystemExit as exc:
            raise BotFailure("crash", f"{what} raised {exc!r}") from None

    if limit_ms is None:
        return call
    allowed = (limit_ms + GRACE_MS) / 1000.0

    def timed(*args: Any) -> Any:
        start = time.monotonic()
        answer = call(*args)
        spent = time.monotonic() - start
        if spent > allowed:
            raise BotFailure("timeout", f"{what} answered after {spent * 1000:.0f} ms, over the {limit_ms} ms "
                                        f"limit (in-process: checked when it answers)")
        return answer

    return timed
