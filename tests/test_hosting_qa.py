"""QA pass on bot hosting and the line protocol, played by hostile bots (what tests/test_hostile*.py and
tests/test_hosts.py do not already cover): hostile programs on the wire, what crosses the wire in every
preset, hostile Python bots in both isolations, and whole runs with a hostile bot (summary, exit status,
store, and the same games with 1 or 2 workers).

Among them the defects this pass found, each test seen failing before its fix: a flood of blank lines
never timed out, a plugin's BaseException or unprintable answer ended the command, a bot's escape
sequences reached the terminal, a bot that exits between deals was judged by timing."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena import get_variant, play_game, replay, shuffled_deck
from arena.cards import BIT, NAMES
from arena.hosting import InProcessHost, SubprocessHost, make_player
from arena.record import replay_steps
from arena.variants import VARIANTS
from arena.view import PlayerView
from procs import processes_with

from league_util import write_config

PY = sys.executable
TUTE = str(Path(PY).parent / "tute")
LIMIT_MS = 200
RANDOM = {"name": "rand", "bot": "random", "params": {"seed": 1}}


def tute(*args: str, cwd: Path, timeout: float = 120, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=env)


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return path


#: the skeleton of a protocol bot: ``{ACT}`` answers an act (``m`` the message, ``legal``, ``rng`` seeded
#: from the deal's seed), ``{OVER}`` runs on game_over
BOT = """
import json, os, random, sys, time
out = sys.stdout.buffer
def send(b):
    if isinstance(b, dict):
        b = json.dumps(b).encode()
    out.write(b + b"\\n"); out.flush()
send({{"type": "hello", "name": "qa"}})
rng = random.Random(0)
n = 0
for raw in sys.stdin.buffer:
    m = json.loads(raw)
    t = m["type"]
    if t == "new_game":
        seed = m["seed"]; rng = random.Random(seed); n = 0
    elif t == "act":
        n += 1
        legal = m["legal"]
{ACT}
    elif t == "game_over":
{OVER}
    elif t == "quit":
        break
