"""``tute replay``: watch a recorded game card by card, as everyone or one seat saw it, or as HTML."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Iterator

import click

from arena import GameRecord, ReplayError, replay as verify_record

from .replay_html import replay_page
from .replay_text import print_replay


class RecordsError(click.ClickException):
    exit_code = 2


def open_text(path: str):  # noqa: ANN201 - a text file object, gzip or plain
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def read_jsonl(path: str) -> Iterator[tuple[int, GameRecord]]:
    """(line number, record) for each line of a JSON-lines file; a bad line is an error naming it."""
    try:
        fh = open_text(path)
    except OSError as exc:
        raise RecordsError(f"{path}: {exc.strerror or exc}") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield lineno, GameRecord.from_json(json.loads(line))
            except (ValueError, json.JSONDecodeError) as exc:
                raise RecordsError(f"{path}:{lineno}: not a game record: {exc}") from None


def record_from_file(path: str, index: int) -> GameRecord:
    for k, (_, rec) in enumerate(read_jsonl(path)):
        if k == index:
            return rec
    raise RecordsError(f"{path}: no record at --index {index}")


def show_record(rec: GameRecord, seat: int | None, lang: str, long_names: bool, step: bool, html_out: str | None) -> None:
    if seat is not None and not 0 <= seat < len(rec.seats):
        raise RecordsError(f"--seat {seat}: the game has seats 0 to {len(rec.seats) - 1}")
    try:
        verify_record(rec)  # a replay shows only what the referee confirms
        if html_out:
            Path(html_out).write_text(replay_page(rec, seat, lang), encoding="utf-8")
            click.echo(f"wrote {html_out}")
            return
        colour = sys.stdout.isatty()
        pause = (lambda: click.prompt("", default="", show_default=False, prompt_suffix="")) if step else None
        print_replay(rec, seat, lang, long_names, colour, click.echo, pause)
    except ReplayError as exc:
        raise RecordsError(f"game {rec.id}: the record is not true to the rules: {exc}") from None


def register(cli: click.Group) -> None:
    @cli.command()
    @click.argument("game_id", required=False)
    @click.option("--file", "file_", type=click.Path(dir_okay=False), help="Read records from this JSON-lines file (.gz too).")
    @click.option("--index", default=0, show_default=True, type=click.IntRange(0), help="Which record of --file.")
    @click.option("--seat", type=int, help="Show only what this seat knew at each moment.")
    @click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
    @click.option("--long", "long_names", is_flag=True, help="Card names in words (3 de copas / three of cups).")
    @click.option("--step", is_flag=True, help="Wait for Enter after each trick.")
    @click.option("--html", "html_out", type=click.Path(dir_okay=False), help="Write a self-contained HTML replay.")
    @click.option("--store", "store_path", type=click.Path(dir_okay=False), help="The results store (tournaments).")
    def replay(game_id: str | None, file_: str | None, index: int, seat: int | None, lang: str, long_names: bool,
               step: bool, html_out: str | None, store_path: str | None) -> None:
        """Replay a game trick by trick: the deal, every card, cante, exchange, draw and the result.

        \b
        Examples:
          tute replay --file games.jsonl --index 3 --lang es --long
          tute replay --file games.jsonl --seat 1 --step
          tute replay --file games.jsonl --html game.html
        """
        if file_:
            rec = record_from_file(file_, index)
        elif game_id:
            rec = record_from_store(game_id, store_path)
        else:
            raise RecordsError("give a GAME_ID (from `tute games`) or --file FILE")
        show_record(rec, seat, lang, long_names, step, html_out)


def record_from_store(game_id: str, store_path: str | None) -> GameRecord:
    raise RecordsError(f"{game_id}: reading games from a store needs `tute run` first; use --file")
