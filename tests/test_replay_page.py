"""The HTML replay in a real browser (the system Chromium through Playwright): for a deal of each kind
of variant, step to given points and compare what the page shows (trump, whose turn, the trick list,
the table, the scores) with the referee's own state at that point; keys, clicks and autoplay; nothing
from a record can run as script; text contrast; screenshots at a desktop and a phone width."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena import GameRecord, get_variant, play_game, shuffled_deck
from arena.cards import NAMES, NO_CARD
from arena.record import replay_steps
from arena.state import GameState
from bots.random_bot import RandomBot
from leagues.records.replay_html import replay_page
from leagues.records.wording import suit_word

from browser import CONTRAST, browser, plain

ACTING = {"play", "declare", "deal_tute", "auction", "trump", "exchange"}


def deal(variant: str, want: str = "") -> GameRecord:
    """A random deal of ``variant``; ``want = "pairs"`` finds one where cabrón's pair tricks change trump
    (seeds tried in order, so the test is the same every time)."""
    v = get_variant(variant)
    for seed in range(200):
        rec = play_game(v, shuffled_deck(v, seed), seed % v.players, [RandomBot(seed=seed * 7 + s) for s in range(v.players)],
                        game_id=f"t/{variant}/{seed}", seed=seed, names=[f"bot{s}" for s in range(v.players)])
        last = list(replay_steps(rec))[-1][1]
        if want != "pairs" or len(last.pair_tricks) >= 1:
            return rec
    raise AssertionError(f"no deal of {variant} found for {want}")


def states(rec: GameRecord) -> list[GameState]:
    return [st.copy() for _, st in replay_steps(rec)]


def write(tmp_path: Path, rec: GameRecord, **kw: Any) -> Path:
    path = tmp_path / f"{rec.variant}.html"
    path.write_text(replay_page(rec, **kw), encoding="utf-8")
    return path


#: the step the page shows, read in the page (for waits): the third word from the end of its position line
SHOWN_STEP_JS = "document.querySelector('#pos').innerText.trim().split(/\\s+/).at(-3)"


def shown_step(page: Any) -> int:
    """The step the page shows."""
    return int(page.evaluate(f"() => {SHOWN_STEP_JS}"))


def check_frame(page: Any, rec: GameRecord, st: GameState, index: int) -> None:
    """What the page shows at ``index`` is the referee's state after ``index`` actions."""
    assert shown_step(page) == index
    over = index == len(rec.actions)
    assert page.text("#trump") == suit_word(st.trump)
    sides = rec.result.points if over else st.points
    assert page.text("#score") == " - ".join(str(sum(sides[s] for s in t)) for t in rec.teams)
    movers = page.locator(".seat.onmove").evaluate_all("els => els.map(e => +e.dataset.seat)")
    acting = not over and st.phase_name in ACTING
    assert movers == ([st.current_player] if acting else []), (index, st.phase_name)
    # the pile only where there is one, the face-up card drawn as a card
    assert page.locator("#pile").is_visible() == st.variant.draw_pile
    face = page.locator("#faceup .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert face == ([NAMES[st.face_up]] if st.face_up != NO_CARD else [])
    # the trick list: every finished trick with its cards and winner, the others still blank
    rows = page.locator("#trickRows tr.done").evaluate_all(
        "els => els.map(e => [...e.children].map(td => td.textContent))")
    assert len(rows) == len(st.tricks)
    for row, (leader, cards, winner) in zip(rows, st.tricks):
        order = st.trick_order(leader)
        assert plain(row[1]) == rec.seats[leader] and plain(row[3]) == rec.seats[winner]
        assert row[2].split() == [NAMES[c] for c in cards], (index, row)
        assert len(order) == len(cards)
    # the table: each card under the seat that played it
    slots = page.locator("#table .slot").evaluate_all(
        "els => els.map(e => [+e.dataset.seat, e.querySelector('.card').dataset.card])")
    if st.trick:
        assert slots == [[s, NAMES[c]] for s, c in zip(st.trick_order(st.leader), st.trick)]
    elif st.tricks and slots:
        leader, cards, _ = st.tricks[-1]
        assert slots == [[s, NAMES[c]] for s, c in zip(st.trick_order(leader), cards)]
    # trump cards are marked, and only they
    marked = page.locator("#seats .card.trump").evaluate_all("els => els.map(e => e.dataset.card)")
    assert all(m[-1] == "oceb"[st.trump] for m in marked)
    if over:
        assert page.text("#result") and page.text("#result") in " ".join(page.text("#events").splitlines())


CASES = [("tute-2", ""), ("tute-4-pairs", ""), ("subastado", ""), ("cabron", "pairs"), ("cabrero-5", "")]


@pytest.mark.parametrize("variant,want", CASES)
def test_the_page_shows_what_the_referee_saw_at_every_point_asked(variant: str, want: str, tmp_path: Path) -> None:
    rec = deal(variant, want)
    sts = states(rec)
    path = write(tmp_path, rec)
    last = len(rec.actions)
    points = sorted({0, 1, last // 3, last // 2, (2 * last) // 3, last - 1, last})
    with browser() as b:
        page = b.new_page(1280, 800)
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        for i in points:
            page.open(path, str(i) if i < last else "end")
            check_frame(page, rec, sts[i], i)
        # keys: right steps on, T jumps to the end of the next trick, End to the result
        page.open(path, "5")
        page.keyboard.press("ArrowRight")
        check_frame(page, rec, sts[6], 6)
        page.keyboard.press("t")
        done = next(i for i in range(7, last + 1) if len(sts[i].tricks) > len(sts[6].tricks))
        check_frame(page, rec, sts[done], done)
        page.keyboard.press("End")
        check_frame(page, rec, sts[last], last)
        # a click on a finished trick jumps to the step that finished it
        page.locator("#trickRows tr.done").nth(1).click()
        second = next(i for i in range(last + 1) if len(sts[i].tricks) == 2)
        check_frame(page, rec, sts[second], second)
        if variant == "subastado":
            bids = page.locator("#bids li").all_inner_texts()
            assert len(bids) == len(sts[second].bids) and page.locator("#contract").is_visible()
            c = rec.result.contract or {}
            assert str(c.get("bid")) in page.text("#contractText")
            assert re.search(r"(made|failed) the contract: \d+ of \d+", _final(page, path))
        if variant == "cabron":
            page.open(path, "end")
            assert len(page.locator("#pairs li").all_inner_texts()) == len(sts[last].pair_tricks) >= 1
            first_pair = next(i for i in range(last + 1) if sts[i].pair_tricks)
            page.open(path, str(first_pair - 1))
            check_frame(page, rec, sts[first_pair - 1], first_pair - 1)  # trump before the pair trick
            page.open(path, str(first_pair))
            check_frame(page, rec, sts[first_pair], first_pair)  # and after: the pair's suit
            assert page.locator(".seat.loser").count() == 0
            page.open(path, "end")
            assert sorted(page.locator(".seat.loser").evaluate_all("e => e.map(x => +x.dataset.seat)")) == \
                sorted(rec.result.losers or [])
        assert page.errors == []
        assert all(u.startswith("file://") for u in requests), requests


def _final(page: Any, path: Path) -> str:
    page.open(path, "end")
    return page.text("#result")


def test_a_new_fragment_moves_the_open_page(tmp_path: Path) -> None:
    """Editing the address's fragment (or going back) moves an open page to that step: the page's
    ``hashchange`` handler, waited for since it runs after the navigation returns."""
    rec = deal("tute-2")
    sts = states(rec)
    path = write(tmp_path, rec)
    with browser() as b:
        page = b.new_page().open(path, "3")
        check_frame(page, rec, sts[3], 3)
        page.evaluate("() => { location.hash = '9'; }")
        page.wait_for_function(f"() => {SHOWN_STEP_JS} === '9'")
        check_frame(page, rec, sts[9], 9)
        assert page.errors == []


def test_autoplay_runs_and_pauses_and_the_keys_are_listed(tmp_path: Path) -> None:
    rec = deal("tute-2")
    path = write(tmp_path, rec)
    with browser() as b:
        page = b.new_page()
        page.open(path)
        assert "Space" in page.text("#keys") and "\u2192" in page.text("#keys")
        page.select_option("#speed", "4")
        page.click("#play")
        page.wait_for_timeout(1200)
        page.keyboard.press(" ")  # pause
        at = shown_step(page)
        assert at >= 3
        page.wait_for_timeout(600)
        assert shown_step(page) == at
        assert page.errors == []


def test_a_seat_page_hides_the_other_hands_everywhere(tmp_path: Path) -> None:
    rec = deal("tute-4-pairs")
    path = write(tmp_path, rec, seat=1)
    with browser() as b:
        page = b.new_page().open(path, "3")
        for s in (0, 2, 3):
            cards = page.locator(f"#seat-{s} .card")
            assert cards.count() > 0 and cards.count() == page.locator(f"#seat-{s} .card.back").count()
        assert page.locator("#seat-1 .card.back").count() == 0
        hidden = page.evaluate("JSON.parse(document.getElementById('game').textContent).frames"
                               ".every(f => f.hands.every((h, s) => s === 1 || h === null))")
        assert hidden
        assert page.errors == []


HOSTILE = ['<script>window.pwned = 1</script>', '<img src=x onerror="window.pwned = 2">', "it's \"quoted\" & <b>bold</b>"]


class Nonsense(RandomBot):
    """Answers with markup on its third decision: what a hostile bot could send."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.calls = 0

    def choose(self, view: Any) -> str:
        self.calls += 1
        return '<img src=x onerror="window.pwned = 3"></script><script>window.pwned = 4</script>' \
            if self.calls == 3 else super().choose(view)


def test_nothing_from_a_record_runs_as_script_and_names_show_as_typed(tmp_path: Path) -> None:
    v = get_variant("tute-3")
    rec = play_game(v, shuffled_deck(v, 4), 0, [RandomBot(seed=1), Nonsense(), RandomBot(seed=2)],
                    game_id="</script><script>window.pwned=5</script>", seed=4, names=HOSTILE)
    assert rec.result.forfeit is not None and "<img" in rec.result.forfeit.detail
    rec = GameRecord.loads(rec.dumps())
    for seat in (None, 0):
        path = write(tmp_path, rec, seat=seat, back='"><script>window.pwned=6</script>')
        with browser() as b:
            page = b.new_page().open(path, "end")
            assert page.evaluate("typeof window.pwned") == "undefined"
            assert page.locator("img").count() == 0 and page.locator("b").count() > 0  # our own <b> only
            assert page.locator("script").count() == 2
            assert all(page.locator("b").evaluate_all("els => els.map(e => e.id !== '' || e.closest('.info'))"))
            for s, name in enumerate(HOSTILE):
                assert page.text(f"#seat-{s} .label").startswith(name)
            assert "<img src=x" in page.text("#result")
            assert plain(page.title()).startswith("tute-arena: game </script>")
            assert page.errors == []


@pytest.mark.parametrize("variant,want", [("tute-2", ""), ("tute-4-pairs", ""), ("subastado", ""), ("cabron", "pairs")])
def test_text_contrast_is_at_least_aa_and_the_page_fits_a_phone(variant: str, want: str, tmp_path: Path) -> None:
    rec = deal(variant, want)
    path = write(tmp_path, rec)
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with browser() as b:
        for width in (1280, 390):
            page = b.new_page(width, 800)
            for at in ("12", "end"):
                page.open(path, at)
                assert page.evaluate(CONTRAST) == [], (width, at)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot = shots / f"{variant}-{width}.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
            assert page.errors == []


@pytest.mark.parametrize("variant", ["tute-2", "subastado"])
def test_long_names_wrap_and_the_speed_keys_stay_on_the_list(variant: str, tmp_path: Path) -> None:
    """A seat name of 100 characters without a space (an entrant may have one) made the list of tricks
    1,600 px wide and the page scroll sideways; + and - went to 8x and 0.25x, which the speed list did
    not have, and left it blank."""
    v = get_variant(variant)
    names = [f"{'abcdefghij' * 10}{s}" for s in range(v.players)]
    rec = play_game(v, shuffled_deck(v, 3), 0, [RandomBot(seed=s) for s in range(v.players)], game_id="t/long",
                    seed=3, names=names)
    path = write(tmp_path, rec)
    with browser() as b:
        for width in (1280, 390):
            page = b.new_page(width, 800)
            for at in ("12", "end"):
                page.open(path, at)
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, at)
        for key, shown in (("+", ["2", "4", "8", "8"]), ("-", ["4", "2", "1", "0.5", "0.25", "0.25"])):
            for want in shown:
                page.keyboard.press(key)
                assert page.evaluate("document.getElementById('speed').value") == want, (key, want)
        # the browser's own keys (Ctrl+- zooms out, Alt+Left goes back) are not the page's
        page.open(path, "5")
        for chord in ("Control+ArrowRight", "Alt+ArrowLeft", "Control+Minus", "Meta+ArrowRight"):
            page.keyboard.press(chord)
        assert shown_step(page) == 5 and page.evaluate("document.getElementById('speed').value") == "1"
        assert page.errors == []


RTL = "\u05d0\u05d1\u05d2"  # three Hebrew letters: a name in a right-to-left script

#: the left edges, as drawn, of the seat's name and of the first digit after it in its label
EDGES_JS = """seat => {
  const label = document.querySelector('#seat-' + seat + ' .label');
  const nodes = [...label.childNodes].filter(n => n.nodeType === Node.TEXT_NODE);
  const at = (node, i, j) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, j);
                               return r.getBoundingClientRect().left; };
  const name = nodes[0], rest = nodes[1];
  const digit = rest.textContent.search(/[0-9]/);
  const start = name.textContent.indexOf('\u05d0');
  return [at(name, start, start + 3), at(rest, digit, digit + 1)];
}"""


def test_a_right_to_left_name_keeps_the_words_and_numbers_after_it_in_place(tmp_path: Path) -> None:
    """Without isolation a Hebrew name carried the " · 12 points" after it into its own direction: the
    label read "12 · <name> points", the number drawn left of the name it follows. Each name (and the
    game id, and a bot's words in a result) is laid out on its own now."""
    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 5), 0, [RandomBot(seed=1), RandomBot(seed=2)], game_id=f"t/{RTL}",
                    seed=5, names=[RTL, "greedy"])
    assert rec.result.points[0] > 0
    path = write(tmp_path, rec)
    with browser() as b:
        page = b.new_page().open(path, "end")
        name_left, digit_left = page.evaluate(EDGES_JS, 0)
        assert name_left < digit_left, (name_left, digit_left)
        label = page.locator("#seat-0 .label").first.text_content()
        assert label.startswith(f"\u2068{RTL}\u2069 · ")
        assert f"\u2068t/{RTL}\u2069" in page.title()
        assert plain(page.text("#seat-0 .label")).startswith(f"{RTL} · {rec.result.points[0]} ")
        assert page.errors == []
