"""A tournament's tables kept as its games land: ratings, counts, head-to-head and forfeits per scope.

Every table a reader prints is a fold over the stored games in schedule order (round, variant, table,
deal, rotation). ``Tally`` is that fold, and it is the only one: a full recomputation folds every stored
game into a fresh ``Tally``, the runner folds each game into the stored one as the contiguous prefix
of the schedule grows (the *watermark*), and a reader loads the stored one and folds the few games
stored beyond the watermark (a run still going, or killed with holes in the schedule). The invariant
that makes all three agree: the stored tally is the fold of exactly the stored games ordered up to
its watermark. A reader's cost is then the number of entrants and pairs, not of games.

Head-to-head keeps, per ordered pair, the mean and spread of its duplicate-block means with Welford's
update (one block at a time, in order, the block being built kept open), so the interval needs no game
again. Persistence is four small tables (their schema is the store's, leagues/tournament/store.py),
written in the same transaction as the games.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from arena.result import LOSS, SHARED, WIN, outcome, sides_in_play, thrown_in, versus

from leagues.tournament.config import POOLED, RatingConfig  # noqa: F401  the pooled table's scope
from leagues.tournament.rating import Rater
from leagues.tournament.forfeits import EntrantForfeits, own_forfeit, played
from leagues.tournament.sprt import t95, wilson
from leagues.tournament.store import TALLY_TABLES, GameRow, StoreError, tally_count

#: what a stored tally counts, kept beside its watermark: a tally of another count is not loaded (the
#: readers fold every game instead, and the next ``tute run`` of the tournament folds and keeps it
#: again). 2: the dealer who sits a deal out (cabrero with 5 or 6) counts no game, outcome, comparison
#: or deal; a tally without the number (1) counted that seat as a shared place. 3: ratings carried
#: as plain (mu, sigma) floats, so a stored tally reads back to the last bit what the fold holds (2 kept
#: trueskill's Rating, whose mu and sigma come back within a bit of what was stored). 4: a subastado
#: deal thrown in counts nowhere; a unit holding several sides of a game (a match's field bot, a bot
#: against itself) is rated by the mean of its sides' updates and meets the others once per side; a
#: table of one variant is kept apart from the pooled one when their priors differ. 5: a match's deals
#: are counted per entrant, deal by deal: one a dealer sat out (cabrero with 5 or 6) is not one it
#: played (4 credited every entrant with every deal of the match in ``forfeit_tallies``), and the table's
#: ``forfeits`` count the deals of a match forfeited (4 counted only a result's own forfeit: none).
COUNT = 5
#: the table's column for each outcome (``arena.result.outcome``)
COLUMN = {WIN: "wins", SHARED: "draws", LOSS: "losses"}

Order = tuple[int, int, int, int, int]
#: what a fold needs of a deal's forfeits: (seat, reason, detail, deal id)
ForfeitList = Sequence[tuple[int, str, str, str]]


@dataclass(frozen=True)
class Standing:
    rank: int
    entrant: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    points_per_deal: float
    forfeits: int


@dataclass(frozen=True)
class HeadToHead:
    """``a``'s mean score against ``b`` over duplicate blocks (1 win, 0.5 tie, 0 loss per game), with
    the 95% interval half-width: from the spread of block means (a t interval), but never less than
    the Wilson interval's half-width over the blocks, so that a score of 0 or 1 has a width."""
    a: str
    b: str
    score: float
    half_width: float
    blocks: int


@dataclass
class Counts:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    forfeits: int = 0


