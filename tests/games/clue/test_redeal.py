"""ClueState.redraw_intrigue: the intrigue cards redrawn in a copy (what a search redraws)."""

from __future__ import annotations

import numpy as np
import pytest

from deduce.errors import IllegalAction
from deduce.games.clue.intrigue import ANY_ROOM, CLOCK, DECLINE, IntrigueDrawn
from deduce.games.clue.rules import Accuse, ViewExtra
from deduce.games.registry import make


def bonus_drawn(seed: int = 0, limit: int = 600):
    """An intrigue game after random moves (no accusation) until a bonus card is drawn."""
    game = make("clue", board_mode="board", edition="intrigue", num_players=3)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        found = [i for i, e in enumerate(state.events) if isinstance(e, IntrigueDrawn) and e.card != CLOCK]
        if found:
            return state, found[0]
        legal = [a for a in state.legal_actions() if not isinstance(a, Accuse | ViewExtra)]
        state.apply(legal[int(rng.integers(len(legal)))])
    raise AssertionError("random play drew no bonus card")


def test_redraw_changes_the_kind_drawn_the_hands_and_the_deck_in_a_copy():
    state, i = bonus_drawn()
    drawn = state.events[i]
    other_kind = DECLINE if drawn.card == ANY_ROOM else ANY_ROOM
    bonus = [list(b) for b in state.bonus]
    bonus[drawn.player] = [other_kind if k == drawn.card else k for k in bonus[drawn.player]]
    deck = list(reversed(state.intrigue_deck)) if state.intrigue_deck is not None else None
    new = state.redraw_intrigue({i: other_kind}, bonus, deck)
    assert new.events[i].card == other_kind and state.events[i].card == drawn.card
    assert new.bonus == bonus and new.intrigue_deck == deck
    assert new.observation(drawn.player).intrigue_hand == tuple(bonus[drawn.player])
    watcher = (drawn.player + 1) % 3
    assert new.observation(watcher).events == state.observation(watcher).events  # unseen by the others


def test_redraw_refuses_an_event_that_is_not_a_bonus_card():
    state, i = bonus_drawn()
    with pytest.raises(IllegalAction, match="not a bonus card drawn"):
        state.redraw_intrigue({0: ANY_ROOM}, state.bonus, state.intrigue_deck)
    with pytest.raises(IllegalAction, match="not a bonus card"):
        state.redraw_intrigue({i: "joker"}, state.bonus, state.intrigue_deck)
    plain = make("clue").new_initial_state(0)
    with pytest.raises(IllegalAction, match="intrigue edition"):
        plain.redraw_intrigue({}, plain.bonus, None)
