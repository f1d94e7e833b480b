"""What a parent reads from its worker processes: their answers, without waiting for ever on a dead
one's pipe."""

from __future__ import annotations

import os
import struct
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable, Iterator, Sequence

#: how often a waiting parent asks whether a worker still lives: a process a bot forked inherits the
#: worker's ends of its pipe and sentinel, so neither says the worker's death while that process lives
DEATH_POLL_S = 0.5


def receive(conn: Connection, alive: Callable[[], bool]) -> Any:
    """``conn.recv()``, but a worker that dies while it writes its answer is an ``EOFError``, not a
    wait for the rest of the message: a process its bot forked (a pool's worker) holds the pipe's
    write end, so the pipe does not end with the worker, and ``recv`` would block until that process
    ends. The message is read as ``Connection.send`` frames it (a 4-byte big-endian length, or -1 and
    an 8-byte one), each read only once the pipe says it will not block."""
    fd = conn.fileno()

    def take(n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            if not conn.poll(DEATH_POLL_S):
                if not alive():
                    raise EOFError("the worker died while it wrote its answer")
                continue
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                raise EOFError("the worker's pipe ended within its answer")
            buf += chunk
        return bytes(buf)

    (size,) = struct.unpack("!i", take(4))
    if size == -1:
        (size,) = struct.unpack("!Q", take(8))
    return ForkingPickler.loads(take(size))


class WorkerGone(Exception):
    """Worker ``worker`` died: its answers sent before are read first (``answers``)."""

    def __init__(self, worker: int) -> None:
        super().__init__(f"worker {worker} died")
        self.worker = worker


def answers(conns: Sequence[Connection], procs: Sequence[BaseProcess], busy: Sequence[int]) -> Iterator[tuple[int, Any]]:
    """Wait (at most ``DEATH_POLL_S``) for the ``busy`` workers: each answer as (worker, answer), or
    ``WorkerGone`` for one found dead with nothing left to read. Its pipe and sentinel say its death only
    once no process its bot forked holds them, so a worker neither readable nor ended is asked whether
    it lives: the one rule of ``tute run``'s pool and ``tute play -j N``'s."""
    ready = wait([conns[w] for w in busy] + [procs[w].sentinel for w in busy], DEATH_POLL_S)
    for w in busy:
        if conns[w] not in ready and procs[w].sentinel not in ready:
            if procs[w].is_alive() or conns[w].poll():  # (an answer it sent: read it first)
                continue
            raise WorkerGone(w)  # dead, its pipes held open by a process its bot forked
        try:
            yield w, receive(conns[w], procs[w].is_alive)
        except (EOFError, OSError):
            raise WorkerGone(w) from None
