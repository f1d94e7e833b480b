"""How every command that plays games ends when its games failed or it was stopped: the same words and
the same exit status for ``run``, ``match``, ``play`` and ``league season``, so a script reads them alike."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from leagues.tournament.forfeits import ForfeitWatch

#: the exit status of a run, match, play or season in which an entrant forfeited every deal
EXIT_ALL_FORFEITED = 3


def sigterm_as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM (a service manager stopping the command) stops it as Ctrl-C does: what was played is
    kept and summarised, then exit 130."""
    raise KeyboardInterrupt


def say_forfeits(watch: ForfeitWatch) -> None:
    """Every entrant's forfeits, by reason with the first detail, on stderr."""
    lines = watch.summary_lines()
    if lines:
        click.echo("forfeits:", err=True)
        for line in lines:
            click.echo(f"  {line}", err=True)


def exit_if_all_forfeited(watch: ForfeitWatch, what: str, log: Path | str) -> None:
    """An entrant that forfeited every deal makes ``what`` (the table, the summary) mean nothing: say
    so in one line and exit ``EXIT_ALL_FORFEITED``, so a script does not take it for a result."""
    dead = watch.all_forfeited()
    if dead:
        click.echo(f"tute: error: {', '.join(dead)} forfeited every deal: {what} means nothing "
                   f"(details in {log})", err=True)
        sys.exit(EXIT_ALL_FORFEITED)
