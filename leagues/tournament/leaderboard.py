"""The table a person reads: ratings and counts per entrant, and the head-to-head matrix.

Everything is computed from the store (the tournament's stored config says the variants and the rating
environment), so the table printed after a run, after a resumed run, or later by ``tute leaderboard``
is the same. A *win* is a game whose best rank the entrant's side holds alone, a *draw* a shared best
rank, anything else a loss (in three- and four-player deals, second place is a loss too).
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from tabulate import tabulate

from arena import get_variant
from arena.result import LOSS, SHARED, WIN, outcome

from leagues.tournament.config import RatingConfig
from leagues.tournament.rating import rate
from leagues.tournament.sprt import wilson
from leagues.tournament.store import GameRow, Store, StoreError

FORMATS = ("plain", "github", "html", "csv", "json")


@dataclass(frozen=True)
class Standing:
    rank: int
    entrant: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    points_per_deal: float
    forfeits: int


@dataclass(frozen=True)
class HeadToHead:
    """``a``'s mean score against ``b`` over duplicate blocks (1 win, 0.5 tie, 0 loss per game), with
    the 95% interval half-width: from the spread of block means (a t interval), but never less than
    the Wilson interval's half-width over the blocks, so that a score of 0 or 1 has a width."""
    a: str
    b: str
    score: float
    half_width: float
    blocks: int


def stored_setup(store: Store, tournament: str) -> tuple[dict[str, list[tuple[int, ...]]], RatingConfig, list[str]]:
    """Teams per variant label, the rating environment and the entrant names, as the run stored them."""
    row = store.tournament(tournament)
    if row is None:
        raise StoreError(f"{store.path}: no tournament {tournament!r}")
    cfg = row.config
    teams = {v["label"]: [tuple(t) for t in get_variant(v["preset"], **v["options"]).teams] for v in cfg["variants"]}
    r = cfg["rating"]
    rc = RatingConfig(mu=r["mu"], sigma=r["sigma"], beta=r["beta"], tau=r["tau"],
                      draw_probability=r["draw_probability"], k=r["k"])
    return teams, rc, [e["name"] for e in cfg["entrants"]]


def pick_tournament(store: Store, name: str | None) -> str:
    if name is not None:
        if store.tournament(name) is None:
            known = ", ".join(t.name for t in store.tournaments()) or "none"
            raise StoreError(f"{store.path}: no tournament {name!r} (stored: {known})")
        return name
    rows = store.tournaments()
    if not rows:
        raise StoreError(f"{store.path}: the store holds no tournament")
    return rows[-1].name


def standings(store: Store, tournament: str, variant: str | None = None) -> list[Standing]:
    teams, rc, names = stored_setup(store, tournament)
    if variant is not None and variant not in teams:
        raise StoreError(f"tournament {tournament!r} has no variant {variant!r} (it has: {', '.join(teams)})")
    rows = store.games(tournament, variant=variant)
    return standings_of(rows, teams, rc, names)


#: the table's column for each outcome (``arena.result.outcome``)
_COLUMN = {WIN: "wins", SHARED: "draws", LOSS: "losses"}


def standings_of(rows: Sequence[GameRow], teams: dict[str, list[tuple[int, ...]]], rc: RatingConfig,
                 names: Sequence[str], priors: Mapping[str, tuple[float, float]] | None = None) -> list[Standing]:
    """The table of ``rows``; ``priors`` are the (mu, sigma) entrants start from (a league's season)."""
    ratings = rate(rows, rc, teams, names, priors)
    count: dict[str, dict[str, float]] = {n: defaultdict(float) for n in names}
    for row in rows:
        sides = teams[row.variant]
        forfeit = row.result.forfeit
        for t in sides:
            c = count.setdefault(row.seats[t[0]], defaultdict(float))
            c["games"] += 1
            c["points"] += sum(row.result.points[s] for s in t)
            c[_COLUMN[outcome(row.result, t[0], sides)]] += 1
            if forfeit is not None and forfeit.seat in t:
                c["forfeits"] += 1
    out = []
    for n in names:
        r = ratings[n]
        c = count[n]
        g = int(c["games"])
        out.append((r.conservative(rc.k), r.mu, n, r, c, g))
    out.sort(key=lambda x: (-x[0], -x[1], x[2]))
    return [Standing(i + 1, n, cons, mu, r.sigma, g, int(c["wins"]), int(c["draws"]), int(c["losses"]),
                     c["points"] / g if g else 0.0, int(c["forfeits"]))
            for i, (cons, mu, n, r, c, g) in enumerate(out)]


def head_to_head(rows: Sequence[GameRow], teams: dict[str, list[tuple[int, ...]]]) -> dict[tuple[str, str], HeadToHead]:
    blocks: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        sides = teams[row.variant]
        rank = {row.seats[t[0]]: row.result.ranks[t[0]] for t in sides}
        for a, ra in rank.items():
            for b, rb in rank.items():
                if a != b:
                    blocks[(a, b)][row.block].append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
    out: dict[tuple[str, str], HeadToHead] = {}
    for key, per_block in blocks.items():
        means = [sum(v) / len(v) for _, v in sorted(per_block.items())]
        m = sum(means) / len(means)
        hw = 0.0
        if len(means) > 1:
            var = sum((x - m) ** 2 for x in means) / (len(means) - 1)
            hw = 1.96 * math.sqrt(var / len(means))
        # never no width where the blocks happen to agree (a score of 0 or 1): at least the half-width of
        # the Wilson interval of the score as a proportion of the blocks, which is right at the edges
        lo, hi = wilson(m * len(means), len(means))
        hw = max(hw, (hi - lo) / 2)
        out[key] = HeadToHead(key[0], key[1], m, hw, len(means))
    return out


