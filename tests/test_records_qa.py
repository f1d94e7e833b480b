"""QA pass over game records, replay, verify, export/import, the replay page and the commands' bad
arguments: games of every preset replayed against their records, hostile record lines, a hostile bot's
words on the terminal, and paths and values the commands must refuse in one line (exit 2).

The tests of the defects this pass found (each seen failing before its fix) and of the behaviour it
checked and found correct that no other test covers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from arena import GameRecord, get_variant, play_game, shuffled_deck
from arena.record import replay_steps
from arena.state import GameState
from arena.variants import VARIANTS
from bots.random_bot import RandomBot
from leagues.records.timeline import frames
from leagues.records.wording import Words, result_text

CARD = re.compile(r"\b(?:1[0-2]|[1-7])[oceb]\b")


def tute(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def one_line_error(out: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, one ``tute: error:`` line on stderr holding every needle, no traceback."""
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and "Traceback" not in out.stderr, (out.returncode, out.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("tute: error: "), out.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def players_of(variant: str) -> int:
    v = VARIANTS[variant]
    return 2 if v.pairs else v.players


def deal(variant: str, seed: int) -> GameRecord:
    v = get_variant(variant)
    return play_game(v, shuffled_deck(v, seed), seed % v.players, [RandomBot(seed=seed * 7 + s) for s in range(v.players)],
                     game_id=f"qa/{variant}/{seed}", seed=seed, names=[f"b{s}" for s in range(v.players)])


@pytest.fixture(scope="module")
def every_preset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tute play`` records of every preset (greedy and random alternating), one file each."""
    folder = tmp_path_factory.mktemp("presets")
    for name in VARIANTS:
        bots = (["greedy", "random"] * 3)[:players_of(name)]
        out = tute(folder, "play", name, *bots, "-n", "2", "--seed", "5", "--records", f"{name}.jsonl",
                   "--log", f"{name}.log")
        assert out.returncode == 0, (name, out.stderr)
    return folder


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding four tute-2 games of greedy and random, imported from their records."""
    folder = tmp_path_factory.mktemp("store")
    assert tute(folder, "play", "tute-2", "greedy", "random", "-n", "4", "--seed", "3", "--records", "r.jsonl",
                "--log", "r.log").returncode == 0
    assert tute(folder, "import", "r.jsonl", "--store", "s.sqlite").returncode == 0
    return folder


# ------------------------------------------------------------------ 1 every preset, replayed and checked
VERBS = {"sing": "sings the", "bid": "bids", "exchange": "exchanges", "tute": "declares Tute", "trump": "names"}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_preset_replays_card_by_card_as_its_record_says(every_preset: Path, variant: str) -> None:
    """The text replay of each ``tute play`` record lists every decision of the record, in order, under
    the seat that made it; one trick line per trick with the referee's winner; the result last."""
    path = every_preset / f"{variant}.jsonl"
    for index, line in enumerate(path.read_text().splitlines()):
        rec = GameRecord.loads(line)
        out = tute(every_preset, "replay", "--file", path.name, "--index", str(index))
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0] == f"game {rec.id}"
        labels = Words.of(rec.seats).labels
        plays = [ln.strip() for ln in lines if " plays " in ln]
        want = [f"{labels[s]} plays {a.split()[1]}" for s, a in rec.actions if a.startswith("play ")]
        assert plays == want
        final = list(replay_steps(rec))[-1][1]
        tricks = [ln.strip() for ln in lines if re.match(r"\s+trick \d+: ", ln)]
        assert [t.split(" wins it")[0] for t in tricks] == \
            [f"trick {k + 1}: {labels[w]}" for k, (_, _, w) in enumerate(final.tricks)]
        for s, a in rec.actions:
            verb = VERBS.get(a.split()[0])
            if verb:
                assert any(ln.strip().startswith(f"{labels[s]} {verb}") for ln in lines), a
        assert lines[-1].strip().startswith("result: ")


