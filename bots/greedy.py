"""``greedy``: a rule-based player, the first yardstick above ``random``.

It looks one trick ahead and no further, with the habits of a sensible club player:

- declares whatever it can: a Tute at once, an exchange (the 7 or 2 of trumps for the better face-up
  card), then a cante (the rules offer the 40 first when it is due);
- leading: in the two-player game while the pile lasts it leads a cheap non-trump card, keeping its
  trumps, its aces and threes and the halves of a cante it may still sing; in the strict phase it leads
  a card no one can beat if it has one (the highest unseen card of a suit nobody is known to be void in,
  or the top trump), else a low card of a side suit;
- following: it wins a trick worth points with the cheapest card that surely wins it (a card of the led
  suit before a trump; a trump in the pile phase only for an ace or a three), and otherwise throws its
  lowest card (fewest points, weakest, not a trump, not half of a cante);
- in pairs, when its partner already holds the trick safely it gives it points (cargar) instead;
- in cabrón, where a player over 100 points loses, it tries to lose tricks past 55 points;
- in an auction (subastado) it bids up to a cautious estimate of what its side can take with its best
  trump suit, and names that suit; it never bids past the estimate.

It reads only ``PlayerView``'s public fields and ``arena.cards`` tables. What it remembers between
decisions of a deal (cards seen, known voids) is rebuilt from ``view.tricks`` incrementally, so a
decision costs a few microseconds and the instance can play any number of deals.
"""

from __future__ import annotations

from typing import Any

from arena import PlayerView

from arena.cards import BIT, HIGHER, NAMES, NO_SUIT, POINTS, STRENGTH, SUIT, cards_list as _cards
from arena.knowledge import trumps_by_trick
from arena.rules import BEATS, lacks, trick_state, trick_step, void_suits

from .params import integer

_PLAY_CARD: dict[str, int] = {f"play {n}": c for c, n in enumerate(NAMES)}
#: bits of the 12 and 11 of each suit (ranks 9 and 8 of the suit)
_PAIR = tuple((1 << (s * 10 + 9)) | (1 << (s * 10 + 8)) for s in range(4))


def declaration(legal: tuple[str, ...] | list[str]) -> str | None:
    """The declaration a rule player makes among ``legal``: a Tute (it wins the deal), else an exchange
    (a better trump card, and the window stays open), else a cante; None when none is offered. None of
    them can cost points. ``greedy``, ``search`` and the playouts all declare by this rule."""
    for kind in ("tute", "exchange", "sing"):
        for a in legal:
            if a.startswith(kind):
                return a
    return None


def trump_estimate(hand: int, trump: int, pairs_side: bool) -> float:
    """What the side should take with ``trump`` as trump: a cautious guess, made to be under-bid."""
    cards = _cards(hand)
    value = 0.9 * sum(POINTS[c] for c in cards)
    value += 4 * sum(1 for c in cards if SUIT[c] == trump)
    for s in range(4):
        if hand & _PAIR[s] == _PAIR[s]:
            value += 40 if s == trump else 20
    return value + (20 if pairs_side else 0)


def best_trump(hand: int, pairs_side: bool = True) -> tuple[int, float]:
    """The suit a rule player names as trump with ``hand``, and its ``trump_estimate``."""
    return max(((s, trump_estimate(hand, s, pairs_side)) for s in range(4)), key=lambda x: (x[1], -x[0]))


