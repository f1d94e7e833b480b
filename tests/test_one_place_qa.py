"""QA of "one fact, one place, and the layers": every restatement of a rule, a field list or the
definition of who won is held to its one home, in every preset and in the option sets no other test
reaches; and the layers are checked on the source and at run time.

Each test marked ``xfail(strict=True)`` reproduces a defect found in this pass: a place that wrote a
fact a second time and disagrees with its home in some preset or option set. The other tests pin
agreements that no other test covered (option sets outside ``tests/rulesets.py``, fields of the view
and the record, and the result read by every table, rating and score from one function).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena import GameRecord, GameState, PlayerView, get_variant, play_game, replay, shuffled_deck
from arena import rules as R
from arena.cards import BIT, HIGHER, NAMES, NO_CARD, SUIT_MASK, parse_card
from arena.knowledge import trumps_by_trick
from arena.matchplay import MatchRule, MatchScore
from arena.record import RESULT_FIELDS, _FIELDS as RECORD_FIELDS
from arena.result import SAT_OUT, SCORES, SHARED, WIN, GameResult, outcome, seat_pairwise, thrown_in, versus
from arena.rules import BEATS, TRUMP_MASK
from arena.variants import Variant
from bots.endgame import WIN as EG_WIN, Endgame
from bots.greedy import GreedyBot
from bots.playout import Outcome, Position, playout, supports
from bots.random_bot import RandomBot
from bots.strict_estimate import features, strict_sung
from bots.team_endgame import TeamEndgame

from minimax import minimax
from rulesets import RULESETS

ROOT = Path(__file__).resolve().parents[1]


def random_state(v: Variant, seed: int) -> GameState:
    return GameState.new(v, shuffled_deck(v, seed), seed % v.players)


def random_record(v: Variant, seed: int) -> GameRecord:
    players = [RandomBot(seed * 10 + s) for s in range(v.players)]
    return play_game(v, shuffled_deck(v, seed), seed % v.players, players, seed=seed,
                     names=[f"p{s}" for s in range(v.players)])


# =============================================================================== 1. the layers
LAYER_BANS = {"arena": ("bots", "leagues"), "bots": ("leagues",)}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _targets(path: Path) -> list[str]:
    """Every module ``path`` names to import: import statements (relative ones resolved, those under
    ``TYPE_CHECKING`` and inside functions included) and ``importlib.import_module`` /
    ``__import__`` calls with a literal name."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.append(base)
            out += [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("import_module", "__import__"):
                out.append(node.args[0].value)
    return out


def test_no_module_imports_a_layer_above_it_statically_or_by_name() -> None:
    """An independent AST pass over every module of arena, bots and leagues (and benchmarks, which sit
    on top): arena never names bots or leagues, bots never leagues, and nothing outside the CLI (and
    its two entry points) names leagues.cli, not even through ``importlib.import_module("...")``."""
    problems = []
    files = [p for pkg in ("arena", "bots", "leagues", "benchmarks") for p in sorted((ROOT / pkg).rglob("*.py"))]
    assert len(files) > 100
    for path in files:
        module = _module(path)
        top = module.split(".")[0]
        for target in _targets(path):
            t = target.split(".")[0]
            if t in LAYER_BANS.get(top, ()):
                problems.append(f"{module} imports {target}")
            if target.startswith("leagues.cli") and not (
                    module.startswith("leagues.cli") or module in ("leagues", "leagues.__main__", "leagues.console")):
                problems.append(f"{module} imports the CLI ({target})")
    assert not problems, "\n".join(problems)


def test_importing_every_lower_module_loads_nothing_above_it() -> None:
    """At run time: importing every module of ``arena`` loads no ``bots`` or ``leagues`` module, and
    every module of ``bots`` no ``leagues`` module (an import hidden in a package ``__init__`` or a
    re-export would show here, whatever the AST says)."""
    code = r"""
import importlib, pkgutil, sys, json
pkg, banned = sys.argv[1], tuple(sys.argv[2:])
base = importlib.import_module(pkg)
for m in pkgutil.walk_packages(base.__path__, pkg + "."):
    importlib.import_module(m.name)
print(json.dumps(sorted(n for n in sys.modules if n.split(".")[0] in banned)))
"""
    for pkg, banned in (("arena", ("bots", "leagues")), ("bots", ("leagues",))):
        run = subprocess.run([sys.executable, "-c", code, pkg, *banned], capture_output=True, text=True, cwd=ROOT,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout.strip().splitlines()[-1]) == [], (pkg, run.stdout)


# =============================================================================== 2. rules restated in bots
# ------------------------------------------------------------------- the two-player endgame solver
def _strict_lead(v: Variant, seed: int, cards: int) -> GameState | None:
    st = random_state(v, seed)
    rng = random.Random(seed)
    while not st.is_over:
        legal = st.legal_actions()
        if (st.face_up == NO_CARD and not st.trick and bin(st.hands[st.current]).count("1") == cards
                and all(a.startswith("play") for a in legal)):
            return st
        st.apply(legal[rng.randrange(len(legal))])
    return None


ENDGAME_SETS = {
    "tute-2-8": ("tute-2-8", {}),
    "tie draw": ("tute-2", {"tie": "draw"}),
    "40 not first": ("tute-2", {"forty_first": False}),
    "last ten 25": ("tute-2", {"last_trick_bonus": 25}),
    "no cantes": ("tute-2", {"cantes": False}),
}


@pytest.mark.parametrize("name", list(ENDGAME_SETS))
def test_the_two_player_endgame_is_the_referee_in_the_option_sets_search_solves(name: str) -> None:
    """``search`` solves every two-player variant with ``tute_after_cante`` and no lost cantes
    (``SearchBot._solvable``); tests/test_endgame.py holds the solver to the referee's minimax in
    six of them. These are the others it runs in: each 4-card position's value from both seats is the
    referee's minimax value."""
    preset, opts = ENDGAME_SETS[name]
    v = get_variant(preset, **opts)
    checked = 0
    for seed in range(120):
        st = _strict_lead(v, seed, 4)
        if st is None:
            continue
        view = st.view(st.current)
        for me in (0, 1):
            diff = st.points[me] - st.points[1 - me]
            value = Endgame(v.rules, st.trump, me, 10 ** 7).solve(
                list(st.hands[:2]), st.current, diff, view.sung_mask, list(view.tricks_won), 4, -10 * EG_WIN, 10 * EG_WIN)
            assert value == minimax(st.copy(), me), (name, seed, me)
            checked += 1
    assert checked > 80


def test_the_pairs_endgame_is_the_referee_without_cantes() -> None:
    """The pairs solver (``bots/team_endgame.py``) reads ``Rules.cantes`` (the two-player one does not):
    held to the referee's minimax with ``cantes = false`` and with the last ten at 25, which
    tests/test_team_endgame.py does not cover."""
    checked = 0
    for opts in ({"cantes": False}, {"last_trick_bonus": 25, "tie": "draw"}):
        v = get_variant("tute-4-pairs", **opts)
        for seed in range(60):
            st = random_state(v, seed)
            rng = random.Random(seed)
            while not st.is_over and not (max(bin(h).count("1") for h in st.hands) <= 2 and not st.trick
                                          and all(a.startswith("play") for a in st.legal_actions())):
                legal = st.legal_actions()
                st.apply(legal[rng.randrange(len(legal))])
            if st.is_over:
                continue
            view = st.view(st.current)
            nxt = st.rules.next[st.dealer]
            for me in (st.current, nxt[st.current]):
                team = st.rules.team
                diff = sum(p if team[s] == team[me] else -p for s, p in enumerate(st.points))
                got = TeamEndgame(v.rules, st.trump, me, nxt, 10 ** 7).solve(
                    list(st.hands), st.current, [], st.current, diff, view.sung_mask, list(view.tricks_won),
                    bin(st.hands[st.current]).count("1"), -10 * EG_WIN, 10 * EG_WIN)
                assert got == minimax(st.copy(), me), (opts, seed, me)
                checked += 1
    assert checked > 100


# ------------------------------------------------------------------- the bitmask playouts
PLAYOUT_SETS = {
    "tute-2 tie draw": get_variant("tute-2", tie="draw", cantes=False),
    "tute-2 the 7 takes any": get_variant("tute-2", exchange_rule="seven"),
    "tute-2 the 2 takes any": get_variant("tute-2", exchange_rule="two"),
    "tute-2 last ten 25": get_variant("tute-2", last_trick_bonus=25, forty_first=False),
    "habanero first-trick Tute": get_variant("habanero", tute_mode="first_team_trick"),
    "tute-3 no cantes": get_variant("tute-3", cantes=False),
    "tute-4 tie draw": get_variant("tute-4", tie="draw", last_trick_bonus=0),
    "pairs tie draw, strict": get_variant("tute-4-pairs", tie="draw", must_beat_led_after_trumped=True,
                                          undertrump_required=True),
}


def _play_turn(v: Variant, seed: int, frac: float) -> GameState | None:
    rng = random.Random(seed)
    st = random_state(v, seed)
    stop = int(frac * v.hand_size * v.players)
    plays = 0
    while not st.is_over:
        legal = st.legal_actions()
        decl = [a for a in legal if not a.startswith("play") and not a.startswith("tute")]
        if decl and rng.random() < 0.7:
            st.apply(decl[0])
            continue
        if plays >= stop and all(a.startswith("play") for a in legal) and len(legal) > 1:
            return st
        choice = [a for a in legal if not a.startswith("tute")] or list(legal)
        a = choice[rng.randrange(len(choice))]
        st.apply(a)
        plays += a.startswith("play")
    return None


@pytest.mark.parametrize("name", list(PLAYOUT_SETS))
def test_bitmask_playouts_are_the_referee_in_option_sets_outside_rulesets(name: str) -> None:
    """The bitmask playouts call the kernel for speed (docs/search.md); tests/test_playout.py replays
    them on the referee over tests/rulesets.py. These option sets (a tie as a draw, the other exchange
    rules, another last ten, no cantes, a first-trick Tute in habanero) also pass ``supports`` and
    are searched by them: each traced playout is legal move by move on the referee, ends with its
    points, last trick and Tute, and its value is the pairwise score of the referee's ranks."""
    v = PLAYOUT_SETS[name]
    assert supports(v)
    done = 0
    for seed in range(150):
        st = _play_turn(v, seed, (seed % 7) / 7)
        if st is None:
            continue
        rng = random.Random(seed)
        view = st.view(st.current)
        legal = st.legal_actions()
        first = parse_card(legal[rng.randrange(len(legal))].split()[1])
        trace: list[tuple[int, str, int]] = []
        out = playout(v.rules, Position(view), list(st.hands), list(st.stock[st.stock_pos:]), first, rng.random,
                      (0.0, 0.3, 1.0)[seed % 3], trace)
        ref = st.copy()
        for seat, action, mask in trace:
            assert ref.current == seat, (seed, action)
            if action.startswith("play"):
                assert ref.playable() == mask, (seed, action)
            assert action in ref.legal_actions(), (seed, action, ref.legal_actions())
            ref.apply(action)
        assert ref.is_over and list(ref.points) == out.points, seed
        res = ref.result_
        if out.tute >= 0:
            assert res.reason == "tute" and res.tute["seat"] == out.tute
        else:
            assert res.reason == "points" and ref.last_trick_winner == out.last
        assert isinstance(out, Outcome) and out.value(v.rules, view.seat, 0.0) == seat_pairwise(res, view.seat, v.teams)
        done += 1
    assert done >= 100


# ------------------------------------------------------------------- greedy's duck (who wins a trick)
@pytest.mark.parametrize("preset", ["cabron", "cabron-4"])
def test_greedy_ducks_with_a_card_that_loses_the_trick_when_one_does(preset: str) -> None:
    """In cabrón past ``cabron_stop`` points greedy means to lose the trick "if any card does"
    (``_duck``'s docstring); whether a card takes the trick is ``rules.BEATS``, the referee's."""
    v = get_variant(preset)
    wrong = []
    for seed in range(150):
        st = random_state(v, seed)
        bots = [GreedyBot() for _ in range(v.players)]
        for b in bots:
            b.new_game({"players": v.players})
        while not st.is_over:
            view = st.view(st.current)
            action = bots[st.current].choose(view)
            if action.startswith("play") and st.trick and view.points[view.seat] >= bots[st.current].cabron_stop:
                mask = st.playable()
                losing = mask & ~BEATS[st.trump][st.top]
                card = parse_card(action.split()[1])
                if losing and BIT[card] & BEATS[st.trump][st.top]:
                    wrong.append((seed, [NAMES[c] for c in st.trick], NAMES[card]))
            st.apply(action)
    assert not wrong, wrong[:3]


# ------------------------------------------------------------------- the estimate of a strict phase
ESTIMATE_SETS = {
    "tute-2": get_variant("tute-2"),
    "no cantes after the pile": get_variant("tute-2", cantes_after_stock=False),
    "no cantes": get_variant("tute-2", cantes=False),
}


@pytest.mark.parametrize("name", list(ESTIMATE_SETS))
def test_the_estimated_endgame_counts_only_cantes_the_rules_allow(name: str) -> None:
    """Where the pile runs out, ``search`` estimates the strict phase from features (``estimate``, in
    every variant ``_solvable`` admits with hands of 6). Its cantes feature, given the cantes made as
    ``strict_sung`` counts them (as search gives them), is the cantes still to come; by the kernel a pair can be sung in the strict phase only with cantes on and
    ``cantes_after_stock`` (``rules.cante_suits`` with no stock left)."""
    v = ESTIMATE_SETS[name]
    r = v.rules
    singable = r.cantes and bool(R.cante_suits(r, R.ELEVENS | R.KINGS, 0, 0, 0))  # a hand of every pair
    seen = 0
    for seed in range(200):
        st = random_state(v, seed)
        rng = random.Random(seed)
        while not st.is_over and not (st.face_up == NO_CARD and not st.trick and st.phase_name == "play"):
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])
        if st.is_over:
            continue
        me = st.current
        mine, other = st.hands[me], st.hands[1 - me]
        f = features(mine, other, st.trump, st.points[me] - st.points[1 - me], True, strict_sung(r, st.sung))
        expected = 0
        if singable:
            for s in range(4):
                if R.pairs(mine) & ~st.sung & BIT[s * 10 + 8]:
                    expected += R.cante_points(s, st.trump)
                elif R.pairs(other) & ~st.sung & BIT[s * 10 + 8]:
                    expected -= R.cante_points(s, st.trump)
        if R.pairs(mine | other) & ~st.sung:
            seen += 1
        assert round(f[8] * 130) == expected, (seed, name)
    assert seen >= 3


