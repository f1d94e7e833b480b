"""The hostile-bot suite: a bot that crashes, hangs, cheats or floods loses its deals with the right
reason, the other seat wins, the referee's game is untouched, and every run ends in bounded time.

Each hostile behaviour runs both as a Python plugin in a subprocess host (``tests/hostile/hostile_bot.py``)
and as an external program (``tests/hostile/hostile_cmd.py``), against the in-process ``random`` bot.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena import get_variant, play_game, replay, shuffled_deck
from arena.cards import BIT, NAMES
from arena.hosting import InProcessHost, SubprocessHost, make_player
from arena.state import GameState
from procs import processes_with

HERE = Path(__file__).resolve().parent / "hostile"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from hostile_bot import HostileBot  # noqa: E402

LIMIT_MS = 200
MEMORY_MB = 128
#: filling memory takes time (page faults): the memory bots get a longer move limit, to see the right reason
MEMORY_LIMIT_MS = 2000
GAMES = 2  # two deals each, the hostile bot in seat 0 then seat 1: it must lose both, restarted between

#: mode -> expected forfeit reason (None: the host neutralises it and the deal is played normally)
PLUGIN_CASES = {
    "raise": "crash",
    "illegal": "illegal",
    "wrong_type": "protocol",
    "unserializable": "protocol",
    "junk_stdout": None,       # prints go to stderr: the protocol runs on private fds
    "sleep": "timeout",
    "hang": "timeout",
    "exit": "crash",
    "memory": "crash",
    "close_stdin": None,       # its stdin is /dev/null, not the protocol
    "close_fds": "crash",      # closing every fd, the protocol's included, is a crash
    "mutate": "illegal",       # it rewrote view.legal and believed it
    "mutate_legal": None,      # it rewrote its view and played legally: nothing changed
    "snoop": "crash",          # it found no hidden cards and said so
}
COMMAND_CASES = {
    "raise": "crash",
    "illegal": "illegal",
    "wrong_type": "protocol",
    "garbage": "protocol",
    "not_object": "protocol",
    "junk_stdout": "protocol",
    "sleep": "timeout",
    "hang": "timeout",
    "exit": "crash",
    "exit_child": "crash",     # it exited: not a timeout, though its child still held the pipe
    "escape": "crash",
    "memory": "crash",
    "close_stdin": "crash",
    "mutate": "illegal",
    "snoop": "crash",
}


def _run(player, variant_name: str = "tute-2", games: int = GAMES):
    v = get_variant(variant_name)
    opponent = make_player("random")
    records = []
    started = time.monotonic()
    try:
        for g in range(games):
            seat = g % 2
            seats = [opponent, player] if seat else [player, opponent]
            deck = shuffled_deck(v, 100 + g)
            rec = play_game(v, deck, g % 2, seats, game_id=f"hostile/{g}", seed=100 + g,
                            names=["hostile" if s == seat else "random" for s in range(2)])
            records.append((seat, rec))
    finally:
        player.close()
    return records, time.monotonic() - started


def _check(records, expected: str | None, elapsed: float, mode: str) -> None:
    assert elapsed < 15, f"{mode}: the run took {elapsed:.1f} s"
    for seat, rec in records:
        r = rec.result
        replay(rec)  # the referee's game is exactly what the recorded actions make of the deck
        other = 1 - seat
        if expected is None:
            assert r.forfeit is None, f"{mode}: unexpected forfeit {r.forfeit}"
            assert r.reason in ("points", "tute")
            continue
        assert r.forfeit is not None, f"{mode}: the hostile bot did not forfeit ({r})"
        assert r.forfeit.seat == seat, f"{mode}: forfeit charged to the wrong seat: {r.forfeit}"
        assert r.forfeit.reason == expected, f"{mode}: expected {expected}, got {r.forfeit}"
        assert r.reason == "forfeit"
        assert r.ranks[other] == 0 and r.ranks[seat] == 1 and r.winner == (other,)
        assert all(a for _, a in rec.actions), "the offending answer must not be in the actions"
        assert len(rec.actions) == 0 or all(isinstance(a, str) for _, a in rec.actions)


@pytest.mark.parametrize("mode", sorted(PLUGIN_CASES))
def test_hostile_plugin(mode: str) -> None:
    after = 0 if mode in ("raise", "illegal") else 2  # most fail mid-game, after a few good moves
    limit = MEMORY_LIMIT_MS if mode == "memory" else LIMIT_MS
    player = make_player("hostile_bot:HostileBot", {"mode": mode, "after": after}, isolation="subprocess",
                         time_limit_ms=limit, memory_mb=MEMORY_MB)
    assert isinstance(player, SubprocessHost)
    records, elapsed = _run(player)
    _check(records, PLUGIN_CASES[mode], elapsed, mode)
    if PLUGIN_CASES[mode] in ("crash", "timeout"):
        assert player.starts == GAMES, "a failed bot is killed and restarted before its next game"
    elif PLUGIN_CASES[mode] is None or mode in ("illegal", "mutate", "wrong_type", "unserializable"):
        assert player.starts == 1, "a bot that answered (even wrongly) keeps its process"
    if mode == "snoop":
        for _, rec in records:
            assert "no hidden cards reachable" in rec.result.forfeit.detail


@pytest.mark.parametrize("mode", sorted(COMMAND_CASES))
def test_hostile_command(mode: str) -> None:
    after = 0 if mode in ("raise", "illegal") else 2
    limit = MEMORY_LIMIT_MS if mode == "memory" else LIMIT_MS
    player = make_player([sys.executable, str(HERE / "hostile_cmd.py"), mode, str(after)],
                         time_limit_ms=limit, memory_mb=MEMORY_MB)
    records, elapsed = _run(player)
    _check(records, COMMAND_CASES[mode], elapsed, mode)
    if COMMAND_CASES[mode] in ("crash", "timeout") or mode in ("garbage", "not_object", "junk_stdout"):
        assert player.starts == GAMES
    if mode == "snoop":
        for _, rec in records:
            assert "no hidden cards reachable" in rec.result.forfeit.detail


def test_timeout_is_bounded_and_detail_names_the_limit() -> None:
    player = make_player([sys.executable, str(HERE / "hostile_cmd.py"), "hang"], time_limit_ms=LIMIT_MS)
    v = get_variant("tute-2")
    t = time.monotonic()
    rec = play_game(v, shuffled_deck(v, 1), 0, [player, make_player("random")])
    took = time.monotonic() - t
    player.close()
    assert rec.result.forfeit.reason == "timeout"
    assert "200 ms" in rec.result.forfeit.detail
    assert took < 3.0


def test_in_process_mutation_changes_nothing() -> None:
    """The trusted host hands the bot the view itself: rewriting it must not reach the referee."""
    v = get_variant("tute-4-pairs")
    for g in range(20):
        deck = shuffled_deck(v, g)
        bot = InProcessHost(HostileBot(mode="mutate_legal"), "mutator")
        rec = play_game(v, deck, g % 4, [bot, make_player("random"), make_player("random"), make_player("random")])
        assert rec.result.forfeit is None
        replay(rec)


def test_a_str_that_equals_everything_is_judged_by_its_text() -> None:
    """In process, nothing serialises the answer: a str subclass equal to every action once passed the
    referee's ``in legal`` and played a card its seat did not hold. Judged as plain text, it is illegal."""
    v = get_variant("tute-2")
    for g in range(4):
        seat = g % 2
        players = [make_player("random"), make_player("random")]
        players[seat] = InProcessHost(HostileBot(mode="sneaky_str", after=2), "sneaky")
        rec = play_game(v, shuffled_deck(v, g), g % 2, players)
        assert rec.result.forfeit is not None and rec.result.forfeit.seat == seat, rec.result
        assert rec.result.forfeit.reason == "illegal"
        assert all(type(a) is str for _, a in rec.actions)
        replay(rec)


