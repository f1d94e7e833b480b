"""The ``tute`` command: thin click commands over the layers below; nothing imports this package.

May import everything: ``arena``, ``bots`` (never needed: bots are plugins) and every ``leagues`` part.
"""

from leagues.cli.main import cli, main

__all__ = ["cli", "main"]
