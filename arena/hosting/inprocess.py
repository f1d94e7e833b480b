"""A trusted Python bot called directly in the referee's process: no copy, no pipe, no limits."""

from __future__ import annotations

import logging
from typing import Any

from .spec import BotSpec

log = logging.getLogger(__name__)


class InProcessHost:
    """A trusted Python bot called directly: no copy, no pipe. The view is a fresh object per decision
    holding only immutable referee values, so even a careless bot cannot change the game."""

    def __init__(self, bot: Any, name: str, spec: BotSpec | None = None, time_limit_ms: int | None = None) -> None:
        self.bot = bot
        #: the tournament's move limit, told to the bot in ``new_game`` (``time_ms``) though not enforced
        #: here: a trusted bot that plans its time (``search``) plays at the speed of the tournament
        self.time_limit_ms = time_limit_ms
        self.name = name
        self.spec = spec
        self.choose = bot.choose  # the hot path: no wrapper call
        self._new_game = getattr(bot, "new_game", None)
        self._game_over = getattr(bot, "game_over", None)

    def new_game(self, info: dict[str, Any]) -> None:
        if self._new_game is not None:
            self._new_game(info if self.time_limit_ms is None else dict(info, time_ms=self.time_limit_ms))

    def game_over(self, result: dict[str, Any]) -> None:
        if self._game_over is not None:
            self._game_over(result)

    def start(self) -> None:
        """Nothing to start: the bot was built when the host was."""

    def close(self) -> None:
        closer = getattr(self.bot, "close", None)
        if callable(closer):
            try:
                closer()
            except Exception:  # noqa: BLE001 - closing must never fail a run
                log.exception("bot %s: close() raised", self.name)

    def describe(self) -> str:
        target = self.spec.target if self.spec else type(self.bot).__name__
        return f"{self.name} (in-process, {target})"

    def __enter__(self) -> "InProcessHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
