"""``tute games``, ``replay``, ``verify``, ``export``, ``import``: finding, watching, checking and moving
recorded games."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, NoReturn, ParamSpec

import click
from tabulate import tabulate

from arena import GameRecord, ReplayError, Variant, replay as verify_record
from arena.matchplay import MatchRecord

from leagues.cli.style import colour as use_colour
from leagues.records.archive import (ArchiveError, ImportResult, export, import_records, is_header, open_text,
                                     parse_line, read_lines, replayed, tournament_name_problem, verify)
from leagues.tournament.config import ConfigError, load_config, store_clash
from leagues.records.replay_html import replay_page
from leagues.records.replay_text import print_replay
from leagues.records.wording import result_of
from leagues.tournament.leaderboard import kept_tables_agree, pick_tournament, stored_variants
from leagues.tournament.store import Store, StoreError
from leagues.tournament.tally import kept
from leagues.tournament.terminal import plural


P = ParamSpec("P")


class RecordsError(click.ClickException):
    exit_code = 2


def fail(message: str) -> NoReturn:
    raise RecordsError(message)


def read_jsonl(path: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for each record line of a JSON-lines file (headers skipped); a line
    that is not JSON is an error naming it."""
    try:
        fh = open_text(path)
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    with fh:
        try:
            for lineno, line in read_lines(fh, path):
                if not line.strip():
                    continue
                try:
                    data = parse_line(line)
                except ValueError as exc:
                    fail(f"{path}:{lineno}: not a game record: {exc}")
                if not is_header(data):
                    yield lineno, data
        except ArchiveError as exc:
            fail(exc.problems[0])


def record_from_file(path: str, index: int) -> GameRecord:
    """Record ``index`` of a file, checked as ``tute import`` checks a line (it reads and replays), so
    a record import refuses is refused here too, by one line naming the file and line."""
    for k, (lineno, data) in enumerate(read_jsonl(path)):
        if k == index:
            try:
                rec = replayed(data)
            except ReplayError as exc:
                fail(f"{path}:{lineno}: the record is not true to the rules: {exc}")
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                fail(f"{path}:{lineno}: not a game record: {exc!r}"[:400])
            if isinstance(rec, MatchRecord):
                fail(f"{path}:{lineno}: a match of {len(rec.deals)} deals, not a game record (import it and "
                     f"replay its deals by id: ID/d0, ID/d1, ...)")
            return rec
    fail(f"{path}: no record at --index {index}")


def store_path_of(store_path: str | None, must_exist: bool = True) -> Path:
    """--store, or the store ./tournament.toml names."""
    if store_path is None:
        if not Path("tournament.toml").is_file():
            fail("--store: no store given and no ./tournament.toml to find one")
        try:
            path = load_config("tournament.toml").store
        except ConfigError as exc:
            fail(str(exc))
    else:
        path = Path(store_path)
    if must_exist and not path.is_file():
        fail(f"{path}: no such store (run a tournament first, or give --store)")
    return path


#: the exit status of a reader that printed what it could but left out stored games it could not read
#: (as ``tute verify``'s 1 for a wrong record): a script must not take a short table or file for a whole one
EXIT_DAMAGED = 1


def report_damaged(damaged: Mapping[str, str]) -> int:
    """Name every stored game whose row could not be read (and was left out; ``Store.damaged``), one line
    each; how many."""
    for gid, why in sorted(damaged.items()):
        click.echo(f"warning: game {gid}: its stored row cannot be read and is left out ({why})", err=True)
    return len(damaged)


def exit_if_damaged(count: int) -> None:
    """After a reader's output: the games it left out (``report_damaged``) said in its exit status."""
    if count:
        click.echo(f"tute: error: {plural(count, 'stored game')} could not be read and "
                   f"{'were' if count != 1 else 'was'} left out (named above)", err=True)
        sys.exit(EXIT_DAMAGED)


def store_errors(command: Callable[P, None]) -> Callable[P, None]:
    """A command's StoreError (a damaged store found by whichever read meets it first: a config, an
    entrant's row, a kept table, a record) becomes its one-line error with exit status 2."""
    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            command(*args, **kwargs)
        except StoreError as exc:
            fail(str(exc))
    return run


