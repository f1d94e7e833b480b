"""Ctrl-C and SIGTERM that land while this process forks are acted on once the fork is done.

A signal that arrives during ``fork()`` is handled by the first Python code that runs after it, which
is a fork hook (logging's ``_releaseLock``, or multiprocessing's start-up code in the child). CPython
prints an exception raised in a fork hook and drops it: the command's stop handler, which raises
``KeyboardInterrupt`` once and then ignores every later Ctrl-C, fired there, its exception was lost, and
the run played on to the end, exit 0, deaf to every later Ctrl-C and SIGTERM. In a child the same
handler killed a starting worker with a traceback.

So every fork of the runner (its worker processes, a bot's process) happens inside ``forking()``, and a
stop handler asks ``defer(signum)`` first: within a fork it is noted and the handler returns; when the
outermost ``forking()`` ends, the parent calls the handler again. A child never leaves the ``with``
(it runs its own code and exits, or executes another program), so there the note is dropped: a worker
ignores Ctrl-C (its parent stops it), and a SIGTERM meant for it comes by ``terminate``'s SIGKILL.
"""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from typing import Iterator

_depth = 0
_pid = 0
_noted: list[int] = []


@contextmanager
def forking() -> Iterator[None]:
    """Fork inside this: a stop signal that lands meanwhile is acted on after it, in this process."""
    global _depth, _pid
    if _depth == 0:
        _pid = os.getpid()
    _depth += 1
    try:
        yield
    finally:  # a fork that failed too: the stop is acted on now, not at some later, unrelated fork
        _depth -= 1
        if _depth == 0 and _noted and os.getpid() == _pid:
            signum = _noted[0]
            _noted.clear()
            handler = signal.getsignal(signum)
            if callable(handler):
                handler(signum, None)


def defer(signum: int) -> bool:
    """Called first by a stop handler: True (noted, act later) while this process is forking, or is a
    child that has not yet set its own handlers."""
    if _depth == 0:
        return False
    if os.getpid() == _pid:
        _noted.append(signum)
    return True
