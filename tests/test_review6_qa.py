"""QA review 6: the changes of e3cd5e4..HEAD (213a6e5, dd45fef, dccb99b) checked at their edges.

Reviewed: ``SubprocessHost`` (``new_game``, ``_settle``, ``_begin_deal``, ``choose``, ``game_over``,
``_Failure.retold``, ``close``), ``play_game``'s deferred ``new_game`` failure, what ``tute play``,
``tute run`` and ``tute bots check`` say of a seat that fails so, ``leagues.tournament.pipes.receive``
(framing, the ``-1`` header, an error string, CPU while waiting), the stop signals set only by
``StopOnceOnInterrupt`` (``tute``, ``python -m leagues``), and docs/protocol.md and docs/bots.md against
the code. Every race is driven by a gate file the bot waits for or a wrapped host method, never by
sleeping for luck.

Defects found, each pinned by a strict xfail until fixed (none is open):

- ``tute play`` of a cabrero of five or six in which a bot fails every deal it plays (its ``new_game``
  raises, or it never starts) exits 0 with a summary, where it exited 3 ("forfeited every deal") before
  213a6e5: the failure is now said at the seat's first decision, so the deal it sits out as dealer is no
  forfeit, and ``tute play``'s ``ForfeitWatch`` counted that deal as one it played. ``tute run`` (whose
  summary counts from the store's tally, without sat-out deals) still said it and exited 3. Fixed: one
  rule for who played a deal (``arena.result.names_in_play``), for the tally and ``ForfeitWatch``;
- a bot that prints a line on stdout in ``game_over`` and then ends (status 0 or 1) is judged by timing:
  gone before the next deal's ``new_game`` looks, its line is dropped (status 0: restarted silently,
  status 1: ``crash``); gone just after that ``new_game`` is written, the line is "output nobody asked
  for" at the deal's first act: a ``protocol`` forfeit. One deal, two records. Fixed: the line is read
  and said wherever the end is found (``SubprocessHost._gone``);
- docs/protocol.md (added by 213a6e5) says a fresh process that fails its hello between deals is "the
  ``crash`` of the first deal the bot is asked to play"; the record's reason is the hello's own failure,
  ``timeout`` (no answer within ``startup_ms``) or ``protocol`` (not a hello). Fixed in the doc: the
  hello's own reason says more;
- a failure pending at ``close()`` (found between deals, the bot not asked since: a deal it sat out)
  survives it: the host used again (a library caller's next run of deals) forfeits its first deal with
  the old process's crash, though the process it plays with is a fresh one that never failed. Fixed:
  ``close`` drops it.

Noted, not pinned, and mended with them: ``SubprocessHost.new_game``'s docstring says a failure found there is said "as a
plugin's own failing ``new_game`` is ... so it is the forfeit of the next deal it plays", but a plugin's
own failure (``arena.hosting.child``'s ``pending_error``) and an in-process one are dropped with a deal
the seat is not asked in, while the host's ``_pending`` is carried to the next deal (as protocol.md says
for an end between deals); ``tute run``'s early warning counts a cabrero deal sat out ("4 of its first 5
deals") where its summary does not ("4 of 4 deals"); ``_Failure`` cannot be pickled (its ``pump`` is a
thread, its ``__init__`` takes three arguments), harmless while no path pickles a host's exception.

Held (passing tests): a failing ``new_game`` of a plugin is the same forfeit in-process and in a
subprocess, JSON and pickle codecs; ``SubprocessHost.new_game`` does not raise for a bot that cannot
start, that stops reading (a timeout writing ``new_game``), or that ended between deals; ``receive``
reads a frame with the ``-1`` header, answers on both sides of the 16 KiB split, an error string, and
waits for a slow worker without spinning the CPU.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from league_util import COUNTS_ITS_STARTS, protocol_bot
from test_pipes import from_worker
from test_chaos2_qa import GATE_BOT, TUTE, as_from_a_terminal, env_of, no_traceback

CTX = multiprocessing.get_context("fork")


# ----------------------------------------------------------------------------------------------- helpers
def deals(v: Any, host: Any, seat: int, dealers: tuple[int, ...], first_id: int = 0) -> list[Any]:
    """One deal per dealer, ``host`` at ``seat`` and random bots elsewhere: each deal's forfeit."""
    from arena import play_game, shuffled_deck
    from arena.hosting import make_player

    out = []
    for g, dealer in enumerate(dealers, first_id):
        players = [make_player("random", {"seed": s}) for s in range(v.players)]
        players[seat] = host
        rec = play_game(v, shuffled_deck(v, 5 + g), dealer, players, game_id=f"g{g}", seed=5 + g,
                        names=[f"p{s}" for s in range(v.players)])
        out.append(json.loads(rec.encode()[1])["forfeit"])
    return out


