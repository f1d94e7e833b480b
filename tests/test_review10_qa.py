"""QA review 10: every key of tournament.toml (docs/config.md; ``TOP_KEYS``, ``VARIANT_KEYS``,
``ENTRANT_KEYS``, ``RATING_KEYS``, ``SPRT_KEYS`` of leagues/tournament/config.py) and of league.toml
(docs/leagues.md; leagues/league/config.py) audited as a user relies on them: its documented effect in
a small real run, its default, a wrong type or value (one line naming the file, line and key, exit 2),
and an edit between a stop and a resume.

Held (the plain tests below pin what the suite lacked):

- ``memory_mb`` is the address-space limit of a command and of a plugin with ``isolation =
  "subprocess"``: a bot allocating 300 MB under ``memory_mb = 160`` forfeits every deal (``crash:
  MemoryError``), and plays clean under 1024.
- ``time_limit_ms`` is told to every bot in ``new_game`` (``time_ms``: in-process, subprocess plugin,
  command, the command with its ``params``); an untrusted ``module:Class`` run with ``isolation =
  "inprocess"`` that answers late is a timeout forfeit, "checked when it answers" (docs/bots.md). A
  variant's ``label`` is the game ids' and the tables' name, its ``options`` reach the bots'
  ``new_game`` and the stored records, the record's ``variant`` is the preset.
- ``max_tables`` is "at most": C(4,3) = 4 groups play whole at ``max_tables = 4``; at 3 a balanced
  subset of ceil(3/2) = 2 rounds, ``rounds = 3`` makes it 3.
- A finished tournament whose file changed in ``memory_mb``, ``max_tables``, ``duplicate``, ``[rating]``,
  a variant's ``label`` or an entrant's ``isolation`` is refused naming the key (one line, exit 2, no
  game touched); ``workers``, ``log`` and ``cluster`` change freely.
- league.toml's ``time_limit_ms`` and ``memory_mb`` hold the compliance run of ``tute league submit``
  (its report says "100 ms/move, 160 MB"); a bot failing them is refused and nothing is stored.
- Also checked by hand, held and already pinned elsewhere: every default of both tables, ``duplicate =
  false`` (one game per deal, the dealer turning, odd deals spread over the round robin), ``seed``
  (negative, 2**64 and 10**200 play; the deck seeds are ``derive_seed(seed, label, round, table,
  deal)``, a season's ``derive_seed(seed, "season", n, d)``), ``[rating]`` (``k = 0`` ranks by ``mu``,
  ``mu``/``sigma`` start there), ``unit``/``match``/``match_max_deals`` (and their wrong values),
  ``sprt``, ``challengers``, ``cluster``, ``workers`` (0 is one per CPU; -j over 8 per CPU refused),
  ``log`` (every worker's records), relative command paths, ``[check] require_reproducible``, a
  league's ``name`` guarded by its store, a league.toml of wrong types and values (one line each).

Defects, each a strict xfail until fixed. All but 6 fixed since, their tests now pin the fixes: the
field runs (and is checked) in the file's folder; a label ``*`` is refused in a file; the league report
shows a match's first deal (``report._shown``); a field where every variant has two sides is refused
(``config._with_field``, for ``tute match --field`` too); ``deals:N`` above the cap is refused in a file;
the docs say two challengers never meet; an empty ``log`` is refused. 6 is left open (its xfail says why):

1. ``field`` is not run in the file's folder: ``field = "./fieldbot"`` is refused as "not an executable
   file" and ``field = "python3 fieldbot.py"`` does not start ("can't open file"), when ``tute run`` is
   started from another folder, while an entrant's ``bot`` of the same text works (docs/config.md:
   "Relative paths are taken from the file's folder"; "A command runs in this file's folder").
   ``leagues/tournament/config.py:_with_field`` checks and builds the field entrant without ``cwd``.
2. A variant labelled ``*`` is folded into the pooled table: its games count twice there (three random
   bots, one deal of ``tute-2`` labelled ``*`` and of ``tute-3``: 11 pooled games each, not 7, and the
   pooled ratings fold the ``*`` games twice), and ``tute leaderboard --variant '*'``, its JSON and CSV
   show that pooled table as the variant's. In a league, ``league_ratings`` keeps one row per entrant
   for scope ``*``: the variant's ratings are lost for good, the pooled ones (places, promotion, the
   next season's priors) are wrong, and the standings' ``*`` column is the pooled rating.
   ``leagues/tournament/tally.py:POOLED = "*"`` is also a label ``Checker.name`` accepts (league entrant
   names refuse ``*``, labels do not).
3. ``tute league report`` exits 2 on any league with a ``unit = "match"`` variant
   (``'club/s1/tute-2/r1/t0/d0/s0' is a match of 2 deals: its deals are ...``): ``_replays`` in
   leagues/league/report.py asks ``Store.record`` for a match's id. With ``--replays 0`` it writes, but
   its pair pages give ``tute replay --store league.sqlite MATCH_ID``, which exits 2.
4. ``field`` in a tournament.toml whose variants all have two sides is accepted and silently unused (the
   field bot is still started before the run), while ``tute match --field`` refuses the same (review 9
   fixed the command, not ``config.py:_with_field``, which returns the field entrant when ``wide`` is
   empty).
5. ``match = "deals:N"`` with N above ``match_max_deals`` (200 by default) is accepted, and every match
   ends at ``match_max_deals`` deals (``ended: max_deals``): ``deals:5`` with ``match_max_deals = 3``
   plays matches of 3 deals, never the "exactly N deals" of docs/rules.md. ``config.py:_match_rule``.
6. ``rounds`` in a round robin where it sets nothing (two-seat variants only, or every group within
   ``max_tables``) is accepted silently: ``rounds = 5`` with two entrants plays one round. The match
   formats refuse ``rounds`` for this very reason ("an option that sets nothing", review 9).
   ``config.py:check_rounds``.
7. docs/config.md and docs/match.md say a gauntlet's challengers are each "tested against every other
   entrant", but two challengers never meet (``leagues/tournament/matches.py`` skips challenger pairs).
8. ``log = ""`` is taken as no ``log`` (the store's path with ``.log``), where ``store = ""`` is refused:
   a wrong value passes silently. ``config.py:check_files`` (``if log``).
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest

from leagues.league.config import ConfigError as LeagueConfigError, load_league
from leagues.tournament.config import ConfigError, load_config
from leagues.tournament.runner import run_tournament
from leagues.tournament.schedule import round_robin_rounds
from leagues.tournament.store import Store

from league_util import TESTS, config_text, protocol_bot, tute, write_config, write_league

ROOT = TESTS.parent
DOCS = ROOT / "docs"

#: a command bot allocating ``argv[1]`` MB at its first decision
HOG = protocol_bot("hog", head="hog = None", act="""
    if hog is None:
        hog = bytearray(int(sys.argv[1]) * 1024 * 1024)
    """)

#: a command bot writing every new_game message to ``argv[1]``; with ``argv[2]`` it sleeps that many
#: seconds before each answer
PROBE = protocol_bot("probe", head="""
    out = open(sys.argv[1], "a")
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    """, new_game="""
    out.write(json.dumps(msg) + "\\n")
    out.flush()
    """, act="time.sleep(delay)")

#: Python bots (``qa10_bots:Class``) for the in-process and subprocess hosts
BOTS = textwrap.dedent("""\
    import json, time

    class Slow:
        def __init__(self, delay=0.6):
            self.delay = delay

        def choose(self, view):
            time.sleep(self.delay)
            return view.legal[0]

    class Hog:
        def __init__(self, mb=300):
            self.mb, self.hog = mb, None

        def choose(self, view):
            if self.hog is None:
                self.hog = bytearray(self.mb * 1024 * 1024)
            return view.legal[0]

    class Info:
        def __init__(self, out=""):
            self.out = out

        def new_game(self, info):
            with open(self.out, "a") as fh:
                fh.write(json.dumps(info, default=str) + "\\n")

        def choose(self, view):
            return view.legal[0]
    """)


def three(bot: str = "random") -> list[dict]:
    return [{"name": f"r{i}", "bot": bot, "params": {"seed": i}} for i in range(3)]


def one_line(err: str, *needles: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tute: error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def forfeit_lines(err: str) -> dict[str, str]:
    """The summary's ``forfeits:`` lines by entrant."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^  (\S+): \d+ of \d+ deals forfeited.*$", err, re.M)}


