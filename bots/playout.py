"""Fast playouts for ``search``: the rest of a deal on plain ints and lists, no referee objects.

Why not drive a ``GameState``: PIMC gets stronger with the number of playouts per decision (on
``tute-2``, 24 worlds scored 53% against ``greedy`` and 64 worlds 61%), and the referee's ``apply``
checks every action as a string against a freshly built legal list, which is right for a referee and
pure overhead inside a search that only ever generates legal moves. Here a playout is one loop over
bitmasks, about three times faster. It writes no rule of its own: the duties, the trick, the draw, the
declarations and the scoring are the rules kernel's functions (``arena.rules``), the ones the referee
calls, and ``tests/test_playout.py`` replays traced playouts on the referee move by move.

The variants modelled (``supports``): trump from a card, most points win, everyone plays (``tute-2``,
``habanero``, ``tute-3``, ``tute-4``, ``tute-4-pairs`` and their rule options).

A playout starts from a ``Position`` (the public state of the deal, taken once per decision from the
view) and one world's hidden cards (hands and face-down pile), plays a first card for the seat on move,
then lets every seat follow the policy below, declarations included, to the end of the deal.
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Sequence, overload

from arena import PlayerView
from arena import rules as R
from arena.cards import BIT, HIGHER, NAMES, NO_CARD, NO_SUIT, POINTS, STRENGTH, SUIT, SUIT_MASK
from arena.result import pairwise
from arena.rules import BEATS, ELEVENS, TRUMP_MASK, Rules

#: per trump suit (``NO_SUIT`` included: no card is a trump), a sort key per card: lower = cheaper to give
#: away (non-trumps first, then by points, then by strength)
CHEAP: tuple[tuple[int, ...], ...] = tuple(
    tuple((1000 if SUIT[c] == t else 0) + POINTS[c] * 16 + STRENGTH[c] for c in range(40)) for t in range(5))


def supports(v: Any) -> bool:
    """The variants these playouts model: trump from a card, most points win, everyone plays, exchanges
    after the draw, every cante made when it can be, a Tute whether or not the side sang."""
    return (getattr(v, "trump_rule", "card") == "card" and getattr(v, "scoring", "points") == "points"
            and not getattr(v, "sits_out", False) and not getattr(v, "follow_only", False)
            and getattr(v, "exchange_timing", "after_draw") == "after_draw"
            and getattr(v, "tute_after_cante", True) and not getattr(v, "skipped_cante_lost", False))


class Position:
    """The public state of a deal at one decision of a view: what all its worlds share."""

    __slots__ = ("trump", "face_up", "strict", "trick", "leader", "current", "led", "best_led", "top",
                 "win_seat", "ntricks", "won", "points", "sung", "done_seven", "done_two", "next", "declarers")

    def __init__(self, view: PlayerView) -> None:
        self.trump = view.trump
        self.face_up = view.face_up
        self.strict = view.strict
        self.trick = tuple(view.trick)
        self.leader = view.leader
        self.current = view.current
        r = view.variant.rules
        self.next = r.next[view.dealer]
        #: who declares after a trick, by the seat that won it: its partner first, then itself
        self.declarers = tuple((m, s) if m >= 0 else (s,) for s, m in enumerate(r.partner))
        self.led = self.best_led = self.top = self.win_seat = -1
        if self.trick:
            self.led, self.best_led, self.top, self.win_seat = R.trick_state(
                self.trick, view.trick_order(view.leader), view.trump)
        self.ntricks = len(view.tricks)
        self.won = view.tricks_won
        self.points = list(view.points)
        self.sung = view.sung_mask
        self.done_seven, self.done_two = view.exchanges_done


class Frontier:
    """Where a playout stopped with ``stop_at_strict``: the pile just ran out (two players: every card is
    known in the world), the trick winner ``leader`` to lead the first strict trick."""

    __slots__ = ("hands", "leader", "points", "sung", "won", "left")

    def __init__(self, hands: list[int], leader: int, points: list[int], sung: int, won: list[int],
                 left: int) -> None:
        self.hands = hands
        self.leader = leader
        self.points = points
        self.sung = sung
        self.won = won
        self.left = left


class Outcome:
    """How a playout ended: points per seat, the last trick's winner, or the seat that won by Tute."""

    __slots__ = ("points", "last", "tute")

    def __init__(self, points: list[int], last: int, tute: int) -> None:
        self.points = points
        self.last = last
        self.tute = tute

    def value(self, r: Rules, seat: int, margin_weight: float) -> float:
        """For ``seat``'s side: its ``pairwise`` score (with two sides: 1 a win, 0.5 a shared first
        place, 0 a loss) + ``margin_weight`` * margin over the best other side / 130."""
        side = r.team[seat]
        if self.tute >= 0:
            won = r.team[self.tute]
            return pairwise([0 if t == won else 1 for t in range(len(r.teams))], side)
        sides = [sum(self.points[s] for s in t) for t in r.teams]
        return pairwise(R.points_ranks(r, sides, r.team[self.last]), side) + margin_weight * margin(sides, side) / 130.0

    def margin(self, r: Rules, seat: int) -> int:
        """``seat``'s side's points over the best other side's (0 after a Tute, which no margin decides)."""
        if self.tute >= 0:
            return 0
        return margin([sum(self.points[s] for s in t) for t in r.teams], r.team[seat])


