"""Exact resampling: a resampled state gives the player the same information, and its hidden
cards follow the exact posterior marginals of the player's knowledge base."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
stats = pytest.importorskip("scipy.stats")

from deduce.apps.openspiel import load_game  # noqa: E402
from deduce.apps.openspiel.resample import resample  # noqa: E402
from deduce.errors import NotSupported  # noqa: E402
from deduce.games.clue.rules import Accuse, ViewExtra  # noqa: E402


def midgame(moves: int, seed: int, players: int = 3):
    """A Clue game after ``moves`` random moves without accusations (seeded)."""
    game = load_game("clue", players=players)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
    for _ in range(moves):
        legal = [a for a in state.legal_actions() if not isinstance(game.actions.decode(a), Accuse | ViewExtra)]
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return game, state


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_resampled_states_give_the_player_the_same_information(seed):
    game, state = midgame(24, seed)
    player = state.current_player()
    for p in {player, (player + 1) % 3}:
        want = state.information_state_string(p)
        hand = state.engine.hands[p]
        worlds = set()
        for k in range(6):
            new = resample(state, p, np.random.default_rng(k))
            assert new.information_state_string(p) == want
            assert new.engine.hands[p] == hand
            assert new.current_player() == state.current_player()
            worlds.add(tuple(new.engine.world()))
        assert len(worlds) > 1  # the hidden cards really are redrawn


def test_openspiel_resample_from_infostate_is_the_same_resampler():
    _, state = midgame(10, 5)
    p = state.current_player()
    new = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert new.information_state_string(p) == state.information_state_string(p)
    assert new.history() != state.history() or new.engine.world().tolist() == state.engine.world().tolist()


def test_resampling_a_sampled_game_is_refused():
    game = load_game("mafia-code")
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(NotSupported, match="explicit deal"):
        resample(state, 0, np.random.default_rng(0))


@pytest.mark.slow
def test_hidden_cards_follow_the_exact_marginals():
    """Chi-square per unsettled card over 300 resamples against the exact counter's marginals
    (Bonferroni over the cards)."""
    import solvers

    game, state = midgame(18, 7)
    p = state.current_player()
    kb = game.deduce.knowledge(state.deduce_observation(p))
    exact = solvers.get("exact").marginals(kb)
    n = 300
    counts = np.zeros_like(exact)
    for k in range(n):
        world = resample(state, p, np.random.default_rng(1000 + k)).engine.world()
        counts[np.arange(len(world)), world] += 1
    unsettled = [c for c in range(len(exact)) if (exact[c] > 0).sum() > 1]
    assert unsettled
    pvalues = []
    for c in unsettled:
        live = exact[c] > 0
        assert counts[c][~live].sum() == 0  # never a location the player has ruled out
        pvalues.append(stats.chisquare(counts[c][live], n * exact[c][live]).pvalue)
    assert min(pvalues) > 0.001 / len(unsettled), (min(pvalues), len(unsettled))
