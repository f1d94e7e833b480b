"""Fast playouts for ``search``: the rest of a deal on plain ints and lists, no referee objects.

Why a second copy of the rules: PIMC gets stronger with the number of playouts per decision (on
``tute-2``, 24 worlds scored 53% against ``greedy`` and 64 worlds 61%), and the referee's ``apply``
checks every action as a string against a freshly built legal list, which is right for a referee and
pure overhead inside a search that only ever generates legal moves. Here a playout is one loop over
bitmasks for the classic variants (trump from a card, most points win: ``tute-2``, ``habanero``,
``tute-3``, ``tute-4``, ``tute-4-pairs`` and their rule options), about three times faster than driving
a ``GameState``. ``tests/test_search.py`` replays traced playouts on the referee, move by move, so the
two cannot drift apart unnoticed.

A playout starts from a ``Position`` (the public state of the deal, taken once per decision from the
view) and one world's hidden cards (hands and face-down pile), plays a first card for the seat on move,
then lets every seat follow the policy below, declarations included, to the end of the deal.
"""

from __future__ import annotations

from typing import Any, Callable

from arena import PlayerView
from arena.cards import BIT, FACES, HIGHER, NAMES, POINTS, STRENGTH, SUIT

_SUIT_MASK = tuple(0x3FF << (10 * s) for s in range(4))
_ELEVENS = sum(1 << (s * 10 + 8) for s in range(4))
_KINGS = _ELEVENS << 1
_KNIGHTS = _ELEVENS
#: faces the 7 of trumps may take from the face-up card, and those the 2 of trumps may take
_SEVEN_TAKES = frozenset((1, 3, 12, 11, 10))
_TWO_TAKES = frozenset((7, 6, 5, 4))
_FACE = tuple(FACES[c % 10] for c in range(40))
_TUTE_MODES = {"disabled": 0, "any_won_trick": 1, "first_team_trick": 2}
#: per trump suit, a sort key per card: lower = cheaper to give away (non-trumps first, then by points,
#: then by strength)
CHEAP: tuple[tuple[int, ...], ...] = tuple(
    tuple((1000 if SUIT[c] == t else 0) + POINTS[c] * 16 + STRENGTH[c] for c in range(40)) for t in range(4))


class Rules:
    """What a variant fixes for playouts, computed once per variant."""

    __slots__ = ("n", "team", "teams", "partner", "total", "bonus", "habanero", "exempt", "beat_after_trump",
                 "undertrump", "cantes", "cantes_after_stock", "team_scope", "tute", "seven", "two")

    def __init__(self, v: Any) -> None:
        n = v.players
        self.n = n
        self.teams: tuple[tuple[int, ...], ...] = tuple(tuple(t) for t in v.teams)
        self.team = tuple(next(i for i, t in enumerate(self.teams) if s in t) for s in range(n))
        self.partner = tuple((s + 2) % n if v.pairs else -1 for s in range(n))
        self.total = v.deck_size // 2 if v.draw_pile else v.hand_size
        self.bonus = v.last_trick_bonus
        self.habanero = bool(v.follow_trump_lead_in_stock)
        self.exempt = bool(v.partner_exemption)
        self.beat_after_trump = bool(v.must_beat_led_after_trumped)
        self.undertrump = bool(v.undertrump_required)
        self.cantes = bool(v.cantes)
        self.cantes_after_stock = bool(v.cantes_after_stock)
        self.team_scope = v.cantes_scope == "team"
        self.tute = _TUTE_MODES[v.tute_mode]
        self.seven = bool(v.draw_pile and v.exchange_seven)
        self.two = bool(v.draw_pile and v.exchange_two)

    @staticmethod
    def supports(v: Any) -> bool:
        """The variants these playouts model: trump from a card, most points win, everyone plays."""
        return (getattr(v, "trump_rule", "card") == "card" and getattr(v, "scoring", "points") == "points"
                and not getattr(v, "sits_out", False) and not getattr(v, "follow_only", False))


