"""The referee: the whole state of one deal, the legal actions in it, and their strict application.

Nothing else in the project knows the rules. A bot is asked only through a ``PlayerView`` built here;
hosts, matches and tournaments only call ``legal_actions``, ``apply``, ``forfeit`` and ``result``.

Terms (docs/rules.md): a *baza* is a trick; *arrastre* a trump lead; *montar* beating the highest card of the
led suit; *fallar* trumping when void; *pisar* over-trumping; a *cante* (acuse) declaring the 12 and 11
of a suit; *Tute* holding all four 12s or 11s; *renuncio* breaking a rule, which loses the deal; the
*baceta* the face-down draw pile of the two-player game. The later variants: *subastado* (an auction
names the declarer and trump), *cabrón* (no trump at first; a trick holding a 12-11 pair scores and makes
trump) and *cabrero* (the middle loses; the dealer sits out with 5 or 6), see docs/rules.md.

The rules themselves are in ``arena.rules`` (the kernel): this module validates, then applies, and keeps
the record. Speed matters (a tournament asks for millions of decisions), so hands are int bitmasks, the
legal actions are cached until the next ``apply``, and the public history is kept as tuples that a view
can share without copying.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Sequence

from . import actions as A
from . import rules as R
from .cards import BIT, HIGHER, NAMES, NO_CARD, NO_SUIT, SUIT, SUIT_MASK, SUITS, deck as deck_cards
from .result import Forfeit, GameResult, competition_ranks
from .rules import BEATS, ELEVENS, Rules
from .variants import Variant
from .public import PHASES, STATE_ATTRS, compile_assigner
from .view import PlayerView

_view_values = attrgetter(*STATE_ATTRS)
PLAY, DECLARE, DEAL_TUTE, OVER, AUCTION, NAME_TRUMP, EXCHANGE = 0, 1, 2, 3, 4, 5, 6
_CODE = A.CODE
_DECK_MASKS = {size: sum(BIT[c] for c in deck_cards(size)) for size in (36, 40)}
PHASE_NAMES = PHASES


#: a forfeit's detail in the record is capped at this many characters (a bot's stderr tail included)
FORFEIT_DETAIL = 2000


class IllegalAction(ValueError):
    """An action the rules do not allow here; the message says which duty it broke.

    Raised before anything changes: the state is exactly as it was.
    """


class GameState:
    """One deal: ``new`` deals it, ``apply`` moves it on, ``result`` says how it ended."""

    __slots__ = (
        "variant", "rules", "n", "deck", "dealer", "hands", "initial_hands", "stock", "stock_pos", "trump",
        "trump_card", "face_up", "strict", "phase", "current", "leader", "trick", "led", "best_led",
        "top", "win_seat", "total_tricks", "tricks", "tricks_won", "points", "cantes", "sung", "exchanges",
        "done_seven", "done_two", "window_seat", "window_sang", "pending", "actions", "result_",
        "_legal", "_next", "last_trick_winner", "k", "sit_out", "bids", "passed", "declarer", "contract",
        "pair_tricks", "_singers", "lost",
    )
    variant: Variant
    #: the variant's compiled rules (``arena.rules.Rules``): seat order, teams, duties
    rules: Rules
    n: int
    deck: tuple[int, ...]
    dealer: int
    #: each seat's hand as a card bitmask
    hands: list[int]
    initial_hands: tuple[int, ...]
    #: the face-down pile, top first (two players); ``stock_pos`` cards of it are drawn
    stock: tuple[int, ...]
    stock_pos: int
    #: the trump suit now, ``NO_SUIT`` while there is none
    trump: int
    #: the card that showed trump at the deal, ``NO_CARD`` when none is shown
    trump_card: int
    #: the card face up under the pile now, ``NO_CARD`` once the loser of the last draw took it
    face_up: int
    #: the follow/beat/trump duties apply (no pile, or the pile is gone)
    strict: bool
    phase: int
    current: int
    leader: int
    #: the trick in progress (``arena.rules``): its cards, led suit, highest led card, winning card and seat
    trick: tuple[int, ...]
    led: int
    best_led: int
    top: int
    win_seat: int
    #: tricks in this deal (the variant's; a hand-built test position may have fewer)
    total_tricks: int
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
    #: the seat after each seat in this deal (skipping a dealer who sits out)
    _next: tuple[int, ...]
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
    #: per seat, the cantes it lost by not making them when it could (``skipped_cante_lost``): 11s' bits
    lost: tuple[int, ...]

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
        cabrón show no trump card: trump is ``NO_SUIT`` until the auction or a trick names it.
        """
        if variant is None:  # a blank for copy() and from_view() to fill
            return
        n = variant.players
        r = variant.rules
        deck = tuple(deck)
        if len(deck) != variant.deck_size or sum(map(BIT.__getitem__, deck)) != _DECK_MASKS[variant.deck_size] \
                or len(set(deck)) != len(deck):
            raise ValueError(f"deck: not a permutation of the {variant.deck_size}-card deck")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer: {dealer} is not a seat of {n}")
        self.variant = variant
        self.rules = r
        self.n = n
        self.deck = deck
        self.dealer = dealer
        h = variant.hand_size
        hands = [0] * n
        nxt = r.next[dealer]
        first = nxt[dealer]
        bit = BIT.__getitem__
        seat = first
        for sl in r.deal_slices:
            hands[seat] = sum(map(bit, deck[sl]))
            seat = nxt[seat]
        self.k = r.active
        self.sit_out = dealer if r.sits_out else -1
        self.bids = ()
        self.passed = 0
        self.declarer = -1
        self.contract = 0
        self.pair_tricks = ()
        self.lost = (0,) * n
        rule = r.trump_rule
        self._singers = (1 << n) - 1 if r.cantes and rule != "auction" else 0
        self.face_up = NO_CARD
        self.stock = ()
        if rule != "card":
            self.trump_card = NO_CARD
        elif r.draw_pile:
            self.trump_card = self.face_up = deck[h * n]
            self.stock = tuple(deck[h * n + 1:])
        else:
            self.trump_card = deck[-1]
        self.stock_pos = 0
        self.trump = SUIT[self.trump_card] if self.trump_card != NO_CARD else NO_SUIT
        self.hands = hands
        self.initial_hands = tuple(hands)
        self.strict = not r.draw_pile
        self.leader = first
        self.current = first
        self.trick = ()
        self.led = NO_SUIT
        self.best_led = self.top = NO_CARD
        self.win_seat = -1
        self.total_tricks = r.total_tricks
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
        self.phase = PLAY
        self.pending = ()
        if rule == "auction":
            self.phase = AUCTION
        elif r.tute_from_deal:
            self.pending = tuple(s for s in r.order[dealer][first] if R.has_tute(hands[s]))
            if self.pending:
                self.phase = DEAL_TUTE
                self.current = self.pending[0]

    def copy(self) -> "GameState":
        """An independent copy (for search and perft): mutable parts are copied, tuples shared."""
        return _copy_into(GameState(None), self)

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
        return len(self.stock) - self.stock_pos + (self.face_up != NO_CARD)

    def team_of(self, seat: int) -> int:
        return self.rules.team[seat]

    def result(self) -> GameResult | None:
        return self.result_

    def legal_actions(self) -> tuple[str, ...]:
        """Every action the seat on move may take, declarations first, then plays in card order."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def trick_order(self, leader: int) -> tuple[int, ...]:
        """The seats of a trick led by ``leader``, in play order (a dealer who sits out skipped)."""
        return self.rules.order[self.dealer][leader]

    def mode(self) -> int:
        """The duties of play in force now (``arena.rules``: strict, follow suit, trump lead, free)."""
        return self.rules.mode(self.strict)

    def playable(self) -> int:
        """The cards (bitmask) the seat on move may play, by the duties of play (``rules.playable``)."""
        hand = self.hands[self.current]
        if not self.trick:
            return hand
        r = self.rules
        return R.playable(r.mode(self.strict), hand, self.led, self.best_led, self.top, self.trump,
                          self.win_seat == r.partner[self.current], r)

    def declarations(self, seat: int) -> tuple[str, ...]:
        """What ``seat`` may declare now: exchanges, one cante, a Tute (docs/rules.md "Declarations")."""
        if seat != self.window_seat and not (self.phase == DECLARE and seat == self.current):
            return ()
        hand = self.hands[seat]
        r = self.rules
        out: list[str] = []
        if seat == self.window_seat and self.face_up != NO_CARD and hand & r.exchange_bits[self.trump] \
                and not r.exchange_before_draw:
            out.extend(A.EXCHANGE_TEXT[c] for c in self._exchanges(seat))
        out.extend(A.SING_TEXT[s] for s in self._cante_suits(seat))
        if R.has_tute(hand) and self._tute_allowed(seat):
            out.extend(A.TUTE_TEXT[f] for f in R.tute_faces(hand))
        return tuple(out) if out else ()

    def _exchanges(self, seat: int) -> tuple[int, ...]:
        return R.exchanges(self.rules, self.hands[seat], self.trump, self.face_up, self.done_seven, self.done_two)

    def _cante_suits(self, seat: int) -> tuple[int, ...]:
        """The suits ``seat`` may sing now (``rules.cante_suits``), its lost cantes excepted."""
        hand = self.hands[seat]
        if not (self._singers >> seat & 1 and hand & hand >> 1 & ELEVENS) or self._sang_in_window(seat):
            return ()
        return R.cante_suits(self.rules, hand, self.sung | self.lost[seat], self.trump, self.stock_left)

    def _lose_skipped_cantes(self, seat: int) -> None:
        """``skipped_cante_lost`` (S3): the cantes ``seat`` was offered and did not make are gone."""
        skipped = self._cante_suits(seat)
        if skipped:
            lost = list(self.lost)
            for suit in skipped:
                lost[seat] |= BIT[suit * 10 + 8]
            self.lost = tuple(lost)

    def _sang_in_window(self, seat: int) -> bool:
        """One cante per won trick: per player, or per team with ``cantes_scope = team``."""
        sang = self.window_sang
        if self.rules.cantes_scope_team:
            return any(sang >> s & 1 for s in self.rules.teams[self.rules.team[seat]])
        return bool(sang >> seat & 1)

    def _tute_allowed(self, seat: int) -> bool:
        r = self.rules
        team = r.teams[r.team[seat]]
        return R.tute_allowed(r, sum(self.tricks_won[s] for s in team), any(c[0] in team for c in self.cantes))

    def _compute_legal(self) -> tuple[str, ...]:
        phase = self.phase
        if phase == PLAY:
            cur = self.current
            if self.trick and (self.strict or self.rules.loose_mode != R.FREE):
                plays = A.plays(self.playable())
            else:  # leading, or no duty in force: the whole hand (the hot path of the pile phase)
                plays = A.plays(self.hands[cur])
            if self.window_seat == cur:
                decl = self.declarations(cur)
                if decl:
                    return decl + plays
            return plays
        if phase == DECLARE:
            return self.declarations(self.current) + (A.PASS,)
        if phase == DEAL_TUTE:
            return tuple(A.TUTE_TEXT[f] for f in R.tute_faces(self.hands[self.current])) + (A.PASS,)
        if phase == AUCTION:
            v = self.variant
            low = self.contract + v.bid_step if self.contract else v.bid_min
            table = self.rules.bid_actions
            acts = table.get(low)
            if acts is None:
                acts = table[low] = tuple(A.BID_TEXT[b] for b in range(low, v.bid_max + 1, v.bid_step)) + (A.PASS,)
            return acts
        if phase == NAME_TRUMP:
            return A.TRUMP_TEXT
        if phase == EXCHANGE:
            return tuple(A.EXCHANGE_TEXT[c] for c in self._exchanges(self.current)) + (A.PASS,)
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
        self.actions.append((self.current, action))
        self.push(_CODE[action])

    def push(self, code: int) -> None:
        """Apply the action of ``code`` (``arena.actions``) unchecked, unrecorded: for searches that
        generate only legal actions (python-chess's ``push`` beside checked parsing). ``apply`` is this
        after validation, plus the record of the action."""
        self._legal = None
        mover = self.current
        if code < 40:  # play a card: the hot path
            if self.window_seat == mover and self.rules.skipped_cante_lost:
                self._lose_skipped_cantes(mover)  # its lead closes its window
            self.hands[mover] ^= BIT[code]
            trick = self.trick
            if not trick:
                self.leader = self.win_seat = mover
                self.window_seat = -1
                self.led = SUIT[code]
                self.best_led = self.top = code
            else:
                bit = BIT[code]
                if bit & HIGHER[self.best_led]:
                    self.best_led = code
                if bit & BEATS[self.trump][self.top]:  # rules.trick_step, inlined for the referee's speed
                    self.top = code
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
        r = self.rules
        self.tricks = self.tricks + ((self.leader, trick, w),)
        self.trick = ()
        self.tricks_won[w] += 1
        self.points[w] += R.trick_points(trick)
        if r.trump_rule == "pair_tricks":
            self._pair_trick(w, trick)
        if len(self.tricks) == self.total_tricks:
            self.points[w] += r.last_trick_bonus
            self.last_trick_winner = w
            self._end_by_points()
            return
        if r.exchange_before_draw and self.face_up != NO_CARD and self._exchanges(w):
            self.phase = EXCHANGE  # S2: the winner may exchange before it draws; the window follows
            self.leader = self.current = w
            return
        self._draw_and_open_window(w)

    def _draw_and_open_window(self, w: int) -> None:
        """After a trick (and a pre-draw exchange): the draw, then the winner's declaration window (its
        partner first, in pairs, when the partner has something to declare)."""
        r = self.rules
        if self.face_up != NO_CARD:
            self.stock_pos, self.face_up = R.draw(self.hands, self.stock, self.stock_pos, self.face_up, w)
            if self.face_up == NO_CARD:
                self.strict = True
        self.leader = self.current = w
        self.window_seat = w
        self.window_sang = 0
        self.phase = PLAY
        p = r.partner[w]
        if p >= 0:
            self.phase = DECLARE
            self.current = p
            if not self.declarations(p):
                self.phase = PLAY
                self.current = w

    def _pair_trick(self, w: int, trick: tuple[int, ...]) -> None:
        """Cabrón: the pairs that fell in the trick score for its winner and make trump (``rules.pair_trick``)."""
        found = R.pair_trick(trick, self.top, not self.pair_tricks)
        index = len(self.tricks) - 1
        for s, pts in found:
            self.pair_tricks = self.pair_tricks + ((index, w, s, pts),)
            self.points[w] += pts
        if found:
            self.trump = found[0][0]

    def _after_declaration(self, seat: int) -> None:
        """A partner who has nothing left to declare hands the window to the trick winner."""
        if self.phase == DECLARE and not self.declarations(seat):
            self.phase = PLAY
            self.current = self.window_seat

    def _sing(self, seat: int, suit: int) -> None:
        pts = R.cante_points(suit, self.trump)
        self.cantes = self.cantes + ((seat, suit, pts),)
        self.points[seat] += pts
        self.sung |= BIT[suit * 10 + 8]
        self.window_sang |= 1 << seat
        self._after_declaration(seat)

    def _exchange(self, seat: int, given: int) -> None:
        taken = self.face_up
        self.hands[seat] ^= BIT[given] | BIT[taken]
        self.face_up = given
        if given % 10 == 6:
            self.done_seven = True
        else:
            self.done_two = True
        self.exchanges = self.exchanges + ((seat, given, taken),)
        if self.phase == EXCHANGE and not self._exchanges(seat):
            self._draw_and_open_window(seat)

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
        r = self.rules
        if r.cantes:
            self._singers = sum(1 << s for s in r.teams[r.team[seat]])

    def _pass(self, seat: int) -> None:
        if self.phase == AUCTION:
            self.bids = self.bids + ((seat, 0),)
            self.passed |= 1 << seat
            self._next_bidder(seat)
            return
        if self.phase == DECLARE:
            if self.rules.skipped_cante_lost:
                self._lose_skipped_cantes(seat)
            self.phase = PLAY
            self.current = self.window_seat
            return
        if self.phase == EXCHANGE:
            self._draw_and_open_window(seat)
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
        return [sum(self.points[s] for s in team) for team in self.rules.teams]

    def _seat_ranks(self, side_ranks: Sequence[int]) -> list[int]:
        team = self.rules.team
        return [side_ranks[team[s]] for s in range(self.n)]

    def _end_by_points(self) -> None:
        """Most points wins; a tie goes to the last-trick side, and ties it is not in are shared."""
        scoring = self.rules.scoring
        if scoring == "bid":
            self._end_by_bid()
            return
        if scoring == "losers":
            self._end_with_losers()
            return
        ranks = R.points_ranks(self.rules, self.side_points(), self.rules.team[self.last_trick_winner])
        self._finish(self._seat_ranks(ranks), "points")

    def _end_by_bid(self) -> None:
        """Subastado: the declaring side made its bid (cards, cantes and last trick) or not. It scores
        +bid or -bid; every other side scores its points. Made: the declaring side ranks first; failed:
        the defenders do."""
        team = self.rules.team
        d_side = team[self.declarer]
        side_pts = self.side_points()
        bid = self.contract
        made = side_pts[d_side] >= bid
        side_score = [R.bid_score(self.rules, bid, p, made) if t == d_side else p for t, p in enumerate(side_pts)]
        keys = [(t == d_side) == made for t in range(len(side_pts))]
        self._finish(self._seat_ranks(competition_ranks(keys)), "made" if made else "failed",
                     score=tuple(side_score[team[s]] for s in range(self.n)),
                     contract=self._contract_json(made))

    def _contract_json(self, made: bool | None) -> dict[str, object] | None:
        if self.declarer < 0:
            return None
        return {"seat": self.declarer, "bid": self.contract,
                "trump": SUITS[self.trump] if self.phase != NAME_TRUMP and self.trump != NO_SUIT else None,
                "made": made}

    def losers(self) -> tuple[tuple[int, ...], str]:
        """Cabrón and cabrero: who loses the deal now, by the points taken, and by which rule
        (``rules.losers``)."""
        active = [s for s in range(self.n) if s != self.sit_out]
        return R.losers(self.rules, active, self.tricks_won, self.points, {s for s, _, _ in self.cantes})

    def _end_with_losers(self) -> None:
        lost, why = self.losers()
        self._finish(self._loser_ranks(lost), why, losers=lost,
                     sit_out=self.sit_out if self.sit_out >= 0 else None)

    def _loser_ranks(self, lost: Sequence[int]) -> list[int]:
        """Non-losers (a seat sitting out included) share place 0, losers the next place."""
        worse = self.n - len(lost)
        return [worse if s in lost else 0 for s in range(self.n)]

    def _win_by_tute(self, seat: int, face: int) -> None:
        """A Tute wins the deal at once; where a deal has losers (cabrero with Tute on), every other
        player loses."""
        tute = {"seat": seat, "face": face}
        if self.rules.scoring == "losers":
            lost = tuple(s for s in range(self.n) if s != seat and s != self.sit_out)
            self._finish(self._loser_ranks(lost), "tute", tute=tute, losers=lost,
                         sit_out=self.sit_out if self.sit_out >= 0 else None)
            return
        side = self.rules.team[seat]
        ranks = [0 if t == side else 1 for t in range(len(self.rules.teams))]
        self._finish(self._seat_ranks(ranks), "tute", tute=tute)

    def forfeit(self, seat: int, reason: str, detail: str = "") -> None:
        """Renuncio: ``seat`` loses the deal. The other sides rank by their points at this moment."""
        if self.phase == OVER:
            raise IllegalAction("the deal is already over")
        team = self.rules.team
        side = team[seat]
        f = Forfeit(seat, reason, detail[:FORFEIT_DETAIL])
        scoring = self.rules.scoring
        if scoring == "losers":
            self._finish(self._loser_ranks((seat,)), "forfeit", forfeit=f, losers=(seat,),
                         sit_out=self.sit_out if self.sit_out >= 0 else None)
            return
        sides = len(self.rules.teams)
        if scoring == "bid":
            penalty = -(self.contract or self.variant.bid_min)
            self._finish(self._seat_ranks(competition_ranks([t != side for t in range(sides)])),
                         "forfeit", forfeit=f,
                         score=tuple(penalty if team[s] == side else 0 for s in range(self.n)),
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
        legal = self.legal_actions()
        if code is None:  # the examples are this turn's own: a bid in the auction, a card in play
            return f"malformed action {action!r} (legal now: {', '.join(repr(a) for a in legal[:6])}" \
                   f"{', ...' if len(legal) > 6 else ''})"
        hand = self.hands[self.current]
        if self.phase == AUCTION:
            return (f"{action!r}: in the auction seat {self.current} may only bid more than the last bid "
                    f"({legal[0] if len(legal) > 1 else 'none left'} or higher, step {self.variant.bid_step}, "
                    f"up to {self.variant.bid_max}) or pass")
        if self.phase == NAME_TRUMP:
            return f"{action!r}: seat {self.current} won the auction and must name trump: {', '.join(legal)}"
        if code >= A.TRUMP0:
            return f"{action!r}: bids and naming trump belong to the auction, which is over"
        if self.phase == EXCHANGE:
            return (f"{action!r}: seat {self.current} won the trick and, before it draws, may only exchange or "
                    f"pass (legal: {', '.join(legal)})")
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
        """The duty the seat on move broke, in words, read off the cards ``rules.playable`` allows rather
        than worked out a second time (which once missed the partner exemption): the led suit above its
        best card (montar), the led suit (asistir; a trump lead while the pile lasts), the trumps above
        the top card (pisar), or the trumps (fallar)."""
        hand = self.hands[self.current]
        ok = self.playable()
        led, trump = self.led, self.trump
        in_suit = hand & SUIT_MASK[led]
        trumps = hand & R.TRUMP_MASK[trump]
        if ok != in_suit and ok == in_suit & HIGHER[self.best_led]:
            return f"follow suit {SUITS[led]} and beat {NAMES[self.best_led]} (montar)"
        if ok == in_suit:
            if self.mode() == R.TRUMP_LEAD:
                return f"follow the trump lead ({SUITS[trump]}) while the pile lasts"
            return f"follow suit {SUITS[led]} (asistir)"
        if ok != trumps and ok == trumps & HIGHER[self.top]:
            return f"trump higher than {NAMES[self.top]} (pisar)"
        return f"trump when void in {SUITS[led]} (fallar)"

    # ----------------------------------------------------------------------------------- worlds
    @classmethod
    def from_view(cls, view: PlayerView, hands: list[int], pile: Sequence[int] = ()) -> "GameState":
        """A full state that gives back ``view`` to its seat, with these ``hands`` (every seat's cards
        now) and face-down ``pile`` (top first): a determinization for search, on which ``legal_actions``
        and ``apply`` continue the deal.

        The public fields come from the view through ``arena.public.FIELDS``; the referee's own
        bookkeeping is derived from them by the rules. The deck order and initial hands are nominal
        (a permutation that deals the cards each seat is known to have held); play never reads them.
        """
        v = view.variant
        r = v.rules
        n = v.players
        o = cls(None)
        for name, value in zip(STATE_ATTRS, _view_values(view)):
            setattr(o, name, value)
        o.variant = v
        o.rules = r
        o.n = n
        o.k = r.active
        o.hands = hands
        o.stock = tuple(pile)
        o.stock_pos = 0
        o.points = list(view.points)
        o.phase = PHASE_NAMES.index(view.phase)
        o.strict = view.strict
        o.total_tricks = r.total_tricks
        o._next = r.next[view.dealer]
        order = r.order[view.dealer]
        o.led, o.best_led, o.top, o.win_seat = NO_SUIT, NO_CARD, NO_CARD, -1
        if view.trick:
            o.led, o.best_led, o.top, o.win_seat = R.trick_state(view.trick, order[view.leader], view.trump)
        o.tricks_won = view.tricks_won
        o.sung = view.sung_mask
        o.done_seven, o.done_two = view.exchanges_done
        over = o.phase == OVER
        o.window_seat = view.tricks[-1][2] if view.tricks and not view.trick and not over else -1
        if o.phase == EXCHANGE:
            o.window_seat = -1  # the window opens after the pre-draw exchange and the draw
        lost = [0] * n
        lost[view.seat] = view.lost_cantes
        o.lost = tuple(lost)
        o.window_sang = 0
        o.pending = ()
        if o.phase == DEAL_TUTE:
            seats = order[view.leader]
            o.pending = tuple(s for s in seats[seats.index(view.current):]
                              if s == view.current or R.has_tute(hands[s]))
        o.actions = []
        o.result_ = None
        o.last_trick_winner = view.tricks[-1][2] if over and view.tricks else -1
        o._legal = None
        o.passed = sum(1 << s for s, b in view.bids if b == 0)
        o._singers = (1 << n) - 1 if r.cantes and r.trump_rule != "auction" else 0
        if r.cantes and r.trump_rule == "auction" and o.phase not in (AUCTION, NAME_TRUMP) and view.declarer >= 0:
            o._singers = sum(1 << s for s in r.teams[r.team[view.declarer]])
        o._nominal_deal(view)
        if o.window_seat >= 0 and view.cantes:
            o._match_window(view)
        return o

    def _nominal_deal(self, view: PlayerView) -> None:
        """A deck order and initial hands that deal what each seat is known to have held."""
        v = view.variant
        r = v.rules
        held = list(self.hands)
        order = r.order[view.dealer]
        for leader, cards, _ in view.tricks + ((view.leader, view.trick, -1),):
            for s, c in zip(order[leader], cards):
                held[s] |= BIT[c]
        tc = view.trump_card
        if not v.draw_pile:
            deal_order = order[r.next[view.dealer][view.dealer]]
            per_seat = [[c for c in range(40) if held[s] >> c & 1 and c != tc] for s in deal_order]
            if tc != NO_CARD and not v.dead_card:
                per_seat[-1].append(tc)
            k = len(deal_order)
            deck = [per_seat[i % k][i // k] for i in range(v.hand_size * k)]
            if v.dead_card:
                deck.append(tc)
            self.deck = tuple(deck)
            initial = [0] * v.players
            for s, cs in zip(deal_order, per_seat):
                initial[s] = sum(BIT[c] for c in cs)
            self.initial_hands = tuple(initial)
        else:
            # who drew what cannot be told from the record; a nominal order: the cards as they lie now
            pile = set(self.stock)
            in_hands = [c for s in range(v.players) for c in range(40) if held[s] >> c & 1 and c != tc]
            rest = [c for c in range(40) if not (sum(held) | BIT[tc]) >> c & 1 and c not in pile]
            self.deck = tuple(in_hands + rest + [tc] + list(self.stock))
            self.initial_hands = tuple(held)

    def _match_window(self, view: PlayerView) -> None:
        """Pick ``window_sang`` (who sang since the trick ended, not in the view) so that the viewer's
        legal actions here are those of its view."""
        self.window_sang = 0
        if view.current != view.seat:
            return
        w = self.window_seat
        cands = [s for s in (w, self.rules.partner[w]) if s >= 0 and any(c[0] == s for c in view.cantes)]
        combos = [0]
        for s in cands:
            combos += [m | 1 << s for m in combos]
        for m in combos:
            self.window_sang = m
            self._legal = None
            if self.legal_actions() == view.legal:
                break
        else:
            self.window_sang = 0
        self._legal = None

    # ----------------------------------------------------------------------------------- views
    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may see now, and nothing more."""
        return PlayerView.of(self, seat)


#: ``GameState.copy``, generated from the slots: the lists are the only mutable parts
_copy_into = compile_assigner(
    "_copy_into", "o, s",
    {name: f"list(s.{name})" if name in ("hands", "tricks_won", "points", "actions") else f"s.{name}"
     for name in GameState.__slots__},
    "Copy every slot of state ``s`` into the blank ``o``.")
