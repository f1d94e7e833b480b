"""Hostile runs: what a run must survive beyond a hostile move. A cluster that cannot be reached refuses
``--new`` before it deletes anything; an in-process bot that calls ``sys.exit`` forfeits (it does not end
the run); a worker of ``play -j N`` that dies ends the run in one line instead of a wait without end;
SIGTERM stops ``play`` as Ctrl-C does."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leagues.tournament import cluster as cluster_module
from leagues.tournament.config import load_config
from leagues.tournament.runner import RunError, run_tournament

from league_util import write_config

EVIL = '''
import os, sys

class SysExit:
    def choose(self, view):
        sys.exit(7)

class OsExit:
    def choose(self, view):
        os._exit(9)
'''


def tute(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "leagues", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env)


def games_in(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        db.close()


@pytest.fixture()
def evil(tmp_path: Path) -> Path:
    (tmp_path / "evil.py").write_text(EVIL)
    return tmp_path


# ------------------------------------------------------------------------------------------- 1: --cluster
def test_unreachable_cluster_refuses_new_before_deleting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    path = write_config(tmp_path, deals=1, entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    cfg = load_config(path)
    run_tournament(cfg, workers=1, quiet=True)
    before = games_in(cfg.store)
    assert before > 0
    monkeypatch.setattr(cluster_module, "CONNECT_SECONDS", 0.5)
    with pytest.raises(RunError, match="cannot reach the scheduler"):
        run_tournament(cfg, new=True, quiet=True, cluster="tcp://127.0.0.1:1")
    assert games_in(cfg.store) == before, "the stored games survive a refused --new"


@pytest.mark.parametrize("command", [["run", "tournament.toml"], ["match", "random", "greedy", "-v", "tute-2"],
                                     ["league", "season", "-l", "club"]])
@pytest.mark.parametrize("address", ["", "nope", "local:-1", "local:x"])
def test_a_malformed_cluster_address_is_refused_at_once(tmp_path: Path, command: list[str], address: str) -> None:
    """An empty ``--cluster`` was taken for none (the games then ran here), and ``nope`` was said to need
    Dask: each command refuses a malformed address by the config's rule, before anything runs."""
    write_config(tmp_path, deals=1)
    out = tute(*command, "--cluster", address, cwd=tmp_path)
    assert out.returncode == 2 and "Invalid value for '--cluster'" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "store.sqlite").exists()


