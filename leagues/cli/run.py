"""``tute run`` and ``tute leaderboard``: thin commands over config, runner, store and leaderboard."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from leagues.cli.exits import exit_if_all_forfeited, say_clocked, say_forfeits
from leagues.cli.options import cluster_address
from leagues.cli.records import exit_if_damaged, report_damaged
from leagues.tournament.config import (MATCH_FORMATS, WORKERS_PER_CPU, ConfigError, TournamentConfig, load_config,
                                       max_workers, parse_config)
from leagues.tournament.matches import monitor_of_store, summary_lines
from leagues.tournament.leaderboard import (FORMATS, all_tables, forfeit_watch, pick_tournament, render_all,
                                            tournament_status)
from leagues.tournament.runner import (FORFEIT_MISSING, Interrupted, RunError, StartError, clocked_warning,
                                      run_tournament)
from leagues.tournament.store import Store, StoreError
from leagues.tournament.terminal import per_second


def _user_error(message: str) -> NoReturn:
    from leagues.cli.main import UserError  # imported here: leagues.cli.main imports this module while it loads

    raise UserError(message)


def print_tables(store: Store, tournament: str, fmt: str = "plain", variant: str | None = None,
                 matrix: bool = False, recompute: bool = False) -> None:
    """The pooled table and one per variant (or the one ``variant``), in any format, each saying whether
    the tournament is final or partial (games played of planned). They come from the tally the store
    keeps (``recompute``: from every stored game)."""
    tables = all_tables(store, tournament, variant, matrix, recompute)
    text = render_all(tables, fmt, tournament, tournament_status(store, tournament), filtered=variant is not None)
    lines = match_summary(store, tournament)
    if fmt == "json":  # the games a bot's clock decided: the warning on stderr, and here for scripts
        data = json.loads(text)
        if lines:
            data["match"] = lines
        data["clocked_games"] = store.clocked_games(tournament)
        text = json.dumps(data, indent=2)
    elif lines and fmt != "csv":
        text += "\n\n" + "\n".join(lines)
    click.echo(text)


def match_summary(store: Store, tournament: str) -> list[str]:
    """A match's or gauntlet's summary (Elo, LOS, SPRT per pairing) from its stored config and games."""
    row = store.tournament(tournament)
    if row is None or row.config.get("format") not in MATCH_FORMATS:
        return []
    try:
        cfg = parse_config(TournamentConfig.data_of_identity(row.config), source=f"{store.path}: {tournament}",
                           bots=False)  # its bots need not be importable to read it
    except ConfigError as exc:
        return [f"(no match summary: {exc})"]
    return summary_lines(cfg, monitor_of_store(cfg, store.games(tournament)))


def _confirm_new(name: str, store_path: Path, yes: bool) -> None:
    """--new deletes a tournament's games: ask on a terminal, require --yes anywhere else."""
    if yes or not store_path.is_file():
        return
    with Store(store_path) as store:
        row = store.tournament(name)
        count = store.count_games(name) if row is not None else 0
    if row is None:
        return
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        _user_error(f"--new would delete the {count} stored games of {name!r} in {store_path}: "
                    "add --yes to do it without a terminal to ask on")
    if not click.confirm(f"delete the {count} stored games of {name!r} in {store_path} and start again?",
                         default=False, err=True):
        _user_error("--new: not confirmed; nothing deleted")


