"""What a parent reads from its worker processes: their answers, without waiting for ever on a dead
one's pipe."""

from __future__ import annotations

import os
import struct
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable

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
