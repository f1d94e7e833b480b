#!/usr/bin/env python3
"""A complete tute-arena bot in the standard library only: the loop to copy into any language.

Run it as a bot with ``tute play tute-2 random "python3 examples/random_bot.py"``. It reads one JSON
object per line on stdin, answers on stdout (one line, flushed), and writes any logging to stderr (the
referee keeps a capped copy). See docs/protocol.md.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": "example-random"}
        elif kind == "new_game":
            # Seeding from the game makes the bot's play reproducible, as `tute bots check` verifies.
            rng = random.Random(f"{msg.get('seed')}/{msg.get('seat')}")
            continue
        elif kind == "act":
            # echoing the request number lets the referee tell this answer from a stray line
            reply = {"action": rng.choice(msg["legal"]), "request": msg.get("request")}
        elif kind == "game_over":
            continue
        elif kind == "quit":
            return
        else:
            print(f"example-random: unknown message {kind!r}", file=sys.stderr)
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
