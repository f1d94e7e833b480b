"""The rules of play, each written once, as small pure functions on ints.

The referee (``state.py``), the knowledge helpers (``knowledge.py``), the replay timeline, the search's
playouts and endgame and the ``greedy`` bot all call these functions and tables; none of them writes a
rule out again. That is what keeps a view, a playout and a replay from drifting away from the referee.

A trick in progress is four ints, the same everywhere: ``led`` (the suit led), ``best_led`` (the highest
card of the led suit on the table: what a follower must beat, *montar*), ``top`` (the card winning the
trick now: the highest trump if one was played, else ``best_led``) and the seat that played ``top``.
Cards are ints 0-39 (``arena.cards``); ``NO_CARD`` and ``NO_SUIT`` mean "none" and index no card table
(``NAMES[NO_CARD]`` raises), so a missing trump can never pass for the 12 of bastos. The tables here
that are indexed by a trump suit have a fifth entry for ``NO_SUIT``: no trump, no card is a trump.

Per-variant facts (seat order when the dealer sits out, teams, duties in force, exchanges, trick count)
are compiled once into a ``Rules`` object kept with the variant (``Variant.rules``), the role of
OpenSpiel's ``Game`` object.

Terms (docs/rules.md): *baza* a trick; *arrastre* a trump lead; *asistir* following suit; *montar*
beating the highest card of the led suit; *fallar* trumping when void; *pisar* over-trumping; *cante*
declaring the 12 and 11 of a suit; *Tute* all four 12s or 11s; *renuncio* breaking a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .cards import BIT, FACE, HIGHER, NO_CARD, NO_SUIT, NUM_CARDS, POINTS, SUIT, SUIT_MASK
from .result import competition_ranks

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .variants import Variant

# ------------------------------------------------------------------------------------------- cards
#: the 11 of each suit; a hand holds the 12-11 pair of suit s iff bit s*10+8 is set in ``pairs(hand)``
ELEVENS = sum(1 << (s * 10 + 8) for s in range(4))
KINGS = ELEVENS << 1
KNIGHTS = ELEVENS
#: indexed by trump suit, ``NO_SUIT`` included: the trump cards (none without a trump suit)
TRUMP_MASK: tuple[int, ...] = SUIT_MASK + (0,)
#: ``BEATS[trump][top]``: the cards that take the trick from ``top``, the card winning it now: a higher
#: card of its suit, or any trump when ``top`` is not one. The whole of "who wins a trick".
BEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(HIGHER[c] | (TRUMP_MASK[t] if SUIT[c] != t else 0) for c in range(NUM_CARDS))
    for t in range(5))
#: faces the 7 of trumps may take from the face-up card, and those the 2 may take (docs/rules.md
#: "Declarations: exchange, cantes, Tute"), by ``exchange_rule``: by face (S0), the 7 takes any (S2), the
#: 2 takes any (S2, regional)
SEVEN_TAKES = frozenset((1, 3, 12, 11, 10))
TWO_TAKES = frozenset((7, 6, 5, 4))
ANY_FACE = frozenset((1, 2, 3, 4, 5, 6, 7, 10, 11, 12))
EXCHANGE_TAKES = {"by_face": (SEVEN_TAKES, TWO_TAKES), "seven": (ANY_FACE, frozenset()),
                  "two": (frozenset(), ANY_FACE)}

#: duties of play in force for a trick (``Rules.mode``)
FREE, FOLLOW, TRUMP_LEAD, STRICT = 0, 1, 2, 3


def pairs(hand: int) -> int:
    """The 12-11 pairs (cantes) in ``hand``, as the bits of their 11s."""
    return hand & hand >> 1 & ELEVENS


def pair_suit(bit11: int) -> int:
    """The suit of a pair given as the bit of its 11."""
    return (bit11.bit_length() - 1) // 10


def tute_faces(hand: int) -> tuple[int, ...]:
    """The Tutes ``hand`` holds: 12 for all four kings, 11 for all four knights."""
    return tuple(f for f, m in ((12, KINGS), (11, KNIGHTS)) if hand & m == m)


def has_tute(hand: int) -> bool:
    return hand & KINGS == KINGS or hand & KNIGHTS == KNIGHTS


def cante_points(suit: int, trump: int) -> int:
    """20 for a cante, 40 in trumps (las cuarenta)."""
    return 40 if suit == trump else 20


def trick_points(cards: Sequence[int]) -> int:
    return sum(map(POINTS.__getitem__, cards))


# ------------------------------------------------------------------------------------------- a trick
def trick_step(trump: int, best_led: int, top: int, card: int) -> tuple[int, int]:
    """``card`` joins a trick: the new ``(best_led, top)``. ``top`` changes iff ``card`` takes the trick."""
    bit = BIT[card]
    if bit & HIGHER[best_led]:
        best_led = card
    if bit & BEATS[trump][top]:
        top = card
    return best_led, top


def trick_state(cards: Sequence[int], seats: Sequence[int], trump: int) -> tuple[int, int, int, int]:
    """``(led, best_led, top, winning seat)`` of a trick so far (``cards`` played by ``seats``)."""
    c0 = cards[0]
    best_led = top = c0
    win = seats[0]
    for i in range(1, len(cards)):
        best_led, new_top = trick_step(trump, best_led, top, cards[i])
        if new_top != top:
            top, win = new_top, seats[i]
    return SUIT[c0], best_led, top, win


def playable(mode: int, hand: int, led: int, best_led: int, top: int, trump: int, partner_wins: bool,
             r: "Rules") -> int:
    """The cards a follower may play (``hand`` when it leads: call only with a trick on the table).

    ``STRICT`` (docs/rules.md "Playing a trick"), in order: hold the led suit: play it, beating ``best_led`` if
    you can (not required after a trump fell on a non-trump lead, unless ``must_beat_led_after_trumped``);
    void: trump, over-trumping ``top`` if you can (holding only lower trumps: any card, unless
    ``undertrump_required``); neither: any card. ``FOLLOW`` (cabrón): follow suit only. ``TRUMP_LEAD``
    (habanero's pile phase): a trump lead must be followed with a trump. ``FREE``: anything.
    """
    if mode != STRICT:
        if mode == FOLLOW:
            return hand & SUIT_MASK[led] or hand
        if mode == TRUMP_LEAD and led == trump:
            return hand & SUIT_MASK[led] or hand
        return hand
    if partner_wins and r.partner_exemption:
        return hand & SUIT_MASK[led] or hand
    in_suit = hand & SUIT_MASK[led]
    trumps = TRUMP_MASK[trump]
    trumped = BIT[top] & trumps
    if in_suit:
        if led == trump or not trumped or r.must_beat_led_after_trumped:
            return in_suit & HIGHER[best_led] or in_suit
        return in_suit
    mine = hand & trumps
    if mine:
        if trumped:
            return mine & HIGHER[top] or (mine if r.undertrump_required else hand)
        return mine
    return hand


def lacks(mode: int, card: int, led: int, best_led: int, top: int, trump: int, partner_wins: bool,
          r: "Rules") -> int:
    """What a follower who played ``card`` proves it does not hold: the exact inverse of ``playable``
    (for every hand holding ``card``: ``card`` is playable iff the hand holds none of these)."""
    s = SUIT[card]
    if mode != STRICT:
        if mode == FOLLOW or (mode == TRUMP_LEAD and led == trump):
            return SUIT_MASK[led] if s != led else 0
        return 0
    if partner_wins and r.partner_exemption:
        return SUIT_MASK[led] if s != led else 0
    trumps = TRUMP_MASK[trump]
    trumped = BIT[top] & trumps
    if s == led:
        if (led == trump or not trumped or r.must_beat_led_after_trumped) and not BIT[card] & HIGHER[best_led]:
            return HIGHER[best_led]
        return 0
    out = SUIT_MASK[led]
    if BIT[card] & trumps:
        if trumped and not BIT[card] & HIGHER[top]:
            out |= HIGHER[top]
    elif trumped:
        out |= trumps if r.undertrump_required else HIGHER[top]
    else:
        out |= trumps
    return out


def void_suits(lacked: int) -> int:
    """The suits (a bit per suit) wholly inside ``lacked`` (what ``lacks`` proves): the voids a play
    shows, as every reader of the play counts them (``PlayerView.voids``, ``greedy``, the inference)."""
    out = 0
    for s in range(4):
        if lacked & SUIT_MASK[s] == SUIT_MASK[s]:
            out |= 1 << s
    return out


# ------------------------------------------------------------------------------------------- declarations
def exchanges(r: "Rules", hand: int, trump: int, face_up: int, done_seven: bool, done_two: bool) -> tuple[int, ...]:
    """The cards ``hand`` may give for the face-up trump card: the 7 of trumps for a 1, 3, 12, 11 or 10,
    the 2 for a 7, 6, 5 or 4, each once per deal (docs/rules.md "Declarations: exchange, cantes, Tute",
    and "Which card exchanges")."""
    if face_up == NO_CARD or not hand & r.exchange_bits[trump]:
        return ()
    face = FACE[face_up]
    out = []
    seven, two = trump * 10 + 6, trump * 10 + 1
    if r.exchange_seven and not done_seven and hand & BIT[seven] and face in r.seven_takes:
        out.append(seven)
    if r.exchange_two and not done_two and hand & BIT[two] and face in r.two_takes:
        out.append(two)
    return tuple(out)


def cante_suits(r: "Rules", hand: int, sung: int, trump: int, stock_left: int) -> tuple[int, ...]:
    """The suits ``hand`` may sing now (one cante per window; each suit once per deal, ``sung`` holding
    the bits of the 11s sung; with ``forty_first`` the 40 in trumps before any 20); none without
    ``cantes``, so that no caller has to remember that option on its own."""
    open_pairs = pairs(hand) & ~sung
    if not open_pairs or not r.cantes or not (r.cantes_after_stock or stock_left):
        return ()
    if r.forty_first and trump != NO_SUIT and open_pairs & BIT[trump * 10 + 8]:
        return (trump,)
    return tuple(s for s in range(4) if open_pairs & BIT[s * 10 + 8])


def tute_allowed(r: "Rules", team_tricks: int, team_sang: bool = False) -> bool:
    """``tute_mode``: after any won trick, only at the team's first won trick, or never; and with
    ``tute_after_cante`` off (S3), never once the team sang."""
    if team_sang and not r.tute_after_cante:
        return False
    mode = r.tute_mode
    return mode == "any_won_trick" or (mode == "first_team_trick" and team_tricks == 1)


def pair_trick(cards: Sequence[int], top: int, first: bool) -> tuple[tuple[int, int], ...]:
    """Cabrón: the 12-11 pairs that fell in one finished trick, as ``(suit, points)``: 40 for the deal's
    first such pair (``first``), 20 for each later one; the pair in the suit of the winning card first
    (that suit becomes trump)."""
    m = 0
    for c in cards:
        m |= BIT[c]
    found = pairs(m)
    if not found:
        return ()
    win_suit = SUIT[top]
    suits = sorted((s for s in range(4) if found & BIT[s * 10 + 8]), key=lambda s: s != win_suit)
    out = []
    for s in suits:
        out.append((s, 40 if first else 20))
        first = False
    return tuple(out)


# ------------------------------------------------------------------------------------------- drawing
def draw(hands: list[int], stock: Sequence[int], pos: int, face_up: int, winner: int) -> tuple[int, int]:
    """Two players, after a trick: the winner draws first, then the loser; the last draw gives the loser
    the face-up trump card. Changes ``hands``; returns the new ``(pos, face_up)``."""
    loser = 1 - winner
    hands[winner] |= BIT[stock[pos]]
    pos += 1
    if pos < len(stock):
        hands[loser] |= BIT[stock[pos]]
        return pos + 1, face_up
    hands[loser] |= BIT[face_up]
    return pos, NO_CARD


# ------------------------------------------------------------------------------------------- scoring
def points_ranks(r: "Rules", side_points: Sequence[int], last_side: int) -> list[int]:
    """Most points ranks first; a tie goes to the side that took the last trick, and a tie that side is
    not in is a shared place (docs/rules.md "The end of a deal"). With ``tie = draw`` (S2) every tie is shared."""
    if r.tie_draw:
        return competition_ranks(list(side_points))
    return competition_ranks([(p, t == last_side) for t, p in enumerate(side_points)])


def bid_score(r: "Rules", bid: int, side_points: int, made: bool) -> int:
    """Subastado, the declaring side's score: ``-bid`` when it failed; when it made it, the bid, or with
    ``bid_scoring = points`` (S2) the points it took."""
    if not made:
        return -bid
    return side_points if r.bid_scoring_points else bid


def losers(r: "Rules", active: Sequence[int], tricks_won: Sequence[int], points: Sequence[int],
           singers: set[int]) -> tuple[tuple[int, ...], str]:
    """Cabrón and cabrero: who loses the deal and by which rule.

    In order: a capote (one player took every trick) makes everyone else lose, unless, with
    ``capote_after_cante_loses``, that player had sung (``singers``): then it loses alone. Else the
    players who took no trick lose (``no_trick_loses``). Else the players over ``over_points_loses``
    points lose. Else the middle: every player whose points equal those of a place strictly between
    the first and the last (ties at a losing place all lose)."""
    capote = [s for s in active if tricks_won[s] == r.total_tricks]
    if capote:
        c = capote[0]
        if r.capote_after_cante_loses and c in singers:
            return (c,), "capote_after_cante"
        return tuple(s for s in active if s != c), "capote"
    if r.no_trick_loses:
        none = tuple(s for s in active if tricks_won[s] == 0)
        if none:
            return none, "no_trick"
    if r.over_points_loses:
        over = tuple(s for s in active if points[s] > r.over_points_loses)
        if over:
            return over, "over_points"
    ordered = sorted((points[s] for s in active), reverse=True)
    middle = set(ordered[1:-1])
    return tuple(s for s in active if points[s] in middle), "middle"


# ------------------------------------------------------------------------------------------- per variant
class Rules:
    """What a variant fixes, compiled once (``Variant.rules``): seats, teams, duties, declarations.

    ``order[dealer][leader]`` is the play order of a trick (the seats holding cards, from the leader,
    skipping a dealer who sits out); ``next[dealer][seat]`` the seat after a seat. Everything else is
    a rule option copied to a plain attribute, so that hot loops read ``r.x`` instead of the dataclass.
    """

    __slots__ = ("players", "active", "pairs", "teams", "team", "partner", "next", "order", "total_tricks",
                 "deal_slices", "exchange_bits", "exchange_seven", "exchange_two", "loose_mode",
                 "partner_exemption", "must_beat_led_after_trumped", "undertrump_required", "forty_first",
                 "cantes", "cantes_scope_team", "cantes_after_stock", "tute_mode", "tute_from_deal",
                 "last_trick_bonus", "draw_pile", "draw_rounds", "sits_out", "trump_rule", "scoring",
                 "no_trick_loses", "over_points_loses", "capote_after_cante_loses", "bid_actions",
                 "seven_takes", "two_takes", "exchange_before_draw", "tie_draw", "bid_scoring_points",
                 "tute_after_cante", "skipped_cante_lost")

    def __init__(self, v: "Variant") -> None:
        n = v.players
        self.players = n
        self.active = v.active_players
        self.pairs = v.pairs
        self.teams = v.teams
        self.team = tuple(next(t for t, team in enumerate(v.teams) if s in team) for s in range(n))
        self.partner = tuple((s + 2) % n if v.pairs else -1 for s in range(n))
        self.sits_out = v.sits_out
        self.next = tuple(
            tuple((s + 1) % n if not v.sits_out or (s + 1) % n != d else (s + 2) % n for s in range(n))
            for d in range(n))
        order = []
        for d in range(n):
            per_leader = []
            for leader in range(n):
                seats = [leader]
                while len(seats) < self.active:
                    seats.append(self.next[d][seats[-1]])
                per_leader.append(tuple(seats))
            order.append(tuple(per_leader))
        self.order = tuple(order)
        self.total_tricks = v.deck_size // 2 if v.draw_pile else v.hand_size
        self.draw_pile = v.draw_pile
        #: tricks followed by a draw: the pile with its face-up card, two cards a round
        self.draw_rounds = (40 - 2 * v.hand_size) // 2 if v.draw_pile else 0
        #: for the k-th seat after the dealer, the deck positions it is dealt (one at a time)
        self.deal_slices = tuple(slice(i, v.hand_size * self.active, self.active) for i in range(self.active))
        self.seven_takes, self.two_takes = EXCHANGE_TAKES[v.exchange_rule]
        self.exchange_seven = v.draw_pile and v.exchange_seven and bool(self.seven_takes)
        self.exchange_two = v.draw_pile and v.exchange_two and bool(self.two_takes)
        #: the trick winner may exchange before drawing (S2) instead of after
        self.exchange_before_draw = v.exchange_timing == "before_draw"
        #: per trump suit (``NO_SUIT`` included): the 7 and the 2 of trumps, the cards that may exchange
        self.exchange_bits = tuple(
            (BIT[t * 10 + 6] if self.exchange_seven else 0) | (BIT[t * 10 + 1] if self.exchange_two else 0)
            for t in range(4)) + (0,)
        #: the duties outside the strict phase: cabrón's follow suit, habanero's trump lead, or none
        self.loose_mode = FOLLOW if v.follow_only else TRUMP_LEAD if v.follow_trump_lead_in_stock else FREE
        self.partner_exemption = v.partner_exemption
        self.must_beat_led_after_trumped = v.must_beat_led_after_trumped
        self.undertrump_required = v.undertrump_required
        self.forty_first = v.forty_first
        self.cantes = v.cantes
        self.cantes_scope_team = v.cantes_scope == "team"
        self.cantes_after_stock = v.cantes_after_stock
        self.tute_mode = v.tute_mode
        self.tute_from_deal = v.tute_from_deal and v.tute_mode != "disabled"
        self.last_trick_bonus = v.last_trick_bonus
        self.trump_rule = v.trump_rule
        self.scoring = v.scoring
        self.no_trick_loses = v.no_trick_loses
        self.over_points_loses = v.over_points_loses
        self.capote_after_cante_loses = v.capote_after_cante_loses
        self.tie_draw = v.tie == "draw"
        self.bid_scoring_points = v.bid_scoring == "points"
        self.tute_after_cante = v.tute_after_cante
        self.skipped_cante_lost = v.skipped_cante_lost
        #: the auction's legal actions by the lowest bid allowed, filled as bids are reached
        self.bid_actions: dict[int, tuple[str, ...]] = {}

    def mode(self, strict: bool) -> int:
        """The duties in force: ``STRICT`` once the pile is gone (or without one), else the variant's
        loose duty. Cabrón is never strict: it only ever asks to follow suit."""
        return STRICT if strict and self.loose_mode != FOLLOW else self.loose_mode

    def strict_from(self) -> int:
        """The first trick whose duties no later draw can undo (what a play there proves stays true)."""
        return self.draw_rounds

    def seat_of(self, dealer: int, leader: int, i: int) -> int:
        """The seat that plays the ``i``-th card of a trick led by ``leader``."""
        return self.order[dealer][leader][i]

    def mode_of_trick(self, index: int) -> int:
        """The duties in force in trick ``index`` of a deal (0-based)."""
        return self.mode(index >= self.draw_rounds)