def matrix_rows(table: Sequence[Standing], h2h: dict[tuple[str, str], HeadToHead]) -> tuple[list[str], list[list[str]]]:
    names = [s.entrant for s in table]
    rows = []
    for a in names:
        cells = [a]
        for b in names:
            x = h2h.get((a, b))
            cells.append("" if a == b else "-" if x is None else f"{x.score:.2f}±{x.half_width:.2f}")
        rows.append(cells)
    return ["vs"] + names, rows


HEADERS = ["rank", "entrant", "rating", "mu", "sigma", "games", "wins", "draws", "losses", "points/deal", "forfeits"]


def _cells(s: Standing) -> list[Any]:
    return [s.rank, s.entrant, f"{s.rating:.2f}", f"{s.mu:.2f}", f"{s.sigma:.2f}", s.games, s.wins, s.draws,
            s.losses, f"{s.points_per_deal:.1f}", s.forfeits]


def render(table: Sequence[Standing], fmt: str = "plain", *, title: str = "",
           h2h: dict[tuple[str, str], HeadToHead] | None = None) -> str:
    """The table as text; ``json`` gives an object with ``standings`` (and ``head_to_head``)."""
    if fmt == "json":
        data: dict[str, Any] = {"title": title, "standings": [asdict(s) for s in table]}
        if h2h is not None:
            data["head_to_head"] = [asdict(x) for _, x in sorted(h2h.items())]
        return json.dumps(data, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(HEADERS)
        for s in table:
            w.writerow([s.rank, s.entrant, f"{s.rating:.4f}", f"{s.mu:.4f}", f"{s.sigma:.4f}", s.games, s.wins,
                        s.draws, s.losses, f"{s.points_per_deal:.3f}", s.forfeits])
        if h2h is not None:
            head, rows = matrix_rows(table, h2h)
            w.writerow([])
            w.writerow(head)
            w.writerows(rows)
        return buf.getvalue().rstrip("\n")
    tablefmt = {"plain": "simple", "github": "github", "html": "html"}[fmt]
    parts = []
    if title and fmt != "html":
        parts.append(title)
    elif title:
        parts.append(f"<h2>{html.escape(title)}</h2>")
    parts.append(tabulate([_cells(s) for s in table], headers=HEADERS, tablefmt=tablefmt, disable_numparse=True))
    if h2h is not None:
        head, rows = matrix_rows(table, h2h)
        parts.append("")
        parts.append("head to head (row's score against column, mean ± 95% interval over duplicate blocks):"
                     if fmt != "html" else "<p>head to head: row's score against column, mean ± 95% interval</p>")
        parts.append(tabulate(rows, headers=head, tablefmt=tablefmt, disable_numparse=True))
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------- all tables
@dataclass(frozen=True)
class Status:
    """Whether a table is final: a tournament's games stored against the games its schedule holds."""
    played: int
    planned: int | None
    finished: bool

    @property
    def text(self) -> str:
        if self.finished:
            return "final"
        of = f" of {self.planned}" if self.planned is not None else ""
        return f"partial: {self.played}{of} games played"


def tournament_status(store: Store, tournament: str) -> Status:
    return Status(*store.progress(tournament))


def render_all(tables: Sequence[tuple[str | None, str, Sequence[Standing], dict[tuple[str, str], HeadToHead] | None]],
               fmt: str, tournament: str, status: Status) -> str:
    """Every table of a tournament (the pooled one first, then one per variant: ``(label, title, table,
    h2h)``) in one output of ``fmt``, with the status (final, or partial: games played of planned) in
    every format: JSON one object (``pooled`` and ``variants``), CSV one table with ``variant`` and
    ``status`` columns, the text formats a line under each title."""
    if fmt == "json":
        def one(title: str, table: Sequence[Standing], h2h: Any) -> dict[str, Any]:
            d: dict[str, Any] = {"title": title, "standings": [asdict(x) for x in table]}
            if h2h is not None:
                d["head_to_head"] = [asdict(x) for _, x in sorted(h2h.items())]
            return d
        data: dict[str, Any] = {"tournament": tournament,
                                "status": {"final": status.finished, "played": status.played,
                                           "planned": status.planned, "text": status.text}}
        for label, title, table, h2h in tables:
            if label is None:
                data["pooled"] = one(title, table, h2h)
            else:
                data.setdefault("variants", {})[label] = one(title, table, h2h)
        return json.dumps(data, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["variant", *HEADERS, "status"])
        for label, _, table, _ in tables:
            for x in table:
                w.writerow([label or "*", x.rank, x.entrant, f"{x.rating:.4f}", f"{x.mu:.4f}", f"{x.sigma:.4f}",
                            x.games, x.wins, x.draws, x.losses, f"{x.points_per_deal:.3f}", x.forfeits, status.text])
        return buf.getvalue().rstrip("\n")
    parts = []
    for label, title, table, h2h in tables:
        shown = title if status.finished else f"{title} ({status.text})"
        parts.append(render(table, fmt, title=shown, h2h=h2h))
    return "\n\n".join(parts)
