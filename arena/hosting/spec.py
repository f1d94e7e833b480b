"""What a user's bot name means: an installed entry point, ``module:Class``, or a command.

Resolving a name imports and starts nothing, so listings, configs and stores can name a bot cheaply; a
name that resolves to nothing is a ``BotLoadError`` naming it.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from typing import Any, Sequence

from .loader import BotLoadError, installed_bots

ISOLATIONS = ("auto", "inprocess", "subprocess")
#: the distribution whose own bots are trusted to run in-process under ``isolation="auto"``
TRUSTED_DISTRIBUTION = "tute-arena"


@dataclass(frozen=True)
class BotSpec:
    """What a user's bot name resolved to, for listings, logs and the store."""

    #: ``entrypoint``, ``module`` or ``command``
    kind: str
    #: the name given (entry point name, ``module:Class`` or the command line)
    name: str
    #: ``module:Class`` for Python bots, the argv for commands
    target: str | tuple[str, ...]
    #: distribution that announced it (entry points), else ``module`` / ``command``
    origin: str
    version: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def trusted(self) -> bool:
        return self.kind == "entrypoint" and self.origin == TRUSTED_DISTRIBUTION


def is_command(bot: str | Sequence[str]) -> bool:
    """A list is a command; so is a string that starts with ``./``, ``../``, ``/`` or ``~`` or that
    contains whitespace (``"python3 examples/random_bot.py"``). Any other string names a Python bot."""
    if not isinstance(bot, str):
        return True
    b = bot.strip()
    return b.startswith(("./", "../", "/", "~")) or any(ch.isspace() for ch in b)


def resolve_spec(bot: str | Sequence[str], params: dict[str, Any] | None = None, cwd: str | None = None) -> BotSpec:
    """Resolve a bot name without importing or starting it; unknown names raise BotLoadError. A command's
    relative program path is taken from ``cwd`` (the folder it will run in), when given."""
    params = dict(params or {})
    if is_command(bot):
        try:
            argv = tuple(shlex.split(bot)) if isinstance(bot, str) else tuple(str(a) for a in bot)
        except ValueError as exc:  # an unbalanced quote: the user's typo, said as such
            raise BotLoadError(f"bot command {bot!r}: {exc}") from None
        if not argv:
            raise BotLoadError("empty bot command")
        argv = (os.path.expanduser(argv[0]),) + argv[1:]
        exe = argv[0]
        if os.sep in exe:
            path = os.path.join(cwd, exe) if cwd and not os.path.isabs(exe) else exe
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                where = f" (in {cwd})" if cwd and not os.path.isabs(exe) else ""
                raise BotLoadError(f"bot command {shlex.join(argv)!r}: {exe} is not an executable file{where}")
        elif shutil.which(exe) is None:
            raise BotLoadError(f"bot command {shlex.join(argv)!r}: {exe} not found on PATH")
        name = bot if isinstance(bot, str) else shlex.join(argv)
        return BotSpec("command", name, argv, "command", "", params)
    name = str(bot).strip()  # not a command: a string
    if ":" in name:
        return BotSpec("module", name, name, "module", "", params)
    bots = installed_bots()
    if name not in bots:
        known = ", ".join(bots) or "none installed"
        here = os.path.join(cwd, name) if cwd else name
        hint = (f"; {name} is a file: give it as a command, ./{name}" if name and os.path.isfile(here)
                else "")
        raise BotLoadError(f"unknown bot {name!r} (installed: {known}; or give module:Class or a command){hint}")
    info = bots[name]
    return BotSpec("entrypoint", name, info.target, info.origin, info.version, params)