# ------------------------------------------------------------------- the referee's words for a duty
@pytest.mark.parametrize("name", list(RULESETS))
def test_the_duty_an_illegal_play_is_told_is_the_duty_playable_applies(name: str) -> None:
    """``explain`` names the duty a refused card broke (``_duty``, its own wording of the duties). The
    duty it names must be the one ``rules.playable`` applies: its words imply a set of cards (montar:
    the led suit above the best one; asistir: the led suit; pisar: trumps above the top one; fallar
    and the trump lead: the trumps), which must be exactly the playable cards."""
    v = RULESETS[name]
    told = 0
    for seed in range(30):
        rng = random.Random(seed)
        st = random_state(v, seed)
        while not st.is_over:
            legal = st.legal_actions()
            if st.phase_name == "play" and st.trick:
                hand, ok = st.hands[st.current], st.playable()
                bad = hand & ~ok
                if bad:
                    c = (bad & -bad).bit_length() - 1
                    msg = st.explain("play " + NAMES[c])
                    led, trump = st.led, st.trump
                    claims = {"(montar)": hand & SUIT_MASK[led] & HIGHER[st.best_led],
                              "(asistir)": hand & SUIT_MASK[led],
                              "(pisar)": hand & TRUMP_MASK[trump] & HIGHER[st.top],
                              "(fallar)": hand & TRUMP_MASK[trump],
                              "trump lead": hand & TRUMP_MASK[trump]}
                    claim = next(m for k, m in claims.items() if k in msg)
                    assert claim == ok, (seed, msg)
                    told += 1
            st.apply(legal[rng.randrange(len(legal))])
    assert told > 0


