"""Leagues: submissions with versions, seasons played as tournaments, carried-over ratings, reports.

May import ``arena``, ``leagues.tournament`` and ``leagues.records``.
"""
