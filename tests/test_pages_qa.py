"""QA pass over the pages and file reports the product writes, checked in the real headless Chromium:
every preset's replay stepped through every step (the page's own "next" button) and compared with the
referee's state there, in the full view and in seat views (no card the seat could not see, anywhere on
the page); hostile text of every kind shown as text and kept on screen at 360 and 1280 px; the page
with JavaScript off; the league report with hostile names and long ones; the leaderboard's csv, github
and json formats with names that other tools would act on."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import GameRecord, VARIANTS, get_variant, play_game, shuffled_deck
from arena.cards import NAMES, NO_CARD, cards_list
from arena.record import replay_steps
from arena.state import GameState
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from leagues.records.replay_html import replay_page
from leagues.records.wording import suit_word

from browser import browser, plain

ROOT = Path(__file__).resolve().parents[1]
TUTE = str(Path(sys.executable).parent / "tute")
ACTING = {"play", "declare", "deal_tute", "auction", "trump", "exchange"}
CARD = re.compile(r"(?<![\w/])(?:1[0-2]|[1-7])[oceb](?![\w])")

#: the page's state at every step, read while clicking its own "next" button until it stops moving
COLLECT_JS = """() => {
  const out = [], q = s => document.querySelector(s), txt = s => q(s).textContent;
  for (;;) {
    out.push({pos: txt('#pos'), trump: txt('#trump'),
      face: [...document.querySelectorAll('#faceup .card')].map(e => e.dataset.card), faceShown: !q('#faceup').hidden,
      pile: !q('#pile').hidden, stock: txt('#stock'), score: txt('#score'),
      contract: q('#contract').hidden ? null : txt('#contractText'),
      seats: [...document.querySelectorAll('#seats .seat')].map(e => ({s: +e.dataset.seat,
         move: e.classList.contains('onmove'), loser: e.classList.contains('loser'),
         label: e.querySelector('.label').textContent,
         cards: [...e.querySelectorAll('.card')].map(c => c.classList.contains('back') ? null : c.dataset.card)})),
      table: [...document.querySelectorAll('#table .slot')].map(e => [+e.dataset.seat, e.querySelector('.card').dataset.card]),
      events: txt('#events'), result: txt('#result'),
      bids: [...document.querySelectorAll('#bids li')].map(e => e.textContent), auction: !q('#auctionPanel').hidden,
      pairs: [...document.querySelectorAll('#pairs li')].map(e => e.textContent), pairsShown: !q('#pairsPanel').hidden,
      done: [...document.querySelectorAll('#trickRows tr.done')].map(e => [...e.children].map(td => td.textContent)),
      body: document.body.innerText});
    const before = txt('#pos');
    q('#next').click();
    if (txt('#pos') === before) break;
  }
  return out;
}"""


def deal(variant: str, seed: int, names: list[str] | None = None) -> GameRecord:
    """A deal of ``variant``: a greedy seat 0 (it sings, bids, exchanges) against random seats, read
    back from its JSON as a record file would be."""
    v = get_variant(variant)
    bots: list[Any] = [GreedyBot()] + [RandomBot(seed=seed * 7 + s) for s in range(1, v.players)]
    rec = play_game(v, shuffled_deck(v, seed), seed % v.players, bots, game_id=f"qa/{variant}/{seed}", seed=seed,
                    names=names or [f"bot{s}" for s in range(v.players)])
    return GameRecord.loads(rec.dumps())


def lively(variant: str) -> GameRecord:
    """Of the first 30 deals, the one with the most kinds of action and ending (cantes, exchanges, the
    auction, ...) and cabrón's pair tricks: the same deal every run."""
    def score(rec: GameRecord) -> int:
        last = list(replay_steps(rec))[-1][1]
        return len({a.split()[0] for _, a in rec.actions} | {rec.result.reason}) + min(len(last.pair_tricks), 2)
    return max((deal(variant, seed) for seed in range(30)), key=score)


@pytest.fixture(scope="module")
def chromium() -> Any:
    with browser() as b:
        yield b


