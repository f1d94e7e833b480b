"""QA of ``tute match``, gauntlets and Swiss tournaments end to end: the summary against a count by hand
of the stored games (blocks, games, score, Ptnml, Elo, nElo, LOS, the block the SPRT stops at), the
SPRT's verdicts and exit statuses with a known better and a known worse B, Ctrl-C and resume, one
worker or two, Swiss pairings read back from the store, hostile input; and the defects found, each test seen failing before its fix."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from leagues.tournament.sprt import INCONCLUSIVE, Sprt, estimate

from league_util import TESTS, wait_for_games, write_config

TUTE = str(Path(sys.executable).parent / "tute")

#: greedy's move with probability p, else a uniform legal one (seeded per game and seat): a B of known
#: strength between random (p = 0) and greedy (p = 1), as benchmarks/sprt.py's Mix
MIX_BOT = '''
import random
from bots.greedy import GreedyBot


class MixBot:
    def __init__(self, p=0.5, tag="m", **_):
        self.p, self.tag = p, tag
        self.greedy = GreedyBot()
        self.rng = random.Random(0)

    def new_game(self, info):
        self.greedy.new_game(info)
        self.rng = random.Random(f"{self.tag}/{info.get('seed')}/{info.get('seat')}")

    def choose(self, view):
        move = self.greedy.choose(view)
        return move if self.rng.random() < self.p else view.legal[self.rng.randrange(len(view.legal))]
'''


def env_for(folder: Path) -> dict[str, str]:
    (folder / "qa_mix.py").write_text(MIX_BOT, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(TESTS), os.environ.get("PYTHONPATH", "")])}


def tute(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, timeout=300, env=env_for(cwd),
                          stdin=subprocess.DEVNULL)


def hand_count(store: Path, name: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Per pairing (A, B), read straight from the stored rows: each block's scores for B (1 a game B
    ranks above A, 0.5 level, 0 below; games where A or B sat out as dealer left out), in schedule
    order (deal, then variant), and the figures docs/match.md defines, worked here independently."""
    with closing(sqlite3.connect(store)) as db:
        (config,), = db.execute("SELECT config_json FROM tournaments WHERE name = ?", (name,)).fetchall()
        rows = db.execute("SELECT variant, deal, seats, units, result FROM games WHERE tournament = ?",
                          (name,)).fetchall()
    cfg = json.loads(config)
    labels = [v["label"] for v in cfg["variants"]]
    blocks: dict[tuple[str, str], dict[tuple[int, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    stored: Counter[tuple[str, str]] = Counter()
    for variant, deal, seats, units, result in rows:
        seats, units, result = json.loads(seats), json.loads(units), json.loads(result)
        b, a = units[0], units[1]
        stored[(a, b)] += 1
        if result.get("sit_out") is not None and seats[result["sit_out"]] in (a, b):
            continue
        rb = min(result["ranks"][i] for i, s in enumerate(seats) if s == b)
        ra = min(result["ranks"][i] for i, s in enumerate(seats) if s == a)
        blocks[(a, b)][(deal, labels.index(variant))].append(1.0 if rb < ra else 0.5 if rb == ra else 0.0)
    out = {}
    for pair, bl in blocks.items():
        keys = sorted(bl)
        values = [sum(bl[k]) / len(bl[k]) for k in keys]
        n, games = len(values), sum(len(bl[k]) for k in keys)
        mu = sum(values) / n
        var = sum((v - mu) ** 2 for v in values) / n
        se = math.sqrt(var / n)
        g = games / n

        def elo(s: float) -> float:
            return -400 * math.log10(1 / s - 1)

        counts: dict[str, list[int]] = {}
        for k in keys:
            counts.setdefault(labels[k[1]], [0] * (2 * len(bl[k]) + 1))[round(2 * sum(bl[k]))] += 1
        figures = {"blocks": n, "games": games, "stored": stored[pair], "score": mu, "counts": counts,
                   "elo": elo(mu), "elo_error": (elo(mu + 1.959964 * se) - elo(mu - 1.959964 * se)) / 2,
                   "nelo": (mu - 0.5) / math.sqrt(g * var) * 800 / math.log(10),
                   "nelo_error": 1.959964 * se / math.sqrt(g * var) * 800 / math.log(10),
                   "los": 0.5 * (1 + math.erf((mu - 0.5) / (math.sqrt(2) * se)))}
        sp = cfg.get("sprt")
        if sp:  # the first block, in schedule order, after which the summed LLR crosses a bound
            test = Sprt(sp["elo0"], sp["elo1"], sp["alpha"], sp["beta"], sp["model"])
            running: dict[int, list[int]] = {}
            figures["decided_at"] = None
            for i, k in enumerate(keys, 1):
                running.setdefault(k[1], [0] * (2 * len(bl[k]) + 1))[round(2 * sum(bl[k]))] += 1
                llr = sum(test.llr(c) for c in running.values())
                if test.verdict(llr) != INCONCLUSIVE:
                    figures.update(decided_at=i, verdict=test.verdict(llr), llr=llr)
                    break
        out[pair] = figures
    return out


def summary_of(f: dict[str, Any], a: str, b: str) -> list[str]:
    """The summary's first three lines as docs/match.md shows them, from the hand count."""
    ptnml = "; ".join(f"{label} Ptnml(0-{(len(c) - 1) // 2}): {', '.join(map(str, c))}"
                      for label, c in f["counts"].items())
    return [f"{b} vs {a}: {f['blocks']} blocks, {f['games']} games, score {f['score']:.4f}",
            f"  Elo {f['elo']:.2f} +/- {f['elo_error']:.2f}, nElo {f['nelo']:.2f} +/- {f['nelo_error']:.2f}, "
            f"LOS {100 * f['los']:.2f}%",
            f"  {ptnml}"]


# ------------------------------------------------------------------------------ the summary, by hand
def test_the_match_summary_is_a_hand_count_of_the_stored_blocks(tmp_path: Path) -> None:
    """A better B (greedy's move 60% of the time against pure random), over three variants of which
    one has a dealer sitting out: every figure of the summary, the block the SPRT stops at and the
    games kept are what the stored rows give by hand."""
    out = tute("match", "qa_mix:MixBot", "qa_mix:MixBot", "--params-a", '{"p": 0}',
               "--params-b", '{"p": 0.6, "tag": "b"}', "-v", "tute-2", "-v", "tute-3", "-v", "cabrero-5",
               "--field", "random", "--sprt", "0,15", "-j", "2", "-q", "--store", "m.sqlite", cwd=tmp_path)
    assert out.returncode == 0, out.stderr  # H1
    a, b = "qa_mix:MixBot.a", "qa_mix:MixBot.b"
    (f,) = hand_count(tmp_path / "m.sqlite", f"match-{a}-vs-{b}").values()
    lines = out.stdout.splitlines()
    assert lines[:3] == summary_of(f, a, b)
    assert "cabrero-5 Ptnml(0-3)" in lines[2]  # five rotations, the three where neither A nor B dealt
    assert f["verdict"] == "H1 accepted" and f["decided_at"] == f["blocks"]  # nothing kept past the decision
    assert f["stored"] == f["games"] + 2 * sum(f["counts"]["cabrero-5"])  # and the dealers' sit-outs
    assert lines[3] == (f"  SPRT (normalized, elo0 0, elo1 15, alpha 0.05, beta 0.05): LLR {f['llr']:.2f} "
                        f"(-2.94, 2.94) H1 accepted at block {f['decided_at']}")


def test_a_worse_b_accepts_h0_and_a_cap_before_a_decision_is_inconclusive(tmp_path: Path) -> None:
    worse = tute("match", "greedy", "random", "-v", "tute-2", "--sprt", "0,10", "-q", "--store", "w.sqlite",
                 cwd=tmp_path)
    assert worse.returncode == 1, worse.stderr
    (f,) = hand_count(tmp_path / "w.sqlite", "match-greedy-vs-random").values()
    assert f["verdict"] == "H0 accepted" and f["blocks"] == f["decided_at"]
    assert worse.stdout.splitlines()[-1].endswith(f"H0 accepted at block {f['decided_at']}")
    capped = tute("match", "random", "greedy", "-v", "tute-2", "--sprt", "-5,5", "--model", "logistic",
                  "--max-blocks", "4", "-q", "--store", "c.sqlite", cwd=tmp_path)
    assert capped.returncode == 3, capped.stderr
    last = capped.stdout.splitlines()[-1]
    assert last.startswith("  SPRT (logistic, elo0 -5, elo1 5,") and last.endswith(" inconclusive")
    assert "4 blocks, 8 games" in capped.stdout


def test_a_close_b_over_logistic_bounds_is_decided_the_same_with_one_or_two_workers(tmp_path: Path) -> None:
    """A gauntlet of two challengers against a field of two, two variants, stopped pairing by pairing:
    the same summary and the same stored games with one worker or two, each pairing's figures those of
    the stored rows."""
    kw = dict(format="gauntlet", deals=300, seed=11, challengers=["m6", "g"], field="random",
              sprt={"elo0": 0, "elo1": 40, "model": "logistic"},
              variants=[{"name": "tute-2"}, {"name": "tute-3"}],
              entrants=[{"name": "m6", "bot": "qa_mix:MixBot", "params": {"p": 0.6}},
                        {"name": "m3", "bot": "qa_mix:MixBot", "params": {"p": 0.3, "tag": "x"}},
                        {"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    outs, ids = [], []
    for workers in ("1", "2"):
        folder = tmp_path / workers
        folder.mkdir()
        write_config(folder, **kw)
        out = tute("run", "tournament.toml", "-q", "-j", workers, cwd=folder)
        assert out.returncode == 0, out.stderr
        outs.append(out.stdout)
        with closing(sqlite3.connect(folder / "store.sqlite")) as db:
            ids.append(db.execute("SELECT id, result FROM games ORDER BY id").fetchall())
    assert outs[0] == outs[1] and ids[0] == ids[1]
    counted = hand_count(tmp_path / "1" / "store.sqlite", "t")
    assert sorted(counted) == [("m3", "g"), ("m3", "m6"), ("r", "g"), ("r", "m6")]
    for (a, b), f in counted.items():
        assert "\n".join(summary_of(f, a, b)) in outs[0]
        if f["decided_at"] is not None:
            assert f"{f['verdict']} at block {f['decided_at']}" in outs[0] and f["blocks"] == f["decided_at"]


def test_ctrl_c_mid_match_says_so_and_the_same_command_finishes_it_as_an_uninterrupted_one(tmp_path: Path) -> None:
    args = ["match", "random", "league_bots:SlowGreedyBot", "-v", "tute-2", "-v", "tute-3", "--field", "random",
            "--sprt", "0,10", "-j", "2"]
    ref, cut = tmp_path / "ref", tmp_path / "cut"
    ref.mkdir()
    cut.mkdir()
    reference = tute(*args, "-q", cwd=ref)
    assert reference.returncode == 0, reference.stderr
    proc = subprocess.Popen([TUTE, *args, "-q"], cwd=cut, env=env_for(cut), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for_games(cut / "runs" / "match.sqlite", 19, proc, poll=0.05)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stdout == "" and "interrupted" in stderr and "run again to resume" in stderr and "Traceback" not in stderr
    resumed = tute(*args[:-2], "-j", "1", "-q", cwd=cut)  # another worker count: the same decision
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == reference.stdout


# ---------------------------------------------------------------------------------------- swiss
def swiss_rounds(store: Path) -> tuple[dict[tuple[str, int], set[tuple[str, ...]]], dict[tuple[str, int], list[str]]]:
    with closing(sqlite3.connect(store)) as db:
        tables: dict[tuple[str, int], set[tuple[str, ...]]] = defaultdict(set)
        for variant, rnd, units in db.execute("SELECT variant, round, units FROM games"):
            tables[(variant, rnd)].add(tuple(json.loads(units)))
        byes: dict[tuple[str, int], list[str]] = defaultdict(list)
        for variant, rnd, name in db.execute("SELECT variant, round, entrant FROM byes"):
            byes[(variant, rnd)].append(name)
    return tables, byes


@pytest.mark.parametrize("rounds", [5, 12])
def test_an_odd_swiss_field_pairs_without_avoidable_repeats_and_shares_the_byes(tmp_path: Path, rounds: int) -> None:
    """Five entrants, tute-2 and tute-3: in five rounds of two seats every pair meets once and each
    entrant has one bye; over more rounds than a round robin, byes and meetings stay within one of
    each other; at tables of three, the two sit-outs a round go round the field."""
    names = ["g", "r1", "r2", "r3", "r4"]
    write_config(tmp_path, format="swiss", rounds=rounds, deals=1, seed=3,
                 variants=[{"name": "tute-2"}, {"name": "tute-3"}],
                 entrants=[{"name": n, "bot": "greedy" if n == "g" else "random", "params": {}} for n in names])
    out = tute("run", "tournament.toml", "-q", "-j", "2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    tables, byes = swiss_rounds(tmp_path / "store.sqlite")
    for variant, k in (("tute-2", 2), ("tute-3", 3)):
        met: Counter[frozenset[str]] = Counter()
        byes_of: Counter[str] = Counter()
        for r in range(1, rounds + 1):
            seated = [n for t in tables[(variant, r)] for n in t]
            assert sorted(seated + byes[(variant, r)]) == names  # everyone seated once or out
            assert all(len(t) == k for t in tables[(variant, r)]) and len(byes[(variant, r)]) == len(names) % k
            for t in tables[(variant, r)]:
                met.update(frozenset((x, y)) for i, x in enumerate(t) for y in t[i + 1:])
            byes_of.update(byes[(variant, r)])
            if variant == "tute-2" and r <= len(names):  # a round robin is still possible: no repeat
                assert max(met.values()) == 1
        assert max(byes_of.values()) - min(byes_of[n] for n in names) <= 1
        if variant == "tute-2":  # (at tables of three the sit-outs, chosen first, leave no choice of table)
            all_pairs = [frozenset((x, y)) for i, x in enumerate(names) for y in names[i + 1:]]
            assert max(met[p] for p in all_pairs) - min(met[p] for p in all_pairs) <= 1


@pytest.mark.parametrize("kw, message", [
    (dict(format="swiss", rounds=2, variants=[{"name": "tute-4"}]),
     "variants[0].name: tute-4 needs 4 entrants at a table, the tournament has 2"),
    (dict(format="swiss", rounds=0), "rounds: must be at least 1, not 0"),
])
def test_a_swiss_field_too_small_for_its_tables_is_refused_before_any_game(tmp_path: Path, kw: dict,
                                                                           message: str) -> None:
    write_config(tmp_path, **kw)
    out = tute("run", "tournament.toml", "-q", cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and not (tmp_path / "store.sqlite").exists()


# ------------------------------------------------------------------------------------ hostile input
@pytest.mark.parametrize("args, message", [
    (["--max-blocks", "0"], "--max-blocks"),
    (["--max-blocks", "-3"], "--max-blocks"),
    (["--sprt", "5,5"], "elo0 (5) must be below elo1 (5)"),
    (["--sprt", "0,10", "--alpha", "0"], "alpha: must be in (0, 0.5), not 0"),
    (["--sprt", "0,10", "--beta", "1"], "beta: must be in (0, 0.5), not 1"),
    (["--sprt", "0,10", "--beta", "-0.1"], "beta: must be in (0, 0.5)"),
    (["--sprt", "0,10", "--alpha", "nan"], "alpha: must be a finite number"),
    (["--sprt", "inf,10"], "elo0: must be a finite number"),
    (["--sprt", "0,10,20"], "expected ELO0,ELO1"),
    (["--sprt", "0,1000"], "elo1: at most 100 either way under the normalized model"),
    (["--beta", "0.1"], "--beta: only with --sprt ELO0,ELO1"),
    (["-j", "0"], "--workers"),
    (["--params-b", "[1]"], "--params-b '[1]': expected a JSON object"),
    (["--params-a", "{"], "--params-a '{': not JSON"),
    (["--field", "nosuch", "-v", "tute-3"], "--field: unknown bot 'nosuch'"),
    (["-v", "nosuch"], "unknown variant 'nosuch'"),
])
def test_hostile_match_values_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    base = ["match", "random", "greedy"] + ([] if "-v" in args else ["-v", "tute-2"])
    out = tute(*base, *args, cwd=tmp_path)
    assert out.returncode == 2, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr
    assert not (tmp_path / "runs").exists()


def test_one_bot_twice_is_two_entrants_and_level(tmp_path: Path) -> None:
    """``tute match greedy greedy``: two entrants (greedy.a, greedy.b) with the same cards play the same
    game, so every block is level: score 0.5, LOS 50%, no interval claimed wider than none."""
    out = tute("match", "greedy", "greedy", "-v", "tute-2", "--max-blocks", "10", "-q", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "greedy.b vs greedy.a: 10 blocks, 20 games, score 0.5000"
    assert "LOS 50.00%" in out.stdout and "tute-2 Ptnml(0-2): 0, 0, 10, 0, 0" in out.stdout


# ------------------------------------------------------------------------------------------ defects
@pytest.mark.parametrize("fmt", ["match", "gauntlet"])
def test_an_entrant_named_field_is_refused_in_every_match_and_gauntlet(tmp_path: Path, fmt: str) -> None:
    extra = {"challengers": ["b"]} if fmt == "gauntlet" else {}
    write_config(tmp_path, format=fmt, deals=2, **extra,
                 entrants=[{"name": "field", "bot": "random"}, {"name": "b", "bot": "greedy"},
                           *([{"name": "c", "bot": "random"}] if fmt == "gauntlet" else [])])
    out = tute("run", "tournament.toml", "-q", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "tournament.toml:" in lines[0] and "'field'" in lines[0]


def test_a_bot_forfeiting_every_deal_is_not_an_sprt_verdict(tmp_path: Path) -> None:
    out = tute("match", "league_bots:CrashBot", "random", "-v", "tute-2", "--sprt", "0,10", "-q", cwd=tmp_path)
    assert "forfeited" in out.stderr  # it is said on screen (this holds today)
    assert out.returncode == 3  # as without --sprt: the match means nothing, whatever the LLR


def test_two_matches_of_long_named_bots_are_two_matches(tmp_path: Path) -> None:
    folder = tmp_path / "a_long_folder_of_bot_versions_kept_side_by_side"
    for v in ("v1", "v2", "v3"):
        (folder / v).mkdir(parents=True)
        (folder / v / "bot.py").write_text((TESTS.parent / "examples" / "random_bot.py").read_text())
    bot = [f"python3 {folder}/{v}/bot.py" for v in ("v1", "v2", "v3")]
    first = tute("match", bot[0], bot[1], "-v", "tute-2", "--max-blocks", "1", "-q", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = tute("match", bot[0], bot[2], "-v", "tute-2", "--max-blocks", "1", "-q", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    with closing(sqlite3.connect(tmp_path / "runs" / "match.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 2


def test_a_lopsided_score_short_of_perfect_keeps_a_finite_lower_bound() -> None:
    perfect = estimate([0, 0, 0, 0, 40]).text()
    assert "at least +527.44" in perfect
    one_level = estimate([0, 0, 1, 0, 39]).text()  # B won 79 of 80 games
    assert "inf" not in one_level.split(",")[0]


@pytest.mark.parametrize("args", [["-v", "tute-2", "-v", "tute-2"], ["-v", "tute-2", "--store", "/dev/null"]])
def test_one_bad_option_is_one_line_in_the_commands_words(tmp_path: Path, args: list[str]) -> None:
    out = tute("match", "random", "greedy", *args, "--max-blocks", "1", cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "label" not in lines[0] and ".log" not in lines[0], lines


@pytest.mark.parametrize("fmt", ["match", "gauntlet"])
def test_rounds_in_a_match_is_refused_not_ignored(tmp_path: Path, fmt: str) -> None:
    """``rounds`` means nothing to a match or a gauntlet (its blocks go on until the SPRT or ``deals``), and
    was accepted silently, as if it set something."""
    extra = {"challengers": ["b"]} if fmt == "gauntlet" else {}
    write_config(tmp_path, format=fmt, deals=2, rounds=3, **extra,
                 entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"},
                           *([{"name": "c", "bot": "random"}] if fmt == "gauntlet" else [])])
    out = tute("run", "tournament.toml", "-q", cwd=tmp_path)
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and "rounds: not a key of a" in lines[0], out.stderr
