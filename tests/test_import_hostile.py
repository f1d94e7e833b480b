"""`tute import` of files that do not fit the store they go into: each is one line naming the file and
the line, exit status 2, and the store as it was (or no store, where there was none). The setup is a
small tournament ``mini`` (greedy against random, two variants of tute-2, two deals), its export, and
``tute play --records`` files."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any, Callable

import pytest

from leagues.tournament.packing import pack

from league_util import tute, write_config

#: the variants of mini: tute-2 as it comes, and a stricter one under its own label
VARIANTS = [{"name": "tute-2"}, {"name": "tute-2", "label": "tute-2-strict", "options": {"undertrump_required": True}}]
ENTRANTS = [{"name": "greedy", "bot": "greedy"}, {"name": "random", "bot": "random", "params": {"seed": 1}}]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with mini.sqlite (the tournament run), mini.jsonl (its export) and p.jsonl, q.jsonl
    (``tute play --records`` of greedy against random, seeds 5 and 6)."""
    folder = tmp_path_factory.mktemp("mini")
    write_config(folder, name="mini", seed=3, deals=2, workers=1, store="mini.sqlite", variants=VARIANTS,
                 entrants=ENTRANTS)
    for args in (("run", "--quiet"), ("export", "--store", "mini.sqlite", "--out", "mini.jsonl"),
                 ("play", "tute-2", "greedy", "random", "-n", "3", "--seed", "5", "--records", "p.jsonl"),
                 ("play", "tute-2", "greedy", "random", "-n", "2", "--seed", "6", "--records", "q.jsonl")):
        out = cli(*args, cwd=folder)
        assert out.returncode == 0, out.stderr
    return folder


def dump(store: Path) -> list[str]:
    """Everything a store holds, to compare before and after."""
    with closing(sqlite3.connect(store)) as db:
        return list(db.iterdump())


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in items))
    return path


def refused(capsys: Any, file: Path, store: Path, *expected: str, extra: tuple[str, ...] = ()) -> str:
    """Import ``file`` into ``store``: refused in one line naming what is ``expected``, the store left as
    it was (none, where there was none)."""
    existed = store.exists()
    before = dump(store) if existed else None
    code, out, err = tute(capsys, "import", str(file), "--store", str(store), *extra)
    assert code == 2, (out, err)
    first = err.strip().splitlines()[-1]
    assert first.startswith("tute: error: ") and "Traceback" not in err
    for text in expected:  # in the one line, or, with several bad lines, in their list before it
        assert text in (first if len(err.strip().splitlines()) == 1 else err), (text, err)
    if existed:
        assert dump(store) == before
    else:
        assert not store.exists(), "a refused import into a new store leaves no file"
    return first


