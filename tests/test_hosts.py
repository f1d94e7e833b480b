"""Hosts and protocol: the three kinds of player behave as one, the wire format is the view, processes
are reused, restarted and killed as promised."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena import VARIANTS, BotFailure, GameState, get_variant, play_game, shuffled_deck
from arena.hosting import (BotLoadError, BotSpec, InProcessHost, SubprocessHost, is_command, make_player,
                           plugin_command, resolve_spec)
from arena.protocol import ViewDecoder, ViewEncoder, parse_answer, parse_answer_fields, ProtocolError

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = Path(__file__).resolve().parent / "hostile"
if str(HOSTILE) not in sys.path:
    sys.path.insert(0, str(HOSTILE))
EXAMPLE = [sys.executable, str(ROOT / "examples" / "random_bot.py")]


def _random_states(variant_name: str, games: int = 5):
    """Every state reached in some random games: the views a bot may be shown."""
    import random

    v = VARIANTS[variant_name]
    rng = random.Random(variant_name)
    for g in range(games):
        st = GameState.new(v, shuffled_deck(v, g), g % v.players)
        while not st.is_over:
            yield st
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])


# ------------------------------------------------------------------------------------------ protocol
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_encoded_view_is_the_views_json_and_decodes_back(variant: str) -> None:
    enc = ViewEncoder()
    dec = ViewDecoder()
    dec.new_game({"variant": variant, "options": VARIANTS[variant].options()})
    for st in _random_states(variant):
        view = st.view(st.current)
        line = enc.act_message(view, 500)
        msg = json.loads(line)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert msg["type"] == "act" and msg["time_ms"] == 500 and msg["legal"] == list(view.legal)
        assert msg["view"] == view.to_json()
        back = dec.view(msg["view"])
        assert back == view


def test_parse_answer() -> None:
    assert parse_answer(b'{"action": "play 1o"}') == "play 1o"
    assert parse_answer_fields(b'{"action":"play 1o"}') == ("play 1o", None, None)
    assert parse_answer_fields(b'{"action":"pass","request":3,"clock_stops":2}') == ("pass", 3, 2)
    # past Python's 4,300 digits an integer would fail the whole line: it reads as no report
    from arena.protocol import stops_value
    action, request, stops = parse_answer_fields(b'{"action":"pass","clock_stops":' + b"1" * 5000 + b"}")
    assert action == "pass" and request is None and stops_value(stops) is None
    with pytest.raises(ProtocolError, match="nested too deeply"):
        parse_answer(b'{"action":"pass","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert parse_answer(b'{"action": 3}') == 3
    for bad in (b"play 1o", b"[1]", b'{"move": "play 1o"}', b"\xff\xfe"):
        with pytest.raises(ProtocolError):
            parse_answer(bad)


def test_arena_host_speaks_the_protocol() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "arena.hosting.child", "random"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    v = get_variant("tute-2")
    st = GameState.new(v, shuffled_deck(v, 1), 0)
    view = st.view(st.current)
    lines = [{"type": "hello", "protocol": 1},
             {"type": "new_game", "variant": "tute-2", "options": v.options(), "seat": st.current, "seed": 1},
             json.loads(ViewEncoder().act_message(view, 1000)), {"type": "quit"}]
    out, err = proc.communicate("".join(json.dumps(m) + "\n" for m in lines).encode(), timeout=20)
    replies = [json.loads(x) for x in out.decode().splitlines()]
    assert proc.returncode == 0, err
    assert replies[0]["type"] == "hello" and replies[0]["name"] == "random"
    assert replies[1]["action"] in view.legal and len(replies) == 2


def test_arena_host_reports_a_bot_it_cannot_load() -> None:
    host = SubprocessHost(plugin_command("no_such_module_xyz:Bot"), "broken", time_limit_ms=500)
    with pytest.raises(BotFailure) as exc:
        host.start()
    assert exc.value.reason == "crash" and "no_such_module_xyz" in exc.value.detail
    host.close()


# ------------------------------------------------------------------------------------------ factory
def test_is_command() -> None:
    assert is_command(["mybot"]) and is_command("./mybot") and is_command("/usr/bin/bot")
    assert is_command("python3 bot.py --fast") and is_command("../bots/x")
    assert not is_command("random") and not is_command("pkg.mod:Bot")


def test_make_player_kinds() -> None:
    p = make_player("random")
    assert isinstance(p, InProcessHost) and p.spec.trusted and p.spec.origin == "tute-arena"
    g = make_player("greedy", isolation="subprocess")
    assert isinstance(g, SubprocessHost) and "subprocess plugin" in g.describe()
    g.close()
    m = make_player("bots.random_bot:RandomBot")
    assert isinstance(m, SubprocessHost), "module:Class is not trusted under auto"
    assert isinstance(make_player("bots.random_bot:RandomBot", isolation="inprocess"), InProcessHost)
    c = make_player(EXAMPLE, isolation="inprocess")
    assert isinstance(c, SubprocessHost) and c.spec.kind == "command", "a command is always a subprocess"
    spec = resolve_spec("greedy", {"trump_for_points": 11})
    assert isinstance(spec, BotSpec) and spec.target == "bots.greedy:GreedyBot" and spec.params


@pytest.mark.parametrize("bad,msg", [("nosuchbot", "unknown bot"), ("./nope/bot", "not an executable"),
                                     (["no-such-exe-xyz"], "not found on PATH"), ([], "empty")])
def test_make_player_errors(bad, msg: str) -> None:
    with pytest.raises(BotLoadError, match=msg):
        make_player(bad)


def test_make_player_rejects_bad_isolation() -> None:
    with pytest.raises(BotLoadError, match="isolation"):
        make_player("random", isolation="docker")


def test_params_reach_an_isolated_plugin() -> None:
    p = make_player("hostile_bot:HostileBot", {"mode": "raise", "after": 3}, time_limit_ms=2000)
    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 2), 0, [p, make_player("random")])
    p.close()
    assert rec.result.forfeit.reason == "crash"
    assert sum(1 for s, _ in rec.actions if s == 0) >= 3  # "after" was honoured


# ------------------------------------------------------------------------------------------ hosts
@pytest.mark.parametrize("variant", ["tute-2", "tute-4-pairs"])
def test_isolated_plugin_plays_exactly_like_in_process(variant: str) -> None:
    """Same bot, same seeds, same games: the subprocess host is transparent."""
    v = get_variant(variant)
    n = v.players
    results = []
    for iso in ("inprocess", "subprocess"):
        seats = [make_player("greedy", isolation=iso) if s % 2 == 0 else make_player("random") for s in range(n)]
        recs = [play_game(v, shuffled_deck(v, g), g % n, seats, seed=g, names=[p.name for p in seats]).to_json()
                for g in range(15)]
        for p in seats:
            p.close()
        results.append(recs)
    assert results[0] == results[1]


def test_external_example_bot_plays_many_games_in_one_process() -> None:
    p = make_player(EXAMPLE, time_limit_ms=2000)
    v = get_variant("tute-3")
    for g in range(20):
        rec = play_game(v, shuffled_deck(v, g), g % 3, [p, make_player("random"), make_player("greedy")], seed=g)
        assert rec.result.forfeit is None
    assert p.starts == 1 and p.bot_name == "example-random"
    pid = p.proc.pid
    p.close()
    assert p.proc is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _clock_program(said: str) -> list[str]:
    """A program playing its first legal action, its answers carrying ``clock_stops = said`` (a Python
    expression of ``n``, the acts this process was sent so far)."""
    code = ("import json,sys\n"
            "n = 0\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'clocky'}), flush=True)\n"
            "    elif m['type'] == 'act':\n"
            "        n += 1\n"
            f"        said = {said}\n"
            "        print(json.dumps({'action': m['legal'][0], 'request': m['request'], 'clock_stops': said}), flush=True)\n")
    return [sys.executable, "-c", code]


def test_a_program_reports_the_decisions_its_clock_ended() -> None:
    """``clock_stops`` in the answers: a running count per process, summed over the processes a host
    starts; anything but a non-negative integer is ignored, never a forfeit."""
    p = make_player(_clock_program("n if n % 3 else ('soon' if n % 2 else -1)"), time_limit_ms=2000)
    v = get_variant("tute-2")
    expected = 0
    for g in range(2):  # a process each: its count starts again from 0
        rec = play_game(v, shuffled_deck(v, g), 0, [p, make_player("random")], seed=g)
        assert rec.result.forfeit is None
        asked = p.request  # a process's acts are numbered from 1
        expected += max(n for n in range(1, asked + 1) if n % 3)
        assert p.clock_stops() == expected
        p.close()
    assert p.starts == 2


def test_a_python_plugin_in_a_subprocess_reports_its_clock_stops() -> None:
    """A plugin's ``clock_stops()`` crosses the process boundary: the host process sends it."""
    tests = str(Path(__file__).resolve().parent)
    if tests not in sys.path:
        sys.path.insert(0, tests)
    v = get_variant("tute-2")
    for iso in ("subprocess", "inprocess"):
        p = make_player("league_bots:ClockedBot", isolation=iso, time_limit_ms=2000)
        for g in range(4):  # ClockedBot's clock ends a decision in the games whose id ends in /s0
            play_game(v, shuffled_deck(v, g), 0, [p, make_player("random")], seed=g, game_id=f"t/d{g}/s{g % 2}")
        assert p.clock_stops() == 2, iso
        p.close()


