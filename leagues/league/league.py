"""A league: entrants submitted over months, seasons played on demand, ratings carried between them.

Everything is kept in the league's one SQLite store: its own tables (league_store.py) and, for each
season, one ordinary tournament per division, played by ``run_tournament`` (so a season resumes,
forfeits and logs exactly as a tournament does). A season is three steps, each safe to repeat:

1. start: once every entrant of the field (each active entrant's latest version) has started, the
   field, divisions and league.toml's text are written in one transaction (a season with no game
   played yet is planned again at the next call, so a failure before the first game never locks the
   league);
2. play: each division's tournament runs (or resumes, skipping stored games);
3. finish: ratings, places and next divisions are folded from the stored games and written, with the
   season's end, in one transaction.

A kill anywhere leaves a state from which ``tute league season`` carries on to the same end.
"""

from __future__ import annotations

import getpass
import os
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, TextIO

from arena.hosting import ISOLATIONS, BotLoadError
from arena.record_schema import CONTROL

from leagues.tournament.compliance import ComplianceReport, check_bot
from leagues.tournament.checks import ConfigError, clip, id_unsafe
from leagues.tournament.config import EntrantConfig
from leagues.tournament.leaderboard import tally_of
from leagues.tournament.lock import LockedError, LockFileError, RunLock
from leagues.tournament.tally import POOLED, Standing as TableRow
from leagues.league.config import FILENAME, LeagueConfig, load_league, parse_league, template
from leagues.league.rating import Priors, places, plan_divisions, rating_rows, season_priors, standings
from leagues.league.store import Entrant, LeagueStore, LeagueStoreError, Season, SeasonEntrant, Version
from leagues.league.plugin_hash import PluginFiles, plugin_files
from leagues.tournament.cluster import ClusterError, reach
from leagues.tournament.runner import FORFEIT_MISSING, RunSummary, run_tournament, say_forfeiting, entrant_start_problem
from leagues.tournament.store import Store
from leagues.tournament.terminal import plural


#: the lock one season at a time holds (``RunLock``'s, under a name no tournament can have: it holds a
#: space): two ``tute league season`` started together both found no season open and both stored one
SEASON_LOCK = "league season"


class LeagueError(ValueError):
    """Something the user asked for cannot be done; the message is the one line they see. Nothing was
    stored."""


class ComplianceRefused(LeagueError):
    """A submitted bot failed the compliance run; ``report`` says how."""

    def __init__(self, message: str, report: ComplianceReport) -> None:
        super().__init__(message)
        self.report = report


def _check_name(name: str) -> None:
    if not name or id_unsafe(name) or name == "*" or len(name) > 64 or CONTROL.search(name):
        raise LeagueError(f"entrant name {clip(name)}: use up to 64 characters, not '*', without '/', "
                          f"whitespace or control characters (it is part of game ids)")


#: ``tute league init``'s seeds: drawn from 2**63, far past what a bot could try against the hand it holds
SEED_RANGE = 2 ** 63


