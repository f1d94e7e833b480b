"""The text replay: the frames of a game as lines for a terminal, coloured by suit when it is one."""

from __future__ import annotations

import re
from typing import Callable, Iterable

import click

from arena import GameRecord
from arena.cards import long_name, parse_card

from leagues.records.timeline import Frame, frames
from leagues.records.wording import Words

SUIT_COLOURS = {"o": "yellow", "c": "red", "e": "blue", "b": "green"}
_CARD = re.compile(r"\b(1[0-2]|[1-7])([oceb])\b")
#: two cards side by side in a hand or a list, so that spelled-out names stay apart
_CARD_RUN = re.compile(r"\b((?:1[0-2]|[1-7])[oceb]) (?=(?:1[0-2]|[1-7])[oceb]\b)")


def card_text(match: re.Match[str], lang: str | None, colour: bool) -> str:
    token = match.group(0)
    text = long_name(parse_card(token), lang) if lang else token
    return click.style(text, fg=SUIT_COLOURS[match.group(2)], bold=True) if colour else text


def render_line(line: str, lang: str | None = None, colour: bool = False) -> str:
    """Cards in a line as ``3c`` or, with a language, ``tres de copas``; coloured by suit. Spelled
    out, the cards of a hand are separated by commas (``3 de copas, rey de oros``)."""
    if lang:
        line = _CARD_RUN.sub(r"\1, ", line)
    return _CARD.sub(lambda m: card_text(m, lang, colour), line)


def replay_lines(record: GameRecord, seat: int | None = None, lang: str = "en", long_names: bool = False,
                 colour: bool = False) -> Iterable[tuple[Frame, list[str]]]:
    """(frame, its lines) for each frame; the caller prints them and may pause after a trick. With a
    seat, the seat's hand is shown before each of its decisions: what it chose from."""
    names_lang = lang if long_names else None
    words = Words.of(record.seats, lang)
    for frame in frames(record, seat, lang):
        lines = [("  " if frame.index else "") + e for e in frame.events]
        if seat is not None and frame.mover == seat and frame.index:
            lines.append("  " + words("to_play", who=words.who(seat), cards=" ".join(frame.hands[seat] or [])))
        yield frame, [render_line(line, names_lang, colour) for line in lines]


def print_replay(record: GameRecord, seat: int | None, lang: str, long_names: bool, colour: bool,
                 echo: Callable[[str], None], pause: Callable[[str], bool] | None = None) -> None:
    """Print the replay; with ``pause``, wait after each trick: ``pause(hint)`` returns False to stop
    (the reader typed q, or closed the input)."""
    words = Words.of(record.seats, lang)
    echo(words("seen_by", id=record.id, who=words.who(seat)) if seat is not None else words("game", id=record.id))
    for frame, lines in replay_lines(record, seat, lang, long_names, colour):
        for line in lines:
            echo(line)
        if pause is not None and "trick" in frame.tags and not frame.over:
            if not pause(words("key_hint")):
                return
