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
_CODE = A.CODE
_DECK_MASKS = {size: sum(BIT[c] for c in deck_cards(size)) for size in (36, 40)}
PHASE_NAMES = ("play", "declare", "deal_tute", "over")

_SEVEN_TAKES = frozenset((1, 3, 12, 11, 10))
_TWO_TAKES = frozenset((7, 6, 5, 4))


class IllegalAction(ValueError):
    """An action the rules do not allow here; the message says which duty it broke.

    Raised before anything changes: the state is exactly as it was.
    """


#: bits of the 11s; a hand holds a 12-11 pair in suit s iff bit s*10+8 is set in ``hand & hand >> 1``
_ELEVENS = sum(1 << (s * 10 + 8) for s in range(4))
_KINGS = sum(1 << (s * 10 + 9) for s in range(4))
_KNIGHTS = _ELEVENS


class _Layout:
    """What a variant fixes about seats, computed once per variant rather than once per deal."""

    __slots__ = ("next", "team", "partner", "total_tricks", "deal_slices", "exchange_bits")

    def __init__(self, v: Variant) -> None:
        n = v.players
        self.next = tuple((s + 1) % n for s in range(n))
        self.team = tuple(next(t for t, team in enumerate(v.teams) if s in team) for s in range(n))
        self.partner = tuple((s + 2) % n if v.pairs else -1 for s in range(n))
        self.total_tricks = v.deck_size // 2 if v.draw_pile else v.hand_size
        #: for the k-th seat after the dealer, the deck positions it is dealt (one at a time)
        self.deal_slices = tuple(slice(k, v.hand_size * n, n) for k in range(n))
        #: per trump suit: the 7 and the 2 of trumps, the cards that may exchange
        self.exchange_bits = tuple(
            (BIT[t * 10 + 6] if v.exchange_seven else 0) | (BIT[t * 10 + 1] if v.exchange_two else 0)
            for t in range(4)) if v.draw_pile else (0, 0, 0, 0)


_LAYOUTS: dict[Variant, _Layout] = {}


