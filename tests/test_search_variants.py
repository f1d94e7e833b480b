"""``search`` in every variant (issue 18): referee playouts, the auction by simulation, the time budget,
the oracle.

Strength is a benchmark (``benchmarks/search_strength.py --variant all --oracle``, docs/search.md);
here the mechanisms, each able to fail: a playout move the referee would refuse, a bid with a poor hand,
a decision past its budget, an oracle that is not given the real deal.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import VARIANTS, GameState, PlayerView, play_game, shuffled_deck
from arena.cards import NAMES, parse_card
from arena.state import PLAY
from bots import bidding, referee_playout
from bots.budget import COST, Work
from bots.greedy import GreedyBot
from bots.oracle import OracleBot, play_open
from bots.random_bot import RandomBot
from bots.search import SearchBot, plays_by

from rulesets import RULESETS

COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def _position(name: str, seed: int, frac: float) -> GameState:
    """A state part-way through a random legal game of ``name``."""
    v = RULESETS[name]
    rng = random.Random(seed)
    state = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
    stop = int(frac * v.deck_size)
    for _ in range(stop):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


@settings(max_examples=300, **COMMON)
@given(name=st.sampled_from(sorted(RULESETS)), seed=st.integers(0, 10**6), frac=st.floats(0, 1))
def test_referee_playouts_replay_on_the_referee_move_by_move(name: str, seed: int, frac: float) -> None:
    """From a world sampled from the mover's view, the playout's every action is legal when the checked
    referee replays it, and the replay ends the same way."""
    state = _position(name, seed, frac)
    if state.is_over:
        return
    rng = random.Random(seed)
    world = PlayerView.of(state, state.current).sample_world(rng)
    trace: list[tuple[int, str]] = []
    ducker = seed % world.variant.players if seed % 3 == 0 else -1  # search's other plan (``plans``)
    done = referee_playout.finish(world.copy(), rng.random, 0.2, trace, ducker)
    check = world.copy()
    for seat, action in trace:
        assert check.current == seat
        assert action in check.legal_actions(), (name, action, check.legal_actions())
        check.apply(action)
    assert check.is_over
    assert check.result_ == done.result_


@pytest.mark.parametrize("name", ["cabrero", "cabrero-5", "cabrero-3"])
def test_the_ducking_plan_keeps_out_of_tricks_once_it_has_one(name: str) -> None:
    """With ``ducker``, that seat plays ``duck_card`` at each choice once it has a trick, and so takes
    fewer tricks after its first than the policy does in the same worlds."""
    after_first = {False: 0, True: 0}
    for seed in range(12):
        state = _position(name, seed, 0.0)
        world = PlayerView.of(state, state.current).sample_world(random.Random(seed))
        me = world.current
        for duck in (False, True):
            trace: list[tuple[int, str]] = []
            referee_playout.finish(world.copy(), random.Random(seed).random, 0.0, trace, me if duck else -1)
            check = world.copy()
            for seat, action in trace:
                mask = check.playable() if check.phase == PLAY and action.startswith("play") else 0
                if duck and seat == me and check.tricks_won[me] and mask & (mask - 1):
                    assert action == "play " + NAMES[referee_playout.duck_card(check, mask)]
                check.apply(action)
            after_first[duck] += max(0, check.tricks_won[me] - 1)
    assert after_first[True] < after_first[False]


def test_plans_search_both_plans_only_where_the_policy_does_not_duck_already(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``plans`` plays each card of each world out twice in cabrero, by the policy and with the seat
    ducking; in cabrón, whose policy already keeps out of tricks once it has one, once, and the game is
    the same with and without it. Each playout's plan is recorded as the search asks for it."""
    real_finish = referee_playout.finish
    for name, both in (("cabron", False), ("cabrero", True)):
        v = VARIANTS[name]
        games = []
        for plans in (False, True):
            asked: list[int] = []

            def finish(st: GameState, rand: referee_playout.Rand, eps: float,
                       trace: list[tuple[int, str]] | None = None, ducker: int = -1) -> GameState:
                asked.append(ducker)
                return real_finish(st, rand, eps, trace, ducker)

            monkeypatch.setattr(referee_playout, "finish", finish)
            # no time budget: with and without plans must compare on their worlds, not on the clock
            searcher = SearchBot(seed=1, worlds=4, plans=plans, max_ms=1e9)
            players = [searcher if s == 1 else GreedyBot() for s in range(v.players)]
            games.append(play_game(v, shuffled_deck(v, 3), 0, players, seed=3).actions)
            monkeypatch.setattr(referee_playout, "finish", real_finish)
            assert asked, name
            if plans and both:
                assert asked[0::2] == [-1] * (len(asked) // 2) and asked[1::2] == [1] * (len(asked) // 2), name
            else:
                assert set(asked) == {-1}, (name, plans)
        if not both:
            assert games[0] == games[1], name


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_preset_is_searched(name: str) -> None:
    """No preset falls back to a rule bot: the searched decisions are counted, and each had worlds."""
    v = VARIANTS[name]
    bot = SearchBot(worlds=3)
    calls = []
    deal = bot.deal
    bot.deal = lambda view: calls.append(1) or deal(view)  # type: ignore[method-assign]
    for g in range(3):
        seat = (g + 1) % v.players  # not the dealer (who sits out in cabrero-5/6)
        players = [bot if s == seat else GreedyBot() for s in range(v.players)]
        rec = play_game(v, shuffled_deck(v, g), g % v.players, players, seed=g)
        assert rec.result.forfeit is None
    assert bot.searched > 0 and calls, name
    assert plays_by(v) == "by search"


@pytest.mark.parametrize("name", ["subastado", "subastado-3", "cabron", "cabrero-5", "tute-4-pairs-online"])
def test_deterministic_in_the_referee_playout_variants(name: str) -> None:
    v = VARIANTS[name]
    deck = shuffled_deck(v, 5)
    # no time budget: a decision (the auction's estimate too) stops on its worlds, never on the clock
    # of a loaded machine
    runs = [play_game(v, deck, 1, [SearchBot(seed=2, worlds=5, max_ms=1e9) for _ in range(v.players)],
                      seed=9).actions
            for _ in range(2)]
    assert runs[0] == runs[1]


# ------------------------------------------------------------------------------------------ auction
def _deal_with(v_name: str, dealer: int, seat: int, hand: list[str], seed: int = 0) -> GameState:
    """A deal of ``v_name`` in which ``seat`` holds ``hand`` (the rest shuffled)."""
    v = VARIANTS[v_name]
    r = v.rules
    mine = [parse_card(c) for c in hand]
    rest = [c for c in shuffled_deck(v, seed) if c not in mine]
    k = r.order[dealer][r.next[dealer][dealer]].index(seat)  # seat is the k-th dealt
    positions = range(v.deck_size)[r.deal_slices[k]]
    deck: list[int] = []
    it_mine, it_rest = iter(mine), iter(rest)
    for i in range(v.deck_size):
        deck.append(next(it_mine) if i in positions else next(it_rest))
    state = GameState.new(v, deck, dealer)
    assert state.hands[seat] == sum(1 << c for c in mine)
    return state


STRONG = ["1o", "3o", "12o", "11o", "10o", "7o", "1c", "2e", "4b", "5c"]  # six trumps to be, the ace
WEAK = ["2o", "4o", "5o", "2c", "4c", "5c", "2e", "4e", "2b", "4b"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_hand_of_six_trumps_and_the_ace_bids_and_a_hand_of_low_cards_passes(seed: int) -> None:
    for hand, bids in ((STRONG, True), (WEAK, False)):
        state = _deal_with("subastado", 0, 1, hand, seed)
        assert state.phase_name == "auction" and state.current == 1
        bot = SearchBot(seed=seed, max_ms=1e9)  # the estimate over all its deals, however busy the machine
        bot.new_game({"seed": seed, "seat": 1})
        action = bot.choose(PlayerView.of(state, 1))
        assert (action != "pass") == bids, (hand, action)


def test_the_strong_hand_names_its_long_suit() -> None:
    state = _deal_with("subastado", 0, 1, STRONG)
    state.apply("bid 60")
    for _ in range(3):
        state.apply("pass")
    assert state.phase_name == "trump" and state.current == 1
    bot = SearchBot(max_ms=1e9)
    bot.new_game({"seed": 1, "seat": 1})
    assert bot.choose(PlayerView.of(state, 1)) == "trump o"


def test_the_estimate_stops_on_its_budget_alone() -> None:
    """A work budget given without a stop rule ends the estimate by its own ``over``: with none left,
    after the one world every decision has; without a budget, all the worlds; and each world's work is
    counted (one state, four playouts' cards)."""
    state = _deal_with("subastado", 0, 1, STRONG)
    view = PlayerView.of(state, 1)
    bot = SearchBot()
    bot.new_game({"seed": 0, "seat": 1})
    spent = Work(0.0, float("inf"), lambda: 0.0)
    short = bidding.estimate(view, bot.world, random.Random(0).random, 8, 0.1, spent)
    assert [len(x) for x in short] == [1, 1, 1, 1]
    assert spent.tally[3] == 1 and spent.tally[4] > 0
    full = bidding.estimate(view, bot.world, random.Random(0).random, 8, 0.1)
    assert [len(x) for x in full] == [8, 8, 8, 8]


def test_the_limit_is_the_highest_bid_made_often_enough() -> None:
    per_suit = [[100, 80, 70, 50], [0, 0, 0, 0], [200, 10, 10, 10], []]
    # oros makes 70 in 3 of 4 worlds (75% >= 60%), 80 in half: the limit is 70
    assert bidding.limit(per_suit, 60, 5, 230, 0.6) == 70
    assert bidding.limit(per_suit, 60, 5, 230, 0.9) == 0
    assert bidding.best_trump(per_suit, 75) == 0


# ------------------------------------------------------------------------------------------- time
class FakeClock:
    """Seconds that advance by ``step`` at every reading: a machine on which one world costs a step."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("name", ["tute-2", "tute-4-pairs", "subastado", "cabron"])
def test_max_ms_bounds_every_decision_whatever_the_world_budget(name: str) -> None:
    """A budget of worlds and of work no machine could reach, ``max_ms = 50``, a clock on which each
    reading costs 7 ms: every searched decision stops within the budget plus one world (the mechanism,
    not a timing)."""
    v = VARIANTS[name]
    clock = FakeClock(0.007)
    bot = SearchBot(worlds=10**6, work_ms=10**9, max_ms=50, bid_worlds=10**6)
    bot.clock = clock
    players = [bot] + [GreedyBot() for _ in range(v.players - 1)]
    rec = play_game(v, shuffled_deck(v, 4), 1, players, seed=4)
    assert rec.result.forfeit is None
    assert bot.searched > 0
    assert bot.capped > 0
    # what a tournament's worker reads to say the game may not replay (through the in-process host)
    from arena.hosting.inprocess import InProcessHost
    assert InProcessHost(bot, "search").clock_stops() == bot.clock_stops() == bot.capped
    assert bot.search_max <= 0.050 + 2 * clock.step + 1e-9


@pytest.mark.parametrize("name", ["tute-2", "tute-4-pairs", "subastado", "cabrero-6"])
def test_work_ends_decisions_the_same_on_any_clock(name: str) -> None:
    """A budget of worlds no machine could reach, ``work_ms = 20``: the counted work ends every searched
    decision, so a fast clock, a slow one and the real one give the same game (what makes a tournament
    replay and its table the same with any number of workers), and the clock ends none. (The real
    clock's limit is far: a loaded machine, the suite's other tests beside it, may take 100 ms for work
    counted as 20, and that is the fake clocks' to show, not a wall clock's.)"""
    v = VARIANTS[name]
    deck = shuffled_deck(v, 8)
    records = []
    for clock in (FakeClock(1e-5), FakeClock(2e-4), None):  # a fake clock would end a decision at 100 ms
        bot = SearchBot(worlds=10**6, work_ms=20, max_ms=100 if clock is not None else 10_000, bid_worlds=10**6)
        if clock is not None:
            bot.clock = clock
        players = [bot] + [GreedyBot() for _ in range(v.players - 1)]
        records.append(play_game(v, deck, 1, players, seed=8).to_json())
        assert bot.searched > 0
        assert bot.worked_out > 0 and bot.capped == 0
    assert records[0] == records[1] == records[2]


def test_work_counts_each_kind() -> None:
    """A tute-2 decision with exact leaves and a tute-4-pairs one in its last tricks count deals, cards
    and solver nodes; a cabrero one referee states and cards; ``spent_us`` is their cost."""
    seen: dict[str, list[int]] = {}

    class Keeping(SearchBot):
        kind = ""

        def _budget(self, start: float) -> Work:
            work = super()._budget(start)
            seen[self.kind] = work.tally
            return work

    # the first searched decision with 4 cards left in tute-2's pile (leaves), any in cabrero-6, one in
    # the last four tricks of tute-4-pairs (the team solver)
    cases = (("tute-2", "leaves", lambda view: view.stock_left == 4), ("cabrero-6", "referee", lambda view: True),
             ("tute-4-pairs", "team", lambda view: max(view.hand_sizes) <= 4))
    for name, kind, wanted in cases:
        v = VARIANTS[name]
        bot = Keeping(worlds=8, max_ms=1e9)
        bot.kind = kind
        state = GameState.new(v, shuffled_deck(v, 3), 0)
        while not state.is_over and kind not in seen:
            view = state.view(state.current)
            legal = view.legal
            if (len(legal) > 1 and all(a.startswith("play ") for a in legal)
                    and wanted(view)):
                bot.new_game({"seed": 3, "seat": state.current})
                bot.choose(view)
            state.apply(GreedyBot().choose(view) if len(legal) > 1 else legal[0])
        assert kind in seen, name
    deals, cards, nodes, states, ref_cards = seen["leaves"]
    assert deals == 8 and cards > 0 and nodes > 0 and states == ref_cards == 0
    deals, cards, nodes, states, ref_cards = seen["team"]
    assert deals == 8 and cards > 0 and nodes > 0 and states == ref_cards == 0
    deals, cards, nodes, states, ref_cards = seen["referee"]
    assert states == 8 and ref_cards > 0 and deals == cards == nodes == 0
    work = Work(1.0, 0.0, lambda: 0.0)
    work.add(deals=1, cards=2, nodes=3, states=4, referee_cards=5)
    assert work.spent_us == pytest.approx(COST.deal + 2 * COST.card + 3 * COST.node + 4 * COST.state
                                          + 5 * COST.referee_card)


def test_the_hosts_move_limit_caps_the_budget() -> None:
    bot = SearchBot(max_ms=400)
    bot.new_game({"seed": 1, "seat": 0})
    assert bot.budget_ms() == 400
    assert bot.work_budget_ms() == 200  # half the clock's, at most
    assert SearchBot().work_budget_ms() == 400 and SearchBot().budget_ms() == 1000
    bot.new_game({"seed": 1, "seat": 0, "time_ms": 200})
    assert bot.budget_ms() == 150  # three quarters of the limit
    assert bot.work_budget_ms() == 75
    bot.new_game({"seed": 1, "seat": 0, "time_ms": 60})
    assert bot.budget_ms() == 40  # the limit less 20 ms
    bot.new_game({"seed": 1, "seat": 0, "time_ms": 5000})
    assert bot.budget_ms() == 400
    # unset, max_ms leaves the clock to the host's limit: under a generous one, the work ends decisions
    free = SearchBot()
    free.new_game({"seed": 1, "seat": 0, "time_ms": 2000})
    assert free.budget_ms() == 1500 and free.work_budget_ms() == 400
    free.new_game({"seed": 1, "seat": 0, "time_ms": 200})
    assert free.budget_ms() == 150 and free.work_budget_ms() == 75
    free.new_game({"seed": 1, "seat": 0})
    assert free.budget_ms() == 1000


def test_a_tournament_host_tells_the_move_limit() -> None:
    """Built as a tournament builds a player, ``search`` learns the move limit from ``new_game``."""
    from arena.hosting import make_player

    player = make_player("search", {"worlds": 2}, isolation="inprocess", time_limit_ms=200)
    player.new_game({"seed": 3, "seat": 0})
    assert player.bot.time_ms == 200  # type: ignore[attr-defined]
    assert player.bot.budget_ms() == 150  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ oracle
@pytest.mark.parametrize("name", ["tute-2", "tute-3", "subastado", "cabrero"])
def test_play_open_without_an_oracle_is_play_game(name: str) -> None:
    v = VARIANTS[name]
    deck = shuffled_deck(v, 8)
    rec = play_game(v, deck, 2 % v.players, [RandomBot(s) for s in range(v.players)], seed=8, game_id="g")
    st_ = play_open(v, deck, 2 % v.players, [RandomBot(s) for s in range(v.players)], seed=8, game_id="g")
    assert st_.actions == rec.actions
    assert st_.result_ == rec.result


def test_the_oracle_searches_the_real_deal_and_refuses_without_it() -> None:
    v = VARIANTS["tute-2"]
    state = GameState.new(v, shuffled_deck(v, 2), 0)
    oracle = OracleBot(worlds=3)
    oracle.new_game({"seed": 2, "seat": state.current})
    view = PlayerView.of(state, state.current)
    with pytest.raises(RuntimeError, match="play_open"):
        oracle.choose(view)
    oracle.see(state)
    hands, pile = oracle.deal(view)
    assert hands == state.hands and pile == list(state.stock[state.stock_pos:])
    assert oracle.choose(view) in view.legal
    # every world the oracle plays is the real one
    assert oracle.world(view).hands == state.hands


# ------------------------------------------------------------------------------------------ values
def test_pairwise_scores_sides_against_every_other_side() -> None:
    from arena.result import pairwise

    assert pairwise([0, 1], 0) == 1.0 and pairwise([0, 1], 1) == 0.0 and pairwise([0, 0], 1) == 0.5
    assert pairwise([1, 0, 2], 0) == 0.5  # above one, below one
    assert pairwise([0, 2, 0, 1], 3) == pytest.approx(1 / 3)
    # equal players score 0.5 on average, whatever the ranks: the sum over sides is fixed
    for ranks in ([0, 1, 2], [0, 0, 2], [1, 1, 0, 3], [0, 0, 0]):
        assert sum(pairwise(ranks, s) for s in range(len(ranks))) == pytest.approx(len(ranks) / 2)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_equal_players_score_one_half_in_every_preset(name: str) -> None:
    """Over the sides that played a deal, the pairwise scores sum to half their number, so a bot
    against copies of itself scores exactly 0.5 a deal, averaged over the seats. A dealer who sat out
    (cabrero-5, cabrero-6) is not one of them: counted, it was a side ranked with the non-losers that
    every seat could lose to and none beat, and two equal bots scored 0.445 in cabrero-5."""
    from arena.result import seat_pairwise, sides_in_play

    v = VARIANTS[name]
    for seed in range(4):
        state = _position(name, seed, 1.0)
        while not state.is_over:
            state.apply(state.legal_actions()[0])
        result = state.result_
        sides = sides_in_play(v.teams, result.sit_out)
        assert len(sides) == len(v.teams) - (result.sit_out is not None)
        total = sum(seat_pairwise(result, t[0], v.teams) for t in sides)
        assert total == pytest.approx(len(sides) / 2), (name, seed, result.ranks, result.sit_out)


def _bench(name: str = "search_strength"):  # type: ignore[no-untyped-def]
    """``benchmarks/NAME.py`` as a module (benchmarks are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    bench = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    return bench


@pytest.mark.parametrize("name", ["tute-3", "cabron", "cabrero-5", "subastado"])
def test_a_playouts_value_is_its_seats_pairwise_score(name: str) -> None:
    """The referee playouts' value without the margin is exactly the benchmark's measure."""
    bench = _bench()
    v = VARIANTS[name]
    for seed in range(6):
        st_ = _position(name, seed, 1.0)
        while not st_.is_over:
            st_.apply(st_.legal_actions()[0])
        for seat in range(v.players):
            if seat != st_.result_.sit_out:
                assert referee_playout.value(st_, seat, 0.0) == bench.seat_pairwise(st_.result_, seat, v.teams)


def test_a_command_bot_is_told_the_move_limit_in_new_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The protocol's ``new_game`` carries ``time_ms`` (docs/protocol.md), as every ``act`` does."""
    import json
    import sys

    from arena.hosting import make_player

    seen = tmp_path / "new_game.jsonl"
    script = tmp_path / "rec.py"
    script.write_text(
        "import json, sys\n"
        "out = open(sys.argv[1], 'a')\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'name': 'rec'}), flush=True)\n"
        "    elif msg['type'] == 'new_game':\n"
        "        out.write(line); out.flush()\n"
        "    elif msg['type'] == 'act':\n"
        "        print(json.dumps({'action': msg['legal'][0], 'request': msg.get('request')}), flush=True)\n")
    player = make_player([sys.executable, str(script), str(seen)], time_limit_ms=300)
    try:
        v = VARIANTS["tute-2"]
        rec = play_game(v, shuffled_deck(v, 1), 0, [player, RandomBot(1)], seed=1)
    finally:
        player.close()  # type: ignore[attr-defined]
    assert rec.result.forfeit is None
    messages = [json.loads(x) for x in seen.read_text().splitlines()]
    assert messages and messages[0]["time_ms"] == 300 and messages[0]["seat"] == 0


def test_the_benchmark_plays_search_as_it_was_at_a_commit() -> None:
    """``--opponent git:HEAD`` is a separate copy of the committed search: in a clean checkout it
    plays exactly the moves of today's (a copy that drifted would show here)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if subprocess.run(["git", "-C", str(root), "diff", "--quiet", "HEAD", "--", "bots"]).returncode != 0:
        pytest.skip("bots/ has uncommitted changes: HEAD's search is not today's")
    bench = _bench()
    old = bench.commit_search("HEAD")
    assert old is not SearchBot and old.__module__.startswith("search_at_")
    v = VARIANTS["tute-2"]
    for seed in range(2):
        deck = shuffled_deck(v, seed)
        a = play_game(v, deck, 0, [SearchBot(worlds=6, max_ms=1e9), old(worlds=6, max_ms=1e9)], seed=seed)
        b = play_game(v, deck, 0, [SearchBot(worlds=6, max_ms=1e9), SearchBot(worlds=6, max_ms=1e9)], seed=seed)
        assert a.actions == b.actions
    # --baseline git:HEAD: the same deals again by the copy; against itself the difference is nil
    out = bench.play_block(("tute-3", "greedy", 0, 1, {"worlds": 4}, False, {}, "git:HEAD", {"worlds": 4}))
    assert out["baseline"] == out["search"] and out["baseline_searched"] == out["searched"] > 0


def test_the_regret_benchmark_scores_arms_on_the_same_positions() -> None:
    """``benchmarks/search_regret.py``: every arm answers every position; two equal arms answer alike;
    a regret is never negative (the best card's value minus the chosen one's)."""
    arms = [{"worlds": 4}, {"worlds": 4}, {"worlds": 4, "inference": 1.0}]
    a, b, c = _bench("search_regret").regrets("tute-3", 1, arms, 0, None)
    assert len(a) == len(b) == len(c) >= 3
    assert a == b
    assert min(a + c) >= 0.0
