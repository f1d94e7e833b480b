"""A bot author's first day, by the docs (README.md, docs/bots.md, docs/protocol.md, docs/config.md):
a scaffolded plugin, bots speaking the protocol with no tute-arena import (Python, awk), a
``module:Class`` beside the work, and a tournament naming them. Among them the defects found
on that path, each test seen failing before its fix; the others pin documented behaviour a newcomer relies on."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import get_variant, play_game, shuffled_deck
from arena.hosting import make_player
from leagues.cli import cli

ROOT = Path(__file__).resolve().parents[1]
TUTE = [str(Path(sys.executable).parent / "tute")]  # not `python -m leagues`: that puts the folder on sys.path

# A protocol-only bot (docs/protocol.md alone): declarations first, never bids, names the longest suit,
# else the card worth fewest points (trumps last), ties broken by an RNG seeded from new_game's seed.
LOWBOT = textwrap.dedent('''\
    #!/usr/bin/env python3
    import json, random, sys
    PTS = {"1": 11, "3": 10, "12": 4, "11": 3, "10": 2}
    ORDER = ["2", "4", "5", "6", "7", "10", "11", "12", "3", "1"]
    rng = random.Random(0)
    params = {}

    def cost(card, trump):
        face, suit = card[:-1], card[-1]
        return (1000 if suit == trump else 0) + PTS.get(face, 0) * 20 + ORDER.index(face)

    def choose(view, legal):
        for pre in ("tute", "exchange", "sing"):
            for a in legal:
                if a.startswith(pre):
                    return a
        if view["phase"] == "auction":
            return "pass"
        if view["phase"] == "trump":
            return "trump " + max("oceb", key=lambda s: sum(c[-1] == s for c in view["hand"]))
        plays = [a for a in legal if a.startswith("play ")]
        if not plays:
            return "pass" if "pass" in legal else legal[0]
        best = min(cost(a[5:], view["trump"]) for a in plays)
        return rng.choice([a for a in plays if cost(a[5:], view["trump"]) == best])

    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "name": "lowbot"}), flush=True)
        elif msg["type"] == "new_game":
            rng.seed(msg["seed"])
            params = msg.get("params", {})
            if params.get("echo"):
                print(json.dumps(params), file=sys.stderr, flush=True)
        elif msg["type"] == "act":
            print(json.dumps({"action": choose(msg["view"], msg["legal"]), "request": msg["request"]}), flush=True)
        elif msg["type"] == "quit":
            break
''')

# The same idea in awk, reading the JSON lines by pattern only: declarations first, pass in the
# auction, else the first legal action.
AWKBOT = textwrap.dedent(r'''
    /"type":"hello"/ { print "{\"type\":\"hello\",\"name\":\"awkbot\"}"; fflush(); next }
    /"type":"quit"/ { exit 0 }
    /"type":"act"/ {
      req = ""
      if (match($0, /"request":[0-9]+/)) req = substr($0, RSTART + 10, RLENGTH - 10)
      s = $0; list = ""
      while (match(s, /"legal":\[[^]]*\]/)) { list = substr(s, RSTART + 9, RLENGTH - 10); s = substr(s, RSTART + RLENGTH) }
      n = split(list, a, ",")
      for (i = 1; i <= n; i++) gsub(/^ *"|" *$/, "", a[i])
      choice = a[1]
      for (i = 1; i <= n; i++) if (a[i] ~ /^(tute|exchange|sing)/) { choice = a[i]; break }
      if ($0 ~ /"phase":"auction"/) for (i = 1; i <= n; i++) if (a[i] == "pass") choice = "pass"
      print "{\"action\":\"" choice "\",\"request\":" req "}"; fflush()
      next
    }
''')


def _tute(args: list[str], cwd: Path, env: dict[str, str] | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env or {})}
    if not env.get("PYTHONPATH"):
        env.pop("PYTHONPATH", None)  # "" stands for none at all
    if args and args[0] == "play" and "--log" not in args:
        args = [*args, "--log", str(cwd / "play.log")]
    return subprocess.run(TUTE + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _awk_command() -> list[str]:
    awk = shutil.which("awk")
    if awk is None:
        pytest.skip("no awk on this machine")
    version = subprocess.run([awk, "-W", "version"], capture_output=True, text=True, timeout=10)
    # mawk reads a pipe in blocks: it would wait for more input before answering the hello
    return [awk, "-W", "interactive"] if "mawk" in version.stdout + version.stderr else [awk]


# ------------------------------------------------------------------------------ documented, and works
def test_a_protocol_only_python_bot_plays_every_preset_legally_and_reproducibly(tmp_path: Path) -> None:
    """docs/protocol.md alone is enough: a bot that imports nothing of tute-arena, seeds from
    ``new_game``'s ``seed`` and answers from ``legal`` passes ``tute bots check --require-reproducible``
    in every preset (17 deals: at least one per seat of each)."""
    (tmp_path / "lowbot.py").write_text(LOWBOT)
    res = _tute(["bots", "check", "python3 lowbot.py", "--deals", "17", "--require-reproducible"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    rows = [line.split() for line in res.stdout.splitlines() if line.split()[:1] and line.split()[0] in
            {"tute-2", "subastado", "cabrero-6", "tute-4-pairs-online"}]
    assert len(rows) == 4 and all(r[-1] == "yes" for r in rows), res.stdout
    assert res.stdout.rstrip().endswith("PASS")


def test_an_awk_bot_speaking_the_protocol_passes_the_check(tmp_path: Path) -> None:
    """A bot in another language, from the protocol's text alone (pattern matching, no JSON library)."""
    (tmp_path / "awkbot.awk").write_text(AWKBOT)
    cmd = " ".join([*_awk_command(), "-f", "awkbot.awk"])
    res = _tute(["bots", "check", cmd, "--deals", "17", "--require-reproducible"], tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.rstrip().endswith("PASS")


def test_a_commands_params_arrive_in_new_game(tmp_path: Path) -> None:
    """docs/protocol.md: "An external program started with parameters ... receives them here as
    "params": {...}" -- from ``tute play -p`` as from a tournament."""
    (tmp_path / "lowbot.py").write_text(LOWBOT)
    res = _tute(["play", "tute-2", "python3 lowbot.py", "random", "-n", "1",
                 "-p", '{"echo": true, "depth": 3}', "-p", "{}", "--log", str(tmp_path / "bots.log")], tmp_path)
    assert res.returncode == 0, res.stderr
    assert '{"echo": true, "depth": 3}' in (tmp_path / "bots.log").read_text()


def test_a_tournament_of_protocol_bots_beside_its_file_runs_from_any_folder(tmp_path: Path) -> None:
    """docs/config.md: a command (an array) runs in the tournament.toml's folder, wherever ``tute run`` is
    started; a scaffold-style ``module:Class`` beside it is found with PYTHONPATH (docs/bots.md). Then
    ``tute games`` and ``tute replay`` read its games back."""
    league = tmp_path / "t"
    league.mkdir()
    (league / "lowbot.py").write_text(LOWBOT)
    (league / "awkbot.awk").write_text(AWKBOT)
    (league / "mymodule.py").write_text("from bots.greedy import GreedyBot as MyBot\n")
    awk = json.dumps([*_awk_command(), "-f", "awkbot.awk"])
    (league / "tournament.toml").write_text(textwrap.dedent(f'''\
        name = "qa"
        deals = 1
        [[variants]]
        name = "tute-2"
        [[variants]]
        name = "subastado"
        [[entrants]]
        name = "low"
        bot = ["python3", "lowbot.py"]
        [[entrants]]
        name = "awk"
        bot = {awk}
        [[entrants]]
        name = "mod"
        bot = "mymodule:MyBot"
        '''))
    res = _tute(["run", str(league / "tournament.toml")], tmp_path, env={"PYTHONPATH": str(league)})
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "runs").exists() and (league / "runs" / "qa.sqlite").exists()
    store = str(league / "runs" / "qa.sqlite")
    games = _tute(["games", "--store", store, "--entrant", "awk", "--variant", "tute-2", "-n", "0"], tmp_path)
    assert games.returncode == 0 and games.stdout.count("qa/tute-2/") == 4, games.stdout
    gid = games.stdout.splitlines()[2].split()[0]
    replay = _tute(["replay", gid, "--store", store], tmp_path)
    assert replay.returncode == 0 and "result:" in replay.stdout, replay.stderr