def known_to(seat: int, rec: GameRecord, sts: list[GameState], upto: int) -> set[str]:
    """Every card ``seat`` has seen by step ``upto``: its hands so far, every card played or shown
    face up (the trump card, an exchange's, a cante's 12 and 11), and nothing else."""
    seen: set[str] = set()
    for st in sts[:upto + 1]:
        seen.update(NAMES[c] for c in cards_list(st.hands[seat]))
        seen.update(NAMES[c] for c in st.trick)
        seen.update(NAMES[c] for _, cards, _ in st.tricks for c in cards)
        if st.face_up != NO_CARD:
            seen.add(NAMES[st.face_up])
        if st.trump_card != NO_CARD and st.variant.trump_rule == "card":
            seen.add(NAMES[st.trump_card])
        seen.update(NAMES[c] for _, a, b in st.exchanges for c in (a, b))
        seen.update(f"{face}{'oceb'[suit]}" for _, suit, _ in st.cantes for face in (12, 11))  # a cante shows both
    return seen


def check_step(shown: dict[str, Any], rec: GameRecord, sts: list[GameState], i: int, seat: int | None) -> None:
    """The page at step ``i`` is the referee's state after ``i`` actions, card by card."""
    st, last = sts[i], len(rec.actions)
    over = i == last
    where = (rec.variant, seat, i)
    assert plain(shown["pos"]).split() == ["step", str(i), "/", str(last)], where
    assert shown["trump"] == suit_word(st.trump), where
    assert shown["face"] == ([NAMES[st.face_up]] if st.face_up != NO_CARD else []), where
    assert shown["pile"] == st.variant.draw_pile, where
    if st.variant.draw_pile:
        assert shown["stock"] == str(st.stock_left), where
    points = rec.result.points if over else st.points
    assert shown["score"] == " - ".join(str(sum(points[s] for s in t)) for t in rec.teams), where
    acting = not over and st.phase_name in ACTING
    for box in shown["seats"]:
        s = box["s"]
        hand = [NAMES[c] for c in cards_list(st.hands[s])]
        if seat is None or s == seat:
            assert sorted(box["cards"]) == sorted(hand), (where, s)
        else:
            assert box["cards"] == [None] * len(hand), (where, s)
        assert box["move"] == (acting and s == st.current_player), (where, s)
        assert f" · {points[s]} points" in plain(box["label"]), (where, s, box["label"])
        assert box["loser"] == (over and s in (rec.result.losers or [])), (where, s)
    assert [b["s"] for b in shown["seats"]] == list(range(len(rec.seats)))
    if st.trick:
        assert shown["table"] == [[s, NAMES[c]] for s, c in zip(st.trick_order(st.leader), st.trick)], where
    elif shown["table"]:
        leader, cards, _ = st.tricks[-1]
        assert shown["table"] == [[s, NAMES[c]] for s, c in zip(st.trick_order(leader), cards)], where
    assert len(shown["done"]) == len(st.tricks), where
    for row, (leader, cards, winner) in zip(shown["done"], st.tricks):
        assert row[2].split() == [NAMES[c] for c in cards] and plain(row[3]) == rec.seats[winner], where
    auction = st.variant.trump_rule == "auction"
    assert shown["auction"] == auction and shown["pairsShown"] == (st.variant.trump_rule == "pair_tricks"), where
    if auction:
        assert [plain(b) for b in shown["bids"]] == [f"{rec.seats[s]}: " + (f"bid {b}" if b else "pass")
                                                     for s, b in st.bids], where
        has_contract = st.declarer >= 0 and st.phase_name != "auction"
        assert (shown["contract"] is not None) == has_contract, where
        if has_contract:
            assert plain(shown["contract"]).startswith(f"{rec.seats[st.declarer]}, {st.contract}"), where
    assert len(shown["pairs"]) == len(st.pair_tricks), where
    if i > 0:
        _, action = rec.actions[i - 1]
        if action.startswith("sing "):
            assert "sings the" in shown["events"], where
    assert bool(shown["result"]) == over, where
    if seat is not None:  # nothing on the whole page names a card the seat has not seen
        unseen = set(CARD.findall(plain(shown["body"]))) - known_to(seat, rec, sts, i)
        assert not unseen, (where, unseen)


def seat_views(variant: str) -> list[int | None]:
    v = get_variant(variant)
    return [None, 1] + ([0] if v.players >= 5 else [])  # with 5 or 6, deal 0's dealer (seat 0) sits out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_step_of_every_preset_is_the_referees_state(variant: str, tmp_path: Path, chromium: Any) -> None:
    """Through the page's own button, step by step from the deal to the result, in the full view and
    in seat views: hands, table, pile, score, trump, whose move, the auction, pair tricks, losers."""
    rec = lively(variant)
    sts = [st.copy() for _, st in replay_steps(rec)]
    page = chromium.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for seat in seat_views(variant):
        path = tmp_path / f"{seat}.html"
        path.write_text(replay_page(rec, seat=seat), encoding="utf-8")
        shown = page.open(path).evaluate(COLLECT_JS)
        assert len(shown) == len(sts)
        for i, frame in enumerate(shown):
            check_step(frame, rec, sts, i, seat)
    assert page.errors == []
    assert all(u.startswith("file://") for u in requests), requests
    page.close()