def reasons(forfeits: list[Any]) -> list[Any]:
    return [None if f is None else (f["seat"], f["reason"]) for f in forfeits]


# ------------------------------------------------------------------------------------------ open defects
NEW_GAME_FAILS = '''
from bots.random_bot import RandomBot


class FailsNewGame(RandomBot):
    def new_game(self, info):
        raise ValueError("no deal for me")
'''


def test_play_says_a_bot_that_forfeits_every_deal_it_plays_in_cabrero_forfeited_every_deal(tmp_path: Path) -> None:
    """Before 213a6e5 the bot forfeited all 5 deals (the one it sat out too): exit 3, "qa_ng:FailsNewGame
    forfeited every deal: the summary means nothing". Now it forfeits the 4 it plays and sits the 5th out;
    ``tute play``'s watch counts 5 deals for it, so 4 of 5, exit 0: a summary that means nothing, said as a
    result. ``tute run`` of the same lineup counts 4 of 4 (its tally has no sat-out deals) and exits 3."""
    (tmp_path / "qa_ng.py").write_text(NEW_GAME_FAILS)
    out = subprocess.run([TUTE, "play", "cabrero-5", "qa_ng:FailsNewGame", "random", "random", "random", "random",
                          "-n", "5", "--isolation", "inprocess", "--log", str(tmp_path / "p.log")],
                         capture_output=True, text=True, cwd=tmp_path, env=env_of(tmp_path), timeout=120,
                         stdin=subprocess.DEVNULL)
    assert no_traceback(out.stderr), out.stderr
    assert "4 crash" in out.stdout, out.stdout  # every deal it played
    assert out.returncode == 3, (out.returncode, out.stderr)
    assert "qa_ng:FailsNewGame forfeited every deal" in out.stderr


#: a protocol bot (JSON lines) playing at random; argv[1] is its folder, where each process counts itself
#: (``starts``). The first process, at its first game_over, prints a line nobody asked for on stdout
#: (a log line gone to the wrong stream), waits for the file ``gate`` and exits with status argv[2].
SAYS_GOODBYE = protocol_bot("goodbye", head=COUNTS_ITS_STARTS + "status = int(sys.argv[2])", game_over=r'''
if start == 1:
    sys.stdout.write("game over: thanks for the deal\n")
    sys.stdout.flush()
    while not os.path.exists(os.path.join(folder, "gate")):
        time.sleep(0.001)
    os._exit(status)
''')


def goodbye_deals(folder: Path, status: int, found: str) -> list[Any]:
    """Two deals of tute-2, the goodbye bot at seat 1: its first process ends after deal 0's game_over,
    ``at-new_game`` (gone before deal 1's new_game looks) or ``at-first-act`` (gone just after it is
    written, before the deal's first act)."""
    from arena import get_variant
    from arena.hosting import make_player

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(SAYS_GOODBYE)
    gate = folder / "gate"
    host: Any = make_player([sys.executable, str(folder / "bot.py"), str(folder), str(status)], time_limit_ms=10_000)
    new_game = host.new_game

    def gated(info: dict[str, Any]) -> None:
        if info["game_id"] == "g1" and found == "at-new_game":
            gate.touch()
            host.proc.wait(timeout=30)
        new_game(info)
        if info["game_id"] == "g1" and found == "at-first-act":
            gate.touch()
            host.proc.wait(timeout=30)  # gone before the first act: its line is in the pipe either way

    host.new_game = gated
    try:
        return deals(get_variant("tute-2"), host, 1, (0, 1))
    finally:
        host.close()


@pytest.mark.parametrize("status", [0, 1])
def test_a_line_printed_by_a_bot_ending_in_game_over_is_judged_alike_however_soon_the_next_deal_comes(
        tmp_path: Path, status: int) -> None:
    """docs/protocol.md: an end between deals is judged "in the same words however soon that deal came",
    and "a line printed after game_over forfeits the next deal its process plays". The bot prints a line
    on stdout in deal 0's game_over, then exits (status 0: a bot playing one deal a process; 1: a crash).
    Gone before deal 1's ``new_game`` looks: ``_gone`` drops the unread line (status 0: restarted, no
    forfeit; 1: ``crash``). Gone a moment later (the next deal came sooner: one worker, no sit-out),
    ``_choose`` reads the line as output nobody asked for: ``protocol``. The same bot, two records."""
    by_look = goodbye_deals(tmp_path / "look", status, "at-new_game")
    by_act = goodbye_deals(tmp_path / "act", status, "at-first-act")
    assert by_look[0] is None and by_act[0] is None
    assert reasons(by_look) == reasons(by_act), (by_look, by_act)


