"""A bot author who does not write Python: a Node.js bot written from README.md, docs/protocol.md,
docs/rules.md, docs/bots.md and docs/config.md alone, run through `tute bots check`, `tute play` and a
tournament, and the mistakes such an author makes (a card in another notation, a debug line on stdout,
a pretty-printed answer, a play on a declaration turn, an exception in a handler, ...).

Tests marked ``xfail(strict=True)`` are QA defects found on that path (in the docs or in the product):
each fails now because of the defect and will pass once it is fixed. The others pin documented
behaviour such an author relies on that no other test covers. Every bot here is a small JavaScript
program written into ``tmp_path``; the whole module is skipped without ``node`` on PATH.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTE = str(Path(sys.executable).parent / "tute")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

# The small competent bot: reads the view, declares what it is offered (Tute, exchange, the 40 before a
# 20), bids on its cards, names its best suit, wins tricks worth points with the cheapest winning card,
# else throws its cheapest card. With a path argument it appends every message it receives to
# PATH.<pid>.jsonl (one file per process, so request numbers can be checked per process).
SMALL_BOT = textwrap.dedent(r"""
    'use strict';
    const fs = require('fs');
    const DUMP = process.argv[2] ? process.argv[2] + '.' + process.pid + '.jsonl' : null;
    const ORDER = ['1', '3', '12', '11', '10', '7', '6', '5', '4', '2'];
    const POINTS = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2};
    const suit = (c) => c.slice(-1), face = (c) => c.slice(0, -1);
    const pts = (c) => POINTS[face(c)] || 0, str = (c) => 10 - ORDER.indexOf(face(c));
    function beats(a, b, trump) {
      if (suit(a) === suit(b)) return str(a) > str(b);
      return trump !== null && suit(a) === trump;
    }
    function winning(trick, trump) {
      let w = trick[0];
      for (const c of trick.slice(1)) if (beats(c, w, trump)) w = c;
      return w;
    }
    const cost = (c, trump) => pts(c) + (suit(c) === trump ? 20 : 0) + str(c) / 100;
    const cheap = (cards, trump) => cards.slice().sort((a, b) => cost(a, trump) - cost(b, trump))[0];
    function choose(m) {
      const v = m.view, legal = m.legal, trump = v.trump;
      const pick = (p) => legal.find((a) => a.startsWith(p));
      if (v.phase === 'auction') {
        const pairs = ['o', 'c', 'e', 'b'].filter((s) => v.hand.includes('12' + s) && v.hand.includes('11' + s));
        const est = v.hand.reduce((s, c) => s + pts(c), 0) + (v.teams[0].length > 1 ? 30 : 10) + 20 * pairs.length;
        const bid = pick('bid ');
        return bid && +bid.slice(4) <= est ? bid : 'pass';
      }
      if (v.phase === 'trump') {
        const worth = (s) => v.hand.filter((c) => suit(c) === s).reduce((a, c) => a + 10 + pts(c), 0);
        return ['o', 'c', 'e', 'b'].sort((a, b) => worth(b) - worth(a)).map((s) => 'trump ' + s)[0];
      }
      const decl = pick('tute') || pick('exchange') || legal.find((a) => a === 'sing ' + trump) || pick('sing ');
      if (decl) return decl;
      const plays = legal.filter((a) => a.startsWith('play ')).map((a) => a.slice(5));
      if (!plays.length) return 'pass';
      if (v.trick.length === 0) {
        const side = plays.filter((c) => suit(c) !== trump);
        return 'play ' + cheap(side.length ? side : plays, trump);
      }
      const w = winning(v.trick, trump);
      const winners = plays.filter((c) => beats(c, w, trump));
      const value = v.trick.reduce((s, c) => s + pts(c), 0);
      if (winners.length && (value >= 3 || v.stock_left === 0)) return 'play ' + cheap(winners, trump);
      return 'play ' + cheap(plays, trump);
    }
    require('readline').createInterface({input: process.stdin}).on('line', (line) => {
      if (DUMP) fs.appendFileSync(DUMP, line + '\n');
      const m = JSON.parse(line);
      if (m.type === 'hello') console.log(JSON.stringify({type: 'hello', name: 'js-small'}));
      else if (m.type === 'act') console.log(JSON.stringify({action: choose(m), request: m.request}));
      else if (m.type === 'quit') process.exit(0);
    });
