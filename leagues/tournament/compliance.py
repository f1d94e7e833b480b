"""Compliance run: does a bot play by the rules, in time, without crashing, reproducibly?

``check_bot`` plays the bot against ``random`` in every preset variant (each seat in turn, both seats
of a side in pairs) and counts what went wrong. ``tute bots check`` prints the report; a league can run
the same check before admitting an entrant. Reproducibility is tested by playing the first deals again
with a fresh instance (a fresh process, for an isolated bot): a bot that reseeds from the game's seed
(``new_game``'s ``seed`` and ``seat``) plays them identically.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from arena import VARIANTS, GameRecord, derive_seed, play_game, replay, shuffled_deck
from arena.hosting import BotLoadError, clock_stops, make_player, resolve_spec, start_problem
from arena.record_schema import escaped
from arena.result import LOSS, SHARED, WIN, outcome
from arena.view import PlayerView

#: every preset the referee supports
DEFAULT_VARIANTS: tuple[str, ...] = tuple(VARIANTS)
FAILURE_REASONS = ("illegal", "timeout", "crash", "protocol")


class _Timed:
    """Times the bot's decisions as the referee sees them (host and pipe included)."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        self.times: list[float] = []

    def new_game(self, info: dict[str, Any]) -> None:
        self.player.new_game(info)

    def game_over(self, result: dict[str, Any]) -> None:
        self.player.game_over(result)

    def choose(self, view: PlayerView) -> Any:
        t = time.perf_counter()
        try:
            return self.player.choose(view)
        finally:
            self.times.append(time.perf_counter() - t)

    def close(self) -> None:
        self.player.close()

    def clock_stops(self) -> int:
        return clock_stops([self.player])


@dataclass
class VariantReport:
    variant: str
    deals: int = 0
    decisions: int = 0
    #: the bot's deals by outcome: win, draw, loss (forfeits are losses and counted below as well)
    wins: int = 0
    losses: int = 0
    draws: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    #: a few failure details, for the user to read
    examples: list[str] = field(default_factory=list)
    mean_ms: float = 0.0
    max_ms: float = 0.0
    #: did a fresh instance replay the first deals action for action (None: not tested)
    reproducible: bool | None = None
    repro_detail: str = ""

    @property
    def failed(self) -> int:
        return sum(self.failures.values())


