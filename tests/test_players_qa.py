"""QA pass on the built-in players as users meet them: ``random``, ``greedy``, ``search``, ``oracle`` and
the starter bot of ``tute bots new``.

Covered: bot parameters as the docs say they are given (``tute play -p``, ``tute bots check --params``,
``tournament.toml``'s ``params``) with wrong names, wrong types, zero, negative and NaN values;
``search``'s documented parameters against its constructor (docs/search.md "Parameters", docs/bots.md);
the oracle kept out of tournaments; ``search`` under a move limit (its counted work against the
clock's budget); the same games from one worker or two with ``search`` in a tournament; a scaffold's
name; the bot benchmarks at their smallest size (benchmarks/decision_time.py, benchmarks/search_strength.py).

Tests marked ``xfail(strict=True)`` are defects found in this pass, each failing now because of it; the
others pin behaviour checked here that no other test pins. No test asserts on wall-clock time: the
move limit is judged by ``search``'s own counted work (``bots/budget.py``).
"""

from __future__ import annotations

import importlib.util
import inspect
import io
import json
import re
import sqlite3
import sys
from contextlib import closing, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from arena import get_variant, play_game, shuffled_deck
from arena.hosting import BotLoadError, installed_bots, make_bot, make_player
from bots import search as search_module
from bots.budget import COST
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from bots.search import SearchBot
from leagues.cli import cli

from league_util import tute, write_config

ROOT = Path(__file__).resolve().parents[1]


def _bench(name: str) -> ModuleType:
    """``benchmarks/NAME.py`` as a module of its own name."""
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"qa_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its pool's workers find its functions by this name
    spec.loader.exec_module(module)
    return module


def _docs_table(doc: str, heading: str) -> dict[str, str]:
    """The first column (a name in backquotes) -> the second, of the table under ``## heading``."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\| `(\w+)` \| ([^|]+) \|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


# ------------------------------------------------------------------------------ search's parameters, documented
def test_every_search_parameter_is_documented_with_its_default_and_no_other() -> None:
    """docs/search.md "Parameters" lists exactly the constructor's keyword arguments, each with the
    default the code has (``unset`` for None); docs/bots.md names the same set."""
    table = _docs_table("search.md", "Parameters")
    signature = inspect.signature(SearchBot.__init__).parameters
    code = {name: p.default for name, p in signature.items() if name != "self"}
    assert set(table) == set(code)
    for name, default in code.items():
        doc = table[name]
        if default is None:
            assert doc == "unset", name
        elif isinstance(default, bool):
            assert doc == str(default).lower(), name
        else:
            assert float(doc.replace(",", "")) == float(default), name
    bots_md = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    listed = bots_md.split("Parameters (", 1)[1].split(") and", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(code)


def test_every_greedy_parameter_is_documented() -> None:
    bots_md = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    greedy = bots_md.split("- `greedy`", 1)[1].split("\n- `search`", 1)[0]
    for name in inspect.signature(GreedyBot.__init__).parameters:
        if name != "self":
            assert f"`{name}" in greedy, name


# ------------------------------------------------------------------------------ parameters, wrong
def test_a_wrong_parameter_name_or_type_is_one_line_exit_2_in_play_and_in_a_tournament(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tute play -p`` and ``tournament.toml``'s ``params``: a name the constructor does not take, or a
    value it cannot read, is refused before any game, in one line naming the parameter; a tournament's
    also names its file and entrant, and nothing is stored."""
    code, out, err = tute(capsys, "play", "tute-2", "search", "random", "-n", "1", "-p", '{"wrongname": 1}',
                          "-p", "{}", "--log", str(tmp_path / "p.log"))
    assert code == 2 and out == "", out
    assert len(err.strip().splitlines()) == 1 and "wrongname" in err and "Traceback" not in err, err
    path = write_config(tmp_path, entrants=[{"name": "s", "bot": "search", "params": {"worlds": "many"}},
                                            {"name": "g", "bot": "greedy", "params": {"depth": 3}}])
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "tournament.toml" in lines[0] and "'s'" in lines[0] and "'many'" in lines[0], lines[0]
    assert "'g'" in lines[0] and "depth" in lines[0], lines[0]  # every entrant that cannot start, at once
    assert not (tmp_path / "store.sqlite").exists()


@pytest.mark.parametrize("worlds", [0, -5])
def test_search_with_no_worlds_is_refused_or_still_samples_one(worlds: int) -> None:
    try:
        bot = make_bot("search", {"worlds": worlds})
    except BotLoadError:
        return  # refused: the user is told
    dealt = []
    deal = bot.deal
    bot.deal = lambda view: dealt.append(1) or deal(view)
    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 1), 1, [bot, RandomBot(1)], seed=1)
    assert rec.result.forfeit is None
    assert bot.searched > 0 and dealt, "searched decisions without a single world"


