"""Whether a stream is a terminal that takes a redrawn line (a carriage return and an erase sequence):
not a file or pipe, and not ``TERM=dumb``. The runner's progress line and the CLI's both ask here; and
how a rate reads on them (``per_second``), and the warning of games a bot's clock decided (``clocked``)."""

from __future__ import annotations

import os
from typing import IO, Any


def plain_terminal() -> bool:
    """A terminal that cannot take escape sequences (``TERM=dumb``)."""
    return os.environ.get("TERM", "") == "dumb"


def redraw(stream: IO[Any]) -> bool:
    """Whether a progress line may be redrawn in place on ``stream``."""
    return stream.isatty() and not plain_terminal()


def per_second(rate: float) -> str:
    """A rate as the progress lines and summaries print it: whole numbers from 10 up, two significant
    digits below (0.29 games/s, not 0 games/s, for a slow bot)."""
    return f"{rate:.0f}" if rate >= 10 or rate != rate or rate == float("inf") else f"{rate:.2g}"


def plural(n: int, noun: str) -> str:
    """``1 game``, ``2 games``, ``3 matches``."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {noun}es" if noun.endswith(("ch", "sh", "s", "x")) else f"{n} {noun}s"


def clocked(count: int, first: str, games: str, setting: str) -> str:
    """The warning of a run in which a bot's clock, not its counted work, ended decisions (``tute run``,
    a league season, ``tute match``, ``tute play``): those games may not replay the same. ``games``
    names what was played (``game``, ``deal``, ``match``); ``setting`` is where the command takes its
    move limit (a key of its file, or an option)."""
    return (f"warning: in {plural(count, games)} a bot's clock, not its counted work, ended a decision (first: "
            f"{first}): {'they' if count != 1 else 'it'} may play otherwise with another number of workers or on "
            f"another machine; a larger move limit ({setting}) usually avoids it")
