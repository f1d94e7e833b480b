"""The table a person reads: ratings and counts per entrant, and the head-to-head matrix.

Everything is read from the store (the tournament's stored config says the variants and the rating
environment; the tables are its tally, leagues/tournament/tally.py), so the table printed after a run,
after a resumed run, or later by ``tute leaderboard`` is the same, and ``--recompute`` (a fold of every
stored game) gives it byte for byte. A *win* is a game whose best rank the entrant's side holds alone, a *draw* a shared best
rank, anything else a loss (in three- and four-player deals, second place is a loss too).
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import IO, Any, Callable, Iterable, Sequence

from tabulate import tabulate

from arena import Variant, get_variant

from leagues.tournament.config import FIELD, RatingConfig
from leagues.tournament.forfeits import ForfeitWatch, deal_forfeits, match_played
from leagues.tournament.store import GameRow, Store, StoreError
from leagues.tournament.tally import (ForfeitList, HeadToHead, Standing, Tally, head_to_head,  # noqa: F401
                                      standings_of)

FORMATS = ("plain", "github", "html", "csv", "json")


def _stored_config(store: Store, tournament: str) -> dict[str, Any]:
    row = store.tournament(tournament)
    if row is None:
        raise StoreError(f"{store.path}: no tournament {tournament!r}")
    return row.config


def _variants(cfg: dict[str, Any]) -> dict[str, Variant]:
    return {v["label"]: get_variant(v["preset"], **v["options"]) for v in cfg["variants"]}


def stored_variants(store: Store, tournament: str) -> dict[str, Variant]:
    """Each variant by label, as the run stored it."""
    return _variants(_stored_config(store, tournament))


def stored_setup(store: Store, tournament: str) -> tuple[dict[str, list[tuple[int, ...]]], RatingConfig, list[str]]:
    """Teams per variant label, the rating environment and the entrant names, as the run stored them."""
    cfg = _stored_config(store, tournament)
    teams = {label: [tuple(t) for t in v.teams] for label, v in _variants(cfg).items()}
    r = cfg["rating"]
    rc = RatingConfig(mu=r["mu"], sigma=r["sigma"], beta=r["beta"], tau=r["tau"],
                      draw_probability=r["draw_probability"], k=r["k"])
    return teams, rc, [e["name"] for e in cfg["entrants"]]


def stored_priors(store: Store, tournament: str) -> dict[str, dict[str, tuple[float, float]]]:
    """Where the tournament's entrants started, per table (a league season's carried ratings)."""
    row = store.tournament(tournament)
    priors = row.config.get("priors", {}) if row is not None else {}
    return {scope: {n: (float(p[0]), float(p[1])) for n, p in ps.items()} for scope, ps in priors.items()}


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


def landed(store: Store, row: GameRow) -> tuple[Counter[str] | None, ForfeitList | None]:
    """What a fold needs beyond the row: a match's deals each entrant played and their forfeits (from
    its record)."""
    if row.result.reason != "match":
        return None, None
    deals = json.loads(store.record_json(row.id)).get("deals", [])
    return match_played(row.seats, deals), deal_forfeits(deals, row.id)


def tally_of(store: Store, tournament: str, *, recompute: bool = False) -> Tally:
    """The tables of ``tournament``: its stored tally with the games stored past its watermark folded in
    (a run going on, or killed), which costs the entrants and pairs, not the games; or, with
    ``recompute`` or in a store that keeps no tally, the fold of every stored game."""
    teams, rc, _ = stored_setup(store, tournament)
    priors = stored_priors(store, tournament)
    if not recompute:
        tally = Tally.load(store.db, tournament, rc, teams, priors=priors)
        if tally is not None:
            for row in store.iter_games(tournament, after=tally.watermark):
                tally.add(row, *landed(store, row))
            return tally
    tally = Tally(tournament, rc, teams, priors)
    for row in store.iter_games(tournament):
        tally.add(row, *landed(store, row))
    return tally


def keep_fold(store: Store, tournament: str) -> Tally:
    """Fold every stored game of ``tournament`` and keep it as its table (in the caller's transaction),
    unless a game's row could not be read: a table with a hole is never kept, where every reader after
    would show it whole; without it they fold the games again and name the damaged ones."""
    tally = tally_of(store, tournament, recompute=True)
    Tally.drop(store.db, tournament)
    if not store.damaged_of(tournament):
        tally.save(store.db)
    return tally


def standings(store: Store, tournament: str, variant: str | None = None, *, recompute: bool = False) -> list[Standing]:
    teams, _, names = stored_setup(store, tournament)
    if variant is not None and variant not in teams:
        raise StoreError(f"tournament {tournament!r} has no variant {variant!r} (it has: {', '.join(teams)})")
    return tally_of(store, tournament, recompute=recompute).scope(variant).standings(names)


Table = tuple[str | None, str, list[Standing], dict[tuple[str, str], HeadToHead] | None]


def all_tables(store: Store, tournament: str, variant: str | None = None, matrix: bool = False,
               recompute: bool = False) -> list[Table]:
    """The pooled table and one per variant (or the one ``variant``) as ``render_all`` takes them,
    from the tally the store keeps (``recompute``: from every stored game)."""
    teams, _, names = stored_setup(store, tournament)
    if variant is not None and variant not in teams:
        raise StoreError(f"tournament {tournament!r} has no variant {variant!r} (it has: {', '.join(teams)})")
    tally = tally_of(store, tournament, recompute=recompute)
    labels = [variant] if variant else [None, *teams] if len(teams) > 1 else [None]
    tables: list[Table] = []
    for label in labels:
        scope = tally.scope(label)
        title = f"{tournament}: " + (f"variant {label}" if label else
                                     "all variants" if len(teams) > 1 else f"variant {next(iter(teams))}")
        # a gauntlet's field bot is a row only where it sat (the variants wider than two sides)
        shown = [n for n in names if n != FIELD or (n in scope.counts and scope.counts[n].games)]
        tables.append((label if label or len(teams) > 1 else next(iter(teams)), title, scope.standings(shown),
                       scope.head_to_head() if matrix else None))
    return tables


def kept_tables_agree(store: Store, tournament: str) -> bool:
    """Whether the tables the store kept are, byte for byte, those a fold of every stored game gives
    (``tute verify`` asks it of every tournament)."""
    status = tournament_status(store, tournament)
    kept, folded = (render_all(all_tables(store, tournament, None, True, again), "json", tournament, status)
                    for again in (False, True))
    return kept == folded


def forfeit_watch(store: Store, tournament: str) -> ForfeitWatch:
    """Every forfeit of a stored tournament (what a run's summary reports, resumed runs included)."""
    watch = ForfeitWatch()
    watch.entrants = dict(tally_of(store, tournament).forfeits)
    return watch


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
        w = CsvWriter(buf)
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
    # Markdown renders HTML and splits cells at '|': a name is text there too (html escapes its own)
    md: Callable[[Any], Any] = markdown_cell if fmt == "github" else (lambda x: x)
    parts = []
    if title and fmt != "html":
        parts.append(md(title))
    elif title:
        parts.append(f"<h2>{html.escape(title)}</h2>")
    parts.append(tabulate([[md(c) for c in _cells(s)] for s in table], headers=HEADERS, tablefmt=tablefmt,
                          disable_numparse=True))
    if h2h is not None:
        head, rows = matrix_rows(table, h2h)
        parts.append("")
        parts.append("head to head (row's score against column, mean ± 95% interval over duplicate blocks):"
                     if fmt != "html" else "<p>head to head: row's score against column, mean ± 95% interval</p>")
        parts.append(tabulate([[md(c) for c in r] for r in rows], headers=[md(h) for h in head], tablefmt=tablefmt,
                              disable_numparse=True))
    return "\n".join(parts)


#: a cell of figures only (a rating, a score and its interval): nothing in it Markdown or a
#: spreadsheet would read as markup or a formula
_FIGURES = re.compile(r"[-+0-9.,±% ]*")
#: one number (or a lone dash, for none), which a spreadsheet reads as itself and nothing more
_NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]+)?|-")
#: what makes Markdown text markup: HTML and entities, emphasis, code, links and images, the cell
#: border, a heading, an e-mail autolink; a backslash makes each plain text (CommonMark), and the
#: rest of a name (its colons, dots, parentheses) reads as it is written
_MARKUP = re.compile(r"([\\`*_~\[\]<>&|#@!])")
#: the web autolinks GitHub makes of plain text (http://..., www....), broken by a backslash
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(:)(?=//)|(?<=www)(\.)")


def markdown_cell(value: Any) -> Any:
    """A cell or title as Markdown text: a name is no HTML, emphasis, code, link or cell border ('|'),
    nor a list item where it starts a line; figures as they are."""
    if not isinstance(value, str) or _FIGURES.fullmatch(value):
        return value
    text = _AUTOLINK.sub(lambda m: "\\" + m.group(), _MARKUP.sub(r"\\\1", value))
    return "\\" + text if text[:1] in ("-", "+") else text


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet takes as text: one that would start a formula (=, +, -, @, a tab or a
    carriage return first) gets a leading apostrophe; figures (a negative rating) as they are."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class CsvWriter:
    """``csv.writer`` whose every cell goes through ``csv_cell``: names come from configs and bots."""

    def __init__(self, buf: IO[str]) -> None:
        self._w = csv.writer(buf, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> None:
        self._w.writerow([csv_cell(c) for c in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


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
               fmt: str, tournament: str, status: Status, filtered: bool = False) -> str:
    """Every table of a tournament (the pooled one first, then one per variant: ``(label, title, table,
    h2h)``) in one output of ``fmt``, with the status (final, or partial: games played of planned) in
    every format: JSON one object (``pooled`` and ``variants``; a tournament of one variant has both,
    the same table, so that a script reads ``pooled`` of any tournament; not when ``filtered`` to one
    variant), CSV one table with ``variant`` and ``status`` columns, the text formats in each title
    (the tournament's count in the first)."""
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
        if "pooled" not in data and not filtered and len(tables) == 1:
            data["pooled"] = next(iter(data["variants"].values()))
        return json.dumps(data, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        w = CsvWriter(buf)
        w.writerow(["variant", *HEADERS, "status"])
        for label, _, table, _ in tables:
            for x in table:
                w.writerow([label or "*", x.rank, x.entrant, f"{x.rating:.4f}", f"{x.mu:.4f}", f"{x.sigma:.4f}",
                            x.games, x.wins, x.draws, x.losses, f"{x.points_per_deal:.3f}", x.forfeits, status.text])
        for label, _, table, h2h in tables:  # --matrix: each table's after an empty row, as ``render`` writes it
            if h2h is not None:
                head, rows = matrix_rows(table, h2h)
                w.writerow([])
                w.writerow(["variant", *head])
                w.writerows([label or "*", *r] for r in rows)
        return buf.getvalue().rstrip("\n")
    parts = []
    for i, (label, title, table, h2h) in enumerate(tables):
        # the count is the tournament's: said once, over the first table, and not as if a variant's
        shown = title if status.finished else f"{title} ({status.text if i == 0 else 'partial'})"
        parts.append(render(table, fmt, title=shown, h2h=h2h))
    return "\n\n".join(parts)