# --------------------------------------------------------------------------------------------- defects
@pytest.mark.parametrize("bot", ["python3 lowbot.py", "./lowbot.py"])
def test_a_string_command_in_tournament_toml_runs_in_the_files_folder(tmp_path: Path, bot: str) -> None:
    """docs/bots.md: everything that takes a bot, tournaments included, takes ``"./mybot --fast"``;
    docs/protocol.md: in a tournament a command runs in the folder of the tournament.toml. The array
    form does; the string form runs (and is checked) in the folder ``tute run`` was started in."""
    league = tmp_path / "t"
    league.mkdir()
    (league / "lowbot.py").write_text(LOWBOT)
    (league / "lowbot.py").chmod(0o755)
    (league / "tournament.toml").write_text(
        f'name = "s"\ndeals = 1\n[[variants]]\nname = "tute-2"\n'
        f'[[entrants]]\nname = "low"\nbot = "{bot}"\n[[entrants]]\nname = "random"\nbot = "random"\n')
    res = _tute(["run", str(league / "tournament.toml")], tmp_path)
    assert res.returncode == 0, res.stderr


def test_the_scaffold_bot_does_not_bid_every_auction_up_to_the_maximum(tmp_path: Path) -> None:
    """``tute bots new``'s bot is "declares whatever it may, else plays its cheapest legal card", and its
    fallback is commented ``return legal[0]  # "pass"``; in subastado's auction legal[0] is the lowest
    bid, so it raises every turn until 230 and its side fails the contract."""
    res = CliRunner().invoke(cli, ["bots", "new", "qafresh", str(tmp_path / "qafresh")])
    assert res.exit_code == 0, res.output
    sys.path.insert(0, str(tmp_path / "qafresh"))
    try:
        bot_cls = importlib.import_module("tute_bot_qafresh.bot").QafreshBot
    finally:
        sys.path.remove(str(tmp_path / "qafresh"))
        sys.modules.pop("tute_bot_qafresh.bot", None)
        sys.modules.pop("tute_bot_qafresh", None)
    v = get_variant("subastado")
    contracts = []
    for g in range(8):
        players = [bot_cls(), make_player("greedy"), bot_cls(), make_player("greedy")]
        rec = play_game(v, shuffled_deck(v, g), g % 4, players, seed=g)
        contracts.append((rec.result.contract or {}).get("bid"))
    assert contracts.count(v.bid_max) < len(contracts), contracts