def run(cwd: Path, *args: str, env_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if env_path is not None:
        import os
        env = dict(os.environ, PYTHONPATH=str(env_path))
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)


# =========================================================================== held: what the keys do
def test_memory_mb_limits_a_command_and_an_isolated_plugin(tmp_path: Path) -> None:
    """docs/config.md: ``memory_mb`` is the address-space limit of the bots run in a subprocess or as a
    command; tests/test_hostile.py holds the hosts to it, never a tournament.toml."""
    (tmp_path / "hog.py").write_text(HOG)
    (tmp_path / "qa10_bots.py").write_text(BOTS)
    for name, memory, code in (("tight", 160, 3), ("roomy", 1024, 0)):
        (tmp_path / f"{name}.toml").write_text(config_text(
            # a move limit no busy machine reaches while 300 MB are allocated: only the memory decides
            name=name, deals=1, memory_mb=memory, time_limit_ms=20_000, store=f"{name}.sqlite", format="gauntlet",
            challengers=["hogcmd", "hogplug"],
            entrants=[{"name": "hogcmd", "bot": [sys.executable, "hog.py", "300"]},
                      {"name": "hogplug", "bot": "qa10_bots:Hog", "params": {"mb": 300}, "isolation": "subprocess"},
                      {"name": "r", "bot": "random"}]))
        done = run(tmp_path, "run", f"{name}.toml", "-j", "1", "-q", env_path=tmp_path)
        assert done.returncode == code, done.stderr
        lost = forfeit_lines(done.stderr)
        if code:
            for bot in ("hogcmd", "hogplug"):
                crashed = rf"  {bot}: (\d+) of \1 deals forfeited \(\1 crash\); first: .*MemoryError"
                assert re.match(crashed, lost[bot]), \
                    done.stderr
            assert "r" not in lost
        else:
            assert not lost, done.stderr


