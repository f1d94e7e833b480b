"""The leaderboard: every format, the head-to-head matrix with intervals over duplicate blocks, forfeits
counted, and the command's errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from leagues.cli import main
from leagues.tournament.config import load_config
from leagues.tournament.leaderboard import head_to_head, standings, stored_setup
from leagues.tournament.runner import run_tournament
from leagues.tournament.store import Store

from league_util import TESTS, write_config


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import sys
    sys.path.insert(0, str(TESTS))
    folder = tmp_path_factory.mktemp("lb")
    path = write_config(folder, deals=4, variants=[{"name": "tute-2"}, {"name": "tute-4-pairs"}], entrants=[
        {"name": "good", "bot": "league_bots:CheapWinBot", "isolation": "inprocess"},
        {"name": "rand", "bot": "random", "params": {"seed": 3}},
        {"name": "crash", "bot": "league_bots:CrashBot", "isolation": "inprocess"}])
    run_tournament(load_config(path), workers=2, quiet=True)
    return path


def test_counts_and_forfeits(played: Path) -> None:
    cfg = load_config(played)
    with Store(cfg.store) as store:
        table = standings(store, "t")
        by = {s.entrant: s for s in table}
        # each entrant meets 2 others, per variant 4 deals x 2 rotations: 16 games a variant, 32 in all
        assert all(s.games == 32 for s in table)
        assert by["crash"].forfeits == 32 and by["crash"].losses == 32 and by["crash"].wins == 0
        assert table[-1].entrant == "crash"  # (good vs rand is the head-to-head's to say, below: a single
        # TrueSkill pass in schedule order can rank rand first on these few games)
        assert all(s.wins + s.draws + s.losses == s.games for s in table)
        assert [s.rank for s in table] == [1, 2, 3]
        assert [s.rating for s in table] == sorted((s.rating for s in table), reverse=True)
        teams, _, _ = stored_setup(store, "t")
        h2h = head_to_head(store.games("t"), teams)
        assert h2h[("rand", "crash")].score == 1.0 and h2h[("crash", "rand")].score == 0.0
        g = h2h[("good", "rand")]
        assert g.blocks == 8 and 0 <= g.score <= 1 and g.half_width >= 0
        assert h2h[("rand", "good")].score == pytest.approx(1 - g.score)


def test_formats(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(load_config(played).store)
    main(["leaderboard", "--store", store, "--format", "json", "--matrix"])
    data = json.loads(capsys.readouterr().out)
    with Store(store) as st:
        expected = [s.entrant for s in standings(st, "t")]
        per_variant = {v: [s.entrant for s in standings(st, "t", v)] for v in ("tute-2", "tute-4-pairs")}
    assert [s["entrant"] for s in data["pooled"]["standings"]] == expected and data["pooled"]["head_to_head"]
    # every format carries every table: JSON one object with the pooled table and one per variant
    assert {v: [s["entrant"] for s in t["standings"]] for v, t in data["variants"].items()} == per_variant
    assert data["status"]["final"] is True and data["status"]["text"] == "final"
    main(["leaderboard", "--store", store, "--format", "csv"])
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][:4] == ["variant", "rank", "entrant", "rating"] and rows[0][-1] == "status"
    assert {r[0] for r in rows[1:]} == {"*", "tute-2", "tute-4-pairs"} and len(rows) == 1 + 3 * 3
    main(["leaderboard", "--store", store, "--format", "csv", "--variant", "tute-2"])
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 4 and {r[0] for r in rows[1:]} == {"tute-2"}
    # --matrix in csv: each table's matrix after an empty row (it was dropped without a word)
    main(["leaderboard", "--store", store, "--format", "csv", "--variant", "tute-2", "--matrix"])
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[4] == [] and rows[5][:2] == ["variant", "vs"] and len(rows) == 6 + 3
    assert all(r[0] == "tute-2" and "±" in "".join(r) for r in rows[6:])
    main(["leaderboard", "--store", store, "--format", "github", "--matrix"])
    out = capsys.readouterr().out
    assert "| rank" in out and "±" in out and "variant tute-4-pairs" in out
    main(["leaderboard", "--store", store, "--format", "html"])
    assert "<table>" in capsys.readouterr().out
    main(["leaderboard", "--store", store])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "t: all variants" and "points/deal" in out


def test_a_partial_tournament_says_so_in_every_format(played: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    import sqlite3
    copy = tmp_path / "partial.sqlite"
    shutil.copy(load_config(played).store, copy)
    db = sqlite3.connect(copy)
    total = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    db.execute("DELETE FROM games WHERE id IN (SELECT id FROM games ORDER BY id LIMIT 10)")
    db.execute("UPDATE tournaments SET finished = NULL")
    db.commit()
    db.close()
    marker = f"partial: {total - 10} of {total} games played"
    for fmt in ("plain", "github", "html", "csv", "json"):
        main(["leaderboard", "--store", str(copy), "--format", fmt])
        out = capsys.readouterr().out
        assert marker in out, fmt
        if fmt in ("plain", "github"):  # the tournament's count once, not again as each variant's
            assert out.count(marker) == 1 and "(partial)" in out, out
        if fmt == "json":
            assert json.loads(out)["status"] == {"final": False, "played": total - 10, "planned": total,
                                                 "text": marker}


def test_errors(played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(load_config(played).store)
    for args, message in [(["--store", store, "--variant", "nope"], "no variant 'nope'"),
                          (["--store", store, "--tournament", "nope"], "no tournament 'nope'"),
                          (["--store", str(tmp_path / "none.sqlite")], "no such store")]:
        with pytest.raises(SystemExit) as exit_:
            main(["leaderboard", *args])
        assert exit_.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "none.sqlite").exists()


def test_github_tables_keep_names_text() -> None:
    """Markdown renders HTML and splits cells at '|': a name is escaped there, every punctuation mark
    backslashed (no HTML, emphasis, code or link either)."""
    from leagues.tournament.leaderboard import Standing, render

    row = Standing(rank=1, entrant="<em>a|b", rating=1.0, mu=25.0, sigma=8.0, games=2, wins=1, draws=0, losses=1,
                   points_per_deal=60.0, forfeits=0)
    out = render([row], "github", title="<b>t|x")
    assert "<em>" not in out and "<b>" not in out and "\\<em\\>a\\|b" in out and "\\<b\\>t\\|x" in out
    body = out.splitlines()[-1]
    assert body.count("|") - body.count("\\|") == 12  # the row's eleven cells, none split