def open_store(store_path: str | None, must_exist: bool = True) -> Store:
    """The store a command names; a reader's (``must_exist``) read-only, so it never writes and a store
    on read-only media opens too."""
    try:
        return Store(store_path_of(store_path, must_exist), readonly=must_exist)
    except StoreError as exc:
        fail(str(exc))


def step_pause(hint: str) -> bool:
    """Wait for the reader after a trick: Enter goes on; q, or input closed (Ctrl-D, a pipe that
    ended), stops the replay quietly, exit status 0."""
    click.echo(hint, nl=False, err=True)
    line = sys.stdin.readline()
    if not line:
        click.echo("", err=True)
        return False
    return line.strip().lower() not in ("q", "quit")


def written_apart(option: str, out: str, what: str, store: Path | None = None, source: str | None = None) -> None:
    """Refuse a file to write (``--html``, ``--out``) that is no name, or is what the command reads: the
    store (or SQLite's files and the run's locks beside it) or the records file; written over, every
    game in it was lost, with exit status 0."""
    if not out:
        fail(f"{option}: give a file name")
    if source is not None and Path(out).resolve() == Path(source).resolve():
        fail(f"{option} {out}: the file the records are read from; name another")
    if store is not None:
        problem = store_clash(Path(out), store, what)
        if problem is not None:
            fail(f"{option} {problem}")


def show_record(rec: GameRecord, seat: int | None, lang: str, long_names: bool, step: bool, html_out: str | None) -> None:
    if seat is not None and not 0 <= seat < len(rec.seats):
        fail(f"--seat {seat}: the game has seats 0 to {len(rec.seats) - 1}")
    try:
        verify_record(rec)  # a replay shows only what the referee confirms
        if html_out:
            try:
                Path(html_out).write_text(replay_page(rec, seat, lang), encoding="utf-8")
            except OSError as exc:
                fail(f"--html {html_out}: {exc.strerror or exc}")
            click.echo(f"wrote {html_out}")
            return
        colour = use_colour(sys.stdout)
        pause = step_pause if step else None
        # click strips colour from a pipe unless told: --color always must reach a pager or a file
        print_replay(rec, seat, lang, long_names, colour, lambda text: click.echo(text, color=colour), pause)
    except ReplayError as exc:
        fail(f"game {rec.id}: the record is not true to the rules: {exc}")


def export_to_file(store: Store, out: str, tournament: str | None) -> int:
    """Export into ``out`` through a file beside it, renamed over ``out`` only once complete: an export
    that fails half-way (a damaged store, a full disk) leaves an earlier file of that name whole. A
    target that is not a regular file (a pipe, /dev/stdout) is written directly, never replaced."""
    target = Path(os.path.realpath(out))
    if target.exists() and not target.is_file():
        with open_text(out, "wt") as fh:
            return export(store, fh, tournament)
    part = target.with_name(f".{target.name}.{os.getpid()}.part" + (".gz" if out.endswith(".gz") else ""))
    try:
        with open_text(part, "xt") as fh:
            n = export(store, fh, tournament)
        os.replace(part, target)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return n