"""


def bot(folder: Path, name: str, act: str = "send({'action': rng.choice(legal)})", over: str = "pass") -> Path:
    body = BOT.format(ACT=textwrap.indent(textwrap.dedent(act), " " * 8),
                      OVER=textwrap.indent(textwrap.dedent(over), " " * 8))
    path = folder / name
    path.write_text(body)
    return path


def play(player: Any, games: int = 2, variant: str = "tute-2", ask_forced: bool = False) -> list[Any]:
    """``games`` deals of ``player`` against random, ``player`` in seat 0 then 1; the records."""
    v = get_variant(variant)
    recs = []
    try:
        for g in range(games):
            seat = g % v.players
            seats: list[Any] = [make_player("random") for _ in range(v.players)]
            seats[seat] = player
            recs.append(play_game(v, shuffled_deck(v, g), g % v.players, seats, seed=g, game_id=f"qa/{g}",
                                  ask_forced=ask_forced))
    finally:
        player.close()
    return recs


# ------------------------------------------------------------------------------ hostile programs on the wire
WIRE_CASES = {
    # name: (what the bot does on its first act, the forfeit reason, words in the detail)
    "megabyte_line_no_newline": ("out.write(b'x' * 5_000_000); out.flush(); time.sleep(30)", "protocol", "1 MiB"),
    "megabyte_answer": ("send(b'{\"action\": \"' + legal[0].encode() + b'\", \"pad\": \"' + b'x' * 3_000_000 + b'\"}')",
                        "protocol", "1 MiB"),
    "answer_without_newline": ("out.write(json.dumps({'action': legal[0]}).encode()); out.flush(); time.sleep(30)",
                               "timeout", "200 ms"),
    "answer_without_newline_then_exit": ("out.write(json.dumps({'action': legal[0]}).encode()); out.flush(); "
                                         "sys.exit(0)", "crash", "exited with status 0"),
    "invalid_utf8": ("send(b'{\"action\":\"play \\xff\\xfe\"}')", "protocol", "not JSON"),
    "binary": ("send(b'\\x00\\x01\\xff' * 10)", "protocol", "not JSON"),
    "closes_stdout": ("os.close(1); time.sleep(30)", "crash", "closed its pipe"),
    "exit_0_mid_game": ("sys.exit(0)", "crash", "exited with status 0"),
    "late_answer": ("time.sleep(0.6); send({'action': legal[0]})", "timeout", "200 ms"),
    "nan_action": ("send(b'{\"action\": NaN}')", "protocol", "answered a float"),
    "deep_nesting": ("send(b'{\"action\": ' + b'[' * 100000 + b']' * 100000 + b'}')", "protocol", "nested"),
    "huge_request_number": ("send(('{\"action\": \"%s\", \"request\": %s}' % (legal[0], '9' * 5000)).encode())",
                            "protocol", "not a request number"),
    "error_message_huge": ("send({'type': 'error', 'message': 'x' * 500_000})", "crash", "xxxx"),
}


@pytest.mark.parametrize("case", sorted(WIRE_CASES))
def test_a_program_misbehaving_on_the_wire_forfeits_in_bounded_time(tmp_path: Path, case: str) -> None:
    act, reason, words = WIRE_CASES[case]
    path = bot(tmp_path, f"{case}.py", act)
    player = make_player([PY, str(path)], time_limit_ms=LIMIT_MS)
    started = time.monotonic()
    recs = play(player)
    assert time.monotonic() - started < 8
    for g, rec in enumerate(recs):
        f = rec.result.forfeit
        assert f is not None and f.seat == g % 2 and f.reason == reason, (case, f)
        assert words in f.detail, (case, f.detail[:300])
        assert len(f.detail) <= 2000  # what a bot wrote is kept short in the record
        replay(rec)
    # killed after the failure and started again for the next deal, unless the answer was read whole (an
    # action that is no action is the referee's to judge, as tests/test_hostile.py's wrong_type); a process
    # that exits with status 0 before its first answer of a deal is started again once for that deal (it
    # may be a bot that plays one deal a process), then forfeits
    clean_exit = case in ("exit_0_mid_game", "answer_without_newline_then_exit")
    assert player.starts == (1 if case == "nan_action" else 4 if clean_exit else 2)


def test_a_crlf_line_end_and_a_second_action_key_are_read_as_one_answer(tmp_path: Path) -> None:
    """Lenient where it costs nothing: ``\\r\\n`` ends a line, and JSON's last duplicate key wins."""
    for act in ("out.write(json.dumps({'action': rng.choice(legal)}).encode() + b'\\r\\n'); out.flush()",
                "send(('{\"action\": \"play 99z\", \"action\": \"%s\"}' % rng.choice(legal)).encode())"):
        path = bot(tmp_path, "lenient.py", act)
        recs = play(make_player([PY, str(path)], time_limit_ms=1000))
        assert all(r.result.forfeit is None for r in recs)


def test_a_bot_ignoring_sigterm_and_quit_is_ended_at_close(tmp_path: Path) -> None:
    path = bot(tmp_path, "stubborn.py",
               "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); send({'action': legal[0]})")
    path.write_text(path.read_text().replace("        break", "        time.sleep(60)"))
    player = make_player([PY, str(path)], time_limit_ms=1000)
    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 1), 0, [player, make_player("random")])
    assert rec.result.forfeit is None
    pid = player.proc.pid
    t = time.monotonic()
    player.close()
    assert time.monotonic() - t < 3
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_an_illegal_move_at_the_last_decision_forfeits_in_every_preset() -> None:
    """A renuncio on the very last card (the referee asks even forced moves here) ends the deal as a
    forfeit of that seat, its side ranked last, and the record replays."""

    class LastIllegal:
        def __init__(self) -> None:
            self.n = 0

        def choose(self, view: PlayerView) -> str:
            self.n += 1
            if bin(view.hand).count("1") == 1 and view.phase == "play":
                return "play " + next(NAMES[c] for c in range(40) if not view.hand & BIT[c])
            return view.legal[self.n % len(view.legal)]

    for name in sorted(VARIANTS):
        v = get_variant(name)
        seat = 1  # never the dealer below, so never the seat that sits out in cabrero with 5 or 6
        seats: list[Any] = [make_player("random") for _ in range(v.players)]
        seats[seat] = InProcessHost(LastIllegal(), "last")
        rec = play_game(v, shuffled_deck(v, 3), 0, seats, seed=3, ask_forced=True)
        f, r = rec.result.forfeit, rec.result
        assert f is not None and f.seat == seat and f.reason == "illegal", (name, f)
        side = next(t for t in v.teams if seat in t)
        assert all(r.ranks[s] == max(r.ranks) for s in side), (name, r.ranks)
        replay(rec)


