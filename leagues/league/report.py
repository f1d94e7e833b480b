"""``tute league report``: a folder of static HTML, readable from disk with no server and no network.

``index.html`` holds the standings (pooled and per variant, each rating with its interval in plain
sight), one chart of every entrant's rating over the seasons with its uncertainty band, the entrants
and their versions (withdrawn ones apart), the head-to-head matrix whose cells open the games of that
pair (``pairs/``), and each season's table with a few replay pages (``replays/``). The report's size
does not grow with the number of tables: a season gets at most ``replays`` pages, a pair page lists
its games with the ``tute replay`` command for the others.

Nothing from a config, a bot or a record reaches the page unescaped, and nothing local does at all:
a command entrant is shown by its program's file name, never by the path it was submitted from.
"""

from __future__ import annotations

import html
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Sequence

from leagues.league.league import League
from leagues.league.rating import HistoryRow, Standing, history, standings
from leagues.league.store import POOLED, LeagueStore, Season, Version
from leagues.records.replay_html import replay_page
from leagues.records.wording import result_of
from leagues.tournament.leaderboard import HeadToHead, head_to_head
from leagues.tournament.store import GameRow, Store

#: the matrix and its pair pages only up to this many entrants (beyond, a matrix is no longer read)
MATRIX_MAX = 40
#: entrants drawn in the rating chart (the best by rating; the table lists everyone)
CHART_MAX = 16
#: games listed on a pair's page
PAIR_GAMES = 200
#: line colours of the chart: distinguishable, and dark enough on white for text (WCAG AA)
PALETTE = ("#1f5fa8", "#b42318", "#1a7f37", "#8a4b00", "#6b3fa0", "#0b6b6b", "#9c1c6b", "#4d5b00",
           "#005f99", "#a13d00", "#3d5a80", "#7a2e8e", "#2f6b2f", "#8c2f39", "#006d77", "#5c4d00")
DASHES = ("", "6 3", "2 3", "8 3 2 3")