def test_view_mutation_leaves_state_alone() -> None:
    v = get_variant("tute-2")
    state = GameState.new(v, shuffled_deck(v, 3), 0)
    before = (list(state.hands), state.legal_actions(), state.trick, state.tricks, list(state.points))
    view = state.view(state.current)
    view.hand = 0
    view.legal = ("play 1o",)
    view.points = (500, 500)
    view.trick = (1, 2)
    assert (list(state.hands), state.legal_actions(), state.trick, state.tricks, list(state.points)) == before


def test_stderr_flood_is_capped(caplog: pytest.LogCaptureFixture) -> None:
    code = ("import json,sys\n"
            "for line in sys.stdin:\n"
            "    m = json.loads(line)\n"
            "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'noisy'}), flush=True)\n"
            "    elif m['type'] == 'act':\n"
            "        sys.stderr.write('x' * 200000 + '\\n'); sys.stderr.flush()\n"
            "        print(json.dumps({'action': m['legal'][0]}), flush=True)\n"
            "    elif m['type'] == 'quit': break\n")
    host = SubprocessHost([sys.executable, "-c", code], "noisy", time_limit_ms=2000, stderr_cap=10_000)
    v = get_variant("tute-2")
    with caplog.at_level(logging.INFO, logger="arena.hosting"):
        rec = play_game(v, shuffled_deck(v, 5), 0, [host, make_player("random")])
        host.close()
    assert rec.result.forfeit is None
    logged = sum(len(r.getMessage()) for r in caplog.records if "stderr: x" in r.getMessage())
    assert 0 < logged <= 20_000
    assert any("dropped" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("answer, reason", [("play 99z", "protocol"), ("PLAY 1O", "protocol"), (" play 1o", "protocol"),
                                            ("play 1o\u200b", "protocol"), ("dance", "protocol"), ("bid 75", "illegal"),
                                            ("sing x", "protocol"), ("unheld", "illegal")])
def test_text_that_is_no_action_is_a_protocol_forfeit(answer: str, reason: str) -> None:
    """docs/protocol.md: ``illegal`` is an action of the notation the rules forbid there (a renuncio),
    ``protocol`` an answer that is no action at all, however near one it looks."""
    v = get_variant("tute-2")

    class Fixed:
        def choose(self, view: Any) -> str:
            if answer != "unheld":
                return answer
            return "play " + next(NAMES[c] for c in range(40) if not view.hand & BIT[c])

    rec = play_game(v, shuffled_deck(v, 5), 1, [InProcessHost(Fixed(), "fixed"), make_player("random")])
    assert rec.result.forfeit is not None and rec.result.forfeit.seat == 0 and rec.result.forfeit.reason == reason


def test_nothing_a_bot_leaves_behind_outlives_it() -> None:
    """A bot whose grandchild left its session (setsid after a fork) and whose child then exited: the
    grandchild was re-parented to init and outlived the run. The host is a subreaper, so it is
    re-parented to the host instead, which ends it by the variable every bot process carries."""
    import uuid

    mark = f"left-behind-{uuid.uuid4().hex}"

    def left() -> list[int]:
        return processes_with(mark)

    player = make_player([sys.executable, str(HERE / "hostile_cmd.py"), "escape", "2", mark], time_limit_ms=LIMIT_MS)
    records, elapsed = _run(player)
    _check(records, "crash", elapsed, "escape")
    for _, rec in records:
        assert "a process it started still holds its output open" in rec.result.forfeit.detail
    deadline = time.monotonic() + 5
    while left() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left() == [], "a process the bot left behind outlived it"
