"""What a submitted bot is made of: its files and one hash over them.

A league rates *versions*: the same files are the same version, changed files a new one. What counts
as the bot's files:

- an entry point or ``module:Class``: every file of the module's top-level package (``__pycache__``
  and compiled files left out), or the module's single file; a change anywhere in the package is a new
  version, since a bot may import any of it;
- a command: every argument that names an existing file (the script, a model file); if none does, the
  program itself. With a script named, the program is its interpreter, not the bot, and is left out.
  Relative file paths are made absolute, so a season can run from any folder.

Paths enter the hash relative to the package (or as bare file names), so moving a checkout is not a
new version; contents enter it whole.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from arena.hosting import BotLoadError, resolve_spec

from leagues.tournament.config import check_bot

_SKIP_DIRS = {"__pycache__", ".git", ".hg", ".mypy_cache", ".pytest_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo")
_SCRIPT_SUFFIXES = (".py", ".sh", ".js", ".rb", ".pl", ".jar", ".lua", ".php")


@dataclass(frozen=True)
class PluginFiles:
    #: ``entrypoint``, ``module`` or ``command``
    kind: str
    #: the bot as a league stores it: the name given, or the command with absolute file arguments
    bot: str | tuple[str, ...]
    #: the distribution that announced an entry point, else ``module`` / ``command``
    origin: str
    #: the distribution's version (entry points), else ""
    dist_version: str
    #: (name in the hash, absolute path) of every file hashed
    files: tuple[tuple[str, str], ...]
    digest: str


def plugin_files(bot: str | Sequence[str]) -> PluginFiles:
    """Find the bot without starting it and hash its files; BotLoadError if it is missing."""
    spec = resolve_spec(list(bot) if not isinstance(bot, str) else bot)
    if spec.kind == "command":
        argv = _absolute(tuple(spec.target))
        files = _command_files(argv)
        return PluginFiles("command", argv, "command", "", files, _digest(files))
    name = bot if isinstance(bot, str) else ""
    check_bot(name.strip())  # module:Class must import and name a class; an entry point must be installed
    target = str(spec.target)
    files = _package_files(target.partition(":")[0], name)
    return PluginFiles(spec.kind, name.strip(), spec.origin, spec.version, files, _digest(files))


def _absolute(argv: tuple[str, ...]) -> tuple[str, ...]:
    out = [argv[0]]
    for arg in argv[1:]:
        out.append(str(Path(arg).resolve()) if os.path.isfile(arg) else arg)
    if os.sep in argv[0]:
        out[0] = str(Path(argv[0]).resolve())
    return tuple(out)


def _command_files(argv: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    for a in argv[1:]:  # a path that is not there is a missing bot, not an argument
        if not a.startswith("-") and (os.sep in a or a.endswith(_SCRIPT_SUFFIXES)) and not os.path.exists(a):
            raise BotLoadError(f"bot command {' '.join(argv)!r}: {a}: no such file")
    named = [a for a in argv[1:] if os.path.isfile(a)]
    if not named:  # the program is the bot
        found = argv[0] if os.sep in argv[0] else shutil.which(argv[0])
        named = [found] if found else []
    return tuple((os.path.basename(p), p) for p in named)


def _package_files(module: str, bot: str) -> tuple[tuple[str, str], ...]:
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError) as exc:
        raise BotLoadError(f"bot {bot!r}: cannot find module {top!r}: {exc}") from None
    if spec is None:
        raise BotLoadError(f"bot {bot!r}: no module {top!r}")
    if spec.submodule_search_locations:
        out: list[tuple[str, str]] = []
        for root in sorted(set(spec.submodule_search_locations)):
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
                for n in sorted(names):
                    if not n.endswith(_SKIP_SUFFIXES):
                        path = os.path.join(folder, n)
                        out.append((os.path.join(top, os.path.relpath(path, root)), path))
        return tuple(out)
    if spec.origin and os.path.isfile(spec.origin):
        return ((os.path.basename(spec.origin), spec.origin),)
    raise BotLoadError(f"bot {bot!r}: module {top!r} has no files to version ({spec.origin})")


def _digest(files: Sequence[tuple[str, str]]) -> str:
    h = hashlib.sha256()
    for rel, path in sorted(files):
        h.update(rel.encode() + b"\0")
        try:
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 16), b""):
                    h.update(chunk)
        except OSError as exc:
            raise BotLoadError(f"{path}: cannot read: {exc.strerror}") from None
        h.update(b"\0")
    return h.hexdigest()
