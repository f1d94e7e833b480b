"""``tute league``: init, submit, withdraw, season, standings, history, report. Thin commands over
leagues/league/league.py; every refusal is one line on stderr and exit status 2, with nothing stored."""

from __future__ import annotations

import io
import json
import shlex
import sys
from dataclasses import asdict
from datetime import datetime
from typing import Any, Callable, NoReturn, Sequence, TypeVar

import click
from tabulate import tabulate

from arena.hosting import ISOLATIONS

from leagues.cli.exits import exit_if_all_forfeited, say_clocked, say_forfeits
from leagues.cli.options import cluster_address
from leagues.cli.records import exit_if_damaged, report_damaged
from leagues.cli.style import redraw
from leagues.league.config import LeagueConfig
from leagues.league.league import ComplianceRefused, League, LeagueError, init_league
from leagues.league.rating import HistoryRow, Standing, history, standings
from leagues.league.store import LeagueStoreError
from leagues.tournament.compliance import format_report
from leagues.tournament.config import WORKERS_PER_CPU, max_workers
from leagues.tournament.forfeits import ForfeitWatch
from leagues.tournament.leaderboard import CsvWriter, forfeit_watch, markdown_cell
from leagues.tournament.runner import Interrupted, RunError, clocked_warning
from leagues.tournament.store import Store, StoreError
from leagues.tournament.terminal import plural

FORMATS = ("plain", "github", "json", "csv")
F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> NoReturn:
    from leagues.cli.main import UserError  # imported here: leagues.cli.main imports this module while it loads

    raise UserError(message)


def _league_option(f: F) -> F:
    return click.option("--league", "-l", "league_path", default=".", show_default=True,
                        type=click.Path(file_okay=True, dir_okay=True),
                        help="The league's folder, or its league.toml.")(f)


def _open(path: str) -> League:
    try:
        return League.open(path)
    except (LeagueError, LeagueStoreError) as exc:
        _fail(str(exc))


@click.group()
def league() -> None:
    """Leagues: bots submitted over time, seasons played on demand, ratings that carry over.

    \b
    Example (a league of the built-in bots):
      tute league init club
      tute league submit greedy greedy -l club
      tute league submit rand random -l club --params '{"seed": 1}'
      tute league season -l club
      tute league standings -l club
      tute league report -l club --out club/report
    """


@league.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--name", default=None, help="The league's name (default: the folder's name).")
def init(directory: str, name: str | None) -> None:
    """Make DIRECTORY a league: write its league.toml (the usual keys at their defaults) and its store.

    \b
    Example:
      tute league init club --name chess-club-tute
    """
    try:
        path = init_league(directory, name)
    except (LeagueError, LeagueStoreError) as exc:
        _fail(str(exc))
    click.echo(f"wrote {path}; next: tute league submit NAME BOT -l {shlex.quote(directory)}")


@league.command()
@click.argument("name")
@click.argument("bot")
@_league_option
@click.option("--owner", default=None, help="Who submits it (default: the user name).")
@click.option("--params", default="{}", help="The bot's keyword parameters as a JSON object.")
@click.option("--isolation", type=click.Choice(ISOLATIONS), default="auto", show_default=True,
              help="auto: tute-arena's own bots in-process, other bots in a subprocess.")
@click.option("--update", is_flag=True, help="A new version of an entrant already in the league.")
def submit(name: str, bot: str, league_path: str, owner: str | None, params: str, isolation: str,
           update: bool) -> None:
    """Enter BOT into the league as NAME, after it passes the compliance run of `tute bots check`.

    BOT is an installed entry point, module:Class, or a command (quoted; a string holding whitespace,
    or starting with ./, ../, / or ~). The league records the owner, the bot, its parameters and a hash of its
    files; submitting NAME again with --update after changing the bot makes a new version.

    \b
    Example:
      tute league submit alice "python3 bots/alice.py" --owner alice
      tute league submit alice "python3 bots/alice.py" --owner alice --update
    """
    from leagues.cli.main import json_object  # the CLI's main module registers this one as it loads

    kwargs = json_object(params, f"--params {params[:80]!r}")
    with _open(league_path) as lg:
        try:
            show = redraw(sys.stderr)  # a refusal stays one line on a redirected stderr
            done = lg.submit(name, bot, owner=owner, params=kwargs, isolation=isolation, update=update,
                             progress=(lambda v: click.echo(f"checking {v}...", err=True)) if show else None)
        except ComplianceRefused as exc:
            for line in format_report(exc.report, lg.cfg.check_reproducible):
                click.echo(line)
            _fail(str(exc))
        except (LeagueError, LeagueStoreError) as exc:
            _fail(str(exc))
    v = done.version
    checked = "" if done.report is None else \
        f"; passed the compliance run ({sum(r.deals for r in done.report.variants)} deals)"
    what = f"new version {v.version}" if done.what == "new version" else f"{done.what}, version {v.version}"
    click.echo(f"{name}: {what} ({v.bot_text}, owner {v.owner}, "
               f"{plural(len(v.files), 'file')}, sha256 {v.plugin_hash[:12]}){checked}")