def _exits() -> int:
    raise SystemExit(3)


@pytest.mark.parametrize("said", [lambda: 1 / 0, _exits, lambda: -2, lambda: "3", lambda: 2.5, lambda: True,
                                  lambda: 2**60, lambda: 10**5000, "7", None])
def test_a_bots_broken_clock_report_is_no_report(said) -> None:
    """Whatever a bot's ``clock_stops`` raises or returns but an integer from 0 to 2^53, it reported
    nothing; a method or a plain attribute, an int or a subclass of int, is read."""
    import enum

    from arena.hosting.inprocess import reported_stops

    class Bot:
        def choose(self, view):
            return view.legal[0]

    bot = Bot()
    bot.clock_stops = said
    assert reported_stops(bot) is None and InProcessHost(bot, "b").clock_stops() == 0
    bot.clock_stops = lambda: 4
    assert reported_stops(bot) == 4 and InProcessHost(bot, "b").clock_stops() == 4
    bot.clock_stops = 5
    assert reported_stops(bot) == 5
    bot.clock_stops = enum.IntEnum("N", "one two")(2)
    assert reported_stops(bot) == 2 and type(reported_stops(bot)) is int


def test_a_clock_stops_property_that_raises_or_exits_is_no_report() -> None:
    """Even a property (read by ``getattr`` itself) that raises or calls sys.exit."""
    from arena.hosting.inprocess import reported_stops

    class Raises:
        @property
        def clock_stops(self) -> int:
            raise RuntimeError("no")

    class Exits:
        @property
        def clock_stops(self) -> int:
            raise SystemExit(2)

    assert reported_stops(Raises()) is None and reported_stops(Exits()) is None


