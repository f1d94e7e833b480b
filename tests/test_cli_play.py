"""`tute variants` and `tute play`: what a user sees, and the records it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena import GameRecord, replay

RECORD_KEYS = {"format", "id", "variant", "options", "seed", "dealer", "seats", "teams", "deck", "hands", "stock",
               "trump_card", "actions", "result"}
RESULT_KEYS = {"points", "ranks", "winner", "tute", "forfeit", "reason"}


def tute(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], capture_output=True, text=True, timeout=120)


def test_variants_lists_every_preset_with_its_options() -> None:
    out = tute("variants")
    assert out.returncode == 0
    for name in ("tute-2", "habanero", "tute-3", "tute-4", "tute-4-pairs"):
        assert f"{name}:" in out.stdout
    assert "undertrump_required" in out.stdout and "tute_mode" in out.stdout
    # --diff: only what differs from tute-2, and for tute-2 itself a word that nothing does
    out = tute("variants", "cabrero", "--diff")
    assert out.returncode == 0 and "sit_out_from" in out.stdout and "exchange_seven" not in out.stdout
    assert tute("variants", "tute-2", "--diff").stdout.splitlines()[1] == "    (every option as in tute-2)"


def test_play_writes_records_in_the_design_format_and_they_replay(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    out = tute("play", "tute-2", "random", "random", "--games", "30", "--seed", "4", "--records", str(path))
    assert out.returncode == 0, out.stderr
    assert "30 deals in" in out.stdout and "deals/s" in out.stdout and "points/deal" in out.stdout
    lines = path.read_text().splitlines()
    assert len(lines) == 30
    dealers = []
    for line in lines:
        data = json.loads(line)
        assert set(data) == RECORD_KEYS and set(data["result"]) == RESULT_KEYS
        assert data["format"] == "tute-arena/1" and data["variant"] == "tute-2"
        assert len(data["deck"]) == 40 and len(data["stock"]) == 27 and len(data["hands"][0]) == 6
        dealers.append(data["dealer"])
        replay(GameRecord.from_json(data))
    assert dealers[:4] == [0, 1, 0, 1]  # the dealer rotates
    again = tmp_path / "again.jsonl"
    tute("play", "tute-2", "random", "random", "--games", "30", "--seed", "4", "--records", str(again))
    assert again.read_text() == path.read_text()  # same seed, same games


def test_play_summary_counts_add_up() -> None:
    out = tute("play", "tute-4", "random", "random", "random", "random", "-n", "40", "-s", "2")
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()[:1].isdigit() and "random" in line]
    assert len(rows) == 4
    for row in rows:
        wins, draws, losses = int(row[2]), int(row[3]), int(row[4])
        assert wins + draws + losses == 40


def test_pairs_accept_one_bot_per_side_and_options() -> None:
    out = tute("play", "tute-4-pairs", "random", "random", "-n", "10", "-o", "partner_exemption=true")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("args,words", [
    (("play", "tute-9", "random", "random"), "unknown variant 'tute-9'"),
    (("play", "tute-2", "random", "nosuchbot"), "unknown bot 'nosuchbot'"),
    (("play", "tute-2", "random"), "needs 2 bots"),
    (("play", "tute-2", "random", "random", "-o", "hand_size=many"), "hand_size"),
    (("play", "tute-2", "random", "random", "-o", "colour=red"), "unknown rule option"),
    (("play", "tute-2", "random", "random", "--games", "zero"), "zero"),
    # parameters past what json and a bot's host can take: one line, not a traceback
    (("play", "tute-2", "random", "random", "-p", '{"a":' * 5000 + "1" + "}" * 5000, "-p", "{}"),
     "not JSON a bot can take"),
    (("play", "tute-2", "random", "random", "-p", '{"seed": ' + "9" * 5000 + "}", "-p", "{}"),
     "not JSON a bot can take"),
    (("play", "tute-2", "random", "random", "-p", '{"a":' * 100 + "1" + "}" * 100, "-p", "{}"),
     "nested more than 64 deep"),
    (("bots", "check", "random", "--params", '{"a":' * 5000 + "1" + "}" * 5000), "not JSON a bot can take"),
    (("match", "random", "greedy", "-v", "tute-2", "--params-a", '{"a":' * 5000 + "1" + "}" * 5000),
     "not JSON a bot can take"),
    (("play", "tute-2", "random", "random", "-o", "last_trick_bonus=" + "9" * 5000), "last_trick_bonus: expected int"),
    (("play", "tute-2", "random", "random", "-o", "=1"), "--option '=1': expected KEY=VALUE"),
    (("match", "random", "greedy", "-v", "tute-2", "--alpha", "0.1"), "--alpha: only with --sprt ELO0,ELO1"),
    # a bot's spec names its seats in the records: what the records' reader refuses is refused here
    (("play", "tute-2", "random", "python3 ./\u202ex.py"), "no control characters"),
    # which bot did not start, of the several given
    (("play", "tute-2", "random", f"{sys.executable} -c pass"), f"a bot did not start: {sys.executable} -c pass (seat 1)"),
    # a command with an unbalanced quote, wherever a bot is named
    (("play", "tute-2", "random", "python3 'x"), "bot command \"python3 'x\": No closing quotation"),
    (("bots", "check", "python3 'x"), "bot command \"python3 'x\": No closing quotation"),
    (("match", "random", "python3 'x", "--variant", "tute-2"), "bot command \"python3 'x\": No closing quotation"),
    (("match", "random", "greedy", "-v", "tute-3", "--field", "python3 'x"), "--field: bot command"),
])
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], words: str) -> None:
    out = tute(*args)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr
    assert "Traceback" not in out.stderr


def test_play_records_named_gz_are_compressed_and_import_reads_them(tmp_path: Path) -> None:
    """``--records x.jsonl.gz`` is gzip, as ``tute export`` writes such a name and ``import`` and
    ``replay --file`` read it (it was plain text under a .gz name: neither could read it back)."""
    import gzip

    path = tmp_path / "p.jsonl.gz"
    out = tute("play", "tute-2", "random", "greedy", "--games", "3", "--records", str(path))
    assert out.returncode == 0, out.stderr
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        assert len([GameRecord.from_json(json.loads(line)) for line in fh]) == 3
    imported = tute("import", str(path), "--store", str(tmp_path / "s.sqlite"))
    assert imported.returncode == 0, imported.stderr
    shown = tute("replay", "--file", str(path), "--index", "2")
    assert shown.returncode == 0 and "result:" in shown.stdout, shown.stderr


def test_a_slow_rate_reads_in_two_digits_not_zero() -> None:
    from leagues.tournament.terminal import per_second

    assert [per_second(x) for x in (0.2926, 3.14159, 52.3, 1234.5)] == ["0.29", "3.1", "52", "1234"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_play_says_the_deals_a_bots_clock_decided(tmp_path: Path, workers: str) -> None:
    """``tute play`` with a bot whose clock ends a decision in the even deals (``EvenClockedBot``): the run
    says how many deals may not replay the same, and the first, with one worker or two."""
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "leagues", "play", "tute-2", "league_bots:EvenClockedBot", "random",
                          "-n", "6", "--isolation", "inprocess", "-j", workers, "--log", str(tmp_path / "p.log")],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "warning: in 3 deals a bot's clock, not its counted work, ended a decision (first: play/0/0)" in out.stderr
    assert "(--time-limit) usually avoids it" in out.stderr
    calm = subprocess.run([sys.executable, "-m", "leagues", "play", "tute-2", "random", "random", "-n", "4",
                           "-j", workers, "--log", str(tmp_path / "q.log")], capture_output=True, text=True, timeout=120)
    assert calm.returncode == 0 and "a bot's clock" not in calm.stderr


def test_records_never_overwrite_what_is_not_a_records_file(tmp_path: Path) -> None:
    """``--records`` given a store or a config by mistake replaced it without a word; now only an empty
    file or a records file is replaced."""
    store, config = tmp_path / "t.sqlite", tmp_path / "t.toml"
    store.write_bytes(b"SQLite format 3\x00" + bytes(100))
    config.write_text('name = "t"\n')
    for victim in (store, config):
        before = victim.read_bytes()
        out = tute("play", "tute-2", "random", "random", "-n", "2", "--records", str(victim))
        assert out.returncode == 2 and "exists and is not a records file" in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
        assert victim.read_bytes() == before
    records = tmp_path / "r.jsonl"
    for _ in range(2):  # a records file is replaced, as before
        assert tute("play", "tute-2", "random", "random", "-n", "2", "--records", str(records)).returncode == 0
    assert len(records.read_text().splitlines()) == 2


def test_a_records_file_that_cannot_be_written_is_one_line_after_the_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A full disk in the middle of ``tute play --records``: the summary of the deals played, then one
    line naming the file, exit 2 (it was a traceback)."""
    import errno
    import importlib

    cli_main = importlib.import_module("leagues.cli.main")  # the module (the package exports its function)

    class Full:
        def __init__(self) -> None:
            self.lines = 0

        def write(self, text: str) -> int:
            self.lines += 1
            if self.lines > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            return len(text)

        def close(self) -> None:
            pass

    monkeypatch.setattr(cli_main, "open_text", lambda path, mode="rt": Full())
    with pytest.raises(SystemExit) as exit_:
        cli_main.main(["play", "tute-2", "random", "random", "-n", "4", "--records", str(tmp_path / "r.jsonl")])
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and "4 deals" in captured.out
    assert captured.err.strip().splitlines()[-1] == (
        f"tute: error: {tmp_path / 'r.jsonl'}: No space left on device: the records file lacks the deals after it")


