"""Agents receive observations that lead nowhere near the state: no reference to it, to the
engine's random generator or to other players' views; and mutating what an observation holds
cannot change the game."""

import enum
import types

import numpy as np
import pytest

import deduce
from deduce.games.base import Game, Observation, State

ATOMS = (str, bytes, int, float, bool, complex, type(None), enum.Enum, range)


def reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through fields and containers (not through
    classes, modules or functions, which lead everywhere)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, ATOMS) or isinstance(obj, type | types.ModuleType | types.FunctionType | types.MethodType):
            continue
        if id(obj) in seen:
            continue
        seen[id(obj)] = obj
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif isinstance(obj, np.ndarray):
            continue
        else:
            if hasattr(obj, "__dict__"):
                stack.extend(vars(obj).values())
            for cls in type(obj).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
    return list(seen.values())


def states_mid_game(name: str, steps: int = 25):
    cls = deduce.games.game_class(name)
    game = deduce.make(name, num_players=cls.min_players)
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    return game, state


@pytest.mark.parametrize("name", deduce.game_names())
def test_observation_reaches_no_state_rng_or_other_view(name):
    game, state = states_mid_game(name)
    for p in range(game.num_players):
        obs = state.observation(p)
        found = reachable(obs)
        assert not any(isinstance(o, State | Game | np.random.Generator) for o in found)
        assert not any(isinstance(o, Observation) and o is not obs for o in found)


@pytest.mark.parametrize("name", deduce.game_names())
def test_observation_shares_no_mutable_object_with_the_state(name):
    game, state = states_mid_game(name)
    state_objects = {id(o) for o in reachable(state) if isinstance(o, list | dict | set | np.ndarray)}
    state_arrays = [o for o in reachable(state) if isinstance(o, np.ndarray)]
    for p in range(game.num_players):
        for o in reachable(state.observation(p)):
            if isinstance(o, list | dict | set):
                assert id(o) not in state_objects, f"{name}: observation shares a {type(o).__name__} with the state"
            if isinstance(o, np.ndarray):
                assert not any(np.shares_memory(o, a) for a in state_arrays)


@pytest.mark.parametrize("name", deduce.game_names())
def test_observation_is_frozen(name):
    game, state = states_mid_game(name, steps=3)
    obs = state.observation(state.current_player)
    with pytest.raises(AttributeError):
        obs.events = ()  # type: ignore[misc]