def test_time_limit_ms_is_told_to_every_bot_and_holds_an_inprocess_plugin(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``time_limit_ms``: "Every bot is told it in new_game"; an untrusted bot run in-process answering
    late is a timeout "checked when it answers" (docs/bots.md). The variant's label names the games and
    the table, its options reach the bots and the records."""
    (tmp_path / "qa10_bots.py").write_text(BOTS)
    (tmp_path / "probe.py").write_text(PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sub, cmd = tmp_path / "sub.jsonl", tmp_path / "cmd.jsonl"
    path = write_config(tmp_path, name="tl", deals=1, time_limit_ms=300,
                        variants=[{"name": "tute-2", "label": "lab", "options": {"last_trick_bonus": 3}}],
                        entrants=[{"name": "slow", "bot": "qa10_bots:Slow", "isolation": "inprocess"},
                                  {"name": "sub", "bot": "qa10_bots:Info", "params": {"out": str(sub)},
                                   "isolation": "subprocess"},
                                  {"name": "cmd", "bot": [sys.executable, "probe.py", str(cmd)],
                                   "params": {"depth": 3}}])
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    assert code == 3, err  # slow forfeited every deal
    lost = forfeit_lines(err)
    assert set(lost) == {"slow"}, err
    assert re.match(r"  slow: 4 of 4 deals forfeited \(4 timeout\); first: tl/lab/\S+: timeout: .*over the 300 ms "
                    r"limit \(in-process", lost["slow"]), lost["slow"]
    told = [json.loads(line) for f in (sub, cmd) for line in f.read_text().splitlines()]
    assert len(told) == 8 and all(m["time_ms"] == 300 and m["options"]["last_trick_bonus"] == 3 for m in told)
    assert all(m["params"] == {"depth": 3} for m in map(json.loads, cmd.read_text().splitlines()))
    assert all(m["game_id"].startswith("tl/lab/r") for m in map(json.loads, sub.read_text().splitlines()))
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        rows = store.games("tl")
        assert len(rows) == 6 and {r.variant for r in rows} == {"lab"}
        for r in rows:
            rec = store.record(r.id)
            assert rec.variant == "tute-2" and rec.options["last_trick_bonus"] == 3


def test_max_tables_is_at_most_and_rounds_sizes_the_balanced_subset(tmp_path: Path) -> None:
    entrants = [{"name": f"e{i}", "bot": "random", "params": {"seed": i}} for i in range(4)]
    tute3 = [{"name": "tute-3"}]

    def rounds(**kw: object) -> list[list[tuple[str, ...]]]:
        cfg = load_config(write_config(tmp_path, variants=tute3, entrants=entrants, **kw))
        return [[tuple(t) for t in r.tables] for r in round_robin_rounds(cfg, 0)]

    whole = rounds(max_tables=4)  # C(4, 3) = 4 groups: "at most this many"
    assert len(whole) == 1 and len(whole[0]) == 4
    subset = rounds(max_tables=3)  # a balanced subset of ceil((4 - 1) / (3 - 1)) = 2 rounds
    assert [len(r) for r in subset] == [1, 1]
    assert [len(r) for r in rounds(max_tables=3, rounds=3)] == [1, 1, 1]
    cfg = load_config(write_config(tmp_path, variants=tute3, entrants=entrants, max_tables=3, deals=1))
    summary = run_tournament(cfg, workers=1, quiet=True)
    assert summary.played == 6  # 2 tables x 3 rotations


#: an edit of a finished tournament's file, and the key the refusal names (None: it may change freely)
EDITS = [
    ({"memory_mb": 512}, None, "memory_mb"),
    ({"max_tables": 5}, None, "max_tables"),
    ({"duplicate": False}, None, "duplicate"),
    ({}, "[rating]\nk = 2\n", "rating"),
    ({"variants": [{"name": "tute-2", "label": "two"}]}, None, "variants"),
    ({"entrants": [{"name": "a", "bot": "random", "params": {"seed": 1}, "isolation": "subprocess"},
                   {"name": "b", "bot": "random", "params": {"seed": 2}}]}, None, "entrants"),
    ({"workers": 2}, None, None),
    ({"log": "elsewhere.log"}, None, None),
    ({"cluster": "local:1"}, None, None),
]


@pytest.mark.parametrize("edit,tail,key", EDITS, ids=[k or next(iter(e), "free") for e, _, k in EDITS])
def test_a_finished_tournament_refuses_each_changed_key_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                edit: dict, tail: str | None, key: str | None) -> None:
    """docs/config.md, "The store and resuming": a changed config is refused naming the keys that
    changed; ``workers``, ``store`` and ``log`` (and ``cluster``, docs/cluster.md) change freely."""
    path = write_config(tmp_path, deals=1)
    assert tute(capsys, "run", str(path), "-j", "1", "-q")[0] == 0
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        before = [(r.id, r.seats, r.result) for r in store.games("t")]
    path.write_text(config_text(deals=1, **edit) + (tail or ""), encoding="utf-8")
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    if key is None:
        assert code == 0 and "finished earlier" in err, err
    else:
        one_line(err, f"(changed: {key});", "--new")
        assert code == 2
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        assert [(r.id, r.seats, r.result) for r in store.games("t")] == before


def test_a_leagues_limits_hold_its_compliance_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/leagues.md: ``time_limit_ms`` and ``memory_mb`` hold isolated bots and commands "in seasons and
    in the compliance run"."""
    folder = tmp_path / "club"
    folder.mkdir()
    write_league(folder, time_limit_ms=100, memory_mb=160, tables={"check": {"deals": 2}})
    (tmp_path / "hog.py").write_text(HOG)
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "x.jsonl").touch()  # a command's arguments that are paths must exist (they are hashed)
    slow = f"{sys.executable} {tmp_path / 'probe.py'} {tmp_path / 'x.jsonl'} 0.3"
    for name, bot, reason in (("slow", slow, "timeout"),
                              ("hog", f"{sys.executable} {tmp_path / 'hog.py'} 300", "crash")):
        code, out, err = tute(capsys, "league", "submit", name, bot, "-l", str(folder), "--owner", "o")
        assert code == 2, err
        assert "100 ms/move, 160 MB" in out, (out, err)
        one_line(err, "refused, it fails the compliance run", reason, f"entrant {name!r} not stored")
    with closing(sqlite3.connect(folder / "league.sqlite")) as db:
        assert db.execute("SELECT COUNT(*) FROM league_entrants").fetchone()[0] == 0