def test_a_module_in_the_current_folder_is_found_by_no_command(tmp_path: Path) -> None:
    """docs/bots.md: the current folder is not searched for ``module:Class``. ``tute run`` and ``tute
    match`` refused such a bot, but ``tute play`` and ``tute bots check`` found it: their bot process,
    started with ``python -m``, had the folder first on its path. ``PYTHONPATH=.`` is the way."""
    import os

    (tmp_path / "mymodule.py").write_text("from bots.random_bot import RandomBot as MyBot\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cmd = [str(Path(sys.executable).parent / "tute")]
    for args in (["play", "tute-2", "mymodule:MyBot", "greedy", "-n", "1"],
                 ["bots", "check", "mymodule:MyBot", "--deals", "2", "--variant", "tute-2"]):
        out = subprocess.run(cmd + args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode in (1, 2) and "No module named 'mymodule'" in out.stdout + out.stderr, \
            (args, out.returncode, out.stderr)
        found = subprocess.run(cmd + args, cwd=tmp_path, env={**env, "PYTHONPATH": "."}, capture_output=True,
                               text=True, timeout=120)
        assert found.returncode == 0, (args, found.stderr)


STARTS_COUNTED = """
import json, os, random, sys
with open(os.environ["STARTS_FILE"], "a") as fh:
    fh.write("start\\n")
print(json.dumps({"type": "hello", "name": "counted"}), flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "act":
        print(json.dumps({"action": random.choice(m["legal"])}), flush=True)
    elif m["type"] == "quit":
        break
"""


@pytest.mark.parametrize("workers, starts", [("1", 1), ("2", 3)])
def test_play_starts_a_command_bot_once_a_process(tmp_path: Path, workers: str, starts: int) -> None:
    """The start check's players play the deals with one worker (a bot slow to start, a JVM, was
    started twice); with two, each worker starts its own after the check."""
    import os

    (tmp_path / "bot.py").write_text(STARTS_COUNTED)
    count = tmp_path / "starts"
    out = subprocess.run([sys.executable, "-m", "leagues", "play", "tute-2", f"{sys.executable} {tmp_path / 'bot.py'}",
                          "random", "-n", "6", "-j", workers, "--log", str(tmp_path / "p.log")],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "STARTS_FILE": str(count)})
    assert out.returncode == 0, out.stderr
    assert count.read_text().count("start") == starts
