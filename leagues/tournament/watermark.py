"""The runner's side of the tables kept as games land: fold finished games in schedule order only.

Workers finish games out of order, and a table folded in completion order would depend on the number
of workers. ``Watermark`` sees every scheduled game in schedule order (``schedule``), keeps the games
that came back early, and folds the contiguous prefix into the tournament's tally (the *watermark*);
the tally is saved in the transaction that stores the batch (``save``), so the store's tables and its
games never disagree, and a killed run leaves a tally of a prefix. On resume the games stored past the
watermark are read back and wait in the same way.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Iterable, Iterator, Mapping, Sequence

from arena import GameResult

from leagues.tournament.config import TournamentConfig
from leagues.tournament.forfeits import row_forfeits
from leagues.tournament.leaderboard import keep_fold, landed
from leagues.tournament.schedule import GameSpec
from leagues.tournament.store import ORDER_COLUMNS, ROW_RESULT, GameRow, Store, StoreError, names_json
from leagues.tournament.tally import ForfeitList, Tally


def row_of(row: Sequence[Any]) -> GameRow:
    """A ``game_row`` tuple (what a worker returns) as the ``GameRow`` a reader would load."""
    return GameRow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], tuple(json.loads(row[8])),
                   tuple(json.loads(row[9])), row[10], row[11], "done",
                   GameResult.from_json(json.loads(row[ROW_RESULT])))


#: what a tournament refused on resume (other versions, rules or pairings than it began with) can do;
#: a league's seasons say their own (``run_tournament``'s ``advice``)
RESUME_ADVICE = "finish it with the version that began it, or run with --new to start it again"


class Watermark:
    """The tally of one tournament being played, and the games waiting to be folded into it."""

    def __init__(self, cfg: TournamentConfig, store: Store, advice: str = RESUME_ADVICE) -> None:
        teams = {v.label: [tuple(t) for t in v.variant.teams] for v in cfg.variants}
        self.store = store
        #: what the user can do with a tournament its schedule no longer fits (a league has no --new)
        self.advice = advice
        self.name = cfg.name
        self.duplicate = cfg.duplicate
        priors = {scope: dict(ps) for scope, ps in cfg.priors.items()}
        loaded = Tally.load(store.db, cfg.name, cfg.rating, teams, priors=priors)
        if loaded is not None and not self._consistent(loaded):
            loaded = None  # games stored behind the watermark since (an import): fold everything again
        if loaded is None:
            with store.transaction():
                Tally.drop(store.db, cfg.name)
        self.tally = loaded or Tally(cfg.name, cfg.rating, teams, priors)
        self.waiting: dict[str, tuple[GameRow, Mapping[str, int] | None, ForfeitList | None]] = {}
        for row in store.iter_games(cfg.name, after=self.tally.watermark):
            self.waiting[row.id] = (row, *landed(store, row))
        self.queue: deque[str] = deque()
        #: ``check``'s map of the stored deals by id without their rotation, and the stored games it is of
        self._elsewhere: tuple[Mapping[str, str], dict[str, str]] | None = None
        #: games deleted since they were folded (a match's games past its decision): ``settle`` folds
        #: every stored game again
        self.stale = False

    def _consistent(self, tally: Tally) -> bool:
        """The stored tally is the fold of exactly the games stored up to its watermark."""
        assert tally.watermark is not None
        behind = self.store.db.execute(
            f"SELECT COUNT(*) FROM games WHERE tournament = ? AND ({ORDER_COLUMNS}) <= (?, ?, ?, ?, ?)",
            (self.name, *tally.watermark)).fetchone()[0]
        return int(behind) == tally.games

    def schedule(self, specs: Iterable[GameSpec], stored: Mapping[str, str]) -> Iterator[GameSpec]:
        """The games of ``specs`` (in schedule order) still to play; every one past the watermark,
        stored or not, takes its place in the queue of games to fold. Each is checked against the
        stored games first (``check``)."""
        mark = self.tally.watermark
        for spec in self.check(specs, stored):
            if mark is not None and spec.order <= mark:
                continue
            self.queue.append(spec.id)
            if spec.id not in stored:
                yield spec

    def check(self, specs: Iterable[GameSpec], stored: Mapping[str, str]) -> Iterator[GameSpec]:
        """``specs``, each checked as it is taken: a stored game the schedule now seats otherwise (a
        tournament begun by a version of tute-arena that paired differently) stops the run before
        anything is mixed. ``stored``: the seats of each stored game. Run over a round's games before
        its sit-outs are stored, so that a refused resume writes nothing."""
        # without duplicate deals a deal is played in one rotation: stored in another, it was scheduled by
        # a version that chose rotations otherwise (before the units dealt in turn). Made once per run's
        # stored games: a Swiss run checks each round's games, and a store may hold a million
        if self._elsewhere is None or self._elsewhere[0] is not stored:
            self._elsewhere = (stored, {} if self.duplicate else {i.rsplit("/s", 1)[0]: i for i in stored})
        elsewhere = self._elsewhere[1]
        for spec in specs:
            seats = stored.get(spec.id)
            other = elsewhere.get(spec.id.rsplit("/s", 1)[0]) if seats is None else None
            if (seats is not None and seats != names_json(spec.seats)) or other is not None:
                now = f"the schedule now seats {names_json(spec.seats)}"
                was = (f"game {spec.id} is stored with seats {seats}, but {now}" if other is None else
                       f"game {other} is stored, but {now} in that deal as {spec.id}")
                raise StoreError(
                    f"{self.store.path}: {was}: this tournament was begun by a tute-arena that paired it "
                    f"differently; {self.advice}")
            yield spec

    def land(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Games a worker finished: fold the prefix they complete."""
        for r in rows:
            deals, forfeits = row_forfeits(r)
            row = row_of(r)
            self.waiting[row.id] = (row, deals, forfeits if row.result.reason == "match" else None)
        self.advance()

    def advance(self) -> None:
        while self.queue and self.queue[0] in self.waiting:
            row, deals, forfeits = self.waiting.pop(self.queue.popleft())
            self.tally.add(row, deals, forfeits)

    def save(self, db: Any) -> None:
        self.tally.save(db)

    def settle(self) -> None:
        """After the schedule: fold what waits and save it. Games that never reached the fold (a match
        stopped by its SPRT leaves games stored past a pairing's decision, in no order the schedule
        foresaw) make the tally the fold of every stored game instead, saved as such."""
        self.advance()
        if self.waiting or self.queue or self.stale:
            self.waiting.clear()
            self.queue.clear()
            with self.store.transaction():
                self.tally = keep_fold(self.store, self.name)  # a fresh fold saves whole: every entry is new
            return
        with self.store.transaction():
            self.tally.save(self.store.db)