class Position:
    """The public state of a deal at one decision of a view: what all its worlds share."""

    __slots__ = ("trump", "face_up", "strict", "trick", "leader", "current", "led", "best_led", "best_trump",
                 "win_seat", "ntricks", "won", "points", "sung", "done_seven", "done_two")

    def __init__(self, view: PlayerView) -> None:
        n = view.variant.players
        trump = view.trump
        self.trump = trump
        self.face_up = view.face_up
        self.strict = not view.variant.draw_pile or view.face_up < 0
        self.trick = tuple(view.trick)
        self.leader = view.leader
        self.current = view.current
        led = best_led = best_trump = win = -1
        for i, c in enumerate(self.trick):
            s = SUIT[c]
            if i == 0:
                led, best_led, win = s, c, view.leader
                best_trump = c if s == trump else -1
            elif s == led and BIT[c] & HIGHER[best_led]:
                best_led = c
                if s == trump or best_trump < 0:
                    win = (view.leader + i) % n
                if s == trump:
                    best_trump = c
            elif s == trump and s != led and (best_trump < 0 or BIT[c] & HIGHER[best_trump]):
                best_trump = c
                win = (view.leader + i) % n
        self.led, self.best_led, self.best_trump, self.win_seat = led, best_led, best_trump, win
        self.ntricks = len(view.tricks)
        won = [0] * n
        for _, _, w in view.tricks:
            won[w] += 1
        self.won = won
        self.points = list(view.points)
        sung = 0
        for _, suit, _ in view.cantes:
            sung |= BIT[suit * 10 + 8]
        self.sung = sung
        self.done_seven = any(g % 10 == 6 for _, g, _ in view.exchanges)
        self.done_two = any(g % 10 == 1 for _, g, _ in view.exchanges)


class Outcome:
    """How a playout ended: points per seat, the last trick's winner, or the seat that won by Tute."""

    __slots__ = ("points", "last", "tute")

    def __init__(self, points: list[int], last: int, tute: int) -> None:
        self.points = points
        self.last = last
        self.tute = tute

    def value(self, r: Rules, seat: int, margin_weight: float) -> float:
        """For ``seat``'s side: 1 a win (0.5 a shared first place) + ``margin_weight`` * margin / 130."""
        side = r.team[seat]
        if self.tute >= 0:
            return 1.0 if r.team[self.tute] == side else 0.0
        sides = [sum(self.points[s] for s in t) for t in r.teams]
        lt = r.team[self.last]
        keys = [(p, t == lt) for t, p in enumerate(sides)]
        mine = keys[side]
        top = max(keys)
        win = 0.0
        if mine == top:
            win = 1.0 if sum(1 for k in keys if k == top) == 1 else 0.5
        other = max(p for t, p in enumerate(sides) if t != side)
        return win + margin_weight * (sides[side] - other) / 130.0


def playable(r: Rules, hand: int, trick_len: int, strict: bool, led: int, trump: int, best_led: int,
             best_trump: int, win_seat: int, cur: int) -> int:
    """The cards ``cur`` may play, by the duties of ``GameState.playable``."""
    if not trick_len:
        return hand
    if not strict:
        if r.habanero and led == trump:
            return hand & _SUIT_MASK[trump] or hand
        return hand
    if r.exempt and win_seat == r.partner[cur]:
        return hand & _SUIT_MASK[led] or hand
    in_suit = hand & _SUIT_MASK[led]
    if in_suit:
        if led == trump or best_trump < 0 or r.beat_after_trump:
            return in_suit & HIGHER[best_led] or in_suit
        return in_suit
    trumps = hand & _SUIT_MASK[trump]
    if trumps:
        if best_trump >= 0:
            over = trumps & HIGHER[best_trump]
            if over:
                return over
            return trumps if r.undertrump else hand
        return trumps
    return hand


def cheapest(mask: int, key: tuple[int, ...]) -> int:
    best = -1
    bk = 1 << 30
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        k = key[c]
        if k < bk:
            best, bk = c, k
    return best


def dearest(mask: int, key: tuple[int, ...]) -> int:
    best = -1
    bk = -1
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        k = key[c]
        if k > bk:
            best, bk = c, k
    return best


