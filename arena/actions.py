"""Actions are plain strings in the notation of docs/rules.md: ``play 1o``, ``sing c``, ``tute 12``,
``exchange 7o``, ``pass``. Strings cost nothing to send over the protocol, compare and hash fast, and
read like the game; the referee maps each one to a small int code once, through a table.
The auction (subastado) adds ``bid 75`` and ``trump o``.
"""

from __future__ import annotations

from .cards import NAMES, NUM_CARDS, SUITS

PASS = "pass"
PLAY_TEXT: tuple[str, ...] = tuple(f"play {n}" for n in NAMES)
SING_TEXT: tuple[str, ...] = tuple(f"sing {s}" for s in SUITS)
TUTE_TEXT = {12: "tute 12", 11: "tute 11"}
#: exchange by the card given up: the 7 or the 2 of trumps.
EXCHANGE_TEXT: tuple[str, ...] = tuple(f"exchange {n}" for n in NAMES)

TRUMP_TEXT: tuple[str, ...] = tuple(f"trump {s}" for s in SUITS)
MAX_BID = 300
BID_TEXT: tuple[str, ...] = tuple(f"bid {n}" for n in range(MAX_BID + 1))

# Codes: 0-39 play a card; 40-43 sing a suit; 44 tute of kings, 45 of knights; 46-85 exchange a card; 86 pass;
# 87-90 name trump; 91 + N bid N.
SING0 = NUM_CARDS
TUTE12 = SING0 + 4
TUTE11 = TUTE12 + 1
EXCH0 = TUTE11 + 1
PASS_CODE = EXCH0 + NUM_CARDS
TRUMP0 = PASS_CODE + 1
BID0 = TRUMP0 + 4

CODE: dict[str, int] = {}
for _c, _t in enumerate(PLAY_TEXT):
    CODE[_t] = _c
for _s, _t in enumerate(SING_TEXT):
    CODE[_t] = SING0 + _s
CODE[TUTE_TEXT[12]] = TUTE12
CODE[TUTE_TEXT[11]] = TUTE11
for _c, _t in enumerate(EXCHANGE_TEXT):
    CODE[_t] = EXCH0 + _c
CODE[PASS] = PASS_CODE
for _s, _t in enumerate(TRUMP_TEXT):
    CODE[_t] = TRUMP0 + _s
for _n, _t in enumerate(BID_TEXT):
    if _n:
        CODE[_t] = BID0 + _n


_HALVES: tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]] = ({}, {})


def _half(half: int, bits: int) -> tuple[str, ...]:
    table = _HALVES[half]
    if len(table) > 1 << 16:  # bounded memory whatever the hands seen
        table.clear()
    t = table[bits] = tuple(PLAY_TEXT[20 * half + i] for i in range(20) if bits >> i & 1)
    return t


_LO, _HI = _HALVES


def plays(mask: int) -> tuple[str, ...]:
    """``play`` actions for a card mask, in card order.

    Memoised per half of the deck (oros+copas, espadas+bastos): whole hands rarely recur, but their
    halves do, so two dict hits and one concatenation serve almost every call.
    """
    lo = mask & 0xFFFFF
    hi = mask >> 20
    a = _LO.get(lo)
    if a is None:
        a = _half(0, lo)
    if not hi:
        return a
    b = _HI.get(hi)
    if b is None:
        b = _half(1, hi)
    return a + b if lo else b