@dataclass
class PairStat:
    """Welford's running mean and sum of squares of one pair's block means, the open block apart."""
    blocks: int = 0
    mean: float = 0.0
    m2: float = 0.0
    open_block: str | None = None
    open_sum: float = 0.0
    open_n: int = 0

    def add(self, block: str, score: float) -> None:
        if block != self.open_block:
            self._close()
            self.open_block = block
        self.open_sum += score
        self.open_n += 1

    def _close(self) -> None:
        if self.open_n:
            x = self.open_sum / self.open_n
            self.blocks += 1
            delta = x - self.mean
            self.mean += delta / self.blocks
            self.m2 += delta * (x - self.mean)
        self.open_block, self.open_sum, self.open_n = None, 0.0, 0

    def final(self, a: str, b: str) -> HeadToHead:
        done = PairStat(self.blocks, self.mean, self.m2, self.open_block, self.open_sum, self.open_n)
        done._close()
        n, m = done.blocks, done.mean
        hw = t95(n - 1) * math.sqrt(done.m2 / (n - 1) / n) if n > 1 else 0.0
        # never no width where the blocks happen to agree (a score of 0 or 1): at least the half-width
        # of the Wilson interval of the score as a proportion of the blocks, which is right at the edges
        lo, hi = wilson(m * n, n)
        return HeadToHead(a, b, m, max(hw, (hi - lo) / 2), n)