def test_the_keys_and_the_trick_jumps_step_exactly(tmp_path: Path, chromium: Any) -> None:
    """Right from the deal visits every step once; T stops exactly where each trick ends; the ends hold
    (Left at the deal, Right at the result); Home and End."""
    rec = lively("subastado")
    sts = [st.copy() for _, st in replay_steps(rec)]
    last = len(rec.actions)
    path = tmp_path / "p.html"
    path.write_text(replay_page(rec), encoding="utf-8")
    page = chromium.new_page().open(path)
    pos = "() => +document.querySelector('#pos').textContent.trim().split(/\\s+/).at(-3)"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(pos) == 0
    seen = [page.evaluate(pos)]
    for _ in range(last + 2):
        page.keyboard.press("ArrowRight")
        seen.append(page.evaluate(pos))
    assert seen == list(range(last + 1)) + [last, last]
    page.keyboard.press("Home")
    ends = [i for i in range(1, last + 1) if len(sts[i].tricks) > len(sts[i - 1].tricks)]
    jumps = []
    for _ in ends:
        page.keyboard.press("t")
        jumps.append(page.evaluate(pos))
    assert jumps == ends
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert page.evaluate(pos) == last and page.url.endswith("#end")
    assert page.errors == []
    page.close()


LONG = "W" * 300  # a seat name may have 300 characters, none of them a space
HOSTILE_NAMES = ["</script><script>window.pwned=1</script>", '<img src=x onerror="window.pwned=2">',
                 "javascript:window.pwned=3", "{{7*7}}${window.pwned=4}", "\U0001F0CF\U0001F469\u200d\U0001F4BB",
                 LONG, "\u05d0\u05d1\u05d2"]
#: what a hostile bot answers: markup, a right-to-left override, a zero width space, 1,500 characters in one word
HOSTILE_ANSWER = '</script><img src=x onerror="window.pwned=5">javascript:x \u202eevil\u200b ' + "Z" * 1500

#: elements drawn partly off the screen at either side (none may be: the page must not scroll sideways)
OFF_SCREEN_JS = """w => [...document.querySelectorAll('body *')].filter(e => { const r = e.getBoundingClientRect();
  return r.width && (r.right > w + 1 || r.left < -1); }).map(e => e.tagName + '#' + e.id + '.' + e.className)"""


class Hostile(RandomBot):
    """Answers with ``HOSTILE_ANSWER`` on its fourth decision (a forfeit whose detail is that answer)."""

    def __init__(self) -> None:
        super().__init__(seed=3)
        self.calls = 0

    def choose(self, view: Any) -> str:
        self.calls += 1
        return HOSTILE_ANSWER if self.calls == 4 else super().choose(view)


@pytest.mark.parametrize("variant", ["tute-4-pairs", "subastado", "cabron", "cabrero-5", "tute-2"])
def test_hostile_text_is_text_and_stays_on_screen(variant: str, tmp_path: Path, chromium: Any) -> None:
    """Names of every hostile kind, a 290-character game id and a forfeit's detail holding markup, a
    bidi override, a zero-width space and 1,500 characters without a break: each shown as typed (the
    override and the zero width as escapes), nothing run, no element off the screen at 360 or 1280 px."""
    v = get_variant(variant)
    names = HOSTILE_NAMES[:v.players - 1] + [LONG]
    recs = []
    for forfeit in (False, True):
        bots: list[Any] = [RandomBot(seed=s) for s in range(v.players)]
        if forfeit:
            bots[1] = Hostile()
        rec = play_game(v, shuffled_deck(v, 5), 0, bots, game_id="id/" + "I" * 290, seed=5, names=names)
        recs.append(GameRecord.loads(rec.dumps()))
    assert recs[1].result.forfeit is not None and "<img src=x" in recs[1].result.forfeit.detail
    for width in (360, 1280):
        page = chromium.new_page(width, 800)
        for k, rec in enumerate(recs):
            for seat in (None, 1):
                path = tmp_path / f"{k}-{seat}.html"
                path.write_text(replay_page(rec, seat=seat), encoding="utf-8")
                for at in ("0", "7", "end"):
                    page.open(path, at)
                    assert page.evaluate("typeof window.pwned") == "undefined"
                    assert page.locator("img, a, iframe, object, embed").count() == 0
                    assert page.locator("script").count() == 2
                    for s, name in enumerate(names):
                        assert page.text(f"#seat-{s} .label").startswith(name + " · ")
                    assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, at)
                    assert page.evaluate(OFF_SCREEN_JS, width) == [], (width, at)
                if k == 1:
                    shown = page.text("#result")
                    assert "\\u202eevil\\u200b " + "Z" * 1500 in shown and "\u202e" not in shown
                    assert '</script><img src=x onerror="window.pwned=5">' in shown
        assert page.errors == []
        page.close()