@league.command()
@click.argument("name")
@_league_option
def withdraw(name: str, league_path: str) -> None:
    """Take NAME out of the seasons to come; its games and history stay.

    \b
    Example:
      tute league withdraw alice
    """
    with _open(league_path) as lg:
        try:
            lg.withdraw(name)
        except (LeagueError, LeagueStoreError) as exc:
            _fail(str(exc))
    click.echo(f"{name}: withdrawn (submit it again with --update to re-enter)")


@league.command()
@_league_option
@click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=None,
              help=f"Worker processes (default: league.toml's workers, else one per CPU; at most "
                   f"{WORKERS_PER_CPU} per CPU).")
@click.option("--cluster", default=None, metavar="ADDRESS", callback=cluster_address,
              help="Play on a Dask cluster: tcp://HOST:8786 or local:N (docs/cluster.md).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
@click.option("--forfeit-missing", is_flag=True,
              help="In a season under way, an entrant that no longer starts forfeits its games left (said "
                   "first) instead of stopping the season: for a bot gone for good.")
def season(league_path: str, workers: int | None, cluster: str | None, quiet: bool, forfeit_missing: bool) -> None:
    """Play the next season (a tournament of every active entrant), or finish one under way.

    After Ctrl-C or a crash the same command resumes the season, skipping stored games; the
    season ends as an uninterrupted one would. Then the standings are printed.

    \b
    Example:
      tute league season -l club --workers 2
    """
    with _open(league_path) as lg:
        try:
            done, summaries = lg.play_season(workers=workers, quiet=quiet, cluster=cluster,
                                             forfeit_missing=forfeit_missing)
        except (LeagueError, LeagueStoreError, RunError, StoreError) as exc:
            _fail(str(exc))
        except Interrupted:
            click.echo("tute: interrupted: the games played are stored; run tute league season again to finish "
                       "the season", err=True)
            sys.exit(130)
        played = sum(s.played for s in summaries)
        skipped = sum(s.skipped for s in summaries)
        secs = sum(s.seconds for s in summaries)
        click.echo(f"{lg.cfg.name}: season {done.season} finished: {played} games played ({skipped} already "
                   f"stored) in {secs:.1f} s; store {lg.cfg.store}", err=True)
        try:
            table = standings(lg.db, lg.cfg)
        except LeagueStoreError as exc:
            _fail(str(exc))
        watch = _season_forfeits(lg, done.tournaments)
        with Store(lg.cfg.store) as store:
            clocked = clocked_warning(store, done.tournaments, lg.limit_setting)
        _print_standings(lg, table, "plain", f"{lg.cfg.name}: standings after season {done.season}",
                         forfeits={name: e.forfeits for name, e in watch.entrants.items()})
        say_forfeits(watch)  # as tute run says them: the summary, then exit 3 if one forfeited every deal
        say_clocked(clocked)
        exit_if_all_forfeited(watch, "the season's table", lg.cfg.log)


def _season_forfeits(lg: League, tournaments: Sequence[str]) -> ForfeitWatch:
    """Every forfeit of the season's division tournaments, as ``tute run`` counts a tournament's."""
    watch = ForfeitWatch()
    with Store(lg.cfg.store) as store:
        for t in tournaments:  # divisions have distinct entrants
            watch.entrants.update(forfeit_watch(store, t).entrants)
    return watch


def _season_ks(lg: League) -> dict[int, float]:
    """Each season's k, by the league.toml it started with; a season whose stored copy today's checks
    refuse (a combination of options refused since) reads by today's k rather than stop every history."""
    ks = {}
    for season in lg.db.seasons():
        try:
            ks[season.season] = lg.season_config(season).rating.k
        except LeagueError:
            pass
    return ks


def _signed(x: float | None) -> str:
    if x is None:
        return "new"
    text = f"{x:+.2f}"
    return "+0.00" if text == "-0.00" else text  # a change too small to show is no loss


def _print_standings(lg: League, table: Sequence[Standing], fmt: str, title: str,
                     season_only: bool = False, forfeits: dict[str, int] | None = None,
                     cfg: LeagueConfig | None = None) -> None:
    """``forfeits``: the season just played's, per entrant, shown in a column (after ``season``).
    ``cfg``: the league.toml the table was made with (a past season's own), else today's."""
    cfg = cfg or lg.cfg
    if fmt == "json":
        click.echo(json.dumps({"title": title, "standings": [asdict(s) for s in table]}, indent=2))
        return
    labels = list(dict.fromkeys(label for s in table for label in s.variants))
    show_variants = len(labels) > 1
    show_div = cfg.divisions > 1 or any((s.division or 1) > 1 for s in table)
    headers = ["rank", "entrant", "version"] + (["division", "next"] if show_div else []) + \
        ["rating", "change", "mu", "sigma"] + (labels if show_variants else []) + \
        ["games", "W-D-L", "form"] + (["forfeits"] if forfeits is not None else [])
    rows = []
    for s in table:
        name = s.entrant + ("" if s.active else " (withdrawn)") + ("" if s.played else " *")
        row: list[Any] = [s.rank, name, s.version]
        if show_div:
            row += [s.division or "-", _move(s)]
        row += [f"{s.rating:.2f}", _signed(s.change), f"{s.mu:.2f}", f"{s.sigma:.2f}"]
        if show_variants:
            row += [f"{s.variants[x]:.2f}" if x in s.variants else "" for x in labels]
        row += [s.games, f"{s.wins}-{s.draws}-{s.losses}", " ".join(map(str, s.form))]
        if forfeits is not None:
            row.append(forfeits.get(s.entrant, 0))
        rows.append(row)
    if fmt == "csv":
        buf = io.StringIO()
        w = CsvWriter(buf)  # a name never starts a formula there
        w.writerow(headers)
        w.writerows(rows)
        click.echo(buf.getvalue().rstrip("\n"))
        return
    if fmt == "github":  # a name is text there: no HTML, no emphasis, no cell border
        title = markdown_cell(title)
        rows = [[markdown_cell(c) for c in row] for row in rows]
        headers = [markdown_cell(h) for h in headers]
    click.echo(title)
    click.echo(tabulate(rows, headers=headers, tablefmt="github" if fmt == "github" else "simple",
                        disable_numparse=True))
    if any(not s.played for s in table):
        click.echo("* not played yet: the rating it starts its first season from")
    games = "the season's" if season_only else "the current version's, all seasons"
    click.echo(f"rating = mu - {cfg.rating.k:g} sigma, over all variants; games, W-D-L: {games}; "
               f"form = place in its division in each of its last seasons, oldest first"
               + ("; forfeits: deals forfeited in this season" if forfeits is not None else ""))


def _move(s: Standing) -> str:
    if s.division is None or s.next_division is None or s.next_division == s.division:
        return ""
    return "up" if s.next_division < s.division else "down"


@league.command("standings")
@_league_option
@click.option("--season", "as_of", type=click.IntRange(1), default=None,
              help="The table after this season (default: now).")
@click.option("--all", "include_withdrawn", is_flag=True, help="Withdrawn entrants too.")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="plain", show_default=True)
def standings_cmd(league_path: str, as_of: int | None, include_withdrawn: bool, fmt: str) -> None:
    """The league table: each entrant's rating (mu - 3 sigma) pooled and per variant, the change since
    the previous season, its current version's games and W-D-L, and its form.

    \b
    Example:
      tute league standings -l club
      tute league standings -l club --season 2 --format json
    """
    with _open(league_path) as lg:
        try:
            finished = [s.season for s in lg.db.seasons() if s.finished is not None]
            if as_of is not None and as_of not in finished:
                _fail(f"--season {as_of}: not a finished season of {lg.cfg.name!r} "
                      f"(finished: {', '.join(map(str, finished)) or 'none'})")
            # a past season's table by the league.toml it started with: an edit applies from the next
            cfg = lg.cfg if as_of is None else lg.season_config(next(s for s in lg.db.seasons() if s.season == as_of))
            table = standings(lg.db, cfg, as_of=as_of, include_withdrawn=include_withdrawn)
        except (LeagueError, LeagueStoreError) as exc:  # a damaged store: its one line, not a traceback
            _fail(str(exc))
        upto = as_of if as_of is not None else (max(finished) if finished else 0)
        title = f"{lg.cfg.name}: standings after season {upto}" if upto else \
            f"{lg.cfg.name}: standings before the first season"
        _print_standings(lg, table, fmt, title, season_only=as_of is not None, cfg=cfg)


