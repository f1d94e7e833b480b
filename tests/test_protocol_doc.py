"""docs/protocol.md's "A complete exchange" is the wire as it is: the deal it shows is played again
through the command host, every line between the referee and the example bot recorded by a pass-through
program, and compared with the documented transcript line by line (a field added to a message, or a
changed order, shows here before a bot author copies a stale example)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena import get_variant, play_game, shuffled_deck
from arena.hosting import make_player

ROOT = Path(__file__).resolve().parents[1]

#: relays stdin to the program after the log path and the program's replies back, logging both ways
TEE = """import subprocess, sys, threading
log = open(sys.argv[1], "a", buffering=1)
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def back():
    for line in child.stdout:
        log.write("< " + line)
        sys.stdout.write(line)
        sys.stdout.flush()
threading.Thread(target=back, daemon=True).start()
for line in sys.stdin:
    log.write("> " + line)
    child.stdin.write(line)
    child.stdin.flush()
"""


def documented() -> list[str]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("## A complete exchange"):]
    block = section[section.index("```text\n") + len("```text\n"):]
    return block[:block.index("```")].splitlines()


def test_the_documented_exchange_is_what_the_referee_and_the_example_bot_say(tmp_path: Path) -> None:
    lines = documented()
    assert lines[0] == '> {"type":"hello","protocol":1}' and lines[-1] == '> {"type":"quit"}'
    tee = tmp_path / "tee.py"
    tee.write_text(TEE, encoding="utf-8")
    log = tmp_path / "wire.txt"
    v = get_variant("tute-2")
    bot = make_player([sys.executable, str(tee), str(log), sys.executable, str(ROOT / "examples" / "random_bot.py")])
    greedy = make_player("greedy")
    try:
        play_game(v, shuffled_deck(v, 14), 0, [bot, greedy], game_id="doc/1", seed=14,
                  names=["example-random", "greedy"])
    finally:
        bot.close()
        greedy.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not log.read_text(encoding="utf-8").endswith('"quit"}\n'):
        time.sleep(0.05)
    wire = log.read_text(encoding="utf-8").splitlines()
    assert len(wire) == len(lines)
    for said, doc in zip(wire, lines):
        assert said == doc
