"""Upgrades: what older versions of tute-arena wrote, read by today's code (a QA pass).

Users keep stores, exported record files, leagues and match stores for months and upgrade tute-arena
underneath them. The record format is a contract, and nothing already stored may be lost, changed or
misread. These tests run today's ``tute`` (``python -m leagues``) on copies of files that OLD commits
wrote; a reader must leave what it reads byte for byte as it was.

The fixtures in ``tests/data/upgrade/`` were written by these commits, each from its own worktree and
venv (``git worktree add --detach``, ``pip install -e .``), with the random and greedy bots; a
``.sqlite.gz`` is the store the commit wrote, gzipped afterwards to keep the folder small (the tests
unpack it into a temporary folder):

- ``c487061`` (2026-12-02, the first commit with a ``tute`` command: only ``play`` and ``variants``):
  ``c487061-play-tute-2.jsonl`` and ``c487061-play-tute-4-pairs.jsonl``, from
  ``tute play tute-2 random random -n 4 -s 5 --records ...`` (``tute-4-pairs`` the same).
- ``58e0914`` (the last commit of 2026-12-02):
  ``58e0914-t.sqlite.gz``: ``tute run`` of a finished round robin ``rr`` (seed 11, 1 deal; tute-2, tute-3,
  tute-4-pairs, subastado, cabron, cabrero-5 and tute-2 with undertrump_required as ``tute-2-strict``;
  entrants r1, r2, r3 random with seeds 1-3, g1 and g2 greedy) and a finished Swiss ``sw`` (seed 12, 2
  rounds, the same variants and entrants);
  ``58e0914-rr-leaderboard.json``: that commit's ``tute leaderboard -t rr -f json`` of it;
  ``58e0914-ti.sqlite.gz``: ``tute run 58e0914-rri.toml`` (store ``ti.sqlite``) interrupted by SIGINT to
  its process group after 61 of its 660 games; ``58e0914-rri.jsonl.gz``: that commit's ``tute export
  --store ti.sqlite --out rri.jsonl`` of the interrupted tournament (gzipped afterwards);
  ``58e0914-league.sqlite.gz`` with ``58e0914-league.toml``: ``tute league init lg`` (deals 2, check
  deals 4, workers 2, variants tute-2 and tute-3), ``submit gr greedy --owner ana``, ``submit ra random
  --params '{"seed": 1}'``, ``submit rb random --params '{"seed": 2}'``, ``season``, ``submit rb random
  --params '{"seed": 5}' --update``, ``submit rc random --params '{"seed": 7}'``, ``season``;
  ``58e0914-league-season1.json`` and ``-season2.json``: that commit's ``tute league standings --season N
  -f json`` of it.
- ``bbe970c`` (the last commit of 2026-12-03): ``bbe970c-all.jsonl.gz``, its own ``tute export --out
  all.jsonl.gz`` of a store holding ``rr`` and ``sw`` as above plus a variant played by the match
  (``tute-2-m``: ``unit = "match"``, ``match = "first_to:2"``): tute-arena/1 and tute-arena-match/1 lines.
- ``446d257`` (the last commit of 2026-12-05): ``446d257-match-interrupted.sqlite.gz``, ``tute match
  random random -v tute-2 --sprt -5,5 --max-blocks 60 --store mi.sqlite -j 1 -q --params-a '{"seed": 4}'
  --params-b '{"seed": 5}'`` interrupted by SIGINT after 63 games.
- ``4e79b99`` (the last commit of 2026-12-06): ``4e79b99-match.sqlite.gz``, ``tute match random greedy -v
  tute-2 --sprt 0,10 --max-blocks 200 --params-a '{"seed": 3}' -j 2 -q``, decided by its SPRT (H1 at
  block 76; the store holds 169 games, that version kept games played past the decision).

The tests marked ``xfail(strict=True)`` are defects this pass found; each says what is wrong.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "upgrade"


def tute(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=timeout)


def unpack(name: str, dest: Path) -> Path:
    """A fixture into ``dest``: a ``.gz`` unpacked (its name without ``.gz``), anything else copied."""
    src = DATA / name
    if name.endswith(".gz") and not name.endswith(".jsonl.gz"):
        out = dest / name[:-3]
        with gzip.open(src, "rb") as fin, open(out, "wb") as fout:
            shutil.copyfileobj(fin, fout)
        return out
    out = dest / name
    shutil.copyfile(src, out)
    return out


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def games_of(store: Path, tournament: str) -> list[tuple[str, str, str]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return db.execute("SELECT id, seats, result FROM games WHERE tournament = ? ORDER BY id",
                          (tournament,)).fetchall()
    finally:
        db.close()


def records(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ------------------------------------------------------------------------------ the oldest records
def test_oldest_play_records_replay_import_verify_and_round_trip(tmp_path: Path) -> None:
    """Records of the first `tute` (c487061) replay as text and HTML, import, verify, and export again
    exactly as they were written."""
    files = [unpack(n, tmp_path) for n in ("c487061-play-tute-2.jsonl", "c487061-play-tute-4-pairs.jsonl")]
    before = {f: digest(f) for f in files}
    for f in files:
        for i in range(4):
            r = tute(tmp_path, "replay", "--file", f.name, "--index", str(i))
            assert r.returncode == 0, r.stderr
            assert "result:" in r.stdout
        r = tute(tmp_path, "replay", "--file", f.name, "--index", "3", "--html", f"{f.stem}.html")
        assert r.returncode == 0, r.stderr
        assert (tmp_path / f"{f.stem}.html").stat().st_size > 1000
        r = tute(tmp_path, "import", f.name, "--store", "s.sqlite", "--tournament", f.stem)
        assert r.returncode == 0 and "imported 4 games" in r.stdout, r.stderr
    r = tute(tmp_path, "verify", "--store", "s.sqlite")
    assert r.returncode == 0 and "8 true, 0 wrong" in r.stdout, r.stdout + r.stderr
    assert tute(tmp_path, "export", "--store", "s.sqlite", "--out", "e.jsonl").returncode == 0
    exported = {rec["id"]: rec for rec in records(tmp_path / "e.jsonl") if "id" in rec}
    for f in files:
        for rec in records(f):
            got = dict(exported[f"{f.stem}/{rec['id']}"])
            got.pop("schedule")
            assert got == dict(rec, id=f"{f.stem}/{rec['id']}") or got == rec  # every field kept
    assert {f: digest(f) for f in files} == before


# ---------------------------------------------------------------------- a store of 2026-12-02
def test_old_store_readers_agree_with_recompute_and_leave_it_unchanged(tmp_path: Path) -> None:
    """58e0914's store (a round robin and a Swiss of six variant families): every leaderboard format
    equals --recompute, games, verify and export read it whole, and the store file is unchanged."""
    store = unpack("58e0914-t.sqlite.gz", tmp_path)
    before = digest(store)
    for t in ("rr", "sw"):
        for fmt in ("plain", "github", "json", "csv"):
            a = tute(tmp_path, "leaderboard", "--store", store.name, "-t", t, "-f", fmt, "--matrix")
            b = tute(tmp_path, "leaderboard", "--store", store.name, "-t", t, "-f", fmt, "--matrix", "--recompute")
            assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
            assert a.stdout == b.stdout
            assert "partial" not in a.stdout
    g = tute(tmp_path, "games", "--store", store.name, "-n", "0")
    assert g.returncode == 0 and "(199 games)" in g.stdout or g.stdout.count("\n") >= 199, g.stdout[-300:]
    v = tute(tmp_path, "verify", "--store", store.name)
    assert v.returncode == 0 and "199 true, 0 wrong" in v.stdout and "2 of 2" in v.stdout, v.stdout + v.stderr
    e = tute(tmp_path, "export", "--store", store.name, "--out", "all.jsonl.gz")
    assert e.returncode == 0, e.stderr
    assert sum(1 for rec in records(tmp_path / "all.jsonl.gz") if rec.get("format") != "tute-arena/tournament-1") == 199
    for gid in ("rr/cabrero-5/r1/t0/d0/s0", "sw/subastado/r1/t0/d0/s0", "rr/tute-4-pairs/r1/t0/d0/s1"):
        r = tute(tmp_path, "replay", "--store", store.name, gid)
        assert r.returncode == 0 and "result:" in r.stdout, r.stderr
        r = tute(tmp_path, "replay", "--store", store.name, gid, "--html", "g.html")
        assert r.returncode == 0, r.stderr
    assert digest(store) == before
    db = sqlite3.connect(store)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    assert tables == {"tournaments", "entrants", "games", "byes"}  # a reader migrates nothing


def test_old_store_ratings_are_those_the_old_version_printed(tmp_path: Path) -> None:
    """The pooled ratings of 58e0914's round robin, read today, are the ones 58e0914 printed."""
    store = unpack("58e0914-t.sqlite.gz", tmp_path)
    old = json.loads((DATA / "58e0914-rr-leaderboard.json").read_text())
    r = tute(tmp_path, "leaderboard", "--store", store.name, "-t", "rr", "-f", "json")
    assert r.returncode == 0, r.stderr
    new = json.loads(r.stdout)["pooled"]
    key = lambda row: (row["entrant"], row["rank"], round(row["rating"], 9), round(row["mu"], 9),  # noqa: E731
                       round(row["sigma"], 9), row["wins"], row["losses"], row["forfeits"])
    assert [key(x) for x in new["standings"]] == [key(x) for x in old["standings"]]


