"""QA of the docs as written: README.md and docs/*.md (docs/search.md up to "## Strength") against the
product a new user installs.

The tests read the docs themselves and check what they say against the code:

- every relative link and ``#anchor`` between the docs resolves, inside the repository;
- every ``tute ...`` command the docs show (fenced shell blocks, indented blocks and inline code) names a
  subcommand and options that exist (click's own command tree, i.e. ``--help``);
- the key tables of docs/config.md and docs/leagues.md are exactly the keys the config loaders accept,
  and the defaults those tables give are the loaders' (a minimal file loaded; ``tute league init``'s
  file loaded);
- the snippets run as written: config.md's example tournament (first without ``mybot.py``, as the text
  says, then with the example bot there), match.md's gauntlet file, bots.md's ``make_player`` snippet
  and interface skeleton, protocol.md's ``setpriv`` entrant, records.md's record fields against a
  record ``tute play --records`` writes, the store tables the docs name against a store's schema;
- search.md's parameter table and bots.md's list against ``SearchBot``'s signature; README's preset list
  against ``tute variants``.

Defects are ``xfail(strict=True)`` tests that fail because of them. Commands run as a user runs them:
``python -m leagues`` (the ``tute`` command) in a temporary folder, with small sizes.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Iterator

import click

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOC_FILES = [ROOT / "README.md"] + sorted(DOCS.glob("*.md"))
EXAMPLE_BOT = ROOT / "examples" / "random_bot.py"


# --------------------------------------------------------------------------------------------- helpers
def doc_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.name == "search.md":  # the brief covers the sections before "## Strength"
        text = text.split("\n## Strength", 1)[0]
    return text


def split_fences(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The prose (fenced blocks removed) and the fenced blocks, each with its language."""
    prose: list[str] = []
    blocks: list[tuple[str, str]] = []
    cur: list[str] | None = None
    lang = ""
    for line in text.splitlines():
        if line.startswith("```"):
            if cur is None:
                cur, lang = [], line[3:].strip()
            else:
                blocks.append((lang, "\n".join(cur)))
                cur = None
            continue
        (prose if cur is None else cur).append(line)
    return "\n".join(prose), blocks


def code_blocks(path: Path, lang: str) -> list[str]:
    return [b for lg, b in split_fences(doc_text(path))[1] if lg == lang]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    h = heading.strip().lower().replace("`", "")
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose, _ = split_fences(path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", prose, re.M)}


def tute(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``tute ARGS`` as a user runs it (``python -m leagues`` is the same command)."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "leagues", *args], cwd=cwd, env=full_env, text=True,
                          capture_output=True, input=stdin if stdin is not None else "", timeout=timeout)


def doc_commands(text: str) -> Iterator[str]:
    """Every shell line of a fenced sh block (comments cut), every indented code line and every inline
    code span that starts with ``tute``."""
    prose, blocks = split_fences(text)
    for lang, block in blocks:
        if lang in ("sh", "bash", ""):
            for line in block.splitlines():
                yield line.split("  #")[0]
    for line in prose.splitlines():
        if line.startswith("    ") and "tute" in line:
            yield line
    for i, span in enumerate(prose.split("`")):
        if i % 2 and re.match(r"\s*(\.venv/bin/)?tute [a-z]", span) and not re.match(r"\s*tute 1[12]\b", span):
            yield span.replace("\n", " ")


def cli_tree() -> click.Group:
    from leagues.cli.main import cli
    return cli


def option_names(cmd: click.Command) -> set[str]:
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)} | {"-h", "--help"}


def unknown_in(segment: str, cli: click.Group) -> list[str]:
    """What a ``tute ...`` command line names that the CLI does not have."""
    try:
        toks = shlex.split(segment)
    except ValueError:
        toks = segment.split()
    starts = [i for i, t in enumerate(toks) if t in ("tute", ".venv/bin/tute")]
    if not starts:
        return []
    toks = toks[starts[0] + 1:]
    cmd: click.Command = cli
    path = ["tute"]
    bad: list[str] = []
    while toks:
        t = toks[0]
        if t.startswith("-"):
            if t.split("=")[0] not in option_names(cmd):
                bad.append(f"{' '.join(path)} {t}")
            toks.pop(0)
            if t in ("--color", "--colour") and toks:
                toks.pop(0)
            continue
        if isinstance(cmd, click.Group):
            if t not in cmd.commands:
                bad.append(f"{' '.join(path)} {t} (no such command)")
                return bad
            cmd = cmd.commands[t]
            path.append(t)
            toks.pop(0)
            continue
        break
    for t in toks:
        if t in ("&&", "|", ";"):
            break
        if re.match(r"--?[A-Za-z]", t) and t.split("=")[0] not in option_names(cmd):
            bad.append(f"{' '.join(path)} {t}")
    return bad