def test_unreachable_cluster_on_a_first_run_leaves_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    path = write_config(tmp_path, deals=1, entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"}])
    cfg = load_config(path)
    monkeypatch.setattr(cluster_module, "CONNECT_SECONDS", 0.5)
    with pytest.raises(RunError, match="cannot reach the scheduler"):
        run_tournament(cfg, quiet=True, cluster="tcp://127.0.0.1:1")
    assert not cfg.store.exists(), "a refused first run makes no empty store"
    run_tournament(cfg, workers=1, quiet=True)  # and the run then starts as a first run
    assert games_in(cfg.store) > 0


# ----------------------------------------------------------------------------- 1b: --forfeit-missing
def test_an_entrant_that_does_not_start_forfeits_with_forfeit_missing(tmp_path: Path) -> None:
    """A bot that does not start refuses the run (exit 2, the way out named); with --forfeit-missing
    it forfeits every game instead, said first, then as every forfeit is (exit 3); and a tournament
    half played whose bot is gone for good is finished the same way, not locked."""
    (tmp_path / "gone.py").write_text("import sys\nsys.exit(4)\n")
    path = write_config(tmp_path, deals=2, entrants=[{"name": "g", "bot": "greedy"}, {"name": "r", "bot": "random"},
                                                     {"name": "x", "bot": [sys.executable, "gone.py"]}])
    refused = tute("run", str(path), "-q", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "entrant 'x' did not start" in refused.stderr and "--forfeit-missing" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "store.sqlite").exists()
    out = tute("run", str(path), "-q", "--forfeit-missing", cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    assert "warning: entrant 'x' did not start" in out.stderr and "x forfeited every deal" in out.stderr
    store = tmp_path / "store.sqlite"
    games = games_in(store)
    assert games > 0 and "rank" in out.stdout
    with sqlite3.connect(store) as db:  # as if stopped half way
        db.execute("UPDATE tournaments SET finished = NULL")
    again = tute("run", str(path), "-q", cwd=tmp_path)
    assert again.returncode == 2 and "--forfeit-missing" in again.stderr
    resumed = tute("run", str(path), "-q", "--forfeit-missing", cwd=tmp_path)
    assert resumed.returncode == 3 and "warning: entrant 'x' did not start" in resumed.stderr
    assert games_in(store) == games


# ------------------------------------------------------------------------------------ 2: sys.exit, dead workers
def test_sys_exit_in_process_is_a_crash_forfeit_of_play(evil: Path) -> None:
    out = tute("play", "tute-2", "greedy", "evil:SysExit", "-n", "4", "--isolation", "inprocess", cwd=evil)
    assert out.returncode == 3, out.stderr  # a forfeit of every deal, said (not the bot's exit status 7)
    assert "4 crash" in out.stdout and "SystemExit(7)" in out.stdout


def test_sys_exit_in_process_is_a_crash_forfeit_of_run(evil: Path) -> None:
    path = write_config(evil, deals=1, entrants=[{"name": "g", "bot": "greedy"},
                                                 {"name": "x", "bot": "evil:SysExit", "isolation": "inprocess"}])
    out = tute("run", str(path), "-q", cwd=evil)
    assert out.returncode == 3, out.stderr  # x forfeited every deal: said, not a traceback
    assert "Traceback" not in out.stderr and "SystemExit(7)" in out.stderr


def test_a_worker_killed_by_a_bot_names_the_game_it_was_playing(evil: Path) -> None:
    """A bot that ends its worker process (``os._exit`` in process; a command could kill its parent)
    stops the run: the one-line error and the log say which game, and who sat at it."""
    path = write_config(evil, deals=2, workers=1, entrants=[
        {"name": "g", "bot": "greedy"}, {"name": "x", "bot": "evil:OsExit", "isolation": "inprocess"}])
    out = tute("run", str(path), "-q", cwd=evil, timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "tute: error: a worker process died while playing t/tute-2/r1/t0/d0/s0 (seats g, x)"), out.stderr
    assert "run again to resume" in lines[0]
    assert "died while playing t/tute-2/r1/t0/d0/s0 (seats g, x)" in (evil / "store.log").read_text()


def test_sys_exit_in_process_fails_bots_check(evil: Path) -> None:
    out = tute("bots", "check", "evil:SysExit", "--isolation", "inprocess", "-n", "4", "-v", "tute-2", cwd=evil)
    assert out.returncode == 1, out.stderr
    assert "crash" in out.stdout


@pytest.mark.parametrize("bot", ["evil:SysExit", "evil:OsExit"])
def test_play_with_workers_never_hangs_on_a_bot_that_exits(evil: Path, bot: str) -> None:
    out = tute("play", "tute-2", "greedy", bot, "-n", "4", "--isolation", "inprocess", "-j", "2",
               cwd=evil, timeout=60)
    if bot == "evil:SysExit":
        assert out.returncode == 3 and "4 crash" in out.stdout, out.stderr
    else:
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tute: error: worker process"), out.stderr
        assert "exited with status 9" in lines[0] and "Traceback" not in out.stderr
        assert "of 4 deals" in out.stdout, "the summary of the games finished is printed"


def test_in_process_host_lets_ctrl_c_through() -> None:
    from arena.hosting import InProcessHost

    class Interrupted:
        def choose(self, view: object) -> str:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        InProcessHost(Interrupted(), "x").choose(None)


def test_a_second_ctrl_c_is_ignored_while_the_first_stops_the_command() -> None:
    from leagues.cli.exits import StopOnceOnInterrupt, ignore_stop, interrupt_once

    before_int, before_term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with StopOnceOnInterrupt():
        assert signal.getsignal(signal.SIGINT) is interrupt_once
    assert signal.getsignal(signal.SIGINT) is before_int  # put back: it did not fire
    try:
        with pytest.raises(KeyboardInterrupt):
            with StopOnceOnInterrupt():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
        os.kill(os.getpid(), signal.SIGINT)  # the second: ignored, the command is stopping
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is ignore_stop
        assert signal.getsignal(signal.SIGTERM) is ignore_stop
    finally:
        signal.signal(signal.SIGINT, before_int)
        signal.signal(signal.SIGTERM, before_term)


def test_ctrl_c_twice_stops_a_run_saying_what_was_stored(tmp_path: Path) -> None:
    """A Ctrl-C pressed twice (or the signal sent to the process and then its group, as ``timeout -s
    INT`` does) ended in click's bare "aborted" when the second came while the workers were ended."""
    path = write_config(tmp_path, deals=40, workers=2, entrants=[{"name": "s", "bot": "search"},
                                                                 {"name": "g", "bot": "greedy"}])
    proc = subprocess.Popen([sys.executable, "-m", "leagues", "run", str(path), "-q"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "tute: interrupted:" in err and "aborted" not in err and "Traceback" not in err, err


# --------------------------------------------------------------------------------------------- 10: SIGTERM
def test_sigterm_stops_play_with_workers_like_ctrl_c(tmp_path: Path) -> None:
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-m", "leagues", "play", "tute-2", "search", "greedy", "-n", "400",
                             "-j", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=env)
    time.sleep(4)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert "of 400 deals" in out and "interrupted" in err


# ------------------------------------------------------------------------------------- 4, 5, 6, 8: the config
def config_error(tmp_path: Path, text: str) -> str:
    from leagues.tournament.config import ConfigError

    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    message = str(exc.value)
    assert len(message.splitlines()) == 1, message
    return message


BASE = '''name = "t"
store = "s.sqlite"
[[variants]]
name = "tute-2"
[[entrants]]
name = "a"
bot = "random"
[[entrants]]
name = "b"
bot = "greedy"
'''


def test_log_and_store_naming_one_file_are_refused(tmp_path: Path) -> None:
    message = config_error(tmp_path, BASE.replace('store = "s.sqlite"', 'store = "s.sqlite"\nlog = "./s.sqlite"'))
    assert "t.toml:3: log:" in message and "the store and the log at once" in message
    # a store named .log: its default log is itself
    message = config_error(tmp_path, BASE.replace('store = "s.sqlite"', 'store = "s.log"'))
    assert "t.toml:2: store:" in message and "the store and the log at once" in message


def test_a_rule_option_beyond_the_stores_integers_is_refused(tmp_path: Path) -> None:
    message = config_error(tmp_path, BASE.replace('name = "tute-2"', 'name = "tute-2"\n'
                                                   'options = { last_trick_bonus = 99999999999999999999 }'))
    assert "variants[0].options: last_trick_bonus:" in message and "out of range" in message


@pytest.mark.parametrize("value,kind", [("1979-05-27", "date"), ("1979-05-27T07:32:00Z", "datetime"),
                                        ("[1, 07:32:00]", "time"), ("nan", "nan")])
def test_params_that_are_not_json_are_refused_by_key(tmp_path: Path, value: str, kind: str) -> None:
    message = config_error(tmp_path, BASE.replace('bot = "greedy"', f'bot = "greedy"\nparams = {{ seed = {value} }}'))
    assert "entrants[1].params.seed" in message and "JSON" in message, message


def test_a_huge_time_limit_is_refused(tmp_path: Path) -> None:
    from leagues.tournament.config import MAX_TIME_LIMIT_MS

    message = config_error(tmp_path, "time_limit_ms = 99999999999\n" + BASE)
    assert f"time_limit_ms: must be at most {MAX_TIME_LIMIT_MS}" in message


# ---------------------------------------------------------------------------------- 3, 5, 7, 8: the options
@pytest.mark.parametrize("args,words", [
    (("play", "tute-2", "greedy", "random", "--time-limit", "2147483600"), "--time-limit"),
    (("bots", "check", "greedy", "--time-limit", "2147483600"), "--time-limit"),
    (("run", "t.toml", "-j", "100000"), "--workers"),
    (("play", "tute-2", "greedy", "random", "-o", "last_trick_bonus=99999999999999999999"), "last_trick_bonus"),
    (("play", "tute-2", "greedy", "random", "--records", "t.toml/x"), "--records t.toml/x: t.toml is not a folder"),
    (("play", "tute-2", "greedy", "random", "--records", "r.jsonl", "--log", "./r.jsonl"), "the same file as --records"),
])
def test_out_of_range_options_are_one_line_exit_2(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    (tmp_path / "t.toml").write_text(BASE)
    out = tute(*args, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and words in out.stderr, out.stderr
    assert not (tmp_path / "s.sqlite").exists()


def test_records_named_log_keep_the_bots_log_out(evil: Path) -> None:
    out = tute("play", "tute-2", "greedy", "evil:SysExit", "-n", "2", "--records", "out.log", cwd=evil)
    assert out.returncode == 3, out.stderr  # evil forfeited every deal (in a subprocess: its stderr is logged)
    assert (evil / "out.bots.log").read_text().strip(), "the bot's stderr went to the log"
    lines = (evil / "out.log").read_text().splitlines()
    assert len(lines) == 2 and all(line.startswith("{") for line in lines), "the records hold records only"


# ------------------------------------------------------------------------------------- 9: every deal forfeited
def test_play_and_match_exit_3_when_a_bot_forfeits_every_deal(evil: Path) -> None:
    out = tute("play", "tute-2", "greedy", "evil:SysExit", "-n", "3", "--isolation", "inprocess", cwd=evil)
    assert out.returncode == 3, out.stderr
    assert "evil:SysExit forfeited every deal" in out.stderr
    out = tute("match", "greedy", "evil:SysExit", "-v", "tute-2", "--max-blocks", "2", "-q", cwd=evil)
    assert out.returncode == 3, out.stderr
    assert "forfeits:" in out.stderr and "evil:SysExit forfeited every deal" in out.stderr
    out = tute("play", "tute-2", "greedy", "random", "-n", "3", cwd=evil)
    assert out.returncode == 0, out.stderr


def test_a_long_non_ascii_name_runs(tmp_path: Path) -> None:
    """A name of 60 'é' is within the 100 characters a name may have, but its lock file's name, quoted,
    took 540 bytes, past what a file system allows: every run failed with a traceback. Such a name's
    lock is named by a hash; two runs of it still exclude each other."""
    from leagues.tournament.lock import RunLock, lock_path

    name = "é" * 60
    path = write_config(tmp_path, name=name, deals=1, workers=1)
    summary = run_tournament(load_config(path), workers=1, quiet=True)
    assert summary.played > 0
    lock = lock_path(tmp_path / "store.sqlite", name)
    assert len(os.fsencode(lock.name)) <= 255 and lock.exists()
    with RunLock(tmp_path / "store.sqlite", name):  # a record lock is a process's: another one is refused
        other = subprocess.run([sys.executable, "-c", (
            "import sys; from pathlib import Path; from leagues.tournament.lock import LockedError, RunLock\n"
            "try:\n    RunLock(Path(sys.argv[1]), sys.argv[2]).__enter__()\nexcept LockedError:\n    sys.exit(7)"),
            str(tmp_path / "store.sqlite"), name], capture_output=True, text=True, timeout=60)
        assert other.returncode == 7, other.stderr


def test_an_interrupted_run_exits_though_a_killed_worker_held_the_log_queue(tmp_path: Path) -> None:
    """A worker killed while it wrote to the run's log queue keeps the queue's lock: the parent's last
    records wait behind it, and the interpreter's exit joined that wait for ever (a hang after
    'interrupted', seen once in 25 Ctrl-C). The interrupted run lets them go."""
    code = (
        "import logging, sys\n"
        "from leagues.tournament.runner import _install_log, _remove_log\n"
        "handler = _install_log(sys.argv[1])\n"
        "handler.queue._wlock.acquire()  # as a worker killed in the middle of a put leaves it\n"
        "logging.getLogger('t').warning('interrupted')  # the parent's record: its feeder waits on the lock\n"
        "_remove_log(handler, interrupted=True)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run.log")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_a_store_reached_through_a_symlink_takes_the_same_lock(tmp_path: Path) -> None:
    """The lock was named after the store's path as spelled: through a symlink a second run of the same
    tournament took another lock, and with --new deleted the first one's games under it."""
    from leagues.tournament.lock import lock_path

    (tmp_path / "store.sqlite").write_bytes(b"")
    (tmp_path / "alias.sqlite").symlink_to(tmp_path / "store.sqlite")
    (tmp_path / "sub").mkdir()
    assert lock_path(tmp_path / "alias.sqlite", "t") == lock_path(tmp_path / "store.sqlite", "t") \
        == lock_path(tmp_path / "sub" / ".." / "store.sqlite", "t")