# =============================================================================== 3. what a seat sees
@pytest.mark.parametrize("name", list(RULESETS))
def test_the_views_derived_fields_are_the_referees(name: str) -> None:
    """``PlayerView`` writes some of the referee's facts again from the public record, for a bot's
    convenience and for the worlds of search (``GameState.from_view`` reads them): the strict phase,
    the cards left to draw, tricks won, the suits sung, the exchanges done, whose trick it is and
    the trump of every trick so far (``knowledge.trumps_by_trick``, cabrón's changing trump). Each
    must be the referee's own at every decision, from every seat."""
    v = RULESETS[name]
    for seed in range(15):
        rng = random.Random(seed)
        st = random_state(v, 500 + seed)
        played: list[int] = []  # the referee's trump as each trick was led
        while not st.is_over:
            for seat in range(v.players):
                view = PlayerView.of(st, seat)
                assert view.strict == st.strict
                assert view.stock_left == st.stock_left
                assert view.tricks_won == list(st.tricks_won)
                assert view.sung_mask == st.sung
                assert view.exchanges_done == (st.done_seven, st.done_two)
                assert view.side_points == st.side_points()
                assert view.trick_order(view.leader) == st.trick_order(st.leader)
                assert trumps_by_trick(view) == played[:len(st.tricks)] + [st.trump], (seed, seat)
            legal = st.legal_actions()
            action = legal[rng.randrange(len(legal))]
            if action.startswith("play") and not st.trick:
                played.append(st.trump)
            st.apply(action)