def test_old_export_import_round_trip_keeps_every_record(tmp_path: Path) -> None:
    """bbe970c's own gzip export (deals and matches, unit = "match") imports, verifies, replays (a
    match's deal too), and today's export of it gives back every record exactly."""
    src = unpack("bbe970c-all.jsonl.gz", tmp_path)
    r = tute(tmp_path, "import", src.name, "--store", "s.sqlite")
    assert r.returncode == 0, r.stderr
    v = tute(tmp_path, "verify", "--store", "s.sqlite")
    assert v.returncode == 0 and " 0 wrong" in v.stdout and "2 of 2" in v.stdout, v.stdout + v.stderr
    for t in ("rr", "sw"):
        a = tute(tmp_path, "leaderboard", "--store", "s.sqlite", "-t", t, "-f", "json", "--matrix")
        b = tute(tmp_path, "leaderboard", "--store", "s.sqlite", "-t", t, "-f", "json", "--matrix", "--recompute")
        assert a.returncode == 0 and a.stdout == b.stdout, a.stderr
        assert json.loads(a.stdout)["status"]["final"] is True
    r = tute(tmp_path, "replay", "--store", "s.sqlite", "sw/tute-2-m/r1/t0/d0/s0/d0")
    assert r.returncode == 0 and "result:" in r.stdout, r.stderr
    assert tute(tmp_path, "replay", "--store", "s.sqlite", "sw/tute-2-m/r1/t0/d0/s0/d1", "--html",
                "m.html").returncode == 0
    assert tute(tmp_path, "export", "--store", "s.sqlite", "--out", "again.jsonl.gz").returncode == 0
    old = [x for x in records(src) if x.get("format") != "tute-arena/tournament-1"]
    new = [x for x in records(tmp_path / "again.jsonl.gz") if x.get("format") != "tute-arena/tournament-1"]
    assert sorted(json.dumps(x, sort_keys=True) for x in new) == sorted(json.dumps(x, sort_keys=True) for x in old)
    assert any(x["format"] == "tute-arena-match/1" for x in new)