def test_without_javascript_the_page_says_what_it_needs(tmp_path: Path, chromium: Any) -> None:
    rec = lively("tute-2")
    path = tmp_path / "p.html"
    path.write_text(replay_page(rec), encoding="utf-8")
    exe = chromium.new_page().page.context.browser
    context = exe.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(path.resolve().as_uri())
    text = page.locator("body").inner_text()
    assert "JavaScript" in text  # a <noscript> note (or a static view of the deal)
    assert not page.locator("#auctionPanel").is_visible() and not page.locator("#pairsPanel").is_visible()
    context.close()


# ------------------------------------------------------------------------------ the league report
LEAGUE = "L" * 40
LONG_ENTRANT = "N" * 64  # the longest name a league takes
FORMULA = '=HYPERLINK("evil.example","x")'  # a spreadsheet would make it a link; no '/', no space
MARKDOWN = "a|b**B**`c`[x](http:evil.example)"
RLO = "\u202e"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A season of four entrants with names of the longest, a formula, Markdown and a pipe, one a command
    whose argument holds a right-to-left override; then the report."""
    from league_util import write_league
    from leagues.league.league import League, LeagueError
    from leagues.league.report import write_report

    folder = tmp_path_factory.mktemp("league")
    write_league(folder, LEAGUE, variants=[{"name": "tute-2"}, {"name": "tute-3"}])
    script = folder / "bot.py"
    script.write_text((ROOT / "examples" / "random_bot.py").read_text())
    with League.open(folder) as lg:
        lg.submit(LONG_ENTRANT, "random", owner="O" * 64, params={"seed": 1})
        lg.submit(FORMULA, "random", owner="ana", params={"seed": 2})
        lg.submit(MARKDOWN, "greedy", owner="ben")
        with pytest.raises(LeagueError, match="control characters"):  # refused at submit now
            lg.submit("cmd", shlex.join([sys.executable, str(script), f"--x={RLO}evil"]), owner="eva")
        lg.submit("cmd", shlex.join([sys.executable, str(script), "--x=evil"]), owner="eva")
        lg.play_season(quiet=True)
        # a command stored before that refusal, as a league upgraded since holds it: the report shows it
        lg.db.db.execute("UPDATE league_versions SET bot = replace(bot, '--x=evil', ?) WHERE entrant = 'cmd'",
                         (f"--x={RLO}evil",))
        lg.db.db.commit()
        write_report(lg, folder / "report", replays=2)
    return folder


def test_the_report_fits_a_phone_with_the_longest_names(league: Path, chromium: Any) -> None:
    report = league / "report"
    pages = [report / "index.html", *sorted((report / "pairs").glob("*.html"))]
    wide = {}
    for width in (360, 1280):
        page = chromium.new_page(width, 800)
        for p in pages:
            page.open(p)
            page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
            drawn = page.evaluate("document.documentElement.scrollWidth")
            if drawn > width:
                wide[(width, p.name[:30])] = drawn
        assert page.errors == []
        page.close()
    assert wide == {}


#: the left edges, as drawn, of the "s" and the "6" of "sha256" in a version's line after its bot
SHA_EDGES_JS = """() => { const li = [...document.querySelectorAll('.entrant li')].find(l => l.textContent.includes('bot.py'));
  const n = [...li.childNodes].find(n => n.nodeType === 3 && n.textContent.includes('sha256'));
  const at = i => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                    return r.getBoundingClientRect().left; };
  const i = n.textContent.indexOf('sha256'); return [at(i), at(i + 5)]; }"""


def test_a_command_with_a_bidi_override_does_not_reorder_the_report(league: Path, chromium: Any) -> None:
    index = (league / "report" / "index.html").read_text()
    page = chromium.new_page().open(league / "report" / "index.html")
    s_left, six_left = page.evaluate(SHA_EDGES_JS)
    page.close()
    assert s_left < six_left, "sha256 is drawn as 652ahs"
    assert RLO not in index


def test_hostile_names_in_the_report_are_text(league: Path, chromium: Any) -> None:
    report = league / "report"
    page = chromium.new_page()
    for p in [report / "index.html", *sorted((report / "pairs").glob("*.html")), *sorted((report / "replays").glob("*.html"))]:
        page.open(p)
        text = plain(page.locator("body").inner_text())
        for name in (FORMULA, MARKDOWN, LONG_ENTRANT) if p.name == "index.html" else ():
            assert name in text, (p.name, name)
        assert "=HYPERLINK" not in text or FORMULA in text
        assert page.locator("img, strong, em, iframe, object").count() == 0
        assert page.locator("script:not([type])").count() == (1 if p.parent.name == "replays" else 0)
        assert page.evaluate("typeof window.x") == "undefined"
    assert page.errors == []
    page.close()


# --------------------------------------------------------------- leaderboards read by other tools
ENTRANTS = [FORMULA, "@SUM(1+1)", "-1+2", MARKDOWN]
TOURNAMENT = """name = "t"
seed = 7
format = "round-robin"
deals = 1
store = "store.sqlite"
workers = 1
[[variants]]
name = "tute-2"
""" + "".join(f"[[entrants]]\nname = {json.dumps(n)}\nbot = \"random\"\n" for n in ENTRANTS)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tournament")
    (folder / "tournament.toml").write_text(TOURNAMENT, encoding="utf-8")
    done = subprocess.run([TUTE, "run", "tournament.toml"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return folder / "store.sqlite"


def formulas(text: str) -> list[str]:
    """The CSV cells a spreadsheet would take for a formula: text starting with = + - or @."""
    def number(cell: str) -> bool:
        try:
            float(cell)
            return True
        except ValueError:
            return False
    return [c for row in csv.reader(io.StringIO(text)) for c in row if c[:1] in ("=", "+", "-", "@") and not number(c)]


def leaderboard(capsys: pytest.CaptureFixture[str], store: Path, fmt: str) -> str:
    from league_util import tute
    code, out, err = tute(capsys, "leaderboard", "--store", str(store), "--format", fmt, "--matrix")
    assert code == 0, err
    return out


def test_a_leaderboards_csv_holds_no_formula(tournament: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = leaderboard(capsys, tournament, "csv")
    assert formulas(out) == []


def test_league_standings_csv_holds_no_formula(league: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from league_util import tute
    code, out, err = tute(capsys, "league", "standings", "-l", str(league), "--format", "csv")
    assert code == 0, err
    assert formulas(out) == []


def cells(line: str) -> list[str]:
    """A GitHub table row's cells: split at every '|' that no backslash escapes."""
    return re.split(r"(?<!\\)\|", line.strip().strip("|"))