# =============================================================================== 4. the record's fields
def test_the_records_field_lists_are_the_writers() -> None:
    """``arena.record`` lists the record's fields (``_FIELDS``, what ``extra`` keeps apart) and the
    result's (``RESULT_FIELDS``, what verification compares) a second time: they must be the keys
    ``to_json`` writes and the fields of ``GameResult`` (with ``winner``, which follows from the
    ranks), for the records of every preset."""
    names = [f.name for f in dataclasses.fields(GameResult)]
    assert set(RESULT_FIELDS) == set(names) | {"winner"}
    written: set[str] = set()
    for name, v in RULESETS.items():
        for seed in range(3):
            record = random_record(v, seed)
            data = record.to_json()
            assert tuple(data) == RECORD_FIELDS, name
            assert set(data["result"]) <= set(RESULT_FIELDS), name
            written |= set(data["result"])
    assert written == set(RESULT_FIELDS) - {"match"}  # every field a deal can have is written somewhere


# =============================================================================== 5. who won, defined once
def _rows(v: Variant, record: GameRecord, i: int):
    from leagues.tournament.store import GameRow
    return GameRow(f"t/{v.name}/r1/t0/d{i}/s0", "t", v.name, 0, 1, 0, i, 0, tuple(record.seats),
                   tuple(record.seats), record.seed or 0, record.dealer, "done", record.result)


