"""The corpus of hard states: every game has one, every state loads, and the world counts
stored with it (where ``auto`` counts in time) still come out."""

from __future__ import annotations

from pathlib import Path

import pytest

import solvers
from deduce.cli.bench import load_states
from deduce.games.registry import BUILTIN_GAMES

CORPUS = Path(__file__).parents[2] / "benchmarks" / "hard_states"


@pytest.mark.parametrize("game", sorted(BUILTIN_GAMES))
def test_every_game_has_hard_states_that_load(game):
    states = load_states(CORPUS / game)
    assert len(states) >= 4
    for st in states:
        assert st.game == game
        assert st.kb.num_cards > 0 and "seed" in st.meta and "seconds" in st.meta


COUNTED = [(g, st) for g in sorted(BUILTIN_GAMES) for st in load_states(CORPUS / g) if "worlds" in st.meta]


@pytest.mark.slow
@pytest.mark.parametrize("game, state", COUNTED, ids=[st.name for _, st in COUNTED])
def test_stored_world_counts_still_come_out(game, state):
    assert solvers.get("auto").count(state.kb) == state.meta["worlds"]
