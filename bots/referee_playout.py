"""Playouts on the referee itself, for the variants the bitmask playouts (``bots/playout.py``) do not model.

Subastado (an auction, the declarer's side playing for its bid), cabrón (no trump until a trick holds a
12-11 pair, trump changing with each such trick, follow suit only), cabrero (losers in the middle, the
capote rules, a dealer sitting out) and the rule options that change the declaration windows: their
rules are many and rarely hot, so a playout here finishes the deal on a ``GameState`` (``copy`` and the
unchecked ``push``) instead of writing the rules out a second time on plain ints. It cannot drift from
the referee, because it is the referee; it costs about three times a bitmask playout.

The policy is chosen per decision from the state's public and hidden fields (a world is perfect
information): Tute, exchanges and cantes whenever offered (``greedy.declaration``); no bid in a playout
(the auction is settled by ``bots/bidding.py`` before the play); trump named as ``greedy`` names it;
cards by ``playout.lead_card``/``follow_card`` (win points cheaply, feed a winning partner, throw low),
in the deals with losers too: in cabrero the first and the last are safe and the rule policy tends to
the first; in cabrón, where over 100 points loses, a seat that has its trick then keeps out of tricks
(``duck_card``). Played as a bot on its own against ``greedy`` (pairwise score, 300 duplicate deals
each; a tuning run, not a benchmark), that mix did better than either pure way: cabrón 0.616 (ducking
from the start 0.583, playing for points 0.513), cabrón-4 0.528 (0.459, 0.501), cabrero-6 0.471
(ducking 0.404).
"""

from __future__ import annotations

from typing import Callable

from arena import actions as A
from arena.cards import SUIT
from arena.result import seat_pairwise
from arena.rules import BEATS, ELEVENS
from arena.state import AUCTION, NAME_TRUMP, OVER, PLAY, GameState

from .greedy import best_trump, declaration
from .playout import (MANY_SEATS, cheapest, dearest, follow_card, margin, partner_safe, uniform, weakest,
                      world_lead)

_CODE = A.CODE
Rand = Callable[[], float]


def finish(st: GameState, rand: Rand, eps: float, trace: list[tuple[int, str]] | None = None,
           ducker: int = -1) -> GameState:
    """Play ``st`` to the end by the policy (``st`` is changed). With ``trace``, each action is appended
    as (seat, action text). ``ducker``: a seat that keeps out of tricks once it has one (``duck_card``),
    the other plan of a deal with losers, where the last place is as safe as the first."""
    while st.phase != OVER:
        code = move(st, rand, eps, ducker)
        if trace is not None:
            trace.append((st.current, A_TEXT[code]))
        st.push(code)
    return st


def move(st: GameState, rand: Rand, eps: float, ducker: int = -1) -> int:
    """The policy's action for the seat on move, as an action code (always a legal one); ``ducker`` as
    in ``finish``."""
    cur = st.current
    if st.phase == PLAY:
        if st.window_seat == cur:
            decl = declaration(st.declarations(cur))
            if decl is not None:
                return _CODE[decl]
        mask = st.playable()
        if mask & (mask - 1) == 0:
            return mask.bit_length() - 1
        if rand() < eps:
            return uniform(mask, rand)
        if cur == ducker and st.tricks_won[cur]:
            return duck_card(st, mask)
        return card(st, mask)
    if st.phase == AUCTION:
        return A.PASS_CODE
    if st.phase == NAME_TRUMP:
        return A.TRUMP0 + best_trump(st.hands[cur])[0]
    legal = st.legal_actions()
    decl = declaration(legal)
    return _CODE[decl if decl is not None else A.PASS if A.PASS in legal else legal[0]]


def card(st: GameState, mask: int) -> int:
    """The policy's card among ``mask`` (two or more playable cards)."""
    r = st.rules
    cur = st.current
    if r.over_points_loses and st.tricks_won[cur]:
        return duck_card(st, mask)
    trump = st.trump
    strict = st.strict
    trick = st.trick
    if not trick:
        return world_lead(st.hands, cur, r.partner[cur], mask, trump, strict, st.sung, r.active >= MANY_SEATS)
    partner = r.partner[cur]
    top = st.top
    best_trump = top if SUIT[top] == trump else -1
    safe = partner >= 0 and partner == st.win_seat and \
        partner_safe(st.hands, st.trick_order(st.leader)[len(trick) + 1:], top, st.led, trump)
    return follow_card(mask, st.hands[cur], list(trick), len(trick) == st.k - 1, safe, trump, strict, st.led,
                       st.best_led, best_trump, st.sung, st.face_up)


def duck_card(st: GameState, mask: int) -> int:
    """For a seat that has its trick and wants no more (cabrón, where over 100 points loses; search's
    ducking plan in cabrero): stay out of tricks. Lead the weakest card that is not half of a pair;
    follow with the dearest card that does not win, else the cheapest winner."""
    if not st.trick:
        return weakest(mask & ~_pair_halves(mask) or mask)
    winners = mask & BEATS[st.trump][st.top]
    losers = mask & ~winners
    if losers:
        return dearest(losers, st.trump)
    return cheapest(winners, st.trump)


def _pair_halves(hand: int) -> int:
    """The 12s and 11s of the pairs in ``hand`` (in cabrón a pair falling in one trick makes trump)."""
    p = hand & hand >> 1 & ELEVENS
    return p | p << 1


def value(st: GameState, seat: int, margin_weight: float) -> float:
    """A finished deal for ``seat``: its side's pairwise score (``arena.result.seat_pairwise``, a dealer
    who sat out left out), plus, where points decide (not after a Tute, as ``playout.Outcome.value``),
    ``margin_weight`` times its side's margin over the best other side / 130."""
    res = st.result_
    assert res is not None
    r = st.rules
    out = seat_pairwise(res, seat, r.teams)
    if margin_weight and r.scoring != "losers" and res.reason != "tute":
        out += margin_weight * margin([sum(res.points[s] for s in t) for t in r.teams], r.team[seat]) / 130.0
    return out


#: action text by code, for traces
A_TEXT: dict[int, str] = {c: t for t, c in _CODE.items()}
