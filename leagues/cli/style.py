"""When the terminal gets colour and redrawn lines: ``--color``, ``NO_COLOR`` and ``TERM=dumb``.

``--color always`` and ``never`` decide; ``auto`` (the default) colours only a terminal, and not when
``NO_COLOR`` is set to anything non-empty (no-color.org) or ``TERM`` is ``dumb``. A redrawn progress line
(a carriage return and an erase sequence) follows the same test, colour aside.
"""

from __future__ import annotations

import os
from typing import IO, Any

import click

from leagues.tournament.terminal import plain_terminal, redraw

__all__ = ["CHOICES", "colour", "redraw"]

CHOICES = ("auto", "always", "never")


def _choice() -> str:
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return "auto"
    root = ctx.find_root()
    return str((root.obj or {}).get("color", "auto")) if isinstance(root.obj, dict) else "auto"


def colour(stream: IO[Any]) -> bool:
    """Whether to colour what is written to ``stream``."""
    choice = _choice()
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR") and not plain_terminal()
