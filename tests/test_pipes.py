"""``leagues.tournament.pipes.receive``: a worker's answer read as ``Connection.recv`` would, except
that a worker dead within its message is an EOFError instead of a wait for ever (``tute run`` and
``tute play -j N`` read every answer with it)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import struct
import time
from typing import Any, Callable

import pytest

from leagues.tournament.pipes import receive

CTX = multiprocessing.get_context("fork")


def _sends(conn: Any, value: Any) -> None:
    conn.send(value)


def from_worker(target: Callable[..., None], *args: Any) -> Any:
    """What ``receive`` reads from a worker process running ``target(its end of the pipe, *args)``."""
    mine, theirs = CTX.Pipe()
    proc = CTX.Process(target=target, args=(theirs, *args), daemon=True)
    proc.start()
    theirs.close()
    try:
        return receive(mine, proc.is_alive)
    finally:
        proc.join(10)


@pytest.mark.parametrize("value", [("ok", [1, 2, 3]), "x" * 3_000_000, None])
def test_an_answer_is_read_whole_as_recv_reads_it(value: Any) -> None:
    assert from_worker(_sends, value) == value


def _half_then_die(conn: Any, helper_pid: Any) -> None:
    pid = os.fork()
    if pid == 0:  # the bot's helper: it holds the pipe's write end, and lives on
        time.sleep(60)
        os._exit(0)
    helper_pid.value = pid
    os.write(conn.fileno(), struct.pack("!i", 1000) + b"half")
    os._exit(1)


def test_a_worker_dead_within_its_answer_is_an_eof_though_its_helper_holds_the_pipe() -> None:
    mine, theirs = CTX.Pipe()
    helper = CTX.Value("i", 0)
    proc = CTX.Process(target=_half_then_die, args=(theirs, helper), daemon=True)
    proc.start()
    theirs.close()
    try:
        proc.join(10)
        started = time.monotonic()
        with pytest.raises(EOFError):
            receive(mine, proc.is_alive)
        assert time.monotonic() - started < 5  # a poll or two, not the helper's 60 s
    finally:
        if helper.value:
            os.kill(helper.value, signal.SIGKILL)
