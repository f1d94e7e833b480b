"""``tute bots``: list the installed bots, check one for compliance, scaffold a new plugin."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click
from tabulate import tabulate

from arena import VARIANTS
from arena.hosting import ISOLATIONS, TRUSTED_DISTRIBUTION, BotInfo, BotLoadError, installed_bots, load_class

from leagues.tournament.compliance import check_bot, format_report
from leagues.tournament.config import MAX_DEALS, MAX_MEMORY_MB, MAX_TIME_LIMIT_MS

#: a distribution name pip takes (PEP 508: no '-' or '_' at the end), of at most 40 characters
_NAME = re.compile(r"^[a-z](?:[a-z0-9_-]{0,38}[a-z0-9])?$")


def _user_error(message: str) -> click.ClickException:
    from leagues.cli.main import UserError  # the one-line, exit-2 error of the CLI

    return UserError(message)


@click.group()
def bots() -> None:
    """Bots: list the installed ones, check one, start a new one.

    \b
    Examples:
      tute bots list
      tute bots check greedy --deals 500
      tute bots new mybot
    """


@bots.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per bot.")
def list_bots(as_json: bool) -> None:
    """The bots announced in the entry point group tute_arena.bots.

    \b
    Example:
      tute bots list
    """
    found = installed_bots()
    plays = {name: _plays(b) for name, b in found.items()}
    if as_json:
        for b in found.values():
            how = plays[b.name]
            line = {"name": b.name, "target": b.target, "origin": b.origin, "version": b.version,
                    "plays": None if isinstance(how, str) else how}
            click.echo(json.dumps(line if not isinstance(how, str) else dict(line, load_error=how)))
    else:
        rows = [[b.name, b.origin, b.version, b.target, _plays_text(plays[b.name])] for b in found.values()]
        click.echo(tabulate(rows, headers=["name", "from", "version", "class", "plays"]))
    broken = [(name, how) for name, how in plays.items() if isinstance(how, str)]
    for name, how in broken:  # a listing goes on past one bot, and says it, on screen and in its status
        click.echo(f"warning: bot {name!r} cannot be loaded: {how}", err=True)
    if broken:
        sys.exit(1)


def _plays(b: BotInfo) -> dict[str, str] | str | None:
    """How a bot plays each preset (``by search``, ``by rule``, ``at random``), as its class says
    (a static ``plays_by(variant)``); or why its class cannot be loaded.
    Only the bots shipped with tute-arena are asked: asking another would import (run) its code in
    this process, which nothing else here does; None for them, and for a class that does not say."""
    if b.origin != TRUSTED_DISTRIBUTION:
        return None
    try:
        how = getattr(load_class(b.target), "plays_by", None)
    except Exception as exc:  # noqa: BLE001 - a listing never fails on one bot: it says it
        return f"{type(exc).__name__}: {exc}"[:300]
    if not callable(how):
        return None
    return {name: str(how(v)) for name, v in VARIANTS.items()}


def _plays_text(plays: dict[str, str] | str | None) -> str:
    """``by search: every preset``, or ``by search: tute-2, tute-3; by rule: subastado`` for a bot that
    searches some variants only."""
    if isinstance(plays, str):
        return "cannot be loaded (below)"
    if plays is None:
        return "not declared"
    groups: dict[str, list[str]] = {}
    for name, how in plays.items():
        groups.setdefault(how, []).append(name)
    if len(groups) == 1:
        return f"{next(iter(groups))}: every preset"
    return "; ".join(f"{how}: {', '.join(names)}" for how, names in groups.items())


@bots.command()
@click.argument("bot")
@click.option("--deals", "-n", default=200, show_default=True, type=click.IntRange(1, MAX_DEALS),
              help="Deals in total, split evenly over the variants (rounded down, at least one per seat).")
@click.option("--variant", "-v", "variants", multiple=True, type=click.Choice(list(VARIANTS)),
              help="Check only these variants (repeatable; default: all presets).")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the deals.")
@click.option("--params", default="{}", help="The bot's keyword parameters as a JSON object.")
@click.option("--isolation", type=click.Choice(ISOLATIONS), default="auto", show_default=True,
              help="auto: built-in bots in-process, others in a subprocess.")
@click.option("--time-limit", "time_limit_ms", default=1000, show_default=True,
              type=click.IntRange(1, MAX_TIME_LIMIT_MS),
              help="Per-move limit in ms (isolated bots).")
@click.option("--memory", "memory_mb", default=1024, show_default=True, type=click.IntRange(16, MAX_MEMORY_MB),
              help="Memory limit in MB (isolated bots).")
@click.option("--require-reproducible", is_flag=True,
              help="Fail if a fresh instance with the same seed plays a deal differently.")
def check(bot: str, deals: int, variants: tuple[str, ...], seed: int, params: str, isolation: str,
          time_limit_ms: int, memory_mb: int, require_reproducible: bool) -> None:
    """Compliance run: BOT against random in every variant; exit 1 if it fails.

    BOT is an entry point name, module:Class, or a command (a string holding whitespace, or starting
    with ./, ../, / or ~). Reported per variant: illegal moves, timeouts, crashes, protocol errors, mean and max move
    time, and whether a fixed seed reproduces its games (a fresh instance replays the first deals).

    \b
    Examples:
      tute bots check greedy
      tute bots check "python3 examples/random_bot.py" --deals 100
      tute bots check mypkg.bot:MyBot --time-limit 200 --require-reproducible
    """
    from leagues.cli.main import json_object  # the CLI's main module registers this one as it loads

    kwargs = json_object(params, f"--params {params[:80]!r}")
    try:
        report = check_bot(bot, kwargs, deals=deals, variants=variants or None, seed=seed, isolation=isolation,
                           time_limit_ms=time_limit_ms, memory_mb=memory_mb,
                           progress=lambda v: click.echo(f"checking {v}...", err=True))
    except BotLoadError as exc:
        raise _user_error(str(exc) if bot in str(exc) else f"{bot}: {exc}") from None
    for line in format_report(report, require_reproducible):
        click.echo(line)
    if not report.passed(require_reproducible):
        sys.exit(1)


@bots.command()
@click.argument("name")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Write into an existing non-empty directory.")
def new(name: str, directory: str | None, force: bool) -> None:
    """Write a ready bot plugin package NAME into DIRECTORY (default: ./tute-bot-NAME).

    It has a pyproject.toml announcing the entry point NAME, a bot class and a test. Then:

    \b
      pip install -e DIRECTORY
      tute bots list            # NAME appears
      tute bots check NAME      # and passes
      tute play tute-2 NAME random
    """
    if not _NAME.match(name):
        raise _user_error(f"bot name {name!r}: use lower-case letters, digits, '-' or '_', starting with a letter "
                          "and ending with a letter or digit, at most 40 characters")
    if name in installed_bots():
        raise _user_error(f"a bot named {name!r} is already installed (see tute bots list)")
    target = Path(directory or f"tute-bot-{name}")
    if target.exists() and (not target.is_dir() or (any(target.iterdir()) and not force)):
        raise _user_error(f"{target}: exists and is not empty (use --force to write into it)")
    module = "tute_bot_" + name.replace("-", "_")
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) + "Bot"
    files = _scaffold(name, module, cls)
    try:
        for rel, text in files.items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _user_error(f"{target}: {exc.strerror or exc}") from None
    click.echo(f"wrote {target}/ ({', '.join(sorted(files))})")
    click.echo(f"next: pip install -e {target} && tute bots check {name}")


def _scaffold(name: str, module: str, cls: str) -> dict[str, str]:
    # no dependency on tute-arena: it is installed from its clone, not from an index, so a declared
    # requirement could never be met by pip in a fresh environment; the bot imports it at run time
    pyproject = f'''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "tute-bot-{name}"
version = "0.1.0"
description = "A Tute bot for tute-arena"
requires-python = ">=3.10"
# tute-arena itself is not on a package index: install this bot into the environment that has it
# (pip install -e PATH/TO/tute-arena -e .); it is imported at run time, not declared here
dependencies = []

[project.entry-points."tute_arena.bots"]
{name} = "{module}.bot:{cls}"

[tool.setuptools]
packages = ["{module}"]
'''
    bot = f'''"""{name}: a tute-arena bot. Edit ``choose``; keep it deterministic given the game's seed."""

