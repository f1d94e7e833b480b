"""How every command that plays games ends when its games failed or it was stopped: the same words and
the same exit status for ``run``, ``match``, ``play`` and ``league season``, so a script reads them alike."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Any, Sequence

import click

from arena.hosting.forking import defer
from arena.match import UserInterrupt

from leagues.tournament.forfeits import ForfeitWatch

#: the exit status of a run, match, play or season in which an entrant forfeited every deal
EXIT_ALL_FORFEITED = 3


def interrupt_once(signum: int, frame: Any) -> None:
    """Ctrl-C (SIGINT), and SIGTERM (a service manager stopping the command): a KeyboardInterrupt the
    first time, so what was played is kept and summarised, then exit 130; every later one is ignored,
    so the stopping (ending the workers, closing the store and the log) is not cut short by a second
    press, or by the same signal sent to the process and then to its group (``timeout -s INT``), which
    ended in click's bare "aborted" instead of the summary. One that lands while a process is forked is
    acted on after the fork (``arena.hosting.forking``)."""
    if defer(signum):
        return
    # not SIG_IGN: the other signal, already caught and waiting for its handler, would find SIG_IGN
    # there and raise "Signal 15 ignored due to race condition" (a traceback when both come at once)
    signal.signal(signal.SIGINT, ignore_stop)
    signal.signal(signal.SIGTERM, ignore_stop)
    raise UserInterrupt  # the user's: a plain KeyboardInterrupt out of a bot is the bot's (users_stop)


def ignore_stop(signum: int, frame: Any) -> None:
    """A stop signal after the first: the command is stopping already."""


class StopOnceOnInterrupt:
    """``interrupt_once`` for Ctrl-C and SIGTERM while a command runs (the CLI's entry point, the one
    place a command sets them: one that set SIGTERM's again and put it back before its summary made a
    second stop there raise; only a local Dask cluster's start holds both aside for its moment, in
    ``leagues.tournament.cluster``); put back after it unless it fired (then the process is ending, and a
    second stop must still find it ignored). Not in a thread, which cannot set handlers, nor where
    SIGINT is ignored (a background job)."""

    def __enter__(self) -> None:
        self.previous: Any = None
        self.previous_term: Any = None
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.previous = signal.signal(signal.SIGINT, interrupt_once)
        # SIGTERM too, from the start: one while a command starts its bots killed it without a word
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self.previous_term = signal.signal(signal.SIGTERM, interrupt_once)

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None and signal.getsignal(signal.SIGINT) is interrupt_once:
            signal.signal(signal.SIGINT, self.previous)
        if self.previous_term is not None and signal.getsignal(signal.SIGTERM) is interrupt_once:
            signal.signal(signal.SIGTERM, self.previous_term)


def say_forfeits(watch: ForfeitWatch) -> None:
    """Every entrant's forfeits, by reason with the first detail, on stderr."""
    lines = watch.summary_lines()
    if lines:
        click.echo("forfeits:", err=True)
        for line in lines:
            click.echo(f"  {line}", err=True)


def say_clocked(text: str | None) -> None:
    """The stored games a bot's clock decided (``runner.clocked_warning``, read with the table), last,
    after the table and the forfeits, on stderr."""
    if text is not None:
        click.echo(text, err=True)


def exit_if_all_forfeited(watch: ForfeitWatch, what: str, log: Path | str) -> None:
    """An entrant that forfeited every deal makes ``what`` (the table, the summary) mean nothing: say
    so in one line and exit ``EXIT_ALL_FORFEITED``, so a script does not take it for a result."""
    dead = watch.all_forfeited()
    if dead:
        click.echo(f"tute: error: {', '.join(dead)} forfeited every deal: {what} means nothing "
                   f"(details in {log})", err=True)
        sys.exit(EXIT_ALL_FORFEITED)