# -------------------------------------------------------------------------------------- leagues
def _league(tmp_path: Path) -> Path:
    lg = tmp_path / "lg"
    lg.mkdir()
    shutil.copyfile(DATA / "58e0914-league.toml", lg / "league.toml")
    with gzip.open(DATA / "58e0914-league.sqlite.gz", "rb") as fin, open(lg / "league.sqlite", "wb") as fout:
        shutil.copyfileobj(fin, fout)
    return lg


def test_old_league_reads_as_it_did_and_plays_a_new_season(tmp_path: Path) -> None:
    """58e0914's league of two seasons: the standings of each season are byte for byte what 58e0914
    printed, history and report read it, season 3 is refused in one line until the bots whose files
    changed are submitted again, then it plays, and seasons 1 and 2 read as before."""
    lg = _league(tmp_path)
    store = lg / "league.sqlite"
    before = digest(store)
    for s in (1, 2):
        r = tute(tmp_path, "league", "standings", "-l", "lg", "--season", str(s), "-f", "json")
        assert r.returncode == 0, r.stderr
        assert r.stdout == (DATA / f"58e0914-league-season{s}.json").read_text()
    for name in ("gr", "ra", "rb", "rc"):
        for fmt in ("plain", "json"):
            r = tute(tmp_path, "league", "history", name, "-l", "lg", "-f", fmt)
            assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    r = tute(tmp_path, "league", "report", "-l", "lg", "--out", "rep")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "index.html").exists()
    assert digest(store) == before  # the readers wrote nothing
    r = tute(tmp_path, "league", "season", "-l", "lg", "-q")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "--update" in r.stderr, r.stderr
    assert tute(tmp_path, "league", "submit", "gr", "greedy", "-l", "lg", "--owner", "ana", "--update").returncode == 0
    assert tute(tmp_path, "league", "submit", "ra", "random", "-l", "lg", "--params", '{"seed": 1}',
                "--update").returncode == 0
    assert tute(tmp_path, "league", "submit", "rb", "random", "-l", "lg", "--params", '{"seed": 5}',
                "--update").returncode == 0
    assert tute(tmp_path, "league", "withdraw", "rc", "-l", "lg").returncode == 0
    r = tute(tmp_path, "league", "season", "-l", "lg", "-q")
    assert r.returncode == 0, r.stderr
    assert "after season 3" in r.stdout
    for s in (1, 2):
        r = tute(tmp_path, "league", "standings", "-l", "lg", "--season", str(s), "-f", "json")
        assert r.stdout == (DATA / f"58e0914-league-season{s}.json").read_text()
    v = tute(tmp_path, "verify", "--store", "lg/league.sqlite")
    assert v.returncode == 0 and "3 of 3" in v.stdout, v.stdout + v.stderr