from __future__ import annotations

import random
from typing import Any

from arena import PlayerView
from arena.cards import NAMES, POINTS, STRENGTH

_CARD = {{f"play {{n}}": c for c, n in enumerate(NAMES)}}


class {cls}:
    """Declares whatever it may (Tute, exchange, cante), else plays its cheapest legal card.

    Keyword parameters come from the tournament config (``params = {{...}}``) or ``--params``.
    """

    name = "{name}"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self, info: dict[str, Any]) -> None:
        # Reseeding from the game makes every game reproducible (``tute bots check`` verifies it).
        self.rng = random.Random(f"{{self.seed}}/{{info.get('seed')}}/{{info.get('seat')}}")

    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        for prefix in ("tute", "exchange", "sing"):
            for action in legal:
                if action.startswith(prefix):
                    return action
        plays = [a for a in legal if a in _CARD]
        if not plays:
            # the auction (subastado): pass, since legal[0] is the lowest bid and raising every turn
            # fails nearly every contract; naming trump: the first suit offered
            return "pass" if "pass" in legal else legal[0]
        cheapest = min(POINTS[_CARD[a]] * 20 + STRENGTH[_CARD[a]] for a in plays)
        options = [a for a in plays if POINTS[_CARD[a]] * 20 + STRENGTH[_CARD[a]] == cheapest]
        return options[self.rng.randrange(len(options))]

    def game_over(self, result: dict[str, Any]) -> None:
        pass
'''
    test = f'''"""Plays {name} against random in every preset variant: no forfeit, and reproducible."""

from arena import VARIANTS, play_game, shuffled_deck
from arena.hosting import make_player
from {module}.bot import {cls}


def _games(variant, n=20):
    v = VARIANTS[variant]
    out = []
    for g in range(n):
        players = [{cls}() if s == g % v.players else make_player("random") for s in range(v.players)]
        out.append(play_game(v, shuffled_deck(v, g), g % v.players, players, seed=g))
    return out


def test_plays_every_variant_without_forfeit():
    for variant in VARIANTS:
        for rec in _games(variant):
            assert rec.result.forfeit is None, rec.result.forfeit


def test_reproducible():
    assert [r.actions for r in _games("tute-2")] == [r.actions for r in _games("tute-2")]
'''
    readme = f"""# tute-bot-{name}

A bot for tute-arena, announced as `{name}` in the `tute_arena.bots` entry point group.

Install it into the environment where tute-arena is installed (tute-arena comes from its clone, not
from a package index, so this package does not declare it as a dependency):

    pip install -e .                                # in tute-arena's .venv
    pip install -e PATH/TO/tute-arena -e .          # or: a fresh environment, both from source
    tute bots list
    tute bots check {name}
    tute play tute-2 {name} random --games 200
    pytest
"""
    return {"pyproject.toml": pyproject, f"{module}/__init__.py": f'"""The {name} bot for tute-arena."""\n',
            f"{module}/bot.py": bot, "tests/test_bot.py": test, "README.md": readme}


def register(cli: click.Group) -> None:
    """Attach the ``bots`` group to the ``tute`` command."""
    cli.add_command(bots)