@league.command("history")
@click.argument("name")
@_league_option
@click.option("--format", "-f", "fmt", type=click.Choice(("plain", "json")), default="plain", show_default=True)
def history_cmd(name: str, league_path: str, fmt: str) -> None:
    """NAME's versions (who, what, when, file hash) and every season it played: version, division,
    place, rating at the start and the end, change, games and W-D-L.

    \b
    Example:
      tute league history alice
    """
    with _open(league_path) as lg:
        try:
            ent = lg.entrant(name)
            versions = lg.db.versions(name)
            rows = history(lg.db, lg.cfg, name, _season_ks(lg))
        except (LeagueError, LeagueStoreError) as exc:
            _fail(str(exc))
    if fmt == "json":
        click.echo(json.dumps({"entrant": asdict(ent), "versions": [asdict(v) for v in versions],
                               "seasons": [asdict(r) for r in rows]}, indent=2))
        return
    state = "active" if ent.active else f"withdrawn {_date(ent.withdrawn)}"
    click.echo(f"{name}: owner {ent.owner}, entered {_date(ent.entered)}, {state}")
    click.echo(tabulate([[v.version, _date(v.submitted), v.owner, v.bot_text, json.dumps(v.params, sort_keys=True),
                          v.kind, v.plugin_hash[:12], len(v.files)] for v in versions],
                        headers=["version", "submitted", "owner", "bot", "params", "kind", "sha256", "files"],
                        disable_numparse=True))
    click.echo()
    click.echo(_history_table(rows) if rows else "no season played yet")


