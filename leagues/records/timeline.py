"""A game record as a sequence of frames: what happened at each action, as everyone or one seat saw it.

Both the text replay and the HTML page are drawn from these frames, so they cannot disagree. With a
seat, a frame holds only what that seat could know at that moment: its own hand, the table and the
public events; another seat's draw is "a card", never the card. Every fact of a frame is read from the
referee's own state after the action (trump, whose turn, the auction, cabrón's pair tricks), never
worked out again here, so each variant is drawn by its own rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena import GameRecord
from arena.cards import NAMES, NO_CARD, NO_SUIT, SUIT, SUITS, cards_list
from arena.record import replay_steps
from arena.state import GameState

from leagues.records.wording import Words, result_text

#: frame phases in words the page keys on
ACTING_PHASES = ("play", "declare", "deal_tute", "auction", "trump", "exchange")


@dataclass
class TrickDone:
    """A finished trick, for the list of tricks beside the table."""
    number: int
    leader: int
    cards: list[tuple[int, str]]  # (seat, card) in playing order
    winner: int
    points: int  # card points (and the last trick's bonus, and cabrón's pair) it gave its winner


@dataclass
class Frame:
    """The table right after one action (or the deal, for the first frame)."""
    index: int  # actions applied so far
    events: list[str]
    #: per seat, the cards shown (None: hidden from the viewer), and every hand's size
    hands: list[list[str] | None]
    hand_sizes: list[int]
    trick: list[tuple[int, str]]  # (seat, card) on the table now
    last_trick: list[tuple[int, str]] | None  # the trick just completed, shown until the next card
    trick_number: int
    trump: str  # in words
    trump_suit: str | None  # the suit's letter, None while there is no trump
    face_up: str | None
    stock_left: int | None  # None where the variant has no pile
    points: list[int]
    sides: list[int]  # points per side (team), in the record's team order
    mover: int | None  # whose decision comes next (None once the deal is over)
    phase: str
    bids: list[tuple[int, int]] = field(default_factory=list)  # the auction so far, 0 a pass
    contract: dict[str, Any] | None = None  # {"seat", "bid", "trump"} once the auction is won
    pair_tricks: list[tuple[int, int, str, int]] = field(default_factory=list)  # (trick, winner, suit, points)
    won: TrickDone | None = None  # the trick this action finished
    over: bool = False
    result: str = ""
    losers: list[int] | None = None
    tags: list[str] = field(default_factory=list)  # e.g. "trick" where a trick ended (for --step)


def frames(record: GameRecord, seat: int | None = None, lang: str = "en", isolate: bool = False) -> list[Frame]:
    """Every frame of ``record``: the deal, then one per recorded action. Raises ReplayError if the
    record is not true to the rules (the replay is the verification). ``isolate``: names as a page
    shows them (``Words.of``)."""
    words = Words.of(record.seats, lang, isolate)
    variant = record.rules()
    out: list[Frame] = []
    state: GameState | None = None
    last_trick: list[tuple[int, str]] | None = None
    before: dict[str, Any] = {}  # the public facts just before the pending move
    pending: tuple[int, str] | None = None
    for index, st in replay_steps(record):
        state = st
        if index == 0:
            frame = _snapshot(st, record, seat, words, _deal_events(record, st, seat, words), 0, ["deal"], None)
        else:
            assert pending is not None
            events, tags, won = _describe(pending, before, st, seat, words)
            if won is not None:
                last_trick = won.cards
            frame = _snapshot(st, record, seat, words, events, index, tags, last_trick)
            frame.won = won
        out.append(frame)
        before = {"hands": list(st.hands), "tricks": len(st.tricks), "face_up": st.face_up,
                  "points": list(st.points), "pairs": len(st.pair_tricks), "lost": tuple(st.lost)}
        if index < len(record.actions):
            pending = record.actions[index]
    assert state is not None
    if out:
        last = out[-1]
        last.over, last.mover = True, None
        last.result = result_text(record.result, record.teams, words, variant.over_points_loses)
        last.events.append(words("result", text=last.result))
        last.points = list(record.result.points)
        last.sides = [sum(last.points[s] for s in t) for t in record.teams]
        last.losers = list(record.result.losers) if record.result.losers is not None else None
    return out


def _snapshot(st: GameState, record: GameRecord, seat: int | None, words: Words, events: list[str], index: int,
              tags: list[str], last_trick: list[tuple[int, str]] | None) -> Frame:
    trick = [(s, NAMES[c]) for s, c in zip(st.trick_order(st.leader), st.trick)]
    phase = st.phase_name
    contract = None
    if st.declarer >= 0 and phase not in ("auction",):
        contract = {"seat": st.declarer, "bid": st.contract,
                    "trump": SUITS[st.trump] if st.trump != NO_SUIT else None}
    return Frame(index=index, events=events,
                 hands=[[NAMES[c] for c in cards_list(h)] if seat is None or s == seat else None
                        for s, h in enumerate(st.hands)],
                 hand_sizes=[bin(h).count("1") for h in st.hands], trick=trick,
                 last_trick=last_trick if not trick else None, trick_number=len(st.tricks) + 1,
                 trump=words.suit(st.trump), trump_suit=SUITS[st.trump] if st.trump != NO_SUIT else None,
                 face_up=NAMES[st.face_up] if st.face_up != NO_CARD else None,
                 stock_left=st.stock_left if st.variant.draw_pile else None, points=list(st.points),
                 sides=[sum(st.points[s] for s in t) for t in record.teams],
                 mover=None if st.is_over or phase not in ACTING_PHASES else st.current_player, phase=phase,
                 bids=list(st.bids), contract=contract,
                 pair_tricks=[(t + 1, w, SUITS[s], p) for t, w, s, p in st.pair_tricks],
                 over=st.is_over, tags=tags)


def _deal_events(record: GameRecord, st: GameState, seat: int | None, words: Words) -> list[str]:
    w = words
    players = ", ".join(w.who(s) for s in range(len(record.seats)))
    events = [w("deal", variant=record.variant, dealer=w.who(record.dealer), players=players)]
    if st.sit_out >= 0:
        events.append(w("sits_out", who=w.who(st.sit_out)))
    rule = st.variant.trump_rule
    if rule == "auction":
        events.append(w("trump_auction"))
    elif rule == "pair_tricks":
        events.append(w("trump_pairs"))
    elif st.trump_card != NO_CARD:
        events.append(w("trump_card", suit=w.suit(st.trump), card=NAMES[st.trump_card]))
    else:
        events.append(w("trump_none"))
    for s in range(len(record.seats)):
        if (seat is None or s == seat) and s != st.sit_out:
            events.append(w("holds", who=w.who(s), cards=" ".join(NAMES[c] for c in cards_list(st.hands[s]))))
    return events


def _draws(who: int, kind: str, before: dict[str, Any], st: GameState, seat: int | None, w: Words) -> list[str]:
    """The cards from the pile that an action brought into the hands: after a trick in most variants,
    after the exchange or its pass where the exchange comes before the draw (tute-2-8). Whatever the
    action, every card that entered a hand is told, but the one an exchange took (told with it)."""
    took = st.exchanges[-1][2] if kind == "exchange" else -1
    first = st.tricks[-1][2] if st.tricks else who  # the last trick's winner draws first
    events = []
    for s in [first] + [x for x in range(st.n) if x != first]:
        for c in cards_list(st.hands[s] & ~before["hands"][s]):
            if s == who and c == took:
                continue
            if c == before["face_up"]:
                events.append(w("takes_face_up", who=w.who(s), card=NAMES[c]))
            elif seat is None or s == seat:
                events.append(w("draws", who=w.who(s), card=NAMES[c]))
            else:
                events.append(w("draws_hidden", who=w.who(s)))
    return events


def _describe(move: tuple[int, str], before: dict[str, Any], st: GameState, seat: int | None,
              words: Words) -> tuple[list[str], list[str], TrickDone | None]:
    who, action = move
    w = words
    kind, _, arg = action.partition(" ")
    events: list[str] = []
    tags: list[str] = []
    won: TrickDone | None = None
    if kind == "play":
        events.append(w("plays", who=w.who(who), card=arg))
        if len(st.tricks) > before["tricks"]:
            leader, cards, winner = st.tricks[-1]
            gained = st.points[winner] - before["points"][winner]
            won = TrickDone(len(st.tricks), leader, [(s, NAMES[c]) for s, c in zip(st.trick_order(leader), cards)],
                            winner, gained)
            events.append(w("trick", n=len(st.tricks), who=w.who(winner), pts=gained,
                            score="-".join(str(sum(st.points[s] for s in t)) for t in st.variant.teams)))
            tags.append("trick")
            for _, pw, ps, pp in st.pair_tricks[before["pairs"]:]:
                events.append(w("pair", suit=w.suit(ps), who=w.who(pw), pts=pp))
    elif kind == "sing":
        pts = st.cantes[-1][2]
        events.append(w("sings", who=w.who(who), suit=w.suit(arg), s=arg, pts=pts))
    elif kind == "exchange":
        _, gave, took = st.exchanges[-1]
        events.append(w("exchange", who=w.who(who), gave=NAMES[gave], took=NAMES[took]))
    elif kind == "tute":
        face = w("kings" if arg == "12" else "knights")
        events.append(w("tute", who=w.who(who), face=face, n=arg))
    elif kind == "pass":
        events.append(w("pass", who=w.who(who)))
    elif kind == "bid":
        events.append(w("bid", who=w.who(who), n=arg))
    elif kind == "trump":
        events.append(w("names_trump", who=w.who(who), suit=w.suit(arg)))
    else:
        events.append(f"{w.who(who)}: {action}")
    events += _draws(who, kind, before, st, seat, w)
    for s, (now, then) in enumerate(zip(st.lost, before["lost"])):  # private to the seat that lost it
        if now != then and (seat is None or seat == s):
            events.extend(w("lost_cante", who=w.who(s), suit=w.suit(SUIT[c])) for c in cards_list(now & ~then))
    return events, tags, won