def test_a_module_not_found_in_the_current_folder_is_told_about_pythonpath(tmp_path: Path) -> None:
    (tmp_path / "mymodule.py").write_text("from bots.random_bot import RandomBot as MyBot\n")
    res = _tute(["play", "tute-2", "mymodule:MyBot", "greedy", "-n", "1"], tmp_path, env={"PYTHONPATH": ""})
    assert res.returncode == 2
    assert "PYTHONPATH" in res.stderr, res.stderr


def test_a_bare_program_name_is_told_to_write_dot_slash(tmp_path: Path) -> None:
    (tmp_path / "lowbot.py").write_text(LOWBOT)
    (tmp_path / "lowbot.py").chmod(0o755)
    res = _tute(["bots", "check", "lowbot.py", "--deals", "17"], tmp_path)
    assert res.returncode == 2
    assert "./lowbot.py" in res.stderr, res.stderr


def test_python_m_leagues_does_not_search_the_current_folder_either(tmp_path: Path) -> None:
    """docs/bots.md: "the current folder is not searched" for ``module:Class``; tests/test_cli_play.py
    pins it for the ``tute`` script. Under ``python -m leagues`` sys.path[0] is the folder, and the
    bot's child is given the parent's sys.path as PYTHONPATH, so the same bot plays there."""
    (tmp_path / "mymodule.py").write_text("from bots.random_bot import RandomBot as MyBot\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-m", "leagues", "play", "tute-2", "mymodule:MyBot", "greedy", "-n", "1",
                          "--log", str(tmp_path / "play.log")], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 2 and "No module named 'mymodule'" in res.stderr, (res.returncode, res.stdout)
