"""Conformance: OpenSpiel's own random simulation test where it takes the game, and its
Python-side equivalent (every check it makes, plus a serialisation round trip by history) for
the games with sampled chance (``pyspiel.random_sim_test`` serialises those through the game's
C++ random-generator state, which a Python game cannot provide)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from deduce.apps.openspiel import game_names  # noqa: E402

#: small configurations: a cut-off keeps each simulation short (the cut is part of the game)
SHORT = {"max_game_length": 20}


def test_openspiel_random_sim_test_on_explicit_clue():
    game = pyspiel.load_game("python_deduce_clue", {"players": 4})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ["python_deduce_clue_board", "python_deduce_clue_intrigue"])
def test_openspiel_random_sim_test_on_clue_on_the_board(name):
    """OpenSpiel's own C++ random simulation test on the board registrations (sampled chance:
    without its serialisation step, which needs the game's C++ random-generator state)."""
    game = pyspiel.load_game(name, {"players": 3, "max_game_length": 30})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_serialisation_round_trip_through_openspiel():
    game = pyspiel.load_game("python_deduce_clue")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(len(game.deduce.deck) + 5):
        actions = state.legal_actions()
        state.apply_action(actions[int(rng.integers(len(actions)))])
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.history() == state.history()
    assert state2.information_state_string(1) == state.information_state_string(1)


def replay(game, history):
    """A fresh state with ``history`` applied: deserialisation by history."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def random_simulation(game, rng: np.random.Generator) -> None:
    """OpenSpiel's RandomSimulation checks, in Python."""
    n = game.num_players()
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        copy = state.clone()
        assert str(copy) == str(state) and copy.history() == state.history()
        size = len(state.history())
        again = replay(game, state.history()) if size < 4 or size & (size - 1) == 0 else copy  # as OpenSpiel
        assert str(again) == str(state)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-9
            assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
            actions, probs = zip(*outcomes, strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        player = state.current_player()
        legal = state.legal_actions()
        assert legal and legal == sorted(set(legal))
        assert all(0 <= a < game.num_distinct_actions() for a in legal)
        assert sum(state.legal_actions_mask(player)) == len(legal)
        for other in range(n):
            if other != player:
                assert state.legal_actions(other) == []
            assert state.information_state_string(other) == again.information_state_string(other)
            assert len(state.observation_tensor(other)) == game.observation_tensor_size()
        action = legal[int(rng.integers(len(legal)))]
        assert state.action_to_string(player, action)
        state.apply_action(action)
        copy.apply_action(action)
        assert str(copy) == str(state)
        moves += 1
    assert moves <= game.max_game_length()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    returns = state.returns()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert [state.player_return(p) for p in range(n)] == returns


@pytest.mark.parametrize("name", game_names())
def test_python_random_simulation(name):
    random_simulation(pyspiel.load_game(name, SHORT), np.random.default_rng(0))


def test_sampled_chance_replays_the_same_game():
    """A sampled deal's outcome is its seed, so the same history is the same game."""
    game = pyspiel.load_game("python_deduce_mafia_code", {"rng_seed": 3})
    a, b = game.new_initial_state(), game.new_initial_state()
    assert a.chance_outcomes() != b.chance_outcomes()  # each new game draws a new seed
    a.apply_action(a.chance_outcomes()[0][0])
    c = replay(game, a.history())
    assert c.information_state_string(0) == a.information_state_string(0)
    again = pyspiel.load_game("python_deduce_mafia_code", {"rng_seed": 3}).new_initial_state()
    assert again.chance_outcomes() == b.chance_outcomes() or again.chance_outcomes() != a.chance_outcomes()