def md_table_keys(text: str, heading: str) -> list[str]:
    """The first column's keys (in backticks) of the first table under ``heading``."""
    part = text.split(heading, 1)[1]
    rows = []
    started = False
    for line in part.splitlines():
        if line.startswith("|"):
            started = True
            rows.append(line)
        elif started:
            break
    keys = []
    for row in rows[2:]:
        first = row.split("|")[1]
        keys += re.findall(r"`([^`]+)`", first)
    return keys


# ------------------------------------------------------------------------------------------ links, refs
def test_every_relative_link_and_anchor_between_the_docs_resolves_inside_the_repo() -> None:
    problems = []
    checked = 0
    for f in DOC_FILES:
        prose, _ = split_fences(f.read_text(encoding="utf-8"))
        for m in re.finditer(r"\]\(([^)\s]+)\)", prose):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            checked += 1
            path, _, frag = target.partition("#")
            dest = (f.parent / path).resolve() if path else f
            if not dest.is_relative_to(ROOT):
                problems.append(f"{f.name}: {target}: outside the repository")
            elif not dest.exists():
                problems.append(f"{f.name}: {target}: no such file")
            elif frag and frag not in anchors(dest):
                problems.append(f"{f.name}: {target}: no heading with that anchor")
    assert checked > 30
    assert problems == []


def test_the_docs_refer_to_nothing_outside_the_repo() -> None:
    """Docs stand alone: no ``../`` path out of the repository, no shared folder of the workplace."""
    bad = []
    for f in DOC_FILES:
        text = doc_text(f)
        for m in re.finditer(r"(?<![\w/])\.\./[\w./-]+|(?<![\w-])shared/[\w./-]*", text):
            ref = m.group(0)
            if ref.startswith("../") and (f.parent / ref).resolve().is_relative_to(ROOT):
                continue
            if ref.startswith("../") and ref in ("../",):
                continue
            bad.append(f"{f.name}: {ref}")
    # docs/bots.md and config.md mention ``../`` only as the prefix that makes a string a command
    assert [b for b in bad if not b.endswith(": ../")] == []


def test_file_paths_named_in_the_docs_exist() -> None:
    """Every repository path the docs name in backticks (``leagues/tournament/packing.py``,
    ``tests/test_sprt.py``, ``benchmarks/scale.py``, ...) is in the repository."""
    placeholders = {"mybot.py", "mine.py", "v1/bot.py", "v2/bot.py", "DIR/league.toml", "league.toml"}
    missing = []
    for f in DOC_FILES:
        for p in set(re.findall(r"`([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+\.(?:py|md|json|toml))`", doc_text(f))):
            if p in placeholders or p.startswith(("tute_bot_", "tute-bot-", "club/")):
                continue
            if not ((ROOT / p).exists() or (f.parent / p).exists()):
                missing.append(f"{f.name}: {p}")
    assert missing == []


# ------------------------------------------------------------------------------------ commands, options
def test_every_tute_command_the_docs_show_names_existing_subcommands_and_options() -> None:
    cli = cli_tree()
    bad: list[str] = []
    seen = 0
    for f in DOC_FILES:
        for seg in doc_commands(doc_text(f)):
            for part in re.split(r"&&|\|(?![\w-])", seg):
                if re.search(r"\btute [a-z]", part):
                    seen += 1
                    bad += [f"{f.name}: {b}" for b in unknown_in(part, cli)]
    assert seen > 120  # the extraction found the docs' commands, not nothing
    assert bad == []


def test_the_option_checker_catches_a_made_up_option() -> None:
    """The check above can fail: a doc line with an option the command lacks is caught."""
    cli = cli_tree()
    assert unknown_in("tute run tournament.toml --time-limit 200", cli) == ["tute run --time-limit"]
    assert unknown_in("tute league season -l club --bogus", cli) == ["tute league season --bogus"]
    assert unknown_in("tute match a b --variant tute-2 --sprt 0,10", cli) == []