#: a protocol bot whose first process plays one deal and exits with status 0 at its game_over; every later
#: process fails its hello as argv[2] says: ``hang`` (never answers), ``garbage`` (a line that is no hello)
HELLO_FAILS_LATER = protocol_bot("hello-fails-later", head=COUNTS_ITS_STARTS + "how = sys.argv[2]", hello=r'''
if start > 1:
    if how == "garbage":
        sys.stdout.write("hi there\n")
        sys.stdout.flush()
    for _ in sys.stdin:  # and nothing more
        pass
    sys.exit(0)
''', game_over="os._exit(0)")


@pytest.mark.parametrize("how", ["hang", "garbage"])
def test_a_fresh_process_that_fails_its_hello_between_deals_loses_the_next_deal_as_the_protocol_doc_says(
        tmp_path: Path, how: str) -> None:
    """docs/protocol.md, "What loses a deal": a fresh process that fails its hello between deals "loses
    the first deal the bot is asked to play (a ``crash``, or the hello's ``timeout`` or ``protocol``)". The
    bot plays deal 0 and exits with status 0; its fresh process for deal 1 does not answer the hello
    (``hang``: a ``timeout``) or answers with a line that is no hello (``protocol``). (The doc said
    ``crash`` for both at first: the reason is the hello's own, which says more.)"""
    from arena import get_variant
    from arena.hosting import make_player

    (tmp_path / "bot.py").write_text(HELLO_FAILS_LATER)
    host: Any = make_player([sys.executable, str(tmp_path / "bot.py"), str(tmp_path), how], time_limit_ms=10_000)
    host.startup_ms = 400  # the hang costs this, not 15 s
    new_game = host.new_game

    def gone_first(info: dict[str, Any]) -> None:
        if info["game_id"] == "g1":
            host.proc.wait(timeout=30)  # found at new_game: the restart is made there
        new_game(info)

    host.new_game = gone_first
    try:
        forfeits = deals(get_variant("tute-2"), host, 1, (0, 1))
    finally:
        host.close()
    assert forfeits[0] is None and forfeits[1] is not None and forfeits[1]["seat"] == 1, forfeits
    assert forfeits[1]["reason"] == {"hang": "timeout", "garbage": "protocol"}[how], forfeits[1]
    text = " ".join((Path(__file__).parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    assert "a fresh process that fails its hello, loses the first deal the bot is asked to play (a `crash`, " \
           "or the hello's `timeout` or `protocol`)" in text


def test_a_failure_pending_at_close_is_not_the_forfeit_of_the_hosts_next_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cabrero with five: the gate bot (seat 1) crashes (status 1) in deal 0's game_over and deals deal 1,
    which it sits out; the run ends there and the host is closed, its crash pending (docs: the forfeit of
    the next deal it plays, in this run). A library caller plays another run with the same host
    (``close`` leaves a host that starts afresh at its next ``new_game``): its process is a fresh one that
    never failed, yet its first deal is forfeited with the old process's "exited with status 1"."""
    from arena import get_variant
    from arena.hosting import make_player

    (tmp_path / "gate_bot.py").write_text(GATE_BOT)
    (tmp_path / "gate").touch()
    monkeypatch.setenv("QA_GO_AT", "1")
    monkeypatch.setenv("QA_GO_STATUS", "1")
    for key in ("QA_ERR", "QA_NG_EXIT", "QA_HELLO_EXIT"):
        monkeypatch.delenv(key, raising=False)
    host: Any = make_player([sys.executable, str(tmp_path / "gate_bot.py"), str(tmp_path)], time_limit_ms=10_000)
    new_game = host.new_game

    def gone_first(info: dict[str, Any]) -> None:
        if info["game_id"] == "g1" and host.proc is not None:
            host.proc.wait(timeout=30)  # crashed before the deal it sits out
        new_game(info)

    host.new_game = gone_first
    v = get_variant("cabrero-5")
    try:
        first_run = deals(v, host, 1, (0, 1))
        assert first_run == [None, None]  # deal 1: sat out, not its forfeit
    finally:
        host.close()
    host.new_game = new_game
    try:
        second_run = deals(v, host, 1, (0,), first_id=2)
    finally:
        host.close()
    assert second_run == [None], second_run


# ------------------------------------------------------------------------------------------ what held
FAILS_IN_NEW_GAME = '''
from bots.random_bot import RandomBot


class FailsEveryNewGame(RandomBot):
    def new_game(self, info):
        super().new_game(info)
        raise ValueError("no deal for me")
'''


@pytest.mark.parametrize("codec", ["json", "pickle"])
def test_a_failing_new_game_is_the_same_forfeit_in_process_and_in_a_subprocess_of_either_codec(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codec: str) -> None:
    """Cabrero with five, the bot at seat 2: a forfeit at its first decision of each deal it plays (the
    same seat, reason and actions whichever host), none in the deal it sits out."""
    from arena import get_variant, play_game, shuffled_deck
    from arena.hosting import SubprocessHost, child_env, make_player, plugin_command

    (tmp_path / "qa_fails_ng.py").write_text(FAILS_IN_NEW_GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    v = get_variant("cabrero-5")
    target = "qa_fails_ng:FailsEveryNewGame"
    hosts: dict[str, Any] = {
        "inprocess": make_player(target, {"seed": 1}, isolation="inprocess"),
        "subprocess": SubprocessHost(plugin_command(target, {"seed": 1}, codec), target, env=child_env(), codec=codec),
    }
    records: dict[str, list[Any]] = {}
    for kind, bot in hosts.items():
        try:
            records[kind] = []
            for g in range(5):
                players = [make_player("random", {"seed": s}) for s in range(v.players)]
                players[2] = bot
                rec = json.loads(play_game(v, shuffled_deck(v, 7 + g), g, players, game_id=f"g{g}", seed=7 + g,
                                           names=[f"p{s}" for s in range(v.players)]).dumps())
                f = rec["result"]["forfeit"]
                if f is not None:
                    assert f["seat"] == 2 and "no deal for me" in f["detail"], f
                    f["detail"] = ""
                records[kind].append(rec)
        finally:
            bot.close()
    sat_out = [r["result"]["forfeit"] for r in records["inprocess"] if r["result"].get("sit_out") == 2]
    assert sat_out == [None]
    assert sum(r["result"]["forfeit"] is not None for r in records["inprocess"]) == 4
    assert records["inprocess"] == records["subprocess"]


STOPS_READING = '''
import json, sys, time
line = sys.stdin.readline()
sys.stdout.write(json.dumps({"type": "hello", "name": "deaf"}) + "\\n")
sys.stdout.flush()
time.sleep(60)
'''


def test_new_game_does_not_raise_for_a_bot_that_cannot_start_or_stops_reading(tmp_path: Path) -> None:
    """``new_game`` "never raises": a command that does not exist (said at the first act, a ``crash``), and
    a bot that stops reading its input (a ``new_game`` larger than the pipe: a ``timeout`` at the act)."""
    from arena.hosting import SubprocessHost

    missing = SubprocessHost([str(tmp_path / "no-such-bot")], "missing", time_limit_ms=200)
    try:
        missing.new_game({"game_id": "g0"})
        with pytest.raises(Exception) as said:
            missing.choose(None)  # type: ignore[arg-type]
        assert getattr(said.value, "reason", None) == "crash" and "cannot start" in str(said.value)
    finally:
        missing.close()
    (tmp_path / "deaf.py").write_text(STOPS_READING)
    deaf = SubprocessHost([sys.executable, str(tmp_path / "deaf.py")], "deaf", time_limit_ms=200)
    try:
        deaf.start()
        started = time.monotonic()
        deaf.new_game({"game_id": "g0", "padding": "x" * (1 << 20)})  # more than a pipe holds
        assert time.monotonic() - started < 5
        with pytest.raises(Exception) as said:
            deaf.choose(None)  # type: ignore[arg-type]
        assert getattr(said.value, "reason", None) == "timeout", said.value
        assert deaf.proc is None  # killed
    finally:
        deaf.close()


def _raw(conn: Any, data: bytes) -> None:
    os.write(conn.fileno(), data)
    os._exit(0)


def _slow_then_send(conn: Any, value: Any, delay: float) -> None:
    time.sleep(delay)
    conn.send(value)


def test_receive_reads_the_large_header_and_the_answers_on_either_side_of_the_split() -> None:
    """``Connection.send`` writes ``-1`` and an 8-byte size for messages of 2 GiB and more; ``receive``
    must read that framing (here with a small payload, as ``recv`` would), answers of 16384 and 16385
    bytes (header and payload in one write, or two), and a worker's error string."""
    payload = pickle.dumps(("ok", [1, 2, 3]))
    assert from_worker(_raw, struct.pack("!i", -1) + struct.pack("!Q", len(payload)) + payload) == ("ok", [1, 2, 3])
    for value in ("its bots did not start: BotFailure('crash')", b"x" * (16384 - 33), b"x" * (16385 - 33),
                  b"y" * 16384, b"z" * 16385):
        assert from_worker(_slow_then_send, value, 0.0) == value


def test_receive_waits_for_a_slow_worker_without_spinning() -> None:
    """A worker that answers after 1.2 s (two liveness polls and more): read whole, and the wait sleeps."""
    cpu = time.process_time()
    assert from_worker(_slow_then_send, ("ok", "late"), 1.2) == ("ok", "late")
    assert time.process_time() - cpu < 0.3


#: ``python -m leagues play ...`` with a bot that, at its 30th decision, sends this process SIGTERM
SIGTERM_BOT = '''
import os, signal
from bots.random_bot import RandomBot


class StopsTheRun(RandomBot):
    asked = 0

    def choose(self, view):
        StopsTheRun.asked += 1
        if StopsTheRun.asked == 30:
            os.kill(os.getpid(), signal.SIGTERM)
        return super().choose(view)
'''


def test_sigterm_stops_python_m_leagues_play_with_its_summary(tmp_path: Path) -> None:
    """The commands no longer set SIGTERM's handler: ``python -m leagues`` (not the ``tute`` script) still
    gets it from ``StopOnceOnInterrupt``: the summary of the deals finished, "interrupted", exit 130."""
    (tmp_path / "qa_term.py").write_text(SIGTERM_BOT)
    out = subprocess.run([sys.executable, "-m", "leagues", "play", "tute-2", "qa_term:StopsTheRun", "random",
                          "-n", "100000", "--isolation", "inprocess", "--log", str(tmp_path / "p.log")],
                         capture_output=True, text=True, cwd=tmp_path, env=env_of(tmp_path), timeout=120,
                         stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=as_from_a_terminal)
    assert out.returncode == 130, out.stderr
    assert "tute: interrupted" in out.stderr and no_traceback(out.stderr), out.stderr
    assert "tute-2:" in out.stdout, out.stdout


def test_a_runs_forfeit_warning_does_not_count_a_deal_the_entrant_sat_out() -> None:
    """``tute run``'s early warning (``ForfeitWatch.add`` over stored rows) counts the deals an entrant
    played as its summary (the tally) does: a cabrero dealer who sat a deal out did not play it."""
    from leagues.tournament.forfeits import ROW_ID, ROW_SEATS, ForfeitWatch
    from leagues.tournament.store import ROW_RESULT

    seats = ["bad", "r1", "r2", "r3", "r4"]
    watch = ForfeitWatch()
    warnings: list[str] = []
    for g in range(5):
        row: list[Any] = [None] * 16
        row[ROW_ID], row[ROW_SEATS] = f"g{g}", json.dumps(seats)
        sit_out = g % 5
        forfeit = None if sit_out == 0 else {"seat": 0, "reason": "crash", "detail": "boom"}
        row[ROW_RESULT] = json.dumps({"forfeit": forfeit, "reason": "forfeit" if forfeit else "losers",
                                      "sit_out": sit_out}, separators=(",", ":"))
        warnings += watch.add(row)
    assert watch.entrants["bad"].games == 4 and watch.entrants["bad"].forfeits == 4
    assert watch.entrants["r1"].games == 4
    assert len(warnings) == 1 and warnings[0].startswith("warning: bad forfeited 4 of its first 4 deals"), warnings


def test_a_crash_after_the_last_deal_is_logged_at_close(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """A bot that crashes in the last deal's game_over has no deal left to forfeit: its host says so in the
    log when it closes, where it used to say nothing."""
    import logging

    from arena import get_variant
    from arena.hosting import make_player

    (tmp_path / "gate_bot.py").write_text(GATE_BOT)
    (tmp_path / "gate").touch()
    monkeypatch.setenv("QA_GO_AT", "1")
    monkeypatch.setenv("QA_GO_STATUS", "3")
    for key in ("QA_ERR", "QA_NG_EXIT", "QA_HELLO_EXIT"):
        monkeypatch.delenv(key, raising=False)
    host: Any = make_player([sys.executable, str(tmp_path / "gate_bot.py"), str(tmp_path)], time_limit_ms=10_000)
    game_over = host.game_over

    def then_dead(result: dict[str, Any]) -> None:
        game_over(result)
        host.proc.wait(timeout=30)  # it ends in its game_over (the gate is open)

    host.game_over = then_dead
    caplog.set_level(logging.WARNING, logger="arena.hosting")
    try:
        assert deals(get_variant("tute-2"), host, 1, (0,)) == [None]
    finally:
        host.close()
    said = [r.getMessage() for r in caplog.records if "after the last deal" in r.getMessage()]
    assert len(said) == 1 and "status 3" in said[0], [r.getMessage() for r in caplog.records]
