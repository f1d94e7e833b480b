"""The ``tute`` command: thin commands over the layers below, no game logic here.

Every error a user can cause ends in one line on stderr and exit status 2 (click's usage errors too).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence

import click
from tabulate import tabulate

from arena import VARIANTS, BotFailure, VariantError, get_variant
from arena.matchplay import MatchError, MatchRule
from arena.variants import OPTION_NOTES
from arena.hosting import BotLoadError, make_player

from leagues.tournament.quickplay import play_deals, play_matches


class UserError(click.ClickException):
    """A problem with what the user asked for: one line, exit 2."""

    exit_code = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tute-arena")
def cli() -> None:
    """tute-arena: Tute bots against each other under a strict referee.

    \b
    Example:
      tute play tute-2 random random --games 100 --seed 1
    """


@cli.command()
@click.argument("name", required=False)
@click.option("--diff", is_flag=True, help="Only the options that differ from tute-2.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: one object per preset (name, description, options) for tools.")
def variants(name: str | None, diff: bool, fmt: str) -> None:
    """List the preset variants (or the one NAME) and their rule options, each with what it decides and
    the source text its default follows (docs/rules.md).

    \b
    Examples:
      tute variants
      tute variants cabrero --diff
      tute variants --format json
    """
    if name is not None and name not in VARIANTS:
        raise UserError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    chosen = [VARIANTS[name]] if name else list(VARIANTS.values())
    base = VARIANTS["tute-2"].settings()

    def shown(v: Any) -> dict[str, Any]:
        opts = v.settings()
        return {k: x for k, x in opts.items() if not diff or base[k] != x}

    if fmt == "json":
        click.echo(json.dumps([{"name": v.name, "description": v.description, "options": shown(v)}
                               for v in chosen], indent=2))
        return
    for v in chosen:
        click.echo(f"{v.name}: {v.description}")
        opts = shown(v)
        width = max((len(k) for k in opts), default=0)
        vwidth = max((len(_value_text(x)) for x in opts.values()), default=0)
        for key, value in opts.items():
            what, source = OPTION_NOTES[key]
            note = f"{what} [{source}]" if source else what
            click.echo(f"    {key:<{width}}  {_value_text(value):<{vwidth}}  {note}")
        click.echo()


def _value_text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _seat_players(variant_name: str, players: int, pairs: bool, specs: Sequence[str]) -> list[str]:
    if pairs and len(specs) == 2:
        return [specs[0], specs[1], specs[0], specs[1]]
    if len(specs) != players:
        extra = " (or 2: one per side)" if pairs else ""
        raise UserError(f"{variant_name} needs {players} bots{extra}, got {len(specs)}")
    return list(specs)


@cli.command()
@click.argument("variant")
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(1), help="Deals to play.")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the deck orders.")
@click.option("--records", type=click.Path(dir_okay=False, writable=True),
              help="Write every game record to this file as JSON lines.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="Rule option override (JSON value), e.g. -o undertrump_required=true.")
@click.option("--isolation", type=click.Choice(["auto", "inprocess", "subprocess"]), default="auto",
              show_default=True, help="auto: tute-arena's own bots in-process, other Python bots in a subprocess.")
@click.option("--time-limit", "time_limit_ms", default=1000, show_default=True, type=click.IntRange(1),
              help="Per-move limit in ms for isolated bots and commands.")
@click.option("--match", "match_text", metavar="RULE",
              help="Play GAMES matches instead of deals: first_to:K, points:T, letters[:L] or deals:N "
                   "(docs/rules.md, \"Matches\"); 'default' is the variant's usual match.")
def play(variant: str, bots: tuple[str, ...], games: int, seed: int, records: str | None,
         options: tuple[str, ...], isolation: str, time_limit_ms: int, match_text: str | None) -> None:
    """Play GAMES deals of VARIANT between BOTS (the dealer rotates) and print a summary.

    Each of BOTS is an entry point name (see `tute bots list`), module:Class, or an external command
    speaking the JSON-lines protocol (docs/protocol.md): quote it; a string containing a space or
    starting with ./ or / is a command. For a pairs variant two bots make the two sides.

    \b
    Example:
      tute play tute-2 random random --games 1000 --seed 7 --records games.jsonl
      tute play tute-4-pairs greedy random -n 200
      tute play tute-2 greedy "python3 examples/random_bot.py" -n 100
      tute play cabron random random random -n 60   (letters of C-A-B-R-O-N per seat)
      tute play tute-2 greedy random -n 50 --match first_to:3
    """
    try:
        v = get_variant(variant, **_parse_options(options))
        rule = None
        if match_text is not None:
            rule = MatchRule.default(v) if match_text == "default" else MatchRule.parse(match_text)
            rule.check(v)
    except (VariantError, MatchError) as exc:
        raise UserError(f"--match {match_text}: {exc}" if isinstance(exc, MatchError) else str(exc)) from None
    specs = _seat_players(variant, v.players, v.pairs, bots)
    players = []
    try:
        for spec in specs:
            players.append(make_player(spec, isolation=isolation, time_limit_ms=time_limit_ms))
            players[-1].start()  # a bot that cannot start is the user's error, not a forfeit per deal
    except (BotLoadError, BotFailure) as exc:
        for p in players:
            p.close()
        if isinstance(exc, BotFailure):
            raise UserError(exc.detail if repr(spec) in exc.detail else f"bot {spec!r}: {exc.detail}") from None
        raise UserError(str(exc)) from None
    names = [f"{spec}" for spec in specs]
    out = None
    if records:
        try:
            out = open(records, "w", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{records}: {exc.strerror}") from None
    try:
        write = (lambda rec: out.write(rec.dumps() + "\n")) if out else None
        if rule is None:
            tally = play_deals(v, variant, players, names, games, seed, on_record=write)
        else:
            tally = play_matches(v, variant, players, names, games, seed, rule, on_record=write)
    finally:
        if out:
            out.close()
        for p in players:
            p.close()
    rows = [[s, names[s], st.wins, st.shared, st.losses, f"{st.points / tally.deals:.1f}", st.tutes, st.forfeits]
            for s, st in enumerate(tally.seats)]
    if rule is None:
        click.echo(f"{variant}: {games} deals, seed {seed}")
        headers = ["seat", "bot", "wins", "draws", "losses", "points/deal", "tutes", "forfeits"]
    else:
        click.echo(f"{variant}: {games} matches ({rule.text}), {tally.deals} deals, seed {seed}")
        headers = ["seat", "bot", "matches won", "shared", "lost", "points/deal", "tutes", "forfeits"]
    if tally.letters is not None:  # cabrón, cabrero: each loss is a letter of C-A-B-R-O-N, six are out
        for s, row in enumerate(rows):
            row += [tally.letters.word(s), tally.words[s]]
        headers += ["letters", "cabrón"]
    click.echo(tabulate(rows, headers=headers))
    rate = tally.deals / tally.seconds if tally.seconds > 0 else float("inf")
    click.echo(f"{tally.deals} games in {tally.seconds:.2f} s: {rate:.0f} games/s, {tally.decisions} decisions")
    if records:
        click.echo(f"records: {records}")


def _parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, raw = item.partition("=")
        if not sep:
            raise UserError(f"--option {item!r}: expected KEY=VALUE")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


# Command groups from the other modules of this package attach themselves here (each has a register()).
def _register_commands() -> None:
    import importlib

    for module in ("leagues.cli.bots", "leagues.cli.run", "leagues.cli.records", "leagues.cli.league"):
        importlib.import_module(module).register(cli)


_register_commands()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: click's errors and ours become one line on stderr."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="tute", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("tute: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"tute: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(0)