# -------------------------------------------------------------------------------------- matches
MATCH_446 = ("match", "random", "random", "-v", "tute-2", "--sprt", "-5,5", "--max-blocks", "60", "-j", "2", "-q",
             "--params-a", '{"seed": 4}', "--params-b", '{"seed": 5}')


def test_old_interrupted_match_is_not_resumed_with_other_bots(tmp_path: Path) -> None:
    """446d257's match interrupted after 63 games. It resumed with today's bots, whose versions did not
    say when their play changed; the built-in bots now carry a revision (tests/test_bot_revisions.py),
    so today's same command refuses in one line, saying what to do, and changes nothing stored."""
    old = tmp_path / "old"
    old.mkdir()
    unpack("446d257-match-interrupted.sqlite.gz", old).rename(old / "mi.sqlite")
    r = tute(old, "leaderboard", "--store", "mi.sqlite")
    assert r.returncode == 0 and "partial" in r.stdout.splitlines()[0], r.stdout + r.stderr
    name = "match-random.a-vs-random.b"
    before = games_of(old / "mi.sqlite", name)
    a = tute(old, *MATCH_446, "--store", "mi.sqlite")
    assert a.returncode == 2 and len(a.stderr.strip().splitlines()) == 1, a.stderr
    assert "other versions of 'random.a' (tute-arena 0.1.0 then, tute-arena r1 now)" in a.stderr, a.stderr
    assert "--new" in a.stderr and games_of(old / "mi.sqlite", name) == before