# =============================================================================== defects (xfail)
FIELD_BOTS = ["./fieldbot", "{python} fieldbot.py"]


@pytest.mark.parametrize("field", FIELD_BOTS)
def test_the_field_bot_runs_in_the_files_folder_as_an_entrants_command_does(tmp_path: Path, field: str) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    script = "#!" + sys.executable + "\n" + (ROOT / "examples" / "random_bot.py").read_text()
    for name in ("fieldbot", "fieldbot.py", "abot"):
        (sub / name).write_text(script)
        (sub / name).chmod(0o755)
    (sub / "t.toml").write_text(config_text(
        format="match", deals=1, field=field.format(python=sys.executable), variants=[{"name": "tute-3"}],
        entrants=[{"name": "a", "bot": "./abot"}, {"name": "b", "bot": "greedy"}]))
    done = run(tmp_path, "run", "sub/t.toml", "-j", "1", "-q")  # from the folder above the file's
    assert done.returncode == 0, done.stderr
    with Store(sub / "store.sqlite", readonly=True) as store:
        assert all("field" in r.seats for r in store.games("t")) and store.count_games("t") == 3


def test_a_variant_labelled_star_is_refused_or_has_its_own_table(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path, deals=1, entrants=three(),
                        variants=[{"name": "tute-2", "label": "*"}, {"name": "tute-3"}])
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        assert len(str(exc).splitlines()) == 1 and "variants[0].label" in str(exc), exc
        return
    run_tournament(cfg, workers=1, quiet=True)
    code, out, err = tute(capsys, "leaderboard", "--store", str(cfg.store), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert {row["games"] for row in data["pooled"]["standings"]} == {7}  # 4 of tute-2, 3 of tute-3
    assert {row["games"] for row in data["variants"]["*"]["standings"]} == {4}, data["variants"]["*"]


def test_a_league_variant_labelled_star_is_refused_or_rated_apart(tmp_path: Path) -> None:
    from leagues.league.league import League

    folder = tmp_path / "club"
    folder.mkdir()
    path = write_league(folder, variants=[{"name": "tute-2", "label": "*"}, {"name": "tute-3"}], deals=1,
                        tables={"check": {"deals": 6}})
    try:
        load_league(path)
    except LeagueConfigError as exc:
        assert len(str(exc).splitlines()) == 1 and "variants[0].label" in str(exc), exc
        return
    with League.open(path) as lg:
        for i in range(3):
            lg.submit(f"r{i}", "random", owner="o", params={"seed": i})
        lg.play_season(workers=1, quiet=True)
    with closing(sqlite3.connect(folder / "league.sqlite")) as db:
        games = db.execute("SELECT entrant, games FROM league_ratings WHERE season = 1").fetchall()
    for i in range(3):  # a row for the variant (4 deals of tute-2), the pooled (7) and tute-3 (3)
        assert sorted(g for e, g in games if e == f"r{i}") == [3, 4, 7], games


@pytest.fixture
def match_league(tmp_path: Path) -> Path:
    """A league of two random bots that played a season of tute-2 matches (first to 2, at most 3 deals)."""
    from leagues.league.league import League

    folder = tmp_path / "club"
    folder.mkdir()
    path = write_league(folder, deals=1, variants=[{"name": "tute-2", "unit": "match", "match": "first_to:2",
                                                    "match_max_deals": 3}])
    with League.open(path) as lg:
        for i in range(2):
            lg.submit(f"r{i}", "random", owner="o", params={"seed": i})
        lg.play_season(workers=1, quiet=True)
    return folder


def test_the_league_report_of_a_match_unit_variant_is_written(match_league: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = tute(capsys, "league", "report", "-l", str(match_league), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert (tmp_path / "rep" / "index.html").is_file() and list((tmp_path / "rep" / "replays").glob("*.html"))


def test_the_replay_commands_of_a_league_reports_pair_pages_work(match_league: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = tute(capsys, "league", "report", "-l", str(match_league), "--out", str(tmp_path / "rep"),
                          "--replays", "0")
    assert code == 0, err
    ids = [m.group(1) for page in (tmp_path / "rep" / "pairs").glob("*.html")
           for m in re.finditer(r"tute replay --store league\.sqlite (\S+?)</code>", page.read_text())]
    assert ids
    for game_id in ids:
        code, out, err = tute(capsys, "replay", "--store", str(match_league / "league.sqlite"), game_id)
        assert code == 0, (game_id, err)


def test_a_field_where_every_variant_has_two_sides_is_refused_in_the_file(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = write_config(tmp_path, format="match", field="greedy", deals=1)
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    one_line(err, str(path), "field:")
    assert code == 2 and not (tmp_path / "store.sqlite").exists()


def test_a_deals_match_longer_than_its_cap_is_refused_or_played_whole(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=1, variants=[{"name": "tute-2", "unit": "match", "match": "deals:5",
                                                      "match_max_deals": 3}])
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        assert len(str(exc).splitlines()) == 1 and re.search(r"variants\[0\]\.(match|match_max_deals):", str(exc)), exc
        return
    run_tournament(cfg, workers=1, quiet=True)
    with Store(cfg.store, readonly=True) as store:
        assert [len(store.match(r.id).deals) for r in store.games("t")] == [5, 5]


@pytest.mark.xfail(strict=True, reason="QA defect, left open: rounds in a round robin where it sets nothing is "
                                       "accepted silently (docs/config.md says when it counts); refusing it would "
                                       "refuse the resume of a tournament begun with it (rounds is in its identity)")
@pytest.mark.parametrize("variant,entrants", [("tute-2", None), ("tute-3", three())], ids=["two-seat", "every-group"])
def test_rounds_that_set_nothing_in_a_round_robin_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              variant: str, entrants: list | None) -> None:
    path = write_config(tmp_path, rounds=5, variants=[{"name": variant}], entrants=entrants)
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    one_line(err, str(path), "rounds:")
    assert code == 2 and not (tmp_path / "store.sqlite").exists()


def test_gauntlet_challengers_meet_as_the_docs_say(tmp_path: Path) -> None:
    cfg = load_config(write_config(tmp_path, format="gauntlet", challengers=["r0", "r1"], deals=1, entrants=three()))
    run_tournament(cfg, workers=1, quiet=True)
    with Store(cfg.store, readonly=True) as store:
        met = any(set(r.seats) == {"r0", "r1"} for r in store.games("t"))
    said = [line for doc in ("config.md", "match.md") for line in (DOCS / doc).read_text().splitlines()
            if "challenger" in line and "every other entrant" in line]
    assert met or not said, said


def test_an_empty_log_is_refused_as_an_empty_store_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match=r"store: "):
        load_config(write_config(tmp_path, "s.toml", store=""))
    path = write_config(tmp_path, log="")
    code, out, err = tute(capsys, "run", str(path), "-j", "1", "-q")
    one_line(err, str(path), "log:")
    assert code == 2 and not (tmp_path / "store.sqlite").exists()