class GameState:
    """One deal: ``new`` deals it, ``apply`` moves it on, ``result`` says how it ended."""

    __slots__ = (
        "variant", "n", "deck", "dealer", "hands", "initial_hands", "stock", "stock_pos", "trump",
        "trump_card", "face_up", "strict", "phase", "current", "leader", "trick", "led", "best_led",
        "best_trump", "win_seat", "tricks", "tricks_won", "points", "cantes", "sung", "exchanges",
        "done_seven", "done_two", "window_seat", "window_sang", "pending", "actions", "result_",
        "_legal", "_next", "_team", "_partner", "_total_tricks", "_exchange_bits", "last_trick_winner",
    )
    variant: Variant
    n: int
    deck: tuple[int, ...]
    dealer: int
    #: each seat's hand as a card bitmask
    hands: list[int]
    initial_hands: tuple[int, ...]
    #: the face-down pile, top first (two players); ``stock_pos`` cards of it are drawn
    stock: tuple[int, ...]
    stock_pos: int
    trump: int
    trump_card: int
    #: the card face up under the pile now, -1 once the loser of the last draw took it
    face_up: int
    #: the follow/beat/trump duties apply (no pile, or the pile is gone)
    strict: bool
    phase: int
    current: int
    leader: int
    trick: tuple[int, ...]
    led: int
    best_led: int
    best_trump: int
    win_seat: int
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    tricks_won: list[int]
    points: list[int]
    cantes: tuple[tuple[int, int, int], ...]
    #: sung suits, as the bits of their 11s
    sung: int
    exchanges: tuple[tuple[int, int, int], ...]
    done_seven: bool
    done_two: bool
    #: the trick winner whose declaration window is open (-1: none)
    window_seat: int
    #: seats that sang in the open window (bitmask)
    window_sang: int
    #: seats still to be asked about a Tute from the deal
    pending: tuple[int, ...]
    actions: list[tuple[int, str]]
    result_: GameResult | None
    last_trick_winner: int
    _legal: tuple[str, ...] | None
    _next: tuple[int, ...]
    _team: tuple[int, ...]
    _partner: tuple[int, ...]
    _total_tricks: int
    _exchange_bits: int

    # ----------------------------------------------------------------------------------- dealing
    @classmethod
    def new(cls, variant: Variant, deck: Sequence[int], dealer: int = 0) -> "GameState":
        """Deal ``deck`` for ``variant`` with ``dealer`` dealing (see ``__init__``)."""
        return cls(variant, deck, dealer)

    def __init__(self, variant: Variant | None, deck: Sequence[int] = (), dealer: int = 0) -> None:
        """Deal ``deck`` (the shuffled order, top first) for ``variant`` with ``dealer`` dealing.

        Cards go one at a time from the seat after the dealer. Two players: six each (the preset's
        hand size), the next card is turned up as trump and the rest is the face-down pile, top first.
        Three or four: every card is dealt and the dealer's last card shows trump; with 40 cards for
        three, the 40th card only shows trump and is dead.
        """
        if variant is None:  # a blank for copy() to fill
            return
        n = variant.players
        layout = _LAYOUTS.get(variant)
        if layout is None:
            layout = _LAYOUTS[variant] = _Layout(variant)
        deck = tuple(deck)
        if len(deck) != variant.deck_size or sum(map(BIT.__getitem__, deck)) != _DECK_MASKS[variant.deck_size] \
                or len(set(deck)) != len(deck):
            raise ValueError(f"deck: not a permutation of the {variant.deck_size}-card deck")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer: {dealer} is not a seat of {n}")
        self.variant = variant
        self.n = n
        self.deck = deck
        self.dealer = dealer
        h = variant.hand_size
        hands = [0] * n
        first = (dealer + 1) % n
        bit = BIT.__getitem__
        for k, sl in enumerate(layout.deal_slices):
            hands[(first + k) % n] = sum(map(bit, deck[sl]))
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
        self._next = layout.next
        self._team = layout.team
        self._partner = layout.partner
        self._total_tricks = layout.total_tricks
        self._exchange_bits = layout.exchange_bits[self.trump]
        self.phase = PLAY
        self.pending = ()
        if variant.tute_from_deal and variant.tute_mode != "disabled":
            order = [(first + i) % n for i in range(n)]
            self.pending = tuple(s for s in order if hands[s] & _KINGS == _KINGS or hands[s] & _KNIGHTS == _KNIGHTS)
            if self.pending:
                self.phase = DEAL_TUTE
                self.current = self.pending[0]

    def copy(self) -> "GameState":
        """An independent copy (for search and perft): mutable parts are copied, tuples shared."""
        o = GameState(None)
        o.variant = self.variant
        o.n = self.n
        o.deck = self.deck
        o.dealer = self.dealer
        o.hands = list(self.hands)
        o.initial_hands = self.initial_hands
        o.stock = self.stock
        o.stock_pos = self.stock_pos
        o.trump = self.trump
        o.trump_card = self.trump_card
        o.face_up = self.face_up
        o.strict = self.strict
        o.phase = self.phase
        o.current = self.current
        o.leader = self.leader
        o.trick = self.trick
        o.led = self.led
        o.best_led = self.best_led
        o.best_trump = self.best_trump
        o.win_seat = self.win_seat
        o.tricks = self.tricks
        o.tricks_won = list(self.tricks_won)
        o.points = list(self.points)
        o.cantes = self.cantes
        o.sung = self.sung
        o.exchanges = self.exchanges
        o.done_seven = self.done_seven
        o.done_two = self.done_two
        o.window_seat = self.window_seat
        o.window_sang = self.window_sang
        o.pending = self.pending
        o.actions = list(self.actions)
        o.result_ = self.result_
        o._legal = self._legal
        o._next = self._next
        o._team = self._team
        o._partner = self._partner
        o._total_tricks = self._total_tricks
        o._exchange_bits = self._exchange_bits
        o.last_trick_winner = self.last_trick_winner
        return o

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
        hand = self.hands[seat]
        exch = hand & self._exchange_bits if seat == self.window_seat and self.face_up >= 0 else 0
        pairs = hand & hand >> 1 & _ELEVENS
        tute = hand & _KINGS == _KINGS or hand & _KNIGHTS == _KNIGHTS
        if not (exch or pairs or tute):
            return ()
        v = self.variant
        out: list[str] = []
        trump = self.trump
        if exch:
            face = FACE[self.face_up]
            if exch & BIT[trump * 10 + 6] and not self.done_seven and face in _SEVEN_TAKES:
                out.append(A.EXCHANGE_TEXT[trump * 10 + 6])
            if exch & BIT[trump * 10 + 1] and not self.done_two and face in _TWO_TAKES:
                out.append(A.EXCHANGE_TEXT[trump * 10 + 1])
        pairs &= ~self.sung
        if pairs and not self.window_sang >> seat & 1 and (v.cantes_after_stock or self.stock_left):
            if v.cantes_scope == "team":
                blocked = any(self.window_sang >> s & 1 for s in v.teams[self._team[seat]])
            else:
                blocked = False
            if not blocked:
                if v.forty_first and pairs & BIT[trump * 10 + 8]:
                    out.append(A.SING_TEXT[trump])
                else:
                    out.extend(A.SING_TEXT[s] for s in range(4) if pairs & BIT[s * 10 + 8])
        if tute and self._tute_allowed(seat):
            if hand & _KINGS == _KINGS:
                out.append(A.TUTE_TEXT[12])
            if hand & _KNIGHTS == _KNIGHTS:
                out.append(A.TUTE_TEXT[11])
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
            cur = self.current
            if self.trick and (self.strict or self.variant.follow_trump_lead_in_stock):
                plays = A.plays(self.playable())
            else:
                plays = A.plays(self.hands[cur])
            if self.window_seat == cur:
                decl = self.declarations(cur)
                if decl:
                    return decl + plays
            return plays
        if phase == DECLARE:
            return self.declarations(self.current) + (A.PASS,)
        if phase == DEAL_TUTE:
            hand = self.hands[self.current]
            faces = [f for f, m in ((12, _KINGS), (11, _KNIGHTS)) if hand & m == m]
            return tuple(A.TUTE_TEXT[f] for f in faces) + (A.PASS,)
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
        code = _CODE[action]
        self._legal = None
        mover = self.current
        self.actions.append((mover, action))
        if code < 40:  # play a card: the hot path, inlined
            self.hands[mover] ^= BIT[code]
            trick = self.trick
            if not trick:
                self.leader = self.win_seat = mover
                self.window_seat = -1
                led = self.led = SUIT[code]
                self.best_led = code
                self.best_trump = code if led == self.trump else -1
            else:
                s = SUIT[code]
                if s == self.led:
                    if BIT[code] & HIGHER[self.best_led]:
                        self.best_led = code
                        if s == self.trump:
                            self.best_trump = code
                            self.win_seat = mover
                        elif self.best_trump < 0:
                            self.win_seat = mover
                elif s == self.trump:
                    if self.best_trump < 0 or BIT[code] & HIGHER[self.best_trump]:
                        self.best_trump = code
                        self.win_seat = mover
            trick = self.trick = trick + (code,)
            if len(trick) == self.n:
                self._finish_trick()
            else:
                self.current = self._next[mover]
        elif code < A.TUTE12:
            self._sing(mover, code - A.SING0)
        elif code < A.EXCH0:
            self._win_by_tute(mover, 12 if code == A.TUTE12 else 11)
        elif code < A.PASS_CODE:
            self._exchange(mover, code - A.EXCH0)
        else:
            self._pass(mover)

    def _finish_trick(self) -> None:
        w = self.win_seat
        trick = self.trick
        self.tricks = self.tricks + ((self.leader, trick, w),)
        self.trick = ()
        self.tricks_won[w] += 1
        self.points[w] += sum(map(POINTS.__getitem__, trick))
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
        self.sung |= BIT[suit * 10 + 8]
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