class ScopeTally:
    """The fold of one table: every variant's games, or one variant's."""

    def __init__(self, rc: RatingConfig, teams: Mapping[str, Sequence[Sequence[int]]],
                 priors: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.rc = rc
        self.teams = {label: [tuple(t) for t in ts] for label, ts in teams.items()}
        self.rater = Rater(rc, self.teams, priors)
        self.counts: dict[str, Counts] = {}
        self.pairs: dict[tuple[str, str], PairStat] = {}
        self.dirty: set[str] = set()
        self.dirty_pairs: set[tuple[str, str]] = set()

    def add(self, row: GameRow, forfeits: ForfeitList | None = None) -> None:
        """Fold one game; ``forfeits``: its deals' (a match's, from its record), else the result's own."""
        self.rater.add(row)
        if thrown_in(row.result):
            return
        sides = self.teams[row.variant]
        result = row.result
        if forfeits is None:
            forfeits = own_forfeit(row.result, row.id)
        for t in sides_in_play(sides, result.sit_out):  # a unit of several sides: a game for each
            name = row.seats[t[0]]
            c = self.counts.setdefault(name, Counts())
            c.games += 1
            c.points += sum(result.points[s] for s in t)
            kind = COLUMN[outcome(result, t[0], sides)]
            setattr(c, kind, getattr(c, kind) + 1)
            c.forfeits += sum(1 for f in forfeits if f[0] in t)  # a match: every deal forfeited
            self.dirty.add(name)
        self.add_pairs(row)

    def add_pairs(self, row: GameRow) -> None:
        """Each ordered pair of sides in play's score in the game (``versus``), into its block; a unit of
        several sides (a match's field bot) meets the others once with each (the last one alone before)."""
        block = row.block
        ranks = [(row.seats[t[0]], row.result.ranks[t[0]])
                 for t in sides_in_play(self.teams[row.variant], row.result.sit_out)]
        for a, ra in ranks:
            for b, rb in ranks:
                if a != b:
                    p = self.pairs.get((a, b))
                    if p is None:
                        p = self.pairs[(a, b)] = PairStat()
                    p.add(block, versus(ra, rb))
                    self.dirty_pairs.add((a, b))

    def standings(self, names: Sequence[str]) -> list[Standing]:
        """The table of ``names`` (an entrant without a game yet stands at its prior): rank by
        conservative rating, then mu, then name."""
        rows = []
        for n in names:
            mu, sigma = self.rater.state(n)
            c = self.counts.get(n, Counts())
            rows.append((mu - self.rc.k * sigma, mu, n, sigma, c))
        rows.sort(key=lambda x: (-x[0], -x[1], x[2]))
        return [Standing(i + 1, n, cons, mu, sigma, c.games, c.wins, c.draws, c.losses,
                         c.points / c.games if c.games else 0.0, c.forfeits)
                for i, (cons, mu, n, sigma, c) in enumerate(rows)]

    def head_to_head(self) -> dict[tuple[str, str], HeadToHead]:
        return {key: p.final(*key) for key, p in self.pairs.items()}


class Tally:
    """Every table of one tournament (pooled and per variant), its forfeits, and how far it has folded."""

    def __init__(self, tournament: str, rc: RatingConfig, teams: Mapping[str, Sequence[Sequence[int]]],
                 priors: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> None:
        """``priors``: per table ("*" or a label), where entrants start (a league's season)."""
        self.tournament = tournament
        self.rc = rc
        self.teams = {label: [tuple(t) for t in ts] for label, ts in teams.items()}
        self.priors = dict(priors or {})
        #: the variants whose table is the pooled one: a single variant starting from the same priors
        self.shared = {label for label in self.teams
                       if len(self.teams) == 1 and (self.priors.get(label) or {}) == (self.priors.get(POOLED) or {})}
        self.scopes: dict[str, ScopeTally] = {}
        self.forfeits: dict[str, EntrantForfeits] = {}
        self.dirty_forfeits: set[str] = set()
        self.watermark: Order | None = None
        self.games = 0

    def scope(self, label: str | None) -> ScopeTally:
        """The table of one variant (``None``: of every variant). With a single variant the two are
        one fold, kept once, unless they start from different priors (a league season whose pooled
        and per-variant ratings were carried apart, e.g. after a variant was dropped from the league)."""
        key = POOLED if label is None or label in self.shared else label
        s = self.scopes.get(key)
        if s is None:
            s = self.scopes[key] = ScopeTally(self.rc, self.teams, self.priors.get(key))
        return s

    def add(self, row: GameRow, deals: Mapping[str, int] | None = None, forfeits: ForfeitList | None = None, *,
            ordered: bool = True) -> None:
        """Fold one stored game, in schedule order (``ordered`` checks it: a game behind the watermark
        would make the tally differ from a recomputation); ``deals`` and ``forfeits``: a match's deals
        each entrant played and their forfeits (``match_played``; a single deal: one for each name in
        play, and its own forfeit, read from the result when not given)."""
        if ordered and self.watermark is not None and row.order <= self.watermark:
            raise ValueError(f"game {row.id} folded out of schedule order (after {self.watermark})")
        if forfeits is None:
            forfeits = own_forfeit(row.result, row.id)
        self.scope(None).add(row, forfeits)
        if row.variant not in self.shared:
            self.scope(row.variant).add(row, forfeits)
        for name, n in (played(row.seats, row.result.sit_out) if deals is None else deals).items():
            self.forfeits.setdefault(name, EntrantForfeits()).games += n
            self.dirty_forfeits.add(name)
        for seat, reason, detail, gid in forfeits:
            e = self.forfeits[row.seats[seat]]
            e.forfeits += 1
            e.reasons[reason] += 1
            e.first.setdefault(reason, (gid, detail))
        self.watermark = row.order
        self.games += 1

    # --------------------------------------------------------------------------------- storage
    def save(self, db: sqlite3.Connection) -> None:
        """Write what changed since the last save (call inside the games' transaction)."""
        t = self.tournament
        for key, s in self.scopes.items():
            if s.dirty:
                db.executemany("INSERT OR REPLACE INTO tallies VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", [
                    (t, key, n, *_rating(s.rater, n), s.rater.games.get(n, 0), c.games, c.wins, c.draws, c.losses,
                     c.points, c.forfeits) for n in sorted(s.dirty) for c in [s.counts[n]]])
                s.dirty.clear()
            if s.dirty_pairs:
                db.executemany("INSERT OR REPLACE INTO pair_tallies VALUES (?,?,?,?,?,?,?,?,?,?)", [
                    (t, key, a, b, p.blocks, p.mean, p.m2, p.open_block, p.open_sum, p.open_n)
                    for (a, b) in sorted(s.dirty_pairs) for p in [s.pairs[(a, b)]]])
                s.dirty_pairs.clear()
        if self.dirty_forfeits:
            db.executemany("INSERT OR REPLACE INTO forfeit_tallies VALUES (?,?,?,?,?,?)", [
                (t, n, e.games, e.forfeits, json.dumps(dict(e.reasons), sort_keys=True),
                 json.dumps({r: list(v) for r, v in e.first.items()}, sort_keys=True))
                for n in sorted(self.dirty_forfeits) for e in [self.forfeits[n]]])
            self.dirty_forfeits.clear()
        if self.watermark is not None:
            db.execute("INSERT OR REPLACE INTO watermarks VALUES (?,?,?,?,?,?,?)", (t, *self.watermark, self.games))
            db.execute("INSERT OR REPLACE INTO tally_counts VALUES (?,?)", (t, COUNT))

    @classmethod
    def load(cls, db: sqlite3.Connection, tournament: str, rc: RatingConfig,
             teams: Mapping[str, Sequence[Sequence[int]]],
             priors: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> "Tally | None":
        """The stored tally of ``tournament``, or None if it has none (a store
        written before tallies, a tournament with no game folded yet, or a tally of another ``COUNT``)."""
        if not kept(db, tournament):
            return None
        try:
            return cls._load(db, tournament, rc, teams, priors)
        except sqlite3.DatabaseError as exc:  # a kept table dropped or unreadable
            raise _damaged(db, tournament, "", str(exc)) from None

    @classmethod
    def _load(cls, db: sqlite3.Connection, tournament: str, rc: RatingConfig,
              teams: Mapping[str, Sequence[Sequence[int]]],
              priors: Mapping[str, Mapping[str, tuple[float, float]]] | None) -> "Tally":
        """``load``'s reading, every value checked for its kind: a kept table edited by hand would
        otherwise fail deep inside TrueSkill or a report, or be shown as if true."""
        mark = db.execute("SELECT round, variant_index, tbl, deal, rotation, games FROM watermarks "
                          "WHERE tournament = ?", (tournament,)).fetchone()
        _check(db, tournament, "watermarks", "", mark, (int,) * 6, "round, variant_index, tbl, deal, rotation, games")
        out = cls(tournament, rc, teams, priors)
        out.watermark, out.games = tuple(mark[:5]), mark[5]  # type: ignore[assignment]
        where, args = "tournament = ?", [tournament]
        real, name, opt_real = (int, float), str, (int, float, type(None))
        for row in db.execute(
                f"SELECT scope, entrant, mu, sigma, rated, games, wins, draws, losses, points, forfeits "
                f"FROM tallies WHERE {where}", args):
            _check(db, tournament, "tallies", f"{row[0]}/{row[1]}", row, (name, name, opt_real, opt_real, *(int,) * 7),
                   "scope, entrant, mu, sigma, rated, games, wins, draws, losses, points, forfeits")
            key, n, mu, sigma, rated, *c = row
            s = out.scope(None if key == POOLED else key)
            if mu is not None:
                if sigma is None:
                    raise _damaged(db, tournament, f"tallies row {key}/{n}", "sigma: missing beside mu")
                s.rater.ratings[n] = (float(mu), float(sigma))
                s.rater.games[n] = rated
            s.counts[n] = Counts(*c)
        for row in db.execute(
                f"SELECT scope, a, b, blocks, mean, m2, open_block, open_sum, open_n FROM pair_tallies WHERE {where}",
                args):
            _check(db, tournament, "pair_tallies", f"{row[0]}/{row[1]}/{row[2]}", row,
                   (name, name, name, int, real, real, (str, type(None)), real, int),
                   "scope, a, b, blocks, mean, m2, open_block, open_sum, open_n")
            key, a, b, *p = row
            out.scope(None if key == POOLED else key).pairs[(a, b)] = PairStat(*p)
        for row in db.execute(
                "SELECT entrant, deals, forfeits, reasons, first FROM forfeit_tallies WHERE tournament = ?",
                (tournament,)):
            _check(db, tournament, "forfeit_tallies", str(row[0]), row, (name, int, int, str, str),
                   "entrant, deals, forfeits, reasons, first")
            n, deals, forfeits, reasons, first = row
            try:
                counts, firsts = json.loads(reasons), json.loads(first)
                if not (isinstance(counts, dict) and all(type(v) is int for v in counts.values())):
                    raise ValueError("reasons: not an object of counts")
                if not (isinstance(firsts, dict) and all(isinstance(v, list) and len(v) == 2 for v in firsts.values())):
                    raise ValueError("first: not an object of [deal id, detail]")
            except (ValueError, RecursionError) as exc:
                raise _damaged(db, tournament, f"forfeit_tallies row {n}", str(exc)[:150]) from None
            out.forfeits[n] = EntrantForfeits(deals, forfeits, Counter(counts),
                                              {r: (v[0], v[1]) for r, v in firsts.items()})
        if out.games and not any(s.counts for s in out.scopes.values()):  # rows deleted, or the table dropped
            # and made again, empty, by a writer: a table of no games would pass for the true one
            raise _damaged(db, tournament, "tallies", f"no rows, for a tally of {out.games} games")
        return out

    @staticmethod
    def drop(db: sqlite3.Connection, tournament: str) -> None:
        for table in TALLY_TABLES:
            db.execute(f"DELETE FROM {table} WHERE tournament = ?", (tournament,))


def _check(db: sqlite3.Connection, tournament: str, table: str, key: str, row: Sequence[object] | None,
           kinds: Sequence[type | tuple[type, ...]], columns: str) -> None:
    """A kept table's row holds values of the kinds its ``columns`` say (SQLite would store any)."""
    if row is None:
        raise _damaged(db, tournament, table, "the row is missing")
    for value, kind, column in zip(row, kinds, columns.split(", ")):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise _damaged(db, tournament, f"{table} row {key}".strip(), f"{column}: {value!r} is not a number or "
                                                                         f"name as the table holds"[:150])


def _damaged(db: sqlite3.Connection, tournament: str, where: str, why: str) -> StoreError:
    """The one-line error for a kept table that cannot be read, naming the store file and the row."""
    file = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main"), "") or "the store"
    return StoreError(f"{file}: tournament {tournament!r}: {where + ': ' if where else ''}{why} (the kept tables "
                      f"are damaged; `tute leaderboard --recompute` folds the games instead)")


def kept(db: sqlite3.Connection, tournament: str) -> bool:
    """Whether the store keeps a tally of ``tournament`` counted as this code counts (``COUNT``)."""
    return tally_count(db, tournament) == COUNT


def _rating(rater: Rater, name: str) -> tuple[float | None, float | None]:
    return rater.ratings.get(name, (None, None))


def fold(rows: Iterable[GameRow], rc: RatingConfig, teams: Mapping[str, Sequence[Sequence[int]]],
         priors: Mapping[str, Mapping[str, tuple[float, float]]] | None = None) -> Tally:
    """A fresh tally of ``rows`` (any order in, schedule order applied): the full recomputation. Rows
    of several tournaments (a league's season) fold one tournament after the other."""
    tally = Tally("", rc, teams, priors)
    for row in sorted(rows, key=lambda r: (r.tournament, r.order)):
        tally.add(row, ordered=False)
    return tally


def standings_of(rows: Sequence[GameRow], teams: dict[str, list[tuple[int, ...]]], rc: RatingConfig,
                 names: Sequence[str], priors: Mapping[str, tuple[float, float]] | None = None,
                 variant: str | None = None) -> list[Standing]:
    """The table of ``rows`` (one variant's with ``variant``); ``priors`` are where entrants start."""
    picked = [r for r in rows if variant is None or r.variant == variant]
    return fold(picked, rc, teams, {variant or POOLED: priors or {}}).scope(variant).standings(names)


def head_to_head(rows: Iterable[GameRow], teams: dict[str, list[tuple[int, ...]]]) -> dict[tuple[str, str], HeadToHead]:
    """Every ordered pair's score over the duplicate blocks of ``rows``, given in (tournament, schedule)
    order (a stream: ``Store.iter_games``, tournament by tournament)."""
    scope = ScopeTally(RatingConfig(), teams)
    for row in rows:
        scope.add_pairs(row)
    return scope.head_to_head()
