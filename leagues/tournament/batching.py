"""How many games go to a worker at a time: the local pool and the cluster share the rule."""

from __future__ import annotations


def batch_size(seconds_per_game: float | None, seconds: float, largest: int, unsent: int | None,
               in_flight: int) -> int:
    """About ``seconds`` of play (one game while nothing is measured yet), at most ``largest``; near
    the end (``unsent`` games left to send) no more than an even share of them over the ``in_flight``
    batches, so that the workers finish together instead of one waiting for another's last batch."""
    if seconds_per_game is None:
        return 1
    n = min(largest, int(seconds / max(seconds_per_game, 1e-6)))
    if unsent is not None:
        n = min(n, -(-unsent // in_flight))
    return max(1, n)


def updated_rate(last: float | None, seconds: float, games: int) -> float | None:
    """The running seconds per game after a batch of ``games`` that took ``seconds``."""
    if not games:
        return last
    per_game = seconds / games
    return per_game if last is None else 0.7 * last + 0.3 * per_game