def test_a_leaderboards_github_table_shows_names_as_text(tournament: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = leaderboard(capsys, tournament, "github")
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert all(len(cells(r)) == len(cells(rows[0])) for r in rows[:len(ENTRANTS) + 2])  # the pipe is escaped
    for markup in ("**B**", "`c`", "[x](http:"):
        assert markup not in out, markup


def test_league_standings_github_keeps_its_columns(league: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from league_util import tute
    code, out, err = tute(capsys, "league", "standings", "-l", str(league), "--format", "github")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 4
    assert [len(cells(r)) for r in rows] == [len(cells(rows[0]))] * len(rows)


def test_json_and_html_leaderboards_keep_names_as_typed(tournament: Path, league: Path,
                                                        capsys: pytest.CaptureFixture[str], chromium: Any,
                                                        tmp_path: Path) -> None:
    from league_util import tute
    data = json.loads(leaderboard(capsys, tournament, "json"))
    assert sorted(s["entrant"] for s in data["variants"]["tute-2"]["standings"]) == sorted(ENTRANTS)
    code, out, _ = tute(capsys, "league", "standings", "-l", str(league), "--format", "json")
    assert code == 0
    assert sorted(s["entrant"] for s in json.loads(out)["standings"]) == sorted([LONG_ENTRANT, FORMULA, MARKDOWN, "cmd"])
    page_path = tmp_path / "board.html"
    page_path.write_text("<!DOCTYPE html><meta charset=utf-8>" + leaderboard(capsys, tournament, "html"), encoding="utf-8")
    page = chromium.new_page().open(page_path)
    shown = page.locator("table").first.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(t.strip() for t in shown) == sorted(ENTRANTS)
    assert page.locator("img, a, strong, code").count() == 0 and page.errors == []
    page.close()
