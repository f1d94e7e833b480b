"""Hostile Python plugins: each ``HostileBot(mode=...)`` misbehaves one way. Run in a subprocess host by
the hostile suite (tests/test_hostile.py); never run one in-process outside a test."""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

from arena.cards import NAMES, BIT


class _Sneaky(str):
    """A str equal to anything, hashed as a legal action would be: fools ``in`` and dict lookups."""

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return hash("play 1o")


class HostileBot:
    def __init__(self, mode: str = "raise", after: int = 0, sleep_s: float = 2.0, once: bool = False) -> None:
        self.mode = mode
        #: misbehave on one decision per game only
        self.once = once
        #: behave for this many decisions of each game first (so the failure comes mid-game)
        self.after = after
        self.sleep_s = sleep_s
        self.moves = 0
        self.hoard: list[bytearray] = []

    def new_game(self, info: dict[str, Any]) -> None:
        self.moves = 0

    def choose(self, view: Any) -> Any:
        self.moves += 1
        legal = view.legal
        if self.moves <= self.after or (self.once and self.moves > self.after + 1):
            return legal[0]
        m = self.mode
        if m == "raise":
            raise RuntimeError("hostile: raise on every move")
        if m == "illegal":
            return "play " + next(NAMES[c] for c in range(40) if not view.hand & BIT[c])
        if m == "wrong_type":
            return 42
        if m == "sneaky_str":  # a card it does not hold, as a str that claims to equal every action
            return _Sneaky("play " + next(NAMES[c] for c in range(40) if not view.hand & BIT[c]))
        if m == "unserializable":
            return object()
        if m == "junk_stdout":
            print("junk on stdout from a plugin")
            os.write(1, b"{\"action\": \"play 1o\"}\n")
            return legal[0]
        if m == "sleep":
            time.sleep(self.sleep_s)
            return legal[0]
        if m == "hang":
            while True:
                pass
        if m == "exit":
            os._exit(3)
        if m == "memory":
            while True:
                self.hoard.append(bytearray(16 * 1024 * 1024))
        if m == "close_stdin":
            try:
                sys.stdin.close()
                os.close(0)
            except OSError:
                pass
            return legal[0]
        if m == "close_fds":
            os.closerange(0, 4096)
            return legal[0]
        if m in ("mutate", "mutate_legal"):
            original = tuple(legal)
            view.hand = (1 << 40) - 1
            view.legal = tuple("play " + n for n in NAMES)
            view.points = tuple(999 for _ in view.points)
            view.trick = ()
            view.tricks = ()
            if m == "mutate":
                return next(a for a in view.legal if a not in original)
            return original[0]
        if m == "snoop":
            found = _snoop(view)
            if found:
                return legal[0]  # a cheat would win with this; the test looks for the marker on stderr
            raise RuntimeError("hostile: no hidden cards reachable")
        raise ValueError(f"unknown mode {m!r}")


def _snoop(view: Any) -> list[str]:
    """Everything a cheater might try to reach other hands through: attributes, referents, the heap,
    the caller's frames."""
    found = []
    for name in ("state", "_state", "hands", "stock", "deck", "initial_hands", "game"):
        if hasattr(view, name):
            found.append(f"view.{name}")
    for ref in gc.get_referents(view):
        if type(ref).__name__ == "GameState":
            found.append("referent GameState")
    for obj in gc.get_objects():
        if type(obj).__name__ == "GameState":
            found.append("heap GameState")
            break
    f = sys._getframe(1)
    while f is not None:
        if any(type(v).__name__ == "GameState" for v in f.f_locals.values()):
            found.append(f"frame {f.f_code.co_name}")
        f = f.f_back
    if found:
        print("FOUND HIDDEN STATE: " + ", ".join(found), file=sys.stderr)
    return found
