"""``oracle``: ``search`` playing with the real hidden cards, the ceiling of what search could reach.

It is not a bot a tournament can enter: no view holds the hidden cards, so no referee gives them. A
benchmark plays it with ``play_open``, which hands it the real deal before each of its decisions; every
other seat is asked exactly as ``arena.play_game`` asks it (same ``new_game``, same views, forced moves
not asked), so a deal played with ``play_open`` and no oracle is the same game as through ``play_game``.
Its score against ``greedy`` on the same deals as ``search`` bounds what better sampling could add to
search: ``(search - 0.5) / (oracle - 0.5)`` is the share of that gap search closes
(``benchmarks/search_strength.py --oracle``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arena import PlayerView
from arena.match import game_infos
from arena.state import OVER, GameState
from arena.variants import Variant

from .search import SearchBot


class OracleBot(SearchBot):
    """``search`` whose every world is the real deal (perfect information). Only ``play_open`` can
    play it: ``choose`` without the deal seen first raises."""

    name = "oracle"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.inference = 1.0  # every world is the real deal: nothing to infer
        self._state: GameState | None = None

    def see(self, state: GameState) -> None:
        """The real deal, before a decision (``play_open``)."""
        self._state = state

    def deal(self, view: PlayerView) -> tuple[list[int], list[int]]:
        st = self._real(view)
        return list(st.hands), list(st.stock[st.stock_pos:])

    def world(self, view: PlayerView, dealt: tuple[list[int], list[int]] | None = None) -> GameState:
        return self._real(view).copy()

    def _real(self, view: PlayerView) -> GameState:
        st = self._state
        if st is None or st.current != view.seat or st.hands[view.seat] != view.hand:
            raise RuntimeError("oracle: no real deal for this decision (play it with bots.oracle.play_open)")
        return st


def play_open(variant: Variant, deck: Sequence[int], dealer: int, players: Sequence[Any], *, game_id: str = "",
              seed: int | None = None, names: Sequence[str] | None = None,
              watch: Callable[[GameState, PlayerView], None] | None = None) -> GameState:
    """One deal where every ``OracleBot`` sees the real deal before it decides (benchmarks only: no
    forfeits, a bot's exception propagates). ``watch`` is shown the real state and the view before
    each decision a seat is asked (benchmarks and tests that study positions). Returns the finished
    state."""
    state = GameState.new(variant, deck, dealer)
    infos = game_infos(state, game_id, seed, list(names) if names else [type(p).__name__ for p in players])
    for p, info in zip(players, infos):
        hook = getattr(p, "new_game", None)
        if hook is not None:
            hook(info)
    while state.phase != OVER:
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        seat = state.current
        p = players[seat]
        if isinstance(p, OracleBot):
            p.see(state)
        view = PlayerView.of(state, seat)
        if watch is not None:
            watch(state, view)
        state.apply(p.choose(view))
    return state
