"""CrimeHotelState.redeal: the public re-deal of a game just dealt (what a search redraws)."""

from __future__ import annotations

import pytest

from deduce.errors import IllegalAction
from deduce.games.registry import make


def test_redeal_exchanges_cards_and_keeps_the_state_it_copies():
    game = make("crime-hotel")
    state = game.new_initial_state(3)
    a, b = state.hands[0][0], state.hands[1][0]
    other = state.redeal({a: b, b: a})
    assert b in other.hands[0] and a in other.hands[1]
    assert a in state.hands[0] and b in state.hands[1]  # the original is untouched
    assert sorted(other.hands[0]) == sorted(c for c in [*state.hands[0][1:], b])
    assert other.observation(0).hand != state.observation(0).hand
    assert other.observation(2) == state.observation(2)  # a seat that held neither sees the same
    hidden = state.hidden
    moved = other.redeal({hidden: a, a: hidden})
    assert moved.hidden == a and hidden in moved.hands[1]


def test_redeal_refuses_a_swap_that_is_not_a_permutation_or_comes_too_late():
    game = make("crime-hotel")
    state = game.new_initial_state(3)
    a, b = state.hands[0][0], state.hands[1][0]
    with pytest.raises(IllegalAction, match="among themselves"):
        state.redeal({a: b})
    later = state.clone()
    later.apply(list(later.legal_actions())[0])
    with pytest.raises(IllegalAction, match="right after its deal"):
        later.redeal({a: b, b: a})