def init_league(folder: str | os.PathLike[str], name: str | None = None) -> Path:
    """Write ``folder/league.toml`` and create its store; refuse a folder that already has a league."""
    target = Path(folder)
    path = target / FILENAME
    if path.exists():
        raise LeagueError(f"{path}: exists already (a folder holds one league)")
    league_name = name if name is not None else target.resolve().name.replace(" ", "-")  # "" is refused
    try:
        text = template(league_name, secrets.randbelow(SEED_RANGE))
        cfg = parse_league(text, source=str(path), base=target.resolve())
    except ConfigError as exc:
        hint = " (give --name)" if ": name: " in str(exc) else ""  # the folder's name would not do
        raise LeagueError(f"{exc}{hint}") from None
    if cfg.store.exists():
        raise LeagueError(f"{cfg.store}: exists already; remove it or init another folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
        path.write_text(cfg.text, encoding="utf-8")
    except OSError as exc:
        raise LeagueError(f"{path}: cannot write: {exc.strerror or exc}") from None
    with LeagueStore(cfg.store) as db:
        db.claim(cfg.name)
    return path


@dataclass
class Submitted:
    version: Version
    #: "new" entrant, a "new version", or "re-entered" with unchanged files
    what: str
    report: ComplianceReport | None


class League:
    """An open league: its config and store. Use as a context manager."""

    def __init__(self, cfg: LeagueConfig) -> None:
        self.cfg = cfg
        #: where its file sets the move limit (league.toml, or the file -l names), for the warning of
        #: games a bot's clock decided
        self.limit_setting = f"time_limit_ms in {Path(cfg.source).name}"
        if not cfg.store.is_file():
            raise LeagueError(f"{cfg.store}: no league store (tute league init makes one)")
        try:
            self.db = LeagueStore(cfg.store)
            self.db.claim(cfg.name)
        except LeagueStoreError as exc:
            raise LeagueError(str(exc)) from None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "League":
        try:
            return cls(load_league(path))
        except ConfigError as exc:
            raise LeagueError(str(exc)) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "League":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------- entrants
    def entrant(self, name: str) -> Entrant:
        found = self.db.entrant(name)
        if found is None:
            known = ", ".join(e.name for e in self.db.entrants()) or "none"
            raise LeagueError(f"{self.cfg.store}: no entrant {name!r} (entered: {known})")
        return found

    def submit(self, name: str, bot: str, *, owner: str | None = None, params: dict[str, Any] | None = None,
               isolation: str = "auto", update: bool = False,
               progress: Callable[[str], None] | None = None) -> Submitted:
        """Enter ``bot`` as ``name`` (or, with ``update``, a new version of it) once it passes the
        compliance run. Refusals raise LeagueError (ComplianceRefused with the report) and store
        nothing."""
        _check_name(name)
        if isolation not in ISOLATIONS:
            raise LeagueError(f"--isolation: must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
        owner = owner if owner is not None else _whoami()  # an empty --owner is refused, not replaced
        if not owner or CONTROL.search(owner) or len(owner) > 100:  # shown in every table and the report
            raise LeagueError(f"--owner {clip(owner)}: up to 100 characters, without control characters")
        if CONTROL.search(bot):  # shown in the report and the tables too: a bidi mark there reorders the line
            raise LeagueError(f"{clip(bot)}: a bot's command must not hold control characters")
        params = dict(params or {})
        existing = self.db.entrant(name)
        if existing is not None and not update:
            latest = self.db.latest(name)
            shown = f"version {latest.version}, bot {latest.bot_text}, " if latest else ""
            raise LeagueError(f"entrant {name!r} is already in the league ({shown}owner {existing.owner}): "
                              f"choose another name, or add --update to submit a new version of it")
        if existing is None and update:
            raise LeagueError(f"--update: no entrant {name!r} in the league to update (submit it without --update)")
        if existing is not None and existing.owner != owner:
            raise LeagueError(f"entrant {name!r} belongs to {existing.owner}, not {owner} (--owner)")
        try:
            plugin = plugin_files(bot)
        except BotLoadError as exc:
            raise LeagueError(f"{bot}: {exc}" if bot not in str(exc) else str(exc)) from None
        latest = self.db.latest(name) if existing is not None else None
        if latest is not None and _same(latest, plugin, params, isolation):
            if existing is not None and existing.active:
                raise LeagueError(f"entrant {name!r}: nothing changed (version {latest.version} has the same "
                                  f"files, sha256 {latest.plugin_hash[:12]}, and parameters)")
            self.db.reactivate(name)
            return Submitted(latest, "re-entered", None)
        try:
            report = check_bot(list(plugin.bot) if isinstance(plugin.bot, tuple) else plugin.bot, params,
                               deals=self.cfg.check_deals, variants=self.cfg.presets(), isolation=isolation,
                               time_limit_ms=self.cfg.time_limit_ms, memory_mb=self.cfg.memory_mb,
                               progress=progress)
        except BotLoadError as exc:  # found, but it cannot be built (bad parameters, a broken import)
            raise LeagueError(f"{bot}: refused: {exc}") from None
        if not report.passed(self.cfg.check_reproducible):
            raise ComplianceRefused(f"{bot}: refused, it fails the compliance run ({_failures(report)}); "
                                    f"entrant {name!r} not stored", report)
        version = Version(name, (latest.version + 1) if latest else 1, owner, plugin.bot, plugin.kind, plugin.origin,
                          plugin.dist_version, params, isolation, plugin.digest, plugin.files, time.time())
        self.db.add_version(version, new_entrant=existing is None)
        return Submitted(version, "new version" if latest else "new", report)

    def withdraw(self, name: str) -> Entrant:
        """Out of the seasons to come (a season under way finishes with it); its history stays."""
        ent = self.entrant(name)
        if not ent.active:
            raise LeagueError(f"entrant {name!r} was withdrawn already")
        self.db.withdraw(name)
        return self.entrant(name)

    # -------------------------------------------------------------------------------------- seasons
    def open_season(self) -> Season | None:
        """The season started and not finished, if any."""
        for s in self.db.seasons():
            if s.finished is None:
                return s
        return None

    def play_season(self, *, workers: int | None = None, quiet: bool = False, stream: TextIO | None = None,
                    cluster: str | None = None, forfeit_missing: bool = False) -> tuple[Season, list[RunSummary]]:
        """Play the next season, or finish the one under way. Raises LeagueError before anything is
        stored if the season cannot start; runner.Interrupted on Ctrl-C (run again to resume).

        A season stored as started but with no game played yet (it failed before its first game: a bot
        that stopped starting, a bad rating in its league.toml, a cluster out of reach) is planned again
        from the league as it is now, so a withdrawal, a new version or a fixed league.toml takes effect
        and such a failure cannot lock the league; nothing of it is lost, as it has no games. A season
        with games keeps its field: with ``forfeit_missing`` an entrant of it that no longer starts
        forfeits its games left (said on ``stream``) instead of stopping the season, so a bot gone for
        good cannot lock the league either."""
        lock = RunLock(Path(self.cfg.store), SEASON_LOCK)
        try:
            lock.__enter__()
        except LockedError as exc:
            raise LeagueError(f"{self.cfg.name}: a season is being played by another tute (pid {exc.holder}; "
                              f"lock {lock.path}): wait for it, or stop it first") from None
        except LockFileError as exc:
            raise LeagueError(f"{self.cfg.name}: {exc}") from None
        try:
            return self._play_season(workers, quiet, stream, cluster, forfeit_missing)
        finally:
            lock.__exit__()

    def _play_season(self, workers: int | None, quiet: bool, stream: TextIO | None, cluster: str | None,
                     forfeit_missing: bool) -> tuple[Season, list[RunSummary]]:
        open_ = self.open_season()
        replan = open_ is not None and not self._has_games(open_)
        if cluster is not None:
            self._reach_cluster(cluster)
        planned = open_ is None or replan  # planned now: its field is started before it is stored
        if open_ is None or replan:
            earlier = set(open_.tournaments) if open_ is not None else set()
            season = self._start_season(replacing=open_.season if open_ is not None else None)
            self._drop_empty(earlier - set(season.tournaments))
        else:
            season = open_
        cfg = self.season_config(season)
        entries = self.db.season_entrants(season.season)
        by_division: dict[int, list[EntrantConfig]] = {}
        versions = {(v.entrant, v.version): v for v in self.db.versions()}
        for e in entries:
            v = versions[(e.entrant, e.version)]
            by_division.setdefault(e.division, []).append(
                EntrantConfig(e.entrant, v.bot, dict(v.params), v.isolation))
        summaries = []
        n_div = len(by_division)
        priors = season_priors(cfg, season.season, entries, self.db.ratings())
        for d in sorted(by_division):
            mine = {e.name for e in by_division[d]}
            tcfg = cfg.season_tournament(season.season, d, n_div, by_division[d],
                                         {scope: {n: p for n, p in ps.items() if n in mine} for scope, ps in priors.items()})
            if not planned and not self._finished(tcfg.name):  # a season resumed: its field started again
                for e in entries:  # its games so far were played by the files submitted
                    if e.entrant in mine:
                        self._same_files(versions[(e.entrant, e.version)], resuming=season.season)
                let_go = self._check_start(season.season, cfg, by_division[d], under_way=True,
                                           forfeit_missing=forfeit_missing)
                say_forfeiting([f"season {season.season}: {p}" for p in let_go], stream, "its games left")
            # every entrant started once above, named in the league's words: the runner need not again
            summary = run_tournament(tcfg, workers=workers, quiet=quiet, stream=stream, cluster=cluster,
                                     new=replan, started=True, forfeit_missing=forfeit_missing,
                                     limit_setting=self.limit_setting,
                                     advice="finish the season with the tute-arena and bots that began it")
            if summary.already_finished:  # a division done before the season stopped: all of it stored
                with Store(self.cfg.store) as store:
                    summary.skipped = store.count_games(tcfg.name)
            summaries.append(summary)
        self._finish_season(season, cfg, entries, priors)
        return next(s for s in self.db.seasons() if s.season == season.season), summaries

    def _has_games(self, season: Season) -> bool:
        """Whether any game (or bye) of the season is stored: only then is its plan kept as it is."""
        with Store(self.cfg.store) as store:
            return any(store.count_games(t) or store.byes(t) for t in season.tournaments)

    def _drop_empty(self, tournaments: set[str]) -> None:
        """Delete the tournaments a season planned again no longer has (its divisions changed): they
        hold no game nor bye (else it would not have been planned again), and a row left behind would
        read as a division of the season that never finishes."""
        if not tournaments:
            return
        with Store(self.cfg.store) as store:
            for t in sorted(tournaments):
                if store.tournament(t) is not None and not (store.count_games(t) or store.byes(t)):
                    store.delete_tournament(t)

    def _finished(self, tournament: str) -> bool:
        with Store(self.cfg.store) as store:
            row = store.tournament(tournament)
        return row is not None and row.finished is not None

    @staticmethod
    def _check_start(number: int, cfg: LeagueConfig, entrants: list[EntrantConfig], *, under_way: bool,
                     forfeit_missing: bool = False) -> list[str]:
        """Start every entrant once, as the runner's preflight does, but say which entrant fails and
        what to do (the runner would blame the season's league.toml). Returns the failures let go on
        (a season under way, ``forfeit_missing``)."""
        failed = [(e.name, p) for e in entrants if (p := entrant_start_problem(e, cfg.time_limit_ms, cfg.memory_mb))]
        if not failed:
            return []
        names = [name for name, _ in failed]
        problems = [p for _, p in failed]
        if under_way and forfeit_missing:
            return problems
        if under_way:
            raise LeagueError(f"season {number} cannot go on: {'; '.join(problems)} (it has played games of this "
                              f"season, so it must start again to finish it: restore what it needs to run, or "
                              f"give {FORFEIT_MISSING} to play its games left as forfeits)")
        raise LeagueError(f"season {number} not started: {'; '.join(problems)}; make it start, or take it out "
                          f"with tute league withdraw {' '.join(names)} (nothing stored)")

    def _reach_cluster(self, address: str) -> None:
        """A scheduler out of reach refuses the season before it is stored (``local:N`` has nothing to
        reach: the runner starts it)."""
        try:
            reach(address)
        except ClusterError as exc:
            raise LeagueError(f"{exc}; nothing stored") from None

    def season_config(self, season: Season) -> LeagueConfig:
        """The config the season started with; where the store and log are and how many workers play
        (none of which changes a game) come from league.toml as it is now."""
        try:
            snap = parse_league(season.config, source=f"{self.cfg.store}: season {season.season}'s league.toml",
                                base=self.cfg.store.parent, files=False)  # where they are is today's file's say
        except ConfigError as exc:  # a copy stored before league.toml's checks were as strict as now
            raise LeagueError(f"{exc} (the copy of league.toml season {season.season} started with, checked "
                              f"again; its stored games are kept, but it cannot be finished with this copy)") from None
        return replace(snap, store=self.cfg.store, log=self.cfg.log, workers=self.cfg.workers)

    def _start_season(self, replacing: int | None = None) -> Season:
        """Plan the next season (or plan again ``replacing``, one with no game played) and store it,
        once every entrant of its field has started."""
        cfg = self.cfg
        number = replacing or max((s.season for s in self.db.seasons()), default=0) + 1
        field_: list[Version] = []
        for ent in self.db.entrants():
            if not ent.active:
                continue
            v = self.db.latest(ent.name)
            if v is None:
                continue
            self._same_files(v)
            field_.append(v)
        if len(field_) < max(2, cfg.min_field):
            need = max(2, cfg.min_field)
            raise LeagueError(f"season {number} needs at least {need} active entrants "
                              f"({', '.join(cfg.labels)}), the league has {len(field_)} (tute league submit)")
        self._check_start(number, cfg, [EntrantConfig(v.entrant, v.bot, dict(v.params), v.isolation)
                                        for v in field_], under_way=False)
        previous: dict[str, SeasonEntrant] = {}
        for e in self.db.season_entrants():
            if e.season != replacing:
                previous[e.entrant] = e
        now = {s.entrant: s.rating for s in standings(self.db, cfg)}
        divisions = plan_divisions(cfg, [v.entrant for v in field_], previous, now)
        n_div = max(divisions.values())
        tournaments = [cfg.tournament_name(number, d, n_div) for d in range(1, n_div + 1)]
        self.db.start_season(number, cfg.text, tournaments,
                             [SeasonEntrant(number, v.entrant, v.version, divisions[v.entrant]) for v in field_],
                             replacing=replacing is not None)
        return next(s for s in self.db.seasons() if s.season == number)

    def _same_files(self, v: Version, resuming: int | None = None) -> None:
        """A version is what was submitted: refuse to play a bot whose files changed since. In a season
        ``resuming`` (its games so far played by the files submitted), the changed code would go on
        under the old version's name: only the files as submitted can finish it."""
        try:
            now = plugin_files(list(v.bot) if isinstance(v.bot, tuple) else v.bot)
        except BotLoadError as exc:
            if resuming is not None:  # not found: the start check names it, and --forfeit-missing applies
                return
            raise LeagueError(f"entrant {v.entrant!r} (version {v.version}) cannot be found any more: {exc}; "
                              f"reinstall it, or tute league withdraw {v.entrant}") from None
        if now.digest != v.plugin_hash:
            if resuming is not None:
                raise LeagueError(f"season {resuming} cannot go on: entrant {v.entrant!r}: its files changed since "
                                  f"version {v.version} was submitted, and its games of this season were played by "
                                  f"them: restore its files to finish the season (then submit the change with "
                                  f"--update)")
            raise LeagueError(f"entrant {v.entrant!r}: its files changed since version {v.version} was submitted; "
                              f"submit it again with --update (a new version), or withdraw it")

    def _finish_season(self, season: Season, cfg: LeagueConfig, entries: list[SeasonEntrant], priors: Priors) -> None:
        """The season's ratings are its division tournaments' tables, kept as their games landed
        (each started from the league's priors): reading them costs the entrants, not the games."""
        division = {e.entrant: e.division for e in entries}
        with Store(cfg.store) as store:
            tallies = [(t, tally_of(store, t)) for t in season.tournaments]
        if store.damaged:  # ratings kept for good from tables with holes: never; the season stays open
            first, why = sorted(store.damaged.items())[0]
            raise LeagueError(f"{cfg.store}: season {season.season} cannot be finished: "
                              f"{plural(len(store.damaged), 'stored game')} cannot be read (first: {first}: {why}); "
                              f"restore the store from a copy, then run the season again to finish it")
        n_div = len(season.tournaments)

        def table_of(scope: str) -> list[TableRow]:
            out: list[TableRow] = []
            for d, (_, tally) in enumerate(tallies, start=1):
                names = [e.entrant for e in entries if division[e.entrant] == d or n_div == 1]
                out.extend(tally.scope(None if scope == POOLED else scope).standings(names))
            return out
        ratings = rating_rows(cfg, season.season, entries, priors, table_of)
        self.db.finish_season(season.season, ratings, places(cfg, entries, ratings))


def _same(v: Version, plugin: PluginFiles, params: dict[str, Any], isolation: str) -> bool:
    return (v.plugin_hash == plugin.digest and v.bot == plugin.bot and v.params == params
            and v.isolation == isolation)


def _failures(report: ComplianceReport) -> str:
    fails = report.failures
    if report.error:
        return report.error
    if sum(fails.values()):
        return ", ".join(f"{n} {r}" for r, n in sorted(fails.items()))
    return "not reproducible"


def _whoami() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