_CSS = """
body{font-family:system-ui,sans-serif;margin:0;padding:16px 24px;color:#1d2330;background:#fafafa;line-height:1.4}
h1{margin:0 0 4px}h2{margin-top:28px;border-bottom:2px solid #0b5d2a;padding-bottom:2px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}
th{background:#0b5d2a;color:#fff}td.name,th.name{text-align:left}
.entrant{display:inline-block;vertical-align:top;margin:8px 16px 8px 0;padding:8px 12px;background:#fff;
 border:1px solid #ddd;border-radius:8px;max-width:100%}
.entrant h3{margin:0 0 4px}.muted{color:#595959}.up{color:#1a7f37}.down{color:#b42318}
td.h2h{font-variant-numeric:tabular-nums}td.h2h a{color:#1d2330}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 16px}
.legend span{display:inline-block;width:22px;height:0;border-top:3px solid;vertical-align:middle;margin-right:4px}
code{background:#eef0f3;padding:1px 4px;border-radius:3px;color:#1d2330}
a{color:#0b4f8a}
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def _slug(text: str) -> str:
    """A file or anchor name from an entrant name: safe characters kept, every other one as its code
    point, so two different names never share a slug."""
    return re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"~{ord(m.group(0)):x}", text)


def public_bot(v: Version) -> str:
    """How a version's bot is shown: an entry point or ``module:Class`` as it is; a command by its
    program and arguments with every directory left out (a path is the submitter's machine's)."""
    if isinstance(v.bot, tuple):
        return " ".join(os.path.basename(arg.rstrip("/")) if ("/" in arg or "\\" in arg) else arg for arg in v.bot)
    return v.bot


def _signed(x: float | None) -> str:
    if x is None:
        return '<span class="muted">new</span>'
    cls = "up" if x > 0 else "down" if x < 0 else "muted"
    return f'<span class="{cls}">{x:+.2f}</span>'


def _interval(mu: float, sigma: float) -> str:
    return f"{mu:.1f} ± {2 * sigma:.1f}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], cls: str, name_col: int = 1) -> str:
    """A table whose cells are already HTML (every caller escapes what it puts in)."""
    out = [f'<div class="scroll"><table class="{cls}"><tr>'
           + "".join(f'<th class="{"name" if i == name_col else ""}">{_e(c)}</th>' for i, c in enumerate(head))
           + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f'<td class="{"name" if i == name_col else ""}">{c}</td>'
                                    for i, c in enumerate(r)) + "</tr>")
    out.append("</table></div>")
    return "".join(out)


def _standings_table(table: Sequence[Standing], divisions: bool, k: float) -> str:
    head = ["rank", "entrant", "version"] + (["division"] if divisions else []) + [
        "rating", "mu ± 2σ", "change", "games", "W-D-L", "form"]
    rows = []
    for s in table:
        note = "" if s.played else ' <span class="muted">(not played yet)</span>'
        cells = [str(s.rank), f'<a href="#entrant-{_e(_slug(s.entrant))}">{_e(s.entrant)}</a>{note}', str(s.version)]
        if divisions:
            cells.append(_e(s.division or "-"))
        cells += [f"{s.rating:.2f}", _interval(s.mu, s.sigma), _signed(s.change), str(s.games),
                  f"{s.wins}-{s.draws}-{s.losses}", _e(" ".join(map(str, s.form)))]
        rows.append(cells)
    return _table(head, rows, "standings")


@dataclass(frozen=True)
class VariantLine:
    entrant: str
    mu: float
    sigma: float
    rating: float
    games: int
    wins: int
    draws: int
    losses: int


def variant_table(db: LeagueStore, label: str, current: Sequence[Standing], k: float) -> list[VariantLine]:
    """One variant's table: each entrant's current version at the end of its last season in it."""
    version = {s.entrant: s.version for s in current}
    last: dict[str, tuple[int, VariantLine]] = {}
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for x in db.ratings(scope=label):
        if version.get(x.entrant) != x.version:
            continue
        t = totals[x.entrant]
        t[0] += x.games
        t[1] += x.wins
        t[2] += x.draws
        t[3] += x.losses
        if x.entrant not in last or x.season > last[x.entrant][0]:
            last[x.entrant] = (x.season, VariantLine(x.entrant, x.mu, x.sigma, x.mu - k * x.sigma, 0, 0, 0, 0))
    lines = [VariantLine(n, v.mu, v.sigma, v.rating, *totals[n]) for n, (_, v) in last.items()]
    return sorted(lines, key=lambda v: (-v.rating, -v.mu, v.entrant))


def rating_chart(histories: dict[str, list[HistoryRow]], seasons: int, names: Sequence[str]) -> str:
    """Every entrant's mu at the end of each season it played as a line, with its band mu ± 2σ: the
    uncertainty in sight, one vertical scale for all."""
    drawn = [n for n in names if histories.get(n)]
    if not drawn:
        return '<p class="muted">No season played yet.</p>'
    w, h, left, right, top, bottom = 760, 320, 46, 16, 14, 30
    lows = [r.mu - 2 * r.sigma for n in drawn for r in histories[n]]
    highs = [r.mu + 2 * r.sigma for n in drawn for r in histories[n]]
    low, high = min(lows), max(highs)
    pad = max(0.5, (high - low) * 0.05)
    low, high = low - pad, high + pad

    def x(season: int) -> float:
        return left + (w - left - right) * ((season - 1) / (seasons - 1) if seasons > 1 else 0.5)

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - low) / (high - low))

    parts = [f'<svg id="rating-chart" width="100%" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="rating of every entrant over the seasons" style="max-width:{w}px">',
             f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" fill="#fff" stroke="#ccc"/>']
    for i in range(5):
        v = low + (high - low) * i / 4
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end" fill="#1d2330">{v:.1f}</text>')
    for s in range(1, seasons + 1):
        parts.append(f'<text x="{x(s):.1f}" y="{h - 10}" font-size="11" text-anchor="middle" fill="#1d2330">s{s}</text>')
    legend = []
    for i, n in enumerate(drawn):
        rows = histories[n]
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        upper = [f"{x(r.season):.1f},{y(r.mu + 2 * r.sigma):.1f}" for r in rows]
        lower = [f"{x(r.season):.1f},{y(r.mu - 2 * r.sigma):.1f}" for r in reversed(rows)]
        parts.append(f'<polygon class="band" points="{" ".join(upper + lower)}" fill="{colour}" fill-opacity="0.10" '
                     f'stroke="none"/>')
        line = " ".join(f"{x(r.season):.1f},{y(r.mu):.1f}" for r in rows)
        parts.append(f'<polyline class="line" data-entrant="{_e(n)}" points="{line}" fill="none" stroke="{colour}" '
                     f'stroke-width="2" stroke-dasharray="{dash}"><title>{_e(n)}</title></polyline>')
        for r in rows:
            parts.append(f'<circle cx="{x(r.season):.1f}" cy="{y(r.mu):.1f}" r="3" fill="{colour}"><title>'
                         f'{_e(n)}, season {r.season}, version {r.version}: mu {r.mu:.2f} ± {2 * r.sigma:.2f}'
                         f'</title></circle>')
        legend.append(f'<li><span style="border-color:{colour};border-top-style:{"dashed" if dash else "solid"}">'
                      f'</span>{_e(n)}</li>')
    parts.append("</svg>")
    return "".join(parts) + f'<ul class="legend">{"".join(legend)}</ul>'


def _matrix(names: Sequence[str], h2h: dict[tuple[str, str], HeadToHead], pages: set[tuple[str, str]]) -> str:
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
                link = f'pairs/{_e(_slug(key[0]))}__{_e(_slug(key[1]))}.html' if key in pages else ""
                label = f'{_e(a)} against {_e(b)}: {x.score:.3f} ± {x.half_width:.3f} over {x.blocks} deals'
                cells.append(f'<a href="{link}" title="{label}">{text}</a>' if link else f'<span title="{label}">{text}</span>')
        rows.append(cells)
    return _table(["vs", *names], rows, "h2h", name_col=0).replace('<td class="">', '<td class="h2h">')


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{_e(title)}</title><style>{_CSS}</style></head>'
            f"<body>{body}</body></html>\n")


def _pair_pages(folder: Path, rows: Sequence[GameRow], teams: dict[str, list[tuple[int, ...]]],
                names: Sequence[str], replays: dict[str, str], store_name: str, league: str) -> set[tuple[str, str]]:
    """One page per pair of entrants that met: their games (at most ``PAIR_GAMES``), each with its
    result in words and its replay page or the command that shows it."""
    wanted = set(names)
    games: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for g in rows:
        met = sorted({g.seats[t[0]] for t in teams[g.variant]} & wanted)
        for i, a in enumerate(met):
            for b in met[i + 1:]:
                counts[(a, b)] += 1
                if len(games[(a, b)]) < PAIR_GAMES:
                    games[(a, b)].append(g)
    (folder / "pairs").mkdir(exist_ok=True)
    for (a, b), gs in games.items():
        lines = []
        for g in gs:
            shown = (f'<a href="../{_e(replays[g.id])}">replay</a>' if g.id in replays
                     else f"<code>tute replay {_e(g.id)} --store {_e(store_name)}</code>")
            lines.append([_e(g.id), _e(g.variant), str(g.round),
                          _e(result_of(g.result, g.seats, teams[g.variant])), shown])
        more = (f'<p class="muted">The first {len(gs)} of {counts[(a, b)]} games; <code>tute games --entrant '
                f'{_e(a)} --store {_e(store_name)}</code> lists them all.</p>' if counts[(a, b)] > len(gs) else "")
        body = (f'<p><a href="../index.html">back to the report</a></p><h1>{_e(a)} and {_e(b)}</h1>'
                f'<p class="muted">{_e(league)}: {counts[(a, b)]} games together.</p>{more}'
                + _table(["game", "variant", "round", "result", "replay"], lines, "games", name_col=0))
        (folder / "pairs" / f"{_slug(a)}__{_slug(b)}.html").write_text(_page(f"{a} and {b}", body), encoding="utf-8")
    return set(games)


def _replays(store: Store, season: Season, count: int, folder: Path) -> list[tuple[GameRow, str]]:
    """Replay pages for the first game of the season's first ``count`` tables."""
    out: list[tuple[GameRow, str]] = []
    seen: set[tuple[str, str, int, int]] = set()
    for t in season.tournaments:
        for g in store.iter_games(t):
            if len(out) >= count:
                return out
            key = (g.tournament, g.variant, g.round, g.table)
            if key in seen:
                continue
            seen.add(key)
            rel = f"replays/{_slug(g.id)}.html"
            (folder / rel).write_text(replay_page(store.record(g.id), back="../index.html"), encoding="utf-8")
            out.append((g, rel))
    return out


