"""The referee: the whole state of one deal, the legal actions in it, and their strict application.

Nothing else in the project knows the rules. A bot is asked only through a ``PlayerView`` built here;
hosts, matches and tournaments only call ``legal_actions``, ``apply``, ``forfeit`` and ``result``.

Terms (RULES.md): a *baza* is a trick; *arrastre* a trump lead; *montar* beating the highest card of the
led suit; *fallar* trumping when void; *pisar* over-trumping; a *cante* (acuse) declaring the 12 and 11
of a suit; *Tute* holding all four 12s or 11s; *renuncio* breaking a rule, which loses the deal; the
*baceta* the face-down draw pile of the two-player game.

Speed matters (a tournament asks for millions of decisions), so hands are int bitmasks, the legal
actions are cached until the next ``apply``, and the public history is kept as tuples that a view can
share without copying.
"""

from __future__ import annotations

from typing import Sequence

from . import actions as A
from .cards import BIT, FACE, HIGHER, NAMES, POINTS, SUIT, SUIT_MASK, SUITS, deck as deck_cards
from .result import Forfeit, GameResult, competition_ranks
from .variants import Variant
from .view import PlayerView

PLAY, DECLARE, DEAL_TUTE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("play", "declare", "deal_tute", "over")

_SEVEN_TAKES = frozenset((1, 3, 12, 11, 10))
_TWO_TAKES = frozenset((7, 6, 5, 4))


class IllegalAction(ValueError):
    """An action the rules do not allow here; the message says which duty it broke.

    Raised before anything changes: the state is exactly as it was.
    """


def _kk_index(hand: int) -> int:
    """The 12s and 11s of a hand packed into 8 bits (two per suit), to index small tables."""
    return (hand >> 8 & 3) | (hand >> 16 & 12) | (hand >> 24 & 48) | (hand >> 32 & 192)


#: suits (bitmask) in which the packed hand holds both the 11 and the 12
_PAIRS = tuple(sum(1 << s for s in range(4) if (i >> 2 * s) & 3 == 3) for i in range(256))
#: Tute faces the packed hand holds (all four 12s: bits 1 3 5 7; all four 11s: bits 0 2 4 6)
_TUTES = tuple(tuple(f for f, m in ((12, 0b10101010), (11, 0b01010101)) if i & m == m) for i in range(256))