def test_match_md_options_table_is_tute_match_help() -> None:
    """docs/match.md "Options": every option it lists exists with the default it gives."""
    cmd = cli_tree().commands["match"]
    by_name = {o: p for p in cmd.params for o in p.opts}
    table = md_table_keys(doc_text(DOCS / "match.md"), "## Options")
    names = [re.split(r"[ /]", k)[0] for k in table]
    for extra in ("--variant/-v NAME", "--workers/-j N"):
        assert extra in table
    assert all(n in by_name for n in names), [n for n in names if n not in by_name]
    for opt, default in {"--alpha": 0.05, "--beta": 0.05, "--model": "normalized", "--max-blocks": 1000,
                         "--seed": 0, "--time-limit": 1000, "--store": "runs/match.sqlite"}.items():
        assert by_name[opt].default == default, opt
    assert "--variant" in names and by_name["--variant"].required


# ------------------------------------------------------------------------------------------ config keys
def test_config_md_key_tables_are_exactly_the_keys_the_loader_accepts() -> None:
    from leagues.tournament import config as c
    text = doc_text(DOCS / "config.md")
    assert set(md_table_keys(text, "## Top-level keys")) == c.TOP_KEYS
    assert set(md_table_keys(text, "## `[[variants]]`")) == c.VARIANT_KEYS
    assert set(md_table_keys(text, "## `[[entrants]]`")) == c.ENTRANT_KEYS
    assert set(md_table_keys(text, "## `[rating]`")) == c.RATING_KEYS
    sprt_row = next(line for line in text.splitlines() if line.startswith("| `sprt`"))
    inner = sprt_row.split("`{")[1].split("}`")[0]
    assert {item.split("=")[0].strip() for item in inner.split(",")} == c.SPRT_KEYS


def test_leagues_md_key_table_is_exactly_the_keys_league_toml_accepts() -> None:
    from leagues.league import config as lc
    text = doc_text(DOCS / "leagues.md")
    part = text.split("## `league.toml`", 1)[1].split("\n## ", 1)[0]
    top, rating, check = set(), set(), set()
    for row in part.splitlines():
        if not row.startswith("| `"):
            continue
        first = row.split("|")[1]
        keys = re.findall(r"`([^`]+)`", first)
        if keys[0] == "[rating]":
            rating |= set(keys[1:])
        elif keys[0] == "[check]":
            check |= set(keys[1:])
        else:
            top |= set(keys)
    assert top | {"rating", "check"} == lc.TOP_KEYS
    assert rating == lc.RATING_KEYS
    assert check == lc.CHECK_KEYS


def test_config_md_defaults_are_the_loaders_defaults(tmp_path: Path) -> None:
    from leagues.tournament.config import load_config
    (tmp_path / "t.toml").write_text('name = "x"\n[[variants]]\nname = "tute-2"\n[[variants]]\nname = "tute-4-pairs"\n'
                                     'label = "m"\nunit = "match"\n[[entrants]]\nname = "a"\nbot = "random"\n'
                                     '[[entrants]]\nname = "b"\nbot = "greedy"\n', encoding="utf-8")
    cfg = load_config(tmp_path / "t.toml")
    assert (cfg.seed, cfg.format, cfg.deals, cfg.duplicate, cfg.workers, cfg.time_limit_ms, cfg.memory_mb,
            cfg.max_tables, cfg.cluster) == (0, "round-robin", 2, True, 0, 1000, 1024, 200, None)
    assert cfg.store == tmp_path / "runs" / "x.sqlite"  # "runs/{name}.sqlite", from the file's folder
    assert cfg.log == tmp_path / "runs" / "x.log"       # the store's path with .log
    assert cfg.variants[0].label == "tute-2" and cfg.variants[0].match is None  # unit "deal"
    assert cfg.variants[1].match is not None and cfg.variants[1].match.max_deals == 200
    assert cfg.entrants[0].isolation == "auto" and dict(cfg.entrants[0].params) == {}
    r = cfg.rating
    assert (r.mu, r.sigma, r.beta, r.tau, r.k) == (25, 25 / 3, 25 / 6, 0, 3)


