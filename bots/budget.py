"""When one ``search`` decision stops sampling worlds: on work counted the same on every machine, with the
wall clock only as a safety net.

A budget on the clock makes a decision depend on the machine: the same game stops at another world on a
slower or busier one, so a tournament would not replay, nor give the same table with one worker or two.
A chess engine's tester gets reproducible games from a node limit instead of a time limit; ``Work`` is
that for ``search``: each world, each card a playout may play (the cards left when it starts) and each
node the exact solver visits are counted at what they cost on the reference machine (``COST``, measured
by ``benchmarks/work_cost.py``), so the count tracks the time there, and a decision ended by it replays
identically anywhere. The clock still ends a decision that would break a host's move limit (a slow or
overloaded machine, a tight tournament limit): that decision, and only it, depends on the machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

if TYPE_CHECKING:
    from arena import PlayerView


class Cost(NamedTuple):
    """Microseconds on the reference machine (``benchmarks/work_cost.py`` measures them again)."""

    #: dealing one world for the bitmask playouts, the inference's weighing included
    deal: float
    #: one card of a bitmask playout (``bots/playout.py``)
    card: float
    #: one node of the exact solver at a playout's leaf (``bots/endgame.py``)
    node: float
    #: one world made a referee state (``GameState.from_view``)
    state: float
    #: one card of a playout on the referee (``bots/referee_playout.py``), its declarations included
    referee_card: float


#: fitted on the 2-core development VM (``benchmarks/work_cost.py --deals 12``, docs/search.md "Time");
#: changing them changes which world ends a decision, so every figure measured with them moves a little
COST = Cost(deal=80.0, card=2.5, node=2.8, state=125.0, referee_card=3.6)


def cost_us(tally: Sequence[int]) -> float:
    """What a tally of work (counts in ``Cost``'s order) costs on the reference machine."""
    return sum(n * c for n, c in zip(tally, COST))


def cards_left(view: "PlayerView") -> int:
    """The cards a playout from ``view`` may play at most (every hand and the pile): what one playout
    counts, whether it plays them all or stops earlier (at a leaf)."""
    return sum(view.hand_sizes) + view.stock_left


class Work:
    """One decision's budget: ``limit_ms`` of counted work, or the clock's ``deadline``, whichever
    comes first; checked between worlds, so a decision has at least one."""

    __slots__ = ("tally", "limit_us", "deadline", "clock", "by_clock")

    def __init__(self, limit_ms: float, deadline: float, clock: Callable[[], float]) -> None:
        #: the work done so far, per kind (a ``Cost`` of counts), for ``benchmarks/work_cost.py``
        self.tally = [0, 0, 0, 0, 0]
        self.limit_us = limit_ms * 1000.0
        self.deadline = deadline
        self.clock = clock
        #: the clock ended it (the one stop that depends on the machine)
        self.by_clock = False

    def add(self, deals: int = 0, cards: int = 0, nodes: int = 0, states: int = 0, referee_cards: int = 0) -> None:
        t = self.tally
        t[0] += deals
        t[1] += cards
        t[2] += nodes
        t[3] += states
        t[4] += referee_cards

    @property
    def spent_us(self) -> float:
        return cost_us(self.tally)

    def over(self) -> bool:
        """Whether the decision must stop now."""
        if self.spent_us >= self.limit_us:
            return True
        if self.clock() >= self.deadline:
            self.by_clock = True
            return True
        return False
