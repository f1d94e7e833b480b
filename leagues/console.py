"""The ``tute`` console script and ``python -m leagues``: the CLI's first, lightest module.

Importing the commands takes a noticeable moment (click, the layers, the bots' registry). A Ctrl-C in
that moment would otherwise end in a ``KeyboardInterrupt`` traceback from the import machinery; here it
ends as a Ctrl-C during a command does, one line and exit status 130. Part of the CLI on top, like
``leagues.cli``: nothing below imports it.
"""

from __future__ import annotations

import signal
import sys
from typing import Sequence


def _ignored(signum: int, frame: object) -> None:
    """A Ctrl-C after the first, while the first is said."""


def main(argv: Sequence[str] | None = None) -> None:
    try:
        from leagues.cli.main import main as run_command
    except KeyboardInterrupt:
        # a second Ctrl-C (a second press, or the signal sent to the process and then to its group)
        # would raise in this block: a traceback of both, where one line is due. Not SIG_IGN, which a
        # caller in the same process (a test) would keep, and pass on to every program it starts
        previous = signal.signal(signal.SIGINT, _ignored)
        try:
            print("tute: aborted", file=sys.stderr)
        finally:
            signal.signal(signal.SIGINT, previous)
        sys.exit(130)
    run_command(argv)