def test_a_count_that_goes_down_is_no_clock_stop() -> None:
    """A program whose count falls (99, 98, ...) grew it once, at its first answer (a process counts
    from 0); the falls count nothing, in that game or the next."""
    p = make_player(_clock_program("100 - n"), time_limit_ms=2000)
    v = get_variant("tute-2")
    for g in range(2):
        rec = play_game(v, shuffled_deck(v, g), 0, [p, make_player("random")], seed=g)
        assert rec.result.forfeit is None and p.clock_stops() == 99
    assert p.starts == 1
    p.close()


def test_restart_after_a_crash() -> None:
    p = make_player("hostile_bot:HostileBot", {"mode": "exit", "after": 1}, time_limit_ms=2000)
    v = get_variant("tute-2")
    for g in range(3):
        rec = play_game(v, shuffled_deck(v, g), 0, [p, make_player("random")])
        assert rec.result.forfeit.reason == "crash"
    assert p.starts == 3
    p.close()


def test_close_kills_a_hung_bot_and_its_children_quickly() -> None:
    code = ("import json,subprocess,sys,time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
            "print(child.pid, file=sys.stderr, flush=True)\n"
            "sys.stdin.readline(); print(json.dumps({'type':'hello','name':'h'}), flush=True)\n"
            "time.sleep(600)\n")
    p = SubprocessHost([sys.executable, "-c", code], "hung", time_limit_ms=200)
    p.start()
    pid = p.proc.pid
    t = time.monotonic()
    p.close()
    assert time.monotonic() - t < 2
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # the grandchild was in the bot's process group: gone too (a zombie awaiting its reaper is gone)
    def alive_in_group() -> list[str]:
        out = subprocess.run(["pgrep", "-g", str(pid)], capture_output=True, text=True).stdout.split()
        alive = []
        for q in out:
            try:
                state = Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(q)
        return alive

    for _ in range(40):
        if not alive_in_group():
            break
        time.sleep(0.05)
    assert not alive_in_group()