def test_league_init_writes_the_defaults_leagues_md_gives(tmp_path: Path) -> None:
    from leagues.league.config import load_league
    done = tute("league", "init", "club", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "club" / "league.toml").is_file() and (tmp_path / "club" / "league.sqlite").is_file()
    lg = load_league(tmp_path / "club" / "league.toml")
    assert lg.name == "club"  # "init writes the folder's name"
    assert 0 <= lg.seed < 2 ** 63 and lg.seed != 0  # "init writes a random one", drawn from 2^63
    assert (lg.format, lg.deals, lg.duplicate, lg.time_limit_ms, lg.memory_mb, lg.workers, lg.max_tables,
            lg.divisions, lg.promote, lg.check_deals, lg.check_reproducible) == (
        "round-robin", 50, True, 1000, 1024, 0, 200, 1, 1, 40, False)
    assert lg.store == tmp_path / "club" / "league.sqlite"
    assert (lg.rating.tau, lg.rating.version_sigma) == (1.0, 25 / 6)
    # "Refuses a folder that already holds a league": one line, exit 2
    again = tute("league", "init", "club", cwd=tmp_path)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "league.toml" in again.stderr


# ---------------------------------------------------------------------------------------------- snippets
def test_config_md_example_stops_as_said_without_mybot_and_plays_with_the_example_there(tmp_path: Path) -> None:
    """docs/config.md "Example": until there is a mybot.py, ``tute run`` stops before any game with
    ``entrant 'mybot' did not start: ... can't open file '.../mybot.py'`` (exit 2), no store made;
    ``examples/random_bot.py`` copied there is one that plays (deals cut to 2 for time)."""
    toml = code_blocks(DOCS / "config.md", "toml")[0]
    (tmp_path / "tournament.toml").write_text(toml, encoding="utf-8")
    done = tute("run", cwd=tmp_path)
    assert done.returncode == 2
    assert re.fullmatch(r"tute: error: tournament\.toml: entrant 'mybot' did not start: .*can't open file "
                        r"'[^']*/mybot\.py'.*\n", done.stderr), done.stderr
    assert not (tmp_path / "runs" / "builtin.sqlite").exists()
    shutil.copy(EXAMPLE_BOT, tmp_path / "mybot.py")
    (tmp_path / "tournament.toml").write_text(toml.replace("deals = 40", "deals = 2"), encoding="utf-8")
    done = tute("run", "-q", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "runs" / "builtin.sqlite").is_file() and (tmp_path / "runs" / "builtin.log").is_file()
    for label in ("tute-2", "tute-2-strict", "tute-4-pairs"):
        assert f"builtin: variant {label}" in done.stdout
    assert re.search(r"^\d+\s+mybot\s", done.stdout, re.M)


def test_config_md_error_example_is_the_message_tute_run_prints(tmp_path: Path) -> None:
    toml = code_blocks(DOCS / "config.md", "toml")[0]
    toml = re.sub(r'bot = \["python3", "mybot.py"\].*', 'bot = "x"', toml)
    (tmp_path / "tournament.toml").write_text(toml, encoding="utf-8")
    line = next(i for i, t in enumerate(toml.splitlines(), 1) if t == 'bot = "x"')
    done = tute("run", "tournament.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"tute: error: tournament.toml:{line}: entrants[2].bot: unknown bot 'x' "
                                  "(installed: greedy, random, search")
    assert done.stderr.endswith("; or give module:Class or a command)\n") and done.stderr.count("\n") == 1
    assert not (tmp_path / "runs").exists()


def test_match_md_gauntlet_file_plays_the_two_pairings_it_describes(tmp_path: Path) -> None:
    """docs/match.md "In a tournament file": v2 plays v1 and greedy (two pairings, each with its SPRT),
    v1 and greedy never meet; the field is rated as ``field`` where it sat (blocks cut to 2)."""
    toml = code_blocks(DOCS / "match.md", "toml")[0]
    for v in ("v1", "v2"):
        (tmp_path / v).mkdir()
        shutil.copy(EXAMPLE_BOT, tmp_path / v / "bot.py")
    (tmp_path / "tournament.toml").write_text(toml.replace("deals = 1000", "deals = 2"), encoding="utf-8")
    done = tute("run", "-q", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"^v2 vs v1: ", out, re.M) and re.search(r"^v2 vs greedy: ", out, re.M)
    assert not re.search(r"^(v1 vs greedy|greedy vs v1): ", out, re.M)
    assert out.count("  SPRT (normalized, elo0 0, elo1 10, alpha 0.05, beta 0.05)") == 2
    tute3 = out.split("gauntlet: variant tute-3")[1]
    tute2 = out.split("gauntlet: variant tute-2")[1].split("gauntlet: variant")[0]
    assert re.search(r"^\d+\s+field\s", tute3, re.M) and not re.search(r"^\d+\s+field\s", tute2, re.M)


