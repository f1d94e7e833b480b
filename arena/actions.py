"""Actions are plain strings in the notation of RULES.md: ``play 1o``, ``sing c``, ``tute 12``,
``exchange 7o``, ``pass``. Strings cost nothing to send over the protocol, compare and hash fast, and
read like the game; the referee maps each one to a small int code once, through a table.
"""

from __future__ import annotations

from .cards import NAMES, NUM_CARDS, SUITS

PASS = "pass"
PLAY_TEXT: tuple[str, ...] = tuple(f"play {n}" for n in NAMES)
SING_TEXT: tuple[str, ...] = tuple(f"sing {s}" for s in SUITS)
TUTE_TEXT = {12: "tute 12", 11: "tute 11"}
#: exchange by the card given up: the 7 or the 2 of trumps.
EXCHANGE_TEXT: tuple[str, ...] = tuple(f"exchange {n}" for n in NAMES)

# Codes: 0-39 play a card; 40-43 sing a suit; 44 tute of kings, 45 of knights; 46-85 exchange a card; 86 pass.
SING0 = NUM_CARDS
TUTE12 = SING0 + 4
TUTE11 = TUTE12 + 1
EXCH0 = TUTE11 + 1
PASS_CODE = EXCH0 + NUM_CARDS

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


def _plays_table() -> list[tuple[str, ...]]:
    return [tuple(PLAY_TEXT[s * 10 + r] for r in range(10) if chunk >> r & 1) for s in range(4)
            for chunk in range(1024)]


_SUIT_PLAYS = _plays_table()  # index suit * 1024 + 10-bit chunk
_PLAYS_CACHE: dict[int, tuple[str, ...]] = {}


def plays(mask: int) -> tuple[str, ...]:
    """``play`` actions for a card mask, in card order; memoised because hands recur constantly."""
    t = _PLAYS_CACHE.get(mask)
    if t is None:
        if len(_PLAYS_CACHE) > 1 << 17:
            _PLAYS_CACHE.clear()
        sp = _SUIT_PLAYS
        t = (sp[mask & 1023] + sp[1024 + (mask >> 10 & 1023)] + sp[2048 + (mask >> 20 & 1023)]
             + sp[3072 + (mask >> 30 & 1023)])
        _PLAYS_CACHE[mask] = t
    return t
