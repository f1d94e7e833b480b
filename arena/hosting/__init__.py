"""Bot hosting: one ``Player`` (``arena.match``) for a bot in this process, a plugin in its own
process, or any external program speaking the protocol.

``make_player`` is the one door: it reads what the user named (an entry point, ``module:Class`` or a
command) and returns a player with ``choose(view)``, ``new_game(info)``, ``game_over(result)``,
``close()``, ``name`` and ``describe()``. Which bots may run in-process is a trust decision: only the
bots shipped with tute-arena do, by default; everything else is isolated.

Modules: ``spec`` (what a bot name resolves to), ``loader`` (entry points and classes), ``inprocess``,
``subprocess`` (limits, timeouts, restarts), ``command`` (external programs), ``child`` (the plugin's
end, ``python -m arena.hosting.child``), ``codecs`` (the pickle codec between the referee and its own
children). This package may import the rest of ``arena``; nothing in ``arena`` outside it imports it.
"""

from __future__ import annotations

import logging

from ..match import BotFailure, Player
from .codecs import CODEC_PICKLE
from .command import CommandHost
from .inprocess import InProcessHost, clock_stops
from .loader import BotInfo, BotLoadError, installed_bots, load_class, make_bot, target_name
from .spec import ISOLATIONS, TRUSTED_DISTRIBUTION, BotSpec, is_command, resolve_spec
from .subprocess import GRACE_MS, SubprocessHost, child_env, plugin_command

# a library logs; the application decides where it goes (without a handler, warnings would reach stderr)
logging.getLogger(__name__).addHandler(logging.NullHandler())


def make_player(bot: str | list[str], params: dict | None = None, *, isolation: str = "auto",
                time_limit_ms: int = 1000, memory_mb: int = 1024, cwd: str | None = None) -> Player:
    """The player for ``bot``, hosted as ``isolation`` says.

    ``bot`` is an entry point name (group ``tute_arena.bots``), ``module:Class``, or an external command:
    a list of arguments, or a string that starts with ``./``, ``../``, ``/`` or ``~`` or contains a space
    (split like a shell would). ``params`` are the bot's keyword parameters (for a command they are sent
    in ``new_game`` as ``params``). ``isolation``: ``inprocess`` calls the bot directly (trusted code
    only), ``subprocess`` runs it under ``python -m arena.hosting.child`` with the time and memory limits, and
    ``auto`` picks in-process for the bots of the tute-arena distribution itself and subprocess for every
    other; a command is always a subprocess. Make one player per seat: a subprocess player is one
    process, reused for every game of its seat. Raises ``BotLoadError`` when the bot cannot be found (or,
    in-process, built); a subprocess is started on first use, and failures then are ``BotFailure``s.
    A command runs in ``cwd`` (a tournament gives its config file's folder), so its relative paths are
    taken from there.
    """
    if isolation not in ISOLATIONS:
        raise BotLoadError(f"isolation must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
    spec = resolve_spec(bot, params, cwd)
    if spec.kind == "command":
        return CommandHost(list(spec.target), spec.name, spec=spec, time_limit_ms=time_limit_ms,
                            memory_mb=memory_mb, cwd=cwd)
    inprocess = isolation == "inprocess" or (isolation == "auto" and spec.trusted)
    if inprocess:
        return InProcessHost(make_bot(str(spec.target), spec.params), spec.name, spec, time_limit_ms)
    return SubprocessHost(plugin_command(spec.name, spec.params, CODEC_PICKLE), spec.name, spec=spec,
                          time_limit_ms=time_limit_ms, memory_mb=memory_mb, env=child_env(), codec=CODEC_PICKLE)


def start_problem(player: Player) -> str | None:
    """Start ``player`` as a game would, then close it: None if it answers its hello, else what went
    wrong, in one line (a traceback's lines joined). A process that never answers costs its start-up
    limit once here, where a run of deals would pay it at every deal."""
    try:
        start = getattr(player, "start", None)
        if start is not None:
            start()
    except BotFailure as exc:
        return " | ".join(exc.detail.splitlines())[:600]
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's start may raise anything
        return repr(exc)[:600]
    finally:
        close = getattr(player, "close", None)
        if close is not None:
            close()
    return None


__all__ = ["BotSpec", "InProcessHost", "SubprocessHost", "CommandHost", "make_player", "resolve_spec", "is_command",
           "plugin_command", "child_env", "ISOLATIONS", "TRUSTED_DISTRIBUTION", "GRACE_MS", "BotInfo", "BotLoadError",
           "installed_bots", "load_class", "make_bot", "target_name", "clock_stops", "start_problem"]
