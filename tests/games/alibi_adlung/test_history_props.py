"""Alibi (Adlung) time-indexed knowledge over random games: the real history satisfies every
player's time-indexed knowledge base at every step, and the dedicated exact counter
(``solvers.timeline``) gives the same integers as ``chain`` and ``cpsat`` on that
knowledge base (small decks), and a positive probability to the real world on the full deck."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import solvers
from deduce.errors import TooLarge
from deduce.games.alibi_adlung.history import timeline, true_history
from deduce.games.alibi_adlung.rules import AlibiAdlungGame
from solvers.timeline import TimelineCounter
from tests.games.alibi_adlung.test_props import SMALL, random_play

COUNTER = TimelineCounter()


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), small=st.booleans())
@pytest.mark.slow
def test_the_real_history_satisfies_every_time_indexed_knowledge_base(n, seed, small):
    game = AlibiAdlungGame(num_players=min(n, 3) if small else n, **(SMALL if small else {}))
    n = game.num_players
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for step in range(150 if small else 400):
        if step % (3 if small else 25) == 0 or state.is_terminal():
            truth = true_history(state)
            assert np.array_equal(truth[-1], state.world())
            for p in [*range(n), None]:
                kb = game.knowledge(state.observation(p), exact_time=True)
                assert kb.epochs == len(truth)
                assert kb.consistent_with(truth), [kb.describe(c) for c in kb.violated(truth)]
        if state.is_terminal():
            break
        random_play(state, rng, 1)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 3), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 120),
       seat=st.integers(-1, 2))
def test_counter_equals_chain_on_a_small_deck(n, seed, steps, seat):
    game = AlibiAdlungGame(num_players=n, **SMALL)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    player = None if seat < 0 or seat >= n else seat
    obs = state.observation(player)
    exact = COUNTER.tallies(timeline(game, obs))
    assert exact == solvers.get("chain").tallies(game.knowledge(obs, exact_time=True))
    assert exact.total >= 1
    truth = state.world()
    assert all(exact.cells[c][truth[c]] > 0 for c in range(len(truth)))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 14), seat=st.integers(0, 1))
def test_counter_equals_cpsat_on_short_histories(seed, steps, seat):
    game = AlibiAdlungGame(num_players=2, **SMALL)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    obs = state.observation(seat)
    try:
        reference = solvers.get("cpsat").tallies(game.knowledge(obs, exact_time=True))
    except TooLarge:
        assume(False)
    assert COUNTER.tallies(timeline(game, obs)) == reference


@settings(max_examples=8, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
def test_counter_on_the_full_deck_keeps_the_real_world_possible(n, seed, steps):
    game = AlibiAdlungGame(num_players=n)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    p = state.current_player if not state.is_terminal() else 0
    obs = state.observation(p)
    post = COUNTER.posterior(timeline(game, obs))
    m = post.marginals()
    truth = state.world()
    assert (m[np.arange(len(truth)), truth] > 0).all()
    assert np.allclose(m.sum(axis=1), 1.0)
    assert np.allclose(m[:, :n].sum(axis=0), obs.hand_sizes)
    assert np.isclose(m[:, n].sum(), obs.deck_size)
    # every hand distribution sums to the number of worlds
    assert all(sum(d.values()) == post.total for d in post.hands)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300))
def test_without_voids_the_static_knowledge_with_reshuffle_facts_is_exact(n, seed, steps):
    """Only voids (and the redraw rule, switched off here) separate the static knowledge base
    with its reshuffle facts from the exact posterior: with neither, their marginals agree."""
    game = AlibiAdlungGame(num_players=n, redraw_all_special_hand=False)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    p = state.current_player if not state.is_terminal() else 0
    obs = state.observation(p)
    voids = [e for e in obs.events if getattr(e, "void", ()) and getattr(e, "player", p) != p]
    exact = COUNTER.marginals(timeline(game, obs))
    static = solvers.get("exact").marginals(game.knowledge(obs))
    if not voids:
        assert np.allclose(exact, static)
    without_facts = solvers.get("exact").marginals(game.knowledge(obs, cohorts=False))
    if not voids and not any(e.kind == "reshuffled" for e in obs.events):
        assert np.allclose(exact, without_facts)


@settings(max_examples=6, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
@pytest.mark.slow
def test_counter_answers_at_every_step_of_whole_games(n, seed):
    """Late positions (small blocks, big hands of one block) included."""
    game = AlibiAdlungGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        p = state.current_player
        m = COUNTER.marginals(timeline(game, state.observation(p)))
        assert np.allclose(m.sum(axis=1), 1.0)
        assert (m[np.arange(m.shape[0]), state.world()] > 0).all()
        random_play(state, rng, 1)