def test_old_sprt_match_reads_as_decided(tmp_path: Path) -> None:
    """4e79b99's match decided by its SPRT: the leaderboard reads it final, and the same command prints
    its summary (H1 at block 76) without playing or changing a game."""
    store = unpack("4e79b99-match.sqlite.gz", tmp_path)
    before = games_of(store, "match-random-vs-greedy")
    r = tute(tmp_path, "leaderboard", "--store", store.name, "-f", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["status"]["final"] is True, r.stdout + r.stderr
    r = tute(tmp_path, "match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", "--max-blocks", "200",
             "--store", store.name, "--params-a", '{"seed": 3}', "-j", "1", "-q")
    assert r.returncode == 0, r.stderr
    assert "H1 accepted at block 76" in r.stdout
    assert games_of(store, "match-random-vs-greedy") == before


def test_sprt_match_export_import_stays_decided(tmp_path: Path) -> None:
    store = unpack("4e79b99-match.sqlite.gz", tmp_path)
    assert tute(tmp_path, "export", "--store", store.name, "--out", "m.jsonl").returncode == 0
    r = tute(tmp_path, "import", "m.jsonl", "--store", "copy.sqlite")
    assert r.returncode == 0, r.stderr
    a = tute(tmp_path, "leaderboard", "--store", store.name)
    b = tute(tmp_path, "leaderboard", "--store", "copy.sqlite")
    assert b.returncode == 0
    assert b.stdout.splitlines()[0] == a.stdout.splitlines()[0]  # not "(partial: 169 of 400 games played)"
    assert json.loads(tute(tmp_path, "leaderboard", "--store", "copy.sqlite", "-f", "json").stdout)["status"]["final"]


# ------------------------------------------------------------------------- interrupted tournaments
def _interrupted(tmp_path: Path) -> Path:
    store = unpack("58e0914-ti.sqlite.gz", tmp_path).rename(tmp_path / "ti.sqlite")
    shutil.copyfile(DATA / "58e0914-rri.toml", tmp_path / "rri.toml")
    return store


def test_old_interrupted_tournament_reads_partial(tmp_path: Path) -> None:
    """58e0914's interrupted round robin reads as partial in every format, and verifies."""
    store = _interrupted(tmp_path)
    before = digest(store)
    for fmt in ("plain", "github", "csv"):
        r = tute(tmp_path, "leaderboard", "--store", store.name, "-f", fmt)
        assert r.returncode == 0 and "partial" in r.stdout, r.stdout + r.stderr
    r = tute(tmp_path, "leaderboard", "--store", store.name, "-f", "json")
    assert json.loads(r.stdout)["status"]["final"] is False
    v = tute(tmp_path, "verify", "--store", store.name)
    assert v.returncode == 0 and "61 true, 0 wrong" in v.stdout, v.stdout + v.stderr
    assert digest(store) == before


def test_old_export_of_interrupted_tournament_imports_unfinished(tmp_path: Path) -> None:
    _interrupted(tmp_path)
    unpack("58e0914-rri.jsonl.gz", tmp_path)
    problems = []
    # the old version's own export, and today's export of the old store
    assert tute(tmp_path, "export", "--store", "ti.sqlite", "--out", "today.jsonl").returncode == 0
    for i, f in enumerate(("58e0914-rri.jsonl.gz", "today.jsonl")):
        r = tute(tmp_path, "import", f, "--store", f"imp{i}.sqlite")
        assert r.returncode == 0 and "imported 61 games" in r.stdout, r.stderr
        lb = tute(tmp_path, "leaderboard", "--store", f"imp{i}.sqlite")
        if "partial" not in lb.stdout.splitlines()[0]:
            problems.append(f"{f}: {lb.stdout.splitlines()[0]}")
        (tmp_path / f"imp{i}.toml").write_text((tmp_path / "rri.toml").read_text().replace(
            'store = "ti.sqlite"', f'store = "imp{i}.sqlite"'))
        run = tute(tmp_path, "run", f"imp{i}.toml", "-q", "-j", "2")
        # unfinished, so not "finished earlier": resumed, or (its bots' versions are the old ones, which
        # the header carries) refused in one line
        resumed = run.returncode == 0 and len(games_of(tmp_path / f"imp{i}.sqlite", "rri")) == 660
        refused = run.returncode == 2 and "other versions" in run.stderr
        if "finished earlier" in run.stdout + run.stderr or not (resumed or refused):
            problems.append(f"{f}: tute run: {(run.stderr + run.stdout).splitlines()[0]}")
    assert not problems


def test_resume_of_tournament_begun_with_other_bots_is_refused_or_equal(tmp_path: Path) -> None:
    old, fresh = tmp_path / "old", tmp_path / "fresh"
    old.mkdir()
    fresh.mkdir()
    _interrupted(old)
    shutil.copyfile(DATA / "58e0914-rri.toml", fresh / "rri.toml")
    a = tute(old, "run", "rri.toml", "-q", "-j", "2")
    b = tute(fresh, "run", "rri.toml", "-q", "-j", "2")
    assert b.returncode == 0, b.stderr
    if a.returncode == 2:  # refused: one line saying what to do, nothing played
        assert len(a.stderr.strip().splitlines()) == 1 and "--new" in a.stderr
        assert len(games_of(old / "ti.sqlite", "rri")) == 61
    else:
        assert a.returncode == 0, a.stderr
        assert games_of(old / "ti.sqlite", "rri") == games_of(fresh / "ti.sqlite", "rri")


def test_a_preset_whose_rules_changed_is_not_resumed_by_the_new_rules(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A config names a preset; a new version may change its rules (tute-2-8's Tute from the deal, made
    to follow S2). The config's identity is the same, so a resume would play the later games by the new
    rules under the old ones' tournament. The first stored deal of each variant says its rules: a
    difference is refused in one line, naming the options, and nothing stored changes."""
    from arena import variants
    from leagues.tournament.config import load_config
    from leagues.tournament.runner import RunError, run_tournament

    sys.path.insert(0, str(Path(__file__).parent))
    from league_util import write_config

    path = write_config(tmp_path, deals=3, variants=[{"name": "tute-2-8"}],
                        entrants=[{"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"}])
    run_tournament(load_config(path), workers=1, quiet=True)
    con = sqlite3.connect(tmp_path / "store.sqlite")
    con.execute("UPDATE tournaments SET finished = NULL")  # as if stopped: the last games to play again
    con.execute("DELETE FROM games WHERE deal = 2")
    con.commit()
    kept = con.execute("SELECT id, record FROM games ORDER BY id").fetchall()
    con.close()
    changed = variants.VARIANTS["tute-2-8"].replace(tute_from_deal=not variants.VARIANTS["tute-2-8"].tute_from_deal)
    monkeypatch.setitem(variants.VARIANTS, "tute-2-8", changed)
    with pytest.raises(RunError) as exc:
        run_tournament(load_config(path), workers=1, quiet=True)
    assert "variant 'tute-2-8' was played by other rules" in str(exc.value) and "tute_from_deal" in str(exc.value)
    assert "--new" in str(exc.value) and len(str(exc.value).splitlines()) == 1
    con = sqlite3.connect(tmp_path / "store.sqlite")
    assert con.execute("SELECT id, record FROM games ORDER BY id").fetchall() == kept
    con.close()


def old_and_new_tute_2_8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Folders ``old`` and ``new``, each a tournament 't' of tute-2-8 (2 deals, random against greedy)
    played and stored: ``old`` by the preset as it was before 2026-12-07 (a Tute from the deal),
    ``new`` by today's."""
    from arena import variants
    from leagues.tournament.config import load_config
    from leagues.tournament.runner import run_tournament

    sys.path.insert(0, str(Path(__file__).parent))
    from league_util import write_config

    old, new = tmp_path / "old", tmp_path / "new"
    for folder in (old, new):
        folder.mkdir()
        write_config(folder, deals=2, variants=[{"name": "tute-2-8"}],
                     entrants=[{"name": "a", "bot": "random", "params": {"seed": 1}}, {"name": "b", "bot": "greedy"}])
    with monkeypatch.context() as m:
        m.setitem(variants.VARIANTS, "tute-2-8", variants.VARIANTS["tute-2-8"].replace(tute_from_deal=True))
        run_tournament(load_config(old / "tournament.toml"), workers=1, quiet=True)
    run_tournament(load_config(new / "tournament.toml"), workers=1, quiet=True)
    return old, new


def test_old_preset_games_import_alone_but_never_into_new_preset_games(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """tute-2-8's games from before its change (a Tute from the deal) still import into a new store
    (``arena.variants.PRESET_HISTORY``: the preset as it was), but not into a stored tournament whose
    games play today's rules: one label, one set of rules."""
    from leagues.records.archive import ArchiveError, export_lines, import_records
    from leagues.tournament.store import Store

    old, new = old_and_new_tute_2_8(tmp_path, monkeypatch)
    with Store(old / "store.sqlite") as store:
        lines = list(export_lines(store, "t"))
    (tmp_path / "old.jsonl").write_text("\n".join(lines) + "\n")
    with Store(tmp_path / "fresh.sqlite") as fresh:
        assert import_records(tmp_path / "old.jsonl", fresh).stored == len(lines) - 1
    # into the tournament of today's games: refused whole, nothing stored
    moved = [json.loads(x) for x in lines]
    for rec in moved[1:]:
        rec["schedule"]["deal"] += 10
        rec["id"] = rec["id"].replace("/d", "/d1", 1)
    (tmp_path / "moved.jsonl").write_text("\n".join(json.dumps(x) for x in moved[1:]) + "\n")
    with Store(new / "store.sqlite") as store:
        before = store.count_games("t")
        with pytest.raises(ArchiveError) as exc:
            import_records(tmp_path / "moved.jsonl", store)
        assert "rules differ" in str(exc.value) and "tute_from_deal" in str(exc.value)
        assert store.count_games("t") == before
