"""Leagues: three seasons with a bot resubmitted between them, recomputed independently from the stored
games; standings and history agree with that (the report: test_report.py)."""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from leagues.league.league import League, LeagueError
from leagues.league.config import load_league
from leagues.league.store import LeagueStore
from leagues.tournament.rating import Rater
from leagues.tournament.store import GameRow, Store
from leagues.tournament.tally import kept

from league_util import carried_priors, tute, write_league

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "random_bot.py"
VARIANTS = [{"name": "tute-2"}, {"name": "tute-3"}]
TEAMS = {"tute-2": [(0,), (1,)], "tute-3": [(0,), (1,), (2,)]}
SCOPES = ["*", "tute-2", "tute-3"]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Season 1: greedy, r1 and a command bot 'mine'. Then mine's script changes (the season is refused
    until it is resubmitted), mine v2 and a newcomer r2 enter, and seasons 2 and 3 are played."""
    folder = tmp_path_factory.mktemp("league")
    write_league(folder, variants=VARIANTS, workers=2)
    script = folder / "mine.py"
    script.write_text(EXAMPLE.read_text())
    bot = f"{sys.executable} {script}"
    with League.open(folder) as lg:
        lg.submit("greedy", "greedy", owner="ana")
        lg.submit("r1", "random", owner="ben", params={"seed": 1})
        lg.submit("mine", bot, owner="eva")
        lg.play_season(quiet=True)
        script.write_text(EXAMPLE.read_text().replace('rng.choice(msg["legal"])', 'msg["legal"][0]'))
        with pytest.raises(LeagueError, match="'mine': its files changed since version 1"):
            lg.play_season(quiet=True)
        assert len(lg.db.seasons()) == 1, "a refused season stores nothing"
        done = lg.submit("mine", bot, owner="eva", update=True)
        assert (done.what, done.version.version) == ("new version", 2)
        lg.submit("r2", "random", owner="ben", params={"seed": 2})
        for _ in range(2):
            lg.play_season(quiet=True)
    return folder


def outcome(g: GameRow, name: str) -> str:
    ranks = {g.seats[t[0]]: g.result.ranks[t[0]] for t in TEAMS[g.variant]}
    if ranks[name] != 0:
        return "l"
    return "w" if list(ranks.values()).count(0) == 1 else "d"


def recompute(folder: Path) -> dict[tuple[int, str, str], dict[str, Any]]:
    """Every season's ratings from the stored games alone, carrying them over by the documented rules:
    same version: sigma^2 + seasons * tau^2; new version: that plus version_sigma^2; capped at sigma."""
    cfg = load_league(folder)
    r = cfg.rating
    state: dict[tuple[str, str], tuple[int, float, float, int]] = {}
    out: dict[tuple[int, str, str], dict[str, Any]] = {}
    with LeagueStore(cfg.store) as db, Store(cfg.store) as store:
        for season in db.seasons():
            n = season.season
            field = {e.entrant: e.version for e in db.season_entrants(n)}
            games = [g for t in season.tournaments for g in store.games(t)]
            for scope in SCOPES:
                priors = carried_priors(state, scope, field, n, r)
                rater = Rater(r.in_season(), TEAMS, priors)
                rows = sorted((g for g in games if scope == "*" or g.variant == scope), key=lambda g: g.order)
                counts: dict[str, dict[str, int]] = {name: defaultdict(int) for name in field}
                for g in rows:
                    rater.add(g)
                    for name in set(g.seats):
                        counts[name][outcome(g, name)] += 1
                for name, version in field.items():
                    rating = rater.rating(name)
                    state[(scope, name)] = (version, rating.mu, rating.sigma, n)
                    c = counts[name]
                    out[(n, scope, name)] = {"version": version, "prior": priors[name], "mu": rating.mu,
                                             "sigma": rating.sigma, "games": c["w"] + c["d"] + c["l"],
                                             "wins": c["w"], "draws": c["d"], "losses": c["l"]}
    return out


def test_ratings_carry_over_and_versions_are_tracked_apart(league: Path) -> None:
    want = recompute(league)
    cfg = load_league(league)
    with LeagueStore(cfg.store) as db:
        versions = db.versions("mine")
        assert [v.version for v in versions] == [1, 2] and versions[0].plugin_hash != versions[1].plugin_hash
        assert [(e.season, e.version) for e in db.season_entrants() if e.entrant == "mine"] == [(1, 1), (2, 2), (3, 2)]
        assert [s.tournaments for s in db.seasons()] == [("club/s1",), ("club/s2",), ("club/s3",)]
        stored = db.ratings()
    assert len(stored) == len(want) == 3 * 3 + 4 * 3 * 2  # 3 entrants in season 1, 4 after; 3 scopes
    for x in stored:
        w = want[(x.season, x.scope, x.entrant)]
        assert x.version == w["version"]
        assert (x.prior_mu, x.prior_sigma) == pytest.approx(w["prior"], abs=1e-9)
        assert (x.mu, x.sigma) == pytest.approx((w["mu"], w["sigma"]), abs=1e-9)
        assert (x.games, x.wins, x.draws, x.losses) == (w["games"], w["wins"], w["draws"], w["losses"])
        assert x.games > 0
    # not vacuous: version 2 starts from version 1's end, less certain than a carried version would be
    s1, s2 = want[(1, "*", "mine")], want[(2, "*", "mine")]
    assert s2["prior"][0] == s1["mu"] and s2["prior"][1] > math.sqrt(s1["sigma"] ** 2 + cfg.rating.tau ** 2)
    g1, g2 = want[(1, "*", "greedy")], want[(2, "*", "greedy")]
    assert g2["prior"] == pytest.approx((g1["mu"], math.sqrt(g1["sigma"] ** 2 + cfg.rating.tau ** 2)))
    assert want[(2, "*", "r2")]["prior"] == (cfg.rating.mu, cfg.rating.sigma)


def test_standings_and_history_agree_with_the_stored_games(league: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    want = recompute(league)
    k = load_league(league).rating.k
    code, out, err = tute(capsys, "league", "standings", "-l", str(league), "--format", "json")
    assert code == 0, err
    table = {s["entrant"]: s for s in json.loads(out)["standings"]}
    assert set(table) == {"greedy", "r1", "r2", "mine"}
    for name, s in table.items():
        end, before = want[(3, "*", name)], want[(2, "*", name)]
        assert s["rating"] == pytest.approx(end["mu"] - k * end["sigma"], abs=1e-9)
        assert s["change"] == pytest.approx(s["rating"] - (before["mu"] - k * before["sigma"]), abs=1e-9)
        for label in ("tute-2", "tute-3"):
            v = want[(3, label, name)]
            assert s["variants"][label] == pytest.approx(v["mu"] - k * v["sigma"], abs=1e-9)
        seasons = [n for n in (1, 2, 3) if (n, "*", name) in want and want[(n, "*", name)]["version"] == s["version"]]
        for key in ("games", "wins", "draws", "losses"):
            assert s[key] == sum(want[(n, "*", name)][key] for n in seasons), (name, key)
        assert len(s["form"]) == len([n for n in (1, 2, 3) if (n, "*", name) in want])
    assert table["mine"]["version"] == 2
    assert table["mine"]["games"] == want[(2, "*", "mine")]["games"] + want[(3, "*", "mine")]["games"]
    ranks = [s["rank"] for s in sorted(table.values(), key=lambda s: -s["rating"])]
    assert ranks == [1, 2, 3, 4]

    code, out, err = tute(capsys, "league", "history", "mine", "-l", str(league), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [v["version"] for v in data["versions"]] == [1, 2] and data["entrant"]["owner"] == "eva"
    rows = data["seasons"]
    assert [(r["season"], r["version"]) for r in rows] == [(1, 1), (2, 2), (3, 2)]
    for r in rows:
        w = want[(r["season"], "*", "mine")]
        assert r["rating"] == pytest.approx(w["mu"] - k * w["sigma"], abs=1e-9)
        assert r["prior"] == pytest.approx(w["prior"][0] - k * w["prior"][1], abs=1e-9)
        assert (r["games"], r["wins"], r["draws"], r["losses"]) == (w["games"], w["wins"], w["draws"], w["losses"])
    assert rows[1]["change"] == pytest.approx(rows[1]["rating"] - rows[0]["rating"])
    code, out, _ = tute(capsys, "league", "history", "mine", "-l", str(league))
    assert code == 0 and "owner eva" in out and re.search(r"^3\s+2\s+1\s", out, re.M), out
    code, out, _ = tute(capsys, "league", "standings", "-l", str(league), "--season", "1")
    assert code == 0 and "after season 1" in out and "r2" not in out and "tute-3" in out
    code, out, _ = tute(capsys, "league", "standings", "-l", str(league), "--season", "2", "--format", "json")
    second = {s["entrant"]: s for s in json.loads(out)["standings"]}
    for name, s in second.items():  # the table after a season counts that season's games
        w = want[(2, "*", name)]
        assert (s["games"], s["wins"], s["losses"]) == (w["games"], w["wins"], w["losses"])
        assert s["rating"] == pytest.approx(w["mu"] - k * w["sigma"], abs=1e-9)


def test_a_season_finishes_from_the_tables_its_tournaments_kept(league: Path) -> None:
    """The season's ratings are read from its tournaments' kept tables (started from the league's priors),
    and equal, exactly, a fold of the season's games from the ratings before it."""
    from leagues.league.rating import fold_season
    from leagues.tournament.leaderboard import kept_tables_agree

    cfg = load_league(league)
    with LeagueStore(cfg.store) as db, Store(cfg.store) as store:
        for season in db.seasons():
            entries = db.season_entrants(season.season)
            games = [g for t in season.tournaments for g in store.games(t)]
            folded = fold_season(cfg, season.season, entries, games, db.ratings())
            stored = [x for x in db.ratings() if x.season == season.season]
            key = lambda x: (x.scope, x.entrant)  # noqa: E731
            assert sorted(stored, key=key) == sorted(folded, key=key)
            for t in season.tournaments:
                assert kept(store.db, t) and kept_tables_agree(store, t)


def test_the_league_toml_init_writes_holds_the_defaults_exactly() -> None:
    """What ``tute league init`` writes is the defaults, to the last bit (a rounded ``version_sigma``
    would give every league made with it another rating than the documented 25/6)."""
    from dataclasses import replace

    from leagues.league.config import parse_league, template

    written = parse_league(template("club"), base=Path("/x"))
    bare = parse_league('name = "club"\n[[variants]]\nname = "tute-2"\n', base=Path("/x"))
    assert replace(written, text="") == replace(bare, text="")  # all but the file's own text
    assert written.rating.version_sigma == 25 / 6


def test_init_draws_a_seed_no_bot_could_guess(tmp_path: Path) -> None:
    """The seed is the key to every deal: a bot that knows it rebuilds the decks (the deck seed is a
    hash of it and of what the game id says), and one that can guess it can try every candidate
    against the hand it holds. ``tute league init`` draws it from 2**63, a new one each league."""
    from leagues.league.config import load_league
    from leagues.league.league import init_league

    seeds = [load_league(init_league(tmp_path / f"l{i}", "club")).seed for i in range(3)]
    assert len(set(seeds)) == 3 and all(2 ** 32 < s < 2 ** 63 for s in seeds)


def test_a_seasons_stored_copy_is_read_without_its_files(tmp_path: Path) -> None:
    """The copy of league.toml a season started with is checked again when the season resumes, but its
    store and log come from the file as it is now: a log name of the copy that is now someone's notes
    must not stop the season."""
    from leagues.league.config import parse_league
    from leagues.tournament.checks import ConfigError

    (tmp_path / "notes.txt").write_text("my own notes, not a log\n")
    text = 'name = "club"\nlog = "notes.txt"\n[[variants]]\nname = "tute-2"\n'
    with pytest.raises(ConfigError, match="notes.txt"):
        parse_league(text, base=tmp_path)
    assert parse_league(text, base=tmp_path, files=False).name == "club"