def margin(side_points: Sequence[int], side: int) -> int:
    """``side``'s points over the best other side's: the playouts' tie-break between equally safe moves
    (weighted per 130 points, a deal's cards and the last-trick ten)."""
    return side_points[side] - max(p for t, p in enumerate(side_points) if t != side)


#: the ten ranks as masks over the four suits, in ``CHEAP``'s order within a suit (cheapest first): the
#: cheapest card of a hand is the lowest card of the first of these it meets, trumps only if nothing else
BY_CHEAP: tuple[int, ...] = tuple(
    sum(BIT[s * 10 + k] for s in range(4)) for k in sorted(range(10), key=CHEAP[NO_SUIT].__getitem__))
BY_DEAR: tuple[int, ...] = BY_CHEAP[::-1]
#: the same, weakest first (``STRENGTH``, points aside)
BY_WEAK: tuple[int, ...] = tuple(
    sum(BIT[s * 10 + k] for s in range(4)) for k in sorted(range(10), key=STRENGTH.__getitem__))


def cheapest(mask: int, trump: int) -> int:
    """The card of ``mask`` that ``CHEAP[trump]`` ranks lowest (the lowest suit's among equals)."""
    m = mask & ~TRUMP_MASK[trump] or mask
    for f in BY_CHEAP:
        x = m & f
        if x:
            return (x & -x).bit_length() - 1
    return -1


def dearest(mask: int, trump: int) -> int:
    """The card of ``mask`` that ``CHEAP[trump]`` ranks highest (the lowest suit's among equals)."""
    m = mask & TRUMP_MASK[trump] or mask
    for f in BY_DEAR:
        x = m & f
        if x:
            return (x & -x).bit_length() - 1
    return -1


def weakest(mask: int) -> int:
    """The weakest card of a mask (within a suit: the lowest strength; the lowest suit's among equals)."""
    for f in BY_WEAK:
        x = mask & f
        if x:
            return (x & -x).bit_length() - 1
    return -1


def uniform(mask: int, rand: Callable[[], float]) -> int:
    k = int(rand() * bin(mask).count("1"))
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


#: seats in play from which a lead reads the table (``lead_card``'s ``many``): with two, the same rules
#: lost tute-2 0.036 +- 0.042 (docs/search.md)
MANY_SEATS = 3


def lead_card(mask: int, alive: int, trump: int, strict: bool, sung: int, ruffed: int = 0,
              many: bool = False) -> int:
    """Leading: in the strict phase a master (no live card beats it) worth most, a side suit's first;
    else the cheapest card that is not half of an unsung cante. With ``MANY_SEATS`` or more (``many``) a
    master trump may be led too, and no master of a suit an opponent would trump (``ruffed``: its
    cards)."""
    if strict:
        tmask = TRUMP_MASK[trump]
        m = mask & ~ruffed if many else mask & ~tmask
        best = -1
        bk = -1
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            if not HIGHER[c] & alive:
                k = POINTS[c] * 16 + STRENGTH[c] + (0 if low & tmask else 1000) if many else POINTS[c]
                if k > bk:
                    best, bk = c, k
        if best >= 0:
            return best
    pairs = mask & mask >> 1 & ELEVENS & ~sung
    if pairs:
        rest = mask & ~(pairs | pairs << 1)
        if rest:
            return cheapest(rest, trump)
    return cheapest(mask, trump)


def world_lead(hands: Sequence[int], seat: int, partner: int, mask: int, trump: int, strict: bool, sung: int,
               many: bool) -> int:
    """``lead_card`` for ``seat`` (``mask``: its playable cards) reading a world's ``hands``: the live cards
    in the strict phase, and with many seats the suits an opponent would trump. The one lead of both
    kinds of playout (this module's loop and ``referee_playout``); ``inference`` asks ``lead_card`` with
    what the seat itself could know instead."""
    alive = ruffed = 0
    if strict:
        for h in hands:
            alive |= h
        alive &= ~mask
        if many:
            ruffed = ruffed_suits(hands, seat, partner, trump)
    return lead_card(mask, alive, trump, strict, sung, ruffed, many)


