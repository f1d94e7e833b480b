"""The league report in a real browser (the system Chromium through Playwright): every entrant in the
standings, one rating chart with a band per entrant and its new version marked, intervals in sight,
per-variant tables that agree with the standings, withdrawn entrants apart, head-to-head cells opening
the games of the pair; names, owners and bot texts from submitters shown as typed and never run; no
local path anywhere (a command bot's folder, a forfeit's detail); readable on a phone; screenshots at
1280x800 and 390x800."""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.result import Forfeit
from leagues.league.config import load_league
from leagues.league.league import League
from leagues.league.rating import standings
from leagues.league.report import (_file_name, _slug, local_paths, public_bot, report_replay, scrub,
                                   write_report)
from leagues.league.store import LeagueStore, Version
from leagues.tournament.store import Store

from browser import CONTRAST, browser
from league_util import tute, write_league

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "random_bot.py"
#: names a submitter may choose (the league refuses only '/', spaces and tabs): markup, kept as text
SCRIPTED = '<script>alert("name")<script>'
QUOTED = "q\"'&<b>x"
HOSTILE_OWNER = '<img src=x onerror="alert(1);window.pwned=1"><script>window.pwned=2</script>'
HOSTILE_ARG = "--tag=<img src=x onerror=alert(3)>'\""
SECRET_DIR = "secretdir4711"
REPLAYS = 2


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three seasons of four entrants, one a command under a folder of its own (resubmitted before the
    third season: version 2), one withdrawn before the third; then ``tute league report``."""
    folder = tmp_path_factory.mktemp("league")
    write_league(folder, variants=[{"name": "tute-2"}, {"name": "tute-3"}], workers=2)
    hidden = folder / SECRET_DIR
    hidden.mkdir()
    script = hidden / "mine.py"
    script.write_text(EXAMPLE.read_text())
    command = shlex.join([sys.executable, str(script), HOSTILE_ARG])
    with League.open(folder) as lg:
        lg.submit("greedy", "greedy", owner="ana")
        lg.submit(SCRIPTED, "random", owner=HOSTILE_OWNER, params={"seed": 1})
        lg.submit(QUOTED, "random", owner="ben", params={"seed": 2})
        lg.submit("mine", command, owner="eva")
        lg.play_season(quiet=True)
        lg.play_season(quiet=True)
        lg.withdraw(QUOTED)
        script.write_text(EXAMPLE.read_text() + "\n# version 2\n")
        lg.submit("mine", command, owner="eva", update=True)
        lg.play_season(quiet=True)
    out = folder / "report"
    done = subprocess.run([str(Path(sys.executable).parent / "tute"), "league", "report", "-l", str(folder), "--out",
                           str(out), "--replays", str(REPLAYS)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def test_no_local_path_and_no_script_of_ours_or_theirs(report: Path) -> None:
    files = [p for p in report.rglob("*") if p.is_file()]
    assert (report / "index.html") in files and len(files) > 3
    for p in files:
        text = p.read_text()
        assert SECRET_DIR not in text and str(ROOT) not in text and str(report.parent) not in text, p
        assert str(Path(sys.executable).parent) not in text and str(Path(sys.executable).resolve().parent) not in text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
        assert len(p.name) < 120
    index = (report / "index.html").read_text()
    assert "<script" not in index  # the report itself needs none
    assert re.search(r"<code><bdi>python[\d.]* mine\.py --tag=&lt;img src=x", index)  # the program, not its place


def test_the_report_in_the_browser(report: Path) -> None:
    cfg = load_league(report.parent)
    with LeagueStore(cfg.store) as db:
        seasons = [s for s in db.seasons() if s.finished is not None]
        played = {e: sum(1 for x in db.season_entrants() if x.entrant == e)
                  for e in ("greedy", SCRIPTED, QUOTED, "mine")}
        current = standings(db, cfg)
    with browser() as b:
        page = b.new_page(1280, 800).open(report / "index.html")
        # nothing of theirs ran or was built: no dialog, no console error, no element
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert page.locator("img").count() == 0 and page.locator("img[src=x]").count() == 0
        assert page.locator("script").count() == 0 and page.locator("b, i").count() == 0
        text = page.locator("body").inner_text()
        for typed in (SCRIPTED, QUOTED, HOSTILE_OWNER, HOSTILE_ARG):
            assert typed in text, typed
        # standings: the active entrants, ranked, names as typed, each rating with its interval
        pooled = page.locator("table.standings").first
        assert sorted(pooled.locator("td.name a").all_inner_texts()) == sorted(["greedy", SCRIPTED, "mine"])
        assert pooled.locator("tr td:first-child").all_inner_texts() == ["1", "2", "3"]
        assert "mu ± 2σ" in pooled.locator("th").all_inner_texts()
        assert re.fullmatch(r"-?\d+\.\d ± \d+\.\d", pooled.locator("tr").nth(1).locator("td").nth(4).inner_text())
        # a table per variant, agreeing with the standings' per-variant ratings
        assert page.locator("table.variant").count() == 2
        for i, label in enumerate(cfg.labels):
            table = page.locator("table.variant").nth(i)
            rows = [r.locator("td").all_inner_texts() for r in table.locator("tr").all()[1:]]
            assert {r[1]: float(r[2]) for r in rows} == {s.entrant: pytest.approx(s.variants[label], abs=0.006)
                                                       for s in current}
            assert all(re.fullmatch(r"-?\d+\.\d ± \d+\.\d", r[3]) for r in rows)
        # the withdrawn one apart, and marked wherever it still shows
        assert page.locator("#withdrawn").count() == 1
        assert page.locator("table.withdrawn td.name").all_inner_texts() == [QUOTED]
        assert page.locator(".legend li", has_text="withdrawn").all_inner_texts() == [f"{QUOTED} withdrawn"]
        assert page.locator(".entrant h3", has_text="withdrawn").count() == 1
        # one chart: a line and a band for each entrant, a dot per season it played, v2 where it starts
        lines = page.locator("#rating-chart polyline.line").evaluate_all("e => e.map(x => x.dataset.entrant)")
        assert sorted(lines) == sorted(played)
        assert page.locator("#rating-chart polygon.band").count() == len(played)
        assert page.locator("#rating-chart circle").count() == sum(played.values())
        assert page.locator("#rating-chart text.version").all_text_contents() == ["v2"]
        assert "mu ± 2σ" in page.locator("figcaption").inner_text()
        legend = page.locator(".legend li").all_inner_texts()
        assert sorted(t.removesuffix(" withdrawn") for t in legend) == sorted(played)
        # head to head: score ± half-width as text, every cell a link to the pair's games, those the stored ones
        links = page.locator("table.h2h a").evaluate_all("e => e.map(x => [x.getAttribute('href'), x.textContent])")
        assert len(links) == 6 and all(re.fullmatch(r"\d\.\d\d ±\d\.\d\d", text) for _, text in links)
        assert page.errors == []
        replays = 0
        for href in {h for h, _ in links}:
            page.open(report / href)
            ids = page.locator("table.games td.name").all_inner_texts()
            a, b_ = page.locator("h1").inner_text().removesuffix(": their games").split(" and ")
            with Store(cfg.store) as store:
                together = [g.id for s in seasons for t in s.tournaments for g in store.games(t)
                            if {a, b_} <= set(g.seats)]
            assert ids == together
            shown = page.locator("table.games a").count()
            commands = page.locator("table.games code").all_inner_texts()
            assert shown + len(commands) == len(ids)
            replays += shown
            assert all(re.fullmatch(rf"tute replay --store {cfg.store.name} \S+", c) for c in commands)
            assert page.evaluate(CONTRAST) == []
            assert page.errors == []
        assert replays > 0


def test_the_report_reads_on_a_phone_and_a_desktop(report: Path, tmp_path: Path) -> None:
    with browser() as b:
        for width in (1280, 390):
            page = b.new_page(width, 800).open(report / "index.html")
            assert page.evaluate(CONTRAST) == [], width
            # the page never scrolls sideways: a wide table scrolls in its own box
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert page.evaluate("document.body.scrollWidth") <= width
            shot = tmp_path / f"report-{width}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 20_000
            assert page.errors == []


def test_replay_pages_are_bounded_and_link_back(report: Path) -> None:
    pages = sorted((report / "replays").glob("*.html"))
    index = (report / "index.html").read_text()
    assert len(pages) == REPLAYS * 3  # --replays 2, three seasons, each variant one
    for s in (1, 2, 3):  # the variants take turns
        assert len(re.findall(rf'href="replays/club_s{s}_tute-2_[^"]*"', index)) == 1
        assert len(re.findall(rf'href="replays/club_s{s}_tute-3_[^"]*"', index)) == 1
    with browser() as b:
        page = b.new_page().open(pages[0], "end")
        assert page.locator("#back").get_attribute("href") == "../index.html"
        assert page.errors == []


def test_a_report_written_again_keeps_no_stale_page(report: Path, tmp_path: Path) -> None:
    """Pages of an earlier report into the same folder that the new one does not link are gone (they
    may be an older version's, with what it published); anything else in the folder stays."""
    out = tmp_path / "again"
    shutil.copytree(report, out)
    for stale in ("pairs/a__b.html", "replays/old.html"):
        (out / stale).write_text(SECRET_DIR)
    (out / "notes.txt").write_text("mine")
    with League.open(report.parent) as lg:
        write_report(lg, out, replays=1)
    assert not (out / "pairs" / "a__b.html").exists() and not (out / "replays" / "old.html").exists()
    assert (out / "notes.txt").exists()
    assert len(list((out / "replays").glob("*.html"))) == 3
    assert sorted(p.name for p in (out / "pairs").glob("*")) == sorted(p.name for p in (report / "pairs").glob("*"))


def test_bad_names_are_refused_in_one_line(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a/b", "<img src=x onerror=alert(1)>", "</script>"):
        code, _, err = tute(capsys, "league", "submit", name, "random", "-l", str(report.parent))
        assert code == 2 and len(err.strip().splitlines()) == 1, name


def test_a_forfeits_detail_loses_its_local_paths(report: Path) -> None:
    """A forfeit's detail may quote the command that failed, or anything a bot reported: the report's
    copy of the record names files, not where they are."""
    cfg = load_league(report.parent)
    with LeagueStore(cfg.store) as db:
        versions = db.versions()
        local = local_paths(cfg, versions)
    mine = next(v for v in versions if v.entrant == "mine")
    path = next(a for a in mine.bot if a.endswith("mine.py"))
    detail = f"cannot start {' '.join(mine.bot)}: gone; see {Path(path).parent} or /home/someone/{SECRET_DIR}/x.log"
    assert SECRET_DIR in detail
    shown = scrub(detail, local)
    assert SECRET_DIR not in shown and "mine.py" in shown and "x.log" in shown
    assert scrub("3/4 of club/s1/tute-2/r1 at 1/2", local) == "3/4 of club/s1/tute-2/r1 at 1/2"
    assert scrub("at C:\\Users\\ana\\bot.exe, ~/bots/x.py", local) == "at bot.exe, x.py"
    with Store(cfg.store) as store:
        g = store.games(limit=1)[0]
        rec = store.record(g.id)
    rec = dataclasses.replace(rec, result=dataclasses.replace(rec.result, forfeit=Forfeit(0, "crash", detail)),
                              extra={"note": str(path)})
    page = report_replay(rec, local)
    assert SECRET_DIR not in page and "mine.py" in page


def _version(bot: str | tuple[str, ...]) -> Version:
    return Version("x", 1, "o", bot, "command", "command", "", {}, "auto", "0" * 64, (), 0.0)


def test_a_command_is_shown_without_its_folders() -> None:
    assert public_bot(_version(("/usr/bin/python3", "/home/ana/bots/my_bot.py", "--depth", "3"))) == \
        "python3 my_bot.py --depth 3"
    assert public_bot(_version(("C:\\Users\\ana\\bot.exe", "--model=/home/ana/w.bin"))) == "bot.exe --model=w.bin"
    assert public_bot(_version("greedy")) == "greedy"


def test_anchors_and_file_names_never_collide() -> None:
    assert _slug("~a") != _slug("\u07ea") and _slug("a;") != _slug("a~3b;")
    assert _file_name("a__b", "c") != _file_name("a", "b__c")
    assert len(_file_name("ñ" * 64, "€" * 64)) < 120


RTL = "\u05d0\u05d1\u05d2"  # three Hebrew letters: a name in a right-to-left script

#: the left edges, as drawn, of the first Hebrew letter and of the first digit in an element's text
NAME_THEN_DIGIT_JS = """el => {
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const edge = re => { walk.currentNode = el;
    for (let n = walk.nextNode(); n; n = walk.nextNode()) { const i = n.textContent.search(re);
      if (i >= 0) { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                    return r.getBoundingClientRect().left; } }
    return null; };
  return [edge(/[\u05d0-\u05ea]/), edge(/[0-9]/)];
}"""


def test_a_right_to_left_name_keeps_the_text_after_it_in_place(tmp_path: Path) -> None:
    """A league or an entrant named in a right-to-left script drew "<league>: 4 games together" as
    "4 :<league> games together" on a pair's page; names in running text are isolated (``bdi``)."""
    folder = tmp_path / "league"
    folder.mkdir()
    write_league(folder, RTL)
    with League.open(folder) as lg:
        lg.submit(RTL + "1", "random", owner=RTL, params={"seed": 1})
        lg.submit("greedy", "greedy", owner="ana")
        lg.play_season(quiet=True)
        out = tmp_path / "report"
        write_report(lg, out, replays=1)
    pair = next((out / "pairs").glob("*.html"))
    assert f"<bdi>{RTL}1</bdi>" in (out / "index.html").read_text()
    with browser() as b:
        page = b.new_page(1280, 800).open(pair)
        name_left, digit_left = page.locator("p.muted").first.evaluate(NAME_THEN_DIGIT_JS)
        assert name_left is not None and digit_left is not None
        assert name_left < digit_left, (name_left, digit_left)
        assert page.errors == []