def test_a_handshake_that_lies_about_its_name_changes_nothing_and_an_error_hello_is_one_line(tmp_path: Path) -> None:
    liar = script(tmp_path, "liar.py", """
        import json, sys
        print(json.dumps({"type": "hello", "name": {"not": "a string"}, "protocol": 99, "variants": ["none"]}),
              flush=True)
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "act":
                print(json.dumps({"action": m["legal"][0]}), flush=True)
            elif m["type"] == "quit":
                break
    """)
    script(tmp_path, "refuses.py", """
        import json, sys
        sys.stdin.readline()
        print(json.dumps({"type": "error", "message": "I only play cabron\\nsecond line\\x1b[2J"}), flush=True)
    """)
    cfg = write_config(tmp_path, deals=1, entrants=[RANDOM, {"name": "liar", "bot": [PY, liar.name]}])
    out = tute("run", str(cfg), "-q", cwd=tmp_path)
    assert out.returncode == 0 and "forfeit" not in out.stderr, out.stderr
    cfg = write_config(tmp_path, deals=1, name="t2", entrants=[RANDOM, {"name": "refuses", "bot": [PY, "refuses.py"]}])
    out = tute("run", str(cfg), "-q", cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "'refuses' did not start" in lines[0] and "I only play cabron" in lines[0]
    assert "\x1b" not in out.stderr and "Traceback" not in out.stderr


# ------------------------------------------------------------------------------ what crosses the wire
SPY = """
import json, os, random, sys
log = open(os.path.join(sys.argv[1], "spy-%d.jsonl" % os.getpid()), "w")
rng = random.Random(0)
for line in sys.stdin:
    log.write(line); log.flush()
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "spy"}), flush=True)
    elif m["type"] == "new_game":
        rng = random.Random(m["seed"])
    elif m["type"] == "act":
        print(json.dumps({"action": rng.choice(m["legal"]), "request": m["request"]}), flush=True)
    elif m["type"] == "quit":
        break
"""
NEW_GAME_KEYS = {"type", "game_id", "seed", "seat", "variant", "options", "players", "teams", "dealer", "seats",
                 "time_ms"}
ACT_KEYS = {"type", "view", "legal", "time_ms", "request"}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_wire_carries_the_seats_view_and_nothing_more_in_every_preset(tmp_path: Path, name: str) -> None:
    """Every line a program is sent, checked against the referee's own state when it was sent: each act
    is exactly ``PlayerView.of(state, seat)`` (whose contents tests/test_properties*.py prove hidden-free),
    new_game holds the documented keys and no deck seed, game_over the record's result."""
    spy = script(tmp_path, "spy.py", SPY)
    v = get_variant(name)
    players = [make_player([PY, str(spy), str(tmp_path)], time_limit_ms=5000) for _ in range(v.players)]
    recs = []
    try:
        for g in range(2):
            recs.append(play_game(v, shuffled_deck(v, 40 + g), g % v.players, players, seed=40 + g,
                                  game_id=f"wire/{g}", names=[f"p{s}" for s in range(v.players)]))
    finally:
        for p in players:
            p.close()
    sent: dict[int, list[dict[str, Any]]] = {}
    for log in tmp_path.glob("spy-*.jsonl"):
        msgs = [json.loads(line) for line in log.read_text().splitlines()]
        seat = next(m["seat"] for m in msgs if m["type"] == "new_game")
        sent[seat] = msgs
    assert sorted(sent) == list(range(v.players))
    for seat, msgs in sent.items():
        assert msgs[0] == {"type": "hello", "protocol": 1}
        assert msgs[-1] == {"type": "quit"}
        starts = [i for i, m in enumerate(msgs) if m["type"] == "new_game"]
        assert len(starts) == len(recs)
        for g, rec in enumerate(recs):
            end = starts[g + 1] if g + 1 < len(starts) else len(msgs) - 1
            deal = msgs[starts[g]:end]
            info, over, acts = deal[0], deal[-1], deal[1:-1]
            assert set(info) == NEW_GAME_KEYS, set(info) ^ NEW_GAME_KEYS
            assert info["seat"] == seat and info["seed"] != rec.seed and info["seed"] < 2**53
            assert over == {"type": "game_over", "result": rec.result.to_json()}
            expected = []
            for _, state in replay_steps(rec):
                if not state.is_over and state.current == seat and len(state.legal_actions()) > 1:
                    expected.append(PlayerView.of(state, seat).to_json())
            assert [m["type"] for m in acts] == ["act"] * len(acts)
            assert len(acts) == len(expected), (name, seat, g)
            for m, view in zip(acts, expected):
                assert set(m) == ACT_KEYS and m["view"] == view and m["legal"] == view["legal"]


# ------------------------------------------------------------------------------ whole runs with a hostile bot
DETERMINISTIC_HOSTILE = """
    if n == 3 and seed % 6 == 0:
        hand = set(m["view"]["hand"])
        send({"action": "play " + next(f"{f}{s}" for s in "oceb" for f in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
                                       if f"{f}{s}" not in hand)})
    elif n == 3 and seed % 6 == 1:
        sys.exit(0)
    elif n == 3 and seed % 6 == 2:
        time.sleep(0.6); send({"action": legal[0]})
    elif n == 3 and seed % 6 == 3:
        send(b"not json")
    else:
        send({"action": rng.choice(legal)})
"""


def _run_twice(tmp_path: Path, act: str, over: str = "pass", deals: int = 3,
               variants: list[dict[str, Any]] | None = None) -> list[tuple[subprocess.CompletedProcess[str], Path]]:
    """The same tournament with ``-j 1`` and ``-j 2``, in two folders: (the run, its folder) each."""
    out = []
    for j in ("1", "2"):
        folder = tmp_path / f"j{j}"
        folder.mkdir()
        bot(folder, "hostile.py", act, over)
        cfg = write_config(folder, deals=deals, time_limit_ms=LIMIT_MS, variants=variants,
                           entrants=[RANDOM, {"name": "greedy", "bot": "greedy"},
                                     {"name": "hostile", "bot": [PY, "hostile.py"]}])
        out.append((tute("run", str(cfg), "-q", "-j", j, cwd=folder), folder))
    return out


def _games(folder: Path) -> str:
    return tute("games", "-n", "0", cwd=folder).stdout


def test_a_deterministic_hostile_bot_gives_the_same_games_and_table_with_1_or_2_workers(tmp_path: Path) -> None:
    runs = _run_twice(tmp_path, DETERMINISTIC_HOSTILE, variants=[{"name": "tute-2"}, {"name": "tute-3"}])
    (one, f1), (two, f2) = runs
    for run, folder in runs:
        assert run.returncode == 0, run.stderr  # it forfeited some deals, not all
        assert "Traceback" not in run.stderr
        summary = run.stderr[run.stderr.index("forfeits:"):]
        assert "hostile:" in summary and "deals forfeited" in summary
        for reason in ("protocol", "crash", "illegal", "timeout"):
            assert reason in summary, (reason, summary)
        check = tute("verify", cwd=folder)
        assert check.returncode == 0 and "0 wrong" in check.stdout, check.stdout + check.stderr
    assert one.stdout == two.stdout  # the tables
    assert _games(f1) == _games(f2)
    board = [json.loads(tute("leaderboard", "--format", "json", cwd=f).stdout) for f in (f1, f2)]
    assert board[0] == board[1]
    again = tute("leaderboard", "--recompute", cwd=f1)
    assert again.returncode == 0 and again.stdout == tute("leaderboard", cwd=f1).stdout


def test_a_line_printed_between_deals_forfeits_the_next_deal_its_process_plays(tmp_path: Path) -> None:
    """docs/protocol.md: a line printed after ``game_over`` is a protocol forfeit of the next deal the bot's
    process plays (read as its answer, or caught waiting before it), never lost and never a traceback.
    Which deal that is depends on how the schedule is shared among workers, as the page says: a bot
    that writes what nobody asked for is the one kind whose table may change with the workers."""
    folder = tmp_path / "j1"
    folder.mkdir()
    bot(folder, "hostile.py", "send({'action': rng.choice(legal)})", "send(b'gg')")
    cfg = write_config(folder, deals=3, time_limit_ms=LIMIT_MS, variants=[{"name": "tute-2"}],
                       entrants=[RANDOM, {"name": "hostile", "bot": [PY, "hostile.py"]}])
    run = tute("run", str(cfg), "-q", "-j", "1", cwd=folder)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    rows = [line for line in _games(folder).splitlines() if "hostile" in line]
    assert len(rows) == 6
    # the six deals in turn: a process's first deal is clean, its second forfeits (its 'gg' waiting), and
    # the process is then started afresh, so every other deal is forfeited
    assert ["forfeits" in line for line in rows] == [False, True] * 3, rows
    assert all("protocol" in line and "gg" in line for line in rows[1::2]), rows  # caught waiting, or read



def _forfeits_with_pauses(path: Path, deals: int = 4) -> list[list[Any]]:
    """The forfeits of ``deals`` deals of a command bot against random, played back to back and again
    with half a second between deals: what a bot's end between deals costs, however soon the next
    deal comes."""
    v = get_variant("tute-2")
    outcomes = []
    for pause in (0.0, 0.5):
        player = make_player([PY, str(path)], time_limit_ms=1000)
        forfeits: list[Any] = []
        try:
            for g in range(deals):
                rec = play_game(v, shuffled_deck(v, g), g % 2, [player, make_player("random")], seed=g)
                forfeits.append(rec.result.forfeit)
                time.sleep(pause)
        finally:
            player.close()
        outcomes.append(forfeits)
    return outcomes


def test_a_bot_that_exits_between_deals_is_judged_the_same_however_soon_the_next_deal_starts(tmp_path: Path) -> None:
    quick, slow = _forfeits_with_pauses(bot(tmp_path, "quits.py", over="sys.exit(0)"))
    assert [f and f.reason for f in quick] == [f and f.reason for f in slow], (quick, slow)


def test_a_bot_that_crashes_between_deals_forfeits_the_next_however_soon_it_starts(tmp_path: Path) -> None:
    """A crash in its game_over handler (status 1): found gone at the next new_game, the process was
    started again silently and the deal played; found gone a moment later, the deal was a crash forfeit
    "while its move answer was awaited". Now the next deal is its crash either way, said as after the
    last deal's game_over (a JavaScript author's QA pass met it as a flaky forfeit)."""
    quick, slow = _forfeits_with_pauses(bot(tmp_path, "crashes.py", over="sys.exit(1)"))
    for forfeits in (quick, slow):
        assert [f and f.reason for f in forfeits] == [None, "crash", None, "crash"], forfeits
        for f in forfeits[1::2]:
            assert "status 1" in f.detail and "after the last deal's game_over" in f.detail, f.detail


def test_a_bot_that_floods_blank_lines_times_out(tmp_path: Path) -> None:
    flood = bot(tmp_path, "flood.py", "while True:\n    os.write(1, b'\\n' * 4096)")
    code = textwrap.dedent(f"""
        from arena import get_variant, play_game, shuffled_deck
        from arena.hosting import make_player
        v = get_variant("tute-2")
        p = make_player([{PY!r}, {str(flood)!r}], time_limit_ms={LIMIT_MS})
        rec = play_game(v, shuffled_deck(v, 1), 0, [p, make_player("random")])
        p.close()
        print(rec.result.forfeit.reason)
    """)
    try:
        out = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=6)
    except subprocess.TimeoutExpired:
        pytest.fail("the referee was still waiting 6 s into a 200 ms move")
    assert out.stdout.strip() == "timeout", out.stderr


