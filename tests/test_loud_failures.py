"""Failures said where the user looks (issue "no silent failures"): a bot that cannot start is refused
before any game, a command's relative paths come from the config's folder, forfeits are warned about
during the run and summarised after it with a non-zero exit when an entrant forfeited everything, two
runs of one tournament cannot overlap (and a killed run leaves no lock), --new asks or needs --yes,
and a crash keeps the bot's last lines of stderr."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena import BotFailure, get_variant, play_game, shuffled_deck
from arena.hosting import make_player

from league_util import wait_for_games, write_config

TUTE = str(Path(sys.executable).parent / "tute")
RANDOM = {"name": "rand", "bot": "random", "params": {"seed": 1}}


def tute(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          stdin=subprocess.DEVNULL)


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


HELLO_RANDOM = """
    import json, random, sys
    print(json.dumps({"type": "hello", "name": "s"}), flush=True)
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "act":
            print(json.dumps({"action": random.choice(m["legal"])}), flush=True)
        elif m["type"] == "quit":
            break
"""


def test_a_command_whose_script_is_missing_is_refused_before_any_game(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, deals=2, entrants=[RANDOM, {"name": "ghost", "bot": ["python3", "nowhere.py"]}])
    out = tute("run", str(cfg), "--quiet", cwd=tmp_path.parent)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "'ghost' did not start" in lines[0] and "nowhere.py" in lines[0]
    assert not (tmp_path / "store.sqlite").exists()  # a first run refused leaves no empty store behind


def test_a_commands_relative_script_is_found_from_the_config_folder(tmp_path: Path) -> None:
    script(tmp_path, "mybot.py", HELLO_RANDOM)
    cfg = write_config(tmp_path, deals=2, entrants=[RANDOM, {"name": "mine", "bot": ["python3", "mybot.py"]}])
    elsewhere = tmp_path.parent  # not the config's folder
    out = tute("run", str(cfg), "--quiet", cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    assert "forfeit" not in out.stderr


def test_an_entrant_that_forfeits_everything_is_reported_and_the_run_fails(tmp_path: Path) -> None:
    script(tmp_path, "dies.py", """
        import json, sys
        print(json.dumps({"type": "hello", "name": "dies"}), flush=True)
        for line in sys.stdin:
            if json.loads(line)["type"] == "act":
                sys.stderr.write("Traceback (most recent call last):\\n  File x\\nValueError: boom\\n")
                sys.exit(1)
    """)
    cfg = write_config(tmp_path, deals=12, entrants=[RANDOM, {"name": "dies", "bot": ["python3", "dies.py"]}])
    out = tute("run", str(cfg), "--quiet", cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    err = out.stderr
    assert "warning: dies forfeited" in err  # said during the run
    assert "dies: 24 of 24 deals forfeited (24 crash)" in err and "ValueError: boom" in err
    assert "forfeited every deal" in err
    listed = tute("games", "--forfeits", "--limit", "0", cwd=tmp_path).stdout
    assert sum(1 for line in listed.splitlines() if line.startswith("t/")) == 24 and "dies forfeits (a crash" in listed


def test_a_second_run_of_the_same_tournament_is_refused_and_a_killed_run_leaves_no_lock(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, deals=20000, workers=1, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    first = subprocess.Popen([TUTE, "run", str(cfg), "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_games(tmp_path / "store.sqlite", 0, seconds=60, poll=0.2)
        second = tute("run", str(cfg), "--quiet", cwd=tmp_path)
        assert second.returncode == 2 and "being run by another tute" in second.stderr
        assert f"pid {first.pid}" in second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    time.sleep(0.5)
    third = subprocess.Popen([TUTE, "run", str(cfg), "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        time.sleep(3)
        assert third.poll() is None, third.stderr.read() if third.stderr else ""  # it runs: no stale lock
    finally:
        os.killpg(third.pid, signal.SIGKILL)
        third.wait()


def test_new_needs_yes_off_a_terminal_and_deletes_nothing_without_it(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, deals=2, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    assert tute("run", str(cfg), "--quiet", cwd=tmp_path).returncode == 0
    count = sqlite3.connect(tmp_path / "store.sqlite").execute("SELECT COUNT(*) FROM games").fetchone()[0]
    out = tute("run", str(cfg), "--new", "--quiet", cwd=tmp_path)
    assert out.returncode == 2 and "--yes" in out.stderr
    assert sqlite3.connect(tmp_path / "store.sqlite").execute("SELECT COUNT(*) FROM games").fetchone()[0] == count
    assert tute("run", str(cfg), "--new", "--yes", "--quiet", cwd=tmp_path).returncode == 0


def test_a_crash_keeps_the_last_lines_of_the_bots_stderr(tmp_path: Path) -> None:
    path = script(tmp_path, "crashy.py", """
        import json, sys
        print(json.dumps({"type": "hello", "name": "crashy"}), flush=True)
        for line in sys.stdin:
            if json.loads(line)["type"] == "act":
                sys.stderr.write("/app/bot.js:3\\n    throw new Error('boom')\\n    ^\\nError: boom\\n"
                                 "    at main (/app/bot.js:3:11)\\n\\nNode.js v20.11.0\\n")
                sys.stderr.flush()
                sys.exit(1)
    """)
    v = get_variant("tute-2")
    crashy = make_player(["python3", str(path)])
    other = make_player("random")
    details = []
    try:
        # many crashes: the bot is often seen gone (stdout closed) before its last stderr lines are read,
        # so a report taken without waiting for them lacked the tail now and then (2 of 3 runs of this test)
        for game in range(40):
            rec = play_game(v, shuffled_deck(v, game), 1, [crashy, other], seed=game)
            f = rec.result.forfeit
            assert f is not None and f.reason == "crash"
            details.append(f.detail)
    finally:
        crashy.close()
    assert all("Error: boom" in d and "Node.js v20" in d for d in details), details
    assert isinstance(BotFailure("crash", details[0]).detail, str)


# ------------------------------------------------------------------------------------------- tute play
def test_play_lists_forfeits_by_reason_and_keeps_the_bots_stderr(tmp_path: Path) -> None:
    bot = script(tmp_path, "half.py", """
        import json, sys
        print(json.dumps({"type": "hello", "name": "half"}), flush=True)
        n = 0
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "act":
                n += 1
                if n % 3 == 0:
                    print("thinking hard", file=sys.stderr, flush=True)
                    print(json.dumps({"action": "play 99z"}), flush=True)
                else:
                    print(json.dumps({"action": m["legal"][0]}), flush=True)
    """)
    out = tute("play", "tute-2", "random", f"python3 {bot}", "-n", "6", "--records", "games.jsonl", cwd=tmp_path)
    assert out.returncode == 3, out.stderr  # it forfeited every deal: said, as tute run says it
    assert "forfeits of seat 1" in out.stdout and "protocol" in out.stdout and "play 99z" in out.stdout
    log = (tmp_path / "games.log").read_text()
    assert "thinking hard" in log


def test_play_params_per_bot_and_workers_give_the_same_records(tmp_path: Path) -> None:
    one = tute("play", "tute-2", "random", "random", "-n", "40", "-p", '{"seed": 1}', "-p", '{"seed": 2}',
               "--records", "one.jsonl", cwd=tmp_path)
    two = tute("play", "tute-2", "random", "random", "-n", "40", "-p", '{"seed": 1}', "-p", '{"seed": 2}',
               "--records", "two.jsonl", "-j", "2", cwd=tmp_path)
    other = tute("play", "tute-2", "random", "random", "-n", "40", "-p", '{"seed": 5}', "-p", '{"seed": 2}',
                 "--records", "other.jsonl", cwd=tmp_path)
    assert one.returncode == two.returncode == other.returncode == 0, one.stderr + two.stderr
    assert (tmp_path / "one.jsonl").read_text() == (tmp_path / "two.jsonl").read_text()
    assert (tmp_path / "one.jsonl").read_text() != (tmp_path / "other.jsonl").read_text()  # params reach the bot
    bad = tute("play", "tute-2", "random", "random", "-p", "{}", cwd=tmp_path)
    assert bad.returncode == 2 and "one per bot" in bad.stderr


def test_play_names_columns_by_what_they_count(tmp_path: Path) -> None:
    out = tute("play", "cabron", "random", "random", "random", "-n", "10", cwd=tmp_path)
    head = out.stdout.splitlines()[1]
    assert "lost deals" in head and "wins" not in head and head.split()[0] == "seats"
    pairs = tute("play", "tute-4-pairs", "greedy", "random", "-n", "4", cwd=tmp_path)
    assert "0+2" in pairs.stdout and "1+3" in pairs.stdout


def test_ctrl_c_prints_the_summary_of_the_games_finished(tmp_path: Path) -> None:
    proc = subprocess.Popen([TUTE, "play", "tute-2", "search", "random", "-n", "100000"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    first = out.splitlines()[0]
    assert first.startswith("tute-2: ") and "of 100000 deals" in first and "interrupted" in err
    assert "Traceback" not in err


def test_a_ctrl_c_click_catches_in_a_command_ends_as_one_at_import_does(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Inside a command click turns a Ctrl-C into its ``Abort`` (at a prompt, say): the same one line
    and status 130 as a Ctrl-C while the commands import (``leagues.console`` says it there: it sits
    above ``leagues.cli`` and may not be imported by it, so the line is written in both)."""
    import importlib

    import click

    cli_main = importlib.import_module("leagues.cli.main")  # the module (the package exports its main)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise click.exceptions.Abort()

    monkeypatch.setattr(cli_main.cli, "main", interrupted)
    with pytest.raises(SystemExit) as stop:
        cli_main.main(["--help"])
    assert stop.value.code == 130
    assert capsys.readouterr().err == "tute: aborted\n"


