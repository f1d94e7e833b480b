"""``tute bots`` and ``tute play`` with every kind of bot, and a scaffolded plugin from `tute bots new`
to `pip install -e`, `tute bots list`, `tute bots check` and a game."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import subprocess
import sys
from pathlib import Path

import pytest

from arena import VARIANTS
from click.testing import CliRunner

from leagues.cli import cli
from leagues.tournament.compliance import check_bot

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile" / "hostile_cmd.py"


def _tute(*args: str, timeout: float = 120, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    """The real command in a fresh interpreter (so newly installed entry points and paths are seen), in
    the repository (for examples/); ``tute play`` logs to a temporary file, not beside the sources."""
    if args and args[0] == "play":
        args = (*args, "--log", os.path.join(tempfile.gettempdir(), f"tute-test-play-{os.getpid()}.log"))
    return subprocess.run([python, "-m", "leagues", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _overlay_venv(where: Path) -> str:
    """A venv that sees this environment's packages but installs into its own: a plugin installed there
    is never seen by the tests running beside this one (pytest-xdist), as it would be if pip wrote into
    the shared environment while they list entry points. Returns its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    outer = [p for p in sys.path if p.endswith("site-packages")]
    # addsitedir, not a bare path: the outer environment's own .pth files (tute-arena's editable
    # install among them) must be read too
    Path(purelib, "zz_outer.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in outer))
    return str(python)


def test_bots_list_shows_builtins() -> None:
    res = CliRunner().invoke(cli, ["bots", "list"])
    assert res.exit_code == 0
    lines = {line.split()[0]: line for line in res.output.splitlines()[2:]}
    assert "tute-arena" in lines["greedy"] and "bots.greedy:GreedyBot" in lines["greedy"]
    assert "random" in lines
    res = CliRunner().invoke(cli, ["bots", "list", "--json"])
    rows = {r["name"]: r for r in (json.loads(x) for x in res.output.splitlines())}
    assert {"name": "random", "target": "bots.random_bot:RandomBot", "origin": "tute-arena"}.items() <= rows["random"].items()
    # how each plays every preset: search searches them all, greedy plays by rule
    assert lines["search"].endswith("by search: every preset") and lines["greedy"].endswith("by rule: every preset")
    assert set(rows["search"]["plays"]) == set(VARIANTS) and set(rows["search"]["plays"].values()) == {"by search"}


def test_bots_check_passes_greedy_and_the_example() -> None:
    res = CliRunner().invoke(cli, ["bots", "check", "greedy", "--deals", "50"])
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output and "tute-4-pairs" in res.output
    example = f"{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"
    report = check_bot(example, deals=25)
    assert report.passed(require_reproducible=True), report
    assert [v.variant for v in report.variants] == list(VARIANTS)  # every preset, the auction ones included
    assert all(v.decisions > 0 and v.max_ms >= v.mean_ms > 0 for v in report.variants)


@pytest.mark.parametrize("mode,reason", [("illegal", "illegal"), ("hang", "timeout"), ("garbage", "protocol"),
                                         ("exit", "crash")])
def test_bots_check_fails_a_bad_bot(mode: str, reason: str) -> None:
    bot = f"{sys.executable} {HOSTILE} {mode} 1"
    res = CliRunner().invoke(cli, ["bots", "check", bot, "--deals", "5", "--variant", "tute-2",
                                   "--time-limit", "150"])
    assert res.exit_code == 1, res.output
    assert "FAIL" in res.output
    report = check_bot(bot, deals=4, variants=["tute-2"], time_limit_ms=150)
    assert report.failures[reason] == 4 and not report.passed()


def test_a_bot_that_does_not_start_is_refused_after_one_start(tmp_path: Path) -> None:
    """A bot that never answers its hello (or dies before it) was started again at every deal of the
    check, each start waiting out the 15 s start-up limit: forty deals of a league's check took ten
    minutes to refuse it. One start now, before any deal: refused in one line, exit 2, as tute run's
    preflight refuses it. Each start of the bot leaves a line in a file: one line, one start."""
    starts = tmp_path / "starts"
    code = f"import sys; open({str(starts)!r}, 'a').write('x\\n'); sys.exit(1)"
    res = CliRunner().invoke(cli, ["bots", "check", f"{sys.executable} -c {json.dumps(code)}", "--deals", "8",
                                   "--variant", "tute-2"])
    assert res.exit_code == 2, res.output
    assert "does not start" in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert starts.read_text().count("x") == 1


def test_nondeterministic_bot_is_flagged() -> None:
    report = check_bot("random", {"seed": 1}, deals=5, variants=["tute-2"])
    assert report.reproducible  # random reseeds from the game's seed
    code = ("import json,os,random,sys\n"
            "rng = random.Random(os.urandom(8))\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'chaos'}), flush=True)\n"
            "    elif m['type'] == 'act': print(json.dumps({'action': rng.choice(m['legal'])}), flush=True)\n")
    report = check_bot([sys.executable, "-c", code], deals=6, variants=["tute-2"], repro_deals=6)
    assert report.passed() and not report.reproducible and not report.passed(require_reproducible=True)
    assert "its clock" not in report.variants[0].repro_detail  # it said nothing of a clock


def test_a_bot_whose_clock_cut_its_decisions_is_told_why_it_does_not_replay() -> None:
    """A bot that says its clock ended decisions (``clock_stops``), and plays otherwise for it: the check
    finds it not reproducible and says why, and what avoids it."""
    sys.path.insert(0, str(ROOT / "tests"))
    report = check_bot("league_bots:UnsteadyBot", deals=6, variants=["tute-2"], repro_deals=6, isolation="inprocess")
    assert not report.reproducible
    detail = report.variants[0].repro_detail
    assert "played differently by a fresh instance" in detail
    assert "its clock, not its counted work, ended 12 of its decisions: a larger --time-limit usually avoids it" in detail


@pytest.mark.parametrize("args,msg", [(["bots", "check", "no-such-bot"], "unknown bot"),
                                      (["bots", "check", "random", "--params", "[1]"], "--params"),
                                      (["bots", "new", "Bad Name"], "bot name"),
                                      (["bots", "new", "random"], "already installed"),
                                      (["play", "tute-2", "random", "./no/such/bot"], "not an executable"),
                                      (["play", "tute-2", "random", "nosuch_mod_q:Bot"], "cannot load")])
def test_errors_are_one_line_exit_2(args: list[str], msg: str) -> None:
    res = _tute(*args)
    assert res.returncode == 2, res.stderr
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and msg in err[0] and "Traceback" not in res.stderr


def test_play_accepts_all_three_kinds() -> None:
    example = f"{sys.executable} examples/random_bot.py"
    res = _tute("play", "tute-2", "greedy", example, "-n", "30")
    assert res.returncode == 0, res.stderr
    assert "examples/random_bot.py" in res.stdout and "30 deals" in res.stdout
    res = _tute("play", "tute-3", "bots.greedy:GreedyBot", "random", example, "-n", "10")
    assert res.returncode == 0, res.stderr
    res = _tute("play", "tute-2", "random", f"{sys.executable} {HOSTILE} illegal", "-n", "4")
    assert res.returncode == 3  # every deal forfeited
    rows = [line.split() for line in res.stdout.splitlines() if line.strip().startswith("1 ")]
    assert rows and rows[0][-1] == "4"  # 4 forfeits for the hostile seat


def test_scaffolded_plugin_installs_lists_checks_and_plays(tmp_path: Path) -> None:
    target = tmp_path / "tute-bot-zz-scaffold"
    res = CliRunner().invoke(cli, ["bots", "new", "zz-scaffold", str(target)])
    assert res.exit_code == 0, res.output
    assert (target / "pyproject.toml").is_file() and (target / "tests" / "test_bot.py").is_file()
    res = CliRunner().invoke(cli, ["bots", "new", "zz-scaffold2", str(target)])
    assert res.exit_code == 2 and "not empty" in res.output
    python = _overlay_venv(tmp_path / "venv")
    assert "zz-scaffold" not in _tute("bots", "list", python=python).stdout
    pip = [python, "-m", "pip", "--disable-pip-version-check", "-q"]
    inst = subprocess.run(pip + ["install", "--no-deps", "--no-build-isolation", "-e", str(target)],
                          capture_output=True, text=True, timeout=180)
    assert inst.returncode == 0, inst.stderr
    listed = _tute("bots", "list", python=python)
    assert "zz-scaffold" in listed.stdout and "tute-bot-zz-scaffold" in listed.stdout
    # a third-party bot's class is not imported to list it
    assert next(x for x in listed.stdout.splitlines() if "zz-scaffold" in x).endswith("not declared")
    checked = _tute("bots", "check", "zz-scaffold", "--deals", "25", "--require-reproducible", python=python)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "subprocess plugin" in checked.stdout  # third-party code is isolated by default
    played = _tute("play", "tute-4-pairs", "zz-scaffold", "random", "-n", "10", python=python)
    assert played.returncode == 0 and "zz-scaffold" in played.stdout
    own = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target / "tests")],
                         capture_output=True, text=True, timeout=120, cwd=target)
    assert own.returncode == 0, own.stdout + own.stderr
    subprocess.run(pip + ["uninstall", "-y", "tute-bot-zz-scaffold"], capture_output=True, timeout=120, check=True)
    assert "zz-scaffold" not in _tute("bots", "list", python=python).stdout
    assert "zz-scaffold" not in _tute("bots", "list").stdout  # this environment never saw it