@pytest.mark.parametrize("name", list(RULESETS))
def test_every_reader_of_a_result_counts_what_outcome_says(name: str) -> None:
    """Who won is ``arena.result.outcome`` (and ``seat_pairwise``/``versus`` for a score), on the
    referee's ranks, which replay gives back. Every reader must count the same: the tournament
    table's wins, draws and losses and its head to head, ``tute play``'s table, a match block's
    score, a Swiss score, a match's deals won, the rating's winner, and the benchmark's score."""
    from leagues.tournament.config import RatingConfig
    from leagues.tournament.matches import game_score
    from leagues.tournament.quickplay import PlayTally, SeatTally
    from leagues.tournament.rating import Rater
    from leagues.tournament.schedule import unit_scores
    from leagues.tournament.tally import COLUMN, ScopeTally

    v = RULESETS[name]
    teams = [tuple(t) for t in v.teams]
    counted = 0
    for seed in range(30):
        record = GameRecord.loads(random_record(v, 300 + seed).dumps())
        result = record.result
        assert replay(record).result_ == result  # verify gives back the referee's result
        if thrown_in(result):
            continue
        counted += 1
        kinds = {s: outcome(result, s, teams) for s in range(v.players)}
        in_play = [t for t in teams if kinds[t[0]] != SAT_OUT]
        # the tournament table and its head to head
        tally = ScopeTally(RatingConfig(), {v.name: teams})
        tally.add(_rows(v, record, seed))
        for t in in_play:
            c = tally.counts[record.seats[t[0]]]
            assert (c.games, getattr(c, COLUMN[kinds[t[0]]])) == (1, 1)
        h2h = tally.head_to_head()
        for a in in_play:
            for b in in_play:
                if a != b:
                    na, nb = record.seats[a[0]], record.seats[b[0]]
                    assert h2h[(na, nb)].score == versus(result.ranks[a[0]], result.ranks[b[0]])
                    assert game_score(result, record.seats, nb, na) == versus(result.ranks[b[0]], result.ranks[a[0]])
        # tute play's table
        play = PlayTally(seats=[SeatTally() for _ in range(v.players)])
        play.add(record, teams)
        for s, k in kinds.items():
            st = play.seats[s]
            assert (st.wins, st.shared, st.losses, st.sat_out) == (k == WIN, k == SHARED, k == "loss", k == SAT_OUT)
        # a Swiss score and the benchmark's score: the pairwise score of the seat's side
        spec = SimpleNamespace(seats=record.seats)
        scores = unit_scores(result, spec, SimpleNamespace(variant=v))
        for t in in_play:
            assert scores[record.seats[t[0]]] == seat_pairwise(result, t[0], teams)
            if len(in_play) == 2:
                assert seat_pairwise(result, t[0], teams) == SCORES[kinds[t[0]]]
        # a match's deals won (first_to, deals): a side ranked first, unless every side is
        if v.scoring != "losers":
            m = MatchScore(MatchRule("deals", 5), v)
            m.add(result)
            every = all(kinds[t[0]] == SHARED for t in teams)
            assert m.wins == [int(kinds[t[0]] in (WIN, SHARED) and not every) for t in teams]
        # the rating: with two sides and a winner, the winner's mean goes up and the loser's down
        if len(in_play) == 2 and kinds[in_play[0][0]] != SHARED:
            rater = Rater(RatingConfig(), {v.name: teams})
            rater.add(_rows(v, record, seed))
            for t in in_play:
                mu = rater.ratings[record.seats[t[0]]][0]
                assert (mu > RatingConfig().mu) == (kinds[t[0]] == WIN)
    assert counted > 0


