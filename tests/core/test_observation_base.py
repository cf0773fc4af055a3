"""The base Observation carries what every game's observation has: seat names, the observer's
hand and every seat's hand size; no game redeclares them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import deduce
from deduce import Observation

SHARED = ("names", "hand", "hand_sizes")


def test_base_fields_have_defaults() -> None:
    fields = {f.name: f for f in dataclasses.fields(Observation)}
    for name in SHARED:
        assert fields[name].default == ()
    bare = Observation("g", None, 2, (), 0, (), False)
    assert (bare.names, bare.hand, bare.hand_sizes) == ((), (), ())


@pytest.mark.parametrize("name", deduce.game_names())
def test_every_game_fills_the_base_fields(name: str) -> None:
    game = deduce.make(name)
    state = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    for _ in range(8):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    obs_class = type(state.observation(0))
    own = obs_class.__dict__.get("__annotations__", {})
    assert not set(SHARED) & set(own), f"{obs_class.__name__} redeclares a base field"
    for seat in range(game.num_players):
        obs = state.observation(seat)
        assert obs.names == tuple(game.config.names)
        if name == "checkpoint-charlie":  # no hands of cards: the documented empty defaults
            assert obs.hand == () and obs.hand_sizes == ()
        else:
            assert len(obs.hand_sizes) == game.num_players
            assert len(obs.hand) == obs.hand_sizes[seat]
    spectator = state.observation(None)
    assert spectator.hand == () and spectator.names == tuple(game.config.names)
