"""Rule sets: one frozen ``Variant`` per way of playing, presets by name, overrides from TOML.

Every rule on which the sources disagree is a field here (RULES.md names them), so a tournament can
play any local custom by configuration and a game record carries the exact rules it was played under.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

TUTE_MODES = ("any_won_trick", "first_team_trick", "disabled")
CANTES_SCOPES = ("player", "team")


class VariantError(ValueError):
    """A rule option that does not exist or does not fit; the message names the option."""


@dataclass(frozen=True)
class Variant:
    name: str
    players: int = 2
    pairs: bool = False
    #: Two-player games: cards left after the deal form a face-down pile (baceta) with the trump
    #: card face up under it; each trick is followed by draws.
    draw_pile: bool = True
    #: Cards per hand at the deal. Without a draw pile the whole deck is dealt (deck // players).
    hand_size: int = 6
    #: 3 players: 36 cards (no 2s, 12 each) or 40 (13 each, the last card face up and dead).
    three_player_deck: int = 36
    #: habanero: while the pile lasts, a trump lead must be followed with a trump if you hold one.
    follow_trump_lead_in_stock: bool = False
    must_beat_led_after_trumped: bool = False
    undertrump_required: bool = False
    partner_exemption: bool = False
    exchange_seven: bool = True
    exchange_two: bool = True
    forty_first: bool = True
    cantes_scope: str = "player"
    cantes_after_stock: bool = True
    tute_mode: str = "any_won_trick"
    tute_from_deal: bool = True
    last_trick_bonus: int = 10
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise VariantError(f"players: {self.players} is not supported (2 to 4)")
        if self.pairs and self.players != 4:
            raise VariantError("pairs: only with 4 players")
        if self.draw_pile and self.players != 2:
            raise VariantError("draw_pile: only with 2 players")
        if self.three_player_deck not in (36, 40):
            raise VariantError(f"three_player_deck: must be 36 or 40, not {self.three_player_deck}")
        if self.tute_mode not in TUTE_MODES:
            raise VariantError(f"tute_mode: must be one of {', '.join(TUTE_MODES)}, not {self.tute_mode!r}")
        if self.cantes_scope not in CANTES_SCOPES:
            raise VariantError(f"cantes_scope: must be one of {', '.join(CANTES_SCOPES)}, not {self.cantes_scope!r}")
        if self.draw_pile:
            if not 1 <= self.hand_size <= 19:
                raise VariantError(f"hand_size: {self.hand_size} does not fit a 40-card deck for two")
        elif self.hand_size != self.deck_size // self.players:
            raise VariantError(f"hand_size: without a draw pile every card is dealt, so it must be "
                               f"{self.deck_size // self.players}, not {self.hand_size}")
        if self.last_trick_bonus < 0:
            raise VariantError("last_trick_bonus: must not be negative")

    @property
    def deck_size(self) -> int:
        return self.three_player_deck if self.players == 3 else 40

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        if self.pairs:
            return ((0, 2), (1, 3))
        return tuple((s,) for s in range(self.players))

    @property
    def dead_card(self) -> bool:
        """Three players with 40 cards: the 40th card only shows trump and is never played."""
        return not self.draw_pile and self.deck_size % self.players != 0

    def options(self) -> dict[str, Any]:
        """Every rule option by name (not the name or description): what a record stores."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in ("name", "description")}

    def replace(self, **opts: Any) -> "Variant":
        """A custom variant from overrides (e.g. a ``[variants.options]`` TOML table).

        Unknown options and values of the wrong type are refused with the option's name. Without a draw
        pile ``hand_size`` follows the deck unless it is given.
        """
        known = {f.name: f for f in dataclasses.fields(self)}
        for key, value in opts.items():
            if key not in known:
                raise VariantError(f"{key}: unknown rule option (known: {', '.join(sorted(self.options()))})")
            expected = type(getattr(self, key))
            if type(value) is not expected:
                raise VariantError(f"{key}: expected {expected.__name__}, got {type(value).__name__} {value!r}")
        new = dict(opts)
        draw = new.get("draw_pile", self.draw_pile)
        if not draw and "hand_size" not in new:
            players = new.get("players", self.players)
            size = new.get("three_player_deck", self.three_player_deck) if players == 3 else 40
            new["hand_size"] = size // players
        return dataclasses.replace(self, **new)

    @classmethod
    def from_options(cls, name: str, options: Mapping[str, Any]) -> "Variant":
        """Rebuild the exact rules a record names, whatever the presets say today."""
        try:
            return cls(name=name, **dict(options))
        except TypeError as exc:
            raise VariantError(f"options: {exc}") from None


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("tute-2", players=2, hand_size=6,
                description="the classic game for two: 6 cards, draw pile, trump card face up"),
        Variant("habanero", players=2, hand_size=8, follow_trump_lead_in_stock=True, tute_mode="disabled",
                tute_from_deal=False,
                description="two players, 8 cards; a trump lead must be followed while the pile lasts; no Tute"),
        Variant("tute-3", players=3, draw_pile=False, hand_size=12,
                description="three players, 36 cards (no 2s), 12 each, strict play from the first trick"),
        Variant("tute-4", players=4, draw_pile=False, hand_size=10,
                description="four players each for themselves, 10 cards each"),
        Variant("tute-4-pairs", players=4, pairs=True, draw_pile=False, hand_size=10,
                description="four players in pairs (0+2 against 1+3), 10 cards each"),
    )
}


def get_variant(name: str, **opts: Any) -> Variant:
    """A preset by name, with overrides; the error lists the presets."""
    try:
        base = VARIANTS[name]
    except KeyError:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})") from None
    return base.replace(**opts) if opts else base