def ruffed_suits(hands: Sequence[int], seat: int, partner: int, trump: int) -> int:
    """The cards of the side suits that some opponent of ``seat`` lacks while holding a trump (a master
    led there would be trumped)."""
    tmask = TRUMP_MASK[trump]
    out = 0
    for o, h in enumerate(hands):
        if o != seat and o != partner and h & tmask:
            for sm in SUIT_MASK:
                if not h & sm:
                    out |= sm
    return out & ~tmask


def follow_card(mask: int, hand: int, trick: list[int], last: bool, partner_wins: bool, trump: int,
                strict: bool, led: int, best_led: int, best_trump: int, sung: int, face_up: int) -> int:
    """Following: when the partner holds the trick safely (``partner_wins``: the caller knows how safe),
    the dearest card that does not take it over; else win with the led suit when it is worth it (the
    weakest winner, the dearest when last to play), trump when strict or for 10 points or more,
    otherwise throw the cheapest card."""
    tmask = TRUMP_MASK[trump]
    if partner_wins:
        over = mask & BEATS[trump][best_trump if best_trump >= 0 else best_led]
        give = mask & ~over & ~tmask or mask & ~over or mask
        return dearest(give, trump) if give & ~tmask else cheapest(give, trump)
    if best_trump >= 0:
        winners_led = 0
        winners_tr = mask & HIGHER[best_trump]
    else:
        winners_led = mask & HIGHER[best_led]
        winners_tr = mask & tmask if led != trump else 0
    stake = 0
    for c in trick:
        stake += POINTS[c]
    # an unsung cante in hand is worth 20 or 40 more once a trick is won: want the trick then
    pairs = hand & hand >> 1 & ELEVENS & ~sung
    halves = pairs | pairs << 1
    if winners_led and (last or stake or not strict or pairs):
        return dearest(winners_led & ~halves or winners_led, trump) if last else weakest(winners_led)
    if winners_tr and (strict or stake >= 10 or (pairs and face_up != NO_CARD)):
        return weakest(winners_tr & ~halves or winners_tr)
    return cheapest(mask & ~halves or mask, trump)


def overtakes(hand: int, top: int, led: int, trump: int) -> bool:
    """Whether ``hand`` holds a card that beats ``top`` (the trick's best card so far, of suit ``led``
    or a trump): a higher one of its suit, or a trump when void in the led suit."""
    if SUIT[top] == trump:
        return bool(hand & HIGHER[top])
    return bool(hand & HIGHER[top] or not hand & SUIT_MASK[led] and hand & TRUMP_MASK[trump])


def partner_safe(hands: Sequence[int], later: Sequence[int], top: int, led: int, trump: int) -> bool:
    """The partner's card ``top`` holds the trick against the ``later`` seats' hands (a world's)."""
    for s in later:
        if overtakes(hands[s], top, led, trump):
            return False
    return True


@overload
def playout(r: Rules, p: Position, hands: list[int], pile: list[int], first: int, rand: Callable[[], float],
            eps: float, trace: list[tuple[int, str, int]] | None = None,
            stop_at_strict: Literal[False] = False) -> Outcome: ...


@overload
def playout(r: Rules, p: Position, hands: list[int], pile: list[int], first: int, rand: Callable[[], float],
            eps: float, trace: list[tuple[int, str, int]] | None, stop_at_strict: bool) -> Outcome | Frontier: ...


