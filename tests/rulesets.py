"""The rule sets every conformance test runs over: every preset, plus option combinations that change
how play goes (strict duties, the partner exemption, the 40-card three-player deck, draw-pile options).

One list, so that a new preset or option is tested by every part (knowledge, playouts, codecs, records,
the timeline) the day it is added, instead of by whichever tests happened to name it.
"""

from __future__ import annotations

from arena import VARIANTS, get_variant
from arena.variants import Variant

OPTIONS: dict[str, Variant] = {
    "tute-3/40": get_variant("tute-3", three_player_deck=40),
    "tute-4/strict": get_variant("tute-4", undertrump_required=True, must_beat_led_after_trumped=True),
    "pairs/exempt": get_variant("tute-4-pairs", partner_exemption=True, cantes_scope="team",
                                tute_mode="first_team_trick"),
    "tute-2/options": get_variant("tute-2", hand_size=8, cantes_after_stock=False, exchange_two=False),
}

#: every preset by its name, then the option sets
RULESETS: dict[str, Variant] = {**VARIANTS, **OPTIONS}