@pytest.fixture(scope="module")
def preset_store(every_preset: Path) -> Path:
    """Each preset's records imported as its own tournament ``qa-PRESET`` of one store."""
    for name in sorted(VARIANTS):
        out = tute(every_preset, "import", f"{name}.jsonl", "-t", f"qa-{name}", "--store", "a.sqlite")
        assert out.returncode == 0, out.stderr
    return every_preset / "a.sqlite"


def test_every_preset_is_imported_verified_and_listed_a_line_a_game(preset_store: Path) -> None:
    games = 2 * len(VARIANTS)
    out = tute(preset_store.parent, "verify", "--store", preset_store.name)
    assert out.returncode == 0 and f"verified {games} games: {games} true, 0 wrong" in out.stdout, out.stdout
    listed = tute(preset_store.parent, "games", "--store", preset_store.name, "-n", "0")
    assert len([ln for ln in listed.stdout.splitlines() if ln.startswith("qa-")]) == games


@pytest.mark.parametrize("variant", ["tute-2", "tute-4-pairs", "subastado", "tute-3", "cabrero-6"])
def test_an_export_of_imported_play_records_imports_again_byte_for_byte(preset_store: Path, tmp_path: Path,
                                                                       variant: str) -> None:
    """``tute play`` records, imported, exported, imported into another store and exported again: the
    same bytes. (Three or more seats of two bots make a tournament of two entrants at tables of three.)"""
    out = tute(tmp_path, "export", "--store", str(preset_store), "-t", f"qa-{variant}", "--out", "a.jsonl")
    assert out.returncode == 0, out.stderr
    out = tute(tmp_path, "import", "a.jsonl", "--store", "b.sqlite")
    assert out.returncode == 0, out.stderr
    assert tute(tmp_path, "export", "--store", "b.sqlite", "--out", "b.jsonl").returncode == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_card_that_enters_or_leaves_a_hand_is_told(variant: str) -> None:
    """Frame by frame (what the text replay and the page both show), a card that leaves a hand was
    played or exchanged, a card that enters one was drawn, taken face up or exchanged for, and the
    events say which; the pile shrinks only with a draw said."""
    for seed in range(12):
        rec = deal(variant, seed)
        fr = frames(rec)
        for a, b in zip(fr, fr[1:]):
            said = CARD.findall(" ".join(b.events))
            for s in range(len(rec.seats)):
                moved = set(a.hands[s] or []) ^ set(b.hands[s] or [])
                assert moved <= set(said), (seed, b.index, s, moved, b.events)
            if a.stock_left != b.stock_left:
                assert any(" draws " in e or " takes the face-up " in e for e in b.events), (seed, b.index, b.events)


@pytest.mark.parametrize("variant", ["tute-2", "habanero", "tute-2-8"])
def test_the_text_replay_says_every_draw_of_the_pile(tmp_path: Path, variant: str) -> None:
    """Played to the end, every card of the pile and the face-up card are drawn: one line each."""
    assert tute(tmp_path, "play", variant, "greedy", "random", "-n", "4", "--seed", "1", "--records", "r.jsonl",
                "--log", "r.log").returncode == 0
    for index, line in enumerate((tmp_path / "r.jsonl").read_text().splitlines()):
        rec = GameRecord.loads(line)
        if rec.result.reason != "points":
            continue
        out = tute(tmp_path, "replay", "--file", "r.jsonl", "--index", str(index))
        draws = [ln for ln in out.stdout.splitlines() if " draws " in ln or " takes the face-up " in ln]
        assert len(draws) == len(rec.stock) + 1, (index, len(draws), len(rec.stock))


# ------------------------------------------------------------------------- 2 a replay's result in words
def test_a_forfeit_in_cabrero_5_does_not_seat_the_dealer_who_sat_out_among_the_winners() -> None:
    """The dealer who sat the deal out played nothing: a forfeit's sentence (as every other cabrero-5
    result's) says it sat out, and does not name it among those sharing first place."""
    v = get_variant("cabrero-5")
    st = GameState.new(v, shuffled_deck(v, 2), 0)
    st.forfeit(1, "crash", "boom")
    rec = GameRecord.from_state(st, game_id="qa/c5", seed=2, seats=[f"b{s}" for s in range(5)])
    assert rec.result.sit_out == 0
    text = result_text(rec.result, rec.teams, Words.of(rec.seats), v.over_points_loses)
    assert text.startswith("b1 forfeits") and text.endswith("b0 sat out"), text
    assert "b0," not in text and "b0 and" not in text, text


