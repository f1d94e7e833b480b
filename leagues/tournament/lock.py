"""One run of a tournament at a time: a lock file beside the store, held with a POSIX record lock.

Two ``tute run`` of the same tournament on the same store would both play every game (each sees the
same games missing). The first takes an exclusive ``lockf`` on ``<store>.<tournament>.lock`` and keeps
it for the run; the second is refused at once with the holder's pid. The kernel drops the lock when its
process dies, however it dies, so a ``kill -9`` never leaves the tournament locked; and a record lock
belongs to the process, not to the file descriptor, so forked workers never hold it on (a ``flock``
would live on in an orphaned worker).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from urllib.parse import quote
from pathlib import Path
from typing import IO


class LockedError(RuntimeError):
    """Another process runs this tournament now: ``holder`` is its pid as it wrote it."""

    def __init__(self, message: str, holder: str = "?") -> None:
        super().__init__(message)
        self.holder = holder


class LockFileError(RuntimeError):
    """The lock file cannot be made (a folder this user cannot write, a read-only disk); the message
    is one line naming it."""


#: the longest lock file name spelled out: file systems allow 255 bytes, and a name of 100 non-ASCII
#: characters quoted takes 900
NAME_BYTES = 200


def lock_path(store: Path, tournament: str) -> Path:
    """``<store>.<tournament>.lock`` beside the store (the name quoted: a league's is club/s1), or, where
    that is too long a file name, the store's name cut short and a hash of both. Beside the file itself:
    a store reached through a symlink, or by another spelling of its path, takes the same lock."""
    store = store.resolve()
    name = f"{store.name}.{quote(tournament, safe='')}.lock"
    if len(os.fsencode(name)) > NAME_BYTES:
        digest = hashlib.sha256(f"{store.name}/{tournament}".encode()).hexdigest()[:24]
        name = f"{os.fsencode(store.name)[:80].decode(errors='ignore')}.{digest}.lock"
    return store.with_name(name)


class RunLock:
    def __init__(self, store: Path, tournament: str) -> None:
        self.tournament = tournament
        self.path = lock_path(store, tournament)
        self._fh: IO[str] | None = None

    def __enter__(self) -> "RunLock":
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(self.path, "a+", encoding="utf-8")
        except OSError as exc:
            raise LockFileError(f"cannot make the lock file {self.path}: {exc.strerror or exc} (a store "
                                "is written beside it: a folder this user can write)") from None
        try:
            fcntl.lockf(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):  # not held: this file system cannot lock it
                fh.close()
                raise LockFileError(f"cannot lock {self.path}: {exc.strerror or exc} (a store needs a file "
                                    "system with working locks: a local disk, or NFS with its lock service)") from None
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            raise LockedError(f"{self.tournament!r} is being run by another tute (pid {holder}; "
                              f"lock {self.path}): wait for it, or stop it first", holder) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:
            fcntl.lockf(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