""")

# The mistakes: one bot, the mistake named by its first argument; otherwise it answers legal[0].
MISTAKE_BOT = textwrap.dedent(r"""
    'use strict';
    const MODE = process.argv[2];
    const out = (o) => process.stdout.write((typeof o === 'string' ? o : JSON.stringify(o)) + '\n');
    let acts = 0;
    require('readline').createInterface({input: process.stdin}).on('line', (line) => {
      const m = JSON.parse(line);
      if (m.type === 'hello') return out({type: 'hello', name: 'mistake'});
      if (m.type === 'game_over') {
        if (MODE === 'exit0_after_game_over') process.exit(0);
        if (MODE === 'throw_in_game_over') console.log(m.result.contract.made);   // no contract in tute-2
        return;
      }
      if (m.type === 'quit') process.exit(0);
      if (m.type !== 'act') return;
      acts++;
      const a = m.legal[0], request = m.request;
      const play = m.legal.find((x) => x.startsWith('play ')) || a;
      const card = play.slice(5);
      switch (MODE) {
        case 'card_only': return out({action: card, request});
        case 'upper_case': return out({action: play.toUpperCase(), request});
        case 'suit_first': return out({action: 'play ' + card.slice(-1) + card.slice(0, -1), request});
        case 'debug_line': if (acts === 2) console.log('my hand:', m.view.hand.join(' ')); return out({action: a, request});
        case 'string_request': return out({action: a, request: String(request)});
        case 'pretty_json': return out(JSON.stringify({action: a, request}, null, 2));
        case 'no_request': return out({action: a});
        case 'crlf': return process.stdout.write(JSON.stringify({action: a, request}) + '\r\n');
        case 'stderr_flood': process.stderr.write('debug '.repeat(20000) + '\n'); return out({action: a, request});
        case 'throw_in_act': return out({action: m.view.no_such_field.length, request});
        case 'play_on_declare':
          if (['declare', 'exchange', 'deal_tute'].includes(m.view.phase)) return out({action: 'play ' + m.view.hand[0], request});
          return out({action: a, request});
        case 'bid_object':
          if (m.view.phase === 'auction') return out({action: 'bid', amount: 70, request});
          return out({action: a, request});
        default: return out({action: a, request});
      }
    });
