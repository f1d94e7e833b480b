"""Helpers for the league tests: small tournament configs written to a temporary folder."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import textwrap
import time
from contextlib import closing
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def config_text(*, variants: list[dict[str, Any]] | None = None, entrants: list[dict[str, Any]] | None = None,
                **top: Any) -> str:
    base: dict[str, Any] = {"name": "t", "seed": 7, "format": "round-robin", "deals": 2, "store": "store.sqlite"}
    base.update(top)
    lines = [f"{k} = {toml_value(v)}" for k, v in base.items() if v is not None]
    for v in variants if variants is not None else [{"name": "tute-2"}]:
        lines.append("[[variants]]")
        lines += [f"{k} = {toml_value(x)}" for k, x in v.items()]
    for e in entrants if entrants is not None else [{"name": "a", "bot": "random", "params": {"seed": 1}},
                                                    {"name": "b", "bot": "random", "params": {"seed": 2}}]:
        lines.append("[[entrants]]")
        lines += [f"{k} = {toml_value(x)}" for k, x in e.items()]
    return "\n".join(lines) + "\n"


def write_config(folder: Path, filename: str = "tournament.toml", **kw: Any) -> Path:
    path = folder / filename
    path.write_text(config_text(**kw), encoding="utf-8")
    return path


def write_league(folder: Path, name: str = "club", *, variants: list[dict[str, Any]] | None = None,
                 tables: dict[str, dict[str, Any]] | None = None, **top: Any) -> Path:
    """A league folder: ``tute league init``'s store, then a league.toml with these keys (small and fast
    by default: 2 deals, 8 compliance deals, one worker)."""
    from leagues.league.league import init_league

    path = folder / "league.toml"
    if not path.exists():
        init_league(folder, name)
    base: dict[str, Any] = {"name": name, "seed": 3, "deals": 2, "workers": 1}
    base.update(top)
    lines = [f"{k} = {toml_value(v)}" for k, v in base.items() if v is not None]
    for table, keys in {"check": {"deals": 8}, **(tables or {})}.items():
        lines.append(f"[{table}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in keys.items()]
    for v in variants if variants is not None else [{"name": "tute-2"}]:
        lines.append("[[variants]]")
        lines += [f"{k} = {toml_value(x)}" for k, x in v.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tute(capsys: Any, *args: str) -> tuple[int, str, str]:
    """``tute ARGS`` in this process (``main``, so errors are its one line): exit code, stdout, stderr."""
    from leagues.cli import main

    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def league_after_a_season(tmp_path: Path) -> tuple[Path, Path]:
    """A league ``club`` in ``tmp_path/club`` of three random entrants (r0, r1, r2, seeded 0 to 2) that
    has played its first season on one worker: its league.toml and its store."""
    from leagues.league.league import League

    folder = tmp_path / "club"
    folder.mkdir()
    path = write_league(folder, "club")
    with League.open(path) as lg:
        for i in range(3):
            lg.submit(f"r{i}", "random", params={"seed": i})
        lg.play_season(workers=1, quiet=True)
    return path, folder / "league.sqlite"


def stored_games(store: Path) -> int:
    """Games in a store another process is writing: 0 while the file, or its tables, do not exist yet,
    or while it is locked."""
    if not store.exists():
        return 0
    try:
        with closing(sqlite3.connect(store)) as db:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def wait_for_games(store: Path, more_than: int, proc: "subprocess.Popen[Any] | None" = None,
                   seconds: float = 120.0, poll: float = 0.05) -> int:
    """Wait until a running tournament has stored more than ``more_than`` games, ``proc`` (if given) has
    ended, or ``seconds`` have passed; return the count last read (to kill a run in the middle)."""
    deadline = time.time() + seconds
    count = 0
    while time.time() < deadline and (proc is None or proc.poll() is None):
        count = stored_games(store)
        if count > more_than:
            break
        time.sleep(poll)
    return count


def carried_priors(state: dict[tuple[str, str], tuple[int, float, float, int]], scope: str,
                   field: dict[str, int], season: int, r: Any) -> dict[str, tuple[float, float]]:
    """The documented carry-over, computed apart from the code under test: each entrant of ``field``
    (name -> version) starts ``season`` from its last (version, mu, sigma, season) in ``scope``, its
    sigma widened by tau^2 a season past and version_sigma^2 for a new version, capped at ``r.sigma``;
    a newcomer from (``r.mu``, ``r.sigma``)."""
    priors = {}
    for name, version in field.items():
        if (scope, name) not in state:
            priors[name] = (r.mu, r.sigma)
            continue
        v, mu, sigma, last = state[(scope, name)]
        var = sigma ** 2 + (season - last) * r.tau ** 2 + (r.version_sigma ** 2 if v != version else 0.0)
        priors[name] = (mu, min(r.sigma, math.sqrt(var)))
    return priors


def protocol_bot(name: str, *, head: str = "", hello: str = "", new_game: str = "", act: str = "",
                 game_over: str = "", after: str = "") -> str:
    """The script of a protocol bot (JSON lines) that plays at random, seeded per deal, and echoes the
    request number (examples/random_bot.py's loop), with a test's own code at its moments: ``head``
    before the loop, then in the branch of each message (``msg``, ``rng`` and ``reply`` in scope;
    ``act`` runs before the answer is chosen), and ``after`` once an answer is written. The loop every
    test bot shares, written once."""
    def at(code: str) -> str:
        return textwrap.indent(textwrap.dedent(code).strip("\n"), " " * 8) + "\n" if code.strip() else ""

    return (f"import json, os, random, sys, time\n{textwrap.dedent(head).strip()}\n"
            "rng = random.Random(0)\n"
            "for line in sys.stdin:\n"
            "    msg = json.loads(line)\n"
            "    kind = msg.get('type')\n"
            "    if kind == 'hello':\n"
            f"{at(hello)}"
            f"        reply = {{'type': 'hello', 'name': {name!r}}}\n"
            "    elif kind == 'new_game':\n"
            "        rng = random.Random(f\"{msg['seed']}/{msg['seat']}\")\n"
            f"{at(new_game)}"
            "        continue\n"
            "    elif kind == 'act':\n"
            f"{at(act)}"
            "        reply = {'action': rng.choice(msg['legal']), 'request': msg.get('request')}\n"
            "    elif kind == 'game_over':\n"
            f"{at(game_over)}"
            "        continue\n"
            "    elif kind == 'quit':\n"
            "        break\n"
            "    else:\n"
            "        continue\n"
            "    sys.stdout.write(json.dumps(reply) + '\\n')\n"
            "    sys.stdout.flush()\n"
            f"{textwrap.indent(textwrap.dedent(after).strip(), ' ' * 4)}\n")


#: ``protocol_bot``'s ``head`` for a bot that counts its processes: each start adds an "x" to the file
#: ``starts`` in the folder argv[1] (``folder``), and knows its own number (``start``, from 1)
COUNTS_ITS_STARTS = '''
folder = sys.argv[1]
with open(os.path.join(folder, "starts"), "a+") as fh:
    fh.seek(0)
    start = len(fh.read()) + 1
    fh.write("x")
'''
