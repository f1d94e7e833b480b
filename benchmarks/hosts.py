"""Host overhead: decisions per second for the same bot in-process, in a subprocess plugin and as an
external program, and what isolation costs per decision over the bot's own time.

    python benchmarks/hosts.py [--games N] [--variant tute-2]

Each row plays the same deals (bot against in-process ``random``) and times only the bot's seat:
the wall time of its ``choose`` calls as the referee sees them. The in-process row is the bot's own
time; the others add the view encoding, two pipe hops, decoding and the child's answer. The external
program is ``examples/random_bot.py`` (the same uniform choice, in the standard library only). A bare
pipe round trip to a child (64 bytes each way, blocking reads on both ends, no polling) is timed for
comparison: on an idle virtual machine it is dominated by waking the sleeping process, which the hosts
avoid by polling briefly before they sleep. The machine's noise (other
processes) only ever adds time, so each row reports the fastest of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import get_variant, play_game, shuffled_deck  # noqa: E402
from arena.hosting import make_player  # noqa: E402


class Timed:
    """Times the wrapped player's decisions (what the referee waits for)."""

    def __init__(self, player) -> None:
        self.player = player
        self.name = player.name
        self.seconds = 0.0
        self.calls = 0

    def new_game(self, info) -> None:
        self.player.new_game(info)

    def game_over(self, result) -> None:
        self.player.game_over(result)

    def choose(self, view):
        t = time.perf_counter()
        a = self.player.choose(view)
        self.seconds += time.perf_counter() - t
        self.calls += 1
        return a


def run(bot, isolation: str, variant: str, games: int) -> tuple[float, int]:
    v = get_variant(variant)
    player = Timed(make_player(bot, isolation=isolation, time_limit_ms=5000))
    opponent = make_player("random")
    warm = min(20, games)
    for g in range(warm):  # start the process, fill caches
        play_game(v, shuffled_deck(v, 10_000 + g), g % 2, [player, opponent] if g % 2 else [opponent, player])
    player.seconds = 0.0
    player.calls = 0
    for g in range(games):
        seats = [player, opponent] if g % 2 == 0 else [opponent, player]
        rec = play_game(v, shuffled_deck(v, g), g % 2, seats)
        assert rec.result.forfeit is None, rec.result.forfeit
    player.player.close()
    return player.seconds, player.calls


def bare_pipe(n: int = 20000) -> float:
    code = ("import os\n"
            "while True:\n"
            "    b = os.read(0, 65536)\n"
            "    if not b: break\n"
            "    os.write(1, b)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert p.stdin is not None and p.stdout is not None
    fi, fo = p.stdin.fileno(), p.stdout.fileno()
    msg = b"x" * 63 + b"\n"
    for _ in range(1000):
        os.write(fi, msg)
        os.read(fo, 65536)
    t = time.perf_counter()
    for _ in range(n):
        os.write(fi, msg)
        os.read(fo, 65536)
    dt = time.perf_counter() - t
    p.stdin.close()
    p.wait()
    return dt / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])  # the first paragraph, whole
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--variant", default="tute-2")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row; the fastest is reported")
    args = ap.parse_args()
    print(f"{args.variant}, {args.games} deals per row, best of {args.repeat}, "
          "bot's seat timed (decisions it was asked)")
    print(f"bare pipe round trip: {min(bare_pipe() for _ in range(max(1, args.repeat))) * 1e6:.1f} us")
    example = [sys.executable, str(ROOT / "examples" / "random_bot.py")]
    for label, rows in (("random", [("in-process", "random", "inprocess"),
                                    ("subprocess plugin", "random", "subprocess"),
                                    ("external program", example, "auto")]),
                        ("greedy", [("in-process", "greedy", "inprocess"),
                                    ("subprocess plugin", "greedy", "subprocess")])):
        base = None
        for where, bot, iso in rows:
            secs, calls = min(run(bot, iso, args.variant, args.games) for _ in range(max(1, args.repeat)))
            per = secs / calls
            if base is None:
                base = per
            extra = f"  overhead {(per - base) * 1e6:6.1f} us/decision" if where != "in-process" else ""
            print(f"{label:7} {where:18} {calls:7d} decisions {calls / secs:9.0f}/s  {per * 1e6:7.1f} us each{extra}")


if __name__ == "__main__":
    main()
