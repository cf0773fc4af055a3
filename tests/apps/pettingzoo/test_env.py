"""The environment's behaviour: seeds, shapes, rewards, illegal moves, truncation, rendering."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import deduce  # noqa: E402
from deduce.apps import pettingzoo as pz  # noqa: E402
from deduce.apps.pettingzoo import clue_v0, mafia_code_v0  # noqa: E402
from deduce.errors import IllegalAction  # noqa: E402


def play(env, seed, rng):
    env.reset(seed=seed)
    rewards = {a: 0.0 for a in env.possible_agents}
    shapes = set()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        shapes.add(obs["observation"].shape)
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return rewards, shapes


def test_reset_seed_deals_the_engine_game_of_that_seed():
    env = clue_v0.raw_env(num_players=4)
    env.reset(seed=7)
    engine = deduce.make("clue", num_players=4).new_initial_state(7)
    assert env.game_state.observation(2).events == engine.observation(2).events
    first = env.observe("player_0")["observation"].copy()
    env.reset(seed=8)
    env.reset(seed=7)
    assert np.array_equal(env.observe("player_0")["observation"], first)


def test_observation_is_the_players_knowledge_grid():
    env = clue_v0.raw_env()
    env.reset(seed=3)
    game, state = env.game, env.game_state
    obs = env.observe("player_1")["observation"]
    grid = deduce.propagate(game.knowledge(state.observation(1))).possible[0]
    cells = grid.size
    assert np.array_equal(obs[:cells].reshape(grid.shape), grid.astype(np.float32))
    n = game.num_players
    assert obs[cells + 1] == 1.0 and obs[cells : cells + n].sum() == 1.0  # own seat
    assert obs[cells + n + state.current_player] == 1.0  # seat to act
    # player_1 is not acting: no phase bits and an empty mask
    assert obs[cells + 2 * n + 1 :].sum() == 0
    assert env.observe("player_1")["action_mask"].sum() == 0
    assert env.observe("player_0")["action_mask"].sum() == len(state.legal_actions())


@pytest.mark.parametrize("name", ["clue_v0", "mafia_code_v0", "checkpoint_charlie_v0"])
def test_rewards_are_the_game_returns(name):
    env = getattr(pz, name).raw_env()
    rng = np.random.default_rng(0)
    rewards, shapes = play(env, seed=2, rng=rng)
    assert len(shapes) == 1
    assert env.agents == []
    assert env.game_state.is_terminal()
    returns = env.game_state.returns()
    assert rewards == {f"player_{i}": float(r) for i, r in enumerate(returns)}


def test_masked_out_action_is_rejected_with_a_reason():
    env = mafia_code_v0.raw_env()
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalAction):
        env.step(illegal)
    with pytest.raises(IllegalAction, match="outside"):
        env.step(env.actions.size)


def test_max_steps_truncates():
    env = mafia_code_v0.raw_env(max_steps=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_render_ansi_and_names():
    env = pz.raw_env("mafia-code", render_mode="ansi", num_players=2)
    assert str(env) == "mafia_code_v0" and env.possible_agents == ["player_0", "player_1"]
    env.reset(seed=0)
    assert env.render().startswith("mafia_code_v0 step 0: player_")
    with pytest.raises(deduce.UnknownName):
        pz.raw_env("chess_v0")


def test_deduce_imports_without_pettingzoo():
    code = (
        "import sys; sys.modules['pettingzoo'] = None; sys.modules['gymnasium'] = None\n"
        "import deduce, deduce.apps\n"
        "try:\n    import deduce.apps.pettingzoo\nexcept ImportError as e:\n    print('needs:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'deduce[pettingzoo]'" in out


@pytest.mark.parametrize("name", ["mafia-code", "checkpoint-charlie", "crime-hotel"])
def test_render_and_describe_speak_the_games_words(name):
    """What a person reads from the wrapper (the rendered events, an action index's words) comes
    from the game's text module, never a repr or a bare index."""
    from tests.cli.test_play import bare_indices

    env = pz.raw_env(name, render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(12):
        if not env.agents:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        index = int(rng.choice(np.flatnonzero(mask)))
        said = env.describe(index)
        assert said and "(" not in said.split()[0] and bare_indices(said) == [], said
        env.step(index)
        shown = env.render()
        assert "=" not in shown and bare_indices(shown) == [], shown
