"""The league report in a real browser (the system Chromium through Playwright): every entrant in the
standings, one rating chart with a band per entrant, intervals in sight, per-variant tables, withdrawn
entrants apart, head-to-head cells opening the games of the pair; names and owners from submitters
shown as typed and never run; no local path anywhere; readable on a phone; screenshots at 1280x800
and 390x800."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from leagues.league.config import load_league
from leagues.league.league import League
from leagues.league.store import LeagueStore
from leagues.tournament.store import Store

from browser import browser
from league_util import tute, write_league
from test_replay_page import CONTRAST

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "random_bot.py"
ODD = "<i>it<i>"             # a name a submitter may choose: markup, kept as text
QUOTED = "q\"'&<b>x"
HOSTILE_OWNER = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
SECRET_DIR = "secretdir4711"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("league")
    write_league(folder, variants=[{"name": "tute-2"}, {"name": "tute-3"}], workers=2)
    hidden = folder / SECRET_DIR
    hidden.mkdir()
    (hidden / "mine.py").write_text(EXAMPLE.read_text())
    with League.open(folder) as lg:
        lg.submit("greedy", "greedy", owner="ana")
        lg.submit(ODD, "random", owner=HOSTILE_OWNER, params={"seed": 1})
        lg.submit(QUOTED, "random", owner="ben", params={"seed": 2})
        lg.submit("mine", f"{sys.executable} {hidden / 'mine.py'}", owner="eva")
        lg.play_season(quiet=True)
        lg.play_season(quiet=True)
        lg.withdraw(QUOTED)
        lg.play_season(quiet=True)
    out = folder / "report"
    done = subprocess.run([str(Path(sys.executable).parent / "tute"), "league", "report", "-l", str(folder), "--out",
                           str(out), "--replays", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def test_no_local_path_and_no_script_of_ours_or_theirs(report: Path) -> None:
    files = [p for p in report.rglob("*.html")]
    assert files and (report / "index.html") in files
    for p in files:
        text = p.read_text()
        assert SECRET_DIR not in text and str(ROOT) not in text, p
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    index = (report / "index.html").read_text()
    assert "<script" not in index  # the report itself needs none
    assert "<code>" in index and "mine.py</code>" in index  # the program's name, not where it lives


def test_the_report_in_the_browser(report: Path, tmp_path: Path) -> None:
    cfg = load_league(report.parent)
    with LeagueStore(cfg.store) as db:
        seasons = [s for s in db.seasons() if s.finished is not None]
        played = {e: sum(1 for x in db.season_entrants() if x.entrant == e) for e in ("greedy", ODD, QUOTED, "mine")}
    with browser() as b:
        page = b.new_page(1280, 800).open(report / "index.html")
        assert page.evaluate("typeof window.pwned") == "undefined" and page.locator("img").count() == 0
        assert page.locator("script").count() == 0
        # standings: the active entrants, names shown as typed; the withdrawn one apart
        names = page.locator("table.standings").first.locator("td.name a").all_inner_texts()
        assert sorted(names) == sorted(["greedy", ODD, "mine"])
        ranks = page.locator("table.standings").first.locator("tr td:first-child").all_inner_texts()
        assert ranks == ["1", "2", "3"]
        assert page.locator("#withdrawn").count() == 1
        assert page.locator("table.withdrawn td.name").all_inner_texts() == [QUOTED]
        assert HOSTILE_OWNER in page.locator("body").inner_text()
        # intervals in sight, per-variant tables
        head = page.locator("table.standings").first.locator("th").all_inner_texts()
        assert "mu ± 2σ" in head
        assert re.fullmatch(r"-?\d+\.\d ± \d+\.\d", page.locator("table.standings").first.locator("tr").nth(1)
                            .locator("td").nth(4).inner_text())
        assert page.locator("table.variant").count() == 2
        # one chart: a line and a band for each entrant, a dot per season it played
        lines = page.locator("#rating-chart polyline.line").evaluate_all("e => e.map(x => x.dataset.entrant)")
        assert sorted(lines) == sorted(played)
        assert page.locator("#rating-chart polygon.band").count() == len(played)
        assert page.locator("#rating-chart circle").count() == sum(played.values())
        assert sorted(page.locator(".legend li").all_inner_texts()) == sorted(played)
        # head to head: every cell with a score links to the pair's games, and those are the stored ones
        links = page.locator("table.h2h a").evaluate_all("e => e.map(x => [x.getAttribute('href'), x.textContent])")
        assert links and all(re.fullmatch(r"\d\.\d\d ±\d\.\d\d", text) for _, text in links)
        href = next(h for h, _ in links if h)
        page.open(report / href)
        ids = page.locator("table.games td.name").all_inner_texts()
        a, b_ = page.locator("h1").inner_text().split(" and ")
        with Store(cfg.store) as store:
            together = [g.id for s in seasons for t in s.tournaments for g in store.games(t)
                        if {a, b_} <= set(g.seats)]
        assert ids == together
        assert page.locator("table.games a").count() + page.locator("table.games code").count() == len(ids)
        assert page.errors == []


def test_the_report_reads_on_a_phone_and_a_desktop(report: Path, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    with browser() as b:
        for width in (1280, 390):
            page = b.new_page(width, 800).open(report / "index.html")
            assert page.evaluate(CONTRAST) == [], width
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            shot = shots / f"report-{width}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 20_000
            assert page.errors == []


def test_replay_pages_are_bounded_and_link_back(report: Path) -> None:
    pages = list((report / "replays").glob("*.html"))
    assert 0 < len(pages) <= 2 * 3  # --replays 2, three seasons
    with browser() as b:
        page = b.new_page().open(pages[0], "end")
        assert page.locator("#back").get_attribute("href") == "../index.html"
        assert page.errors == []


def test_bad_names_are_refused_in_one_line(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = tute(capsys, "league", "submit", "a/b", "random", "-l", str(report.parent))
    assert code == 2 and len(err.strip().splitlines()) == 1
