"""Matches and gauntlets: "is B better than A?" on duplicate blocks, decided by an SPRT.

A *pairing* is a challenger B against an opponent A (a match: its two entrants; a gauntlet: each
challenger against each other entrant). Its games come in duplicate blocks, in a fixed order: deal 0
of every variant, then deal 1, ... up to ``deals``. In a block one deck order is played once per seat
rotation: two seats, A and B swap; pairs, the sides swap; three to six seats, A, B and copies of the
``field`` bot rotate through every seat. A block scores, for B, 1 a game B's side ranks above A's, 0.5 a
tie, 0 below (``arena.result.versus`` of the two sides' ranks). Where the dealer sits out (cabrero with
5 or 6) the games in which A or B dealt compare nothing and are left out of the block: a block of
cabrero-5 counts three games of its five.

The decision is taken on complete blocks in schedule order, never in the order games finish: after
every stored batch each pairing folds the next blocks whose games are all stored, one by one, and
stops at the first block after which the LLR (``sprt.Sprt``, summed over the variants: their blocks
are independent samples under the same Elo hypothesis) crosses a bound. So the same config and seed
stop at the same block with any number of workers, and a resumed run reaches the same decision. Games
that finish after a pairing's decision are stored but never counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Container, Iterator, Sequence

from arena import GameResult
from arena.result import thrown_in, versus

from leagues.tournament.config import FIELD, TournamentConfig
from leagues.tournament.schedule import GameSpec, deal_games
from leagues.tournament.sprt import INCONCLUSIVE, Estimate, Sprt, estimate_values


@dataclass(frozen=True)
class Pairing:
    index: int
    a: str  # the reference (the opponent)
    b: str  # the challenger, whose Elo difference is measured


def pairings(cfg: TournamentConfig) -> list[Pairing]:
    players = [e.name for e in cfg.entrants if e.name != FIELD]
    if cfg.format == "match":
        return [Pairing(0, players[0], players[1])]
    out: list[Pairing] = []
    for b in cfg.challengers:
        for a in players:
            if a not in cfg.challengers:
                out.append(Pairing(len(out), a, b))
    return out


def units_of(cfg: TournamentConfig, vi: int, p: Pairing) -> tuple[str, ...]:
    """The table's units: B and A, then the field for the other sides (B first: rotation 0 seats B at the
    first side)."""
    sides = cfg.variants[vi].sides
    return (p.b, p.a) + (FIELD,) * (sides - 2)


def block_specs(cfg: TournamentConfig, p: Pairing, d: int, vi: int) -> list[GameSpec]:
    """The games of one block: deal ``d`` of variant ``vi`` for pairing ``p`` (its table number)."""
    return deal_games(cfg, vi, 1, p.index, units_of(cfg, vi, p), d)


def blocks(cfg: TournamentConfig, p: Pairing) -> Iterator[tuple[int, int, int]]:
    """(block number, deal, variant) of a pairing, in schedule order."""
    n = 0
    for d in range(cfg.deals):
        for vi in range(len(cfg.variants)):
            yield n, d, vi
            n += 1


def game_score(result: GameResult, seats: Sequence[str], b: str, a: str) -> float | None:
    """B's score in one game against A: its side ranks above A's (1), with it (0.5), below (0)
    (``arena.result.versus``); None where A or B dealt and sat the deal out, or everyone passed (a
    subastado deal thrown in): they met in no card."""
    if thrown_in(result) or result.sit_out is not None and seats[result.sit_out] in (a, b):
        return None
    rb = min(result.ranks[s] for s, name in enumerate(seats) if name == b)
    ra = min(result.ranks[s] for s, name in enumerate(seats) if name == a)
    return versus(rb, ra)


@dataclass
class PairingState:
    """The count of one pairing: the blocks folded so far, per variant, and the decision once taken."""
    pairing: Pairing
    labels: list[str]
    #: per variant label: counts[k] blocks in which B scored k / 2
    counts: dict[str, list[int]] = field(default_factory=dict)
    values: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    folded: int = 0
    #: of the blocks folded, those with nothing to count (``skip``)
    skipped: int = 0
    llr: float = 0.0
    verdict: str = INCONCLUSIVE
    decided_at: int | None = None

    def fold(self, label: str, games: int, score: float, sprt: Sprt | None) -> None:
        counts = self.counts.setdefault(label, [0] * (2 * games + 1))
        counts[round(score * 2)] += 1
        self.values.append(score / games)
        self.games.append(games)
        self.folded += 1
        if sprt is not None:
            self.llr = sum(sprt.llr(c) for c in self.counts.values())
            self.verdict = sprt.verdict(self.llr)
            if self.verdict != INCONCLUSIVE:
                self.decided_at = self.folded

    def skip(self) -> None:
        """Pass a block with nothing to count: one game (not duplicate) that A or B sat out as the
        dealer, or a subastado block with a deal everyone passed (the other rotation alone would count
        the cards, not the players, and a block of other size has no place in the distribution). It is
        folded, in order, but moves no count."""
        self.folded += 1
        self.skipped += 1

    @property
    def decided(self) -> bool:
        return self.decided_at is not None

    def estimate(self) -> Estimate:
        g = sum(self.games) / len(self.games) if self.games else 2.0
        return estimate_values(self.values, g)

    def distribution(self) -> str:
        """Blocks by B's score, per variant: the analogue of fastchess's ``Ptnml(0-2)``."""
        parts = []
        for label, c in self.counts.items():
            g = (len(c) - 1) // 2
            parts.append(f"{label} Ptnml(0-{g}): {', '.join(map(str, c))}")
        return "; ".join(parts)


class MatchMonitor:
    """Every pairing's count, folded from stored results in schedule order."""

    def __init__(self, cfg: TournamentConfig) -> None:
        self.cfg = cfg
        self.states = [PairingState(p, [v.label for v in cfg.variants]) for p in pairings(cfg)]
        self._order = {s.pairing.index: list(blocks(cfg, s.pairing)) for s in self.states}
        self.results: dict[str, tuple[GameResult, tuple[str, ...]]] = {}

    def add(self, game_id: str, result: GameResult, seats: Sequence[str]) -> None:
        self.results[game_id] = (result, tuple(seats))

    def advance(self) -> None:
        """Fold, per pairing, every next block whose games are all stored, until one is missing or the
        pairing is decided."""
        for st in self.states:
            order = self._order[st.pairing.index]
            while not st.decided and st.folded < len(order):
                _, d, vi = order[st.folded]
                specs = block_specs(self.cfg, st.pairing, d, vi)
                if any(g.id not in self.results for g in specs):
                    break
                scores = [game_score(*self.results[g.id], st.pairing.b, st.pairing.a) for g in specs]
                met = [x for x in scores if x is not None]
                if any(thrown_in(self.results[g.id][0]) for g in specs):
                    st.skip()  # a rotation thrown in: what is left of the block is no duplicate comparison
                elif met:
                    st.fold(self.cfg.variants[vi].label, len(met), sum(met), self.cfg.sprt)
                else:
                    st.skip()

    @property
    def all_decided(self) -> bool:
        return all(st.decided for st in self.states)

    def todo(self, stored: Container[str]) -> Iterator[GameSpec]:
        """The games not stored yet, block by block in schedule order (deal, pairing, variant), skipping
        the pairings decided by the time the executor asks for more."""
        for d in range(self.cfg.deals):
            for st in self.states:
                if st.decided:
                    continue
                for vi in range(len(self.cfg.variants)):
                    for spec in block_specs(self.cfg, st.pairing, d, vi):
                        if spec.id not in stored:
                            yield spec

    def planned(self) -> int:
        return sum(len(block_specs(self.cfg, st.pairing, 0, vi)) for st in self.states
                   for vi in range(len(self.cfg.variants))) * self.cfg.deals