def test_protocol_md_setpriv_entrant_is_a_valid_entrants_table() -> None:
    from leagues.tournament.config import ENTRANT_KEYS
    toml = code_blocks(DOCS / "protocol.md", "toml")[0]
    entrant = tomllib.loads(toml)["entrants"][0]
    assert set(entrant) <= ENTRANT_KEYS
    assert entrant["bot"][0] == "setpriv" and isinstance(entrant["bot"], list)


def test_bots_md_make_player_snippet_runs_from_the_repo_root() -> None:
    snippet = next(b for b in code_blocks(DOCS / "bots.md", "python") if "make_player" in b)
    code = snippet + "\nimport json\nprint(json.dumps(rec.to_json() if hasattr(rec, 'to_json') else None))\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_bots_md_interface_skeleton_plays_and_the_view_has_what_it_lists() -> None:
    """docs/bots.md "The interface": the class as written (its ``...`` bodies) plays a deal, and every
    attribute of ``PlayerView`` the text names is there; the card tables and rule helpers it names exist."""
    from arena import cards, get_variant, play_game, rules, shuffled_deck
    skeleton = code_blocks(DOCS / "bots.md", "python")[0]
    ns: dict[str, Any] = {}
    exec(skeleton, ns)  # noqa: S102 - the doc's own code
    seen: list[Any] = []

    class Probe(ns["MyBot"]):  # type: ignore[misc]
        def choose(self, view: Any) -> str:
            seen.append(view)
            return super().choose(view)

    v = get_variant("tute-2")
    rec = play_game(v, shuffled_deck(v, 3), 0, [Probe(), ns["MyBot"](seed=1, depth=3)], seed=3)
    assert rec.result.forfeit is None
    view = seen[0]
    for attr in ("hand", "hand_cards", "trump", "trump_card", "face_up", "stock_left", "trick", "tricks",
                 "cantes", "exchanges", "points", "hand_sizes", "seat", "leader", "variant", "legal",
                 "trick_order", "tricks_won", "sung_mask", "exchanges_done", "strict", "knowledge"):
        assert hasattr(view, attr), attr
    for name in ("NAMES", "POINTS", "STRENGTH", "SUIT", "BIT", "HIGHER", "parse_card", "NO_CARD", "NO_SUIT"):
        assert hasattr(cards, name), name
    for name in ("playable", "lacks"):
        assert hasattr(rules, name), name