def test_tute_plays_table_skips_a_deal_everyone_passed() -> None:
    """docs/rules.md: "ratings, tables, head to head and match blocks skip deals with reason redeal".
    The tournament's table does (tests/test_results_qa.py); ``tute play``'s wins/draws/losses did not."""
    from leagues.tournament.quickplay import PlayTally, SeatTally

    v = get_variant("subastado")
    st = random_state(v, 1)
    while not st.is_over:
        st.apply("pass")
    record = GameRecord.from_state(st, game_id="qa/redeal", seed=1, seats=["a", "b", "a", "b"])
    assert thrown_in(record.result)
    tally = PlayTally(seats=[SeatTally() for _ in range(4)])
    tally.add(record, v.teams)
    assert all(s.wins == s.shared == s.losses == 0 for s in tally.seats), tally.seats[0]


def test_a_contract_is_made_where_the_bidding_counts_it_made() -> None:
    """``bots/bidding.py`` judges a bid made from the side's points (``side_result`` >= the bid), the
    referee by ``_end_by_bid``: the two must agree in both subastado presets, with either scoring."""
    from bots.bidding import made_fraction, side_result

    checked = 0
    for v in (get_variant("subastado"), get_variant("subastado-3"), get_variant("subastado", bid_scoring="points")):
        for seed in range(15):
            rng = random.Random(seed)
            st = random_state(v, seed)
            while not st.is_over:
                legal = st.legal_actions()
                if st.phase_name == "auction":  # the first seat bids the lowest, the others pass
                    st.apply(legal[0] if not st.bids else "pass")
                else:
                    st.apply(legal[rng.randrange(len(legal))])
            c = st.result_.contract
            if c is None:
                continue
            points = side_result(st, c["seat"])
            assert (made_fraction([points], c["bid"]) == 1.0) == c["made"], (v.name, seed)
            checked += 1
    assert checked >= 30