def test_an_answer_written_in_time_but_read_late_is_taken(tmp_path: Path) -> None:
    """The deadline ends a flood of output that never makes an answer, but it is the referee's reading
    that is late on a busy machine, not the bot: a line waiting in the pipe when the deadline has passed
    is still read and taken (the flood's fix first timed out before reading it)."""
    code = ("import json, sys\n"
            "sys.stdin.readline(); print(json.dumps({'type': 'hello', 'name': 'early'}), flush=True)\n"
            "print(json.dumps({'action': 'pass'}), flush=True)\n"
            "sys.stdin.read()\n")
    host = SubprocessHost([PY, "-c", code], "early", time_limit_ms=LIMIT_MS)
    try:
        host.start()
        time.sleep(0.3)  # the line is in the pipe
        assert json.loads(host._read_line(time.monotonic() - 1.0, "move")) == {"action": "pass"}
    finally:
        host.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the host's subreaper is Linux's")
def test_a_process_left_behind_with_an_empty_environment_is_ended(tmp_path: Path) -> None:
    """docs/protocol.md: what a bot starts goes with it, found by the TUTE_BOT mark it inherits or by the
    bot's process group. A child that clears its environment (no mark) but stays in the group dies with
    the bot. (One that clears it and leaves the group and the session too escapes both: the page says
    so, and points to running a bot that is not trusted as another user.)"""
    mark = f"qa-escapee-{uuid.uuid4().hex}"
    act = f"""
        if os.fork() == 0:
            os.execve("/bin/sleep", [{mark!r}, "300"], {{}})
        os._exit(3)
    """
    player = make_player([PY, str(bot(tmp_path, "escape.py", act))], time_limit_ms=LIMIT_MS)
    try:
        recs = play(player, games=1)
        assert recs[0].result.forfeit.reason == "crash"
        deadline = time.monotonic() + 3
        while processes_with(mark) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_with(mark) == [], "a process the bot left behind outlived it"
    finally:
        for pid in processes_with(mark):  # what this test started, by its own mark
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


