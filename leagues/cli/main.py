"""The ``tute`` command: thin commands over the layers below, no game logic here.

Every error a user can cause ends in one line on stderr and exit status 2 (click's usage errors too).
"""

from __future__ import annotations

import json
import logging
import os
import select
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import click
from tabulate import tabulate

from arena import VARIANTS, BotFailure, VariantError, get_variant
from arena.match import interrupts_are_bots
from arena.matchplay import MatchError, MatchRule
from arena.variants import OPTION_NOTES
from arena.hosting import BotLoadError
from arena.record_schema import ID_MAX, text_problem

from leagues.cli.exits import StopOnceOnInterrupt, exit_if_all_forfeited
from leagues.cli.style import CHOICES, redraw
from leagues.records.archive import open_text
from leagues.tournament.config import MAX_TIME_LIMIT_MS, WORKERS_PER_CPU, max_workers
from leagues.tournament.database import OPENED, is_busy
from leagues.tournament.forfeits import ForfeitWatch, first_line, own_forfeit, played
from leagues.tournament.quickplay import Lineup, PlayTally, close_all, play_run
from leagues.tournament.terminal import clocked, per_second, plural


class UserError(click.ClickException):
    """A problem with what the user asked for: one line, exit 2."""

    exit_code = 2


class ReaderGone(Exception):
    """The reader of stdout closed it (``tute export | head``): not an error of the command."""


def stdout_gone() -> bool:
    """Whether stdout's reader has closed it. A broken pipe is a quiet end only when it is stdout's:
    one to a worker process or a bot is a failure, and once ended a run with status 0 and no word."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a file (a test's capture): it cannot break
        return False
    if not hasattr(select, "poll"):  # cannot tell (Windows): as before, every broken pipe is stdout's
        return True
    poll = select.poll()
    poll.register(fd, select.POLLOUT)
    # a pipe whose reader closed polls as POLLERR, a socket as POLLHUP; a file or a terminal as neither
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))


class PipeBroken(RuntimeError):
    """A broken pipe that is not stdout's: a failure, said with its traceback."""

    def __init__(self) -> None:
        super().__init__("a pipe to another process broke (not stdout's): a bug of tute-arena")