def weakest(mask: int) -> int:
    """The weakest card of a mask (within a suit: the lowest strength)."""
    best = -1
    bk = 99
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        if STRENGTH[c] < bk:
            best, bk = c, STRENGTH[c]
    return best


def uniform(mask: int, rand: Callable[[], float]) -> int:
    k = int(rand() * bin(mask).count("1"))
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


def lead_card(mask: int, alive: int, trump: int, strict: bool, sung: int) -> int:
    """Leading: a side-suit master (no live card beats it) in the strict phase, the one worth most;
    else the cheapest card that is not half of an unsung cante."""
    cheap = CHEAP[trump]
    if strict:
        m = mask & ~_SUIT_MASK[trump]
        best = -1
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            if not HIGHER[c] & alive and (best < 0 or POINTS[c] > POINTS[best]):
                best = c
        if best >= 0:
            return best
    pairs = mask & mask >> 1 & _ELEVENS & ~sung
    if pairs:
        rest = mask & ~(pairs | pairs << 1)
        if rest:
            return cheapest(rest, cheap)
    return cheapest(mask, cheap)


def follow_card(mask: int, hand: int, trick: list[int], last: bool, partner_wins: bool, trump: int,
                strict: bool, led: int, best_led: int, best_trump: int, sung: int, face_up: int) -> int:
    """Following: when the partner holds the trick, the dearest card that does not take it over; else
    win with the led suit when it is worth it (the weakest winner, the dearest when last to play),
    trump when strict or for 10 points or more, otherwise throw the cheapest card."""
    cheap = CHEAP[trump]
    tmask = _SUIT_MASK[trump]
    if partner_wins and (last or best_trump >= 0):
        over = mask & HIGHER[best_trump] if best_trump >= 0 else (mask & HIGHER[best_led]) | (
            mask & tmask if led != trump else 0)
        give = mask & ~over & ~tmask or mask & ~over or mask
        return dearest(give, cheap) if give & ~tmask else cheapest(give, cheap)
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
    pairs = hand & hand >> 1 & _ELEVENS & ~sung
    halves = pairs | pairs << 1
    if winners_led and (last or stake or not strict or pairs):
        return dearest(winners_led & ~halves or winners_led, cheap) if last else weakest(winners_led)
    if winners_tr and (strict or stake >= 10 or (pairs and face_up >= 0)):
        return weakest(winners_tr & ~halves or winners_tr)
    return cheapest(mask & ~halves or mask, cheap)


