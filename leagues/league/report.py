"""``tute league report``: a folder of static HTML, readable from disk with no server and no network.

``index.html`` holds the standings, one section per entrant (its versions and its rating history as an
inline SVG chart), the head-to-head matrix over every season, and one section per season (its table and
links to replays); ``replays/`` holds self-contained replay pages (leagues.records.replay_html) for the first
games of each table. All charts share one vertical scale, so two entrants' lines compare at a glance.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Sequence

from leagues.tournament.leaderboard import HeadToHead, head_to_head
from leagues.league.league import League
from leagues.league.rating import HistoryRow, Standing, history, standings
from leagues.league.store import Season
from leagues.records.replay_html import replay_page
from leagues.tournament.store import GameRow, Store

_CSS = """
body{font-family:system-ui,sans-serif;margin:0;padding:16px 24px;color:#1d2330;background:#fafafa}
h1{margin:0 0 4px}h2{margin-top:28px;border-bottom:2px solid #0b5d2a;padding-bottom:2px}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}
th{background:#0b5d2a;color:#fff}td.name,th.name{text-align:left}
.entrant{display:inline-block;vertical-align:top;margin:8px 16px 8px 0;padding:8px 12px;background:#fff;
 border:1px solid #ddd;border-radius:8px}
.entrant h3{margin:0 0 4px}.muted{color:#777}.up{color:#1a7f37}.down{color:#b42318}
td.h2h{font-variant-numeric:tabular-nums}
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def _signed(x: float | None) -> str:
    if x is None:
        return '<span class="muted">new</span>'
    cls = "up" if x > 0 else "down" if x < 0 else "muted"
    return f'<span class="{cls}">{x:+.2f}</span>'


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def chart(name: str, rows: Sequence[HistoryRow], seasons: int, low: float, high: float) -> str:
    """An inline SVG line of the entrant's pooled conservative rating at each season's end; a filled
    dot marks the first season of each version."""
    w, h, left, right, top, bottom = 360, 150, 40, 26, 14, 26
    if not rows:
        return f'<svg id="chart-{_e(_slug(name))}" width="{w}" height="40" role="img"><text x="4" y="24" ' \
               f'font-size="12">no season played yet</text></svg>'
    span = max(high - low, 1e-9)

    def x(season: int) -> float:
        return left + (w - left - right) * ((season - 1) / max(1, seasons - 1) if seasons > 1 else 0.5)

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - low) / span)

    parts = [f'<svg id="chart-{_e(_slug(name))}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="rating history of {_e(name)}">',
             f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" fill="#fff" '
             f'stroke="#ccc"/>']
    for v in (low, (low + high) / 2, high):
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" font-size="10" text-anchor="end">{v:.1f}</text>')
    for s in range(1, seasons + 1):
        parts.append(f'<text x="{x(s):.1f}" y="{h - 10}" font-size="10" text-anchor="middle">s{s}</text>')
    points = " ".join(f"{x(r.season):.1f},{y(r.rating):.1f}" for r in rows)
    parts.append(f'<polyline points="{points}" fill="none" stroke="#0b5d2a" stroke-width="2"/>')
    seen: set[int] = set()
    for r in rows:
        first = r.version not in seen
        seen.add(r.version)
        fill = "#b42318" if first and r.version > 1 else "#0b5d2a"
        parts.append(f'<circle cx="{x(r.season):.1f}" cy="{y(r.rating):.1f}" r="{4 if first else 3}" fill="{fill}">'
                     f'<title>season {r.season}, version {r.version}: {r.rating:.2f}</title></circle>')
        if first and r.version > 1:
            parts.append(f'<text x="{x(r.season) + 5:.1f}" y="{y(r.rating) - 6:.1f}" font-size="10" '
                         f'fill="#b42318">v{r.version}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _standings_table(table: Sequence[Standing], labels: Sequence[str], divisions: bool) -> str:
    head = ["rank", "entrant", "version"] + (["division"] if divisions else []) + ["rating", "change", "mu",
                                                                                   "sigma", *labels,
                                                                                   "games", "W-D-L", "form"]
    out = ['<table class="standings"><tr>' + "".join(
        f'<th class="{"name" if c == "entrant" else ""}">{_e(c)}</th>' for c in head) + "</tr>"]
    for s in table:
        note = "" if s.active else ' <span class="muted">(withdrawn)</span>'
        note += "" if s.played else ' <span class="muted">(not played yet)</span>'
        cells = [str(s.rank), f'<a href="#entrant-{_e(_slug(s.entrant))}">{_e(s.entrant)}</a>{note}', str(s.version)]
        if divisions:
            cells.append(_e(s.division or "-"))
        cells += [f"{s.rating:.2f}", _signed(s.change), f"{s.mu:.2f}", f"{s.sigma:.2f}"]
        cells += [f"{s.variants[x]:.2f}" if x in s.variants else "" for x in labels]
        cells += [str(s.games), f"{s.wins}-{s.draws}-{s.losses}", _e(" ".join(map(str, s.form)))]
        out.append("<tr>" + "".join(f'<td class="{"name" if i == 1 else ""}">{c}</td>' for i, c in enumerate(cells))
                   + "</tr>")
    out.append("</table>")
    return "".join(out)


def _shade(score: float) -> str:
    """White at an even score, greener above, redder below."""
    t = min(1.0, abs(score - 0.5) * 2)
    if score >= 0.5:
        return f"rgb({255 - int(110 * t)},{255 - int(40 * t)},{255 - int(110 * t)})"
    return f"rgb({255 - int(20 * t)},{255 - int(120 * t)},{255 - int(120 * t)})"


def _matrix(names: Sequence[str], h2h: dict[tuple[str, str], HeadToHead]) -> str:
    out = ['<table class="h2h"><tr><th class="name">vs</th>' + "".join(f"<th>{_e(n)}</th>" for n in names) + "</tr>"]
    for a in names:
        cells = []
        for b in names:
            x = h2h.get((a, b))
            if a == b or x is None:
                cells.append('<td class="h2h muted">-</td>' if a != b else "<td></td>")
                continue
            colour = _shade(x.score)
            cells.append(f'<td class="h2h" style="background:{colour}" title="{_e(a)} against {_e(b)}: '
                         f'{x.score:.3f} ± {x.half_width:.3f} over {x.blocks} deals">{x.score:.2f}</td>')
        out.append(f'<tr><td class="name">{_e(a)}</td>{"".join(cells)}</tr>')
    out.append("</table>")
    return "".join(out)


def _replays(store: Store, season: Season, per_table: int, folder: Path) -> list[tuple[GameRow, str]]:
    """Write the first ``per_table`` games of each table of the season as replay pages."""
    if per_table == 0:
        return []
    count: dict[tuple[str, str, int, int], int] = defaultdict(int)
    out = []
    for t in season.tournaments:
        for g in store.games(t):
            key = (g.tournament, g.variant, g.round, g.table)
            if count[key] >= per_table:
                continue
            count[key] += 1
            rel = f"replays/{_slug(g.id)}.html"
            (folder / rel).write_text(replay_page(store.record(g.id)), encoding="utf-8")
            out.append((g, rel))
    return out


def write_report(lg: League, out: str | Path, *, replays_per_table: int = 1) -> Path:
    """Write the report into ``out``; returns the path of index.html."""
    folder = Path(out)
    (folder / "replays").mkdir(parents=True, exist_ok=True)
    cfg, db = lg.cfg, lg.db
    seasons = [s for s in db.seasons() if s.finished is not None]
    current = standings(db, cfg, include_withdrawn=True)
    labels = list(dict.fromkeys(x for s in current for x in s.variants))
    labels = labels if len(labels) > 1 else []
    divisions = cfg.divisions > 1 or any((s.division or 1) > 1 for s in current)
    names = [s.entrant for s in current]
    histories = {n: history(db, cfg, n) for n in names}
    values = [r.rating for rows in histories.values() for r in rows] or [0.0]
    low, high = min(values), max(values)
    pad = max(1.0, (high - low) * 0.08)
    low, high = low - pad, high + pad
    body = [f"<h1>{_e(cfg.name)}</h1>",
            f'<p class="muted">{len(seasons)} seasons, {len(names)} entrants; generated '
            f'{datetime.now().strftime("%Y-%m-%d %H:%M")}. Rating = mu - {cfg.rating.k:g} sigma pooled over the '
            f'variants; change since the previous season; form = place in its division in its last seasons.</p>',
            "<h2>Standings</h2>", _standings_table(current, labels, divisions), "<h2>Entrants</h2>"]
    versions = db.versions()
    for s in current:
        ent = db.entrant(s.entrant)
        mine = [v for v in versions if v.entrant == s.entrant]
        vlist = "".join(f"<li>v{v.version}: {_e(v.bot_text)} · sha256 {_e(v.plugin_hash[:12])} · "
                        f"{datetime.fromtimestamp(v.submitted).strftime('%Y-%m-%d')}</li>" for v in mine)
        body.append(f'<div class="entrant" id="entrant-{_e(_slug(s.entrant))}"><h3>{_e(s.entrant)}</h3>'
                    f'<div class="muted">owner {_e(ent.owner if ent else "?")}'
                    f'{"" if s.active else ", withdrawn"}</div><ul>{vlist}</ul>'
                    f'{chart(s.entrant, histories[s.entrant], len(seasons), low, high)}</div>')
    with Store(cfg.store) as store:
        rows: list[GameRow] = []
        teams: dict[str, list[tuple[int, ...]]] = {}
        for season in seasons:
            scfg = lg.season_config(season)
            teams.update({v.label: [tuple(t) for t in v.variant.teams] for v in scfg.variants})
            for t in season.tournaments:
                rows.extend(store.games(t))
        body += ["<h2>Head to head</h2>", "<p class=\"muted\">Row's mean score against column over every "
                 "season (1 win, 0.5 shared place, 0 loss); hover for the 95% interval.</p>",
                 _matrix(names, head_to_head(rows, teams)), "<h2>Seasons</h2>"]
        for season in reversed(seasons):
            table = standings(db, cfg, as_of=season.season)
            pages = _replays(store, season, replays_per_table, folder)
            links = "".join(f'<li><a href="{_e(rel)}">{_e(" v ".join(g.units))}</a> '
                            f'<span class="muted">{_e(g.variant)}, round {g.round}, {_e(g.id)}</span></li>'
                            for g, rel in pages)
            when = datetime.fromtimestamp(season.started).strftime("%Y-%m-%d %H:%M")
            body.append(f'<h3 id="season-{season.season}">Season {season.season} '
                        f'<span class="muted">({when}, {len(season.tournaments)} division(s); games and W-D-L of this '
                        f'season)</span></h3>'
                        f'{_standings_table(table, labels, divisions)}'
                        + (f"<details><summary>replays ({len(pages)})</summary><ul>{links}</ul></details>"
                           if pages else ""))
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(cfg.name)}: league report'
            f"</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")
    index = folder / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