def test_ctrl_c_while_the_commands_are_still_importing_is_one_line_not_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The console script's first module catches a Ctrl-C that lands while the commands import (the
    import of ``leagues.cli.main`` is made to raise it here, as the signal would)."""
    import builtins

    from leagues.console import main

    real_import = builtins.__import__

    def interrupted_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "leagues.cli.main":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted_import)
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 130
    assert capsys.readouterr().err == "tute: aborted\n"
    # put back: a caller in the same process keeps its Ctrl-C, and passes no ignored one to its programs
    assert signal.getsignal(signal.SIGINT) is before


def test_the_tute_script_and_python_m_leagues_start_at_the_console_module(tmp_path: Path) -> None:
    assert "leagues.console" in Path(TUTE).read_text(encoding="utf-8")
    for command in ([TUTE, "--help"], [sys.executable, "-m", "leagues", "--help"]):
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=60,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0 and "run" in done.stdout, done.stderr


def test_import_skip_existing_skips_identical_games_and_refuses_changed_ones(tmp_path: Path) -> None:
    import json as _json
    cfg = write_config(tmp_path, deals=2, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    assert tute("run", str(cfg), "--quiet", cwd=tmp_path).returncode == 0
    assert tute("export", "--store", "store.sqlite", "--out", "all.jsonl", cwd=tmp_path).returncode == 0
    again = tute("import", "all.jsonl", "--store", "store.sqlite", cwd=tmp_path)
    assert again.returncode == 2 and "--skip-existing" in again.stderr
    skipped = tute("import", "all.jsonl", "--store", "store.sqlite", "--skip-existing", cwd=tmp_path)
    assert skipped.returncode == 0 and "imported 0 games" in skipped.stdout and "4 already stored skipped" in skipped.stdout  # 2 deals x 2 seatings
    lines = (tmp_path / "all.jsonl").read_text().splitlines()
    changed = _json.loads(lines[1])
    changed["seats"] = list(reversed(changed["seats"]))
    (tmp_path / "changed.jsonl").write_text(lines[0] + "\n" + _json.dumps(changed) + "\n")
    bad = tute("import", "changed.jsonl", "--store", "store.sqlite", "--skip-existing", cwd=tmp_path)
    assert bad.returncode == 2


# ------------------------------------------------------------------------------------------- colour
class FakeTerminal:
    def isatty(self) -> bool:
        return True


def test_colour_follows_the_option_no_color_and_term_dumb(monkeypatch) -> None:
    import click
    from leagues.cli.style import colour, redraw
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    tty = FakeTerminal()

    def under(choice: str) -> bool:
        with click.Context(click.Command("tute"), obj={"color": choice}):
            return colour(tty)

    assert under("auto") and under("always") and not under("never")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not under("auto") and under("always")
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set (no-color.org)
    assert under("auto")
    monkeypatch.setenv("TERM", "dumb")
    assert not under("auto") and not redraw(tty)


def test_color_option_on_the_command_line(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, deals=1, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    assert tute("run", str(cfg), "--quiet", cwd=tmp_path).returncode == 0
    gid = "t/tute-2/r1/t0/d0/s0"
    piped = tute("replay", gid, "--store", "store.sqlite", cwd=tmp_path)
    forced = tute("--color", "always", "replay", gid, "--store", "store.sqlite", cwd=tmp_path)
    never = tute("--color", "never", "replay", gid, "--store", "store.sqlite", cwd=tmp_path)
    assert piped.returncode == forced.returncode == never.returncode == 0, forced.stderr
    assert "\x1b[" not in piped.stdout and "\x1b[" in forced.stdout and "\x1b[" not in never.stdout


def test_a_closed_pipe_ends_a_listing_quietly(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, deals=30, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    assert tute("run", str(cfg), "--quiet", cwd=tmp_path).returncode == 0
    for args in (["export", "--store", "store.sqlite"], ["games", "--store", "store.sqlite"],
                 ["leaderboard", "--store", "store.sqlite"], ["variants"]):
        proc = subprocess.run(["bash", "-c", f"set -o pipefail; {TUTE} {' '.join(args)} | head -c 20 > /dev/null"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert proc.stderr == "", proc.stderr  # no "Broken pipe" error, no traceback
        assert proc.returncode == 0, (args, proc.returncode)  # the reader left: not a failure


def test_an_import_is_all_or_nothing(tmp_path: Path, monkeypatch) -> None:
    import json as _json
    import sqlite3 as _sqlite3

    from leagues.records.archive import ArchiveError, import_file
    from leagues.tournament.store import Store, StoreError

    cfg = write_config(tmp_path, deals=3, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    assert tute("run", str(cfg), "--quiet", cwd=tmp_path).returncode == 0
    assert tute("export", "--store", "store.sqlite", "--out", "all.jsonl", cwd=tmp_path).returncode == 0
    lines = (tmp_path / "all.jsonl").read_text().splitlines()
    bad = _json.loads(lines[3])
    bad["seed"] = 2 ** 63  # once overflowed SQLite after the earlier lines were stored
    (tmp_path / "bad.jsonl").write_text("\n".join(lines[:3] + [_json.dumps(bad)] + lines[4:]) + "\n")
    with Store(tmp_path / "fresh.sqlite") as fresh:
        try:
            import_file(tmp_path / "bad.jsonl", fresh)
        except ArchiveError as exc:
            assert any("bad.jsonl:4" in p and "seed" in p for p in exc.problems), exc.problems
        else:
            raise AssertionError("a seed of 2^63 was imported")
        assert fresh.games() == [] and fresh.tournaments() == []
        # a failure while storing (the disk, a lock) leaves nothing either: no tournament without its games
        monkeypatch.setattr(Store, "insert_games", lambda self, rows: (_ for _ in ()).throw(_sqlite3.OperationalError("disk I/O error")))
        try:
            import_file(tmp_path / "all.jsonl", fresh)
        except StoreError as exc:  # named: the store's file and what went wrong
            assert "disk I/O error" in str(exc) and "fresh.sqlite" in str(exc)
        else:
            raise AssertionError("the failing insert went unnoticed")
        assert fresh.games() == [] and fresh.tournaments() == []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in fh)
    except FileNotFoundError:
        return False


def test_a_killed_runner_leaves_no_worker_behind(tmp_path: Path) -> None:
    import re as _re
    cfg = write_config(tmp_path, deals=20000, workers=2, entrants=[RANDOM, {"name": "r2", "bot": "random"}])
    proc = subprocess.Popen([TUTE, "run", str(cfg), "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # its own process: the kill below reaches the parent only
    log = tmp_path / "store.log"
    workers: list[int] = []
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        time.sleep(0.2)
        if log.exists():
            workers = [int(p) for p in _re.findall(r"worker (\d+) ready", log.read_text())]
    assert len(workers) == 2
    proc.kill()  # SIGKILL to the runner alone
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.2)
    assert not any(_alive(p) for p in workers), "a worker outlived its runner"


def test_a_bots_child_that_left_its_group_ends_with_the_game(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    bot = script(tmp_path, "forker.py", f"""
        import json, os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(300)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open({str(pidfile)!r}, "w").write(str(child.pid))
        print(json.dumps({{"type": "hello", "name": "forker"}}), flush=True)
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "act":
                print(json.dumps({{"action": m["legal"][0]}}), flush=True)
            elif m["type"] == "quit":
                time.sleep(30)  # never leaves by itself: the referee ends it
    """)
    out = tute("play", "tute-2", "random", f"python3 {bot}", "-n", "2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    child = int(pidfile.read_text())
    deadline = time.time() + 10
    while time.time() < deadline and _alive(child):
        time.sleep(0.2)
    assert not _alive(child), "the bot's setsid child outlived its game"


# ------------------------------------------------------------------------------------------- request numbers
REQUEST_BOTS = {
    # answers right after new_game, before any act: output nobody asked for
    "early": """
        if m["type"] == "new_game":
            print(json.dumps({"action": "play 1o"}), flush=True)
        elif m["type"] == "act":
            print(json.dumps({"action": m["legal"][0], "request": m["request"]}), flush=True)
    """,
    # echoes a number that is not the open request's
    "wrong": """
        if m["type"] == "act":
            print(json.dumps({"action": m["legal"][0], "request": m["request"] + 7}), flush=True)
    """,
    # answers every act twice: the second answer is one nobody asked for
    "twice": """
        if m["type"] == "act":
            a = json.dumps({"action": m["legal"][0], "request": m["request"]})
            print(a, flush=True)
            print(a, flush=True)
    """,
    # echoes the number as a string: not a request number (it was told "an answer to request 1, while
    # request 1 is open")
    "string": """
        if m["type"] == "act":
            print(json.dumps({"action": m["legal"][0], "request": str(m["request"])}), flush=True)
    """,
    # echoes faithfully: plays on
    "echo": """
        if m["type"] == "act":
            print(json.dumps({"action": m["legal"][0], "request": m["request"]}), flush=True)
    """,
}


def request_bot(folder: Path, name: str) -> Path:
    body = textwrap.indent(textwrap.dedent(REQUEST_BOTS[name]), "    ")
    return script(folder, f"{name}.py", "import json, sys\n"
                  "print(json.dumps({'type': 'hello', 'name': 'r'}), flush=True)\n"
                  "for line in sys.stdin:\n    m = json.loads(line)\n" + body)


def test_request_numbers_catch_answers_nobody_asked_for(tmp_path: Path) -> None:
    v = get_variant("tute-2")
    # the stray line is caught either waiting before the next act or, read as the next answer, by its number
    stray = ("nobody asked for", "an answer to request", "without the request number")
    for name, expected in (("early", stray), ("wrong", ("an answer to request",)), ("twice", stray),
                           ("string", ('": not a request number (request',)), ("echo", None)):
        bot = make_player(["python3", str(request_bot(tmp_path, name))])
        try:
            forfeits = []
            for g in range(3):
                rec = play_game(v, shuffled_deck(v, g), 0, [bot, make_player("random")], seed=g, ask_forced=True)
                if rec.result.forfeit:
                    forfeits.append(rec.result.forfeit)
        finally:
            bot.close()
        if expected is None:
            assert not forfeits, forfeits
            continue
        assert forfeits and all(f.seat == 0 for f in forfeits), (name, forfeits)
        caught = [f for f in forfeits if f.reason == "protocol" and any(e in f.detail for e in expected)]
        assert caught, (name, forfeits)
        # a stray line that arrives while the very first act is being sent cannot be told from its answer
        # (no number yet to compare): it is then played, legal or not; every later one is caught
        assert all(f in caught or (name == "early" and f.reason == "illegal") for f in forfeits), (name, forfeits)