def playout(r: Rules, p: Position, hands: list[int], pile: list[int], first: int, rand: Callable[[], float],
            eps: float, trace: list[tuple[int, str, int]] | None = None) -> Outcome:
    """Play ``first`` for the seat on move, then finish the deal by the policy for every seat.

    ``hands`` (changed in place) and ``pile`` (face-down, top first) are one world's hidden cards.
    With ``trace``, every action is appended as (seat, referee action text, playable mask or 0).
    """
    n = r.n
    trump = p.trump
    face = p.face_up
    strict = p.strict
    trick = list(p.trick)
    cur = p.current
    led, best_led, best_trump, win = p.led, p.best_led, p.best_trump, p.win_seat
    ntricks = p.ntricks
    won = list(p.won)
    points = list(p.points)
    sung = p.sung
    done = [p.done_seven, p.done_two]
    pos = 0
    total = r.total
    partner = r.partner
    c = first
    while True:
        hand = hands[cur]
        if c < 0:
            mask = playable(r, hand, len(trick), strict, led, trump, best_led, best_trump, win, cur)
            c = _choose(mask, hand, hands, trick, n, cur, win, partner, trump, strict, led, best_led, best_trump,
                        sung, face, rand, eps)
            if trace is not None:
                trace.append((cur, "play " + NAMES[c], mask))
        elif trace is not None:
            trace.append((cur, "play " + NAMES[c],
                          playable(r, hand, len(trick), strict, led, trump, best_led, best_trump, win, cur)))
        hands[cur] = hand ^ BIT[c]
        s = SUIT[c]
        if not trick:
            win = cur
            led = s
            best_led = c
            best_trump = c if s == trump else -1
        elif s == led:
            if BIT[c] & HIGHER[best_led]:
                best_led = c
                if s == trump:
                    best_trump = c
                    win = cur
                elif best_trump < 0:
                    win = cur
        elif s == trump and (best_trump < 0 or BIT[c] & HIGHER[best_trump]):
            best_trump = c
            win = cur
        trick.append(c)
        c = -1
        if len(trick) < n:
            cur = (cur + 1) % n
            continue
        gain = 0
        for x in trick:
            gain += POINTS[x]
        points[win] += gain
        won[win] += 1
        ntricks += 1
        trick = []
        if ntricks == total:
            points[win] += r.bonus
            return Outcome(points, win, -1)
        if face >= 0:
            loser = 1 - win
            hands[win] |= BIT[pile[pos]]
            pos += 1
            if pos < len(pile):
                hands[loser] |= BIT[pile[pos]]
                pos += 1
            else:
                hands[loser] |= BIT[face]
                face = -1
                strict = True
        cur = win
        stock_left = len(pile) - pos + (face >= 0)
        sang = 0
        for seat in (partner[win], win):
            if seat < 0:
                continue
            if seat == win and face >= 0 and (r.seven or r.two):
                face = _exchange(r, hands, seat, trump, face, done, trace)
            if r.tute and (hands[seat] & _KINGS == _KINGS or hands[seat] & _KNIGHTS == _KNIGHTS) and (
                    r.tute == 1 or sum(won[s] for s in r.teams[r.team[seat]]) == 1):
                if trace is not None:
                    trace.append((seat, "tute 12" if hands[seat] & _KINGS == _KINGS else "tute 11", 0))
                return Outcome(points, -1, seat)
            if r.cantes and (r.cantes_after_stock or stock_left) and not (r.team_scope and sang):
                pairs = hands[seat] & hands[seat] >> 1 & _ELEVENS & ~sung
                if pairs:
                    tb = BIT[trump * 10 + 8]
                    b = tb if pairs & tb else pairs & -pairs
                    sung |= b
                    sang = 1
                    suit = (b.bit_length() - 1) // 10
                    points[seat] += 40 if suit == trump else 20
                    if trace is not None:
                        trace.append((seat, "sing " + "oceb"[suit], 0))


def _exchange(r: Rules, hands: list[int], seat: int, trump: int, face: int, done: list[bool],
              trace: list[Any] | None) -> int:
    """The trick winner takes the face-up card with its 7 of trumps, then with its 2 (as offered)."""
    for i, (allowed, card, takes) in enumerate(((r.seven, trump * 10 + 6, _SEVEN_TAKES),
                                                (r.two, trump * 10 + 1, _TWO_TAKES))):
        if allowed and not done[i] and hands[seat] & BIT[card] and _FACE[face] in takes:
            hands[seat] ^= BIT[card] | BIT[face]
            if trace is not None:
                trace.append((seat, "exchange " + NAMES[card], 0))
            face = card
            done[i] = True
    return face


def _choose(mask: int, hand: int, hands: list[int], trick: list[int], n: int, cur: int, win: int,
            partner: tuple[int, ...], trump: int, strict: bool, led: int, best_led: int, best_trump: int,
            sung: int, face: int, rand: Callable[[], float], eps: float) -> int:
    """The policy's card: the only one, a uniform one with probability ``eps``, else the rule's."""
    if mask & (mask - 1) == 0:
        return mask.bit_length() - 1
    if rand() < eps:
        return uniform(mask, rand)
    if not trick:
        alive = 0
        if strict:
            for h in hands:
                alive |= h
            alive &= ~mask
        return lead_card(mask, alive, trump, strict, sung)
    p = partner[cur]
    return follow_card(mask, hand, trick, len(trick) == n - 1, p >= 0 and p == win, trump, strict, led, best_led,
                       best_trump, sung, face)