def monitor_of_store(cfg: TournamentConfig, rows: Sequence[object]) -> MatchMonitor:
    """The monitor as the stored games make it (a resumed run, ``tute leaderboard``, ``tute match``)."""
    m = MatchMonitor(cfg)
    for g in rows:
        m.add(g.id, g.result, g.seats)  # type: ignore[attr-defined]
    m.advance()
    return m


def summary_lines(cfg: TournamentConfig, m: MatchMonitor) -> list[str]:
    """The match summary, in the spirit of fastchess: per pairing, blocks and games counted, B's score,
    Elo and normalized Elo with 95% intervals, LOS, the block distribution, and the SPRT."""
    out = []
    for st in m.states:
        p = st.pairing
        e = st.estimate()
        left = f" ({st.skipped} more with nothing to count)" if st.skipped else ""
        head = f"{p.b} vs {p.a}: {st.folded - st.skipped} blocks{left}, {sum(st.games)} games, score {e.score:.4f}"
        out.append(head)
        out.append(f"  {e.text()}")
        out.append(f"  {st.distribution()}" if st.counts else "  no complete block yet")
        if cfg.sprt is not None:
            s = cfg.sprt
            where = f" at block {st.decided_at}" if st.decided else ""
            out.append(f"  SPRT ({s.model}, elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}): "
                       f"LLR {st.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) {st.verdict}{where}")
    return out
