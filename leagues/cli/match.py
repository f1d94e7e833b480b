"""``tute match``: is B better than A? Duplicate blocks until an SPRT decides (docs/match.md).

A thin command: it writes the match as a tournament config (``format = "match"``), runs it with the
tournament runner (stored, resumable, exportable, the same with any number of workers) and prints the
summary of ``leagues.tournament.matches``.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from arena.hosting import is_command
from leagues.cli.exits import exit_if_all_forfeited, say_clocked, say_forfeits
from leagues.cli.options import cluster_address
from leagues.cli.records import report_damaged
from leagues.tournament.config import (MATCH_FORMATS, MAX_TIME_LIMIT_MS, WORKERS_PER_CPU, ConfigError,
                                       TournamentConfig, max_workers, parse_config)
from leagues.tournament.leaderboard import forfeit_watch
from leagues.tournament.matches import monitor_of_store, summary_lines
from leagues.tournament.runner import (TOURNAMENT_LIMIT, ConfigChanged, Interrupted, RunError, clocked_warning,
                                      run_tournament)
from leagues.tournament.sprt import H0, H1
from leagues.tournament.store import Store, StoreError
from leagues.tournament.terminal import plural

#: exit statuses a script can branch on (docs/match.md)
EXIT_H1, EXIT_H0, EXIT_INCONCLUSIVE = 0, 1, 3


#: the longest entrant or match name made from a bot spec
NAME_MAX = 60


def _name(spec: str) -> str:
    """A name from a bot spec (or a match's pair of them): the spec with what a name cannot hold as '_';
    a longer one keeps its head and its tail (two versions of a bot differ near the end of their
    paths) and a hash of the whole, so that two specs never share a name."""
    name = re.sub(r"[^A-Za-z0-9_.:+-]+", "_", spec).strip("_") or "bot"
    if len(name) <= NAME_MAX:
        return name
    digest = hashlib.sha256(spec.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{name[:16]}..{name[-(NAME_MAX - 16 - 2 - 9):]}-{digest}"


def _params(text: str | None, option: str) -> dict[str, Any]:
    from leagues.cli.main import json_object  # the CLI's main module registers this one as it loads

    return {} if text is None else json_object(text, f"{option} {text[:80]!r}")


def _bot(spec: str) -> str | list[str]:
    """A bot on the command line as a config names it: a command as its argument list."""
    if not is_command(spec):
        return spec
    try:
        return shlex.split(spec)
    except ValueError as exc:  # an unbalanced quote
        from leagues.cli.main import UserError

        raise UserError(f"bot command {spec!r}: {exc}") from None


def _stored_config(store_path: Path, name: str) -> dict[str, Any] | None:
    """The stored config of tournament ``name``, if the store holds it (a store that cannot be read: None,
    the run says what is wrong with it)."""
    if not store_path.is_file():
        return None
    try:
        with Store(store_path, readonly=True) as store:
            row = store.tournament(name)
    except StoreError:
        return None
    return row.config if row is not None else None


def _bots_of(config: dict[str, Any]) -> list[Any]:
    return [e.get("bot") for e in config.get("entrants", []) if isinstance(e, dict)]


def _free_name(cfg: TournamentConfig, bot_a: str, bot_b: str) -> str | None:
    """Another default name when the one from the bots' names is a stored match of other bots: two specs
    whose names clean alike (``python3 v1/bot.py``, ``python3 v1_bot.py``) are two matches, and the
    second is never refused as the first changed (whose ``--new`` would delete the other's games). The
    first keeps the plain name, so a match begun before resumes under it."""
    stored = _stored_config(cfg.store, cfg.name)
    if stored is None or stored.get("format") not in MATCH_FORMATS or _bots_of(stored) == _bots_of(cfg.identity()):
        return None
    digest = hashlib.sha256(f"{bot_a}\0{bot_b}".encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{cfg.name[:NAME_MAX - 9]}-{digest}"


def _refuse_other_kinds(store_path: Path, name: str) -> None:
    """A match is stored under its name: one that names a round robin or a Swiss tournament of the
    store would be refused as changed, and ``--new`` (which does not ask) would delete that tournament."""
    from leagues.cli.main import UserError

    stored = _stored_config(store_path, name)
    kind = stored.get("format") if stored is not None else None
    if stored is not None and kind not in MATCH_FORMATS:
        raise UserError(f"{store_path}: {name!r} is a {kind} tournament, not a match: give the match another "
                        f"--name (nothing deleted)")


def register(cli: click.Group) -> None:
    @cli.command()
    @click.argument("bot_a")
    @click.argument("bot_b")
    @click.option("--variant", "-v", "variants", multiple=True, required=True,
                  help="A preset to play (repeat for several; their blocks interleave).")
    @click.option("--sprt", "sprt_text", metavar="ELO0,ELO1", help="Stop as soon as the SPRT decides H0 or H1.")
    @click.option("--alpha", default=0.05, show_default=True, type=float, help="SPRT: the false-H1 rate.")
    @click.option("--beta", default=0.05, show_default=True, type=float, help="SPRT: the false-H0 rate.")
    @click.option("--model", type=click.Choice(["normalized", "logistic"]), default="normalized", show_default=True,
                  help="SPRT: ELO0 and ELO1 as normalized Elo (fishtest's and fastchess's default) or logistic Elo.")
    @click.option("--max-blocks", default=1000, show_default=True, type=click.IntRange(1, 1_000_000),
                  help="Blocks per variant at most (the match ends there if the SPRT has not decided).")
    @click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed of the deck orders.")
    @click.option("--workers", "-j", type=click.IntRange(1, max_workers()), default=None,
                  help=f"Worker processes (at most {WORKERS_PER_CPU} per CPU).")
    @click.option("--time-limit", "time_limit_ms", default=1000, show_default=True,
                  type=click.IntRange(1, MAX_TIME_LIMIT_MS),
                  help="Per-move limit in ms (a bot isolated in a subprocess that exceeds it forfeits; search "
                       "plans its decisions to it).")
    @click.option("--cluster", default=None, metavar="ADDRESS", callback=cluster_address,
                  help="Play on a Dask cluster: tcp://HOST:8786 or local:N (docs/cluster.md).")
    @click.option("--store", "store_path", default="runs/match.sqlite", show_default=True,
                  type=click.Path(dir_okay=False), help="Where the games are stored (run again to resume).")
    @click.option("--params-a", help="A's parameters as a JSON object.")
    @click.option("--params-b", help="B's parameters as a JSON object.")
    @click.option("--field", help="The bot that fills the other seats of 3 to 6 seat variants.")
    @click.option("--name", help="The match's name in the store (default: from the bots' names).")
    @click.option("--new", is_flag=True, help="Play this match again from the start (deletes its stored games).")
    @click.option("--quiet", "-q", is_flag=True, help="No progress line.")
    def match(bot_a: str, bot_b: str, variants: tuple[str, ...], sprt_text: str | None, alpha: float, beta: float,
              model: str, max_blocks: int, seed: int, workers: int | None, time_limit_ms: int, cluster: str | None,
              store_path: str, params_a: str | None, params_b: str | None, field: str | None, name: str | None, new: bool,
              quiet: bool) -> None:
        """Is BOT_B better than BOT_A? Duplicate blocks of A against B (each deck order once per seat
        rotation) until the SPRT decides or --max-blocks, with Elo, normalized Elo and LOS.

        Exit status: 0 H1 accepted (B is better by ELO1), 1 H0 accepted (not better than ELO0), 3
        inconclusive at --max-blocks; without --sprt 0, or 3 when a bot forfeited every deal (as tute
        run); 2 bad input, or stored games that cannot be read (named); 130 interrupted (run the same command again to resume).

        \b
        Example:
          tute match random greedy -v tute-2 --sprt 0,10
          tute match greedy search -v tute-2 -v tute-4-pairs --sprt 0,10 -j 2
          tute match greedy search -v tute-3 --field greedy --max-blocks 200
        """
        from leagues.cli.main import UserError

        twice = sorted({v for v in variants if variants.count(v) > 1})
        if twice:  # a config would label them apart; the command cannot, nor would it mean anything
            raise UserError(f"--variant {twice[0]} given twice: give each variant once")
        a, b = _name(bot_a), _name(bot_b)
        if a == b:
            a, b = f"{a}.a", f"{b}.b"
        data: dict[str, Any] = {
            "name": name if name is not None else _name(f"match-{a}-vs-{b}"), "seed": seed, "format": "match",
            "deals": max_blocks, "time_limit_ms": time_limit_ms, "store": store_path,
            "variants": [{"name": v} for v in variants],
            "entrants": [{"name": a, "bot": _bot(bot_a), "params": _params(params_a, "--params-a")},
                         {"name": b, "bot": _bot(bot_b), "params": _params(params_b, "--params-b")}],
        }
        if field:
            data["field"] = field
        ctx = click.get_current_context()
        tuned = [f"--{o}" for o in ("alpha", "beta", "model")
                 if ctx.get_parameter_source(o) is click.core.ParameterSource.COMMANDLINE]
        if tuned and sprt_text is None:  # they shape a test that is not run: a forgotten --sprt
            raise UserError(f"{'/'.join(tuned)}: only with --sprt ELO0,ELO1")
        if sprt_text is not None:
            parts = sprt_text.split(",")
            try:
                elo0, elo1 = (float(x) for x in parts)
            except ValueError:
                raise UserError(f"--sprt {sprt_text!r}: expected ELO0,ELO1, e.g. 0,10") from None
            data["sprt"] = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "model": model}
        try:
            cfg = parse_config(data, source="tute match", base=Path.cwd())
        except ConfigError as exc:
            raise UserError(_options_words(str(exc))) from None
        free = _free_name(cfg, bot_a, bot_b) if name is None else None
        if free is not None:
            data["name"] = free
            cfg = parse_config(data, source="tute match", base=Path.cwd())
        _refuse_other_kinds(cfg.store, cfg.name)
        limit = "--time-limit"  # where this command takes the move limit, for the clocked games' warning
        try:
            summary = run_tournament(cfg, workers=workers, new=new, quiet=quiet, cluster=cluster,
                                     limit_setting=limit)
        except ConfigChanged as exc:
            options = ", ".join(CHANGED_OPTIONS.get(k, k) for k in exc.changed)
            raise UserError(f"tute match: match {cfg.name!r} in {cfg.store} was started with a different config "
                            f"(changed: {options}); run with --new to play it again from the start (its stored "
                            f"games are deleted), or give this one another --name") from None
        except (RunError, StoreError) as exc:
            raise UserError(str(exc)) from None
        except Interrupted as exc:
            click.echo(f"tute: {exc}", err=True)
            sys.exit(130)
        with Store(cfg.store) as store:
            monitor = monitor_of_store(cfg, store.games(cfg.name))
            watch = forfeit_watch(store, cfg.name)
            clocked = clocked_warning(store, [cfg.name], limit)
        for line in summary_lines(cfg, monitor):
            click.echo(line)
        say_forfeits(watch)
        say_clocked(clocked)
        if report_damaged(store.damaged):  # the summary and any verdict leave those games out: not a verdict
            raise UserError(f"{plural(len(store.damaged), 'stored game')} of {cfg.store} could not be read "
                            f"(named above): the summary leaves them out, so it decides nothing")
        # a bot that forfeited every deal makes any verdict meaningless: 3, no verdict, with an SPRT too
        exit_if_all_forfeited(watch, "the match", cfg.log)
        if cfg.sprt is not None:  # with an SPRT, the exit status is its verdict (docs/match.md)
            verdict = monitor.states[0].verdict
            sys.exit(EXIT_H1 if verdict == H1 else EXIT_H0 if verdict == H0 else EXIT_INCONCLUSIVE)


#: the keys of a match's stored config, by the options of ``tute match`` that set them (a refusal of a
#: changed match says them; two bots whose names clean alike are kept apart by ``_free_name``)
CHANGED_OPTIONS = {"deals": "--max-blocks", "time_limit_ms": "--time-limit", "seed": "--seed",
                   "sprt": "--sprt/--alpha/--beta/--model", "variants": "--variant", "field": "--field",
                   "entrants": "the bots or --params-a/--params-b"}


def _options_words(message: str) -> str:
    """A config error of the match, in the command's words (``--sprt``, ``--variant``, ``--field``)."""
    for key, option in (("sprt:", "--sprt/--alpha/--beta:"), ("variants[", "--variant ["), ("field:", "--field:"),
                        ("time_limit_ms:", "--time-limit:"), ("name:", "--name:"), ("entrants[0]", "BOT_A"),
                        ("entrants[1]", "BOT_B")):
        message = message.replace(f": {key}", f": {option}")
    return message.replace('field = "greedy"', "--field greedy")