def write_report(lg: League, out: str | Path, *, replays: int = 8) -> Path:
    """Write the report into ``out`` (``replays``: replay pages per season); returns index.html's path."""
    folder = Path(out)
    (folder / "replays").mkdir(parents=True, exist_ok=True)
    cfg, db = lg.cfg, lg.db
    k = cfg.rating.k
    seasons = [s for s in db.seasons() if s.finished is not None]
    current = standings(db, cfg)  # ranked among themselves
    gone = [s for s in standings(db, cfg, include_withdrawn=True) if not s.active]
    everyone = current + gone
    divisions = cfg.divisions > 1 or any((s.division or 1) > 1 for s in current)
    names = [s.entrant for s in current]
    histories = {s.entrant: history(db, cfg, s.entrant) for s in everyone}
    body = [f"<h1>{_e(cfg.name)}</h1>",
            f'<p class="muted">{len(seasons)} seasons, {len(current)} entrants'
            + (f", {len(gone)} withdrawn" if gone else "")
            + f'; generated {datetime.now().strftime("%Y-%m-%d %H:%M")}. Rating = mu − {k:g} σ pooled over the '
              f"variants (the table ranks by it); mu ± 2σ is the 95% interval of the skill; change since the "
              f"previous season; form = place in its division in its last seasons.</p>",
            "<h2>Standings</h2>", _standings_table(current, divisions, k)]
    if len(cfg.labels) > 1:
        for label in cfg.labels:
            lines = variant_table(db, label, current, k)
            body.append(f'<h3 id="variant-{_e(_slug(label))}">{_e(label)}</h3>')
            body.append(_table(["rank", "entrant", "rating", "mu ± 2σ", "games", "W-D-L"], [
                [str(i + 1), _e(v.entrant), f"{v.rating:.2f}", _interval(v.mu, v.sigma), str(v.games),
                 f"{v.wins}-{v.draws}-{v.losses}"] for i, v in enumerate(lines)], "variant"))
    if gone:
        body.append('<h2 id="withdrawn">Withdrawn</h2><p class="muted">No longer entered: their last rating, not '
                    'ranked.</p>')
        body.append(_table(["entrant", "version", "rating", "mu ± 2σ", "games", "W-D-L"], [
            [_e(s.entrant), str(s.version), f"{s.rating:.2f}", _interval(s.mu, s.sigma), str(s.games),
             f"{s.wins}-{s.draws}-{s.losses}"] for s in gone], "withdrawn", name_col=0))
    drawn = [s.entrant for s in sorted(everyone, key=lambda s: -s.rating)][:CHART_MAX]
    body += ["<h2>Ratings over the seasons</h2>",
             f'<p class="muted">Each line is an entrant\'s mu at the end of each season it played; the band '
             f"around it is mu ± 2σ.{f' The {CHART_MAX} best are drawn.' if len(everyone) > CHART_MAX else ''}"
             "</p>", rating_chart(histories, len(seasons), drawn), "<h2>Entrants</h2>"]
    versions = db.versions()
    for s in everyone:
        ent = db.entrant(s.entrant)
        mine = [v for v in versions if v.entrant == s.entrant]
        vlist = "".join(f"<li>v{v.version}: <code>{_e(public_bot(v))}</code> · sha256 {_e(v.plugin_hash[:12])} · "
                        f"{datetime.fromtimestamp(v.submitted).strftime('%Y-%m-%d')}</li>" for v in mine)
        body.append(f'<div class="entrant" id="entrant-{_e(_slug(s.entrant))}"><h3>{_e(s.entrant)}</h3>'
                    f'<div class="muted">owner {_e(ent.owner if ent else "?")}'
                    f'{"" if s.active else " · withdrawn"}</div><ul>{vlist}</ul></div>')
    with Store(cfg.store, readonly=True) as store:
        rows: list[GameRow] = []
        teams: dict[str, list[tuple[int, ...]]] = {}
        for season in seasons:
            scfg = lg.season_config(season)
            teams.update({v.label: [tuple(t) for t in v.variant.teams] for v in scfg.variants})
            for t in season.tournaments:
                rows.extend(store.iter_games(t))
        pages = {season.season: _replays(store, season, replays, folder) for season in seasons}
        written = {g.id: rel for ps in pages.values() for g, rel in ps}
        body.append("<h2>Head to head</h2>")
        if len(names) <= MATRIX_MAX:
            pairs = _pair_pages(folder, rows, teams, names, written, cfg.store.name, cfg.name)
            body += ['<p class="muted">Row\'s mean score against column over every season (1 win, 0.5 shared place, '
                     "0 loss) ± the half-width of its 95% interval; a cell opens the games of the pair.</p>",
                     _matrix(names, head_to_head(rows, teams), pairs)]
        else:
            body.append(f'<p class="muted">{len(names)} entrants: more than a matrix can show ({MATRIX_MAX}); '
                        f"<code>tute leaderboard --matrix</code> on a season's tournament gives it.</p>")
        body.append("<h2>Seasons</h2>")
        for season in reversed(seasons):
            table = standings(db, cfg, as_of=season.season)
            links = "".join(f'<li><a href="{_e(rel)}">{_e(" v ".join(g.units))}</a> '
                            f'<span class="muted">{_e(g.variant)}, round {g.round}, {_e(g.id)}</span></li>'
                            for g, rel in pages[season.season])
            when = datetime.fromtimestamp(season.started).strftime("%Y-%m-%d %H:%M")
            body.append(f'<h3 id="season-{season.season}">Season {season.season} '
                        f'<span class="muted">({when}, {len(season.tournaments)} division(s); games and W-D-L of this '
                        f'season)</span></h3>{_standings_table(table, divisions, k)}'
                        + (f"<details><summary>replays ({len(pages[season.season])})</summary><ul>{links}</ul>"
                           f"</details>" if links else ""))
    index = folder / "index.html"
    index.write_text(_page(f"{cfg.name}: league report", "".join(body)), encoding="utf-8")
    return index
