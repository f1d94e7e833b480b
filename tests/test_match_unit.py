"""Tournaments whose unit is a match (``unit = "match"`` in a variant's table): the stored game is the
match, its deals are inside its record and replayable by id, duplicate matches rotate seats over the same
decks, ratings take the match result, verify, export and import carry matches, and the result is the same
with one worker or two. The existing presets' deal units are untouched (their config hash included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena import replay
from arena.matchplay import verify_match
from leagues.records.archive import export, import_file, verify
from leagues.tournament.config import ConfigError, load_config
from leagues.tournament.leaderboard import render, standings
from leagues.tournament.runner import run_tournament
from leagues.tournament.store import Store, StoreError

from league_util import write_config

THREE = [{"name": "greedy", "bot": "greedy"}, {"name": "r1", "bot": "random", "params": {"seed": 1}},
         {"name": "r2", "bot": "random", "params": {"seed": 2}}]
MATCH_VARIANTS = [{"name": "tute-2", "unit": "match", "match": "first_to:2"},
                  {"name": "cabron", "unit": "match", "match": "letters:2"}]


def run(folder: Path, workers: int) -> tuple[Path, list[str]]:
    folder.mkdir()
    path = write_config(folder, deals=2, variants=MATCH_VARIANTS, entrants=THREE)
    summary = run_tournament(load_config(path), workers=workers, quiet=True)
    assert summary.played == summary.total > 0
    cfg = load_config(path)
    with Store(cfg.store) as store:
        tables = [render(standings(store, cfg.name, v)) for v in [None, "tute-2", "cabron"]]
    return path, tables


def test_a_match_tournament_stores_matches_that_verify_and_replay_by_deal(tmp_path: Path) -> None:
    path, tables = run(tmp_path / "w1", 1)
    cfg = load_config(path)
    with Store(cfg.store) as store:
        games = store.games(cfg.name)
        assert games and all(g.result.reason == "match" for g in games)
        two = [g for g in games if g.variant == "tute-2"]
        # duplicate: the rotations of a match play the same decks, seats swapped
        a, b = (store.match(g.id) for g in two[:2])
        assert a.seats == list(reversed(b.seats))
        n = min(len(a.deals), len(b.deals))
        assert [d.deck for d in a.deals[:n]] == [d.deck for d in b.deals[:n]]
        for g in games:
            m = store.match(g.id)
            verify_match(m)
            assert m.result.to_json() == g.result.to_json()
            wins = m.result.match["wins"] if g.variant == "tute-2" else m.result.match["letters"]
            assert max(wins) == 2 or m.result.match["ended"] == "max_deals"
            replay(store.record(f"{g.id}/d0"))  # a deal of a match, by its id
        with pytest.raises(StoreError, match="is a match of"):
            store.record(games[0].id)
        assert all(problem is None for _, problem in verify(store, cfg.name))
    assert "greedy" in tables[1]


def test_one_worker_or_two_give_the_same_matches(tmp_path: Path) -> None:
    path1, tables1 = run(tmp_path / "w1", 1)
    path2, tables2 = run(tmp_path / "w2", 2)
    assert tables1 == tables2
    with Store(load_config(path1).store) as s1, Store(load_config(path2).store) as s2:
        assert [(g.id, g.result.to_json()) for g in s1.games()] == [(g.id, g.result.to_json()) for g in s2.games()]


def test_matches_export_and_import_into_a_fresh_store(tmp_path: Path) -> None:
    path, _ = run(tmp_path / "w1", 1)
    cfg = load_config(path)
    out = tmp_path / "all.jsonl"
    with Store(cfg.store) as store, open(out, "w") as fh:
        export(store, fh)
        ids = [g.id for g in store.games()]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert any(x.get("format") == "tute-arena-match/1" for x in lines)
    with Store(tmp_path / "copy.sqlite") as fresh:
        assert import_file(out, fresh) == len(ids)
        assert [g.id for g in fresh.games()] == ids
        assert all(problem is None for _, problem in verify(fresh))
    # a tampered match is refused on import, naming the line
    bad = [x for x in lines if x.get("format") == "tute-arena-match/1"][0]
    bad["result"]["ranks"] = [1, 0] if bad["result"]["ranks"] == [0, 1] else [0, 1]
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    with Store(tmp_path / "other.sqlite") as other:
        with pytest.raises(Exception, match="bad.jsonl:1"):
            import_file(tmp_path / "bad.jsonl", other)
        assert other.games() == []


@pytest.mark.parametrize("extra, message", [({"unit": "set"}, "unit"), ({"match": "first_to:3"}, 'needs unit = "match"'),
                                            ({"unit": "match", "match": "letters"}, "letters"),
                                            ({"unit": "match", "match": "first_to"}, "needs a target")])
def test_bad_match_keys_are_one_line_errors(tmp_path: Path, extra: dict, message: str) -> None:
    path = write_config(tmp_path, deals=1, variants=[{"name": "tute-2", **extra}], entrants=THREE)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_a_deal_unit_config_keeps_its_identity(tmp_path: Path) -> None:
    path = write_config(tmp_path, deals=1, variants=[{"name": "tute-2"}], entrants=THREE)
    identity = load_config(path).identity()
    assert set(identity["variants"][0]) == {"label", "preset", "options"}