@dataclass
class ComplianceReport:
    bot: str
    description: str
    variants: list[VariantReport]
    seed: int
    error: str = ""

    @property
    def failures(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for v in self.variants:
            total.update(v.failures)
        return total

    @property
    def reproducible(self) -> bool:
        return all(v.reproducible is not False for v in self.variants)

    def passed(self, require_reproducible: bool = False) -> bool:
        if self.error or sum(self.failures.values()):
            return False
        return self.reproducible or not require_reproducible


def _seats_of_bot(variant_players: int, pairs: bool, deal: int) -> tuple[int, ...]:
    """Where the bot sits in deal ``deal``: every seat in turn (a whole side in pairs)."""
    if pairs:
        s = deal % 2
        return (s, s + 2)
    return (deal % variant_players,)


def _play_deals(bot: str | list[str], params: dict[str, Any] | None, variant: str, deals: Sequence[int], seed: int,
                isolation: str, time_limit_ms: int, memory_mb: int) -> tuple[list[GameRecord], list[tuple[int, ...]],
                                                                            list[_Timed], str]:
    v = VARIANTS[variant]
    n = v.players
    seats_used = 2 if v.pairs else 1
    mine = [_Timed(make_player(bot, params, isolation=isolation, time_limit_ms=time_limit_ms, memory_mb=memory_mb))
            for _ in range(seats_used)]
    description = mine[0].player.describe()
    others = [make_player("random") for _ in range(n)]
    records, where = [], []
    try:
        for d in deals:
            bot_seats = _seats_of_bot(n, v.pairs, d)
            players: list[Any] = list(others)
            for k, s in enumerate(bot_seats):
                players[s] = mine[k]
            names = [mine[0].name if s in bot_seats else "random" for s in range(n)]
            game_seed = derive_seed("check", variant, seed, d)
            dealer = (d + 1 + d // n) % n  # not always the bot's seat: a dealer sits out in cabrero-5/6
            rec = play_game(v, shuffled_deck(v, game_seed), dealer, players, game_id=f"check/{variant}/{d}",
                            seed=game_seed, names=names)
            records.append(rec)
            where.append(bot_seats)
    finally:
        for p in mine:
            p.close()
    return records, where, mine, description


def check_bot(bot: str | list[str], params: dict[str, Any] | None = None, *, deals: int = 200,
              variants: Sequence[str] | None = None, seed: int = 0, isolation: str = "auto",
              time_limit_ms: int = 1000, memory_mb: int = 1024, repro_deals: int = 5,
              progress: Callable[[str], None] | None = None) -> ComplianceReport:
    """Play ``deals`` deals in total (split evenly over ``variants``, at least one per seat of each, so
    the bot sits in every seat, the dealer's included) and report.

    Raises ``arena.hosting.BotLoadError`` if the bot cannot be found at all, or does not start (answer
    its hello); everything the bot does wrong once started is in the report.
    """
    names = list(variants or DEFAULT_VARIANTS)
    for name in names:
        if name not in VARIANTS:
            raise ValueError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    resolve_spec(bot, params)  # an unknown bot fails here, before any deal
    # one start before any deal: a bot that never answers its hello cost its start-up limit at every
    # deal of the run (forty deals of a league's check took ten minutes to refuse it)
    problem = start_problem(make_player(bot, params, isolation=isolation, time_limit_ms=time_limit_ms,
                                        memory_mb=memory_mb))
    if problem is not None:
        raise BotLoadError(f"it does not start: {problem}")
    share = deals // len(names)
    reports: list[VariantReport] = []
    description = ""
    for name in names:
        if progress:
            progress(name)
        rep = VariantReport(name)
        per = max(VARIANTS[name].players, share)
        records, where, timed, description = _play_deals(bot, params, name, range(per), seed, isolation,
                                                         time_limit_ms, memory_mb)
        times = [t for p in timed for t in p.times]
        rep.deals = len(records)
        rep.decisions = len(times)
        rep.mean_ms = 1000 * sum(times) / len(times) if times else 0.0
        rep.max_ms = 1000 * max(times) if times else 0.0
        for rec, seats in zip(records, where):
            r = rec.result
            replay(rec)  # the referee double-checks itself; a failure here is a referee bug, not the bot's
            if r.forfeit is not None and r.forfeit.seat in seats:
                rep.failures[r.forfeit.reason] += 1
                if len(rep.examples) < 3:
                    rep.examples.append(f"deal {rec.id}: {r.forfeit.reason}: {escaped(r.forfeit.detail)}")
            kind = outcome(r, seats[0], rec.teams)
            if kind == SHARED:
                rep.draws += 1
            elif kind == WIN:
                rep.wins += 1
            elif kind == LOSS:
                rep.losses += 1  # (SAT_OUT: the bot dealt and sat the deal out; THROWN_IN: all passed)
        k = min(repro_deals, per)
        if k and not rep.failed:
            again, _, timed_again, _ = _play_deals(bot, params, name, range(k), seed, isolation, time_limit_ms,
                                                   memory_mb)
            same = [a.actions == b.actions for a, b in zip(records[:k], again)]
            rep.reproducible = all(same)
            if not rep.reproducible:
                first = same.index(False)
                rep.repro_detail = f"deal {records[first].id} played differently by a fresh instance"
                stops = clock_stops([*timed, *timed_again])
                if stops:  # the bot said why: its clock, not its own counted work, ended some decisions
                    rep.repro_detail += (f" (its clock, not its counted work, ended {stops} of its decisions: "
                                         f"a larger --time-limit usually avoids it)")
        reports.append(rep)
    label = bot if isinstance(bot, str) else " ".join(bot)
    return ComplianceReport(label, description, reports, seed)


def format_report(report: ComplianceReport, require_reproducible: bool = False) -> list[str]:
    """The report as text lines, one row per variant, then the verdict."""
    from tabulate import tabulate

    rows = []
    for v in report.variants:
        rows.append([v.variant, v.deals, v.decisions, f"{v.wins}/{v.draws}/{v.losses}",
                     v.failures.get("illegal", 0), v.failures.get("timeout", 0), v.failures.get("crash", 0),
                     v.failures.get("protocol", 0), f"{v.mean_ms:.3f}", f"{v.max_ms:.3f}",
                     {True: "yes", False: "NO", None: "-"}[v.reproducible]])
    # the description often starts with the bot's name already (``greedy (in-process, ...)``): said once
    desc = report.description
    named = desc if desc.startswith(report.bot) else f"{report.bot} - {desc}" if desc else report.bot
    lines = [f"bot: {named}", f"seed: {report.seed}, against random", ""]
    lines += tabulate(rows, headers=["variant", "deals", "decisions", "W/D/L", "illegal", "timeout", "crash",
                                     "protocol", "mean ms", "max ms", "reproducible"],
                      disable_numparse=True,  # as written: 0.000, not 0
                      colalign=("left", *["right"] * 9, "left")).splitlines()
    for v in report.variants:
        for ex in v.examples:
            lines.append(f"  {v.variant}: {ex}")
        if v.repro_detail:
            lines.append(f"  {v.variant}: not reproducible: {v.repro_detail}")
    ok = report.passed(require_reproducible)
    fails = report.failures
    if ok:
        verdict = "PASS"
        if not report.reproducible:
            verdict += " (warning: a fixed seed does not reproduce its games)"
    else:
        what = ", ".join(f"{n} {r}" for r, n in sorted(fails.items())) or "not reproducible"
        verdict = f"FAIL: {what}"
    lines += ["", verdict]
    return lines
