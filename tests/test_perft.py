"""Golden "perft" counts: distinct legal action sequences to a fixed depth from seeded positions.

Any change to legality anywhere in the tree changes a count. After a deliberate rule change, regenerate
with ``python tests/test_perft.py --regenerate`` and say why in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from arena import GameState, get_variant, shuffled_deck

GOLDEN = Path(__file__).with_name("perft.json")
CASES = [  # variant, deal seed, random moves before counting, depth
    ("tute-2", 1, 0, 6), ("tute-2", 2, 9, 6), ("tute-2", 3, 30, 8), ("tute-2", 12, 26, 8),
    ("habanero", 4, 0, 5), ("habanero", 5, 26, 7),
    ("tute-3", 6, 0, 6), ("tute-3", 7, 12, 7),
    ("tute-4", 8, 0, 7), ("tute-4", 9, 16, 8),
    ("tute-4-pairs", 10, 0, 8), ("tute-4-pairs", 11, 20, 8), ("tute-4-pairs", 13, 4, 8),
    # the later variants (added with issue #6; the counts above did not change)
    ("subastado", 14, 0, 3), ("subastado", 15, 30, 6), ("subastado-3", 16, 25, 6),
    ("cabron", 17, 0, 6), ("cabron", 18, 12, 7), ("cabron-4", 19, 0, 7), ("cabron-4", 20, 16, 8),
    ("cabrero", 21, 0, 7), ("cabrero-3", 22, 9, 6), ("cabrero-5", 23, 0, 7), ("cabrero-6", 24, 10, 8),
]


def perft(state: GameState, depth: int) -> int:
    if depth == 0 or state.is_over:
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def start(name: str, seed: int, moves: int) -> GameState:
    v = get_variant(name)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_actions()))
    return state


def key(case: tuple[str, int, int, int]) -> str:
    return "{}/seed{}/after{}/depth{}".format(*case)


@pytest.mark.parametrize("case", CASES, ids=key)
def test_perft_counts_match_the_golden_file(case: tuple[str, int, int, int]) -> None:
    golden = json.loads(GOLDEN.read_text())
    name, seed, moves, depth = case
    assert perft(start(name, seed, moves), depth) == golden[key(case)]


def test_perft_counts_differ_between_positions() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert len(set(golden.values())) > len(golden) // 2  # counts that all agreed would prove little


if __name__ == "__main__" and "--regenerate" in sys.argv:
    GOLDEN.write_text(json.dumps({key(c): perft(start(*c[:3]), c[3]) for c in CASES}, indent=1) + "\n")
    print(GOLDEN.read_text())