def _hello_then(code: str) -> str:
    return ("import json,subprocess,sys,time,os\n"
            "sys.stdin.readline(); print(json.dumps({'type':'hello','name':'h'}), flush=True)\n" + code)


def _gone(pid: int) -> bool:
    for _ in range(40):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_closing_a_bot_reaped_earlier_kills_nothing_by_its_old_pid() -> None:
    """Pids wrap (at 32768 here), so once a dead bot is reaped its pid, and a group of that id, may be
    another process's: a host closed later killed that process's children and its whole group (another
    bot's, a session leader). A stand-in takes the old pid's place; it and its child must live."""
    p = SubprocessHost([sys.executable, "-c", _hello_then("sys.exit(0)")], "short", time_limit_ms=2000)
    p.start()
    proc = p.proc
    for _ in range(100):
        if not p.alive:  # ``alive`` reaps it
            break
        time.sleep(0.02)
    assert proc.returncode is not None
    other = subprocess.Popen([sys.executable, "-c", "import subprocess,sys,time\n"
                              "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                              "print(c.pid, flush=True); time.sleep(60)"],
                             stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        grandchild = int(other.stdout.readline())
        proc.pid = other.pid  # the old pid, now another session's leader
        p.close()
        time.sleep(0.2)
        assert other.poll() is None and not _gone(grandchild)
    finally:
        os.killpg(other.pid, 9)
        other.wait()


def test_a_group_member_outliving_a_reaped_bot_is_still_killed() -> None:
    """The same care keeps the group kill for the bot's own group: a child that stays in the group, its
    environment cleared (no token to find it by), dies with the host even after the leader was reaped."""
    code = _hello_then("c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], env={})\n"
                       "print(c.pid, file=sys.stderr, flush=True)\nos._exit(0)\n")
    p = SubprocessHost([sys.executable, "-c", code], "leaver", time_limit_ms=2000)
    p.start()
    proc = p.proc
    for _ in range(100):
        if not p.alive:
            break
        time.sleep(0.02)
    assert proc.returncode is not None
    members = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert len(members) == 1, members
    p.close()
    assert _gone(int(members[0]))


def test_time_limit_is_configurable() -> None:
    v = get_variant("tute-2")
    slow = {"mode": "sleep", "sleep_s": 0.3, "once": True, "after": 1}
    ok = make_player("hostile_bot:HostileBot", slow, time_limit_ms=1500)
    rec = play_game(v, shuffled_deck(v, 4), 0, [ok, make_player("random")])
    ok.close()
    assert rec.result.forfeit is None
    tight = make_player("hostile_bot:HostileBot", slow, time_limit_ms=100)
    rec = play_game(v, shuffled_deck(v, 4), 0, [tight, make_player("random")])
    tight.close()
    assert rec.result.forfeit.reason == "timeout"


def test_an_in_process_bot_that_answers_late_forfeits_on_time() -> None:
    """In-process, a slow answer is seen when it comes: a timeout forfeit, as from a subprocess; the
    bots of tute-arena itself plan their own time and are not held to the clock."""
    v = get_variant("tute-2")
    slow = {"mode": "sleep", "sleep_s": 0.3, "once": True, "after": 1}
    tight = make_player("hostile_bot:HostileBot", slow, isolation="inprocess", time_limit_ms=100)
    assert isinstance(tight, InProcessHost)
    rec = play_game(v, shuffled_deck(v, 4), 0, [tight, make_player("random")])
    assert rec.result.forfeit is not None and rec.result.forfeit.reason == "timeout"
    assert "over the 100 ms limit" in rec.result.forfeit.detail
    ok = make_player("hostile_bot:HostileBot", slow, isolation="inprocess", time_limit_ms=1500)
    assert play_game(v, shuffled_deck(v, 4), 0, [ok, make_player("random")]).result.forfeit is None

    class Slow:
        def choose(self, view):  # type: ignore[no-untyped-def]
            time.sleep(0.06)  # beyond 1 ms and the grace
            return view.legal[0]

    from arena.hosting import resolve_spec
    trusted = InProcessHost(Slow(), "random", resolve_spec("random", None, None), time_limit_ms=1)
    assert play_game(v, shuffled_deck(v, 5), 0, [trusted, make_player("random")]).result.forfeit is None


def test_new_game_failure_is_a_crash_forfeit() -> None:
    code = ("import json,sys\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m['type'] == 'hello': print(json.dumps({'type':'hello','name':'x'}), flush=True)\n"
            "    if m['type'] == 'new_game': sys.exit(4)\n")
    p = SubprocessHost([sys.executable, "-c", code], "dies-at-new-game", time_limit_ms=500)
    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 4), 0, [p, make_player("random")])
    p.close()
    assert rec.result.forfeit.seat == 0 and rec.result.forfeit.reason == "crash"


