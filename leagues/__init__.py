"""Many games: tournaments, pairings, the results store, ratings, leaderboards and the ``tute`` CLI."""