def store_copy(mini: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.sqlite"
    shutil.copy(mini / "mini.sqlite", copy)
    return copy


# ---------------------------------------------------------------- 1: a header never overrides the store
def test_a_player_who_is_not_an_entrant_of_the_stored_tournament_is_refused(mini: Path, tmp_path: Path,
                                                                           capsys: Any) -> None:
    header, *games = lines_of(mini / "mini.jsonl")
    game = games[0]
    game["seats"] = ["rnd" if s == "random" else s for s in game["seats"]]
    game["schedule"]["units"] = ["rnd" if s == "random" else s for s in game["schedule"]["units"]]
    # the header renamed the same way: it says another config than the stored tournament's
    renamed = json.loads(json.dumps(header).replace('"random"', '"rnd"'))
    store = store_copy(mini, tmp_path)
    refused(capsys, write(tmp_path / "h.jsonl", [renamed, game]), store,
            "h.jsonl:1: tournament header: config differs from stored tournament 'mini'")
    # the header as stored, the game's player renamed
    refused(capsys, write(tmp_path / "g.jsonl", [header, game]), store,
            "g.jsonl:2: players 'rnd': not entrants of stored tournament 'mini'")
    # no header at all
    refused(capsys, write(tmp_path / "n.jsonl", [game]), store,
            "n.jsonl:1: players 'rnd': not entrants of stored tournament 'mini'", "-t NAME")


def test_games_under_other_rules_are_refused_into_a_stored_tournament_and_a_new_one(mini: Path, tmp_path: Path,
                                                                                   capsys: Any) -> None:
    header, *games = lines_of(mini / "mini.jsonl")
    game = next(g for g in games if g["schedule"]["variant"] == "tute-2")
    out = cli("play", "tute-2", "greedy", "random", "-n", "1", "--seed", "9", "-o", "undertrump_required=true",
              "-o", "last_trick_bonus=0", "--records", str(tmp_path / "other.jsonl"))
    assert out.returncode == 0, out.stderr
    other = lines_of(tmp_path / "other.jsonl")[0]
    other["seats"] = game["seats"]
    other["schedule"] = dict(game["schedule"], deal=7)
    other["id"] = "mini/tute-2/r1/t0/d7/s0"
    bad = write(tmp_path / "bad.jsonl", [header, other])
    why = "bad.jsonl:2: rules differ from variant tute-2 of "
    refused(capsys, bad, store_copy(mini, tmp_path), why + "stored tournament 'mini'", "undertrump_required = true")
    refused(capsys, bad, tmp_path / "new.sqlite", why + "tournament 'mini'", "last_trick_bonus = 0")
    # without a header, into a tournament made from the games: its first game fixes the label's rules
    plain = lines_of(mini / "p.jsonl")
    refused(capsys, write(tmp_path / "mixed.jsonl", [plain[0], lines_of(tmp_path / "other.jsonl")[0]]),
            tmp_path / "new.sqlite", "mixed.jsonl:2: rules differ from variant tute-2 of tournament 'imported'")


def test_a_header_label_the_stored_tournament_lacks_is_refused(mini: Path, tmp_path: Path, capsys: Any) -> None:
    header, *games = lines_of(mini / "mini.jsonl")
    wider = json.loads(json.dumps(header))
    wider["config"]["variants"].append({"label": "tute-4-pairs", "preset": "tute-4-pairs", "options": {}})
    game = dict(games[0], schedule=dict(games[0]["schedule"], variant="tute-4-pairs", variant_index=2, deal=9),
                id="mini/tute-4-pairs/r1/t0/d9/s0")
    refused(capsys, write(tmp_path / "w.jsonl", [wider, game]), store_copy(mini, tmp_path),
            "w.jsonl:1: tournament header: config differs from stored tournament 'mini'")
    # into a new store the header is the tournament: a tute-2 record is not a game of its tute-4-pairs
    refused(capsys, write(tmp_path / "w.jsonl", [wider, game]), tmp_path / "new.sqlite",
            "w.jsonl:2: rules differ from variant tute-4-pairs of tournament 'mini'",
            "the record plays tute-2, the variant is tute-4-pairs")
    # a label the stored tournament lacks, without a header
    refused(capsys, write(tmp_path / "n.jsonl", [game]), store_copy(mini, tmp_path),
            "n.jsonl:1: schedule.variant: 'tute-4-pairs' is not a variant of tournament 'mini'")


def test_a_second_header_and_a_game_in_a_taken_place_are_refused(mini: Path, tmp_path: Path, capsys: Any) -> None:
    header, *games = lines_of(mini / "mini.jsonl")
    refused(capsys, write(tmp_path / "two.jsonl", [header, games[0], header, games[1]]), tmp_path / "new.sqlite",
            "two.jsonl:3: tournament header: a second header for tournament 'mini' (the first is line 1)")
    # another id in the place of an earlier game: the tables could not fold the two in an order
    moved = dict(games[1], schedule=games[0]["schedule"], id="mini/tute-2/r1/t0/d0/s9")
    refused(capsys, write(tmp_path / "moved.jsonl", [header, games[0], moved]), tmp_path / "new.sqlite",
            "moved.jsonl:3: schedule: round 1, variant 0, table 0, deal 0, rotation 0 of tournament 'mini' is "
            "taken by line 2")
    refused(capsys, write(tmp_path / "moved.jsonl", [moved]), store_copy(mini, tmp_path),
            "moved.jsonl:1: schedule:", "is taken by game mini/tute-2/r1/t0/d0/s0 of the store")
    # a label's number is its place in the config
    strict = next(g for g in games if g["schedule"]["variant"] == "tute-2-strict")
    renumbered = dict(strict, schedule=dict(strict["schedule"], variant_index=0))
    refused(capsys, write(tmp_path / "n.jsonl", [header, renumbered]), tmp_path / "new.sqlite",
            "n.jsonl:2: schedule.variant_index: 0, but variant tute-2-strict is number 1 of tournament 'mini'")


# ------------------------------------------------- 2: two `tute play --records` files into one store
def test_two_plain_record_files_go_into_one_tournament(mini: Path, tmp_path: Path, capsys: Any) -> None:
    store = tmp_path / "pq.sqlite"
    for name in ("p.jsonl", "q.jsonl"):
        code, out, err = tute(capsys, "import", str(mini / name), "--store", str(store))
        assert code == 0, err
    code, out, err = tute(capsys, "verify", "--store", str(store))
    assert code == 0 and "verified 5 games: 5 true, 0 wrong" in out and "tables agree" in out, out + err
    code, out, err = tute(capsys, "leaderboard", "--store", str(store))
    assert code == 0 and all(" 5 " in line for line in out.splitlines() if line.startswith(("1 ", "2 "))), out
    # the same file again, skipped game by game
    code, out, err = tute(capsys, "import", str(mini / "q.jsonl"), "--store", str(store), "--skip-existing")
    assert code == 0 and "imported 0 games" in out and "2 already stored skipped" in out, out + err


# --------------------------------------------------------- 3: a label that does not fit the record
def test_a_label_of_other_seats_is_refused_not_a_traceback(mini: Path, tmp_path: Path, capsys: Any) -> None:
    header, *games = lines_of(mini / "mini.jsonl")
    pairs = json.loads(json.dumps(header))
    pairs["config"]["variants"][1] = {"label": "tute-2-strict", "preset": "tute-4-pairs", "options": {}}
    refused(capsys, write(tmp_path / "p.jsonl", [pairs, *games]), tmp_path / "new.sqlite",
            "rules differ from variant tute-2-strict of tournament 'mini'", "the variant is tute-4-pairs")


# ------------------------------------------------------------------ 4: a byte that is not UTF-8
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_byte_that_is_not_utf8_is_named_on_its_line(mini: Path, tmp_path: Path, capsys: Any, suffix: str) -> None:
    text = (mini / "mini.jsonl").read_bytes().splitlines()
    assert sum(map(len, text[:7])) > 8192, "the bad line must lie a chunk past the first"
    text[7] = text[7].replace(b'"greedy"', b'"gr\xffedy"', 1)
    path = tmp_path / f"bad{suffix}"
    data = b"\n".join(text) + b"\n"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    refused(capsys, path, tmp_path / "new.sqlite", f"{path}:8: not UTF-8 text (invalid start byte at column")


# ------------------------------------------------ 5: the whole result is the referee's, winner included
@pytest.mark.parametrize("winner", [[1], "x", None, [0, 1]])
def test_a_wrong_winner_is_refused(mini: Path, tmp_path: Path, capsys: Any, winner: Any) -> None:
    game = lines_of(mini / "p.jsonl")[0]
    assert game["result"]["winner"] == [0]
    if winner is None:
        del game["result"]["winner"]
    else:
        game["result"]["winner"] = winner
    refused(capsys, write(tmp_path / "w.jsonl", [game]), tmp_path / "new.sqlite",
            "w.jsonl:1: the record is not true to the rules", "result.winner")


def test_a_result_field_the_referee_does_not_give_is_refused(mini: Path, tmp_path: Path, capsys: Any) -> None:
    game = lines_of(mini / "p.jsonl")[0]
    game["result"]["tute"] = {}  # read as no Tute, yet stored and exported as it stands
    refused(capsys, write(tmp_path / "w.jsonl", [game]), tmp_path / "new.sqlite",
            "w.jsonl:1: the record is not true to the rules", "result.tute: recorded {}, the referee says null")
    game = lines_of(mini / "p.jsonl")[0]
    game["result"]["contract"] = None  # a field of subastado's: tute-2's referee gives none
    refused(capsys, write(tmp_path / "w.jsonl", [game]), tmp_path / "new.sqlite",
            "w.jsonl:1: the record is not true to the rules", "result.contract: recorded null, the referee gives none")
    game = lines_of(mini / "p.jsonl")[0]
    game["result"]["comment"] = "a later version's field"  # kept, as readers keep fields they do not know
    code, out, err = tute(capsys, "import", str(write(tmp_path / "c.jsonl", [game])), "--store",
                          str(tmp_path / "new.sqlite"))
    assert code == 0, err


def test_verify_judges_a_stored_winner(mini: Path, tmp_path: Path, capsys: Any) -> None:
    store = store_copy(mini, tmp_path)
    with closing(sqlite3.connect(store)) as db, db:
        gid, = db.execute("SELECT id FROM games LIMIT 1").fetchone()
        header, *games = lines_of(mini / "mini.jsonl")
        data = next(g for g in games if g["id"] == gid)
        del data["schedule"]
        data["result"]["winner"] = [1 - data["result"]["winner"][0]]
        db.execute("UPDATE games SET record = ? WHERE id = ?", (pack(json.dumps(data)), gid))
    code, out, err = tute(capsys, "verify", "--store", str(store))
    assert code == 1 and f"{gid}:" in out and "result.winner" in out and "1 wrong" in out, out + err


# ---------------------------------------------------------------------------------------- 6: matches
@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of a tournament of matches (tute-2, first to 2 won deals)."""
    folder = tmp_path_factory.mktemp("matches")
    write_config(folder, name="mt", deals=1, workers=1, variants=[{"name": "tute-2", "unit": "match",
                                                                   "match": "first_to:2"}], entrants=ENTRANTS)
    for args in (("run", "--quiet"), ("export", "--out", "mt.jsonl")):
        out = cli(*args, cwd=folder)
        assert out.returncode == 0, out.stderr
    return folder / "mt.jsonl"


def habanero(match: dict[str, Any]) -> None:
    match["variant"] = "habanero"


def other_seed(match: dict[str, Any]) -> None:
    match["seed"] += 1


@pytest.mark.parametrize("tamper, message", [
    (lambda m: m.update(seed=str(m["seed"])), "seed: expected null or an integer"),
    (lambda m: m.update(seed=True), "seed: expected null or an integer"),
    (other_seed, "deals[0]: seed"),
    (habanero, "deals[0]: plays tute-2 with other options than the match's habanero"),
    (lambda m: m.update(variant="tute-9"), "variant: not a known variant"),
    (lambda m: m.update(first_dealer=True), "first_dealer: expected a seat"),
    (lambda m: m["result"].update(winner=[1 - m["result"]["winner"][0]]), "result.winner"),
    (lambda m: m["match"].update(target=True), "match.target: expected an integer, got True"),
])
def test_a_match_of_another_variant_or_seed_than_its_deals_is_refused(
        matches: Path, tmp_path: Path, capsys: Any, tamper: Callable[[dict[str, Any]], None], message: str) -> None:
    code, out, err = tute(capsys, "import", str(matches), "--store", str(tmp_path / "sound.sqlite"))
    assert code == 0, err  # as exported, it imports
    header, match, *rest = lines_of(matches)
    assert match["format"] == "tute-arena-match/1"
    tamper(match)
    refused(capsys, write(tmp_path / "m.jsonl", [header, match, *rest]), tmp_path / "new.sqlite", "m.jsonl:2:",
            message)


# ------------------------------------------------------------- 7: fields refused, never coerced
@pytest.mark.parametrize("key, value, message", [
    ("round", 1.7, "schedule.round: must be an integer in [0, 2^63), not 1.7"),
    ("deal", True, "schedule.deal: must be an integer in [0, 2^63), not True"),
    ("units", "greedy", "schedule.units: must be a list of entrant names, not 'greedy'"),
    ("tournament", 7, "schedule.tournament: must be a string, not 7"),
    ("variant", None, "schedule.variant: must be a string, not None"),
    ("rotation", ..., "schedule.rotation: missing"),
])
def test_schedule_fields_are_refused_not_coerced(mini: Path, tmp_path: Path, capsys: Any, key: str, value: Any,
                                                 message: str) -> None:
    header, game, *rest = lines_of(mini / "mini.jsonl")
    if value is ...:
        del game["schedule"][key]
    else:
        game["schedule"][key] = value
    refused(capsys, write(tmp_path / "s.jsonl", [header, game, *rest]), tmp_path / "new.sqlite",
            f"s.jsonl:2: {message}")


def test_a_schedule_that_is_not_an_object_and_a_later_format_are_refused(mini: Path, tmp_path: Path,
                                                                        capsys: Any) -> None:
    header, game, *rest = lines_of(mini / "mini.jsonl")
    refused(capsys, write(tmp_path / "s.jsonl", [header, dict(game, schedule=5), *rest]), tmp_path / "new.sqlite",
            "s.jsonl:2: schedule: expected an object, got 5")
    refused(capsys, write(tmp_path / "f.jsonl", [header, dict(game, format="tute-arena/99"), *rest]),
            tmp_path / "new.sqlite", "f.jsonl:2: not a game record", "format: expected 'tute-arena/1'")


def test_an_import_waiting_for_the_store_lock_says_so_once(mini: Path, tmp_path: Path) -> None:
    store = store_copy(mini, tmp_path)
    db = sqlite3.connect(store, isolation_level=None, check_same_thread=False)
    db.execute("BEGIN IMMEDIATE")  # another writer holds the store
    release = threading.Timer(2.0, lambda: db.execute("ROLLBACK"))
    release.start()
    try:
        started = time.monotonic()
        out = cli("import", str(mini / "p.jsonl"), "--store", str(store))
    finally:
        release.join()
        db.close()
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("waiting for the store's lock") == 1, out.stderr
    assert time.monotonic() - started >= 2.0


def test_an_import_into_a_tournament_being_run_is_refused(mini: Path, tmp_path: Path, capsys: Any) -> None:
    """``tute import`` beside a ``tute run`` of the same tournament: the run played the imported games
    again, folded its own copies into the tables (a bot that plays otherwise made them disagree with
    the games stored) and counted them as its own. The import holds the run's lock now, as a second
    run would, and is refused while a run holds it."""
    store = tmp_path / "copy.sqlite"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from leagues.tournament.lock import RunLock\n"
         "with RunLock(Path(sys.argv[1]), 'mini'):\n    print('held', flush=True); time.sleep(60)", str(store)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused(capsys, mini / "mini.jsonl", store,
                f"tournament 'mini' is being run by another tute (pid {holder.pid}): import its games when the "
                "run ends")
    finally:
        holder.kill()
        holder.wait()
    code, out, err = tute(capsys, "import", str(mini / "mini.jsonl"), "--store", str(store))
    assert code == 0, err
    assert dump(store) != [] and "mini" in "".join(dump(store))
