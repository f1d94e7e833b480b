"""The text replay: the frames of a game as lines for a terminal, coloured by suit when it is one."""

from __future__ import annotations

import re
from typing import Callable, Iterable

import click

from arena import GameRecord
from arena.cards import long_name, parse_card

from leagues.records.timeline import Frame, frames

SUIT_COLOURS = {"o": "yellow", "c": "red", "e": "blue", "b": "green"}
_CARD = re.compile(r"\b(1[0-2]|[1-7])([oceb])\b")


def card_text(match: re.Match[str], lang: str | None, colour: bool) -> str:
    token = match.group(0)
    text = long_name(parse_card(token), lang) if lang else token
    return click.style(text, fg=SUIT_COLOURS[match.group(2)], bold=True) if colour else text


def render_line(line: str, lang: str | None = None, colour: bool = False) -> str:
    """Cards in a line as ``3c`` or, with a language, ``tres de copas``; coloured by suit."""
    return _CARD.sub(lambda m: card_text(m, lang, colour), line)


def replay_lines(record: GameRecord, seat: int | None = None, lang: str = "en", long_names: bool = False,
                 colour: bool = False) -> Iterable[tuple[Frame, list[str]]]:
    """(frame, its lines) for each frame; the caller prints them and may pause after a trick."""
    names_lang = lang if long_names else None
    for frame in frames(record, seat, lang):
        yield frame, [render_line(("  " if frame.index else "") + e, names_lang, colour) for e in frame.events]


def print_replay(record: GameRecord, seat: int | None, lang: str, long_names: bool, colour: bool,
                 echo: Callable[[str], None], pause: Callable[[], object] | None = None) -> None:
    head = f"game {record.id}" + (f" as seen by seat {seat}" if seat is not None else "")
    echo(head)
    for frame, lines in replay_lines(record, seat, lang, long_names, colour):
        for line in lines:
            echo(line)
        if pause is not None and "trick" in frame.tags and not frame.over:
            pause()
