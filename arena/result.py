"""The outcome of one deal, in the shape the game record stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class Forfeit:
    """A renuncio: the seat that broke a rule, failed or answered nonsense, and why."""
    seat: int
    reason: str  # illegal | timeout | crash | protocol
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "reason": self.reason, "detail": self.detail}


@dataclass(frozen=True)
class GameResult:
    #: per seat: card points of its tricks, its cantes, and the last-trick bonus if it took the last one
    points: tuple[int, ...]
    #: per seat, 0 best; partners share a rank and so does a shared place (competition ranking: 0 1 1 3)
    ranks: tuple[int, ...]
    reason: str  # points | tute | forfeit
    tute: dict[str, int] | None = None  # {"seat": s, "face": 12 or 11}
    forfeit: Forfeit | None = None

    @property
    def winner(self) -> tuple[int, ...]:
        return tuple(s for s, r in enumerate(self.ranks) if r == 0)

    def to_json(self) -> dict[str, Any]:
        return {"points": list(self.points), "ranks": list(self.ranks), "winner": list(self.winner),
                "tute": dict(self.tute) if self.tute else None,
                "forfeit": self.forfeit.to_json() if self.forfeit else None, "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameResult":
        f = data.get("forfeit")
        return cls(points=tuple(data["points"]), ranks=tuple(data["ranks"]), reason=data["reason"],
                   tute=dict(data["tute"]) if data.get("tute") else None,
                   forfeit=Forfeit(f["seat"], f["reason"], f.get("detail", "")) if f else None)


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Rank of each key: how many keys are strictly greater (so equal keys share a place)."""
    return [sum(1 for other in keys if other > k) for k in keys]
