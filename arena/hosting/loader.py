"""Finding a bot by the name a user gives it: an installed entry point, or ``module:Class``.

Entry points in the group ``tute_arena.bots`` are how plugins (the built-in ones included) announce
themselves; ``module:Class`` serves a bot that is importable but not installed as a plugin.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from importlib import metadata
from typing import Any

GROUP = "tute_arena.bots"


class BotLoadError(ValueError):
    """The bot named cannot be found or built; the message names it and says why."""


@dataclass(frozen=True)
class BotInfo:
    name: str
    target: str  # module:Class
    origin: str  # distribution name, or "module"
    version: str


def installed_bots() -> dict[str, BotInfo]:
    """Every bot announced in the entry point group, by name."""
    found: dict[str, BotInfo] = {}
    for ep in metadata.entry_points(group=GROUP):
        found[ep.name] = BotInfo(ep.name, ep.value, *_origin(ep))
    return dict(sorted(found.items()))


def _origin(ep: Any) -> tuple[str, str]:
    """The distribution's name and version, or ``?``: a package half installed or being uninstalled
    while we look (pip in another process) has lost its metadata, and must not take every other bot
    down with it."""
    dist = getattr(ep, "dist", None)
    try:
        return (str(dist.metadata["Name"]), str(dist.version)) if dist else ("?", "?")
    except Exception:  # importlib_metadata raises its own MetadataNotFound, FileNotFoundError, ...
        return "?", "?"


def resolve(spec: str) -> str:
    """``random`` -> ``bots.random_bot:RandomBot``; a ``module:Class`` spec is returned as is."""
    if ":" in spec:
        return spec
    bots = installed_bots()
    if spec not in bots:
        known = ", ".join(bots) or "none installed"
        raise BotLoadError(f"unknown bot {spec!r} (installed: {known}; or give module:Class)")
    return bots[spec].target


def load_class(spec: str) -> Any:
    target = resolve(spec)
    module_name, _, attr = target.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # an import error in a plugin is the user's to read, in one line
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.split(".")[0] and (
                os.path.isfile(module_name.replace(".", os.sep) + ".py") or os.path.isdir(module_name.split(".")[0])):
            # the folder tute runs in is not searched (a file named like a package would shadow it)
            hint = f" ({module_name} is in this folder, which is not searched: run with PYTHONPATH=.)"
        raise BotLoadError(f"bot {spec!r}: cannot load {target}: {exc!r}{hint}") from None
    return obj


def make_bot(spec: str, params: dict[str, Any] | None = None) -> Any:
    """An instance of the bot ``spec``, constructed with keyword ``params``."""
    cls = load_class(spec)
    try:
        bot = cls(**(params or {}))
    except Exception as exc:
        raise BotLoadError(f"bot {spec!r}: cannot construct with {params or {}}: {exc!r}") from None
    if not callable(getattr(bot, "choose", None)):
        raise BotLoadError(f"bot {spec!r}: {target_name(cls)} has no choose(view) method")
    return bot


def target_name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"
