"""The protocol carries the auction and cabrón fields of a view, in JSON and in the plugin codec."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from arena import GameState, PlayerView, get_variant, shuffled_deck
from arena.hosting.codecs import PickleDecoder, PickleEncoder
from arena.protocol import ViewEncoder, view_from_json


@pytest.mark.parametrize("name", ["subastado", "subastado-3", "cabron", "cabrero-5", "tute-2", "tute-4-pairs"])
def test_views_of_every_phase_cross_both_codecs_unchanged(name: str) -> None:
    v = get_variant(name)
    for seed in range(15):
        rng = random.Random(seed)
        st = GameState.new(v, shuffled_deck(v, seed), seed % v.players)
        enc, penc, pdec = ViewEncoder(), PickleEncoder(), PickleDecoder()
        while not st.is_over:
            view = PlayerView.of(st, st.current_player)
            data = json.loads(enc.view_json(view))
            assert data == view.to_json()
            assert view_from_json(data, v) == view
            framed = penc.act_message(view, 1000)
            assert pdec.view(pickle.loads(framed[4:])) == view
            st.apply(rng.choice(st.legal_actions()))
