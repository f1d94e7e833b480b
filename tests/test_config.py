"""tournament.toml validation: a good file becomes a frozen config; each bad one is one line naming the
file and the key, exit 2, and no store."""

from __future__ import annotations

import re

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from leagues.cli import main
from leagues.tournament.config import ConfigError, load_config

from league_util import TESTS, config_text, write_config

ROOT = TESTS.parent


def test_good_config(tmp_path: Path) -> None:
    path = write_config(tmp_path, variants=[{"name": "tute-2"}, {"name": "tute-2", "label": "strict",
                                                                  "options": {"undertrump_required": True}}])
    cfg = load_config(path)
    assert cfg.name == "t" and cfg.seed == 7 and cfg.duplicate is True and cfg.workers == 0
    assert cfg.store == tmp_path / "store.sqlite"
    assert [v.label for v in cfg.variants] == ["tute-2", "strict"]
    assert cfg.variants[1].variant.undertrump_required is True
    assert cfg.rating.tau == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.name = "x"  # type: ignore[misc]
    # workers and paths do not change the tournament's identity; rules and entrants do
    assert load_config(write_config(tmp_path, "b.toml", workers=3, store="elsewhere.sqlite")).config_hash() \
        == load_config(write_config(tmp_path, "c.toml")).config_hash()
    assert load_config(write_config(tmp_path, "d.toml", deals=3)).config_hash() != cfg.config_hash()


def test_repo_tournament_toml_is_valid() -> None:
    cfg = load_config(ROOT / "tournament.toml")
    assert len(cfg.variants) >= 2 and len(cfg.entrants) >= 2


BAD = [
    (dict(colour="red"), "colour: unknown key"),
    (dict(deals="many"), "deals: expected integer, got string"),
    (dict(duplicate=1), "duplicate: expected boolean, got integer"),
    (dict(format="knockout"), "format: must be one of"),
    (dict(format="swiss"), "rounds: missing"),
    (dict(variants=[{"name": "tute-9"}]), "variants[0].name: unknown variant 'tute-9'"),
    (dict(variants=[{"name": "tute-2", "options": {"hand_size": "six"}}]), "variants[0].options: hand_size: expected int"),
    (dict(variants=[{"name": "tute-2", "options": {"jokers": True}}]), "variants[0].options: jokers: unknown rule option"),
    (dict(variants=[{"name": "tute-4"}]), "variants[0].name: tute-4 needs 4 entrants"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "x"}]), "entrants[1].bot: unknown bot 'x'"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "a", "bot": "random"}]), "entrants[1].name: 'a' is used twice"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "random", "colour": 1}]),
     "entrants[1].colour: unknown key"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "random", "isolation": "jail"}]),
     "entrants[1].isolation: must be one of"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": ["/nonexistent/bot"]}]), "entrants[1].bot: "),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "python3 'x"}]),
     "entrants[1].bot: bot command \"python3 'x\": No closing quotation"),
    (dict(name="a/b"), "name: 'a/b' must be non-empty"),
    # what a terminal acts on (U+009B: an escape sequence) or reorders text by (U+202E), as control characters
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b\u009b2J", "bot": "random"}]),
     "entrants[1].name: 'b\\x9b2J' must not hold control characters"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b\u202ec", "bot": "random"}]),
     "entrants[1].name: 'b\\u202ec' must not hold control characters"),
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b\u200bc", "bot": "random"}]),
     "entrants[1].name: 'b\\u200bc' must not hold control characters"),
    # every whitespace is a space in an id: the no-break and the ideographic ones too
    (dict(entrants=[{"name": "a", "bot": "random"}, {"name": "b\u00a0c", "bot": "random"}]),
     "entrants[1].name: 'b\\xa0c' must be non-empty, without '/' or spaces"),
    (dict(name="t\u3000u"), "name: 't\\u3000u' must be non-empty, without '/' or spaces"),
]


@pytest.mark.parametrize("kw,message", BAD, ids=[m for _, m in BAD])
def test_bad_config_is_one_line_exit_2_and_no_store(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    kw: dict, message: str) -> None:
    path = write_config(tmp_path, **kw)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert re.match(rf"{re.escape(str(path))}(:\d+)?: ", str(err.value)) and message in str(err.value), str(err.value)
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(path)])
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(path) in lines[0]
    assert not (tmp_path / "store.sqlite").exists()
    assert not (tmp_path / "store.log").exists()


def test_syntax_error_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text(config_text().replace('seed = 7', 'seed = = 7'))
    with pytest.raises(ConfigError, match=r"broken.toml: TOML syntax error: .*line 2"):
        load_config(bad)
    with pytest.raises(ConfigError, match=r"nothere.toml: no such file"):
        load_config(tmp_path / "nothere.toml")
    for p in (bad, tmp_path / "nothere.toml"):
        with pytest.raises(SystemExit) as exit_:
            main(["run", str(p)])
        assert exit_.value.code == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == [bad]