@pytest.mark.parametrize("params", [{"epsilon": 5}, {"epsilon": -1}, {"max_ms": -1}, {"work_ms": -100},
                                    {"bid_confidence": 1.5}])
def test_search_refuses_values_out_of_their_range(params: dict[str, Any]) -> None:
    with pytest.raises(BotLoadError):
        make_bot("search", params)


@pytest.mark.parametrize("key", ["endgame", "plans", "estimate"])
def test_a_boolean_parameter_given_as_the_string_false_is_not_read_as_true(key: str) -> None:
    try:
        bot = make_bot("search", {key: "false"})
    except BotLoadError:
        return  # refused: fine
    assert getattr(bot, key) is False


@pytest.mark.parametrize("params", [{"trump_for_points": "x"}, {"cabron_stop": None}])
def test_greedy_refuses_a_parameter_of_the_wrong_type(params: dict[str, Any]) -> None:
    with pytest.raises(BotLoadError):
        make_bot("greedy", params)


def test_greedy_with_a_wrong_typed_parameter_is_refused_or_forfeits_and_the_run_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Never a traceback: refused in one line (exit 2), or, as today, a crash forfeit in every game
    where the parameter is read, said in the summary, every deal forfeited exiting 3."""
    code, out, err = tute(capsys, "play", "cabron", "greedy", "random", "random", "-n", "2",
                          "-p", '{"cabron_stop": null}', "-p", "{}", "-p", "{}", "--log", str(tmp_path / "p.log"))
    assert "Traceback" not in out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and "cabron_stop" in err, err
        return
    assert code == 3, (out, err)
    assert "forfeits of seat 0 (greedy): 2 crash" in out and "TypeError" in out
    assert "greedy forfeited every deal" in err


@pytest.mark.parametrize("command", [["play", "tute-2", "random", "random", "-n", "1", "-p", '{"seed": NaN}',
                                      "-p", "{}"],
                                     ["bots", "check", "random", "--deals", "17", "--params",
                                      '{"seed": Infinity}']])
def test_params_on_the_command_line_refuse_nan_and_infinity_as_the_config_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    if command[0] == "play":
        command = [*command, "--log", str(tmp_path / "p.log")]
    code, out, err = tute(capsys, *command)
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_tute_match_and_the_config_refuse_nan_in_params(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The behaviour the command line's ``--params`` should share (above)."""
    monkeypatch.chdir(tmp_path)
    code, _, err = tute(capsys, "match", "random", "greedy", "-v", "tute-2", "--max-blocks", "1",
                        "--params-a", '{"seed": NaN}')
    assert code == 2 and "nan is not a json number" in err.lower(), err
    path = tmp_path / "nan.toml"
    path.write_text('name = "n"\n[[variants]]\nname = "tute-2"\n[[entrants]]\nname = "a"\nbot = "random"\n'
                    'params = { seed = nan }\n[[entrants]]\nname = "b"\nbot = "random"\n')
    code, _, err = tute(capsys, "run", str(path))
    assert code == 2 and "nan.toml:7: entrants[0].params.seed" in err, err


