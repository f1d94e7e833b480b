"""Rule sets: one frozen ``Variant`` per way of playing, presets by name, overrides from TOML.

Every rule on which the sources disagree is a field here (docs/rules.md names them), so a tournament can
play any local custom by configuration and a game record carries the exact rules it was played under.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field
from typing import Any, Mapping

from .actions import MAX_BID
from .rules import Rules

#: the largest integer a rule option may hold, either sign: every rule of the game counts far below
#: it, and the points it feeds are stored as SQLite's 64-bit integers
MAX_OPTION_INT = 1_000_000
TUTE_MODES = ("any_won_trick", "first_team_trick", "disabled")
CANTES_SCOPES = ("player", "team")
#: where trump comes from: the dealer's last card (or the turned card), an auction, or the tricks (cabrón)
TRUMP_RULES = ("card", "auction", "pair_tricks")
#: how a deal is decided: most points win; the contract of the auction; the deal has losers
SCORINGS = ("points", "bid", "losers")
EXCHANGE_TIMINGS = ("after_draw", "before_draw")
EXCHANGE_RULES = ("by_face", "seven", "two")
BID_SCORINGS = ("bid", "points")
TIES = ("last_trick", "draw")


#: every rule option: what it decides, in one line, and which source text its default follows (S0 the
#: formal rulebook, S2 the general article, S3 the online platform's pairs rules, S4 the encyclopedia on
#: cabrón and cabrero; docs/rules.md)
OPTION_NOTES: dict[str, tuple[str, str]] = {
    "players": ("seats at the table", ""),
    "pairs": ("four players in two partnerships, 0+2 against 1+3", ""),
    "draw_pile": ("two players: a face-down pile and a face-up trump card; draws after each trick", "S0"),
    "hand_size": ("cards per hand at the deal", "S0"),
    "three_player_deck": ("three players: 36 cards (no 2s) or 40 with a dead card", "S0 (S2: 40)"),
    "follow_trump_lead_in_stock": ("habanero: follow a trump lead while the pile lasts", ""),
    "must_beat_led_after_trumped": ("beat the led suit even after someone trumped", "S3 (S0, S2: true)"),
    "undertrump_required": ("void with only lower trumps: still play a trump", "S3 (S0: true)"),
    "partner_exemption": ("no duty to beat when the partner is winning", "S0, S3"),
    "exchange_seven": ("the 7 of trumps may take the face-up card", "S0"),
    "exchange_two": ("the 2 of trumps may take the face-up card", "S0"),
    "exchange_rule": ("which face-up cards the 7 and the 2 take", "S0 (S2: seven; regional: two)"),
    "exchange_timing": ("the exchange comes after the winner draws, or before", "S0 (S2: before_draw)"),
    "forty_first": ("with the 40 available, sing it before any 20", "S3"),
    "cantes_scope": ("one cante per trick per player, or per team", "S0 (S3: team)"),
    "cantes_after_stock": ("cantes allowed once the pile is empty", "S0"),
    "tute_mode": ("when a Tute may be declared: after any won trick, the team's first, never", "S0 (S3: first)"),
    "tute_from_deal": ("a Tute held from the deal wins before the first trick", "S0"),
    "tute_after_cante": ("a Tute allowed after the team sang", "S0 (S3: false)"),
    "skipped_cante_lost": ("a cante not made when it could be is lost for the deal",
                           "S3: true (S0 and S2 say nothing of it)"),
    "last_trick_bonus": ("points for the last trick (diez de últimas)", "S0, S3 (S2 counts 120 without it)"),
    "tie": ("tied on points: the last trick's side wins, or a draw", "S0, S3 (S2: either)"),
    "trump_rule": ("trump from a card, an auction or cabrón's pair tricks", ""),
    "follow_only": ("cabrón: the only duty is to follow suit", "S4"),
    "cantes": ("cantes in hand (off in cabrón, where pairs score in tricks)", "S4"),
    "scoring": ("most points win, the contract, or losers", ""),
    "bid_min": ("subastado: the lowest opening bid", "(S2: typically 70)"),
    "bid_step": ("subastado: the raise", "S2"),
    "bid_max": ("subastado: the highest bid", ""),
    "bid_scoring": ("subastado: a made contract scores the bid or the points taken", "(S2: points)"),
    "no_trick_loses": ("losers: a player with no trick loses instead of the middle", "S4"),
    "over_points_loses": ("losers: a player over this many points loses (0: off)", "S4 (cabrón)"),
    "capote_after_cante_loses": ("losers: a capote after a cante loses", "S4 (cabrero)"),
    "sit_out_from": ("the dealer sits out with this many players or more (0: never)", "(cabrero with 5, 6)"),
}


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
    #: ``card``: the dealer's last card (two players: the turned card) shows trump; ``auction``: the
    #: auction winner names it (subastado); ``pair_tricks``: none at first, a trick holding the 12 and 11
    #: of a suit makes that suit trump from the next trick (cabrón)
    trump_rule: str = "card"
    #: cabrón: the only duty is to follow the led suit (no duty to beat, none to trump)
    follow_only: bool = False
    #: cantes (20 / 40) in hand; off in cabrón, where the pairs score in the tricks instead
    cantes: bool = True
    scoring: str = "points"
    #: the auction (subastado): first bid, raise, the highest bid allowed (130 + 40 + 3 * 20: the most a
    #: side can take)
    bid_min: int = 60
    bid_step: int = 5
    bid_max: int = 230
    #: losers scoring (cabrón, cabrero): a player who takes no trick loses instead of the middle
    no_trick_loses: bool = True
    #: losers scoring: a player with more than this many points (and no capote) loses instead; 0 = off
    over_points_loses: int = 0
    #: losers scoring: a capote by a player who had sung makes that player the loser (cabrero)
    capote_after_cante_loses: bool = False
    #: the dealer sits the deal out (no cards, never acts) when there are at least this many players;
    #: 0 = never (cabrero: 5)
    sit_out_from: int = 0
    # ---- options added after the first record format: a record stores them only when they are not the
    # default (``options()``), so the records of every earlier rule set stay byte for byte as they were
    #: two players: the trick winner exchanges after drawing (S0) or before (S2: "después de ganar una
    #: baza, antes de robar del mazo")
    exchange_timing: str = field(default="after_draw", metadata={"later": True})
    #: which trump card takes the face-up card: ``by_face`` (S0: the 7 takes a 1, 3, 12, 11 or 10, the 2
    #: a 7, 6, 5 or 4), ``seven`` (S2: the 7 takes any), ``two`` (S2, regional: the 2 takes any)
    exchange_rule: str = field(default="by_face", metadata={"later": True})
    #: subastado: a made contract scores the bid (``bid``) or the points its side took (``points``, S2)
    bid_scoring: str = field(default="bid", metadata={"later": True})
    #: most points tied: the last trick's side wins (``last_trick``) or the tied sides share (``draw``, S2)
    tie: str = field(default="last_trick", metadata={"later": True})
    #: a Tute may be declared after the side sang (S3: not once anyone of the team sang a 20 or 40)
    tute_after_cante: bool = field(default=True, metadata={"later": True})
    #: a cante the player could make in a window and did not is lost for the deal (S3: "si omite hacer un
    #: anuncio, no podrá hacerlo más tarde")
    skipped_cante_lost: bool = field(default=False, metadata={"later": True})
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # a typo's huge number would overflow the store's 64-bit integers
            value = getattr(self, f.name)
            if type(value) is int and abs(value) > MAX_OPTION_INT:
                raise VariantError(f"{f.name}: {value} is out of range (-{MAX_OPTION_INT} to {MAX_OPTION_INT})")
        if not 2 <= self.players <= 6:
            raise VariantError(f"players: {self.players} is not supported (2 to 6)")
        if self.sit_out_from < 0:
            raise VariantError("sit_out_from: must not be negative")
        if not 2 <= self.active_players <= 5 or (self.players > 4 and not self.sits_out):
            raise VariantError(f"players: {self.players} play only when the dealer sits out (2 to 4 players "
                               f"in each deal, or 5 or 6 with sit_out_from)")
        if self.trump_rule not in TRUMP_RULES:
            raise VariantError(f"trump_rule: must be one of {', '.join(TRUMP_RULES)}, not {self.trump_rule!r}")
        if self.scoring not in SCORINGS:
            raise VariantError(f"scoring: must be one of {', '.join(SCORINGS)}, not {self.scoring!r}")
        if (self.trump_rule == "auction") != (self.scoring == "bid"):
            raise VariantError("scoring: 'bid' goes with trump_rule 'auction' and only with it")
        if self.trump_rule != "card" and self.draw_pile:
            raise VariantError(f"trump_rule: {self.trump_rule!r} needs all cards dealt (draw_pile = false)")
        if self.scoring == "losers" and (self.pairs or self.active_players < 3):
            if self.sits_out and self.players >= 3 and not self.pairs:
                raise VariantError(f"sit_out_from: {self.sit_out_from} makes the dealer of {self.players} sit "
                                   f"out, leaving {self.active_players}; scoring 'losers' needs 3 or more in a deal")
            raise VariantError("scoring: 'losers' needs 3 or more players each for themselves")
        if self.trump_rule == "auction" and not (1 <= self.bid_min <= self.bid_max <= MAX_BID
                                                 and self.bid_step >= 1):
            raise VariantError(f"bid_min, bid_step, bid_max: need 1 <= bid_min <= bid_max <= {MAX_BID} "
                               "and bid_step >= 1")
        if self.sits_out and self.scoring != "losers":
            raise VariantError("sit_out_from: a dealer sitting out needs scoring 'losers' (cabrero)")
        if self.over_points_loses < 0:
            raise VariantError("over_points_loses: must not be negative (0 turns the rule off)")
        if self.pairs and self.players != 4:
            raise VariantError("pairs: only with 4 players")
        if self.draw_pile and self.players != 2:
            raise VariantError("draw_pile: only with 2 players")
        if self.three_player_deck not in (36, 40):
            raise VariantError(f"three_player_deck: must be 36 or 40, not {self.three_player_deck}")
        if self.tute_mode not in TUTE_MODES:
            raise VariantError(f"tute_mode: must be one of {', '.join(TUTE_MODES)}, not {self.tute_mode!r}")
        for key, allowed in (("exchange_timing", EXCHANGE_TIMINGS), ("exchange_rule", EXCHANGE_RULES),
                             ("bid_scoring", BID_SCORINGS), ("tie", TIES)):
            if getattr(self, key) not in allowed:
                raise VariantError(f"{key}: must be one of {', '.join(allowed)}, not {getattr(self, key)!r}")
        if self.cantes_scope not in CANTES_SCOPES:
            raise VariantError(f"cantes_scope: must be one of {', '.join(CANTES_SCOPES)}, not {self.cantes_scope!r}")
        if self.draw_pile:
            if not 1 <= self.hand_size <= 19:
                raise VariantError(f"hand_size: {self.hand_size} does not fit a 40-card deck for two")
        elif self.hand_size != self.deck_size // self.active_players:
            raise VariantError(f"hand_size: without a draw pile every card is dealt, so it must be "
                               f"{self.deck_size // self.active_players}, not {self.hand_size}")
        if self.last_trick_bonus < 0:
            raise VariantError("last_trick_bonus: must not be negative")

    @property
    def sits_out(self) -> bool:
        """The dealer sits this variant's deals out (cabrero with 5 or 6)."""
        return 0 < self.sit_out_from <= self.players

    @property
    def active_players(self) -> int:
        """Players holding cards in a deal: all of them, or all but the dealer."""
        return self.players - 1 if self.sits_out else self.players

    @property
    def deck_size(self) -> int:
        return self.three_player_deck if self.active_players == 3 else 40

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        if self.pairs:
            return ((0, 2), (1, 3))
        return tuple((s,) for s in range(self.players))

    @property
    def dead_card(self) -> bool:
        """Three players with 40 cards: the 40th card only shows trump and is never played."""
        return not self.draw_pile and self.deck_size % self.active_players != 0

    @property
    def rules(self) -> Rules:
        """The rules kernel's tables for this variant (``arena.rules.Rules``), compiled on first use and
        kept with the variant, so every part that plays it reads the same seat order and duties."""
        compiled = self.__dict__.get("_rules")
        if compiled is None:
            compiled = Rules(self)
            object.__setattr__(self, "_rules", compiled)
        return compiled

    def settings(self) -> dict[str, Any]:
        """Every rule option by name with its value, defaults included (what ``tute variants`` shows)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("name", "description")}

    def options(self) -> dict[str, Any]:
        """Every rule option by name (not the name or description): what a record stores. Every game
        asks for it once per seat and once for its record, so it is built once per variant (a fresh
        copy each time: the caller may change it)."""
        cached = self.__dict__.get("_options")
        if cached is None:
            cached = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                      if f.name not in ("name", "description")
                      and not (f.metadata.get("later") and getattr(self, f.name) == f.default)}
            object.__setattr__(self, "_options", cached)
        return dict(cached)

    def replace(self, **opts: Any) -> "Variant":
        """A custom variant from overrides (e.g. a ``[variants.options]`` TOML table).

        Unknown options and values of the wrong type are refused with the option's name. Without a draw
        pile ``hand_size`` follows the deck unless it is given.
        """
        # name and description say which preset a variant came from; they are no rules to set
        known = {f.name: f for f in dataclasses.fields(self) if f.name not in ("name", "description")}
        for key, value in opts.items():
            if key not in known:
                raise VariantError(f"{key}: unknown rule option (known: "
                                   f"{', '.join(sorted(k for k in known if k not in ('name', 'description')))})")
            _check_type(key, value, type(getattr(self, key)))
        new = dict(opts)
        draw = new.get("draw_pile", self.draw_pile)
        if not draw and "hand_size" not in new:
            players = new.get("players", self.players)
            sit = new.get("sit_out_from", self.sit_out_from)
            active = players - 1 if 0 < sit <= players else players
            size = new.get("three_player_deck", self.three_player_deck) if active == 3 else 40
            new["hand_size"] = size // active if active else 0
        made = dataclasses.replace(self, **new)
        made._refuse_combinations()
        return made

    def _refuse_combinations(self) -> None:
        """Options that make no sense together, refused where a variant is made from a config or a
        command line (``replace``), not where a record is read (``from_options``): a record of such a
        variant, played before these were refused, still replays as it was played."""
        if not (1 <= self.bid_min <= self.bid_max <= MAX_BID and self.bid_step >= 1):  # in every variant: a
            # preset without an auction keeps them, and an option that turns one on must find them sound
            raise VariantError(f"bid_min, bid_step, bid_max: need 1 <= bid_min <= bid_max <= {MAX_BID} "
                               "and bid_step >= 1")
        if self.trump_rule == "auction" and (self.tute_mode != "disabled" or self.tute_from_deal):
            raise VariantError("tute_mode, tute_from_deal: a Tute has no score in an auction's deal (the "
                               "contract decides it): leave tute_mode 'disabled' with trump_rule 'auction'")
        if self.active_players == 3 and self.three_player_deck == 40 and self.trump_rule != "card":
            raise VariantError(f"three_player_deck: 40 leaves the 40th card out of the hands, to show trump; "
                               f"with trump_rule {self.trump_rule!r} nothing would show it (use 36)")
        if not self.cantes_after_stock and not self.draw_pile:
            raise VariantError("cantes_after_stock: false means no cante once the draw pile is gone; without a "
                               "pile (draw_pile = false) it would turn every cante off: leave it true "
                               "(cantes = false turns them off)")

    @classmethod
    def from_options(cls, name: str, options: Mapping[str, Any]) -> "Variant":
        """Rebuild the exact rules a record names, whatever the presets say today. Variants are
        immutable, so the rules of a given (name, options) are built once and shared: every record
        read asks for them."""
        try:
            # the values' types in the key too, in the keys' order: 6.0 == 6 and True == 1, and a hit
            # is not checked again
            items = sorted(options.items())
            key = (name, tuple(items), tuple([type(v) for _, v in items]))
            hash(key)
        except TypeError:  # an unhashable option value: let the constructor say what is wrong
            key = None
        if key is not None:
            found = _FROM_OPTIONS.get(key)
            if found is not None:
                return found
        types = _option_types()
        for option, value in options.items():
            if option in types:  # an unknown one: the constructor names it
                _check_type(option, value, types[option])
        try:
            v = cls(name=name, **dict(options))
        except TypeError as exc:
            raise VariantError(f"options: {exc}") from None
        if key is not None and len(_FROM_OPTIONS) < 1024:
            _FROM_OPTIONS[key] = v
        return v


def _check_type(key: str, value: Any, expected: type) -> None:
    """A rule option's value is of its field's type exactly (a bool is no int, 6.0 no hand size)."""
    if type(value) is not expected:
        try:
            shown = repr(value)
        except ValueError:  # an int past Python's 4,300 digits
            shown = "of more than 4,300 digits"
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise VariantError(f"{key}: expected {expected.__name__}, got {type(value).__name__} {shown}")


@functools.cache
def _option_types() -> dict[str, type]:
    """Each rule option's type, from the dataclass's own annotations (all plain: int, bool, str)."""
    return {k: t for k, t in typing.get_type_hints(Variant).items() if isinstance(t, type)}


#: ``Variant.from_options`` results, by (name, sorted options)
_FROM_OPTIONS: dict[tuple[str, tuple[tuple[str, Any], ...], tuple[type, ...]], Variant] = {}

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
        Variant("subastado", players=4, pairs=True, draw_pile=False, hand_size=10, trump_rule="auction",
                scoring="bid", tute_mode="disabled", tute_from_deal=False,
                description="four in pairs; an auction from 60 (step 5) names the declarer, who names trump and "
                            "leads; the declaring side scores +bid or -bid; no Tute"),
        Variant("subastado-3", players=3, draw_pile=False, hand_size=12, trump_rule="auction", scoring="bid",
                tute_mode="disabled", tute_from_deal=False,
                description="three players (36 cards); the auction winner plays alone against the other two"),
        Variant("cabron", players=3, draw_pile=False, hand_size=12, trump_rule="pair_tricks", follow_only=True,
                cantes=False, tute_mode="disabled", tute_from_deal=False, scoring="losers",
                over_points_loses=100,
                description="three players (36 cards), no trump at first, only follow suit; a trick with the 12 "
                            "and 11 of a suit scores 40 (later 20) and makes it trump; the middle loses"),
        Variant("cabron-4", players=4, draw_pile=False, hand_size=10, trump_rule="pair_tricks", follow_only=True,
                cantes=False, tute_mode="disabled", tute_from_deal=False, scoring="losers",
                over_points_loses=100, description="cabrón for four (40 cards, 10 each); the two middle lose"),
        Variant("cabrero", players=4, draw_pile=False, hand_size=10, tute_mode="disabled", tute_from_deal=False,
                scoring="losers", capote_after_cante_loses=True, sit_out_from=5,
                description="four players, trump card, cantes, strict play; the middle loses (a capote after "
                            "a cante loses); 3 to 6 players with -o players=N, the dealer sits out with 5 or 6"),
        Variant("cabrero-3", players=3, draw_pile=False, hand_size=12, tute_mode="disabled", tute_from_deal=False,
                scoring="losers", capote_after_cante_loses=True, sit_out_from=5,
                description="cabrero for three (36 cards, 12 each)"),
        Variant("cabrero-5", players=5, draw_pile=False, hand_size=10, tute_mode="disabled", tute_from_deal=False,
                scoring="losers", capote_after_cante_loses=True, sit_out_from=5,
                description="cabrero for five: the dealer sits out, four play 10 cards each"),
        Variant("cabrero-6", players=6, draw_pile=False, hand_size=8, tute_mode="disabled", tute_from_deal=False,
                scoring="losers", capote_after_cante_loses=True, sit_out_from=5,
                description="cabrero for six: the dealer sits out, five play 8 cards each"),
        Variant("tute-2-8", players=2, hand_size=8, exchange_timing="before_draw", exchange_rule="seven",
                tute_from_deal=False,
                description="two players, 8 cards (S2): free play while the pile lasts, the 7 of trumps takes the "
                            "face-up card before the draw, Tute allowed after a won trick"),
        Variant("tute-3-classic", players=3, draw_pile=False, hand_size=12, must_beat_led_after_trumped=True,
                undertrump_required=True,
                description="three players by the formal rulebook (S0): beat the led suit even after a trump, "
                            "trump (even lower) when void"),
        Variant("tute-4-classic", players=4, draw_pile=False, hand_size=10, must_beat_led_after_trumped=True,
                undertrump_required=True,
                description="four players each for themselves by the formal rulebook (S0)"),
        Variant("tute-4-pairs-online", players=4, pairs=True, draw_pile=False, hand_size=10, cantes_scope="team",
                tute_mode="first_team_trick", tute_from_deal=False, tute_after_cante=False,
                skipped_cante_lost=True,
                description="pairs as the online platform plays them (S3): one cante per team per trick, a cante "
                            "not made is lost, Tute only at the team's first trick and before it sang"),
    )
}


#: the options a preset had before a change of its rules (with the day of the change), newest first.
#: Its old games are still that preset's: an old tournament's export imports (``leagues.records``
#: checks each record against the preset as it is, or as it was), while a tournament begun before the
#: change is not resumed under it (``runner``)
PRESET_HISTORY: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "tute-2-8": (("2026-12-07", {"tute_from_deal": True}),),  # S2: a Tute after a won trick only
}


def past_presets(name: str, /, **opts: Any) -> list[Variant]:
    """Preset ``name`` as it was before each change of its rules (``PRESET_HISTORY``), with ``opts``."""
    return [VARIANTS[name].replace(**{**old, **opts}) for _, old in PRESET_HISTORY.get(name, ())]


def get_variant(name: str, /, **opts: Any) -> Variant:
    """A preset by name, with overrides; the error lists the presets."""
    try:
        base = VARIANTS[name]
    except KeyError:
        shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:57] + "..."
        raise VariantError(f"unknown variant {shown} (known: {', '.join(VARIANTS)})") from None
    return base.replace(**opts) if opts else base
