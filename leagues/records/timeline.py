"""A game record as a sequence of frames: what happened at each action, as everyone or one seat saw it.

Both the text replay and the HTML page are drawn from these frames, so they cannot disagree. With a
seat, a frame holds only what that seat could know at that moment: its own hand, the table and the
public events; another seat's draw is "a card", never the card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena import GameRecord
from arena.cards import NAMES, NO_CARD, NO_SUIT, SUITS, cards_list
from arena.record import replay_steps

SUIT_WORDS = {"en": ("coins", "cups", "swords", "clubs"), "es": ("oros", "copas", "espadas", "bastos")}


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
    trump: str
    face_up: str | None
    stock_left: int
    points: list[int]
    over: bool = False
    result: str = ""
    tags: list[str] = field(default_factory=list)  # e.g. "trick" where a trick ended (for --step)


def _suit_word(suit: int, lang: str) -> str:
    if suit == NO_SUIT:
        return "ninguno" if lang == "es" else "none yet"
    return SUIT_WORDS.get(lang, SUIT_WORDS["en"])[suit]


def result_line(record: GameRecord, lang: str = "en") -> str:
    r = record.result
    teams = record.teams
    side_points = [sum(r.points[s] for s in t) for t in teams]
    winners = [t for t in teams if r.ranks[t[0]] == 0]
    who = " and ".join("+".join(f"seat {s}" for s in t) for t in winners)
    score = "-".join(str(p) for p in side_points)
    if r.reason == "tute" and r.tute:
        face = "kings" if r.tute["face"] == 12 else "knights"
        return f"{who} win{'s' if len(winners[0]) == 1 and len(winners) == 1 else ''} by Tute of {face} ({score})"
    if r.reason == "forfeit" and r.forfeit:
        f = r.forfeit
        return f"seat {f.seat} forfeits ({f.reason}: {f.detail}); {who} ranked first ({score})"
    verb = "wins" if len(winners) == 1 and len(winners[0]) == 1 else "win"
    if len(winners) > 1:
        verb = "share first place"
    return f"{who} {verb} on points {score} (reason: {r.reason})"


def frames(record: GameRecord, seat: int | None = None, lang: str = "en") -> list[Frame]:
    """Every frame of ``record``: the deal, then one per recorded action. Raises ReplayError if the
    record is not true to the rules (the replay is the verification)."""
    out: list[Frame] = []
    n = len(record.seats)
    state = None
    last_trick: list[tuple[int, str]] | None = None
    before: dict[str, Any] = {}  # the public facts just before the pending move

    def visible(s: int) -> bool:
        return seat is None or s == seat

    def snapshot(events: list[str], index: int, tags: list[str]) -> Frame:
        assert state is not None
        trick = [(s, NAMES[c]) for s, c in zip(state.trick_order(state.leader), state.trick)]
        return Frame(index=index, events=events,
                     hands=[[NAMES[c] for c in cards_list(h)] if visible(s) else None
                            for s, h in enumerate(state.hands)],
                     hand_sizes=[bin(h).count("1") for h in state.hands], trick=trick,
                     last_trick=last_trick if not trick else None, trick_number=len(state.tricks) + 1,
                     trump=_suit_word(state.trump, lang), face_up=NAMES[state.face_up] if state.face_up != NO_CARD else None,
                     stock_left=state.stock_left, points=list(state.points), over=state.is_over, tags=tags)

    pending: tuple[int, str] | None = None
    for index, st in replay_steps(record):
        state = st
        if index == 0:
            deal = [f"{record.variant}: dealer seat {record.dealer}, seats "
                    + ", ".join(f"{s} {name}" for s, name in enumerate(record.seats))]
            shown = f" ({record.trump_card} shows trump)" if record.trump_card else ""
            deal.append(f"trump: {_suit_word(st.trump, lang)}{shown}")
            for s in range(n):
                if visible(s):
                    deal.append(f"seat {s} holds " + " ".join(NAMES[c] for c in cards_list(st.hands[s])))
            out.append(snapshot(deal, 0, ["deal"]))
        else:
            assert pending is not None
            events, tags = _describe(pending, before, st, seat, lang)
            if "trick" in tags:
                leader, cards, _ = st.tricks[-1]
                last_trick = [(s, NAMES[c]) for s, c in zip(st.trick_order(leader), cards)]
            out.append(snapshot(events, index, tags))
        before = {"hands": list(st.hands), "tricks": len(st.tricks), "face_up": st.face_up, "leader": st.leader,
                  "points": list(st.points), "stock_left": st.stock_left}
        if index < len(record.actions):
            pending = record.actions[index]
    assert state is not None
    if record.result.forfeit is not None and not state.is_over:
        f = record.result.forfeit
        state.forfeit(f.seat, f.reason, f.detail)
    if out:
        out[-1].over = True
        out[-1].result = result_line(record, lang)
        out[-1].events.append("result: " + out[-1].result)
        out[-1].points = list(record.result.points)
    return out


def _describe(move: tuple[int, str], before: dict, st, seat: int | None, lang: str) -> tuple[list[str], list[str]]:
    who, action = move
    kind, _, arg = action.partition(" ")
    events: list[str] = []
    tags: list[str] = []
    n = st.n
    if kind == "play":
        events.append(f"seat {who} plays {arg}")
        if len(st.tricks) > before["tricks"]:
            winner = st.tricks[-1][2]
            gained = st.points[winner] - before["points"][winner]
            events.append(f"trick {len(st.tricks)}: seat {winner} wins it (+{gained}); score "
                          + "-".join(str(sum(st.points[s] for s in t)) for t in st.variant.teams))
            tags.append("trick")
            for s in [winner] + [x for x in range(n) if x != winner]:  # the winner draws first
                drawn = st.hands[s] & ~before["hands"][s]
                for c in cards_list(drawn):
                    if c == before["face_up"]:
                        events.append(f"seat {s} takes the face-up {NAMES[c]}")
                    elif seat is None or s == seat:
                        events.append(f"seat {s} draws {NAMES[c]}")
                    else:
                        events.append(f"seat {s} draws a card")
    elif kind == "sing":
        suit = SUITS.index(arg)
        pts = st.cantes[-1][2]
        events.append(f"seat {who} sings {_suit_word(suit, lang)}: 12{arg} and 11{arg} (+{pts})")
    elif kind == "exchange":
        _, gave, took = st.exchanges[-1]
        events.append(f"seat {who} exchanges {NAMES[gave]} for the face-up {NAMES[took]}")
    elif kind == "tute":
        face = "kings" if arg == "12" else "knights"
        events.append(f"seat {who} declares Tute of {face} (all four {arg}s)")
    elif kind == "pass":
        events.append(f"seat {who} passes")
    else:
        events.append(f"seat {who}: {action}")
    return events, tags