class TuteGroup(click.Group):
    """Turns a closed stdout, whichever command writes it, into ``ReaderGone`` for ``main`` (click would
    otherwise end the command with status 1). Any other broken pipe goes on up: it is a failure."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            if not stdout_gone():  # not click's to end quietly with status 1: its traceback is the report
                raise PipeBroken() from exc
            raise ReaderGone() from None


@click.group(cls=TuteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tute-arena")
@click.option("--color", "--colour", "color", type=click.Choice(CHOICES), default="auto", show_default=True,
              help="Colour in the terminal: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always, never.")
@click.pass_context
def cli(ctx: click.Context, color: str) -> None:
    """tute-arena: Tute bots against each other under a strict referee.

    \b
    Example:
      tute play tute-2 random random --games 100 --seed 1
    """
    ctx.obj = {"color": color}


@cli.command()
@click.argument("name", required=False)
@click.option("--diff", is_flag=True, help="Only the options that differ from tute-2.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: one object per preset (name, description, options) for tools.")
def variants(name: str | None, diff: bool, fmt: str) -> None:
    """List the preset variants (or the one NAME) and their rule options, each with what it decides and
    the source text its default follows (docs/rules.md).

    \b
    Examples:
      tute variants
      tute variants cabrero --diff
      tute variants --format json
    """
    if name is not None and name not in VARIANTS:
        raise UserError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    chosen = [VARIANTS[name]] if name else list(VARIANTS.values())
    base = VARIANTS["tute-2"].settings()

    def shown(v: Any) -> dict[str, Any]:
        opts = v.settings()
        return {k: x for k, x in opts.items() if not diff or base[k] != x}

    if fmt == "json":
        click.echo(json.dumps([{"name": v.name, "description": v.description, "options": shown(v)}
                               for v in chosen], indent=2))
        return
    for v in chosen:
        click.echo(f"{v.name}: {v.description}")
        opts = shown(v)
        if diff and not opts:
            click.echo("    (every option as in tute-2)")
        width = max((len(k) for k in opts), default=0)
        vwidth = max((len(_value_text(x)) for x in opts.values()), default=0)
        for key, value in opts.items():
            what, source = OPTION_NOTES[key]
            note = f"{what} [{source}]" if source else what
            click.echo(f"    {key:<{width}}  {_value_text(value):<{vwidth}}  {note}")
        click.echo()


def _value_text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _seat_players(variant_name: str, players: int, pairs: bool, specs: Sequence[str]) -> list[str]:
    if pairs and len(specs) == 2:
        return [specs[0], specs[1], specs[0], specs[1]]
    if len(specs) != players:
        extra = " (or 2: one per side)" if pairs else ""
        raise UserError(f"{variant_name} needs {players} bots{extra}, got {len(specs)}")
    return list(specs)


@cli.command()
@click.argument("variant")
@click.argument("bots", nargs=-1, required=True)
@click.option("--games", "-n", default=100, show_default=True, type=click.IntRange(1),
              help="Deals to play (matches, with --match).")
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the deck orders.")
@click.option("--records", type=click.Path(dir_okay=False, writable=True),
              help="Write every game record to this file as JSON lines (.gz: gzip).")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="Rule option override (JSON value), e.g. -o undertrump_required=true.")
@click.option("--params", "-p", "params", multiple=True, metavar="JSON",
              help="A bot's parameters as a JSON object, once per bot in the order of BOTS ('{}' for none).")
@click.option("--isolation", type=click.Choice(["auto", "inprocess", "subprocess"]), default="auto",
              show_default=True, help="auto: tute-arena's own bots in-process, other Python bots in a subprocess.")
@click.option("--time-limit", "time_limit_ms", default=1000, show_default=True,
              type=click.IntRange(1, MAX_TIME_LIMIT_MS),
              help="Per-move limit in ms for isolated bots and commands.")
@click.option("--match", "match_text", metavar="RULE",
              help="Play GAMES matches instead of deals: first_to:K, points:T, letters[:L] or deals:N "
                   "(docs/rules.md, \"Matches\"); 'default' is the variant's usual match.")
@click.option("--workers", "-j", default=1, show_default=True, type=click.IntRange(1, max_workers()),
              help=f"Processes playing deals at once (the same records as one; at most {WORKERS_PER_CPU} per CPU).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False),
              help="The bots' stderr and warnings (default: beside --records, else ./tute-play.log).")
def play(variant: str, bots: tuple[str, ...], games: int, seed: int, records: str | None,
         options: tuple[str, ...], params: tuple[str, ...], isolation: str, time_limit_ms: int,
         match_text: str | None, workers: int, log_path: str | None) -> None:
    """Play GAMES deals of VARIANT between BOTS (the dealer rotates) and print a summary.

    Each of BOTS is an entry point name (see `tute bots list`), module:Class, or an external command
    speaking the JSON-lines protocol (docs/protocol.md): quote it; a string holding whitespace or
    starting with ./, ../, / or ~ is a command. For a pairs variant two bots make the two sides. Forfeits are
    listed by reason with the first detail; Ctrl-C (or SIGTERM) stops and prints the summary of the
    games finished (exit 130). Exit 3 when a bot forfeited every deal (as tute run), 2 on bad input or
    when a worker process died.

    \b
    Example:
      tute play tute-2 random random --games 1000 --seed 7 --records games.jsonl
      tute play tute-4-pairs greedy random -n 200
      tute play tute-2 greedy "python3 examples/random_bot.py" -n 100
      tute play tute-2 random random -p '{"seed": 1}' -p '{"seed": 2}' -j 2
      tute play cabron random random random -n 60   (lost deals and letters of C-A-B-R-O-N)
      tute play tute-2 greedy random -n 50 --match first_to:3
    """
    try:
        v = get_variant(variant, **_parse_options(options))
        rule = None
        if match_text is not None:
            rule = MatchRule.default(v) if match_text == "default" else MatchRule.parse(match_text)
            rule.check(v)
    except (VariantError, MatchError) as exc:
        raise UserError(f"--match {match_text}: {exc}" if isinstance(exc, MatchError) else str(exc)) from None
    bot_params = _parse_params(params, len(bots))
    specs = _seat_players(variant, v.players, v.pairs, bots)
    seat_params = _seat_players(variant, v.players, v.pairs, tuple(json.dumps(p) for p in bot_params))
    lineup = Lineup(tuple(specs), tuple(json.loads(p) for p in seat_params), isolation, time_limit_ms)
    names = [f"{spec}" for spec in specs]
    for spec in dict.fromkeys(specs):  # each names its seats in the records, which must read back
        if text_problem(spec) is not None:
            raise UserError(f"bot {spec[:80]!r}: names its seat in the records, so at most {ID_MAX} characters and "
                            f"no control characters")
    log_file = _play_log(records, log_path)
    handler = _bot_log(log_file)
    try:
        try:  # a bot that cannot start is the user's error, not a forfeit per deal
            ready = lineup.players()  # one worker plays with them; several start their own
        except (BotLoadError, BotFailure) as exc:
            if isinstance(exc, BotFailure):
                raise UserError(f"a bot did not start: {' | '.join(exc.detail.splitlines())[:600]} (log: {log_file})") from None
            raise UserError(str(exc)) from None
        out = None
        if records:
            try:
                _refuse_to_overwrite(records)
                out = open_text(records, "wt")  # .gz: compressed, as export writes and import reads it
            except BaseException as exc:
                close_all(ready)  # not played with: they end here
                if isinstance(exc, OSError):
                    raise UserError(f"{records}: {exc.strerror}") from None
                raise
        failed: list[str] = []  # the records file's write error (a full disk): said after the summary
        progress = _progress(games, "matches" if rule else "deals")
        try:
            watch = ForfeitWatch()  # as run counts them: to exit 3 when a bot forfeited every deal

            def on_record(rec: Any) -> None:
                watch.add_game(names, played(names, rec.result.sit_out), own_forfeit(rec.result, rec.id))
                if out and not failed:
                    try:
                        out.write(rec.dumps() + "\n")
                    except OSError as exc:
                        failed.append(f"{records}: {exc.strerror or exc}")

            tally = play_run(v, variant, lineup, names, games, seed, rule=rule, workers=workers,
                             on_record=on_record, on_progress=progress, ready=ready)
        finally:
            if out:
                try:
                    out.close()
                except OSError as exc:
                    failed.append(f"{records}: {exc.strerror or exc}")
            if progress is not None:
                progress(-1)
    finally:
        logging.getLogger("arena.hosting").removeHandler(handler)
        handler.close()
    _print_play(v, variant, names, tally, games, seed, rule, records, log_file)
    if failed:
        click.echo(f"tute: error: {failed[0]}: the records file lacks the deals after it", err=True)
        sys.exit(2)
    if tally.failure:
        click.echo(f"tute: error: {tally.failure}; the summary above counts the games finished", err=True)
        sys.exit(2)
    if tally.interrupted:
        click.echo("tute: interrupted: the summary above counts the games finished", err=True)
        sys.exit(130)
    exit_if_all_forfeited(watch, "the summary", log_file)


def _refuse_to_overwrite(records: str) -> None:
    """``--records`` replaces a records file, never anything else: a store or a config given there by
    mistake was overwritten without a word. An empty file, or one whose first line is a record, will do."""
    path = Path(records)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return
    try:
        with open_text(records, "rt") as fh:
            first = json.loads(fh.readline(1 << 20))
        ours = isinstance(first, dict) and str(first.get("format", "")).startswith("tute-arena/")
    except (OSError, ValueError, EOFError):
        ours = False
    if not ours:
        raise UserError(f"--records {records}: exists and is not a records file: give another name, or remove it "
                        f"first")


def _parse_params(params: Sequence[str], bots: int) -> list[dict[str, Any]]:
    if not params:
        return [{} for _ in range(bots)]
    if len(params) != bots:
        raise UserError(f"--params: give one per bot ({bots}), '{{}}' for none; got {len(params)}")
    return [json_object(text, f"--params {text[:80]!r} (bot {i + 1})") for i, text in enumerate(params)]


#: how deep a bot's parameters may nest: far past any real one, and short of what json and a bot's host
#: can walk without running out of stack
PARAMS_DEPTH = 64


def json_object(text: str, what: str) -> dict[str, Any]:
    """A bot's parameters given on the command line (``play -p``, ``match --params-a``, ``bots check`` and
    ``league submit --params``): a JSON object, else a one-line error naming ``what``."""
    def constant(token: str) -> Any:  # Python's json reads NaN and Infinity, which JSON has not
        raise UserError(f"{what}: {token} is not a JSON number")

    try:
        value = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{what}: not JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's 4,300 digits; nesting past the stack
        raise UserError(f"{what}: not JSON a bot can take: {str(exc)[:100] or type(exc).__name__}") from None
    if not isinstance(value, dict):
        raise UserError(f"{what}: expected a JSON object")
    if _depth(value) > PARAMS_DEPTH:
        raise UserError(f"{what}: nested more than {PARAMS_DEPTH} deep")
    return value


def _depth(value: Any) -> int:
    todo, deepest = [(value, 1)], 0
    while todo:
        item, depth = todo.pop()
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            todo += [(x, depth + 1) for x in item.values()]
        elif isinstance(item, list):
            todo += [(x, depth + 1) for x in item]
    return deepest


def _play_log(records: str | None, log_path: str | None) -> Path:
    """The bots' log of ``play``: ``--log``, else beside ``--records`` (its name with .log; with .bots.log
    when the records' own name ends in .log), else ./tute-play.log. The records file is checked first,
    so that its error names --records; a log that is the records file is refused: its lines would make
    the records unreadable."""
    for option, value in (("--records", records), ("--log", log_path)):
        if value == "":
            raise UserError(f"{option}: give a file name")
    if records is None:
        return Path(log_path or "tute-play.log")
    out = Path(records)
    folder = out.parent
    if not folder.is_dir():
        raise UserError(f"--records {records}: {folder} is {'not a folder' if folder.exists() else 'no such folder'}")
    if not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise UserError(f"--records {records}: not a file that can be written")
    if log_path is None:
        log = out.with_suffix(".log")
        return log if log != out else out.with_suffix(".bots.log")
    if Path(log_path).resolve() == out.resolve():
        raise UserError(f"--log {log_path}: the same file as --records; name another (the log's lines would "
                        "make the records unreadable)")
    return Path(log_path)


def _bot_log(path: Path) -> logging.Handler:
    """The bots' stderr and the hosts' warnings go to ``path`` (as ``tute run`` keeps them in its log)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--log {path}: {exc.strerror or exc}") from None
    if path.is_dir() or not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"--log {path}: not a file that can be written")
    # created on the first line only: a run without a word from any bot leaves no file behind
    handler: logging.Handler = logging.FileHandler(path, mode="w", encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    host_log = logging.getLogger("arena.hosting")
    host_log.addHandler(handler)
    host_log.setLevel(logging.INFO)
    return handler


def _progress(total: int, unit: str) -> Callable[[int], None] | None:
    """A progress line on a terminal (stderr), redrawn at most five times a second; -1 ends it."""
    if not redraw(sys.stderr):
        return None
    last = [0.0]

    def step(done: int) -> None:
        if done < 0:
            click.echo("\r\033[K", nl=False, err=True)
            return
        now = time.monotonic()
        if now - last[0] >= 0.2 or done == total:
            last[0] = now
            click.echo(f"\r{done}/{total} {unit}", nl=False, err=True)

    return step


def _print_play(v: Any, variant: str, names: Sequence[str], tally: PlayTally, games: int, seed: int,
                rule: MatchRule | None, records: str | None, log_file: Path) -> None:
    """One row per side (a pairs side is its two seats), columns named by what they count."""
    played = tally.matches if rule else tally.deals
    cut = tally.interrupted or tally.failure
    unit = "match" if rule else "deal"
    done = f"{played} of {plural(games, unit)}" if cut else plural(played, unit)
    if rule is None:
        click.echo(f"{variant}: {done}, seed {seed}")
    else:
        click.echo(f"{variant}: {done} ({rule.text}), {plural(tally.deals, 'deal')}, seed {seed}")
    losers = v.scoring == "losers"
    rows = []
    for team in v.teams:
        seats = [tally.seats[s] for s in team]
        first = seats[0]
        where = "+".join(map(str, team))
        per_deal = max(first.played, 1)  # the deals the side played (a match's, deal by deal)
        pts = f"{sum(st.points for st in seats) / per_deal:.1f}"
        tutes, forfeits = sum(st.tutes for st in seats), sum(st.forfeits for st in seats)
        if rule is not None:
            rows.append([where, names[team[0]], first.wins, first.shared, first.losses, pts, tutes, forfeits])
        elif losers:
            row = [where, names[team[0]], first.lost_deals, pts, forfeits]
            if tally.letters is not None:
                row += [tally.letters.word(team[0]), tally.words[team[0]]]
            rows.append(row)
        else:
            rows.append([where, names[team[0]], first.wins, first.shared, first.losses, pts, tutes, forfeits])
    if rule is not None:
        headers = ["seats", "bot", "matches won", "shared", "lost", "points/deal", "tutes", "forfeits"]
    elif losers:
        headers = ["seats", "bot", "lost deals", "points/deal", "forfeits", "letters", "cabrón"]
    else:
        headers = ["seats", "bot", "wins", "draws", "losses", "points/deal", "tutes", "forfeits"]
    click.echo(tabulate(rows, headers=headers))
    for team in v.teams:
        for s in team:
            st = tally.seats[s]
            if st.forfeits:
                reasons = ", ".join(f"{n} {r}" for r, n in st.reasons.most_common())
                gid, detail = st.first[st.reasons.most_common(1)[0][0]]
                click.echo(f"forfeits of seat {s} ({names[s]}): {reasons}; first, {gid}: {first_line(detail)}")
    rate = tally.deals / tally.seconds if tally.seconds > 0 else float("inf")
    passed = tally.seats[0].thrown_in
    thrown = f" ({passed} thrown in, everyone passed: not counted)" if passed else ""
    click.echo(f"{plural(tally.deals, 'deal')}{thrown} in {tally.seconds:.2f} s: {per_second(rate)} deals/s, "
               f"{plural(tally.decisions, 'decision')}")
    if records:
        click.echo(f"records: {records}")
    if tally.clocked:
        click.echo(clocked(tally.clocked, tally.first_clocked, "match" if rule else "deal", "--time-limit"), err=True)
    if any(st.forfeits for st in tally.seats):
        click.echo(f"bots' stderr and warnings: {log_file}")


def _parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--option {item[:80]!r}: expected KEY=VALUE")
        try:
            out[key.strip()] = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON (or past what it reads): the text, for the option to judge
            out[key.strip()] = raw
    return out


# Command groups from the other modules of this package attach themselves here (each has a register()).
def _register_commands() -> None:
    import importlib

    for module in ("leagues.cli.bots", "leagues.cli.run", "leagues.cli.records", "leagues.cli.league", "leagues.cli.match"):
        importlib.import_module(module).register(cli)


_register_commands()


def _store_failure_hint(exc: sqlite3.DatabaseError) -> str:
    """What a store's failure met in a query most likely is: not every one is a damaged file."""
    text = str(exc).lower()
    if is_busy(exc):
        return "another program holds it: try again when it is done"
    if "disk i/o" in text or "full" in text:
        return "the disk or its file system failed: the file may be whole"
    return "a damaged file? tute verify reads every game"


class StderrOrNothing:
    """stderr whose reader may leave (``2> >(head -1)``, ``2>&1 >/dev/null | grep -m1 ...``): the
    command goes on to its end, and its exit status still says how it ended; what it would have said
    there has no reader. (A write failing there stopped a run, and was taken for a broken pipe to a
    worker: "a bug of tute-arena", exit 1.)"""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return int(self.stream.write(text))
            except BrokenPipeError:
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self.gone = True

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding: the stream's own
        return getattr(self.stream, name)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: click's errors and ours become one line on stderr."""
    if sys.stderr is not None and not isinstance(sys.stderr, StderrOrNothing):
        sys.stderr = StderrOrNothing(sys.stderr)  # type: ignore[assignment]
    interrupts_are_bots()  # the user stops this command by UserInterrupt (its handler's): a bot's is its own
    try:
        with StopOnceOnInterrupt():
            cli.main(args=list(argv) if argv is not None else None, prog_name="tute", standalone_mode=False)
        sys.stdout.flush()  # here, not at exit: a closed pipe found at exit would print a warning
    except click.exceptions.Abort:
        click.echo("tute: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"tute: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except sqlite3.DatabaseError as exc:
        # met in a query, past every check made on opening: a damaged page, text that is not UTF-8
        where = f"{OPENED[-1]}: " if OPENED else ""
        click.echo(f"tute: error: {where}cannot read the store: {exc} ({_store_failure_hint(exc)})", err=True)
        sys.exit(2)
    except (BrokenPipeError, ReaderGone) as exc:
        if isinstance(exc, BrokenPipeError) and not stdout_gone():
            raise PipeBroken() from exc
        # the reader stopped reading (tute export | head): end quietly with status 0, and keep the
        # interpreter's own flush of stdout at exit from failing again on the closed pipe
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # stdout is not a file (a test's capture): nothing to redirect
            pass
        sys.exit(0)