class GameState:
    """One deal: ``new`` deals it, ``apply`` moves it on, ``result`` says how it ended."""

    __slots__ = (
        "variant", "n", "deck", "dealer", "hands", "initial_hands", "stock", "stock_pos", "trump",
        "trump_card", "face_up", "strict", "phase", "current", "leader", "trick", "led", "best_led",
        "best_trump", "win_seat", "tricks", "tricks_won", "points", "cantes", "sung", "exchanges",
        "done_seven", "done_two", "window_seat", "window_sang", "pending", "actions", "result_",
        "_legal", "_next", "_team", "_partner", "_total_tricks", "last_trick_winner",
    )

    # ----------------------------------------------------------------------------------- dealing
    @classmethod
    def new(cls, variant: Variant, deck: Sequence[int], dealer: int = 0) -> "GameState":
        """Deal ``deck`` (the shuffled order, top first) for ``variant`` with ``dealer`` dealing.

        Cards go one at a time from the seat after the dealer. Two players: six each (the preset's
        hand size), the next card is turned up as trump and the rest is the face-down pile, top first.
        Three or four: every card is dealt and the dealer's last card shows trump; with 40 cards for
        three, the 40th card only shows trump and is dead.
        """
        n = variant.players
        if sorted(deck) != sorted(deck_cards(variant.deck_size)):
            raise ValueError(f"deck: not a permutation of the {variant.deck_size}-card deck")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer: {dealer} is not a seat of {n}")
        self = cls.__new__(cls)
        self.variant = variant
        self.n = n
        self.deck = tuple(deck)
        self.dealer = dealer
        h = variant.hand_size
        hands = [0] * n
        first = (dealer + 1) % n
        for i in range(h * n):
            hands[(first + i) % n] |= BIT[deck[i]]
        if variant.draw_pile:
            self.trump_card = deck[h * n]
            self.face_up = self.trump_card
            self.stock = tuple(deck[h * n + 1:])
        else:
            self.trump_card = deck[-1]
            self.face_up = -1
            self.stock = ()
        self.stock_pos = 0
        self.trump = SUIT[self.trump_card]
        self.hands = hands
        self.initial_hands = tuple(hands)
        self.strict = not variant.draw_pile
        self.leader = first
        self.current = first
        self.trick = ()
        self.led = -1
        self.best_led = -1
        self.best_trump = -1
        self.win_seat = -1
        self.tricks = ()
        self.tricks_won = [0] * n
        self.points = [0] * n
        self.cantes = ()
        self.sung = 0
        self.exchanges = ()
        self.done_seven = self.done_two = False
        self.window_seat = -1
        self.window_sang = 0
        self.actions = []
        self.result_ = None
        self.last_trick_winner = -1
        self._legal = None
        self._next = tuple((s + 1) % n for s in range(n))
        self._team = tuple(next(t for t, team in enumerate(variant.teams) if s in team) for s in range(n))
        self._partner = tuple((s + 2) % n if variant.pairs else -1 for s in range(n))
        self._total_tricks = h if variant.draw_pile is False else (variant.deck_size // 2)
        self.phase = PLAY
        self.pending = ()
        if variant.tute_from_deal and variant.tute_mode != "disabled":
            order = [(first + i) % n for i in range(n)]
            self.pending = tuple(s for s in order if _TUTES[_kk_index(hands[s])])
            if self.pending:
                self.phase = DEAL_TUTE
                self.current = self.pending[0]
        return self

    def copy(self) -> "GameState":
        """An independent copy (for search and perft): mutable parts are copied, tuples shared."""
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = list(self.hands)
        other.tricks_won = list(self.tricks_won)
        other.points = list(self.points)
        other.actions = list(self.actions)
        return other

    # ----------------------------------------------------------------------------------- queries
    @property
    def current_player(self) -> int:
        return self.current

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def stock_left(self) -> int:
        """Cards still to be drawn, the face-up trump card included."""
        return len(self.stock) - self.stock_pos + (self.face_up >= 0)

    def team_of(self, seat: int) -> int:
        return self._team[seat]

    def result(self) -> GameResult | None:
        return self.result_

    def legal_actions(self) -> tuple[str, ...]:
        """Every action the seat on move may take, declarations first, then plays in card order."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def playable(self) -> int:
        """The cards (bitmask) the seat on move may play, by the follow/beat/trump duties."""
        hand = self.hands[self.current]
        if not self.trick:
            return hand
        led = self.led
        trump = self.trump
        v = self.variant
        if not self.strict:
            if v.follow_trump_lead_in_stock and led == trump:
                return hand & SUIT_MASK[trump] or hand
            return hand
        if v.partner_exemption and self.win_seat == self._partner[self.current]:
            return hand & SUIT_MASK[led] or hand
        in_suit = hand & SUIT_MASK[led]
        if in_suit:
            if led == trump or self.best_trump < 0 or v.must_beat_led_after_trumped:
                return in_suit & HIGHER[self.best_led] or in_suit
            return in_suit
        trumps = hand & SUIT_MASK[trump]
        if trumps:
            if self.best_trump >= 0:
                over = trumps & HIGHER[self.best_trump]
                if over:
                    return over
                return trumps if v.undertrump_required else hand
            return trumps
        return hand

    def declarations(self, seat: int) -> tuple[str, ...]:
        """What ``seat`` may declare now: exchanges, one cante, a Tute (RULES.md "Declarations")."""
        if seat != self.window_seat and not (self.phase == DECLARE and seat == self.current):
            return ()
        v = self.variant
        hand = self.hands[seat]
        out: list[str] = []
        face_up = self.face_up
        if seat == self.window_seat and face_up >= 0:
            trump = self.trump
            if v.exchange_seven and not self.done_seven and FACE[face_up] in _SEVEN_TAKES:
                seven = trump * 10 + 6
                if hand & BIT[seven]:
                    out.append(A.EXCHANGE_TEXT[seven])
            if v.exchange_two and not self.done_two and FACE[face_up] in _TWO_TAKES:
                two = trump * 10 + 1
                if hand & BIT[two]:
                    out.append(A.EXCHANGE_TEXT[two])
        kk = _kk_index(hand)
        if kk:
            pairs = _PAIRS[kk] & ~self.sung
            if pairs and not self.window_sang >> seat & 1 and (v.cantes_after_stock or self.stock_left):
                if v.cantes_scope == "team":
                    team = self._team[seat]
                    blocked = any(self.window_sang >> s & 1 for s in self.variant.teams[team])
                else:
                    blocked = False
                if not blocked:
                    if v.forty_first and pairs >> self.trump & 1:
                        out.append(A.SING_TEXT[self.trump])
                    else:
                        out.extend(A.SING_TEXT[s] for s in range(4) if pairs >> s & 1)
            faces = _TUTES[kk]
            if faces and self._tute_allowed(seat):
                out.extend(A.TUTE_TEXT[f] for f in faces)
        return tuple(out)

    def _tute_allowed(self, seat: int) -> bool:
        mode = self.variant.tute_mode
        if mode == "disabled":
            return False
        if mode == "first_team_trick":
            team = self.variant.teams[self._team[seat]]
            return sum(self.tricks_won[s] for s in team) == 1
        return True

    def _compute_legal(self) -> tuple[str, ...]:
        phase = self.phase
        if phase == PLAY:
            plays = A.plays(self.playable())
            if self.window_seat == self.current:
                decl = self.declarations(self.current)
                if decl:
                    return decl + plays
            return plays
        if phase == DECLARE:
            return self.declarations(self.current) + (A.PASS,)
        if phase == DEAL_TUTE:
            return tuple(A.TUTE_TEXT[f] for f in _TUTES[_kk_index(self.hands[self.current])]) + (A.PASS,)
        return ()

    # ----------------------------------------------------------------------------------- moving
    def apply(self, action: str, seat: int | None = None) -> None:
        """Apply ``action`` for the seat on move (``seat``, if given, must be that seat).

        Anything not in ``legal_actions()`` raises ``IllegalAction`` naming the broken duty, and the
        state is left untouched.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal or (seat is not None and seat != self.current):
            raise IllegalAction(self.explain(action, seat))
        code = A.CODE[action]
        self._legal = None
        mover = self.current
        self.actions.append((mover, action))
        if code < A.SING0:
            self._play(mover, code)
        elif code < A.TUTE12:
            self._sing(mover, code - A.SING0)
        elif code < A.EXCH0:
            self._win_by_tute(mover, 12 if code == A.TUTE12 else 11)
        elif code < A.PASS_CODE:
            self._exchange(mover, code - A.EXCH0)
        else:
            self._pass(mover)

    def _play(self, seat: int, c: int) -> None:
        self.hands[seat] ^= BIT[c]
        trick = self.trick
        if not trick:
            self.leader = seat
            self.window_seat = -1
            led = self.led = SUIT[c]
            self.best_led = c
            self.best_trump = c if led == self.trump else -1
            self.win_seat = seat
        else:
            s = SUIT[c]
            if s == self.led:
                if BIT[c] & HIGHER[self.best_led]:
                    self.best_led = c
                    if s == self.trump:
                        self.best_trump = c
                        self.win_seat = seat
                    elif self.best_trump < 0:
                        self.win_seat = seat
            elif s == self.trump:
                if self.best_trump < 0 or BIT[c] & HIGHER[self.best_trump]:
                    self.best_trump = c
                    self.win_seat = seat
        trick = self.trick = trick + (c,)
        if len(trick) == self.n:
            self._finish_trick()
        else:
            self.current = self._next[seat]

    def _finish_trick(self) -> None:
        w = self.win_seat
        trick = self.trick
        self.tricks = self.tricks + ((self.leader, trick, w),)
        self.trick = ()
        self.tricks_won[w] += 1
        pts = 0
        for c in trick:
            pts += POINTS[c]
        self.points[w] += pts
        if len(self.tricks) == self._total_tricks:
            self.points[w] += self.variant.last_trick_bonus
            self.last_trick_winner = w
            self._end_by_points()
            return
        if self.face_up >= 0:
            self._draw(w)
        self.leader = self.current = w
        self.window_seat = w
        self.window_sang = 0
        self.phase = PLAY
        p = self._partner[w]
        if p >= 0:
            self.phase = DECLARE
            self.current = p
            if not self.declarations(p):
                self.phase = PLAY
                self.current = w

    def _draw(self, winner: int) -> None:
        """Winner draws first, then the loser; the last draw gives the loser the face-up trump card."""
        loser = 1 - winner
        stock = self.stock
        pos = self.stock_pos
        self.hands[winner] |= BIT[stock[pos]]
        pos += 1
        if pos < len(stock):
            self.hands[loser] |= BIT[stock[pos]]
            pos += 1
        else:
            self.hands[loser] |= BIT[self.face_up]
            self.face_up = -1
            self.strict = True
        self.stock_pos = pos

    def _after_declaration(self, seat: int) -> None:
        """A partner who has nothing left to declare hands the window to the trick winner."""
        if self.phase == DECLARE and not self.declarations(seat):
            self.phase = PLAY
            self.current = self.window_seat

    def _sing(self, seat: int, suit: int) -> None:
        pts = 40 if suit == self.trump else 20
        self.cantes = self.cantes + ((seat, suit, pts),)
        self.points[seat] += pts
        self.sung |= 1 << suit
        self.window_sang |= 1 << seat
        self._after_declaration(seat)

    def _exchange(self, seat: int, given: int) -> None:
        taken = self.face_up
        self.hands[seat] ^= BIT[given] | BIT[taken]
        self.face_up = given
        if FACE[given] == 7:
            self.done_seven = True
        else:
            self.done_two = True
        self.exchanges = self.exchanges + ((seat, given, taken),)

    def _pass(self, seat: int) -> None:
        if self.phase == DECLARE:
            self.phase = PLAY
            self.current = self.window_seat
            return
        # DEAL_TUTE: the next holder of a Tute from the deal, or the first lead
        rest = self.pending[1:]
        self.pending = rest
        if rest:
            self.current = rest[0]
        else:
            self.phase = PLAY
            self.current = self.leader

    # ----------------------------------------------------------------------------------- ending
    def _finish(self, ranks: Sequence[int], reason: str, **extra: object) -> None:
        self.result_ = GameResult(points=tuple(self.points), ranks=tuple(ranks), reason=reason,
                                  **extra)  # type: ignore[arg-type]
        self.phase = OVER
        self._legal = ()

    def side_points(self) -> list[int]:
        return [sum(self.points[s] for s in team) for team in self.variant.teams]

    def _seat_ranks(self, side_ranks: Sequence[int]) -> list[int]:
        return [side_ranks[self._team[s]] for s in range(self.n)]

    def _end_by_points(self) -> None:
        """Most points wins; a tie goes to the last-trick side, and ties it is not in are shared."""
        lt_side = self._team[self.last_trick_winner]
        keys = [(p, t == lt_side) for t, p in enumerate(self.side_points())]
        self._finish(self._seat_ranks(competition_ranks(keys)), "points")

    def _win_by_tute(self, seat: int, face: int) -> None:
        side = self._team[seat]
        ranks = [0 if t == side else 1 for t in range(len(self.variant.teams))]
        self._finish(self._seat_ranks(ranks), "tute", tute={"seat": seat, "face": face})

    def forfeit(self, seat: int, reason: str, detail: str = "") -> None:
        """Renuncio: ``seat`` loses the deal. The other sides rank by their points at this moment."""
        if self.phase == OVER:
            raise IllegalAction("the deal is already over")
        side = self._team[seat]
        keys = [(0, p) if t != side else (-1, 0) for t, p in enumerate(self.side_points())]
        self._finish(self._seat_ranks(competition_ranks(keys)), "forfeit",
                     forfeit=Forfeit(seat, reason, detail[:500]))

    # ----------------------------------------------------------------------------------- errors
    def explain(self, action: object, seat: int | None = None) -> str:
        """Why ``action`` is not legal now, in the words of the rules."""
        if self.phase == OVER:
            return "the deal is over: no action is legal"
        if not isinstance(action, str):
            return f"an action is a string such as 'play 1o', not {type(action).__name__} {action!r}"
        if seat is not None and seat != self.current:
            return f"out of turn: seat {seat} acted but seat {self.current} is on move"
        code = A.CODE.get(action)
        if code is None:
            return f"malformed action {action!r} (expected e.g. 'play 1o', 'sing c', 'tute 12', 'pass')"
        legal = self.legal_actions()
        hand = self.hands[self.current]
        if self.phase == DEAL_TUTE:
            return f"{action!r}: before the first lead seat {self.current} may only declare its Tute or pass"
        if self.phase == DECLARE:
            if code < A.SING0:
                return (f"{action!r}: seat {self.current} is asked to declare (partner of the trick winner); "
                        "it may only declare or pass")
            return f"{action!r} is not a declaration seat {self.current} can make now (legal: {', '.join(legal)})"
        if code == A.PASS_CODE:
            return "'pass' is only for a declaration turn; seat on move must play a card"
        if code >= A.SING0:
            if self.window_seat != self.current:
                return (f"{action!r}: declarations belong to the player about to lead after winning a trick "
                        "(after the draw, before the lead)")
            return f"{action!r} is not a declaration this hand allows now (legal: {', '.join(legal)})"
        c = code
        if not hand & BIT[c]:
            return f"{NAMES[c]} is not in the hand of seat {self.current}"
        return f"{NAMES[c]} breaks the duty to {self._duty()} (legal: {', '.join(legal)})"

    def _duty(self) -> str:
        hand = self.hands[self.current]
        led, trump = self.led, self.trump
        if not self.strict:
            return f"follow the trump lead ({SUITS[trump]}) while the pile lasts"
        if hand & SUIT_MASK[led]:
            if hand & SUIT_MASK[led] & HIGHER[self.best_led] and (
                    led == trump or self.best_trump < 0 or self.variant.must_beat_led_after_trumped):
                return f"follow suit {SUITS[led]} and beat {NAMES[self.best_led]} (montar)"
            return f"follow suit {SUITS[led]} (asistir)"
        if self.best_trump >= 0 and hand & SUIT_MASK[trump] & HIGHER[self.best_trump]:
            return f"trump higher than {NAMES[self.best_trump]} (pisar)"
        return f"trump when void in {SUITS[led]} (fallar)"

    # ----------------------------------------------------------------------------------- views
    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may see now, and nothing more."""
        return PlayerView.of(self, seat)