def test_the_result_in_words_uses_the_variants_points_limit_like_the_replay() -> None:
    """Sanity of the fixture of the next test: the replay says a custom limit."""
    from leagues.records.timeline import frames

    record = _over_points_record()
    assert "over 80 points" in frames(record)[-1].result


def _over_points_record() -> GameRecord:
    v = get_variant("cabron", over_points_loses=80)
    for seed in range(400):
        record = random_record(v, seed)
        if record.result.reason == "over_points":
            return record
    raise AssertionError("no deal of cabrón lost over 80 points")


def test_tute_games_and_the_replay_say_one_result(tmp_path: Path) -> None:
    """One stored deal, two sentences: ``tute games`` (``result_of``, also the league report's pairs
    pages) and the replay's last frame (``timeline.frames``) must say the same result. ``result_of``
    wrote cabrón's points limit again as 100 (its default), so ``tute games`` and the league report
    said "over 100" where the rule was ``over_points_loses = 80`` and the replay said "over 80"."""
    from leagues.records.timeline import frames
    from leagues.records.wording import Words, result_of, result_text

    record = _over_points_record()
    assert result_of(record.result, record.seats, record.teams, limit=80) == frames(record)[-1].result
    # unknown to the reader (a variant no stored config names): no number at all, never a wrong one
    unknown = result_text(record.result, record.teams, Words.of(record.seats), 0)
    assert "over the points limit" in unknown and "100" not in unknown
    # and ``tute games`` over a store, reading the limit from the stored config
    from league_util import write_config

    write_config(tmp_path, deals=12, variants=[{"name": "cabron", "options": {"over_points_loses": 80}}],
                 entrants=[{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(3)])
    tute = [sys.executable, "-m", "leagues"]
    assert subprocess.run([*tute, "run", "--quiet", "-j", "1"], cwd=tmp_path, capture_output=True).returncode == 0
    listing = subprocess.run([*tute, "games", "--store", "store.sqlite", "--limit", "0"], cwd=tmp_path,
                             capture_output=True, text=True).stdout
    assert "over 80 points" in listing and "over 100" not in listing, listing[-2000:]


# =============================================================================== 6. a playout's value, twice
@pytest.mark.parametrize("preset", ["tute-2", "tute-2-8", "tute-4-pairs-online"])
def test_both_kinds_of_playout_value_a_tute_alike(preset: str) -> None:
    """A deal a Tute ended is won or lost, with no margin (``Outcome.value``: "0 after a Tute, which no
    margin decides"). The referee playouts (``referee_playout.value``), which finish tute-2-8 and
    tute-4-pairs-online for search, must value it as the bitmask ones do: the side's pairwise score."""
    from bots.referee_playout import value

    v = get_variant(preset)
    tutes = 0
    for seed in range(1500):
        st = random_state(v, seed)
        rng = random.Random(seed)
        while not st.is_over:
            legal = st.legal_actions()
            tute = [a for a in legal if a.startswith("tute")]
            st.apply(tute[0] if tute else legal[rng.randrange(len(legal))])
        res = st.result_
        if res.reason != "tute":
            continue
        tutes += 1
        for seat in range(v.players):
            bitmask = Outcome(list(st.points), -1, res.tute["seat"]).value(v.rules, seat, 0.25)
            assert bitmask == seat_pairwise(res, seat, v.teams)
            assert value(st, seat, 0.25) == bitmask, (seed, seat)
        if tutes >= 6:
            break
    assert tutes >= 2  # seeded: tute-2 deals 2 Tutes in these 1,500 random games, the others more
