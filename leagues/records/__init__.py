"""Game records beyond the store: export and import, verification, and replays as text and HTML.

May import ``arena`` and ``leagues.tournament`` (the store).
"""