def playout(r: Rules, p: Position, hands: list[int], pile: list[int], first: int, rand: Callable[[], float],
            eps: float, trace: list[tuple[int, str, int]] | None = None,
            stop_at_strict: bool = False) -> Outcome | Frontier:
    """Play ``first`` for the seat on move, then finish the deal by the policy for every seat.

    ``hands`` (changed in place) and ``pile`` (face-down, top first) are one world's hidden cards.
    With ``trace``, every action is appended as (seat, referee action text, playable mask or 0).
    With ``stop_at_strict``, the playout stops where the pile runs out, declarations made, and returns
    that ``Frontier`` for an exact solver to finish.

    The hot loop of ``search``: the policy's choice is spelled out in it rather than called (a call with
    eighteen arguments a card), for the speed that buys worlds (``benchmarks/playouts.py``).
    """
    n = r.active
    nxt = p.next
    trump = p.trump
    face = p.face_up
    mode = r.mode(p.strict)
    strict = mode == R.STRICT
    free = R.FREE
    trick = list(p.trick)
    cur = p.current
    led, best_led, top, win = p.led, p.best_led, p.top, p.win_seat
    ntricks = p.ntricks
    won = list(p.won)
    points = list(p.points)
    sung = p.sung
    done = [p.done_seven, p.done_two]
    pos = 0
    total = r.total_tricks
    partner = r.partner
    playable = R.playable
    many = n >= MANY_SEATS
    beats = BEATS[trump]  # trump never changes in the variants modelled (``supports``)
    exchanging = r.exchange_bits[trump] if face != NO_CARD else 0
    tute_on = r.tute_mode != "disabled"
    cantes = r.cantes
    scope_team = r.cantes_scope_team
    declarers = p.declarers
    ended = False
    c = first
    while True:
        hand = hands[cur]
        if c < 0 or trace is not None:
            mask = playable(mode, hand, led, best_led, top, trump, win == partner[cur], r) \
                if trick and mode != free else hand
            if c >= 0:  # the first card, given
                pass
            elif mask & (mask - 1) == 0:  # the policy: the only card,
                c = mask.bit_length() - 1
            elif rand() < eps:  # a uniform one with probability ``eps``,
                c = uniform(mask, rand)
            elif not trick:  # else the rule's lead
                c = world_lead(hands, cur, partner[cur], mask, trump, strict, sung, many)
            else:  # or follow, the partner's card safe when no seat still to play can take it
                k = len(trick)
                mate = partner[cur]
                safe = mate >= 0 and mate == win
                if safe and k < n - 1:
                    later = []
                    s = cur
                    for _ in range(n - 1 - k):
                        s = nxt[s]
                        later.append(s)
                    safe = partner_safe(hands, later, top, led, trump)
                c = follow_card(mask, hand, trick, k == n - 1, safe, trump, strict, led, best_led,
                                top if SUIT[top] == trump else -1, sung, face)
            if trace is not None:
                trace.append((cur, "play " + NAMES[c], mask))
        bit = BIT[c]
        hands[cur] = hand ^ bit
        if not trick:
            win = cur
            led = SUIT[c]
            best_led = top = c
        else:  # rules.trick_step, inlined on its tables (HIGHER, BEATS) for the loop's speed
            if bit & HIGHER[best_led]:
                best_led = c
            if bit & beats[top]:
                top, win = c, cur
        trick.append(c)
        c = -1
        if len(trick) < n:
            cur = nxt[cur]
            continue
        gain = 0  # rules.trick_points, inlined
        for x in trick:
            gain += POINTS[x]
        points[win] += gain
        won[win] += 1
        ntricks += 1
        trick = []
        if ntricks == total:
            points[win] += r.last_trick_bonus
            return Outcome(points, win, -1)
        if face != NO_CARD:
            pos, face = R.draw(hands, pile, pos, face, win)
            if face == NO_CARD:
                mode = r.mode(True)
                strict = mode == R.STRICT
                ended = stop_at_strict
        cur = win
        sang = False
        for seat in declarers[win]:
            if seat == win and face != NO_CARD and hands[seat] & exchanging:
                face = _exchange(r, hands, seat, trump, face, done, trace)
            h = hands[seat]
            if tute_on and R.has_tute(h) and R.tute_allowed(r, sum(won[s] for s in r.teams[r.team[seat]])):
                if trace is not None:
                    trace.append((seat, "tute %d" % R.tute_faces(h)[0], 0))
                return Outcome(points, -1, seat)
            if cantes and not (scope_team and sang) and h & h >> 1 & ELEVENS & ~sung:  # an open pair
                suits = R.cante_suits(r, h, sung, trump, len(pile) - pos + (face != NO_CARD))
                if suits:
                    suit = trump if trump in suits else suits[0]
                    sung |= BIT[suit * 10 + 8]
                    sang = True
                    points[seat] += R.cante_points(suit, trump)
                    if trace is not None:
                        trace.append((seat, "sing " + "oceb"[suit], 0))
        if ended:
            return Frontier(hands, cur, points, sung, won, total - ntricks)


def _exchange(r: Rules, hands: list[int], seat: int, trump: int, face: int, done: list[bool],
              trace: list[Any] | None) -> int:
    """The trick winner takes the face-up card with its 7 of trumps, then with its 2 (as offered)."""
    while face != NO_CARD:
        offered = R.exchanges(r, hands[seat], trump, face, done[0], done[1])
        if not offered:
            break
        card = offered[0]
        hands[seat] ^= BIT[card] | BIT[face]
        if trace is not None:
            trace.append((seat, "exchange " + NAMES[card], 0))
        done[0 if card % 10 == 6 else 1] = True
        face = card
    return face