SNOOP = """
import json, os, sys
print(json.dumps({"type": "hello", "name": "snoop"}), flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "act":
        try:
            seen = open(os.path.join(os.getcwd(), "tournament.toml")).read()
            print(json.dumps({"type": "error", "message": "CHEAT: read the config: " + seen[:40]}), flush=True)
        except OSError as exc:
            print(json.dumps({"action": m["legal"][0]}), flush=True)
    elif m["type"] == "quit":
        break
"""


def test_a_bot_run_as_another_user_cannot_read_the_seed(tmp_path: Path) -> None:
    """A bot runs as the referee's user and could read the config's seed, and with it every deal
    (docs/config.md). docs/protocol.md ("What isolation is, and is not") runs one that is not trusted as
    another user, the config's folder closed to it: the same snooping bot reads the seed as the
    referee's user, and not at all through the documented setpriv command."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root, util-linux's setpriv and /usr/bin/python3")
    shelf = Path(tempfile.mkdtemp(prefix="qa-bots-"))  # a folder the other user can read the bot from
    try:
        shelf.chmod(0o755)
        (shelf / "snoop.py").write_text(SNOOP)
        (shelf / "snoop.py").chmod(0o644)
        tmp_path.chmod(0o700)
        plain = ["/usr/bin/python3", str(shelf / "snoop.py")]
        dropped = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", *plain]
        seen = {}
        for name, command in (("plain", plain), ("dropped", dropped)):
            folder = tmp_path / name
            folder.mkdir(mode=0o700)
            cfg = write_config(folder, deals=1, variants=[{"name": "tute-2"}],
                               entrants=[RANDOM, {"name": "snoop", "bot": command}])
            seen[name] = tute("run", str(cfg), "-q", cwd=folder)
        assert "CHEAT: read the config" in seen["plain"].stderr + seen["plain"].stdout
        dropped_out = seen["dropped"]
        assert dropped_out.returncode == 0, dropped_out.stderr
        assert "CHEAT" not in dropped_out.stderr + dropped_out.stdout
    finally:
        shutil.rmtree(shelf, ignore_errors=True)


# ------------------------------------------------------------------------------ hostile Python bots
EVIL = """
class _Bad:
    def __eq__(self, other):
        raise RuntimeError("eq boom")
    __hash__ = object.__hash__
    def __repr__(self):
        raise RuntimeError("repr boom")