# ---------------------------------------------------------------------------- 3 hostile record lines
def first_line(store: Path) -> dict[str, Any]:
    return json.loads((store / "r.jsonl").read_text().splitlines()[0])


def forfeit_at_start(seed: int = 1) -> dict[str, Any]:
    """A tute-2 deal that seat 1 forfeited before any action (a bot that crashed in new_game)."""
    v = get_variant("tute-2")
    st = GameState.new(v, shuffled_deck(v, seed), 0)
    st.forfeit(1, "crash", "new_game raised RuntimeError('x')")
    return json.loads(GameRecord.from_state(st, game_id="qa/ff", seed=seed, seats=["b0", "b1"]).dumps())


def refused_everywhere(folder: Path, text: str, *needles: str) -> None:
    """``text`` as a records file: ``tute replay --file`` and ``tute import`` each refuse it in one line
    naming the file and line 1, and the import leaves no store behind."""
    path = folder / "bad.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    one_line_error(tute(folder, "replay", "--file", "bad.jsonl"), "bad.jsonl:1:", *needles)
    one_line_error(tute(folder, "import", "bad.jsonl", "--store", "new.sqlite"), "bad.jsonl:1:", *needles)
    assert not (folder / "new.sqlite").exists()


def _deck(change: Callable[[list[str]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        change(d["deck"])
    return edit


HOSTILE_LINES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "deck with a card twice": (_deck(lambda k: k.__setitem__(0, k[1])), "not a permutation"),
    "deck one card short": (_deck(lambda k: k.pop()), "not a permutation"),
    "deck one card long": (_deck(lambda k: k.append("1o")), "not a permutation"),
    "two actions swapped": (lambda d: d["actions"].insert(0, d["actions"].pop(1)), "out of turn"),
    "an action after the end": (lambda d: d["actions"].append([0, "play 1o"]), "after the deal ended"),
    "an escape in an action": (lambda d: d["actions"][0].__setitem__(1, d["actions"][0][1] + "\x1b[2J"),
                               "is illegal"),
    "an unknown variant": (lambda d: d.update(variant="tute-9"), "variant: not a known variant"),
    "a seat name with a newline": (lambda d: d["seats"].__setitem__(0, "a\nb"), "seats[0]"),
}


@pytest.mark.parametrize("case", HOSTILE_LINES)
def test_a_hostile_record_line_is_one_line_for_replay_and_import(store: Path, tmp_path: Path, case: str) -> None:
    data = first_line(store)
    change, needle = HOSTILE_LINES[case]
    change(data)
    refused_everywhere(tmp_path, json.dumps(data) + "\n", needle)


@pytest.mark.parametrize("text, needle", [
    ("[1, 2]\n", "a game record is a JSON object"),
    ("null\n", "a game record is a JSON object"),
    ('{"dealer": ' + "9" * 5000 + "}\n", "4300 digits"),
    ("\ufeff{}\n", "BOM"),  # a records file is JSON lines, and a byte-order mark is not JSON
])
def test_lines_that_are_no_record_are_named(tmp_path: Path, text: str, needle: str) -> None:
    refused_everywhere(tmp_path, text, needle)


def test_a_records_file_with_crlf_line_ends_reads_as_the_same_records(store: Path, tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes((store / "r.jsonl").read_bytes().replace(b"\n", b"\r\n"))
    plain = tute(store, "replay", "--file", "r.jsonl", "--index", "2")
    assert tute(tmp_path, "replay", "--file", "crlf.jsonl", "--index", "2").stdout == plain.stdout != ""
    assert tute(tmp_path, "import", "crlf.jsonl", "--store", "c.sqlite").returncode == 0
    assert tute(tmp_path, "verify", "--store", "c.sqlite").returncode == 0


FORFEIT_FIELDS: dict[str, Callable[[dict[str, Any]], None]] = {
    "seat 99": lambda f: f.update(seat=99),  # a traceback (IndexError in GameState.forfeit)
    "seat -1": lambda f: f.update(seat=-1),
    "seat true": lambda f: f.update(seat=True),
    "reason 5": lambda f: f.update(reason=5),
    "reason not one of the four": lambda f: f.update(reason="bogus"),
    "detail a list": lambda f: f.update(detail=[1]),
    "detail a number": lambda f: f.update(detail=5),
}


@pytest.mark.parametrize("case", FORFEIT_FIELDS)
def test_a_forfeit_of_no_seat_or_reason_is_refused_by_name(tmp_path: Path, case: str) -> None:
    data = forfeit_at_start()
    FORFEIT_FIELDS[case](data["result"]["forfeit"])
    refused_everywhere(tmp_path, json.dumps(data) + "\n", "result.forfeit")


def test_a_true_forfeit_before_any_action_replays_and_imports(tmp_path: Path) -> None:
    (tmp_path / "ff.jsonl").write_text(json.dumps(forfeit_at_start()) + "\n")
    out = tute(tmp_path, "replay", "--file", "ff.jsonl")
    assert out.returncode == 0 and out.stdout.splitlines()[-1].startswith("result: b1 forfeits (a crash: ")
    assert tute(tmp_path, "import", "ff.jsonl", "--store", "s.sqlite").returncode == 0
    assert tute(tmp_path, "verify", "--store", "s.sqlite").returncode == 0


@pytest.mark.parametrize("option, value", [("forty_first", "yes"), ("exchange_seven", 1), ("hand_size", 6.0)])
def test_a_rule_option_of_the_wrong_type_is_refused_by_name(store: Path, tmp_path: Path, option: str,
                                                            value: Any) -> None:
    data = first_line(store)
    data["options"][option] = value
    refused_everywhere(tmp_path, json.dumps(data) + "\n", option)


@pytest.mark.parametrize("where", ["top", "result"])
def test_nan_and_infinity_never_reach_an_export(store: Path, tmp_path: Path, where: str) -> None:
    line = (store / "r.jsonl").read_text().splitlines()[0]
    line = line[:-1] + ',"note":NaN,"big":1e999}' if where == "top" else \
        line.replace('"result":{', '"result":{"later":-Infinity,', 1)
    (tmp_path / "nan.jsonl").write_text(line + "\n")
    out = tute(tmp_path, "import", "nan.jsonl", "--store", "n.sqlite")
    if out.returncode == 2:  # refused, naming the line: fine
        one_line_error(out, "nan.jsonl:1:")
        return
    exported = tute(tmp_path, "export", "--store", "n.sqlite").stdout

    def strict(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")
    for text in exported.splitlines():
        json.loads(text, parse_constant=strict)


# ------------------------------------------------------------------- 4 a bot's words on the terminal
HOSTILE_STDERR = "\x1b[2J\x1b]0;owned\x07first line\nsecond line\n"


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Records and a store of deals forfeited by a command bot that writes terminal escapes and two lines
    to stderr, then exits, at its first decision."""
    folder = tmp_path_factory.mktemp("crashed")
    (folder / "bot.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg.get('type') == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'name': 'x'}), flush=True)\n"
        "    elif msg.get('type') == 'act':\n"
        f"        sys.stderr.write({HOSTILE_STDERR!r}); sys.stderr.flush(); sys.exit(1)\n")
    out = tute(folder, "--color", "never", "play", "tute-2", "greedy", f"{sys.executable} bot.py", "-n", "2",
               "--records", "r.jsonl", "--log", "r.log")
    assert out.returncode == 3, out.stderr  # every deal forfeited
    (folder / "play.out").write_text(out.stdout + out.stderr)
    assert tute(folder, "import", "r.jsonl", "--store", "s.sqlite").returncode == 0
    return folder


@pytest.mark.parametrize("command", [("replay", "--file", "r.jsonl"), ("games", "--store", "s.sqlite"), ("play",)])
def test_a_bots_escape_sequences_never_reach_the_terminal(crashed: Path, command: tuple[str, ...]) -> None:
    if command == ("play",):
        text = (crashed / "play.out").read_text()
    else:
        out = tute(crashed, "--color", "never", *command)
        assert out.returncode == 0, out.stderr
        text = out.stdout
    assert "first line" in text
    assert "\x1b" not in text and "\x07" not in text, repr(text)


def test_games_lists_a_game_a_line_whatever_its_forfeit_detail(crashed: Path) -> None:
    out = tute(crashed, "games", "--store", "s.sqlite")
    rows = out.stdout.splitlines()[2:]  # after the table's head and rule
    assert len(rows) == 2, rows


# -------------------------------------------------------------------- 5 outputs that overwrite inputs
def readable_store(folder: Path, name: str = "s.sqlite") -> bool:
    out = tute(folder, "games", "--store", name)
    return out.returncode == 0 and "imported/play/3/0" in out.stdout


def test_export_never_writes_over_its_own_store(store: Path, tmp_path: Path) -> None:
    (tmp_path / "s.sqlite").write_bytes((store / "s.sqlite").read_bytes())
    out = tute(tmp_path, "export", "--store", "s.sqlite", "--out", "s.sqlite")
    assert readable_store(tmp_path), "the store was replaced"
    one_line_error(out, "s.sqlite")


@pytest.mark.parametrize("source", ["store", "file"])
def test_replay_html_never_writes_over_what_it_reads(store: Path, tmp_path: Path, source: str) -> None:
    (tmp_path / "s.sqlite").write_bytes((store / "s.sqlite").read_bytes())
    (tmp_path / "r.jsonl").write_bytes((store / "r.jsonl").read_bytes())
    if source == "store":
        out = tute(tmp_path, "replay", "imported/play/3/0", "--store", "s.sqlite", "--html", "s.sqlite")
        assert readable_store(tmp_path), "the store was replaced by a page"
    else:
        out = tute(tmp_path, "replay", "--file", "r.jsonl", "--html", "r.jsonl")
        assert (tmp_path / "r.jsonl").read_bytes() == (store / "r.jsonl").read_bytes(), "the records were replaced"
    one_line_error(out)


# ----------------------------------------------------------------------------- 6 bad arguments
BAD_ARGUMENTS = [
    (("games", "--store", "adir"), "adir"),
    (("games", "--store", "s.sqlite", "--limit", "-1"), "--limit"),
    (("replay", "imported/play/3/0", "--store", "s.sqlite", "--seat", "-1"), "--seat -1"),
    (("replay", "imported/play/3/0", "--store", "s.sqlite", "--seat", "9" * 30), "--seat"),
    (("replay", "imported/play/3/0", "--store", "s.sqlite", "--lang", "fr"), "--lang"),
    (("replay", "imported/play/3/0", "--store", "s.sqlite", "--html", "adir"), "adir"),
    (("replay", "--file", "r.jsonl", "--index", "-1"), "--index"),
    (("replay", "--file", "r.jsonl", "--index", "4"), "no record at --index 4"),
    (("replay", "--file", "adir"), "adir"),
    (("replay", "--file", "/dev/null"), "no record"),
    (("replay", "--store", "s.sqlite"), "give a GAME_ID"),
    (("verify", "--store", "r.jsonl"), "r.jsonl"),
    (("export", "--store", "s.sqlite", "--out", "adir"), "adir"),
    (("import", "adir", "--store", "n.sqlite"), "adir"),
    (("import", "missing.jsonl", "--store", "n.sqlite"), "missing.jsonl"),
    (("import", "r.jsonl", "--store", "adir"), "adir"),
    (("import", "r.jsonl", "--store", "r.jsonl"), "r.jsonl"),
    (("variants", "tute-9"), "tute-9"),
    (("play", "tute-2", "greedy", "random", "-n", "0"), "--games"),
    (("play", "tute-2", "greedy", "random", "--match", "first_to:0"), "first_to"),
    (("play", "tute-2", "greedy", "random", "--match", "letters"), "letters"),
    (("play", "tute-2", "greedy", "random", "--records", "adir"), "adir"),
    (("play", "tute-2", "greedy", "random", "--time-limit", "0"), "--time-limit"),
    (("play", "tute-2", "greedy", "random", "-j", "0"), "--workers"),
    (("play", "tute-2", "greedy", "random", "-p", "[]", "-p", "{}"), "expected a JSON object"),
    (("run", "missing.toml"), "missing.toml"),
    (("run", "adir"), "adir"),
]


@pytest.mark.parametrize("args, needle", BAD_ARGUMENTS, ids=[" ".join(a)[:60] for a, _ in BAD_ARGUMENTS])
def test_a_bad_argument_is_one_line_and_exit_2(store: Path, args: tuple[str, ...], needle: str) -> None:
    (store / "adir").mkdir(exist_ok=True)
    one_line_error(tute(store, *args), needle)
    assert not (store / "n.sqlite").exists()


def test_an_empty_records_path_is_one_line(tmp_path: Path) -> None:
    one_line_error(tute(tmp_path, "play", "tute-2", "greedy", "random", "-n", "1", "--records", ""), "--records")


@pytest.mark.parametrize("args", [("imported/play/3/0", "--store", "s.sqlite", "--file", "r.jsonl", "--index", "1"),
                                  ("--file", "r.jsonl", "--step", "--html", "x.html"),
                                  ("imported/play/3/0", "--store", "s.sqlite", "--html", "")])
def test_replay_refuses_options_it_would_ignore(store: Path, args: tuple[str, ...]) -> None:
    one_line_error(tute(store, "replay", *args))


# ------------------------------------------------------------------------------- 7 pages, in a browser
def redeal_record() -> GameRecord:
    v = get_variant("subastado")
    st = GameState.new(v, shuffled_deck(v, 1), 0)
    while not st.is_over:
        st.apply("pass", st.current_player)
    return GameRecord.from_state(st, game_id="qa/redeal", seed=1, seats=["<b>n0</b>", "n1", "n2", "n3"])


def test_pages_of_a_redeal_and_of_a_deal_forfeited_before_any_action(tmp_path: Path) -> None:
    """Deals without a trick: the page opens at every step, shows the auction's passes and the result,
    and throws nothing; a page of no action at all (step 0 of 0) too."""
    from browser import browser, plain
    from leagues.records.replay_html import replay_page

    redeal = redeal_record()
    forfeit = GameRecord.from_json(forfeit_at_start())
    pages = {}
    for rec in (redeal, forfeit):
        path = tmp_path / f"{rec.id.replace('/', '_')}.html"
        path.write_text(replay_page(rec), encoding="utf-8")
        pages[rec.id] = path
    with browser() as b:
        page = b.new_page()
        page.open(pages["qa/redeal"], "end")
        assert page.text("#result") == "everyone passed: the deal is thrown in"
        assert [plain(t) for t in page.locator("#bids li").all_inner_texts()] == \
            ["n1: pass", "n2: pass", "n3: pass", "<b>n0</b>: pass"]
        assert page.locator("#trickRows tr").count() == 0 and page.locator(".seat.onmove").count() == 0
        page.keyboard.press("Home")
        assert page.locator(".seat.onmove").evaluate_all("e => e.map(x => +x.dataset.seat)") == [1]
        page.open(pages["qa/ff"])
        assert plain(page.text("#pos")) == "step 0 / 0"
        assert page.text("#result").startswith("b1 forfeits (a crash: new_game raised")
        page.keyboard.press("ArrowRight")
        page.keyboard.press(" ")
        page.wait_for_timeout(200)
        assert page.errors == []
        assert page.locator("b").count() == 4  # the page's own, none from a name
