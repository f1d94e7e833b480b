#!/usr/bin/env python3
"""Hostile external programs, standard library only: ``hostile_cmd.py MODE`` misbehaves one way on the
wire (see tests/test_hostile.py)."""

import json
import os
import sys
import time

CARDS = [f"{f}{s}" for s in "oceb" for f in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]


def send(obj) -> None:
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    moves = 0
    hoard = []
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            send({"type": "hello", "name": f"hostile-{mode}"})
            continue
        if kind == "new_game":
            moves = 0
            continue
        if kind in ("game_over",):
            continue
        if kind == "quit":
            return
        moves += 1
        legal = msg["legal"]
        if moves <= after:
            send({"action": legal[0]})
            continue
        if mode == "raise":
            raise RuntimeError("hostile: raise on every move")
        elif mode == "illegal":
            hand = set(msg["view"]["hand"])
            send({"action": "play " + next(c for c in CARDS if c not in hand)})
        elif mode == "wrong_type":
            send({"action": 42})
        elif mode == "garbage":
            send("{this is not json")
        elif mode == "not_object":
            send("[1, 2, 3]")
        elif mode == "junk_stdout":
            send("junk on stdout")
            send({"action": legal[0]})
        elif mode == "sleep":
            time.sleep(2.0)
            send({"action": legal[0]})
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "exit":
            os._exit(3)
        elif mode == "exit_child":  # leaves a child holding its output open, in its own group
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            os._exit(3)
        elif mode == "escape":  # leaves a grandchild in a session of its own, holding its output open
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(300)
                os._exit(0)
            os.wait()
            os._exit(3)
        elif mode == "memory":
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
        elif mode == "close_stdin":
            sys.stdin.close()
            os.close(0)
            send({"action": legal[0]})
            time.sleep(3600)
        elif mode == "mutate":
            msg["legal"] = ["play " + c for c in CARDS]
            msg["view"]["hand"] = CARDS
            send({"action": next(a for a in msg["legal"] if a not in legal)})
        elif mode == "snoop":
            hidden = [k for k in ("hands", "stock", "deck", "initial_hands") if k in msg["view"] or k in msg]
            if hidden:
                print("FOUND HIDDEN STATE: " + ", ".join(hidden), file=sys.stderr)
                send({"action": legal[0]})
            else:
                send({"type": "error", "message": "hostile: no hidden cards reachable"})
        else:
            raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
