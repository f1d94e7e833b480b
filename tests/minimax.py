"""A plain minimax over the referee itself, the truth the endgame solvers are held to.

Slow and simple on purpose: every node is a copied ``GameState`` and its ``legal_actions``, so nothing
of a solver's shortcuts (bounds, caches, bitmask rules) is in it. The seats of a side maximise
together; every seat declares what it can, as every bot here does: a Tute (it ends the deal), else
the cante in trumps, else the first cante offered.
"""

from __future__ import annotations

from arena import GameState
from bots.endgame import WIN


def declaration(legal: list[str], trump: int) -> str | None:
    """The declaring seat of the solvers' model: a Tute, else the cante in trumps, else the first cante."""
    tute = [a for a in legal if a.startswith("tute")]
    if tute:
        return tute[0]
    sings = [a for a in legal if a.startswith("sing")]
    return next((a for a in sings if "oceb".index(a[-1]) == trump), sings[0] if sings else None)


def minimax(s: GameState, me: int) -> int:
    """``me``'s side's value with every card known: ``WIN`` for a won deal, ``-WIN`` for a lost one, 0
    for a shared place, plus the side's point margin (a Tute is the win alone)."""
    team = s.rules.team
    if s.is_over:
        r = s.result_
        if len(set(r.ranks)) == 1:
            win = 0  # a shared place: the margin alone
        else:
            win = WIN if r.ranks[me] == 0 else -WIN
        if r.reason == "tute":
            return win
        return win + sum(p if team[seat] == team[me] else -p for seat, p in enumerate(s.points))
    legal = s.legal_actions()
    decl = declaration(legal, s.trump)
    if decl is not None or not any(a.startswith("play") for a in legal):
        t = s.copy()
        t.apply(decl or legal[0])
        return minimax(t, me)
    vals = []
    for a in legal:
        t = s.copy()
        t.apply(a)
        vals.append(minimax(t, me))
    return max(vals) if team[s.current] == team[me] else min(vals)