def register(cli: click.Group) -> None:
    """Attach ``run`` and ``leaderboard`` to the ``tute`` group."""

    @cli.command()
    @click.argument("tournament_toml", default="tournament.toml", required=False,
                    type=click.Path(dir_okay=False))
    @click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=None,
                  help="Worker processes (default: the config's workers, else one per CPU; at most "
                       f"{WORKERS_PER_CPU} per CPU, as the config's).")
    @click.option("--new", "--restart", "new", is_flag=True,
                  help="Delete this tournament's stored games and start it again (asks first; --yes).")
    @click.option("--yes", "-y", is_flag=True, help="With --new: delete without asking (needed off a terminal).")
    @click.option("--quiet", "-q", is_flag=True, help="No progress line.")
    @click.option("--matrix", is_flag=True, help="Also print the head-to-head matrix.")
    @click.option("--cluster", default=None, metavar="ADDRESS", callback=cluster_address,
                  help="Play on a Dask cluster: tcp://HOST:8786, or local:N worker processes here "
                       "(pip install -e '.[cluster]'; docs/cluster.md).")
    @click.option("--forfeit-missing", is_flag=True,
                  help="An entrant that does not start forfeits its games (said first) instead of refusing the "
                       "run: for a bot gone for good from a tournament half played.")
    def run(tournament_toml: str, workers: int | None, new: bool, yes: bool, quiet: bool, matrix: bool,
            cluster: str | None, forfeit_missing: bool) -> None:
        """Run (or resume) the tournament of TOURNAMENT_TOML and print its table.

        Games already in the store are skipped, so after Ctrl-C or a crash the same command resumes;
        a finished tournament just prints its table. A changed config under the same tournament name
        is refused unless --new.

        Exit status: 0 played (or finished earlier); 1 played, but stored games whose rows cannot be read
        are left out of the table (named after it); 2 a bad config, a bot that does not start (unless
        --forfeit-missing), a tournament another tute is running, --new refused; 3 played, but an entrant forfeited every
        deal (the table means nothing: see the forfeits above it); 130 interrupted (run again to resume).

        \b
        Example:
          tute run tournament.toml --workers 2
          tute run tournament.toml --new --yes --quiet
          tute run tournament.toml --cluster tcp://10.0.0.5:8786
        """
        try:
            cfg = load_config(tournament_toml)
        except ConfigError as exc:
            _user_error(str(exc))
        if new:
            _confirm_new(cfg.name, cfg.store, yes)
        try:
            summary = run_tournament(cfg, workers=workers, new=new, quiet=quiet, cluster=cluster,
                                     forfeit_missing=forfeit_missing)
        except StartError as exc:
            _user_error(f"{exc}; make it start, or give {FORFEIT_MISSING} to play its games as forfeits")
        except (RunError, StoreError) as exc:
            _user_error(str(exc))
        except Interrupted as exc:
            click.echo(f"tute: {exc}", err=True)
            sys.exit(130)
        except KeyboardInterrupt:  # the bots or the cluster starting: no game had begun
            click.echo(f"tute: interrupted before play began; run again to start {cfg.name}", err=True)
            sys.exit(130)
        if summary.already_finished:
            click.echo(f"{cfg.name}: finished earlier; its table from {cfg.store}:", err=True)
        else:
            click.echo(f"{cfg.name}: {summary.played} games played ({summary.skipped} already stored) in "
                       f"{summary.seconds:.1f} s, {per_second(summary.rate)} games/s; store {cfg.store}, log {cfg.log}",
                       err=True)
        try:
            with Store(cfg.store, readonly=True) as store:  # read only: a store gone is not made again
                print_tables(store, cfg.name, matrix=matrix)
                watch = forfeit_watch(store, cfg.name)
                clocked = clocked_warning(store, [cfg.name])
                damaged = report_damaged(store.damaged)  # games the table leaves out (it is then never kept)
        except StoreError as exc:  # the store's kept tables damaged by hand: one line, as the readers say it
            _user_error(str(exc))
        say_forfeits(watch)
        say_clocked(clocked)
        exit_if_all_forfeited(watch, "the table", cfg.log)
        exit_if_damaged(damaged)

    @cli.command()
    @click.option("--tournament", "-t", default=None, help="Tournament name (default: the latest stored).")
    @click.option("--variant", "-v", default=None, help="One variant's table (its label); default: all.")
    @click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="plain", show_default=True)
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
                  help="The store (default: the one ./tournament.toml names).")
    @click.option("--matrix", is_flag=True, help="Add the head-to-head score of every pair (95% interval).")
    @click.option("--recompute", is_flag=True,
                  help="Fold every stored game again instead of reading the tables the store keeps.")
    def leaderboard(tournament: str | None, variant: str | None, fmt: str, store_path: str | None,
                    matrix: bool, recompute: bool) -> None:
        """Print a stored tournament's table: rank by conservative rating mu - 3 sigma.

        \b
        Example:
          tute leaderboard --format github --matrix
          tute leaderboard --store runs/builtin.sqlite --variant tute-2 --format json
        """
        if store_path is None:
            if not Path("tournament.toml").is_file():
                _user_error("--store: no store given and no ./tournament.toml to find one")
            try:
                cfg = load_config("tournament.toml")
            except ConfigError as exc:
                _user_error(str(exc))
            path = cfg.store
            tournament = tournament or cfg.name
        else:
            path = Path(store_path)
        if not path.is_file():
            _user_error(f"{path}: no such store (run the tournament first)")
        try:
            with Store(path, readonly=True) as store:
                name = pick_tournament(store, tournament)
                print_tables(store, name, fmt, variant, matrix, recompute)
                damaged = report_damaged(store.damaged)
                clocked = clocked_warning(store, [name])
        except StoreError as exc:
            _user_error(str(exc))
        say_clocked(clocked)
        exit_if_damaged(damaged)
