"""AlibiAdlungState.redeal: a deal with the reshuffles' orders given (what a search redraws)."""

from __future__ import annotations

import numpy as np
import pytest

from deduce.errors import InvalidConfig
from deduce.games.alibi_adlung.rules import AlibiAdlungState
from deduce.games.registry import make


def play_to_first_reshuffle(state: AlibiAdlungState, rng: np.random.Generator, limit: int = 3000):
    """Random moves until the discard pile is first reshuffled; the moves made."""
    moves = []
    while not state.reshuffles and not state.is_terminal() and len(moves) < limit:
        legal = list(state.legal_actions())
        moves.append(legal[int(rng.integers(len(legal)))])
        state.apply(moves[-1])
    return moves


def test_a_reshuffle_comes_out_in_the_order_given():
    game = make("alibi-adlung", num_players=3)
    first = game.new_initial_state(5)
    deck, suspects = first.dealt_order
    again = AlibiAdlungState.from_deal(game, deck, suspects, seed=5)
    moves = play_to_first_reshuffle(again, np.random.default_rng(0))
    assert again.reshuffles, "random play reached no reshuffle"
    drawn = again.reshuffles[0]
    forced = tuple(reversed(drawn))
    redealt = AlibiAdlungState.redeal(game, deck, suspects, [forced], seed=5)
    for move in moves:
        redealt.apply(move)
    assert redealt.reshuffles[0] == forced != drawn
    assert redealt.dealt_order == (tuple(deck), tuple(suspects))
    plain = AlibiAdlungState.redeal(game, deck, suspects, [], seed=5)  # nothing given: the seed's own
    for move in moves:
        plain.apply(move)
    assert plain.reshuffles[0] == drawn


def test_redeal_refuses_an_order_with_a_card_twice():
    game = make("alibi-adlung", num_players=3)
    deck, suspects = game.new_initial_state(1).dealt_order
    with pytest.raises(InvalidConfig, match="distinct card ids"):
        AlibiAdlungState.redeal(game, deck, suspects, [(0, 0, 1)], seed=1)