""")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def tute(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TUTE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def seats_for(variant: str, opponent: str) -> list[str]:
    from arena import get_variant
    v = get_variant(variant)
    return [opponent] * ((2 if v.pairs else v.players) - 1)


def play(tmp_path: Path, variant: str, bot: str, n: int, opponent: str = "random") -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    """`tute play VARIANT BOT OPPONENT... -n N` in tmp_path: the run and the records' forfeits of seat 0's side."""
    records = tmp_path / "records.jsonl"  # the bots' stderr log goes beside it: records.log
    run = tute("play", variant, bot, *seats_for(variant, opponent), "-n", str(n), "--records", str(records), cwd=tmp_path)
    forfeits = []
    if records.exists():
        for line in records.read_text().splitlines():
            rec = json.loads(line)
            f = rec.get("result", {}).get("forfeit")
            if f:
                forfeits.append(f)
    return run, forfeits


def mistake(tmp_path: Path, mode: str) -> str:
    return f"node {write(tmp_path, 'mistake.js', MISTAKE_BOT)} {mode}"


# ------------------------------------------------------------------------------------------------ dumps

DUMP_PRESETS = ["tute-2", "tute-2-8", "tute-4-pairs", "subastado", "subastado-3", "cabron", "cabrero-5"]


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[dict]]]:
    """Per preset, the messages each process of the small bot received (one list per process), 12 deals
    against greedy."""
    tmp = tmp_path_factory.mktemp("js_dumps")
    bot = write(tmp, "bot.js", SMALL_BOT)
    out: dict[str, list[list[dict]]] = {}
    for variant in DUMP_PRESETS:
        prefix = tmp / variant
        run = tute("play", variant, f"node {bot} {prefix}", *seats_for(variant, "greedy"), "-n", "12", cwd=tmp)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "forfeits of" not in run.stdout + run.stderr
        out[variant] = [[json.loads(line) for line in p.read_text().splitlines()]
                        for p in sorted(tmp.glob(f"{variant}.*.jsonl"))]
    return out


def acts(dumps: dict[str, list[list[dict]]], variant: str | None = None) -> list[dict]:
    return [m for v, procs in dumps.items() if variant in (None, v) for msgs in procs for m in msgs
            if m["type"] == "act"]


def doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def table_row(text: str, field: str) -> str:
    """The row of a markdown table whose first cell names ``field`` (`` `field` ``)."""
    for line in text.splitlines():
        if line.startswith("|") and f"`{field}`" in line.split("|")[1]:
            return line
    raise AssertionError(f"no table row for {field}")


# ---------------------------------------------------------------------------------------- pinned: it works

def test_small_js_bot_passes_the_check_in_every_preset(tmp_path: Path) -> None:
    """A bot written from the docs, in plain Node, passes `tute bots check` in all 17 presets, reproducibly."""
    bot = write(tmp_path, "bot.js", SMALL_BOT)
    run = tute("bots", "check", f"node {bot}", "--require-reproducible", "-n", "17", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS" in run.stdout
    listed = set(re.findall(r"^(\S+)\s+\d+\s+\d+\s+\d+/\d+/\d+", run.stdout, re.M))
    assert len(listed) == 17, run.stdout


def test_views_match_the_protocol_doc(dumps: dict[str, list[list[dict]]]) -> None:
    """What docs/protocol.md says of `act`: cards are face then suit, `hand` and the plays are in card
    order, declarations come before plays, `view.legal` is the top-level `legal`, no decision with one
    legal action is asked, the auction lists its bids ascending then `pass`, the trump phase lists the
    four suits in `o c e b` order, and every phase is one the doc names."""
    card = re.compile(r"^(1|2|3|4|5|6|7|10|11|12)[oceb]$")
    faces = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    order = lambda c: ("oceb".index(c[-1]), faces.index(int(c[:-1])))  # noqa: E731
    phases = set()
    for m in acts(dumps):
        v, legal = m["view"], m["legal"]
        phases.add(v["phase"])
        assert v["legal"] == legal and len(legal) > 1
        assert all(card.match(c) for c in v["hand"] + v["trick"])
        assert v["hand"] == sorted(v["hand"], key=order)
        kinds = [a.split()[0] for a in legal]
        plays = [a[5:] for a in legal if a.startswith("play ")]
        assert plays == sorted(plays, key=order) and all(card.match(c) for c in plays)
        if plays:
            assert kinds[len(kinds) - len(plays):] == ["play"] * len(plays), legal
        if v["phase"] == "auction":
            bids = [int(a[4:]) for a in legal[:-1]]
            assert legal[-1] == "pass" and bids == sorted(bids) and all(a.startswith("bid ") for a in legal[:-1])
        if v["phase"] == "trump":
            assert legal == ["trump o", "trump c", "trump e", "trump b"]
        if v["phase"] in ("declare", "deal_tute", "exchange"):
            assert legal[-1] == "pass"
    assert phases <= {"play", "declare", "deal_tute", "auction", "trump", "exchange"}
    assert {"play", "auction", "trump", "exchange", "declare"} <= phases


def test_request_numbers_count_the_acts_of_a_process(dumps: dict[str, list[list[dict]]]) -> None:
    """`request` numbers the act messages a process receives, 1, 2, 3, ..., across its deals."""
    for procs in dumps.values():
        for msgs in procs:
            numbers = [m["request"] for m in msgs if m["type"] == "act"]
            assert numbers == list(range(1, len(numbers) + 1))


def test_new_game_carries_the_documented_keys(dumps: dict[str, list[list[dict]]]) -> None:
    for procs in dumps.values():
        for msgs in procs:
            for m in msgs:
                if m["type"] == "new_game":
                    assert {"game_id", "seed", "seat", "variant", "options", "players", "teams", "dealer",
                            "seats", "time_ms"} <= set(m)
                    assert 0 <= m["seed"] < 2**53 and m["time_ms"] == 1000


@pytest.mark.parametrize("mode,reason,says", [
    ("card_only", "protocol", ["legal now: 'play "]),  # this turn's own legal actions as the examples
    ("upper_case", "protocol", ["malformed action 'PLAY", "legal now: 'play "]),
    ("suit_first", "protocol", ["malformed action 'play ", "legal now: 'play "]),
    ("debug_line", "protocol", ["not JSON", "my hand:"]),
    ("string_request", "protocol", ["echo the number"]),
])
def test_a_mistake_is_a_forfeit_that_says_what_was_wrong(tmp_path: Path, mode: str, reason: str, says: list[str]) -> None:
    """The summary line of `tute play` names the reason and quotes what the bot wrote."""
    run, forfeits = play(tmp_path, "tute-2", mistake(tmp_path, mode), 2)
    assert run.returncode == 3  # every deal forfeited
    assert forfeits and all(f["reason"] == reason and f["seat"] == 0 for f in forfeits)
    summary = [line for line in run.stdout.splitlines() if line.startswith("forfeits of seat 0")]
    assert summary and all(s in summary[0] for s in says), run.stdout


def test_a_play_on_the_partners_declaration_turn_is_explained(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "tute-4-pairs", mistake(tmp_path, "play_on_declare"), 40)
    assert forfeits and all(f["reason"] == "illegal" for f in forfeits)
    assert all("asked to declare" in f["detail"] for f in forfeits)


@pytest.mark.parametrize("mode", ["no_request", "crlf", "exit0_after_game_over", "stderr_flood"])
def test_tolerated_habits_forfeit_nothing(tmp_path: Path, mode: str) -> None:
    """No `request` echo (optional), CRLF line ends, exiting with status 0 after each game_over (one deal
    a process) and a flood of stderr (capped in the log, never blocking the bot) all play on."""
    run, forfeits = play(tmp_path, "tute-2", mistake(tmp_path, mode), 3)
    assert run.returncode == 0 and forfeits == [], run.stdout + run.stderr
    if mode == "stderr_flood":
        assert "more bytes dropped" in (tmp_path / "records.log").read_text()


def test_a_debug_print_before_the_hello_is_refused_in_one_line(tmp_path: Path) -> None:
    bot = write(tmp_path, "chatty.js", "console.log('bot starting...');\n" + SMALL_BOT)
    run = tute("play", "tute-2", f"node {bot}", "random", "-n", "1", cwd=tmp_path)
    assert run.returncode == 2
    assert "hello is not JSON: 'bot starting...'" in run.stderr and run.stdout == ""


def test_a_tournament_runs_a_node_command_from_its_folder(tmp_path: Path) -> None:
    """docs/config.md: `bot = ["node", "bot.js"]` finds bot.js beside tournament.toml wherever `tute run` starts."""
    folder = tmp_path / "club"
    folder.mkdir()
    write(folder, "bot.js", SMALL_BOT)
    write(folder, "tournament.toml", textwrap.dedent("""\
        name = "js"
        seed = 5
        deals = 2
        workers = 1
        store = "runs/js.sqlite"
        [[variants]]
        name = "tute-2"
        [[variants]]
        name = "subastado"
        [[entrants]]
        name = "js"
        bot = ["node", "bot.js"]
        [[entrants]]
        name = "greedy"
        bot = "greedy"
        """))
    run = tute("run", str(folder / "tournament.toml"), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "forfeits:" not in run.stdout and re.search(r"^\d\s+js\s", run.stdout, re.M)


# ------------------------------------------------------------------------------------------ QA defects

def test_a_node_crash_summary_names_the_error(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "tute-2", mistake(tmp_path, "throw_in_act"), 1)
    assert run.returncode == 3 and forfeits[0]["reason"] == "crash"
    assert "TypeError: Cannot read properties of undefined" in forfeits[0]["detail"]  # the record has it
    summary = [line for line in run.stdout.splitlines() if line.startswith("forfeits of seat 0")]
    assert "TypeError" in summary[0], summary


def test_a_play_in_the_exchange_phase_is_explained_as_such(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "tute-2-8", mistake(tmp_path, "play_on_declare"), 30)
    assert forfeits and all(f["reason"] == "illegal" for f in forfeits)
    for f in forfeits:
        assert "duty" not in f["detail"] and "exchange" in f["detail"].split("(legal")[0], f["detail"]


def test_a_multi_line_answer_is_explained(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "tute-2", mistake(tmp_path, "pretty_json"), 1)
    assert run.returncode in (0, 3), run.stdout + run.stderr
    if forfeits:  # (reading such an answer whole would be a fix too)
        assert forfeits[0]["reason"] == "protocol"
        assert "line" in forfeits[0]["detail"], forfeits[0]["detail"]


def test_a_malformed_bid_gets_a_bid_example(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "subastado", mistake(tmp_path, "bid_object"), 2)
    assert forfeits and all(f["reason"] == "protocol" for f in forfeits)
    assert all(re.search(r"bid \d+", f["detail"]) for f in forfeits), forfeits


def test_a_crash_after_game_over_is_not_blamed_on_a_move(tmp_path: Path) -> None:
    run, forfeits = play(tmp_path, "tute-2", mistake(tmp_path, "throw_in_game_over"), 2)
    assert len(forfeits) == 1 and forfeits[0]["reason"] == "crash"
    detail = forfeits[0]["detail"].split("; stderr:")[0]  # the referee's words, not the bot's stack
    assert "status 1" in detail
    assert "game_over" in detail or "between deals" in detail, detail


def test_trump_card_doc_matches_subastado_and_cabron(dumps: dict[str, list[list[dict]]]) -> None:
    after = [m["view"]["trump_card"] for v in ("subastado", "subastado-3", "cabron") for m in acts(dumps, v)
             if m["view"]["trump"] is not None]
    assert after, "no view with trump named"
    row = table_row(doc("protocol.md"), "trump")
    assert all(card is None for card in after)  # no card shows trump there, named or not
    assert "`null` for the whole deal in subastado and cabrón" in row, row  # it said: until named


def test_leader_in_the_trump_phase_is_as_documented(dumps: dict[str, list[list[dict]]]) -> None:
    views = [m["view"] for v in ("subastado", "subastado-3") for m in acts(dumps, v) if m["view"]["phase"] == "trump"]
    assert views
    row = table_row(doc("protocol.md"), "leader")
    # it said only "led (or will lead) the current trick", which the declarer does once trump is named
    assert "while trump is named it is the seat the auction began with" in row, row
    assert all(v["leader"] == (v["dealer"] + 1) % v["players"] for v in views)


def test_protocol_doc_names_every_game_over_key(dumps: dict[str, list[list[dict]]]) -> None:
    keys = {k for procs in dumps.values() for msgs in procs for m in msgs if m["type"] == "game_over"
            for k in m["result"]}
    assert {"score", "contract", "losers", "sit_out"} <= keys
    text = doc("protocol.md")
    section = text[text.index("### `game_over`"):text.index("### Reporting")]
    missing = sorted(k for k in keys if f"`{k}`" not in section)
    assert not missing, missing
