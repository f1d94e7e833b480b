"""Checks of the built-in bots' parameters, made in their constructors.

A tournament's ``params`` come from a TOML or JSON text, so a value can be of any JSON type. Read as
Python reads it, ``bool("false")`` is True and ``int(0)`` worlds is a search that never searches; the
bot then plays on with settings the user did not mean, or crashes in its games. Refused here instead,
the host's loader turns the ``ValueError`` into one line naming the parameter, before any game.
"""

from __future__ import annotations

import math
from typing import Any


def integer(name: str, value: Any, low: int) -> int:
    """An int (not a bool, not a float) of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, not {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, not {value}")
    return value


def number(name: str, value: Any, low: float, high: float = math.inf, *, above: bool = False) -> float:
    """A finite int or float in ``[low, high]`` (``(low, high]`` when ``above``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    if value < low or (above and value == low) or value > high:
        span = f"{'above' if above else 'at least'} {low:g}" + (f" and at most {high:g}" if high < math.inf else "")
        raise ValueError(f"{name} must be {span}, not {value}")
    return float(value)


def flag(name: str, value: Any) -> bool:
    """true or false, as TOML and JSON write them (never a string, whose bool() is true)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, not {value!r}")
    return value
