"""Cards of the Spanish deck as small ints, and their notation.

A card is ``suit * 10 + rank`` where ``rank`` indexes ``FACES`` (1 2 3 4 5 6 7 10 11 12) and the suit
indexes ``SUITS`` (oros, copas, espadas, bastos). Hands and card sets are int bitmasks with bit ``card``
set: the referee's hot path is then a handful of ``&`` and ``|`` on ints, and every table below is
computed once at import. The notation is face then suit letter: ``1o 3c 12e 11b``.
"""

from __future__ import annotations

import random

from typing import Iterable, Iterator

SUITS = "oceb"
SUIT_NAMES_ES = ("oros", "copas", "espadas", "bastos")
SUIT_NAMES_EN = ("coins", "cups", "swords", "clubs")
FACES = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
FACE_NAMES_ES = {1: "as", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "sota", 11: "caballo", 12: "rey"}
FACE_NAMES_EN = {1: "ace", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "jack", 11: "knight", 12: "king"}

#: Trick-taking order inside a suit, high to low (docs/rules.md "The deck").
ORDER_HIGH_TO_LOW = (1, 3, 12, 11, 10, 7, 6, 5, 4, 2)
_FACE_POINTS = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2}

Card = int
NUM_CARDS = 40
#: "no card" (no trump card shown, nothing face up) and "no suit" (no trump yet): values that index no
#: card or suit table (``NAMES[NO_CARD]`` raises), so a missing card can never pass for a real one
NO_CARD = NUM_CARDS
NO_SUIT = 4

FACE: tuple[int, ...] = tuple(FACES[c % 10] for c in range(NUM_CARDS))
SUIT: tuple[int, ...] = tuple(c // 10 for c in range(NUM_CARDS))
POINTS: tuple[int, ...] = tuple(_FACE_POINTS.get(FACE[c], 0) for c in range(NUM_CARDS))
#: Higher is stronger; only comparable within a suit.
STRENGTH: tuple[int, ...] = tuple(10 - ORDER_HIGH_TO_LOW.index(FACE[c]) for c in range(NUM_CARDS))
BIT: tuple[int, ...] = tuple(1 << c for c in range(NUM_CARDS))
SUIT_MASK: tuple[int, ...] = tuple(0x3FF << (10 * s) for s in range(4))
ALL_CARDS_MASK = (1 << NUM_CARDS) - 1
#: Cards of the same suit that beat the given card.
HIGHER: tuple[int, ...] = tuple(
    sum(BIT[d] for d in range(NUM_CARDS) if SUIT[d] == SUIT[c] and STRENGTH[d] > STRENGTH[c])
    for c in range(NUM_CARDS))

NAMES: tuple[str, ...] = tuple(f"{FACE[c]}{SUITS[SUIT[c]]}" for c in range(NUM_CARDS))
_BY_NAME = {name: c for c, name in enumerate(NAMES)}


def card(face: int, suit: int | str) -> Card:
    """The card of ``face`` (1-7, 10-12) in ``suit`` (index or letter)."""
    s = SUITS.index(suit) if isinstance(suit, str) else suit
    if face not in FACES or not 0 <= s < 4:
        raise ValueError(f"no such card: face {face!r}, suit {suit!r}")
    return s * 10 + FACES.index(face)


def parse_card(text: str) -> Card:
    """``"12c"`` -> card; raises ValueError naming the bad text."""
    try:
        return _BY_NAME[text.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"not a card: {text!r} (expected face then suit letter, e.g. 1o 12c 7e)") from None


def card_name(c: Card) -> str:
    return NAMES[c]


def long_name(c: Card, lang: str = "es") -> str:
    """``3 de copas``, ``rey de oros`` / ``3 of cups``, ``king of coins``: for people reading a replay."""
    if lang == "en":
        return f"{FACE_NAMES_EN[FACE[c]]} of {SUIT_NAMES_EN[SUIT[c]]}"
    return f"{FACE_NAMES_ES[FACE[c]]} de {SUIT_NAMES_ES[SUIT[c]]}"


def parse_suit(text: str) -> int:
    t = text.strip().lower()
    if len(t) == 1 and t in SUITS:
        return SUITS.index(t)
    if t in SUIT_NAMES_ES:
        return SUIT_NAMES_ES.index(t)
    raise ValueError(f"not a suit: {text!r} (expected one of o c e b)")


def mask_of(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a bitmask in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: the cards of each 10-bit slice of a mask, by slice: ``cards_list`` reads four entries instead of
#: looping over the bits (a record lists every hand of every game)
_SLICES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(10 * k + i for i in range(10) if m >> i & 1) for m in range(1024)) for k in range(4))


def cards_list(mask: int) -> list[Card]:
    """The cards of a bitmask in increasing order, as a list."""
    a, b, c, d = _SLICES
    return [*a[mask & 1023], *b[mask >> 10 & 1023], *c[mask >> 20 & 1023], *d[mask >> 30 & 1023]]


def names(mask_or_cards: int | Iterable[Card]) -> list[str]:
    cs = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else mask_or_cards
    return [NAMES[c] for c in cs]


def shuffled(size: int, seed: int) -> list[Card]:
    """The deck order of ``seed``: the same on every machine and Python version (``random.Random``). A
    record's deck is its seed's (``record.replay`` checks it), so a seed says the whole deal."""
    cards = list(deck(size))
    random.Random(seed).shuffle(cards)
    return cards


def deck(size: int = 40) -> tuple[Card, ...]:
    """The cards of a 40-card deck, or the 36-card one without the 2s (three players)."""
    if size == 40:
        return tuple(range(NUM_CARDS))
    if size == 36:
        return tuple(c for c in range(NUM_CARDS) if FACE[c] != 2)
    raise ValueError(f"deck size must be 36 or 40, not {size}")