class BadEq:
    def choose(self, view):
        return _Bad()


class BaseExc:
    def choose(self, view):
        raise GeneratorExit("base")


class InitRaise:
    def __init__(self, **kw):
        raise RuntimeError("init boom")

    def choose(self, view):
        return view.legal[0]


class Stale:
    '''Answers with the first move it was ever offered: an action of another deal.'''
    first = None

    def choose(self, view):
        if Stale.first is None:
            Stale.first = view.legal[0]
        return Stale.first
"""


@pytest.fixture()
def evil(tmp_path: Path) -> Path:
    (tmp_path / "qa_evil.py").write_text(EVIL)
    return tmp_path


def _play_cli(folder: Path, bot_name: str, isolation: str, n: int = 2) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(folder))
    return tute("play", "tute-2", bot_name, "random", "-n", str(n), "--isolation", isolation, cwd=folder, env=env)


@pytest.mark.parametrize("isolation", ["subprocess", "inprocess"])
def test_a_bot_that_cannot_be_built_is_one_line_exit_2(evil: Path, isolation: str) -> None:
    out = _play_cli(evil, "qa_evil:InitRaise", isolation)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "init boom" in lines[0] and "Traceback" not in out.stderr


@pytest.mark.parametrize("isolation", ["subprocess", "inprocess"])
def test_a_stale_action_from_another_deal_is_judged_as_text(evil: Path, isolation: str) -> None:
    out = _play_cli(evil, "qa_evil:Stale", isolation, n=6)
    assert out.returncode in (0, 3) and "Traceback" not in out.stderr
    assert "illegal" in out.stdout + out.stderr


@pytest.mark.parametrize("bot_name", ["qa_evil:BadEq", "qa_evil:BaseExc"])
def test_an_in_process_bots_exception_is_a_crash_forfeit(evil: Path, bot_name: str) -> None:
    """docs/bots.md, in-process: "an exception or sys.exit is a crash forfeit"."""
    out = _play_cli(evil, bot_name, "inprocess")
    assert "Traceback" not in out.stderr, out.stderr[-300:]
    assert out.returncode == 3 and "forfeited every deal" in out.stderr


def test_a_plugin_answer_that_cannot_be_written_is_a_protocol_forfeit(evil: Path) -> None:
    out = _play_cli(evil, "qa_evil:BadEq", "subprocess")
    assert out.returncode == 3
    assert "2 protocol" in out.stdout + out.stderr, (out.stdout + out.stderr)[-500:]


# ------------------------------------------------------------------------------ a bot's words on the screen
def test_a_bots_words_reach_the_screen_without_control_characters(tmp_path: Path) -> None:
    words = "\x1b]0;PWNED\x07boom\nsecond line\x1b[2J"
    act = f"send({{'type': 'error', 'message': {words!r}}})"
    bot(tmp_path, "rude.py", act)
    cfg = write_config(tmp_path, deals=1, entrants=[RANDOM, {"name": "rude", "bot": [PY, "rude.py"]}])
    run = tute("run", str(cfg), "-q", cwd=tmp_path)
    assert run.returncode == 3 and "boom" in run.stderr
    games = tute("games", "--forfeits", cwd=tmp_path)
    shown = tute("replay", "t/tute-2/r1/t0/d0/s0", cwd=tmp_path)
    for text in (run.stderr, games.stdout, shown.stdout):
        assert "\x1b" not in text and "\x07" not in text
    rows = [line for line in games.stdout.splitlines() if "boom" in line or "second line" in line]
    assert len(rows) == 2  # one line a game (tute games --help)
