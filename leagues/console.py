"""The ``tute`` console script and ``python -m leagues``: the CLI's first, lightest module.

Importing the commands takes a noticeable moment (click, the layers, the bots' registry). A Ctrl-C in
that moment would otherwise end in a ``KeyboardInterrupt`` traceback from the import machinery; here it
ends as a Ctrl-C during a command does, one line and exit status 130. Part of the CLI on top, like
``leagues.cli``: nothing below imports it.
"""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    try:
        from leagues.cli.main import main as run_command
    except KeyboardInterrupt:
        print("tute: aborted", file=sys.stderr)
        sys.exit(130)
    run_command(argv)
