"""``search``: determinized search, the strong reference bot (issue #7).

How it decides, in order:

1. **Declarations by rule.** A Tute is declared at once (it wins the deal); an exchange is always taken
   (the 7 or 2 of trumps for a better trump card, and the window stays open); a cante is always sung
   (the rules already offer the 40 first when it is due); a declaration turn with nothing worth doing
   passes. None of these can cost points, so searching them would only spend time.
2. **Exact endgame.** Two players once the pile is gone: every card not seen by the bot is in the other
   hand, so the rest of the deal is a perfect-information game. Alpha-beta over the remaining tricks
   (strict duties, a cante sung by every trick winner that can, Tute, the last-trick ten) maximises
   first the win (ties go to the last-trick winner, as the referee rules) and then the point margin.
   A node budget guards the few very large endgames (habanero, custom hand sizes); over it, step 3.
3. **Perfect-information Monte Carlo** (PIMC) otherwise: ``worlds`` times, the hidden cards are dealt
   at random consistently with everything the seat knows (``view.knowledge.deal_unseen``: own hand
   exact, known cards placed, shown voids respected, the rest shuffled), each legal card is played in
   that same world and the deal is finished by a fast playout policy for every seat (``bots/playout.py``:
   "win it cheaply or throw low, feed a winning partner, sing and exchange whenever possible" on
   bitmasks, with a little randomness). The card with the best total over the same worlds (common
   random numbers) wins; value = 1 for a won deal (0.5 for a shared first place) plus ``margin_weight``
   times the point margin over the best other side / 130, so that among equally safe moves it prefers
   the one that scores more.

Phases or variants it does not understand (anything whose legal actions are not plays and declarations
of the kinds above) fall back to the first legal action, which the referee guarantees is legal.

Determinism: the RNG is reseeded from the game seed and the seat in ``new_game`` (like ``random``), and
the budget is counted in worlds, so a game replays identically. ``max_ms`` is only a safety net against
the move time limit, counted in CPU time so that a loaded machine does not trip it; the default budget
stays far below it (a move that hit it would depend on the machine's speed, and the benchmark counts
them).

Parameters (keyword arguments, e.g. from a tournament's ``[entrants.params]``):
    seed (0): mixed into the per-game RNG seed.
    worlds (192): sampled worlds per decision, every legal card tried in each. Strength grows with it up
        to about this many (tute-2 against greedy: 53% at 24, 61% at 64, 65% at 192); past it pairs
        gained nothing (384 worlds: -1%, within the noise).
    max_ms (400): stop sampling worlds after this many CPU milliseconds of one decision.
    epsilon (0.1): probability that a playout move is uniform among the legal cards instead of the rule.
    margin_weight (0.25): weight of the point margin against the win in a playout's value.
    endgame (True): exact alpha-beta in the two-player endgame.
    endgame_nodes (200000): alpha-beta node budget per decision before falling back to PIMC.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena import PlayerView
from arena.cards import BIT, NAMES, NO_CARD, POINTS, STRENGTH, SUIT, cards_list as _cards

from arena import rules as R
from arena.rules import BEATS, Rules

from .greedy import GreedyBot
from .playout import Position, playout, supports

_PLAY_TEXT: tuple[str, ...] = tuple(f"play {n}" for n in NAMES)
_PLAY_CARD: dict[str, int] = {t: c for c, t in enumerate(_PLAY_TEXT)}
WIN = 1000  # endgame value of a won deal, above any point margin


class _Abort(Exception):
    """The endgame search ran over its node budget."""


class SearchBot:
    """Declarations by rule, exact two-player endgames, PIMC over sampled worlds elsewhere."""

    name = "search"

    def __init__(self, seed: int = 0, worlds: int = 192, max_ms: float = 400.0, epsilon: float = 0.1,
                 margin_weight: float = 0.25, endgame: bool = True, endgame_nodes: int = 200_000) -> None:
        self.seed = seed
        self.worlds = int(worlds)
        self.max_ms = float(max_ms)
        self.epsilon = float(epsilon)
        self.margin_weight = float(margin_weight)
        self.endgame = bool(endgame)
        self.endgame_nodes = int(endgame_nodes)
        self.rng = random.Random(seed)
        #: decisions searched and their total CPU time, for benchmarks (ms/move)
        self.searched = 0
        self.search_seconds = 0.0
        #: the slowest searched decision (CPU seconds) and how many decisions stopped at ``max_ms``
        self.search_max = 0.0
        self.capped = 0
        #: the variants its world sampling does not model yet (auction, cabrón's changing trump, a seat
        #: sitting out, deals with losers) are played by greedy's rules
        self._fallback = GreedyBot()

    @staticmethod
    def searchable(v: Any) -> bool:
        """The variants its worlds and playouts model; the others are played by greedy's rules."""
        return supports(v)

    def new_game(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(f"search/{self.seed}/{info.get('seed')}/{info.get('seat')}")
        self._fallback.new_game(info)

    # ------------------------------------------------------------------------------ deciding
    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        if not self.searchable(view.variant):
            return self._fallback.choose(view)
        plays = []
        exchange = sing = tute = None
        other = False
        for a in legal:
            c = _PLAY_CARD.get(a)
            if c is not None:
                plays.append(c)
            elif a.startswith("tute"):
                tute = tute or a
            elif a.startswith("exchange"):
                exchange = exchange or a
            elif a.startswith("sing"):
                sing = sing or a
            elif a != "pass":
                other = True
        if tute:
            return tute
        if exchange:
            return exchange
        if sing:
            return sing
        if other or not plays:
            return "pass" if "pass" in legal else legal[0]
        if len(plays) == 1:
            return _PLAY_TEXT[plays[0]]
        start = time.process_time()
        try:
            card = self._decide(view, plays, start)
        finally:
            spent = time.process_time() - start
            self.searched += 1
            self.search_seconds += spent
            self.search_max = max(self.search_max, spent)
        return _PLAY_TEXT[card]

    def _decide(self, view: PlayerView, plays: list[int], start: float) -> int:
        v = view.variant
        if self.endgame and v.players == 2 and view.face_up == NO_CARD and view.stock_left == 0 \
                and v.tute_after_cante and not v.skipped_cante_lost:  # the solver tracks no singers
            try:
                return self._endgame(view, plays)
            except _Abort:
                pass
        return self._pimc(view, plays, start)

    # ------------------------------------------------------------------------------ PIMC
    def _pimc(self, view: PlayerView, plays: list[int], start: float) -> int:
        rng = self.rng
        rand = rng.random
        seat = view.seat
        deadline = start + self.max_ms / 1000.0
        rules = view.variant.rules
        pos = Position(view)
        knowledge = view.knowledge
        eps = self.epsilon
        mw = self.margin_weight
        totals = [0.0] * len(plays)
        worlds = self.worlds
        for _ in range(worlds):
            hands, pile = knowledge.deal_unseen(rng)
            for i, c in enumerate(plays):
                totals[i] += playout(rules, pos, list(hands), pile, c, rand, eps).value(rules, seat, mw)
            if time.process_time() > deadline:
                self.capped += 1
                break
        return plays[max(range(len(plays)), key=totals.__getitem__)]

    # ------------------------------------------------------------------------------ endgame
    def _endgame(self, view: PlayerView, plays: list[int]) -> int:
        """Alpha-beta over the rest of a two-player deal with every card known."""
        v = view.variant
        me = view.seat
        opp = 1 - me
        hand_me = view.hand
        hand_op = view.unseen_cards | view.known_cards(opp)
        sizes = view.hand_sizes
        if bin(hand_op).count("1") != sizes[opp]:
            raise _Abort  # not fully known (cannot happen once the pile is gone; be safe)
        sung = 0
        for _, suit, _ in view.cantes:
            sung |= BIT[suit * 10 + 8]
        won = [0, 0]
        for _, _, w in view.tricks:
            won[w] += 1
        pts = list(view.points)
        eg = _Endgame(v.rules, view.trump, me, self.endgame_nodes)
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


class _Endgame:
    """Two-player strict-phase minimax on bitmasks; values are from ``me``'s side (WIN + margin). The
    rules are the kernel's (``arena.rules``): duties, trick winner, cantes, Tute, the last-trick ten."""

    def __init__(self, r: Rules, trump: int, me: int, budget: int) -> None:
        self.r = r
        self.trump = trump
        self.me = me
        self.budget = budget
        self.nodes = 0
        self.tt: dict[tuple[int, ...], tuple[int, int]] = {}

    def _playable(self, hand: int, led_card: int) -> int:
        return R.playable(R.STRICT, hand, SUIT[led_card], led_card, led_card, self.trump, False, self.r)

    def lead(self, hands: list[int], leader: int, diff: int, sung: int, won: list[int], left: int,
             alpha: int, beta: int) -> int:
        """``leader`` to lead with ``left`` tricks to play; ``diff`` = me's points minus the other's."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Abort
        key = (hands[0], hands[1], leader, diff, sung)
        hit = self.tt.get(key)
        if hit is not None:
            lo, hi = hit
            if lo == hi or lo >= beta or hi <= alpha:
                return lo if lo >= beta or lo == hi else hi
            alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        maxing = leader == self.me
        best = -10 * WIN if maxing else 10 * WIN
        hand = hands[leader]
        for c in sorted(_cards(hand), key=lambda c: -STRENGTH[c] - 16 * POINTS[c]):
            h = list(hands)
            h[leader] = hand & ~BIT[c]
            val = self.follow(h, leader, c, diff, sung, won, left, alpha, beta)
            if maxing:
                if val > best:
                    best = val
                if best > alpha:
                    alpha = best
            else:
                if val < best:
                    best = val
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        lo, hi = (-10 * WIN, 10 * WIN)
        if best <= a0:
            hi = best
        elif best >= b0:
            lo = best
        else:
            lo = hi = best
        self.tt[key] = (lo, hi)
        return best

    def follow(self, hands: list[int], leader: int, led_card: int, diff: int, sung: int, won: list[int],
               left: int, alpha: int, beta: int) -> int:
        """The other seat answers ``led_card``."""
        f = 1 - leader
        mask = self._playable(hands[f], led_card)
        maxing = f == self.me
        best = -10 * WIN if maxing else 10 * WIN
        order = sorted(_cards(mask), key=lambda c: -STRENGTH[c] - (100 if SUIT[c] == self.trump else 0))
        for c in order:
            h = list(hands)
            h[f] = hands[f] & ~BIT[c]
            val = self.finish_trick(h, leader, led_card, c, diff, sung, won, left, alpha, beta)
            if maxing:
                if val > best:
                    best = val
                if best > alpha:
                    alpha = best
            else:
                if val < best:
                    best = val
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    def finish_trick(self, hands: list[int], leader: int, c0: int, c1: int, diff: int, sung: int,
                     won: list[int], left: int, alpha: int, beta: int) -> int:
        """Score the trick (``c0`` led by ``leader``, ``c1`` answered), then the window, then go on."""
        trump = self.trump
        r = self.r
        w = 1 - leader if BIT[c1] & BEATS[trump][c0] else leader
        gain = POINTS[c0] + POINTS[c1]
        left -= 1
        if left == 0:
            gain += r.last_trick_bonus
            d = diff + gain if w == self.me else diff - gain
            ranks = R.points_ranks(r, (d, 0), 0 if w == self.me else 1)  # sides: me (margin d), other
            if ranks[0] == ranks[1]:  # a draw (``tie = draw``)
                return d
            return (WIN if ranks[0] == 0 else -WIN) + d
        won = list(won)
        won[w] += 1
        hw = hands[w]
        if R.has_tute(hw) and R.tute_allowed(r, won[w]):
            return WIN if w == self.me else -WIN
        suits = R.cante_suits(r, hw, sung, trump, 0)
        if suits:
            s = trump if trump in suits else suits[0]
            sung |= BIT[s * 10 + 8]
            gain += R.cante_points(s, trump)
        d = diff + gain if w == self.me else diff - gain
        return self.lead(hands, w, d, sung, won, left, alpha, beta)
