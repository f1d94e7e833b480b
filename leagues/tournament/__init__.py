"""One tournament: its config, schedule and pairing, the runner, the store (and the SQLite plumbing the
league shares), ratings and leaderboards.

May import ``arena`` only (and its own modules): the league, the records tools and the CLI build on it.
"""