# ------------------------------------------------------------------------------ the oracle
def test_the_oracle_is_no_bot_a_tournament_can_name_and_never_plays_from_a_view(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/search.md "The oracle": not an entry point (so no default, listing or tournament names it);
    named as ``module:Class`` it has no real deal to look at, so every decision it would search is a
    crash forfeit and the run says the table means nothing (exit 3), in-process or isolated."""
    assert "oracle" not in installed_bots()
    assert "oracle" not in (ROOT / "tournament.toml").read_text(encoding="utf-8")
    code, _, err = tute(capsys, "play", "tute-2", "oracle", "greedy", "-n", "1", "--log", str(tmp_path / "p.log"))
    assert code == 2 and "unknown bot 'oracle'" in err
    for isolation in ("inprocess", "subprocess"):
        code, out, err = tute(capsys, "play", "tute-2", "bots.oracle:OracleBot", "greedy", "-n", "2",
                              "--isolation", isolation, "--log", str(tmp_path / "p.log"))
        if code == 2:  # refused before any deal: as good
            assert "oracle" in err.lower() and len(err.strip().splitlines()) == 1, err
            continue
        assert code == 3, (out, err)
        assert "2 crash" in out and "play_open" in out and "forfeited every deal" in err
    res = CliRunner().invoke(cli, ["bots", "list"])
    assert res.exit_code == 0 and "oracle" not in res.output


# ------------------------------------------------------------------------------ search under a move limit
def test_the_exact_endgame_keeps_within_the_move_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/search.md "Time": entered with ``time_limit_ms = 200``, search plays within 150 ms a move.
    Measured by its own counted work (each solver node at ``COST.node``, as ``bots/budget.py`` counts
    the leaves' nodes), not by the clock. ``tute play tute-2 search random -o hand_size=10 --isolation
    subprocess --time-limit 200 -p '{"worlds": 4}' -p '{}' -n 6`` forfeits most deals by timeout."""
    made: list[Any] = []

    class Recording(search_module.Endgame):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(search_module, "Endgame", Recording)
    v = get_variant("tute-2", hand_size=10)
    player = make_player("search", {"worlds": 4}, isolation="inprocess", time_limit_ms=200)
    rec = play_game(v, shuffled_deck(v, 1), 1, [player, GreedyBot()], seed=1)
    bot = player.bot  # type: ignore[attr-defined]
    assert rec.result.forfeit is None and bot.budget_ms() == 150
    endgames = [e.nodes for e in made if e.budget > bot.leaf_nodes]  # a decision's solver, not a leaf's
    assert endgames, "no exact endgame decision in this deal"
    assert max(endgames) * COST.node / 1000 <= bot.budget_ms()


# ------------------------------------------------------------------------------ the same games, any workers
def test_a_tournament_of_search_stores_the_same_games_with_one_worker_or_two(tmp_path: Path) -> None:
    """The counted work, not the clock, ends search's decisions (worlds no machine reaches, 8 ms of
    work): tute-2 (bitmask playouts, exact leaves and endgames) and cabron (referee playouts) give the
    same stored games and table with one worker or two."""
    from leagues.tournament.config import load_config
    from leagues.tournament.leaderboard import render, standings
    from leagues.tournament.runner import run_tournament
    from leagues.tournament.store import Store

    results = []
    for workers in (1, 2):
        folder = tmp_path / f"w{workers}"
        folder.mkdir()
        path = write_config(folder, deals=1, variants=[{"name": "tute-2"}, {"name": "cabron"}], entrants=[
            {"name": "s", "bot": "search", "params": {"worlds": 1_000_000, "work_ms": 8, "seed": 3}},
            {"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random", "params": {"seed": 1}}])
        cfg = load_config(path)
        summary = run_tournament(cfg, workers=workers, quiet=True)
        assert summary.played == summary.total > 0
        with closing(sqlite3.connect(folder / "store.sqlite")) as db:
            games = db.execute("SELECT id, seats, result, record FROM games ORDER BY id").fetchall()
        with Store(cfg.store, readonly=True) as store:
            table = render(standings(store, cfg.name, None))
            assert store.clocked_games(cfg.name) == []  # no decision ended by the clock
        assert sum("s" in json.loads(seats) for _, seats, _, _ in games) == 7  # 4 in tute-2 (two pairings), 3 in cabron
        results.append((games, table))
    assert results[0] == results[1]


# ------------------------------------------------------------------------------ tute bots new
@pytest.mark.parametrize("name", ["qa-", "qa_"])
def test_a_scaffold_name_makes_an_installable_project(tmp_path: Path, name: str) -> None:
    res = CliRunner().invoke(cli, ["bots", "new", name, str(tmp_path / "bot")])
    if res.exit_code == 2:
        return  # refused: fine
    assert res.exit_code == 0, res.output
    text = (tmp_path / "bot" / "pyproject.toml").read_text(encoding="utf-8")
    project = re.search(r'^name = "([^"]+)"', text, re.M)
    assert project is not None
    assert re.fullmatch(r"[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]", project.group(1)), project.group(1)


# ------------------------------------------------------------------------------ the benchmarks
def test_search_strength_at_its_smallest_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """The docstring's command at one deal, with the oracle, in a preset of three seats."""
    bench = _bench("search_strength")
    bench.main(["--variant", "tute-3", "--deals", "1", "--oracle", "--workers", "1", "--param", "worlds=4"])
    out = capsys.readouterr().out
    assert re.search(r"score \d\.\d{4}", out) and re.search(r"oracle \d\.\d{4}", out), out
    assert "forfeits 0" in out and "ms per searched move" in out


@pytest.mark.parametrize("argv", [["--variant", "no-such-preset"], ["--param", "wrongname=1"], ["--deals", "0"]])
def test_search_strength_refuses_bad_options_in_one_line(argv: list[str]) -> None:
    bench = _bench("search_strength")
    args = {"--variant": "tute-2", "--deals": "1", **dict(zip(argv[::2], argv[1::2]))}
    with pytest.raises(SystemExit) as exc:
        bench.main([*(x for kv in args.items() for x in kv), "--workers", "1"])
    assert exc.value.code == 2


def test_the_bots_benchmark_prints_no_figure_for_no_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _bench("decision_time")
    monkeypatch.setattr(sys, "argv", ["decision_time.py", "--games", "1", "--search-games", "0"])
    buf = io.StringIO()
    with redirect_stdout(buf):
        bench.main()
    rows = {line.split()[0]: line.split() for line in buf.getvalue().splitlines()[1:]}
    assert rows["tute-2"][1] != "0.0"  # a measured row
    for name in ("cabrero-5", "cabrero-6"):
        assert bench.timed(name, GreedyBot, 1)[2] == 0  # no decision of seat 0 ...
        assert rows[name][2] != "0.0", rows[name]  # ... is not reported as 0.0 us a decision