def _history_table(rows: Sequence[HistoryRow]) -> str:
    labels = list(dict.fromkeys(label for r in rows for label in r.variants))
    many = len(labels) > 1
    out = [[r.season, r.version, r.division, r.place if r.place is not None else "", f"{r.prior:.2f}",
            f"{r.rating:.2f}", _signed(r.change), f"{r.mu:.2f}", f"{r.sigma:.2f}"]
           + ([f"{r.variants[x]:.2f}" if x in r.variants else "" for x in labels] if many else [])
           + [r.games, f"{r.wins}-{r.draws}-{r.losses}"] for r in rows]
    return tabulate(out, headers=["season", "version", "division", "place", "start", "rating", "change", "mu",
                                  "sigma"] + (labels if many else []) + ["games", "W-D-L"], disable_numparse=True)


def _date(t: float | None) -> str:
    return "" if t is None else datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


@league.command()
@_league_option
@click.option("--out", "-o", "out", required=True, type=click.Path(file_okay=False),
              help="The folder to write the report into (index.html, pairs/ and replays/).")
@click.option("--replays", default=8, show_default=True, type=click.IntRange(0),
              help="Replay pages per season (the first game of its first tables, the variants taking turns); "
                   "0 for none. The pair pages give the `tute replay` command for every other game.")
def report(league_path: str, out: str, replays: int) -> None:
    """Write a static HTML report: standings (pooled and per variant, with intervals), every entrant's
    rating over the seasons in one chart, the head-to-head matrix (each cell opens the pair's games),
    the seasons and a few replay pages. Open OUT/index.html in any browser, no server needed.

    \b
    Example:
      tute league report -l club --out club/report
    """
    from leagues.league.report import write_report

    damaged: dict[str, str] = {}
    with _open(league_path) as lg:
        try:
            index = write_report(lg, out, replays=replays, damaged=damaged)
        except OSError as exc:
            _fail(f"{out}: cannot write the report: {exc.strerror or exc}")
        except (LeagueError, LeagueStoreError, StoreError) as exc:
            _fail(str(exc))
    click.echo(f"wrote {index}")
    exit_if_damaged(report_damaged(damaged))  # the games its pages leave out, as every reader says them


def register(cli: click.Group) -> None:
    """Attach the ``league`` group to the ``tute`` command."""
    cli.add_command(league)
