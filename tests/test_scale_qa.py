"""What a reader costs as the store grows, counted rather than timed: the SQLite virtual machine's steps
(a progress handler) of a reader's queries on a small tournament and on one ten times larger, or in a
store before and after another tournament lands. A reader the docs call flat (docs/scaling.md) must not
take more steps on the larger one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from leagues.tournament.config import load_config
from leagues.tournament.leaderboard import all_tables, forfeit_watch
from leagues.tournament.runner import clocked_warning, run_tournament
from leagues.tournament.store import Store


def _config(folder: Path, name: str, deals: int, prefix: str) -> Path:
    lines = [f'name = "{name}"', "seed = 1", 'format = "round-robin"', f"deals = {deals}", "workers = 1",
             'store = "s.sqlite"', "[[variants]]", 'name = "tute-2"']
    for i in range(3):
        lines += ["[[entrants]]", f'name = "{prefix}{i}"', 'bot = "random"', f"params = {{ seed = {i} }}"]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _steps(store: Store, call: Callable[[], Any]) -> int:
    """SQLite VM steps (in units of 10) that ``call`` takes on ``store``'s connection."""
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    store.db.set_progress_handler(tick, 10)
    try:
        call()
    finally:
        store.db.set_progress_handler(None, 0)
    return count[0]


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store: tournament ``small`` (12 games, players a0-a2), ``large`` (120 games, a0-a2), and
    ``other`` (240 games, players b0-b2), each with one game marked as decided by a bot's clock."""
    folder = tmp_path_factory.mktemp("scale")
    for name, deals, prefix in (("small", 2, "a"), ("large", 20, "a"), ("other", 40, "b")):
        run_tournament(load_config(_config(folder, name, deals, prefix)), workers=1, quiet=True)
    with Store(folder / "s.sqlite") as store:
        for name in ("small", "large", "other"):
            first = store.games(name, limit=1)[0].id
            with store.transaction():
                store.add_clocked(name, [first])
    return folder / "s.sqlite"


def test_a_leaderboards_clocked_games_read_the_marks_not_every_game(stores: Path) -> None:
    """``tute leaderboard`` and the end of ``tute run`` list the games a bot's clock decided: that read
    went through every row of the tournament (schedule order, then the id of each to look up in the
    marks), 2.7 million VM steps for a 274k-game tournament, 56 ms warm and every page of its rows cold."""
    with Store(stores, readonly=True) as store:
        assert store.clocked_games("large") == [store.games("large", limit=1)[0].id]
        small = _steps(store, lambda: store.clocked_games("small"))
        large = _steps(store, lambda: store.clocked_games("large"))
        assert large <= small + 2, (small, large)
        # the whole reader, as ``tute leaderboard --matrix`` reads it past its count of games
        reader = lambda name: (all_tables(store, name, None, True), forfeit_watch(store, name),  # noqa: E731
                               clocked_warning(store, [name]))
        assert _steps(store, lambda: reader("large")) <= _steps(store, lambda: reader("small")) + 2


@pytest.mark.parametrize("query", ["entrant", "forfeits"])
def test_filtered_games_do_not_read_other_tournaments_games(stores: Path, query: str) -> None:
    """``tute games --entrant NAME`` with no --tournament read every game of the store, the tournaments
    NAME never entered too (6.5M SQLite steps, 152 ms, at 306k games): now only those it entered.
    ``--forfeits`` read every game to find twenty when few were forfeited (1.5M steps): now a partial
    index holds the forfeited ones."""
    with Store(stores, readonly=True) as store:
        def reader(tournaments: tuple[str, ...]) -> Callable[[], Any]:
            def run() -> None:
                for t in tournaments:  # the same question, asked of a store without and with ``other``
                    if query == "entrant":
                        store.games(t, entrant="a1", limit=20)
                        store.count_games(t, entrant="a1")
                    else:
                        store.games(t, forfeits=True, limit=20)
            return run
        # ``other`` holds neither a1 nor a forfeit: `tute games` with no --tournament must cost what asking
        # each tournament that may hold them costs
        per_tournament = _steps(store, reader(("small", "large")))
        whole_store = _steps(store, reader((None,)))  # type: ignore[arg-type]
        assert whole_store <= per_tournament * 1.2 + 10, (per_tournament, whole_store)


def test_a_league_report_does_not_hold_every_season_in_memory(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The report held every game row of every season in a list (about 1.6 kB of memory a stored game:
    155 MB for 100k games, growing with every season played) for its head-to-head matrix and pair
    pages. It streams them now: counted here as the most game rows alive at once, each row handed out
    by the store wrapped in an object whose end is seen (a weak reference)."""
    import weakref

    from leagues.league import report as report_module
    from leagues.league.league import League

    from league_util import write_league

    write_league(tmp_path, deals=4)
    with League.open(tmp_path) as lg:
        lg.submit("r1", "random", params={"seed": 1})
        lg.submit("r2", "random", params={"seed": 2})
        lg.submit("r3", "random", params={"seed": 3})
        for _ in range(3):
            lg.play_season(quiet=True)

    class Tracked:
        """A stored row, counted while alive."""

        def __init__(self, row: Any) -> None:
            self._row = row
            alive[0] += 1
            most[0] = max(most[0], alive[0])
            weakref.finalize(self, lambda: alive.__setitem__(0, alive[0] - 1))

        def __getattr__(self, name: str) -> Any:
            return getattr(self._row, name)

    alive, most, total = [0], [0], [0]
    real = Store._row

    def tracked(self: Store, r: Any) -> Any:
        row = real(self, r)
        total[0] += 1
        return None if row is None else Tracked(row)

    monkeypatch.setattr(Store, "_row", tracked)
    monkeypatch.setattr(report_module, "PAIR_GAMES", 2)  # a pair's page keeps its first two
    with League.open(tmp_path) as lg:
        report_module.write_report(lg, tmp_path / "report", replays=1)
    # three pairs' first two games and a season's first game of each table, not all 72 games
    assert total[0] >= 72 and most[0] <= 12, (most[0], total[0])
