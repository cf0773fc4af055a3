"""Replay logs reproduce every registered game's final state exactly."""

import json

import numpy as np
import pytest

import deduce
from deduce import LogError
from deduce.replay import load_replay, save_replay


def random_game(name: str, seed: int, max_actions: int = 400):
    cls = deduce.games.game_class(name)
    game = deduce.make(name, num_players=cls.min_players)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not state.is_terminal() and len(actions) < max_actions:
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
    return game, state, actions


@pytest.mark.parametrize("name", deduce.game_names())
def test_replay_reaches_the_same_final_state(name):
    game, state, actions = random_game(name, seed=4)
    log = json.loads(json.dumps(save_replay(game, 4, actions)))
    game2, state2 = load_replay(log)
    assert game2.config == game.config
    assert state2.events == state.events
    assert state2.is_terminal() == state.is_terminal()
    assert state2.returns() == state.returns()
    for p in range(game.num_players):
        assert state2.observation(p) == state.observation(p)


def test_illegal_action_names_its_index():
    game, state, actions = random_game("clue", seed=1, max_actions=10)
    log = save_replay(game, 1, actions)
    log["actions"].insert(3, {"type": "Show", "card": 0})  # nobody is refuting at that point
    with pytest.raises(LogError, match=r"action 3 \("):
        load_replay(log)


@pytest.mark.parametrize(
    "log, message",
    [
        ("{", "malformed JSON"),
        ({"format": "other"}, "not a deduce-replay"),
        ({"format": "deduce-replay/1", "game": "chess", "seed": 1}, "unknown game"),
        ({"format": "deduce-replay/1", "game": "clue", "seed": 1, "config": {"num_players": 9}}, "bad header"),
        ({"format": "deduce-replay/1", "game": "clue", "seed": 1, "actions": [{"type": "Teleport"}]}, "unknown action type"),
    ],
)
def test_bad_replays_are_clear_errors(log, message):
    with pytest.raises(LogError, match=message):
        load_replay(log if isinstance(log, str) else json.dumps(log))