STORE_HELP = "The results store (default: the one ./tournament.toml names)."


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option("--tournament", "-t", help="Only this tournament.")
    @click.option("--entrant", "-e", help="Only games this entrant played.")
    @click.option("--variant", "-v", help="Only this variant (its label).")
    @click.option("--forfeits", is_flag=True, help="Only games that ended by a forfeit.")
    @click.option("--limit", "-n", type=click.IntRange(0), default=50, show_default=True, help="0: all.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help=STORE_HELP)
    @store_errors
    def games(tournament: str | None, entrant: str | None, variant: str | None, forfeits: bool, limit: int,
              store_path: str | None) -> None:
        """List stored games, one line each: id, variant, seats, points, and what happened in words.

        \b
        Example:
          tute games --entrant greedy --variant tute-2 --limit 20
          tute games --forfeits
        """
        with open_store(store_path) as store:
            if tournament is not None:
                pick_tournament(store, tournament)  # a name not stored is an error, as every reader says it
            rows = store.games(tournament, variant=variant, entrant=entrant, forfeits=forfeits, limit=limit)
            total = store.count_games(tournament, variant=variant, entrant=entrant, forfeits=forfeits) \
                if limit and len(rows) == limit else len(rows)
            damaged = report_damaged(store.damaged)
            variants: dict[str, dict[str, Variant]] = {}
            table = []
            for g in rows:
                if g.tournament not in variants:
                    variants[g.tournament] = stored_variants(store, g.tournament)
                v = variants[g.tournament].get(g.variant)
                sides = v.teams if v is not None else [(s,) for s in range(len(g.seats))]
                table.append([g.id, g.variant, " ".join(g.seats), " ".join(map(str, g.result.points)),
                              result_of(g.result, g.seats, sides, limit=v.over_points_loses if v is not None else 0)])
        if table:
            click.echo(tabulate(table, headers=["id", "variant", "seats", "points", "result"]))
        else:  # a filter that matches nothing says so, rather than print a table's head alone
            click.echo("no stored game matches")
        if limit and total > limit:
            click.echo(f"({limit} of {total} games; --limit 0 for all)")
        exit_if_damaged(damaged)

    @cli.command()
    @click.argument("game_id", required=False)
    @click.option("--file", "file_", type=click.Path(dir_okay=False), help="Read records from this JSON-lines file (.gz too).")
    @click.option("--index", default=0, show_default=True, type=click.IntRange(0), help="Which record of --file.")
    @click.option("--seat", type=int, help="Show only what this seat knew at each moment.")
    @click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
    @click.option("--long", "long_names", is_flag=True, help="Card names in words (3 de copas / 3 of cups).")
    @click.option("--step", is_flag=True, help="Wait for Enter after each trick (q and Enter, or Ctrl-D, stops).")
    @click.option("--html", "html_out", type=click.Path(dir_okay=False), help="Write a self-contained HTML replay.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help=STORE_HELP)
    @store_errors
    def replay(game_id: str | None, file_: str | None, index: int, seat: int | None, lang: str, long_names: bool,
               step: bool, html_out: str | None, store_path: str | None) -> None:
        """Replay a game trick by trick: the deal, every card, cante, exchange, draw and the result.

        \b
        Examples:
          tute replay builtin/tute-2/r1/t0/d3/s1 --seat 0 --step
          tute replay --file games.jsonl --index 3 --lang es --long
          tute replay builtin/tute-4-pairs/r1/t0/d0/s0 --html game.html
        """
        if file_ and game_id:
            fail(f"give a GAME_ID or --file FILE, not both ({game_id} and --file {file_})")
        if step and html_out is not None:
            fail("--step replays on this terminal and --html writes a page: give one of them")
        if html_out is not None:
            written_apart("--html", html_out, "the page", None if file_ else store_path_of(store_path), file_)
        if file_:
            rec = record_from_file(file_, index)
        elif game_id:
            with open_store(store_path) as store:
                try:
                    rec = store.record(game_id)
                except StoreError as exc:
                    fail(f"{exc} (see `tute games`)")
        else:
            fail("give a GAME_ID (from `tute games`) or --file FILE")
        show_record(rec, seat, lang, long_names, step, html_out)

    @cli.command(name="verify")
    @click.option("--tournament", "-t", help="Only this tournament.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help=STORE_HELP)
    @store_errors
    def verify_cmd(tournament: str | None, store_path: str | None) -> None:
        """Re-run every stored record through the referee; exit 1 if any does not match.

        \b
        Example:
          tute verify --tournament builtin
        """
        bad = total = 0
        with open_store(store_path) as store:
            if tournament is not None:  # "verified 0 games" of a name never stored would pass for a clean check
                pick_tournament(store, tournament)  # its StoreError is the command's one line (store_errors)
            for game_id, problem in verify(store, tournament):
                total += 1
                if problem:
                    bad += 1
                    click.echo(f"{game_id}: {problem}")
            names = [tournament] if tournament else [t.name for t in store.tournaments()]
            differ = [n for n in names if kept(store.db, n) and not kept_tables_agree(store, n)]
        for name in differ:
            click.echo(f"{name}: the tables the store keeps differ from a fold of its games "
                       f"(`tute leaderboard --recompute` shows the fold)")
        click.echo(f"verified {total} games: {total - bad} true, {bad} wrong"
                   + (f"; {len(names) - len(differ)} of {len(names)} tournaments' tables agree" if names else ""))
        if bad or differ:
            sys.exit(1)

    @cli.command(name="export")
    @click.option("--tournament", "-t", help="Only this tournament (default: all).")
    @click.option("--out", "-o", type=click.Path(dir_okay=False), help="File to write (.gz: gzip); default stdout.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help=STORE_HELP)
    @store_errors
    def export_cmd(tournament: str | None, out: str | None, store_path: str | None) -> None:
        """Write stored games as JSON lines (a header line per tournament, then its records).

        \b
        Example:
          tute export --tournament builtin --out builtin.jsonl.gz
        """
        if out is not None:
            written_apart("--out", out, "the export", store_path_of(store_path))
        with open_store(store_path) as store:
            if tournament is not None:  # before the file is touched: a name not stored leaves --out as it was
                pick_tournament(store, tournament)
            try:
                if out:
                    n = export_to_file(store, out, tournament)
                    click.echo(f"wrote {n} lines to {out}", err=True)
                else:
                    export(store, sys.stdout, tournament)
            except ArchiveError as exc:
                fail(str(exc))
            except OSError as exc:
                if isinstance(exc, BrokenPipeError) and not out:
                    raise  # the reader closed the pipe (tute export | head): not an error of the file
                # (--out naming a FIFO whose reader stopped is this: the file asked for is not whole)
                fail(f"{out or 'standard output'}: {exc.strerror or exc}")
            damaged = report_damaged(store.damaged)
        exit_if_damaged(damaged)

    @cli.command(name="import")
    @click.argument("file", type=click.Path(dir_okay=False))
    @click.option("--tournament", "-t", help="Store the games under this tournament name.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help=STORE_HELP)
    @click.option("--skip-existing", is_flag=True,
                  help="Skip games already stored with the same record (a different record under the same id "
                       "is still an error).")
    @store_errors
    def import_cmd(file: str, tournament: str | None, store_path: str | None, skip_existing: bool) -> None:
        """Import games from JSON lines (from `tute export` or `tute play --records`) into a store.

        Every line is checked (it parses, it replays, its id is new) as the games are stored in one
        transaction; if any is not, nothing is stored and the bad lines are listed.

        \b
        Example:
          tute import builtin.jsonl.gz --store other.sqlite
        """
        why = tournament_name_problem(tournament) if tournament is not None else None
        if why:
            fail(f"--tournament: {why}")
        path = store_path_of(store_path, must_exist=False)
        fresh = not path.exists()
        refused: str | None = None
        with open_store(str(path), must_exist=False) as store:
            try:
                done: ImportResult = import_records(file, store, tournament, skip_existing=skip_existing)
            except ArchiveError as exc:
                many = len(exc.problems) > 1
                for problem in exc.problems[:10] if many else ():  # in the file's order, then the verdict
                    click.echo(problem, err=True)
                if len(exc.problems) > 10:
                    click.echo(f"... and {len(exc.problems) - 10} more", err=True)
                refused = (f"{file}: {len(exc.problems)} bad lines (above), nothing imported" if many
                           else f"{exc.problems[0]} (nothing imported)")
            except StoreError as exc:
                refused = f"{exc} (nothing imported)"
        if refused is not None:
            if fresh:  # the store this import made holds nothing: no empty store is left behind
                for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                    leftover.unlink(missing_ok=True)
            fail(refused)
        skipped = f", {done.skipped} already stored skipped" if skip_existing else ""
        click.echo(f"imported {done.stored} games into {store.path}{skipped}")
        # stored games the new tables had to leave out: said, and those tables are not kept (keep_fold)
        exit_if_damaged(report_damaged(store.damaged))
