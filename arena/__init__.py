"""tute-arena's referee: one game of Tute, exactly by the rules, seen by each seat only as it may be.

The public API, in the order a game uses it: ``get_variant`` / ``VARIANTS`` for the rules,
``GameState.new`` to deal, ``legal_actions`` / ``apply`` to play, ``PlayerView`` for what a seat sees,
``play_game`` to drive players, ``GameRecord`` / ``replay`` to store and verify.
"""

from .cards import NAMES, SUITS, card, card_name, cards_list, parse_card
from .match import BotFailure, Player, derive_seed, play_game, shuffled_deck
from .record import GameRecord, ReplayError, replay
from .result import Forfeit, GameResult
from .state import GameState, IllegalAction
from .variants import VARIANTS, Variant, VariantError, get_variant
from .view import PlayerView

__version__ = "0.1.0"

__all__ = [
    "NAMES", "SUITS", "card", "card_name", "cards_list", "parse_card", "BotFailure", "Player", "derive_seed", "play_game",
    "shuffled_deck", "GameRecord", "ReplayError", "replay", "Forfeit", "GameResult", "GameState",
    "IllegalAction", "VARIANTS", "Variant", "VariantError", "get_variant", "PlayerView", "__version__",
]