class GreedyBot:
    """Rule-based: declares all it can, wins points cheaply, throws low, keeps trumps for the end."""

    name = "greedy"
    #: its play's revision, raised whenever it plays a seeded deal otherwise (tests/test_bot_revisions.py
    #: holds each to a fingerprint of its play): a tournament records it with the entrant, and refuses
    #: to resume with another, whose games would differ from those already stored
    revision = 1

    @staticmethod
    def plays_by(v: Any) -> str:
        """How it plays ``v`` (``tute bots list``): by its rules, everywhere."""
        return "by rule"

    def __init__(self, trump_for_points: int = 10, cabron_stop: int = 55) -> None:
        #: in the pile phase, trump a led card only if it is worth at least this many points
        self.trump_for_points = integer("trump_for_points", trump_for_points, 0)
        #: cabrón: past this many points it tries to lose tricks (over 100 loses the deal)
        self.cabron_stop = integer("cabron_stop", cabron_stop, 0)
        self._tricks: tuple[Any, ...] = ()
        self._seen = 0
        #: the suits each seat has shown it lacks (bit per suit), as of the last decision
        self.voids: list[int] = []

    def new_game(self, info: dict[str, Any]) -> None:
        self._tricks = ()
        self._seen = 0
        self.voids = [0] * int(info.get("players", 4))

    # --------------------------------------------------------------------------- memory
    def _update(self, view: PlayerView) -> None:
        """Fold the tricks finished since the last decision into cards seen and known voids."""
        tricks = view.tricks
        old = self._tricks
        n = len(old)
        if len(tricks) < n or (n and tricks[n - 1] is not old[n - 1] and tricks[n - 1] != old[n - 1]):
            n = 0
            self._seen = 0
        players = view.variant.players
        if len(self.voids) != players or n == 0:
            self.voids = [0] * players
        if len(tricks) == n:
            self._tricks = tricks
            return
        r = view.variant.rules
        voids = self.voids
        seen = self._seen
        trumps = trumps_by_trick(view)
        for i in range(n, len(tricks)):
            leader, cards, _winner = tricks[i]
            for c in cards:
                seen |= BIT[c]
            if i < r.strict_from():
                continue  # a draw may bring what a play in the pile phase showed missing
            trump = trumps[i]
            mode = r.mode_of_trick(i)
            seats = view.trick_order(leader)
            led = SUIT[cards[0]]
            best_led = top = cards[0]
            win = leader
            for k in range(1, len(cards)):
                voids[seats[k]] |= void_suits(lacks(mode, cards[k], led, best_led, top, trump,
                                                     win == r.partner[seats[k]], r))
                best_led, new_top = trick_step(trump, best_led, top, cards[k])
                if new_top != top:
                    top, win = new_top, seats[k]
        self._seen = seen
        self._tricks = tricks

    # --------------------------------------------------------------------------- deciding
    def choose(self, view: PlayerView) -> str:
        legal = view.legal
        first = legal[0]
        if first.startswith("bid ") or (first == "pass" and view.phase == "auction"):
            return self._bid(view)
        if first.startswith("trump "):
            return "trump " + "oceb"[best_trump(view.hand)[0]]
        if first[0] != "p" or first == "pass":  # declarations come first in the legal list
            decl = declaration(legal)
            if decl is not None:
                return decl
            if "pass" in legal:
                return "pass"
        plays = [_PLAY_CARD[a] for a in legal if a[0] == "p" and a != "pass"]
        if len(plays) == 1:
            return "play " + NAMES[plays[0]]
        self._update(view)
        if getattr(view.variant, "over_points_loses", False) and view.points[view.seat] >= self.cabron_stop:
            return "play " + NAMES[self._duck(view, plays)]
        card = self._lead(view, plays) if not view.trick else self._follow(view, plays)
        return "play " + NAMES[card]

    # --------------------------------------------------------------------------- auction
    def _bid(self, view: PlayerView) -> str:
        _, value = best_trump(view.hand, view.variant.pairs)
        bids = [int(a[4:]) for a in view.legal if a.startswith("bid ")]
        affordable = [b for b in bids if b <= value]
        return f"bid {max(affordable)}" if affordable else "pass"

    @staticmethod
    def _duck(view: PlayerView, plays: list[int]) -> int:
        """Cabrón past the stop: lose the trick if any card does, else give the fewest points. Whether a
        card takes the trick is the referee's ``BEATS``, the trump of cabrón's pair tricks included."""
        trick = view.trick
        if trick:
            led = SUIT[trick[0]]
            takes = BEATS[view.trump][trick_state(trick, range(len(trick)), view.trump)[2]]
            under = [c for c in plays if not BIT[c] & takes]
            if under:
                return max(under, key=lambda c: (SUIT[c] != led, POINTS[c] if SUIT[c] != led else -POINTS[c],
                                                 STRENGTH[c]))
        return min(plays, key=lambda c: (POINTS[c], STRENGTH[c]))

    def _keep(self, view: PlayerView) -> int:
        """Cards worth keeping in hand: halves of cantes still to sing."""
        hand = view.hand
        keep = 0
        sung = 0
        for _s, su, _p in view.cantes:
            sung |= 1 << su
        for s in range(4):
            if hand & _PAIR[s] == _PAIR[s] and not sung >> s & 1:
                keep |= _PAIR[s]
        return keep

    def _discard(self, view: PlayerView, plays: list[int]) -> int:
        """The card that costs least to give away."""
        trump = view.trump
        keep = self._keep(view)
        return min(plays, key=lambda c: (POINTS[c] + (12 if SUIT[c] == trump else 0) + (6 if BIT[c] & keep else 0),
                                         STRENGTH[c]))

    def _master(self, view: PlayerView, c: int) -> bool:
        """No card still unseen (outside own hand) beats ``c`` within its suit."""
        return not HIGHER[c] & ~self._seen & ~view.hand

    def _lead(self, view: PlayerView, plays: list[int]) -> int:
        trump = view.trump
        v = view.variant
        keep = self._keep(view)
        if v.draw_pile and view.stock_left > 0:
            # pile phase: nothing obliges the other to follow, so lead cheap and keep strength
            return min(plays, key=lambda c: (SUIT[c] == trump, bool(BIT[c] & keep), POINTS[c] >= 10,
                                             POINTS[c], STRENGTH[c]))
        others = [s for s in range(v.players) if s not in (view.seat, view.sit_out) and s not in self._partners(view)]
        voids = self.voids
        best = -1
        best_key: tuple[int, ...] = ()
        for c in plays:
            if not self._master(view, c):
                continue
            s = SUIT[c]
            if s != trump and any(voids[o] >> s & 1 for o in others) and \
                    trump != NO_SUIT and not all(voids[o] >> trump & 1 for o in others):
                continue  # an opponent would trump it
            key = (s != trump, POINTS[c], STRENGTH[c])
            if best < 0 or key > best_key:
                best, best_key = c, key
        if best >= 0:
            # a master trump is led only to draw trumps while we hold the trick for sure
            return best
        return min(plays, key=lambda c: (SUIT[c] == trump, bool(BIT[c] & keep), POINTS[c], STRENGTH[c]))

    def _partners(self, view: PlayerView) -> tuple[int, ...]:
        partner = view.variant.rules.partner[view.seat]
        return (partner,) if partner >= 0 else ()

    def _follow(self, view: PlayerView, plays: list[int]) -> int:
        trick = view.trick
        trump = view.trump
        v = view.variant
        n = v.rules.active
        order = view.trick_order(view.leader)
        # who holds the trick now, with what
        led, _, best, holder = trick_state(trick, order, trump)
        later = order[len(trick) + 1:]  # seats after me in this trick
        partners = self._partners(view)
        opp_later = [s for s in later if s not in partners]
        at_stake = sum(POINTS[c] for c in trick)
        pile = v.draw_pile and view.stock_left > 0

        def beats(c: int, b: int) -> bool:
            return bool(BIT[c] & BEATS[trump][b])

        def safe(c: int) -> bool:
            """Would ``c`` still hold the trick after the opponents still to play?"""
            if not opp_later:
                return True
            if SUIT[c] == trump:
                return self._master(view, c)
            if not self._master(view, c):
                return False
            return not any(self.voids[o] >> led & 1 for o in opp_later)

        if partners and holder in partners and safe(best):
            # partner holds it: give points, but never a trump or a card that would take it over
            return max(plays, key=lambda c: (SUIT[c] != trump, POINTS[c] if not BIT[c] & self._keep(view) else -1,
                                             -STRENGTH[c]))
        winners = [c for c in plays if beats(c, best)]
        if winners:
            keep = self._keep(view)
            sure = [c for c in winners if safe(c)]
            if pile:
                same = [c for c in sure if SUIT[c] == led and not BIT[c] & keep]
                if same:
                    # bank the points: the highest-valued card that wins in the led suit
                    c = max(same, key=lambda c: (POINTS[c], -STRENGTH[c]))
                    if at_stake + POINTS[c] >= 2 or keep:
                        return c
                if at_stake >= self.trump_for_points or (keep and at_stake >= 2):
                    trumps = [c for c in sure if SUIT[c] == trump and not BIT[c] & keep]
                    if trumps:
                        return min(trumps, key=lambda c: (POINTS[c], STRENGTH[c]))
                return self._discard(view, plays)
            if sure:
                # strict phase: win with the cheapest sure winner (led suit before trumps)
                if at_stake > 0 or len(trick) == n - 1 or keep:
                    return min(sure, key=lambda c: (SUIT[c] == trump, STRENGTH[c] - 3 * POINTS[c]
                                                    if SUIT[c] != trump else STRENGTH[c]))
            # an unsafe winner: play the lowest card that still satisfies the rules
            return self._discard(view, plays)
        return self._discard(view, plays)
