"""The referee: the whole state of one deal, the legal actions in it, and their strict application.

Nothing else in the project knows the rules. A bot is asked only through a ``PlayerView`` built here;
hosts, matches and tournaments only call ``legal_actions``, ``apply``, ``forfeit`` and ``result``.

Terms (RULES.md): a *baza* is a trick; *arrastre* a trump lead; *montar* beating the highest card of the
led suit; *fallar* trumping when void; *pisar* over-trumping; a *cante* (acuse) declaring the 12 and 11
of a suit; *Tute* holding all four 12s or 11s; *renuncio* breaking a rule, which loses the deal; the
*baceta* the face-down draw pile of the two-player game. The later variants: *subastado* (an auction
names the declarer and trump), *cabrón* (no trump at first; a trick holding a 12-11 pair scores and makes
trump) and *cabrero* (the middle loses; the dealer sits out with 5 or 6), see docs/rules.md.

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

PLAY, DECLARE, DEAL_TUTE, OVER, AUCTION, NAME_TRUMP = 0, 1, 2, 3, 4, 5
_CODE = A.CODE
_DECK_MASKS = {size: sum(BIT[c] for c in deck_cards(size)) for size in (36, 40)}
PHASE_NAMES = ("play", "declare", "deal_tute", "over", "auction", "trump")

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

    __slots__ = ("next", "team", "partner", "total_tricks", "deal_slices", "exchange_bits", "next_by_dealer",
                 "bid_actions")

    def __init__(self, v: Variant) -> None:
        n = v.players
        k = v.active_players
        self.next = tuple((s + 1) % n for s in range(n))
        #: play order skips a dealer who sits out
        self.next_by_dealer = tuple(
            tuple((s + 1) % n if (s + 1) % n != d else (s + 2) % n for s in range(n)) if v.sits_out else self.next
            for d in range(n))
        #: the auction's legal actions by the lowest bid allowed
        self.bid_actions: dict[int, tuple[str, ...]] = {}
        self.team = tuple(next(t for t, team in enumerate(v.teams) if s in team) for s in range(n))
        self.partner = tuple((s + 2) % n if v.pairs else -1 for s in range(n))
        self.total_tricks = v.deck_size // 2 if v.draw_pile else v.hand_size
        #: for the k-th seat after the dealer, the deck positions it is dealt (one at a time)
        self.deal_slices = tuple(slice(i, v.hand_size * k, k) for i in range(k))
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
        "k", "sit_out", "bids", "passed", "declarer", "contract", "pair_tricks", "_singers", "_pair_rule",
        "_loose_duty",
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
    #: players holding cards this deal (``n``, or ``n - 1`` when the dealer sits out)
    k: int
    #: the seat sitting this deal out (cabrero with 5 or 6: the dealer), -1 for none
    sit_out: int
    #: the auction so far: (seat, bid), a bid of 0 being a pass
    bids: tuple[tuple[int, int], ...]
    #: seats that passed in the auction (bitmask)
    passed: int
    #: the last bidder (subastado), -1 before any bid
    declarer: int
    #: the highest bid so far, 0 for none
    contract: int
    #: cabrón: tricks holding a 12-11 pair: (trick index, winner, suit, points); the suit became trump
    pair_tricks: tuple[tuple[int, int, int, int], ...]
    #: seats that may sing (bitmask)
    _singers: int
    _pair_rule: bool
    #: a duty outside the strict phase: habanero's trump lead while the pile lasts, cabrón's follow suit
    _loose_duty: bool

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
        three, the 40th card only shows trump and is dead. A dealer who sits out (cabrero with 5 or 6)
        gets no cards; the last card dealt (to the seat before the dealer) shows trump. Subastado and
        cabrón show no trump card: trump is -1 until the auction or a trick names it.
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
        nxt = layout.next_by_dealer[dealer]
        seat = first
        for sl in layout.deal_slices:
            hands[seat] = sum(map(bit, deck[sl]))
            seat = nxt[seat]
        self.k = variant.active_players
        self.sit_out = dealer if variant.sits_out else -1
        self.bids = ()
        self.passed = 0
        self.declarer = -1
        self.contract = 0
        self.pair_tricks = ()
        rule = variant.trump_rule
        self._pair_rule = rule == "pair_tricks"
        self._loose_duty = variant.follow_trump_lead_in_stock or variant.follow_only
        self._singers = (1 << n) - 1 if variant.cantes and rule != "auction" else 0
        if rule != "card":
            self.trump_card = -1
            self.face_up = -1
            self.stock = ()
        elif variant.draw_pile:
            self.trump_card = deck[h * n]
            self.face_up = self.trump_card
            self.stock = tuple(deck[h * n + 1:])
        else:
            self.trump_card = deck[-1]
            self.face_up = -1
            self.stock = ()
        self.stock_pos = 0
        self.trump = SUIT[self.trump_card] if self.trump_card >= 0 else -1
        self.hands = hands
        self.initial_hands = tuple(hands)
        self.strict = not variant.draw_pile and not variant.follow_only
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
        self._next = nxt
        self._team = layout.team
        self._partner = layout.partner
        self._total_tricks = layout.total_tricks
        self._exchange_bits = layout.exchange_bits[self.trump]
        self.phase = PLAY
        self.pending = ()
        if rule == "auction":
            self.phase = AUCTION
        elif variant.tute_from_deal and variant.tute_mode != "disabled":
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
        o.k = self.k
        o.sit_out = self.sit_out
        o.bids = self.bids
        o.passed = self.passed
        o.declarer = self.declarer
        o.contract = self.contract
        o.pair_tricks = self.pair_tricks
        o._singers = self._singers
        o._pair_rule = self._pair_rule
        o._loose_duty = self._loose_duty
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
            if v.follow_only:
                return hand & SUIT_MASK[led] or hand
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
        pairs = hand & hand >> 1 & _ELEVENS if self._singers >> seat & 1 else 0
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
            if self.trick and (self.strict or self._loose_duty):
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
        if phase == AUCTION:
            v = self.variant
            low = self.contract + v.bid_step if self.contract else v.bid_min
            layout = _LAYOUTS.get(v)
            if layout is None:
                layout = _LAYOUTS[v] = _Layout(v)
            table = layout.bid_actions
            acts = table.get(low)
            if acts is None:
                acts = table[low] = tuple(A.BID_TEXT[b] for b in range(low, v.bid_max + 1, v.bid_step)) + (A.PASS,)
            return acts
        if phase == NAME_TRUMP:
            return A.TRUMP_TEXT
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
            if len(trick) == self.k:
                self._finish_trick()
            else:
                self.current = self._next[mover]
        elif code < A.TUTE12:
            self._sing(mover, code - A.SING0)
        elif code < A.EXCH0:
            self._win_by_tute(mover, 12 if code == A.TUTE12 else 11)
        elif code < A.PASS_CODE:
            self._exchange(mover, code - A.EXCH0)
        elif code == A.PASS_CODE:
            self._pass(mover)
        elif code < A.BID0:
            self._name_trump(mover, code - A.TRUMP0)
        else:
            self._bid(mover, code - A.BID0)

    def _finish_trick(self) -> None:
        w = self.win_seat
        trick = self.trick
        self.tricks = self.tricks + ((self.leader, trick, w),)
        self.trick = ()
        self.tricks_won[w] += 1
        self.points[w] += sum(map(POINTS.__getitem__, trick))
        if self._pair_rule:
            self._pair_trick(w, trick)
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

    def _pair_trick(self, w: int, trick: tuple[int, ...]) -> None:
        """Cabrón: a trick holding the 12 and 11 of a suit scores for its winner (40 for the deal's first
        such pair, 20 for each later one) and makes that suit trump from the next trick. Two pairs in
        one trick (four players): both score, the pair in the suit of the winning card first, and that
        suit becomes trump."""
        m = 0
        for c in trick:
            m |= BIT[c]
        pairs = m & m >> 1 & _ELEVENS
        if not pairs:
            return
        best = self.best_trump if self.best_trump >= 0 else self.best_led
        win_suit = SUIT[best]
        suits = [s for s in range(4) if pairs & BIT[s * 10 + 8]]
        suits.sort(key=lambda s: s != win_suit)
        index = len(self.tricks) - 1
        for s in suits:
            pts = 20 if self.pair_tricks else 40
            self.pair_tricks = self.pair_tricks + ((index, w, s, pts),)
            self.points[w] += pts
        self.trump = suits[0]

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

    def _bid(self, seat: int, amount: int) -> None:
        self.bids = self.bids + ((seat, amount),)
        self.contract = amount
        self.declarer = seat
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """The auction goes on to the next seat that has not passed; it ends when that seat is the
        last bidder (everyone else passed), or when every seat passed (redeal)."""
        nxt = self._next
        s = nxt[seat]
        for _ in range(self.n):
            if not self.passed >> s & 1:
                break
            s = nxt[s]
        else:
            self._finish([0] * self.n, "redeal", score=(0,) * self.n)
            return
        if s == self.declarer:
            self.phase = NAME_TRUMP
        self.current = s

    def _name_trump(self, seat: int, suit: int) -> None:
        """The declarer names trump and leads; from now on only its side may sing."""
        self.trump = suit
        self.phase = PLAY
        self.leader = self.current = seat
        if self.variant.cantes:
            team = self.variant.teams[self._team[seat]]
            self._singers = sum(1 << s for s in team)

    def _pass(self, seat: int) -> None:
        if self.phase == AUCTION:
            self.bids = self.bids + ((seat, 0),)
            self.passed |= 1 << seat
            self._next_bidder(seat)
            return
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
        scoring = self.variant.scoring
        if scoring == "bid":
            self._end_by_bid()
            return
        if scoring == "losers":
            self._end_with_losers()
            return
        lt_side = self._team[self.last_trick_winner]
        keys = [(p, t == lt_side) for t, p in enumerate(self.side_points())]
        self._finish(self._seat_ranks(competition_ranks(keys)), "points")

    def _end_by_bid(self) -> None:
        """Subastado: the declaring side made its bid (cards, cantes and last trick) or not. It scores
        +bid or -bid; every other side scores its points. Made: the declaring side ranks first; failed:
        the defenders do."""
        d_side = self._team[self.declarer]
        side_pts = self.side_points()
        bid = self.contract
        made = side_pts[d_side] >= bid
        side_score = [(bid if made else -bid) if t == d_side else p for t, p in enumerate(side_pts)]
        keys = [(t == d_side) == made for t in range(len(side_pts))]
        self._finish(self._seat_ranks(competition_ranks(keys)), "made" if made else "failed",
                     score=tuple(side_score[self._team[s]] for s in range(self.n)),
                     contract=self._contract_json(made))

    def _contract_json(self, made: bool | None) -> dict[str, object] | None:
        if self.declarer < 0:
            return None
        return {"seat": self.declarer, "bid": self.contract,
                "trump": SUITS[self.trump] if self.phase != NAME_TRUMP and self.trump >= 0 else None,
                "made": made}

    def losers(self) -> tuple[tuple[int, ...], str]:
        """Cabrón and cabrero: who loses the deal (now, by the points taken) and by which rule.

        In order: a capote (one player took every trick) makes everyone else lose, unless, with
        ``capote_after_cante_loses``, that player had sung: then it loses alone. Else the players who
        took no trick lose (``no_trick_loses``). Else the players over ``over_points_loses`` points lose.
        Else the middle: every player whose points equal those of a place strictly between the first
        and the last (ties at a losing place all lose)."""
        v = self.variant
        act = [s for s in range(self.n) if s != self.sit_out]
        tw = self.tricks_won
        pts = self.points
        capote = [s for s in act if tw[s] == self._total_tricks]
        if capote:
            c = capote[0]
            if v.capote_after_cante_loses and any(s == c for s, _, _ in self.cantes):
                return (c,), "capote_after_cante"
            return tuple(s for s in act if s != c), "capote"
        if v.no_trick_loses:
            none = tuple(s for s in act if tw[s] == 0)
            if none:
                return none, "no_trick"
        if v.over_points_loses:
            over = tuple(s for s in act if pts[s] > v.over_points_loses)
            if over:
                return over, "over_points"
        ordered = sorted((pts[s] for s in act), reverse=True)
        middle = set(ordered[1:-1])
        return tuple(s for s in act if pts[s] in middle), "middle"

    def _end_with_losers(self) -> None:
        lost, why = self.losers()
        self._finish(self._loser_ranks(lost), why, losers=lost,
                     sit_out=self.sit_out if self.sit_out >= 0 else None)

    def _loser_ranks(self, lost: Sequence[int]) -> list[int]:
        """Non-losers (a seat sitting out included) share place 0, losers the next place."""
        worse = self.n - len(lost)
        return [worse if s in lost else 0 for s in range(self.n)]

    def _win_by_tute(self, seat: int, face: int) -> None:
        side = self._team[seat]
        ranks = [0 if t == side else 1 for t in range(len(self.variant.teams))]
        self._finish(self._seat_ranks(ranks), "tute", tute={"seat": seat, "face": face})

    def forfeit(self, seat: int, reason: str, detail: str = "") -> None:
        """Renuncio: ``seat`` loses the deal. The other sides rank by their points at this moment."""
        if self.phase == OVER:
            raise IllegalAction("the deal is already over")
        side = self._team[seat]
        f = Forfeit(seat, reason, detail[:500])
        scoring = self.variant.scoring
        if scoring == "losers":
            self._finish(self._loser_ranks((seat,)), "forfeit", forfeit=f, losers=(seat,),
                         sit_out=self.sit_out if self.sit_out >= 0 else None)
            return
        if scoring == "bid":
            penalty = -(self.contract or self.variant.bid_min)
            self._finish(self._seat_ranks(competition_ranks([t != side for t in range(len(self.variant.teams))])),
                         "forfeit", forfeit=f,
                         score=tuple(penalty if self._team[s] == side else 0 for s in range(self.n)),
                         contract=self._contract_json(None))
            return
        keys = [(0, p) if t != side else (-1, 0) for t, p in enumerate(self.side_points())]
        self._finish(self._seat_ranks(competition_ranks(keys)), "forfeit", forfeit=f)

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
        if self.phase == AUCTION:
            return (f"{action!r}: in the auction seat {self.current} may only bid more than the last bid "
                    f"({legal[0] if len(legal) > 1 else 'none left'} or higher, step {self.variant.bid_step}, "
                    f"up to {self.variant.bid_max}) or pass")
        if self.phase == NAME_TRUMP:
            return f"{action!r}: seat {self.current} won the auction and must name trump: {', '.join(legal)}"
        if code >= A.TRUMP0:
            return f"{action!r}: bids and naming trump belong to the auction, which is over"
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
        if self.variant.follow_only:
            return f"follow suit {SUITS[led]} (asistir)"
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