def test_a_bot_whose_distribution_lost_its_metadata_is_listed_with_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip uninstalling a plugin while ``tute`` lists entry points (or a half-installed package) leaves an
    entry point whose distribution has no metadata: it is listed as of unknown origin, never trusted,
    and every other bot is still found."""
    from importlib import metadata as md

    from arena.hosting import loader

    class Gone:
        @property
        def metadata(self) -> dict[str, str]:
            raise FileNotFoundError("METADATA")

        version = property(lambda self: (_ for _ in ()).throw(FileNotFoundError("METADATA")))

    real = list(md.entry_points(group=loader.GROUP))
    ghost = md.EntryPoint("zz-ghost", "ghost_bot:Ghost", loader.GROUP)
    object.__setattr__(ghost, "dist", Gone())
    monkeypatch.setattr(loader.metadata, "entry_points", lambda group: [*real, ghost])
    found = loader.installed_bots()
    assert found["zz-ghost"].origin == "?" and found["zz-ghost"].version == "?"
    assert found["greedy"].origin == "tute-arena"


def test_a_scaffold_installs_in_a_fresh_venv_with_no_package_index(tmp_path: Path) -> None:
    """tute-arena is not on any index: a scaffold that required it could never be installed by pip in
    a fresh environment. It installs with no index at all, beside tute-arena from its clone."""
    target = tmp_path / "bot"
    assert CliRunner().invoke(cli, ["bots", "new", "zz-fresh", str(target)]).exit_code == 0
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-index",
           "--no-build-isolation"]
    # the venv's own setuptools builds an editable install only with ``wheel``, which build isolation
    # would fetch from an index: lend it this environment's copy (and nothing else of it)
    import importlib
    lent = tmp_path / "lent"
    lent.mkdir()
    for name in ("wheel", "packaging"):
        here = Path(importlib.import_module(name).__file__).resolve().parent
        shutil.copytree(here, lent / name)
        for info in here.parent.glob(f"{name}-*.dist-info"):
            shutil.copytree(info, lent / info.name)
    env = {**os.environ, "PYTHONPATH": str(lent)}
    alone = subprocess.run(pip + ["-e", str(target)], capture_output=True, text=True, timeout=180, env=env)
    assert alone.returncode == 0, alone.stderr  # nothing to fetch: it declares no dependency
    repo = Path(__file__).resolve().parents[1]
    both = subprocess.run(pip + ["--no-deps", "-e", str(repo)], capture_output=True, text=True, timeout=180, env=env)
    assert both.returncode == 0, both.stderr
    # tute-arena's own dependencies come from this test run's environment (no index to fetch them from)
    deps = [p for p in sys.path if p.endswith("site-packages")]
    found = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "from arena.hosting import installed_bots, make_player; "
                            "assert 'zz-fresh' in installed_bots(); make_player('zz-fresh', isolation='inprocess')"],
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": os.pathsep.join(deps)})
    assert found.returncode == 0, found.stderr