def test_bot_dies_with_a_referee_killed_by_sigkill() -> None:
    """No orphans: a hung bot goes when its referee is killed without a chance to clean up."""
    code = ("import os, sys\n"
            "from arena.hosting import SubprocessHost\n"
            "h = SubprocessHost([sys.executable, '-c', 'import json,sys,time; sys.stdin.readline(); '\n"
            "                    'print(json.dumps({\"type\": \"hello\"}), flush=True); time.sleep(600)'], 'orphan')\n"
            "h.start()\n"
            "print(h.proc.pid, flush=True)\n"
            "os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=ROOT)
    pid = int(out.stdout.split()[0])
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            break
        if state == "Z":
            break
        time.sleep(0.02)
    else:
        os.kill(pid, 9)
        raise AssertionError("the bot outlived its referee")


def test_pickle_codec_round_trips_views_across_deals() -> None:
    """The plugin codec (deltas of tricks, rules sent on change) rebuilds every view exactly, across
    deals that repeat one another (duplicate deals) and a change of rules."""
    from arena.hosting.codecs import PickleDecoder, PickleEncoder
    import pickle

    enc, dec = PickleEncoder(), PickleDecoder()
    for variant in ("tute-2", "tute-2", "tute-4-pairs", "tute-2"):
        for st in _random_states(variant, games=2):
            view = st.view(st.current)
            data = enc.act_message(view, 100)
            assert dec.view(pickle.loads(data[4:])) == view
        enc, dec = PickleEncoder(), PickleDecoder()  # what SubprocessHost.new_game and arena.hosting.child do
        dec.new_game({"variant": variant, "options": VARIANTS[variant].options()})
