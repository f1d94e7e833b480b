"""Options several commands share, checked the same way in each."""

from __future__ import annotations

import click

from leagues.tournament.cluster import address_problem


def cluster_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--cluster``: refused at once when malformed (an empty one was taken for no cluster, and
    ``nope`` was said to need Dask), by the rule the config's ``cluster`` key follows."""
    if value is None:
        return None
    problem = address_problem(value)
    if problem is not None:
        raise click.BadParameter(f"{value!r}: {problem}", ctx=ctx, param=param)
    return value


__all__ = ["cluster_address"]
