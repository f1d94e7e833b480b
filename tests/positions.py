"""Hand-built positions for scenario tests.

``deal_state`` builds a real deal from the hands a test names (the deck order is made to deal them);
``position`` builds a strict-phase position directly from small hands, for the follow/beat/trump
duties, and then plays the cards of the trick so far through the referee itself.
"""

from __future__ import annotations

from typing import Sequence

from arena import GameState, get_variant, parse_card
from arena.cards import BIT, NO_CARD, deck as full_deck, mask_of, parse_suit
from arena.variants import Variant


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def deck_for(variant: Variant, hands: Sequence[str], dealer: int = 0, trump_card: str | None = None,
             stock: str = "") -> list[int]:
    """A deck order whose deal gives exactly ``hands`` (full hands, one string per seat).

    Two players: ``trump_card`` is turned up and ``stock`` (top first) comes next; the rest of the pile
    follows in card order. More players: ``trump_card`` must be in the dealer's hand and is dealt last.
    """
    n = variant.players
    hs = [cards(h) for h in hands]
    h = variant.hand_size
    assert all(len(x) == h for x in hs), f"each hand needs {h} cards"
    if not variant.draw_pile and trump_card is not None:
        t = parse_card(trump_card)
        assert t in hs[dealer], "the trump card is the dealer's last card"
        hs[dealer].remove(t)
        hs[dealer].append(t)
    first = (dealer + 1) % n
    order = [hs[(first + i) % n][i // n] for i in range(h * n)]
    if variant.draw_pile:
        t = parse_card(trump_card) if trump_card else None
        top = cards(stock)
        used = set(order) | set(top) | ({t} if t is not None else set())
        rest = [c for c in full_deck(40) if c not in used]
        if t is None:
            t = rest.pop()
        order += [t] + top + rest
    elif variant.dead_card:
        rest = [c for c in full_deck(variant.deck_size) if c not in set(order)]
        order += rest
    assert sorted(order) == sorted(full_deck(variant.deck_size)), "hands and pile must use the deck exactly once"
    return order


def deal_state(variant: str | Variant, hands: Sequence[str], dealer: int = 0, trump_card: str | None = None,
               stock: str = "", **opts: object) -> GameState:
    v = get_variant(variant) if isinstance(variant, str) else variant
    v = v.replace(**opts) if opts else v
    return GameState.new(v, deck_for(v, hands, dealer, trump_card, stock), dealer)


def position(variant: str, hands: Sequence[str], trump: str, leader: int = 0, trick: str = "",
             strict: bool = True, **opts: object) -> GameState:
    """A position with the given (short, equal-length) hands, trump suit and leader, pile empty.

    The cards in ``trick`` are then played from the leader on through ``apply``, so they must be legal.
    """
    v = get_variant(variant, **opts)
    st = GameState.new(v, list(full_deck(v.deck_size)), (leader - 1) % v.players)
    hs = [mask_of(cards(h)) for h in hands]
    st.hands = hs
    st.initial_hands = tuple(hs)
    st.trump = parse_suit(trump)
    st.stock = ()
    st.stock_pos = 0
    st.face_up = NO_CARD
    st.strict = strict
    st.phase = 0
    st.pending = ()
    st.leader = st.current = leader
    st.total_tricks = max(bin(x).count("1") for x in hs)
    st._legal = None
    for c in trick.split():
        st.apply(f"play {c}")
    return st


def holds(state: GameState, seat: int, card_name: str) -> bool:
    return bool(state.hands[seat] & BIT[parse_card(card_name)])


def plays(state: GameState) -> set[str]:
    return {a[5:] for a in state.legal_actions() if a.startswith("play ")}