def test_records_md_fields_are_the_fields_of_a_record_tute_play_writes(tmp_path: Path) -> None:
    done = tute("play", "tute-2", "greedy", "random", "--games", "2", "--seed", "7", "--records", "games.jsonl",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rec = json.loads((tmp_path / "games.jsonl").read_text().splitlines()[0])
    example = json.loads(code_blocks(DOCS / "records.md", "json")[0])
    assert list(rec) == list(example)  # the same fields, in the documented order
    assert list(rec["result"]) == list(example["result"])
    assert rec["id"] == "play/7/0" and rec["format"] == "tute-arena/1"
    assert set(example["options"]) - {"..."} <= set(rec["options"])
    table = {k for row in doc_text(DOCS / "records.md").split("| field | meaning |")[1].split("\n\n")[0]
             .splitlines()[2:] for k in re.findall(r"`([a-z_.]+)`", row.split("|")[1])}
    assert {k for k in table if not k.startswith("result.")} <= set(rec)
    classic = {"result.points", "result.ranks", "result.tute", "result.forfeit", "result.reason"}
    assert classic <= table and {f"result.{k}" for k in rec["result"]} - {"result.winner"} <= table


def test_records_md_match_ids_of_tute_play(tmp_path: Path) -> None:
    """records.md: with ``--match``, one tute-arena/1 record per deal, ids ``play/SEED/mM/dK``."""
    done = tute("play", "tute-2", "greedy", "random", "-n", "2", "--match", "first_to:3", "--seed", "5",
                "--records", "m.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    recs = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert {r["format"] for r in recs} == {"tute-arena/1"}
    assert all(re.fullmatch(r"play/5/m[01]/d\d+", r["id"]) for r in recs)
    assert recs[0]["id"] == "play/5/m0/d0"


def test_store_tables_the_docs_name_are_in_the_stores(tmp_path: Path) -> None:
    """config.md and scaling.md name a tournament store's tables, leagues.md a league's; each is there."""
    (tmp_path / "tournament.toml").write_text(TINY, encoding="utf-8")
    assert tute("run", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    assert tute("league", "init", "club", cwd=tmp_path).returncode == 0

    def tables(db: Path) -> set[str]:
        con = sqlite3.connect(db)
        try:
            return {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
        finally:
            con.close()

    tour = tables(tmp_path / "runs" / "t.sqlite")
    league = tables(tmp_path / "club" / "league.sqlite")
    assert {"tournaments", "entrants", "games", "byes", "clocked"} <= tour  # config.md "The store and resuming"
    assert {"tallies", "pair_tallies", "forfeit_tallies", "watermarks", "tally_counts", "plans"} <= tour
    store_part = doc_text(DOCS / "leagues.md").split("## The store", 1)[1]
    named = set(re.findall(r"^\| `([a-z_]+)` \|", store_part, re.M))
    assert named == {"league", "league_entrants", "league_versions", "league_seasons", "league_season_entrants",
                     "league_ratings"}
    assert named <= league


# ------------------------------------------------------------------------------------------ bots, presets
def test_search_md_parameter_table_and_bots_md_list_are_search_bots_signature() -> None:
    from bots.search import SearchBot
    sig = inspect.signature(SearchBot.__init__).parameters
    params = {k: p.default for k, p in sig.items() if k != "self"}
    text = doc_text(DOCS / "search.md").split("## Parameters", 1)[1]
    rows = [r for r in text.splitlines() if r.startswith("| `")]
    documented = {}
    for r in rows:
        cells = [c.strip() for c in r.split("|")[1:-1]]
        documented[cells[0].strip("`")] = cells[1]
    assert set(documented) == set(params)
    for k, d in documented.items():
        want = params[k]
        if d == "unset":
            assert want is None, k
        elif d in ("true", "false"):
            assert want is (d == "true"), k
        else:
            assert float(d) == float(want), k
    bots_md = doc_text(DOCS / "bots.md")
    listed = re.search(r"Parameters \((.*?)\) and", bots_md, re.S)
    assert listed is not None
    assert set(re.findall(r"`(\w+)`", listed.group(1))) == set(params)


def test_readme_preset_list_is_tute_variants() -> None:
    from arena.variants import VARIANTS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(t for t in readme.splitlines() if t.startswith("# tute-2, habanero"))
    line += next(t for t in readme.splitlines() if t.startswith("# and after the source texts"))
    names: set[str] = set()
    for item in re.findall(r"[a-z0-9-]+(?:\([-/0-9]+\))?", line.replace("# and after the source texts", ",")):
        m = re.fullmatch(r"([a-z0-9-]+?)(?:\(([-/0-9]+)\))?", item)
        assert m
        base, suffixes = m.group(1), m.group(2)
        if base in ("and", "after", "the", "source", "texts"):
            continue
        names.add(base)
        for s in (suffixes or "").split("/"):
            if s:
                names.add(base + ("" if s.startswith("-") else "-") + s)
    assert names == set(VARIANTS)


# -------------------------------------------------------------------------------------------- behaviour
def test_readme_quick_leaderboard_replay_and_export_commands_on_a_small_tournament(tmp_path: Path) -> None:
    """README "Tournaments" / "Games, replays, records", on a two-deal tournament of the built-in cheap
    bots: the leaderboard formats, --recompute the same table byte for byte, a replay, verify, export and
    import into another store; ``--new`` off a terminal without ``--yes`` refused (exit 2)."""
    (tmp_path / "tournament.toml").write_text(
        'name = "builtin"\ndeals = 2\nstore = "runs/builtin.sqlite"\n[[variants]]\nname = "tute-2"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n[[entrants]]\nname = "random"\nbot = "random"\n',
        encoding="utf-8")
    assert tute("run", "tournament.toml", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    again = tute("run", "tournament.toml", "--new", cwd=tmp_path)
    assert again.returncode == 2 and "--yes" in again.stderr and again.stderr.count("\n") == 1
    plain = tute("leaderboard", cwd=tmp_path)
    assert plain.returncode == 0 and "greedy" in plain.stdout
    assert tute("leaderboard", "--recompute", cwd=tmp_path).stdout == plain.stdout
    js = json.loads(tute("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert {"tournament", "status", "variants", "clocked_games"} <= set(js) and "tute-2" in js["variants"]
    gh = tute("leaderboard", "--variant", "tute-2", "--format", "github", cwd=tmp_path)
    assert gh.returncode == 0 and "| rank" in gh.stdout
    games = tute("games", "--entrant", "greedy", "--variant", "tute-2", "--limit", "20", cwd=tmp_path)
    assert games.returncode == 0 and "builtin/tute-2/r1/t0/d0/s0" in games.stdout
    rep = tute("replay", "builtin/tute-2/r1/t0/d0/s0", "--seat", "1", "--step", cwd=tmp_path, stdin="\n" * 30)
    assert rep.returncode == 0 and "as seen by" in rep.stdout
    assert tute("replay", "builtin/tute-2/r1/t0/d0/s0", "--html", "game.html", cwd=tmp_path).returncode == 0
    assert (tmp_path / "game.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert tute("verify", cwd=tmp_path).returncode == 0
    assert tute("export", "--out", "builtin.jsonl.gz", cwd=tmp_path).returncode == 0
    imp = tute("import", "builtin.jsonl.gz", "--store", "copy.sqlite", cwd=tmp_path)
    assert imp.returncode == 0, imp.stderr


def test_match_exit_statuses_as_match_md_says(tmp_path: Path) -> None:
    """match.md: 0 when H1 is accepted, 1 when H0 is, 0 without --sprt, 2 on bad input (one line naming
    the option), and adding --sprt to a match played without it is refused with the message it quotes."""
    h1 = tute("match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", "-j", "1", "-q", cwd=tmp_path)
    assert h1.returncode == 0 and "H1 accepted" in h1.stdout
    h0 = tute("match", "greedy", "random", "-v", "tute-2", "--sprt", "0,10", "-j", "1", "-q", cwd=tmp_path)
    assert h0.returncode == 1 and "H0 accepted" in h0.stdout
    plain = tute("match", "random", "random", "-v", "tute-2", "--max-blocks", "3", "-j", "1", "-q", cwd=tmp_path)
    assert plain.returncode == 0
    changed = tute("match", "random", "random", "-v", "tute-2", "--max-blocks", "3", "--sprt", "0,10", "-j", "1",
                   cwd=tmp_path)
    assert changed.returncode == 2
    assert ("was started with a different config (changed: --sprt/--alpha/--beta/--model); run\nwith --new to play "
            "it again from the start (its stored games are deleted), or give this one another --name").replace(
        "\n", " ") in changed.stderr
    assert "(changed: --sprt/--alpha/--beta/--model); run\nwith --new to play it again from the start (its stored " \
           "games are deleted), or give this one another --name" in (ROOT / "docs" / "match.md").read_text()
    for bad in (["--alpha", "0.5"], ["--sprt", "0,101"], ["--sprt", "0,1001", "--model", "logistic"]):
        done = tute("match", "random", "greedy", "-v", "tute-2", "--sprt", "0,10", *bad, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, bad
    assert (tmp_path / "runs" / "match.sqlite").is_file()


TINY = ('name = "t"\ndeals = 1\n[[variants]]\nname = "tute-2"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n[[entrants]]\nname = "random"\nbot = "random"\n')


def test_leaderboard_json_always_has_the_pooled_table(tmp_path: Path) -> None:
    (tmp_path / "tournament.toml").write_text(TINY, encoding="utf-8")
    assert tute("run", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    js = json.loads(tute("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert "pooled" in js and "variants" in js


CRASH_BOT = """\
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "hello":
        print(json.dumps({"type": "hello", "name": "crash"}), flush=True)
    elif m.get("type") == "act":
        print(json.dumps({"type": "error", "message": "I give up"}), flush=True)
    elif m.get("type") == "quit":
        break
"""


def test_a_bot_that_forfeits_every_deal_exits_3_in_play_and_in_match_with_or_without_sprt(tmp_path: Path) -> None:
    """match.md: "with or without it, 3 when a bot forfeited every deal"; README: tute play too."""
    (tmp_path / "crash.py").write_text(CRASH_BOT, encoding="utf-8")
    play = tute("play", "tute-2", "greedy", "python3 crash.py", "-n", "2", cwd=tmp_path)
    assert play.returncode == 3 and "forfeited every deal" in play.stderr
    for extra in ([], ["--sprt", "0,10"]):
        done = tute("match", "greedy", "python3 crash.py", "-v", "tute-2", "--max-blocks", "3", "-j", "1", "-q",
                    "--name", f"m{len(extra)}", *extra, cwd=tmp_path)
        assert done.returncode == 3, (extra, done.stderr)
        assert "forfeits:" in done.stderr and "forfeited every deal" in done.stderr


def test_readme_exit_3_sentence_agrees_with_match_md() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    sentence = re.search(r"3 when an entrant forfeited every deal \(.*?\)", readme)
    assert sentence is not None
    assert "without `--sprt`" not in sentence.group(0)


def test_tute_runs_clocked_warning_names_only_what_tute_run_accepts(tmp_path: Path) -> None:
    """bots.md: a run in which a bot's clock ended a decision says so last, and every later run of the
    finished tournament says it too (the store keeps which games). What it tells the user to change must be
    something ``tute run`` takes: ``tute run --time-limit`` is refused; it said "(time_limit_ms,
    --time-limit)" for every command."""
    (tmp_path / "tournament.toml").write_text(
        'name = "t"\ndeals = 1\n[[variants]]\nname = "tute-2"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n[[entrants]]\nname = "random"\nbot = "random"\n',
        encoding="utf-8")
    assert tute("run", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    con = sqlite3.connect(tmp_path / "runs" / "t.sqlite")
    con.execute("insert into clocked (id, tournament) values ('t/tute-2/r1/t0/d0/s0', 't')")
    con.commit()
    con.close()
    done = tute("run", "-q", cwd=tmp_path)
    assert done.returncode == 0
    warning = next(line for line in done.stderr.splitlines() if "a bot's clock" in line)
    run_options = option_names(cli_tree().commands["run"])
    named = re.findall(r"(?<![\w-])--[a-z][\w-]*", warning)
    assert all(o in run_options for o in named), named
    assert "time_limit_ms in the tournament's file" in warning, warning  # where tute run takes it


def test_what_the_readmes_export_import_example_leaves_in_the_root_is_ignored_by_git(tmp_path: Path) -> None:
    (tmp_path / "tournament.toml").write_text(
        'name = "builtin"\ndeals = 1\nstore = "runs/builtin.sqlite"\n[[variants]]\nname = "tute-2"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n[[entrants]]\nname = "random"\nbot = "random"\n',
        encoding="utf-8")
    before = set(os.listdir(tmp_path))
    assert tute("run", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    assert tute("export", "--out", "builtin.jsonl.gz", cwd=tmp_path).returncode == 0
    assert tute("import", "builtin.jsonl.gz", "--store", "copy.sqlite", cwd=tmp_path).returncode == 0
    left = sorted(set(os.listdir(tmp_path)) - before - {"runs"})
    assert "copy.sqlite" in left and "builtin.jsonl.gz" in left
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin", "-v", "-n"], cwd=ROOT,
                             input="\n".join(left) + "\n", capture_output=True, text=True)
    not_ignored = [line.split("\t")[-1] for line in ignored.stdout.splitlines() if line.startswith("::")]
    assert not_ignored == []


def test_cluster_md_without_distributed_cluster_is_refused_in_one_line_naming_the_extra(tmp_path: Path) -> None:
    """docs/cluster.md "Install": without Dask's distributed package, ``--cluster`` is refused in one line
    that names the extra (an import of ``distributed`` made to fail stands for a venv without it)."""
    shim = tmp_path / "shim" / "distributed"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("no distributed here")\n', encoding="utf-8")
    (tmp_path / "tournament.toml").write_text(TINY, encoding="utf-8")
    done = tute("run", "--cluster", "local:2", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "shim")})
    assert done.returncode == 2
    assert done.stderr == "tute: error: --cluster needs Dask's distributed package: pip install -e '.[cluster]'\n"
    assert not (tmp_path / "runs" / "t.sqlite").exists()


def test_readme_replay_of_a_match_names_its_deals_and_exits_2(tmp_path: Path) -> None:
    """README: a match is replayed deal by deal, ``tute replay ID/d0``; ``tute replay ID`` of the match
    itself names its deals and exits 2 (config.md ``unit = "match"``)."""
    (tmp_path / "tournament.toml").write_text(TINY.replace('name = "tute-2"\n', 'name = "tute-2"\nunit = "match"\n'
                                                           'match = "first_to:3"\n'), encoding="utf-8")
    assert tute("run", "-q", "-j", "1", cwd=tmp_path).returncode == 0
    whole = tute("replay", "t/tute-2/r1/t0/d0/s0", cwd=tmp_path)
    assert whole.returncode == 2 and whole.stderr.count("\n") == 1
    assert "t/tute-2/r1/t0/d0/s0/d0 to t/tute-2/r1/t0/d0/s0/d" in whole.stderr
    deal = tute("replay", "t/tute-2/r1/t0/d0/s0/d0", cwd=tmp_path)
    assert deal.returncode == 0 and deal.stdout.startswith("game t/tute-2/r1/t0/d0/s0/d0\n")
