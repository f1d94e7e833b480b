"""Forfeits said where the user looks: at once during a run, in its summary, in its exit status.

A bot that cannot find its script, or crashes on every deal, still "plays" every game of a tournament:
each one a forfeit. Counting them only in a table column hid a run of 120 forfeits out of 120 games
behind exit status 0. ``ForfeitWatch`` follows the stored rows as they come back from the workers,
warns once per entrant as soon as its forfeits pass a threshold, and gives the summary lines (every
entrant with forfeits, by reason, with the first detail) and the entrants that forfeited every game.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from arena.record_schema import escaped
from arena.result import GameResult, names_in_play
from leagues.tournament.packing import unpack
from leagues.tournament.store import ROW_RESULT

#: warn when an entrant has forfeited at least this share of its first ``EARLY_GAMES`` games
EARLY_SHARE = 0.2
EARLY_GAMES = 20
ROW_ID, ROW_SEATS, ROW_RECORD = 0, 8, 13


@dataclass
class EntrantForfeits:
    #: deals played (a match counts those of its deals the entrant played) and deals forfeited
    games: int = 0
    forfeits: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    #: per reason, the first game it happened in and its detail
    first: dict[str, tuple[str, str]] = field(default_factory=dict)
    warned: bool = False


def played(seats: Sequence[str], sit_out: int | None) -> Counter[str]:
    """The deals one deal counts for each entrant: one for every name in play (``names_in_play``)."""
    return Counter(names_in_play(seats, sit_out))


def match_played(seats: Sequence[str], deals: Sequence[dict[str, Any]]) -> Counter[str]:
    """The deals of a match each entrant played, counted deal by deal: in cabrero with 5 or 6 each deal
    has a dealer who sits it out (the match's own result names one only if a seat sat out every deal),
    and a deal sat out is no deal played, nor one that could be forfeited: a bot forfeiting every deal
    it plays forfeited them all."""
    out: Counter[str] = Counter()
    for deal in deals:
        out.update(played(deal.get("seats", seats), deal.get("result", {}).get("sit_out")))
    return out


def row_forfeits(row: Sequence[Any]) -> tuple[Counter[str], list[tuple[int, str, str, str]]]:
    """The deals each entrant played in one stored row (``played``, ``match_played``) and the row's
    forfeits as (seat, reason, detail, deal id): one deal and its own forfeit, or a match's deals and
    theirs."""
    result_json = row[ROW_RESULT]
    seats = json.loads(row[ROW_SEATS])
    if '"forfeit":null' in result_json and '"reason":"match"' not in result_json:
        return played(seats, row_sit_out(row)), []
    result = json.loads(result_json)
    f = result.get("forfeit")
    if f:
        return played(seats, result.get("sit_out")), [(f["seat"], f["reason"], f.get("detail", ""), row[ROW_ID])]
    if result.get("reason") != "match":
        return played(seats, result.get("sit_out")), []
    deals = json.loads(unpack(row[ROW_RECORD])).get("deals", [])
    return match_played(seats, deals), deal_forfeits(deals, row[ROW_ID])


def row_sit_out(row: Sequence[Any]) -> int | None:
    """The seat that sat the stored row's deal out (cabrero with 5 or 6), if any."""
    result_json = row[ROW_RESULT]
    if '"sit_out":' not in result_json:
        return None
    return json.loads(result_json).get("sit_out")


def own_forfeit(result: GameResult, game_id: str) -> list[tuple[int, str, str, str]]:
    """A single deal's forfeit as a fold takes it, from its result (a match's are its deals':
    ``deal_forfeits``)."""
    f = result.forfeit
    return [(f.seat, f.reason, f.detail, game_id)] if f is not None else []


def deal_forfeits(deals: Sequence[dict[str, Any]], fallback_id: str) -> list[tuple[int, str, str, str]]:
    out = []
    for deal in deals:
        f = deal.get("result", {}).get("forfeit")
        if f:
            out.append((f["seat"], f["reason"], f.get("detail", ""), deal.get("id", fallback_id)))
    return out


#: the line of a stack trace that names the error, in most languages: ``TypeError: ...`` (Node, Python),
#: ``Exception in thread ...`` (Java), ``thread 'main' panicked at ...`` (Rust), ``panic: ...`` (Go)
#: (the name and its colon: a debug line such as "Error margin 0.25" is not an error)
_ERROR_LINE = re.compile(r"^([\w.$]*(Error|Exception)(\s*\[[^\]]*\])?:|Exception in thread|thread '.*' panicked|"
                         r"panic: )")


def first_line(text: str, limit: int = 200) -> str:
    """A detail for one line of a summary: what the referee said, and of the bot's stderr the line that
    names the error (a Python traceback's last line; in other languages the first line that looks like
    an error, where the stack's first line is only a file and line). What a bot wrote is shown with its
    controls as escapes: an escape sequence would act on the terminal."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0]
    if len(lines) > 1:
        if "Traceback" in line:
            line = lines[-1]
        else:
            error = next((x for x in lines[1:] if _ERROR_LINE.match(x)), None)
            if error is not None:  # after the referee's words, the error in place of the stack's first line
                line = (line[:line.index("stderr:") + 7] if "stderr:" in line else line + " |") + " " + error
    line = escaped(line)
    return line if len(line) <= limit else line[:limit - 3] + "..."


class ForfeitWatch:
    """Per entrant, games and forfeits of the stored rows seen so far."""

    def __init__(self) -> None:
        self.entrants: dict[str, EntrantForfeits] = {}

    def add(self, row: Sequence[Any]) -> list[str]:
        """Count one stored row; return the warnings it triggers (at most one per entrant per run)."""
        deals, forfeits = row_forfeits(row)
        return self.add_game(json.loads(row[ROW_SEATS]), deals, forfeits)

    def add_game(self, seats: Sequence[str], deals: Mapping[str, int],
                 forfeits: Sequence[tuple[int, str, str, str]]) -> list[str]:
        """Count one game (a match has several deals): ``deals``, those each entrant played (``played``:
        a dealer who sat a deal out did not play it, as the tally counts: the summary and the warning
        agree), and its forfeits."""
        for name, n in deals.items():
            self.entrants.setdefault(name, EntrantForfeits()).games += n
        warnings = []
        for seat, reason, detail, gid in forfeits:
            e = self.entrants[seats[seat]]
            e.forfeits += 1
            e.reasons[reason] += 1
            e.first.setdefault(reason, (gid, detail))
        for name in deals:
            e = self.entrants[name]
            if e.warned or not e.forfeits:
                continue
            early = e.games <= EARLY_GAMES and e.forfeits >= EARLY_SHARE * EARLY_GAMES
            if early or (e.games >= EARLY_GAMES and e.forfeits == e.games):
                e.warned = True
                warnings.append(f"warning: {name} forfeited {e.forfeits} of its first {e.games} deals "
                                f"({self._reasons(e)}); first: {self._first(e)}")
        return warnings

    @staticmethod
    def _reasons(e: EntrantForfeits) -> str:
        return ", ".join(f"{n} {r}" for r, n in e.reasons.most_common())

    @staticmethod
    def _first(e: EntrantForfeits) -> str:
        reason = e.reasons.most_common(1)[0][0]
        gid, detail = e.first[reason]
        return f"{gid}: {reason}: {first_line(detail)}"

    def summary_lines(self) -> list[str]:
        """One line per entrant with forfeits, most first: how many, by reason, the first detail."""
        rows = sorted(((n, e) for n, e in self.entrants.items() if e.forfeits), key=lambda x: (-x[1].forfeits, x[0]))
        return [f"{name}: {e.forfeits} of {e.games} deals forfeited ({self._reasons(e)}); first: {self._first(e)}"
                for name, e in rows]

    def all_forfeited(self) -> list[str]:
        """The entrants that forfeited every deal they played (a run whose result means nothing)."""
        return sorted(n for n, e in self.entrants.items() if e.games and e.forfeits >= e.games)
