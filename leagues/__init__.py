"""Many games: tournaments, leagues of seasons, game records, and the ``tute`` command on top.

Subpackages, in import order (each may import only those before it, and ``arena``):

- ``tournament``: a tournament config, its schedule and pairing, the parallel runner, the SQLite store,
  ratings, leaderboards, and the compliance run of one bot;
- ``records``: exporting, importing and verifying records, and replays as text and HTML pages;
- ``league``: submissions, versions, seasons (each an ordinary tournament), standings and reports;
- ``cli``: the ``tute`` click commands, thin: they parse options and print what the layers return.

``python -m leagues`` runs the CLI.
"""
