"""``tute league report``: a folder of static HTML, readable from disk with no server and no network.

``index.html`` holds the standings (pooled and per variant, each rating with its interval in plain
sight), one chart of every entrant's rating over the seasons with its uncertainty band, the entrants
and their versions (withdrawn ones apart), the head-to-head matrix whose cells open the games of that
pair (``pairs/``), and each season's table with a few replay pages (``replays/``). The report's size
does not grow with the number of tables: a season gets at most ``replays`` pages, a pair page lists
its games with the ``tute replay`` command for the others.

Nothing from a config, a bot or a record reaches the page unescaped, and nothing local does at all:
a command entrant is shown by its program's file name, never by the path it was submitted from, and
a record's free text (a forfeit's detail) has its local paths cut to file names before it is shown.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shlex
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import AbstractSet, Callable, Iterable, Iterator, Sequence

from arena import GameRecord, Variant
from arena.record_schema import escaped
from arena.result import sides_in_play
from leagues.league.config import LeagueConfig
from leagues.league.league import League
from leagues.league.rating import HistoryRow, Standing, history, rating_view, standings
from leagues.tournament.terminal import plural
from leagues.league.store import LeagueStore, RatingRow, Season, Version
from leagues.records.replay_html import replay_page
from leagues.records.wording import isolated, result_of
from leagues.tournament.tally import HeadToHead, head_to_head
from leagues.tournament.store import GameRow, Store

#: the matrix and its pair pages only up to this many entrants (beyond, a matrix is no longer read)
MATRIX_MAX = 40
#: entrants drawn in the rating chart (the best by rating; the table lists everyone)
CHART_MAX = 16
#: games listed on a pair's page
PAIR_GAMES = 200
#: line colours of the chart: the first eight far apart in hue, all dark enough on white for text
#: (WCAG AA), so a legend entry is readable in its own colour
PALETTE = ("#1f5fa8", "#b42318", "#1a7f37", "#8a4b00", "#6b3fa0", "#0b6b6b", "#9c1c6b", "#4d5b00",
           "#005f99", "#a13d00", "#3d5a80", "#7a2e8e", "#2f6b2f", "#8c2f39", "#006d77", "#5c4d00")
#: past the palette, lines repeat its colours with another dash pattern
DASHES = ("", "6 3", "2 3", "8 3 2 3")
#: the band drawn around each line: mu ± BAND sigma (the 95% interval)
BAND = 2
#: a chart's axis: a season or a rating to a coordinate
Scale = Callable[[float], float]
#: each variant, by tournament (a season's division) and label, as that season's league.toml made it
#: (its teams; cabrón's points limit, for a result in words: a label's options may change between seasons)
Variants = dict[tuple[str, str], Variant]

_CSS = """
body{font-family:system-ui,sans-serif;margin:0;padding:16px 24px;color:#1d2330;background:#fafafa;line-height:1.4;
overflow-wrap:anywhere}
@media (max-width:600px){body{padding:12px}}
h1{margin:0 0 4px;overflow-wrap:anywhere}h2{margin-top:28px;border-bottom:2px solid #0b5d2a;padding-bottom:2px}
h3{overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
.sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}
table{border-collapse:collapse;margin:8px 0}
th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th{background:#0b5d2a;color:#fff}td.name,th.name,td.text,th.text{text-align:left}
td.text{white-space:normal;min-width:14em}
.entrant{display:inline-block;vertical-align:top;margin:8px 16px 8px 0;padding:8px 12px;background:#fff;
 border:1px solid #ddd;border-radius:8px;max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}
.entrant h3{margin:0 0 4px}.muted{color:#595959}.up{color:#1a7f37}.down{color:#b42318}
.tag{font-size:.85em;color:#8a4b00;border:1px solid #8a4b00;border-radius:3px;padding:0 3px;margin-left:4px}
td.h2h{font-variant-numeric:tabular-nums}td.h2h a{color:#1d2330}
figure{margin:8px 0}figcaption{color:#595959;margin-bottom:4px}
#rating-chart{width:100%;min-width:520px;max-width:760px}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
.legend .swatch{display:inline-block;vertical-align:middle;margin-right:4px}
code{background:#eef0f3;padding:1px 4px;border-radius:3px;color:#1d2330}
a{color:#0b4f8a}
"""


def _e(x: object) -> str:
    """Everything that reaches the page goes through here (text and attribute values alike: quotes too)."""
    return html.escape(str(x), quote=True)


def _name(x: object) -> str:
    """A name (an entrant's, an owner's, the league's) in running text: escaped, and isolated so that one
    in a right-to-left script does not reorder the words and numbers around it (``bdi``; in a tooltip,
    which holds no markup, ``isolated``'s marks)."""
    return f"<bdi>{_e(x)}</bdi>"


def _slug(text: str) -> str:
    """An anchor name from an entrant name: safe characters kept, every other one as ``~HEX;`` (``~``
    and ``;`` included), so two different names never share a slug."""
    return re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"~{ord(m.group(0)):x};", text)


def _file_name(*parts: str) -> str:
    """A file name for a page about ``parts``: readable, short whatever the names (a name may have 64
    characters, each escaped to several), and distinct for distinct parts (the hash decides)."""
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
    readable = "--".join(re.sub(r"[^A-Za-z0-9.-]+", "_", p)[:40] for p in parts).lstrip(".-")
    return f"{readable}-{digest}.html"


# ------------------------------------------------------------------------------ nothing local published
#: the directories inside one command argument: up to its last separator, from its start or a '=' or ','
_DIRS = re.compile(r"[^\s=,]*[\\/]")
#: the directory part of an absolute path in free text (POSIX, home, or a Windows drive), after a non-word
_ABSOLUTE_DIRS = re.compile(r"(?<![\w.~-])(?:~|[A-Za-z]:)?[\\/](?:[^\s\\/'\"`<>|]+[\\/])+")


def public_bot(v: Version) -> str:
    """How a version's bot is shown: an entry point or ``module:Class`` as it is; a command by its
    program and arguments with every directory left out (a path is the submitter's machine's), also
    inside an argument (``--model=/home/me/w.bin`` -> ``--model=w.bin``) and Windows paths."""
    if isinstance(v.bot, tuple):
        return " ".join(_DIRS.sub("", arg.rstrip("/\\")) or "." for arg in v.bot)
    return v.bot


@dataclass(frozen=True)
class LocalPaths:
    """Paths of this machine that a record's free text may name, each as one pattern (longest first,
    so a file wins over its folder): files are cut to their names, folders left out."""
    files: re.Pattern[str] | None
    dirs: re.Pattern[str] | None


def _base(path: str) -> str:
    return re.split(r"[\\/]", path.rstrip("/\\"))[-1]


def _any_of(paths: Iterable[str]) -> re.Pattern[str] | None:
    """One of ``paths`` as a whole (not the start of a longer name), the longest tried first."""
    found = sorted({p for p in paths if len(p) > 1}, key=len, reverse=True)
    return re.compile("(?:" + "|".join(map(re.escape, found)) + r")(?![\w.~-])") if found else None


def local_paths(cfg: LeagueConfig, versions: Iterable[Version]) -> LocalPaths:
    """Every version's files and path arguments, their folders, the league's folder, the home and the
    working directory: what a forfeit's detail may quote."""
    files: set[str] = set()
    for v in versions:
        files.update(path for _, path in v.files)
        if isinstance(v.bot, tuple):
            files.update(arg for arg in v.bot if "/" in arg or "\\" in arg)
    dirs = {os.path.dirname(f) for f in files} | {str(cfg.store.parent.resolve()), str(Path.home()), os.getcwd()}
    return LocalPaths(_any_of(files), _any_of(d.rstrip("/\\") for d in dirs))


def scrub(text: str, local: LocalPaths) -> str:
    """``text`` with every local path cut to its file name and every known folder left out: a forfeit's
    detail may quote the command that failed to start, or whatever a bot chose to report."""
    if "/" not in text and "\\" not in text:  # no path at all (nearly every text): nothing to read
        return text
    if local.files is not None:
        text = local.files.sub(lambda m: _base(m.group(0)), text)
    if local.dirs is not None:
        text = local.dirs.sub("…", text)
    return _ABSOLUTE_DIRS.sub("", text)


def public_record(rec: GameRecord, local: LocalPaths) -> GameRecord:
    """The record as the report shows it: the same game, its forfeit's detail scrubbed, and none of
    the fields this version does not know (nobody has checked what they hold)."""
    forfeit = rec.result.forfeit
    result = rec.result if forfeit is None else replace(rec.result, forfeit=replace(
        forfeit, detail=scrub(forfeit.detail, local)))
    return replace(rec, result=result, extra={})


def report_replay(rec: GameRecord, local: LocalPaths) -> str:
    """A replay page of the report: the public record, with its link back to the report's index."""
    return replay_page(public_record(rec, local), back="../index.html")


# ---------------------------------------------------------------------------------------------- tables
def _signed(x: float | None) -> str:
    if x is None:
        return '<span class="muted">new</span>'
    cls = "up" if x > 0 else "down" if x < 0 else "muted"
    return f'<span class="{cls}">{x:+.2f}</span>'


def _interval(mu: float, sigma: float) -> str:
    return f"{mu:.1f} ± {BAND * sigma:.1f}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], cls: str, name_col: int = 1,
           text_cols: Sequence[int] = (), *, caption: str, row_header: bool = False) -> str:
    """A table in its own horizontal scroller (a phone scrolls the table, not the page), whose cells
    are already HTML: every caller escapes what it puts in. ``caption`` names the table to a screen
    reader (and the scroller, which takes the focus so that a keyboard scrolls what a zoomed page cuts
    off); ``row_header``: the first cell of each row names the row (a matrix's entrant)."""
    def kind(i: int) -> str:
        return "name" if i == name_col else "text" if i in text_cols else ""
    out = [f'<div class="scroll" tabindex="0" role="region" aria-label="{_e(caption)}"><table class="{cls}">'
           f'<caption class="sr">{_e(caption)}</caption><tr>'
           + "".join(f'<th scope="col" class="{kind(i)}">{_e(c)}</th>' for i, c in enumerate(head)) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f'<th scope="row" class="{kind(i)}">{c}</th>' if i == 0 and row_header
                                    else f'<td class="{kind(i)}">{c}</td>' for i, c in enumerate(r)) + "</tr>")
    out.append("</table></div>")
    return "".join(out)


def _withdrawn_tag() -> str:
    return '<span class="tag">withdrawn</span>'


def _standings_table(table: Sequence[Standing], divisions: bool, gone: AbstractSet[str] = frozenset(),
                     caption: str = "standings") -> str:
    """A standings table; an entrant withdrawn since is marked so in the past seasons' tables."""
    head = ["rank", "entrant", "version"] + (["division"] if divisions else []) + [
        "rating", "mu ± 2σ", "change", "games", "W-D-L", "form"]
    rows = []
    for s in table:
        note = "" if s.played else ' <span class="muted">(not played yet)</span>'
        note += f" {_withdrawn_tag()}" if s.entrant in gone else ""
        cells = [str(s.rank), f'<a href="#entrant-{_e(_slug(s.entrant))}">{_name(s.entrant)}</a>{note}', str(s.version)]
        if divisions:
            cells.append(_e(s.division or "-"))
        cells += [f"{s.rating:.2f}", _interval(s.mu, s.sigma), _signed(s.change), str(s.games),
                  f"{s.wins}-{s.draws}-{s.losses}", _e(" ".join(map(str, s.form)))]
        rows.append(cells)
    return _table(head, rows, "standings", caption=caption)


@dataclass(frozen=True)
class VariantLine:
    """One entrant in one variant's table: its current version's rating there (the end of its last
    season in the variant, or the prior it will start from), and that version's record there."""
    entrant: str
    mu: float
    sigma: float
    rating: float
    games: int
    wins: int
    draws: int
    losses: int
    played: bool


def variant_table(rows: Sequence[RatingRow], label: str, current: Sequence[Standing], cfg: LeagueConfig,
                  upto: int) -> list[VariantLine]:
    """One variant's table over the active entrants, read from the stored rating rows the same way
    as the pooled one (``rating_view``): its ratings are ``Standing.variants[label]``."""
    by: dict[tuple[str, str], list[RatingRow]] = defaultdict(list)
    for x in rows:
        if x.scope == label:
            by[(label, x.entrant)].append(x)
    k = cfg.rating.k
    lines = []
    for s in current:
        mu, sigma, played = rating_view(by, label, s.entrant, s.version, upto, cfg.rating)
        mine = [x for x in by.get((label, s.entrant), []) if x.version == s.version]
        lines.append(VariantLine(s.entrant, mu, sigma, mu - k * sigma, sum(x.games for x in mine),
                                 sum(x.wins for x in mine), sum(x.draws for x in mine), sum(x.losses for x in mine),
                                 played))
    return sorted(lines, key=lambda v: (-v.rating, -v.mu, v.entrant))


def _variant_tables(db: LeagueStore, cfg: LeagueConfig, current: Sequence[Standing], upto: int) -> list[str]:
    """A table per variant (scope), when the league plays more than one."""
    if len(cfg.labels) < 2:
        return []
    rows = db.ratings()
    out = []
    for label in cfg.labels:
        lines = variant_table(rows, label, current, cfg, upto)
        out.append(f'<h3 id="variant-{_e(_slug(label))}">{_e(label)}</h3>')
        out.append(_table(["rank", "entrant", "rating", "mu ± 2σ", "games", "W-D-L"], [
            [str(i + 1), _name(v.entrant) + ("" if v.played else ' <span class="muted">(not played yet)</span>'),
             f"{v.rating:.2f}", _interval(v.mu, v.sigma), str(v.games), f"{v.wins}-{v.draws}-{v.losses}"]
            for i, v in enumerate(lines)], "variant", caption=f"{label}: standings"))
    return out


def _withdrawn_section(gone: Sequence[Standing]) -> str:
    """The withdrawn entrants apart from the table, with their last rating, not ranked."""
    if not gone:
        return ""
    return ('<h2 id="withdrawn">Withdrawn</h2><p class="muted">No longer entered: their last rating, not '
            "ranked; their seasons stay in the history below.</p>"
            + _table(["entrant", "version", "rating", "mu ± 2σ", "games", "W-D-L"], [
                [_e(s.entrant), str(s.version), f"{s.rating:.2f}", _interval(s.mu, s.sigma), str(s.games),
                 f"{s.wins}-{s.draws}-{s.losses}"] for s in gone], "withdrawn", name_col=0,
                caption="withdrawn entrants"))


# ----------------------------------------------------------------------------------------------- chart
def rating_chart(histories: dict[str, list[HistoryRow]], seasons: int, names: Sequence[str],
                 gone: AbstractSet[str] = frozenset()) -> str:
    """Every entrant's mu at the end of each season it played as a line, with its band mu ± 2σ: the
    uncertainty in sight, one vertical scale for all. A new version is labelled where it starts."""
    drawn = [n for n in names if histories.get(n)]
    if not drawn:
        return '<p class="muted">No season played yet.</p>'
    w, h, left, right, top, bottom = 760, 320, 50, 24, 24, 32
    low = min(r.mu - BAND * r.sigma for n in drawn for r in histories[n])
    high = max(r.mu + BAND * r.sigma for n in drawn for r in histories[n])
    pad = max(0.5, (high - low) * 0.05)
    low, high = low - pad, high + pad

    def x(season: float) -> float:
        return left + (w - left - right) * ((season - 1) / (seasons - 1) if seasons > 1 else 0.5)

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - low) / (high - low))

    parts = [f'<svg id="rating-chart" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="rating of every entrant over the seasons">',
             f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" fill="#fff" '
             f'stroke="#ccc"/>']
    for i in range(5):
        v = low + (high - low) * i / 4
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" font-size="12" text-anchor="end" '
                     f'fill="#1d2330">{v:.1f}</text>')
    for s in range(1, seasons + 1):
        parts.append(f'<text x="{x(s):.1f}" y="{h - 10}" font-size="12" text-anchor="middle" '
                     f'fill="#1d2330">s{s}</text>')
    legend = []
    for i, n in enumerate(drawn):
        # each line its own dash as well as its colour (never told apart by colour alone), and the dash
        # still turning when the colours come round again
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i + i // len(PALETTE)) % len(DASHES)]
        parts += _chart_entrant(n, histories[n], colour, dash, x, y)
        tag = f" {_withdrawn_tag()}" if n in gone else ""
        # the legend draws the line itself, its dash as on the chart
        swatch = (f'<svg class="swatch" width="22" height="6" aria-hidden="true"><line x1="0" y1="3" x2="22" y2="3" '
                  f'stroke="{colour}" stroke-width="3" stroke-dasharray="{dash}"/></svg>')
        legend.append(f'<li>{swatch}{_name(n)}{tag}</li>')
    parts.append("</svg>")
    return f'<div class="scroll">{"".join(parts)}</div><ul class="legend">{"".join(legend)}</ul>'


def _chart_entrant(n: str, rows: Sequence[HistoryRow], colour: str, dash: str, x: Scale, y: Scale) -> list[str]:
    """One entrant's band, line, dots (with their numbers as a tooltip) and version labels."""
    upper = [f"{x(r.season):.1f},{y(r.mu + BAND * r.sigma):.1f}" for r in rows]
    lower = [f"{x(r.season):.1f},{y(r.mu - BAND * r.sigma):.1f}" for r in reversed(rows)]
    line = " ".join(f"{x(r.season):.1f},{y(r.mu):.1f}" for r in rows)
    out = [f'<polygon class="band" data-entrant="{_e(n)}" points="{" ".join(upper + lower)}" fill="{colour}" '
           f'fill-opacity="0.10" stroke="{colour}" stroke-opacity="0.25" stroke-width="0.5"/>',
           f'<polyline class="line" data-entrant="{_e(n)}" points="{line}" fill="none" stroke="{colour}" '
           f'stroke-width="2" stroke-dasharray="{dash}"><title>{_e(n)}</title></polyline>']
    for i, r in enumerate(rows):
        out.append(f'<circle cx="{x(r.season):.1f}" cy="{y(r.mu):.1f}" r="3" fill="{colour}"><title>'
                   f'{_e(isolated(n))}, season {r.season}, version {r.version}: mu {r.mu:.2f} ± {BAND * r.sigma:.2f}'
                   f'</title></circle>')
        if i > 0 and r.version != rows[i - 1].version:
            out.append(f'<text class="version" x="{x(r.season):.1f}" y="{y(r.mu) - 8:.1f}" font-size="12" '
                       f'text-anchor="middle" font-weight="bold" fill="{colour}">v{r.version}</text>')
    return out


# ------------------------------------------------------------------------------------------- entrants
def _entrants(db: LeagueStore, everyone: Sequence[Standing]) -> str:
    """A card per entrant: owner and versions (bot shown without local paths), withdrawn ones marked."""
    versions = db.versions()
    out = []
    for s in everyone:
        ent = db.entrant(s.entrant)
        mine = [v for v in versions if v.entrant == s.entrant]
        # a command stored before its controls were refused: shown as escapes, isolated as a name is
        vlist = "".join(f"<li>v{v.version}: <code><bdi>{_e(escaped(public_bot(v)))}</bdi></code> · sha256 "
                        f"{_e(v.plugin_hash[:12])} · "
                        f"{datetime.fromtimestamp(v.submitted).strftime('%Y-%m-%d')}</li>" for v in mine)
        out.append(f'<div class="entrant" id="entrant-{_e(_slug(s.entrant))}"><h3>{_name(s.entrant)}'
                   f'{"" if s.active else " " + _withdrawn_tag()}</h3>'
                   f'<div class="muted">owner {_name(ent.owner if ent else "?")}</div><ul>{vlist}</ul></div>')
    return "".join(out)


# --------------------------------------------------------------------------------------- head to head
def _pair_file(a: str, b: str) -> str:
    return "pairs/" + _file_name(a, b)


def _matrix(names: Sequence[str], h2h: dict[tuple[str, str], HeadToHead], pages: set[tuple[str, str]]) -> str:
    """Score ± half-width as text in every cell (not only in a tooltip), each a link to the pair's page."""
    rows = []
    for a in names:
        cells = [_e(a)]
        for b in names:
            x = h2h.get((a, b))
            if a == b:
                cells.append("")
            elif x is None:
                cells.append('<span class="muted">-</span>')
            else:
                text = f"{x.score:.2f} ±{x.half_width:.2f}"
                key = (a, b) if a < b else (b, a)
                label = _e(f"{isolated(a)} against {isolated(b)}: {x.score:.3f} ± {x.half_width:.3f} over {x.blocks} deals")
                cells.append(f'<a href="{_e(_pair_file(*key))}" title="{label}">{text}</a>' if key in pages
                             else f'<span title="{label}">{text}</span>')
        rows.append(cells)
    return _table(["vs", *names], rows, "h2h", name_col=0, row_header=True,
                  caption="head to head: each row's score against each column's").replace(
        '<td class="">', '<td class="h2h">')


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{_e(title)}</title><style>{_CSS}</style></head>'
            f"<body>{body}</body></html>\n")


@dataclass(frozen=True)
class Games:
    """The finished seasons' games, read from the store as each part of the report needs them (never
    held: a league's games grow with every season, about 1.6 kB of memory a row), and what is needed
    to read them."""
    store: Store | None
    tournaments: tuple[str, ...]
    variants: Variants
    store_name: str
    local: LocalPaths

    def rows(self, tournaments: Iterable[str] | None = None) -> Iterator[GameRow]:
        """The games of ``tournaments`` (default: every season's), tournament by tournament in name
        order, each in schedule order."""
        if self.store is None:
            return
        for t in sorted(self.tournaments if tournaments is None else tournaments):
            yield from self.store.iter_games(t)


def _replay_command(store_name: str, g: GameRow) -> str:
    return f"tute replay --store {shlex.quote(store_name)} {shlex.quote(_shown(g))}"


def _shown(g: GameRow) -> str:
    """The deal a replay of game ``g`` shows: the game, or a match's first deal (``tute replay`` and
    ``Store.record`` take a match's deals as ``MATCH_ID/dK``, not the whole match)."""
    return f"{g.id}/d0" if g.result.reason == "match" else g.id


def _pair_pages(folder: Path, games: Games, names: Sequence[str], replays: dict[str, str],
                league: str) -> set[tuple[str, str]]:
    """One page per pair of entrants that met: their games (at most ``PAIR_GAMES``), each with its
    result in words and its replay page or the command that shows it."""
    wanted = set(names)
    together: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for g in games.rows():
        # the sides that took part: a dealer who sat the deal out met nobody in it
        met = sorted({g.seats[t[0]] for t in sides_in_play(games.variants[g.tournament, g.variant].teams,
                                                         g.result.sit_out)} & wanted)
        for i, a in enumerate(met):
            for b in met[i + 1:]:
                counts[(a, b)] += 1
                if len(together[(a, b)]) < PAIR_GAMES:
                    together[(a, b)].append(g)
    (folder / "pairs").mkdir(exist_ok=True)
    for (a, b), gs in together.items():
        lines = []
        for g in gs:
            shown = (f'<a href="../{_e(replays[g.id])}">replay</a>' if g.id in replays
                     else f"<code>{_e(_replay_command(games.store_name, g))}</code>")
            v = games.variants[g.tournament, g.variant]
            result = scrub(result_of(g.result, g.seats, v.teams, limit=v.over_points_loses, isolate=True), games.local)
            lines.append([_e(g.id), _e(g.variant), str(g.round), _e(result), shown])
        more = (f'<p class="muted">The first {len(gs)} of {counts[(a, b)]} games; <code>'
                f'{_e(f"tute games --entrant {shlex.quote(a)} --store {shlex.quote(games.store_name)}")}</code> '
                f"lists them all.</p>" if counts[(a, b)] > len(gs) else "")
        body = (f'<p><a href="../index.html">back to the report</a></p><h1>{_name(a)} and {_name(b)}: their games</h1>'
                f'<p class="muted">{_name(league)}: {counts[(a, b)]} games together. A game without a replay page '
                f"here is shown by the command given, run in the league's folder.</p>{more}"
                + _table(["game", "variant", "round", "result", "replay"], lines, "games", name_col=0,
                         text_cols=(3, 4), caption=f"games of {a} and {b}"))
        (folder / _pair_file(a, b)).write_text(_page(f"{a} and {b}: their games · {league} report", body),
                                              encoding="utf-8")
    return set(together)


def _first_of_tables(rows: Iterable[GameRow], count: int) -> list[GameRow]:
    """The first game of each table, the variants taking turns (every variant gets its replays before
    a variant gets a second), at most ``count``."""
    firsts: dict[str, list[GameRow]] = defaultdict(list)
    seen: set[tuple[str, str, int, int]] = set()
    for g in rows:
        key = (g.tournament, g.variant, g.round, g.table)
        if key not in seen:
            seen.add(key)
            firsts[g.variant].append(g)
    out: list[GameRow] = []
    queues = [list(reversed(q)) for q in firsts.values()]
    while len(out) < count and any(queues):
        for q in queues:
            if q and len(out) < count:
                out.append(q.pop())
    return out


def _replays(season: Season, games: Games, count: int, folder: Path) -> list[tuple[GameRow, str]]:
    """Replay pages for the first games of the season's tables (at most ``count``)."""
    out: list[tuple[GameRow, str]] = []
    for g in _first_of_tables(games.rows(season.tournaments), count):
        rel = "replays/" + _file_name(_shown(g))
        assert games.store is not None  # it gave the row
        (folder / rel).write_text(report_replay(games.store.record(_shown(g)), games.local), encoding="utf-8")
        out.append((g, rel))
    return out


def _season_variants(lg: League, seasons: Sequence[Season]) -> Variants:
    """Each variant of each season's tournaments (from the config each season started with)."""
    variants: Variants = {}
    for season in seasons:
        made = lg.season_config(season).variants
        variants.update({(t, v.label): v.variant for t in season.tournaments for v in made})
    return variants


# ---------------------------------------------------------------------------------------------- report
def write_report(lg: League, out: str | Path, *, replays: int = 8, damaged: dict[str, str] | None = None) -> Path:
    """Write the report into ``out`` (``replays``: replay pages per season); returns index.html's path.
    Pages an earlier report left in ``pairs/`` and ``replays/`` and this one does not link are removed.
    ``damaged`` is given the stored games whose rows could not be read, which the pages leave out."""
    folder = Path(out)
    (folder / "replays").mkdir(parents=True, exist_ok=True)
    cfg, db = lg.cfg, lg.db
    seasons = [s for s in db.seasons() if s.finished is not None]
    current = standings(db, cfg)  # ranked among themselves
    gone = [s for s in standings(db, cfg, include_withdrawn=True) if not s.active]
    gone_names = {s.entrant for s in gone}
    divisions = cfg.divisions > 1 or any((s.division or 1) > 1 for s in current)
    body = [_intro(cfg, seasons, current, gone), "<h2>Standings</h2>"]
    if len(cfg.labels) > 1:
        body.append('<h3 id="variant-pooled">All variants pooled</h3>')
    body.append(_standings_table(current, divisions))
    body += _variant_tables(db, cfg, current, max((s.season for s in seasons), default=0))
    body += [_withdrawn_section(gone), _chart_section(db, cfg, len(seasons), current + gone, gone_names),
             "<h2>Entrants</h2>", _entrants(db, current + gone)]
    local = local_paths(cfg, db.versions())
    names = [s.entrant for s in current]
    with ExitStack() as stack:
        # before the first season a league's store holds no game, nor the tables for them
        store = stack.enter_context(Store(cfg.store, readonly=True)) if seasons else None
        games = Games(store, tuple(t for s in seasons for t in s.tournaments), _season_variants(lg, seasons),
                      cfg.store.name, local)
        pages = {season.season: _replays(season, games, replays, folder) for season in seasons}
        written = {g.id: rel for ps in pages.values() for g, rel in ps}
        pairs = _pair_pages(folder, games, names, written, cfg.name) if len(names) <= MATRIX_MAX else set()
        body += ["<h2>Head to head</h2>", _head_to_head(names, games, pairs), "<h2>Seasons</h2>"]
        if store is not None and damaged is not None:
            damaged.update(store.damaged)
    body += [_season(db, cfg, season, pages[season.season], divisions, gone_names) for season in reversed(seasons)]
    _prune(folder, set(written.values()) | {_pair_file(a, b) for a, b in pairs})
    index = folder / "index.html"
    index.write_text(_page(f"{cfg.name}: league report", "".join(body)), encoding="utf-8")
    return index


def _intro(cfg: LeagueConfig, seasons: Sequence[Season], current: Sequence[Standing],
           gone: Sequence[Standing]) -> str:
    """The league's name and how to read the tables."""
    k = cfg.rating.k
    return (f"<h1>{_e(cfg.name)}</h1>"
            f'<p class="muted">{plural(len(seasons), "season")}, {plural(len(current), "entrant")}'
            + (f', {len(gone)} withdrawn (<a href="#withdrawn">listed apart</a>)' if gone else "")
            + f'; generated {datetime.now().strftime("%Y-%m-%d %H:%M")}. Rating = mu − {k:g} σ (the table ranks by '
              f"it); mu ± 2σ is the 95% interval of the skill; change since the previous season; form = place in "
              f"its division in its last seasons.</p>")


def _chart_section(db: LeagueStore, cfg: LeagueConfig, seasons: int, everyone: Sequence[Standing],
                   gone: AbstractSet[str]) -> str:
    """The chart of the best ``CHART_MAX`` entrants, with a caption saying what the band is."""
    drawn = [s.entrant for s in sorted(everyone, key=lambda s: -s.rating)][:CHART_MAX]
    histories = {n: history(db, cfg, n) for n in drawn}
    caption = (f"Each line is an entrant's mu (pooled over the variants) at the end of each season it played, "
               f"the band around it mu ± {BAND}σ, its 95% interval; vN marks where a new version starts. The "
               f"tables rank by the conservative rating mu − {cfg.rating.k:g}σ."
               + (f" The {CHART_MAX} best are drawn." if len(everyone) > CHART_MAX else ""))
    return (f"<h2>Ratings over the seasons</h2><figure><figcaption>{_e(caption)}</figcaption>"
            f"{rating_chart(histories, seasons, drawn, gone)}</figure>")


def _head_to_head(names: Sequence[str], games: Games, pairs: set[tuple[str, str]]) -> str:
    """The matrix over every season, or why there is none."""
    if len(names) > MATRIX_MAX:
        return (f'<p class="muted">{len(names)} entrants: more than a matrix can show ({MATRIX_MAX}); '
                f"<code>tute leaderboard --matrix</code> on a season's tournament gives it.</p>")
    return ('<p class="muted">Row\'s mean score against column over every season (1 win, 0.5 shared place, '
            "0 loss) ± the half-width of its 95% interval; a cell opens the games of the pair.</p>"
            + _matrix(names, head_to_head(games.rows(), {label: [tuple(t) for t in v.teams]
                                                       for (_, label), v in games.variants.items()}), pairs))


def _prune(folder: Path, kept: AbstractSet[str]) -> None:
    """Remove the pages of an earlier report into the same folder that this one no longer links (a
    pair or a replay gone, or named otherwise by an older version): only ``*.html`` of the report's
    own subfolders."""
    for sub in ("pairs", "replays"):
        for page in (folder / sub).glob("*.html"):
            if f"{sub}/{page.name}" not in kept:
                page.unlink()


def _season(db: LeagueStore, cfg: LeagueConfig, season: Season, pages: Sequence[tuple[GameRow, str]],
            divisions: bool, gone: AbstractSet[str]) -> str:
    """A past season: its table as it ended, and links to its replay pages."""
    table = standings(db, cfg, as_of=season.season)
    links = "".join(f'<li><a href="{_e(rel)}">{" v ".join(map(_name, g.units))}</a> '
                    f'<span class="muted">{_e(g.variant)}, round {g.round}, {_e(g.id)}</span></li>'
                    for g, rel in pages)
    when = datetime.fromtimestamp(season.started).strftime("%Y-%m-%d %H:%M")
    return (f'<h3 id="season-{season.season}">Season {season.season} '
            f'<span class="muted">({when}, {plural(len(season.tournaments), "division")}; games and W-D-L of this '
            f'season)</span></h3>{_standings_table(table, divisions, gone, f"season {season.season}: standings")}'
            + (f"<details><summary>replays ({len(pages)})</summary><ul>{links}</ul></details>" if links else ""))