def test_cli_subprocess_bad_config(tmp_path: Path) -> None:
    path = write_config(tmp_path, entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "nosuchbot"}])
    proc = subprocess.run([sys.executable, "-m", "leagues", "run", str(path)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "entrants[1].bot: unknown bot 'nosuchbot'" in proc.stderr
    assert not (tmp_path / "store.sqlite").exists()


def test_every_error_of_a_file_at_once_each_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tournament.toml"
    path.write_text("""name = "t"
deals = 0
format = "knockout"

[rating]
tau = -1

[[variants]]
name = "tute-9"

[[entrants]]
name = "a"
bot = "random"

[[entrants]]
name = "b"
bot = "nosuchbot"
colour = "red"
""")
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(path)])
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    text = "\n".join(lines)
    for expected in (f"{path}:2: deals: must be at least 1", f"{path}:3: format: must be one of",
                     f"{path}:6: rating.tau: must not be negative", f"{path}:9: variants[0].name: unknown variant",
                     f"{path}:18: entrants[1].colour: unknown key"):
        assert expected in text, text
    assert len(lines) == 5 and lines[0].startswith("tute: error: ")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("case", ["workers", "nul", "long", "store_folder", "under_file", "not_a_log", "nested", "nan"])
def test_hostile_config_values_are_one_clipped_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    (tmp_path / "afile").write_text("x")
    (tmp_path / "notes.txt").write_text("my own notes, not a log\n")
    (tmp_path / "adir").mkdir()
    kw: dict = {}
    text = None
    expected = {"workers": "workers: must be at most", "nul": "control characters", "long": "name",
                "store_folder": "is a folder", "under_file": "is a file, not a folder",
                "not_a_log": "is not a tute log", "nested": "nested too deeply", "nan": "rating.mu"}[case]
    if case == "workers":
        kw = dict(workers=1_000_000)
    elif case == "nul":
        kw = dict(name="a\x00b")
    elif case == "long":
        kw = dict(name="n" * 100_000)
    elif case == "store_folder":
        kw = dict(store="adir")
    elif case == "under_file":
        kw = dict(store="afile/store.sqlite")
    elif case == "not_a_log":
        kw = dict(log="notes.txt")
    elif case == "nested":
        text = "name = \"t\"\nx = " + "[" * 100_000 + "]" * 100_000 + "\n"
    elif case == "nan":
        text = write_config(tmp_path).read_text() + "[rating]\nmu = nan\n"
    path = tmp_path / "tournament.toml"
    if text is None:
        path = write_config(tmp_path, **kw)
    else:
        path.write_text(text)
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and expected in err, err
    assert all(len(line) < 400 for line in err.splitlines())
    assert (tmp_path / "notes.txt").read_text() == "my own notes, not a log\n"
    assert not (tmp_path / "store.sqlite").exists()


def test_a_seeded_fuzz_of_configs_never_escapes_as_anything_but_a_named_config_error(tmp_path: Path) -> None:
    """Three hundred mutated tournament.toml files: each loads, or fails with ConfigError lines that name
    the file and stay short; nothing else (no TypeError, no OverflowError, no RecursionError) escapes."""
    import random as _random

    from league_util import config_text

    rng = _random.Random(20)
    junk = [float("nan"), float("inf"), -float("inf"), 1e308, 1e-320, 0, -1, 2 ** 70, 10 ** 6, True, "", "a\x00b",
            "x" * 100_000, [], [[[[1]]]], {"a": 1}, "/", "/proc/self/x", "nested/../../up", 1.5]
    base = dict(name="t", seed=1, format="round-robin", deals=2, workers=1, time_limit_ms=500, memory_mb=256,
                max_tables=10, store="s.sqlite")
    keys = list(base) + ["rounds", "duplicate", "log"]
    tried = refused = 0
    for i in range(300):
        top = dict(base)
        variants = [{"name": "tute-2"}, {"name": "tute-3", "options": {"undertrump_required": True}}]
        entrants = [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}, {"name": "c", "bot": "random"}]
        rating = {"mu": 25.0, "sigma": 8.0}
        for _ in range(rng.randint(1, 3)):
            where = rng.random()
            value = rng.choice(junk)
            if where < 0.5:
                top[rng.choice(keys)] = value
            elif where < 0.7:
                rng.choice(variants)[rng.choice(["name", "label", "options", "unit", "match"])] = value
            elif where < 0.9:
                rng.choice(entrants)[rng.choice(["name", "bot", "params", "isolation"])] = value
            else:
                rating[rng.choice(["mu", "sigma", "beta", "tau", "draw_probability", "k"])] = value
        folder = tmp_path / f"c{i}"
        folder.mkdir()
        path = folder / "tournament.toml"
        try:
            text = config_text(variants=variants, entrants=entrants, **top) + "[rating]\n" + "".join(
                f"{k} = {v!r}\n" for k, v in rating.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
        except TypeError:
            continue  # a value TOML cannot write
        path.write_text(text.replace("nan", "nan").replace("inf", "inf"))
        tried += 1
        try:
            load_config(path)
        except ConfigError as exc:
            refused += 1
            for line in str(exc).splitlines():
                assert line.startswith(str(path)) and len(line) < len(str(path)) + 400, line
    assert tried >= 250 and refused >= 200, (tried, refused)
