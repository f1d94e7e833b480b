"""Review of 5919b79..93381ef"""

from __future__ import annotations

import sys
import textwrap
import time
from importlib import metadata
from pathlib import Path


from arena import get_variant, play_game, replay, shuffled_deck
from arena.hosting import make_player
from leagues.league.league import League, init_league
from leagues.tournament.forfeits import first_line

PY = sys.executable

#: a protocol bot that plays at random and crashes (status 1) in its game_over handler
CRASHES_AFTER_GAME_OVER = textwrap.dedent("""\
    import json, random, sys
    out = sys.stdout.buffer
    def send(m):
        out.write(json.dumps(m).encode() + b"\\n"); out.flush()
    send({"type": "hello", "name": "qa"})
    rng = random.Random(0)
    for raw in sys.stdin.buffer:
        m = json.loads(raw)
        if m["type"] == "new_game":
            rng = random.Random(m["seed"])
        elif m["type"] == "act":
            send({"action": rng.choice(m["legal"])})
        elif m["type"] == "game_over":
            sys.exit(1)
        elif m["type"] == "quit":
            break
    """)


def test_a_dealer_who_sits_out_does_not_forfeit_the_deal_it_does_not_play(tmp_path: Path) -> None:
    """cabrero-5: the bot plays deal 0 and crashes in its game_over handler; deal 1 it deals and sits
    out. Before the change it was started again for deal 1 (it plays no card there) and the deal was
    played; now new_game forfeits deal 1 by the seat sitting out: no card is played, the four others
    share a deal they never played (a draw in their ratings), and the forfeit counts in no table's
    forfeits column (the sitting-out side is not in play). Found gone a moment later instead (alive at
    new_game), the crash lands on deal 2: which deal is voided depends on timing."""
    path = tmp_path / "crashes.py"
    path.write_text(CRASHES_AFTER_GAME_OVER)
    v = get_variant("cabrero-5")
    player = make_player([PY, str(path)], time_limit_ms=1000)
    try:
        first = play_game(v, shuffled_deck(v, 0), 1, [player] + [make_player("random") for _ in range(4)], seed=0)
        assert first.result.forfeit is None and first.result.sit_out == 1
        deadline = time.monotonic() + 20
        while player.alive and time.monotonic() < deadline:  # its crash, seen: not a race
            time.sleep(0.01)
        assert not player.alive
        rec = play_game(v, shuffled_deck(v, 1), 0, [player] + [make_player("random") for _ in range(4)], seed=1)
        replay(rec)
    finally:
        player.close()
    r = rec.result
    assert r.sit_out == 0
    assert r.forfeit is None or r.forfeit.seat != r.sit_out, (r.forfeit, len(rec.actions))


# ------------------------------------------------------------------------------ first_line's error line
NODE_ERROR = ("exited with status 1 while its move answer was awaited; stderr: /home/a/bot.js:53\n"
              "    throw new Error(\"no card to play\");\n"
              "    ^\n\n"
              "Error: no card to play\n"
              "    at Interface.<anonymous> (/home/a/bot.js:53:11)\n"
              "    at Interface.emit (node:events:517:28)\n\n"
              "Node.js v18.19.1")


def test_a_node_plain_error_is_summarised_by_its_error_line() -> None:
    """``_ERROR_LINE`` needs a word before Error/Exception (``TypeError``, ``RangeError``), so Node's
    ``throw new Error(...)``, whose line is ``Error: ...``, still shows the stack's first line."""
    line = first_line(NODE_ERROR)
    assert "Error: no card to play" in line, line


def test_a_node_type_error_is_summarised_by_its_error_line() -> None:
    """The case the change's own test covers, pinned beside the plain Error above."""
    line = first_line(NODE_ERROR.replace("Error: no card", "TypeError: no card"))
    assert line.endswith("stderr: TypeError: no card to play"), line


# ------------------------------------------------------------------------------ clocked warning wording
def test_a_league_names_its_own_file_for_the_move_limit(tmp_path: Path) -> None:
    """The clocked games' warning of a league's season named 'time_limit_ms in the tournament's file': the
    setting was guessed from the config's source, which for a season is '<store>: season N's
    league.toml', and for ``tute league -l spring.toml`` another name. A league now says its own file,
    and passes it to the run (``run_tournament(limit_setting=...)``)."""
    import inspect

    path = init_league(tmp_path / "lg")
    other = path.with_name("spring.toml")
    other.write_text(path.read_text())
    for file in (path, other):
        with League.open(file) as lg:
            assert lg.limit_setting == f"time_limit_ms in {file.name}", lg.limit_setting
    assert "limit_setting=self.limit_setting" in inspect.getsource(League._play_season)


# ------------------------------------------------------------------------------ packaging
def test_the_installed_metadata_still_says_the_licence() -> None:
    """Dropping project.license (whose two forms each break some setuptools: pyproject.toml says why)
    must still ship the licence: the metadata names the LICENSE file, which is MIT's text. (A classifier
    was tried: setuptools 77+ warns that licence classifiers are deprecated.)"""
    md = metadata.metadata("tute-arena")
    assert md.get_all("License-File") == ["LICENSE"], dict(md)
    text = (Path(__file__).resolve().parents[1] / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


# ------------------------------------------------------------------------------ the league report's limit
def test_the_league_report_words_a_season_by_its_own_points_limit(tmp_path: Path) -> None:
    """``_season_variants`` keeps one variant per label, the last season's overwriting the others: a league
    whose cabrón limit went from 100 (season 1) to 80 (season 2) reports season 1's losses as 'over 80
    points', while ``tute games`` (each tournament's stored variant) says 100."""
    import re

    from leagues.league.report import write_report

    path = init_league(tmp_path / "lg")
    text = path.read_text().replace("deals = 50 ", "deals = 2 ").replace("workers = 0 ", "workers = 1 ")
    text = re.sub(r"(?m)^seed = \d+", "seed = 1", text)  # init draws one: these games, every time
    text = text.replace("deals = 40", "deals = 6").replace(
        'name = "tute-2"\n', 'name = "cabron"\nlabel = "cab"\noptions = { over_points_loses = 100 }\n')
    path.write_text(text)
    with League.open(path) as lg:
        for i in range(3):
            lg.submit(f"r{i}", "random", params={"seed": i})
        lg.play_season(workers=1, quiet=True)
    path.write_text(text.replace("over_points_loses = 100", "over_points_loses = 80"))
    with League.open(path) as lg:
        lg.play_season(workers=1, quiet=True)
        write_report(lg, tmp_path / "report", replays=0)
    rows = [row for page in (tmp_path / "report" / "pairs").glob("*.html")
            for row in re.findall(r"<tr>(.*?)</tr>", page.read_text(), re.S)]
    first = [row for row in rows if "/s1/" in row and "loses: over" in row]
    assert first, "season 1 has a loss over the limit (random bots, these seeds)"
    assert all("over 100 points" in row for row in first), first[0]
