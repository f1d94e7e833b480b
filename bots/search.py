"""``search``: determinized search, the strong reference bot (issue #7), in every variant.

How it decides, in order:

1. **Declarations by rule** (``greedy.declaration``): a Tute at once (it wins the deal), else an
   exchange (the 7 or 2 of trumps for a better trump card, and the window stays open), else a cante
   (the rules already offer the 40 first when it is due); a declaration turn with nothing worth doing
   passes. None of these can cost points, so searching them would only spend time.
2. **The auction by simulation** (subastado): the hand is played out as the declarer in each trump suit
   over ``bid_worlds`` sampled deals (``bots/bidding.py``); the bot raises by the lowest step while the
   bid stays within what the hand made in ``bid_confidence`` of them, and names the suit most likely to
   make the contract.
3. **Exact endgame.** Two players once the pile is gone: every card not seen by the bot is in the other
   hand, so the rest of the deal is a perfect-information game. Alpha-beta (``bots/endgame.py``) over
   the remaining tricks (strict duties, a cante sung by every trick winner that can, Tute, the
   last-trick ten) maximises first the win (ties go to the last-trick winner, as the referee rules)
   and then the point margin. A node budget guards the few very large endgames (habanero, custom
   hand sizes); over it, step 4.
4. **Perfect-information Monte Carlo** (PIMC) otherwise: ``worlds`` times, the hidden cards are dealt
   at random consistently with everything the seat knows (``view.knowledge.deal_unseen``: own hand
   exact, known cards placed, shown voids respected, the rest shuffled) and resampled by how well they
   explain the other sides' plays (``bots/inference.py``), each legal card is played in
   that same world and the deal is finished by a fast playout policy for every seat, and the card with
   the best total over the same worlds (common random numbers) wins. Where the bitmask playouts model
   the variant (``bots/playout.py``: trump from a card, most points win) they finish the deal; elsewhere
   (subastado, cabrón, cabrero, options that move the declaration windows) the referee itself does
   (``bots/referee_playout.py``); in cabrero the seat's own later play is modelled by two plans, for
   points and out of tricks once it has one, and a card is worth its better plan (``plans``). Value:
   1 for a won deal (0.5 for a shared first place; in the variants with more sides, the pairwise score
   against every other side) plus ``margin_weight`` times the point margin over the best other side /
   130 where points decide.
5. **Exact leaves** (two players, hands of 6 cards or fewer, the last tricks of the pile,
   ``solve_pile``): a playout stops where the pile runs out, and the rest of that world, perfect
   information from there, is solved for the win by the endgame's alpha-beta instead of played out by
   the policy: the policy's strict-phase play is what a searching opponent punishes, and the last
   pile tricks decide which hands enter it.
   Further back (more cards left in the pile) there are too many distinct endgames to solve, and the
   playouts still stop where the pile runs out: the endgame is estimated (``bots/strict_estimate.py``,
   a model of the exact solutions, fitted to tute-2's), which judges it better than the policy's play
   and costs a fifth of it, so the same time buys a third more worlds (``estimate``). Its value weighs
   the estimated margin twice as much as a playout's (``ESTIMATED_MARGIN``): measured head to head.
6. **Exact last tricks for the pairs** (``solve_tricks``: two sides of more seats, no pile, every hand
   at most 4 cards): in each world each card is judged by the win of the rest played perfectly
   (``bots/team_endgame.py``, the side's seats maximising together), the playout's margin as the
   tie-break, instead of by the playout alone.

Phases it does not understand fall back to ``pass`` or the first legal action, which the referee
guarantees is legal.

Time: a decision stops sampling worlds after ``worlds`` worlds or ``work_ms`` of work, whichever comes
first. The work is counted, not timed (``bots/budget.py``: each world, playout card and solver node at
what it costs on the reference machine), so a decision it ends replays identically on any machine,
and a tournament gives the same games and table with one worker or two. The clock is the safety net:
``max_ms`` (1000 ms when unset), or the host's move limit told in ``new_game`` (``time_ms``) less a
margin (a quarter of it, at least 20 ms), ends a decision the work has not, on a slow machine or under a
tight limit, so that ``search`` plays at the speed of any tournament; the work budget is at most half
that clock budget, so the work, not the clock, ends the decisions of a machine up to twice as slow as
the reference one, and under a move limit of 2000 ms (1500 on the clock), up to 3.75 times.
It is anytime: every world sampled counts, at least one is. The RNG is reseeded from the game seed and
the seat in ``new_game`` (like ``random``), so a game replays identically unless the clock ended a
decision (the benchmark counts those: ``capped``; the work's stops: ``worked_out``).

Parameters (keyword arguments, e.g. from a tournament's ``[entrants.params]``):
    seed (0): mixed into the per-game RNG seed.
    worlds (192): sampled worlds per decision, every legal card tried in each. Strength grows with it up
        to about this many (tute-2 against greedy: 53% at 24, 61% at 64, 65% at 192); past it pairs
        gained nothing (384 worlds: -1%, within the noise).
    work_ms (400): stop sampling worlds after this much counted work of one decision (milliseconds on
        the reference machine, ``bots/budget.py``), at most half the clock's: the budget that replays
        anywhere.
    max_ms (unset): stop sampling worlds after this many milliseconds of one decision on the clock.
        Unset, the host's move limit alone sets that clock (three quarters of it), or 1000 ms when the
        host tells none: a tournament with a generous ``time_limit_ms`` leaves the work budget to end
        every decision.
    epsilon (0.1): probability that a playout move is uniform among the legal cards instead of the rule.
    margin_weight (0.25): weight of the point margin against the win in a playout's value (times
        ``ESTIMATED_MARGIN`` in an estimated endgame's).
    endgame (True): exact alpha-beta in the two-player endgame.
    endgame_nodes (200000): alpha-beta node budget per decision before falling back to PIMC.
    bid_worlds (64): sampled deals for the auction's estimate (32 let a hand of low cards bid 60 in one
        deal of three: the best of four suits over too few deals is optimistic).
    bid_confidence (0.6): the share of those deals a bid must be made in.
    inference (0.3): the likelihood of another side's past play that the playout policy would not have
        made, in a world (1: no inference, uniform worlds); figures in docs/search.md.
    oversample (2): deals drawn per world kept by the inference's resampling.
    plans (True): in cabrero, where the last place is as safe as the first, each card is also played
        out with the seat's later play keeping out of tricks once it has one, and the card goes with
        the better plan (twice the playouts: +0.017 in cabrero, +0.012 in cabrero-5 and in cabrero-6;
        docs/search.md).
    solve_pile (6): exact leaves (step 5) in the decisions with at most this many cards left in the
        pile, the face-up card counted (0: never), with hands of at most ``LEAF_HAND`` (6) cards. Each
        leaf costs a few playouts, so only the last pile tricks get them (tute-2 against the search
        of c69bec0: +0.055 over 300 paired deals; reaching 10 cards back gained nothing).
    leaf_nodes (2000): alpha-beta node budget of one leaf, which bounds the time of a world (tute-2's
        leaves take about 120 nodes, 1,164 at the 99th percentile; habanero's 8-card ones 827, 4,640
        at the 99th percentile); over it, that card is played out by the policy as without leaves.
    estimate (True): in the two-player pile decisions before the exact leaves, stop the playouts where
        the pile runs out and estimate the endgame (step 5) instead of playing it out by the policy.
        Those decisions sample a third more worlds than ``worlds`` (256 for 192): each costs about a
        quarter less than a world played to the end, so they take the time they took before.
    solve_tricks (4): step 6 in the decisions where no hand holds more than this many cards (0:
        never); tute-4-pairs against greedy +0.0125 [+0.0001, +0.0249] over 400 paired deals, at 61 ms
        a move against 54 (docs/search.md). A 5-card solve costs about a millisecond a card and world.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, Callable, Iterator

from arena import PlayerView
from arena import actions as A
from arena.cards import BIT, NAMES, NO_CARD, POINTS, STRENGTH
from arena.state import GameState

from . import bidding, inference, referee_playout, strict_estimate
from .budget import COST, Work, cards_left
from .params import flag, integer, number
from .endgame import WIN, Abort, Endgame, win_score
from .greedy import declaration
from .playout import Frontier, Outcome, Position, margin, playout, supports
from .team_endgame import TeamEndgame

_PLAY_TEXT: tuple[str, ...] = tuple(f"play {n}" for n in NAMES)
_PLAY_CARD: dict[str, int] = {t: c for c, t in enumerate(_PLAY_TEXT)}
#: what a tournament's move limit leaves to the search: this share of it, less at least ``MARGIN_MS``
LIMIT_SHARE, MARGIN_MS = 0.75, 20.0
#: the clock's budget of a decision when neither ``max_ms`` nor the host's move limit sets it
MAX_MS = 1000.0
#: the work budget's most, as a share of the clock's: on a machine up to 1 / this (2) times slower than the
#: reference one, the work still ends a decision before the clock does (the defaults: 400 ms of work
#: within 1000 on the clock)
WORK_SHARE = 0.5
#: worlds kept per resampled batch (each of ``oversample`` times as many deals): small enough that the
#: time budget is checked often, large enough that resampling has a choice
RESAMPLED = 16
#: exact leaves only with hands of at most this many cards: tute-2's 6-card leaves gained +0.055 head to
#: head; habanero's 8-card ones cost six times the nodes, ran decisions into the time budget and lost
#: -0.030 [-0.062, +0.002] against ``greedy`` (docs/search.md)
LEAF_HAND = 6
#: an estimated endgame's work, in playout cards (``bots/budget.py``): 3.4 us, a card's cost rounded up
ESTIMATE_CARDS = 2
#: the worlds of a decision whose endgames are estimated, per world of ``worlds``: each costs about a
#: quarter less than one played to the end, so 192 worlds' time buys 256 (tute-2, docs/search.md)
ESTIMATED_WORLDS = 4 / 3
#: the margin's weight in an estimated endgame's value, per ``margin_weight``: head to head against
#: c69bec0's search on the same 1,000 deals of tute-2, 0 (the chance of a win alone) scored 0.542, 1 (a
#: playout's weight) 0.563, 2 0.5735 (and 0.5705 on 1,000 other deals), 4 0.559, though the win alone chose
#: better cards on greedy's frontiers (docs/search.md, "The margin in an estimated endgame")
ESTIMATED_MARGIN = 2.0


def plays_by(v: Any) -> str:
    """How ``search`` plays ``v`` (``tute bots list``): by search in every variant (which playouts finish
    its worlds, bitmask or referee, is its own business: ``playout.supports``)."""
    return "by search"


class SearchBot:
    """Declarations by rule, the auction by simulation, exact two-player endgames, PIMC elsewhere."""

    name = "search"
    plays_by = staticmethod(plays_by)
    #: its play's revision, raised whenever it plays a seeded deal otherwise (tests/test_bot_revisions.py
    #: holds each to a fingerprint of its play): a tournament records it with the entrant, and refuses
    #: to resume with another, whose games would differ from those already stored
    revision = 1

    def __init__(self, seed: int = 0, worlds: int = 192, max_ms: float | None = None, epsilon: float = 0.1,
                 margin_weight: float = 0.25, endgame: bool = True, endgame_nodes: int = 200_000,
                 bid_worlds: int = 64, bid_confidence: float = 0.6, inference: float = 0.3,
                 oversample: int = 2, plans: bool = True, solve_pile: int = 6,
                 leaf_nodes: int = 2_000, work_ms: float = 400.0, solve_tricks: int = 4,
                 estimate: bool = True) -> None:
        # each checked (``bots/params.py``): a tournament's params are any JSON value, and a search with
        # no worlds, a probability of 5 or endgame = "false" read as true played on without a word
        self.seed = seed
        self.worlds = integer("worlds", worlds, 1)
        self.work_ms = number("work_ms", work_ms, 0, above=True)
        #: None: the host's move limit sets the clock's budget, or ``MAX_MS`` when none is told
        self.max_ms = None if max_ms is None else number("max_ms", max_ms, 0, above=True)
        self.epsilon = number("epsilon", epsilon, 0, 1)
        self.margin_weight = number("margin_weight", margin_weight, 0)
        self.endgame = flag("endgame", endgame)
        self.endgame_nodes = integer("endgame_nodes", endgame_nodes, 0)
        self.bid_worlds = integer("bid_worlds", bid_worlds, 1)
        self.bid_confidence = number("bid_confidence", bid_confidence, 0, 1, above=True)
        self.inference = number("inference", inference, 0, 1, above=True)
        self.oversample = integer("oversample", oversample, 1)
        self.plans = flag("plans", plans)
        self.solve_pile = integer("solve_pile", solve_pile, 0)
        self.leaf_nodes = integer("leaf_nodes", leaf_nodes, 0)
        self.solve_tricks = integer("solve_tricks", solve_tricks, 0)
        self.estimate = flag("estimate", estimate)
        self.leaf_aborts = 0
        #: seconds, monotonic; a test sets a fake one (not a parameter: a tournament's config could not
        #: give a clock, only break one)
        self.clock: Callable[[], float] = time.perf_counter
        self.rng = random.Random(seed)
        #: the move limit the host told in ``new_game`` (``time_ms``), None when it told none
        self.time_ms: float | None = None
        #: this deal's auction estimate (per suit, the side's points in each world), made once
        self._estimate: list[list[int]] | None = None
        #: decisions searched and their total time, for benchmarks (ms/move)
        self.searched = 0
        self.search_seconds = 0.0
        #: the slowest searched decision (seconds); how many decisions the clock stopped (these depend on
        #: the machine) and how many the work budget did (these replay anywhere)
        self.search_max = 0.0
        self.capped = 0
        self.worked_out = 0
        #: when a benchmark sets a list here (``benchmarks/world_noise.py``), every world of a bitmask PIMC
        #: decision appends its value of each legal card: how a decision's worlds disagree is the noise
        #: that more worlds would average out
        self.world_values: list[list[float]] | None = None
        #: the nodes of this decision's exact endgame when it gave up, for the PIMC budget after it
        self._given_up = 0

    def new_game(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(f"search/{self.seed}/{info.get('seed')}/{info.get('seat')}")
        limit = info.get("time_ms")
        self.time_ms = float(limit) if isinstance(limit, (int, float)) and limit > 0 else None
        self._estimate = None

    def budget_ms(self) -> float:
        """The time on the clock one decision may take: ``max_ms``, or less under the host's move limit.
        Unset, a move limit alone sets it (its ``LIMIT_SHARE``): under a generous limit the clock stays
        far behind the work budget, which alone then ends decisions, and they replay anywhere."""
        if self.time_ms is None:
            return MAX_MS if self.max_ms is None else self.max_ms
        mine = math.inf if self.max_ms is None else self.max_ms
        return max(1.0, min(mine, self.time_ms * LIMIT_SHARE, self.time_ms - MARGIN_MS))

    def work_budget_ms(self) -> float:
        """The counted work one decision may take: ``work_ms``, at most ``WORK_SHARE`` of the clock's."""
        return min(self.work_ms, self.budget_ms() * WORK_SHARE)

    def _budget(self, start: float) -> Work:
        """One decision's budget: the work, and the clock as the safety net; the nodes of an exact
        endgame that gave up on this decision (``_given_up``) count against the work."""
        work = Work(self.work_budget_ms(), start + self.budget_ms() / 1000.0, self.clock)
        work.add(nodes=self._given_up)
        self._given_up = 0
        return work

    def clock_stops(self) -> int:
        """Decisions so far that the clock ended, not the counted work: a game with any may play otherwise
        on another machine or beside other work, and the tournament says so (docs/bots.md)."""
        return self.capped

    def _stop(self, budget: Work) -> bool:
        """Whether to stop sampling worlds, counting which budget ended the decision."""
        if not budget.over():
            return False
        if budget.by_clock:
            self.capped += 1
        else:
            self.worked_out += 1
        return True

    # ------------------------------------------------------------------------------ deciding
    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        if view.phase == "auction":
            return self._timed(view, self._bid)
        if view.phase == "trump":
            return self._timed(view, self._name_trump)
        decl = declaration(legal)
        if decl is not None:
            return decl
        plays = [_PLAY_CARD[a] for a in legal if a in _PLAY_CARD]
        if not plays or len(plays) < len(legal) - (A.PASS in legal):  # something it does not know
            return A.PASS if A.PASS in legal else legal[0]
        if len(plays) == 1:
            return _PLAY_TEXT[plays[0]]
        return _PLAY_TEXT[self._timed(view, lambda v, start: self._decide(v, plays, start))]

    def _timed(self, view: PlayerView, decide: Callable[[PlayerView, float], Any]) -> Any:
        """Run one searched decision, counting its time for the benchmarks."""
        start = self.clock()
        try:
            return decide(view, start)
        finally:
            spent = self.clock() - start
            self.searched += 1
            self.search_seconds += spent
            self.search_max = max(self.search_max, spent)

    def _solvable(self, view: PlayerView) -> bool:
        """Two players in a variant the endgame solver models (it tracks no singers)."""
        v = view.variant
        return self.endgame and v.players == 2 and v.tute_after_cante and not v.skipped_cante_lost

    def _decide(self, view: PlayerView, plays: list[int], start: float) -> int:
        v = view.variant
        if self._solvable(view) and view.face_up == NO_CARD and view.stock_left == 0:
            # the solve's nodes are work too: with long hands (a custom hand_size) an uncapped solve ran
            # far past a tight move limit; capped, it gives up within the budget and PIMC has the rest
            eg = Endgame(v.rules, view.trump, view.seat,
                         min(self.endgame_nodes, int(self.work_budget_ms() * 1000.0 / COST.node)))
            try:
                return self._endgame(view, plays, eg)
            except Abort:
                self._given_up = eg.nodes
        if supports(v):
            return self._pimc(view, plays, start)
        return self._pimc_referee(view, plays, start)

    # ------------------------------------------------------------------------------ worlds
    def deal(self, view: PlayerView) -> tuple[list[int], list[int]]:
        """One world's hidden cards: every hand and the face-down pile (top first), consistent with the
        view. The oracle overrides it with the real ones."""
        return view.knowledge.deal_unseen(self.rng)

    def world(self, view: PlayerView, dealt: tuple[list[int], list[int]] | None = None) -> GameState:
        """One world as a referee state: ``dealt`` (hands and pile), or a new ``deal``. The oracle's is
        the real deal."""
        hands, pile = dealt if dealt is not None else self.deal(view)
        return GameState.from_view(view, hands, pile)

    def worlds_for(self, view: PlayerView) -> Iterator[tuple[list[int], list[int]]]:
        """PIMC's worlds, without end: uniform deals (``deal``), or, with ``inference`` on and plays to
        learn from, each batch resampled from ``oversample`` times as many by how well each explains the
        other seats' plays (``bots/inference.py``). Resampling, not weighting, because a playout costs
        several deals: the playouts go to the likely worlds instead of being discounted after."""
        evidence = inference.Evidence(view, self.inference) \
            if self.inference < 1.0 and inference.models(view.variant) else None
        if evidence is None or not evidence.decisions or self.oversample == 1:
            while True:
                yield self.deal(view)
        k = self.oversample
        rand = self.rng.random
        while True:
            batch = [self.deal(view) for _ in range(RESAMPLED * k)]
            yield from inference.resample(batch, [evidence.weight(h) for h, _ in batch], RESAMPLED, rand())

    # ------------------------------------------------------------------------------ auction
    def _bid(self, view: PlayerView, start: float) -> str:
        v = view.variant
        if self._estimate is None:
            self._estimate = bidding.estimate(view, self.world, self.rng.random, self.bid_worlds,
                                              self.epsilon, self._budget(start), self._stop)
        most = bidding.limit(self._estimate, v.bid_min, v.bid_step, v.bid_max, self.bid_confidence)
        low = next((a for a in view.legal if a != A.PASS), None)
        if low is not None and int(low.split()[1]) <= most:
            return low
        return A.PASS if A.PASS in view.legal else view.legal[0]

    def _name_trump(self, view: PlayerView, start: float) -> str:
        per_suit = bidding.estimate(view, self.world, self.rng.random, self.bid_worlds, self.epsilon,
                                    self._budget(start), self._stop)
        return A.TRUMP_TEXT[bidding.best_trump(per_suit, view.contract)]

    # ------------------------------------------------------------------------------ PIMC
    def _pimc(self, view: PlayerView, plays: list[int], start: float) -> int:
        """PIMC with the bitmask playouts (the variants ``playout.supports``)."""
        rng = self.rng
        rand = rng.random
        seat = view.seat
        budget = self._budget(start)
        rules = view.variant.rules
        pos = Position(view)
        eps = self.epsilon
        mw = self.margin_weight
        totals = [0.0] * len(plays)
        worlds = self.worlds_for(view)
        kind = self.leaf_kind(view)  # "": played to the end; else stopped where the pile runs out
        estimating = kind == "estimate"
        if estimating:
            mw *= ESTIMATED_MARGIN
        unsingable = strict_estimate.strict_sung(rules, 0)  # every 11, where no cante follows the pile
        trump = view.trump
        solved: dict[tuple[int, ...], float | None] = {}  # frontiers recur: few cards are left to deal
        solver = Endgame(rules, trump, seat, self.leaf_nodes)  # and so do their positions
        team = self._team_solver(view)
        team_diff = margin(view.side_points, rules.team[seat]) if team is not None else 0  # two sides
        # a world's work: its deal, every card played out to the end of the deal at most (or to the pile's
        # end, and an estimate), the leaves' nodes
        cards = len(plays) * (cards_left(view) - 2 * view.variant.hand_size + ESTIMATE_CARDS
                              if estimating else cards_left(view))
        nodes = 0
        kept = self.world_values
        most = round(self.worlds * ESTIMATED_WORLDS) if estimating else self.worlds
        for k in range(1, most + 1):
            hands, pile = next(worlds)
            row: list[float] | None = None
            if kept is not None:
                row = []
                kept.append(row)
            for i, c in enumerate(plays):
                out = playout(rules, pos, list(hands), pile, c, rand, eps, None, kind != "")
                # always an Outcome in the pairs (no pile to stop at); None over the solvers' node budgets
                value = self._team_leaf(team, pos, team_diff, hands, c, out, mw) \
                    if team is not None and out.__class__ is Outcome else None
                if estimating and out.__class__ is Frontier:
                    h, pts = out.hands, out.points
                    value = strict_estimate.estimate(h[seat], h[1 - seat], trump, pts[seat] - pts[1 - seat],
                                                     out.leader == seat, out.sung | unsingable, mw)
                elif value is None and out.__class__ is Frontier:
                    value = self._leaf(solver, out, mw, solved)
                    if value is None:  # over its node budget: the policy's playout, as without leaves
                        value = playout(rules, pos, list(hands), pile, c, rand, eps).value(rules, seat, mw)
                elif value is None:  # not a Frontier (the class tests above are the hot path's)
                    value = out.value(rules, seat, mw)  # type: ignore[union-attr]
                totals[i] += value
                if row is not None:
                    row.append(value)
            spent = solver.spent + (team.spent if team is not None else 0)
            budget.add(deals=1, cards=cards, nodes=spent - nodes)
            nodes = spent
            if k < most and self._stop(budget):
                break
        return plays[max(range(len(plays)), key=totals.__getitem__)]

    def leaf_kind(self, view: PlayerView) -> str:
        """How a bitmask PIMC decision ends its playouts: ``solve`` where the pile runs out (the exact
        leaves of its last ``solve_pile`` cards), ``estimate`` there (further back, ``strict_estimate``),
        or ``""``, played out to the end of the deal (no pile, more than two players, large hands)."""
        if not (0 < view.stock_left and view.variant.hand_size <= LEAF_HAND and self._solvable(view)):
            return ""
        if view.stock_left <= self.solve_pile:
            return "solve"
        return "estimate" if self.estimate else ""

    def _leaf(self, solver: Endgame, f: Frontier, mw: float,
              solved: dict[tuple[int, ...], float | None]) -> float | None:
        """A playout's value where the pile ran out: the rest solved exactly, for the win only (a null
        window around a draw), plus the margin so far as the tie-break; None over ``leaf_nodes``."""
        seat = solver.me
        diff = f.points[seat] - f.points[1 - seat]
        key = (f.hands[0], f.hands[1], f.leader, diff, f.sung, f.won[0], f.won[1])
        if key in solved:
            return solved[key]
        try:
            val = solver.solve(f.hands, f.leader, diff, f.sung, f.won, f.left, -1, 1)
        except Abort:
            self.leaf_aborts += 1
            solved[key] = None
            return None
        solved[key] = value = win_score(val) + mw * diff / 130.0
        return value

    def _team_solver(self, view: PlayerView) -> TeamEndgame | None:
        """The solver of the last ``solve_tricks`` tricks of a deal of two sides and more seats with no
        pile (``tute-4-pairs``), or None where it does not apply."""
        v = view.variant
        r = v.rules
        if (not self.endgame or self.solve_tricks <= 0 or v.players == 2 or len(r.teams) != 2
                or view.face_up != NO_CARD or view.stock_left or max(view.hand_sizes) > self.solve_tricks):
            return None
        return TeamEndgame(r, view.trump, view.seat, r.next[view.dealer], self.leaf_nodes)

    def _team_leaf(self, team: TeamEndgame, pos: Position, diff: int, hands: list[int], c: int, out: Outcome,
                   mw: float) -> float | None:
        """A card's value in one world: the win of the rest played perfectly (a null window around a
        draw; ``diff`` the side's margin so far), the playout's margin as the tie-break; None over
        ``leaf_nodes`` (the playout's value)."""
        seat = pos.current
        try:
            val = team.solve(hands, seat, pos.trick, pos.leader, diff, pos.sung, pos.won,
                             bin(hands[seat]).count("1"), -1, 1, c)
        except Abort:
            self.leaf_aborts += 1
            return None
        return win_score(val) + mw * out.margin(team.r, seat) / 130.0

    def _pimc_referee(self, view: PlayerView, plays: list[int], start: float) -> int:
        """PIMC with playouts on the referee (``bots/referee_playout.py``), for every other variant."""
        rand = self.rng.random
        seat = view.seat
        budget = self._budget(start)
        eps = self.epsilon
        mw = self.margin_weight
        finish, value = referee_playout.finish, referee_playout.value
        # with losers, own later play by either plan: for points, or out of tricks once it has one
        v = view.variant
        plans = (-1, seat) if self.plans and v.scoring == "losers" and not v.over_points_loses else (-1,)
        n = len(plans)
        totals = [0.0] * (len(plays) * n)
        worlds = self.worlds_for(view)
        cards = len(totals) * cards_left(view)  # a world's playouts, at most
        for k in range(1, self.worlds + 1):
            world = self.world(view, next(worlds))
            for i, c in enumerate(plays):
                for j, ducker in enumerate(plans):
                    st = world.copy()
                    st.push(c)
                    totals[i * n + j] += value(finish(st, rand, eps, None, ducker), seat, mw)
            budget.add(states=1, referee_cards=cards)
            if k < self.worlds and self._stop(budget):
                break
        return plays[max(range(len(totals)), key=totals.__getitem__) // n]

    # ------------------------------------------------------------------------------ endgame
    def _endgame(self, view: PlayerView, plays: list[int], eg: Endgame) -> int:
        """Alpha-beta over the rest of a two-player deal with every card known (``eg``: the solver, with
        the decision's node budget; Abort past it)."""
        me = view.seat
        opp = 1 - me
        hand_me = view.hand
        hand_op = view.unseen_cards | view.known_cards(opp)
        sizes = view.hand_sizes
        if bin(hand_op).count("1") != sizes[opp]:
            raise Abort  # not fully known (cannot happen once the pile is gone; be safe)
        sung = view.sung_mask
        won = view.tricks_won
        pts = list(view.points)
        tricks_left = sizes[me]  # the cards in my hand, the one I play now included
        best_c = plays[0]
        best_v = -10 * WIN
        alpha = -10 * WIN
        beta = 10 * WIN
        order = sorted(plays, key=lambda c: -STRENGTH[c] - 16 * POINTS[c])
        for c in order:
            hands = [0, 0]
            hands[me] = hand_me & ~BIT[c]
            hands[opp] = hand_op
            if view.trick:
                val = eg.finish_trick(hands, view.leader, view.trick[0], c, pts[me] - pts[opp], sung, won,
                                      tricks_left, alpha, beta)
            else:
                val = eg.follow(hands, me, c, pts[me] - pts[opp], sung, won, tricks_left, alpha, beta)
            if val > best_v:
                best_v, best_c = val, c
                alpha = max(alpha, val)
        return best_c
