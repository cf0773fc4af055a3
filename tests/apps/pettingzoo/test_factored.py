"""The factored action space (both Alibis): an action is chosen one component at a time, each
with a small mask, so Alibi's hypothesis questions (legal without being listed) are reachable
and no flat mask of 300 000 numbered actions is built."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from deduce.apps import pettingzoo as pz  # noqa: E402
from deduce.errors import IllegalAction  # noqa: E402
from deduce.games.alibi.rules import Asked, Family  # noqa: E402


def _to_ask(env):
    """Deal (seed 0) and play the first allowed components until the first question."""
    env.reset(seed=0)
    while env.game_state.phase != "ask":
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    return env


@pytest.mark.parametrize("name,flat", [("alibi", 315400), ("alibi-adlung", 400540)])
def test_both_alibis_are_factored_by_default(name, flat):
    env = pz.raw_env(name)
    assert env.composer is not None and env.action_space("player_0").n < 200
    assert env.observation_space("player_0")["action_mask"].shape == (env.action_space("player_0").n,)
    assert pz.raw_env(name, action_mode="flat").action_space("player_0").n == flat
    assert pz.raw_env("clue").composer is None
    with pytest.raises(ValueError, match="action_mode"):
        pz.raw_env(name, action_mode="tree")


def test_the_seeds_hypothesis_is_asked_component_by_component():
    env = _to_ask(pz.raw_env("alibi"))
    game, state = env.game, env.game_state
    asker = state.current_player
    block = state.legal_actions().structured[0]
    kind = len(env.actions.blocks)  # the first structured block, numbered after the blocks
    names = ("Slim Slant / Morning", "Auto / Front Seat", "Smothering / Pillow")
    cards = [game.deck.card(n).id for n in names]
    target = (asker + 1) % game.num_players
    parts = [kind, block.targets.index(target), block.families.index(Family.SEEN), *block.of(cards)]
    agent = env.agent_selection
    for value in parts:
        assert env.agent_selection == agent
        mask = env.observe(agent)["action_mask"]
        assert mask[value] == 1 and mask.sum() < 200
        env.step(value)
    asked = [e for e in env.game_state.events if isinstance(e, Asked)][-1]
    assert (asked.asker, asked.target, asked.family, asked.cards) == (asker, target, Family.SEEN, tuple(sorted(cards)))
    assert env.prefix == []


@pytest.mark.parametrize("name", ["alibi", "alibi-adlung"])
def test_every_listed_action_is_reachable_through_the_masks(name):
    env = pz.raw_env(name)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(40):
        state = env.game_state
        if state.is_terminal():
            break
        legal = list(state.legal_actions())
        for action in legal[:: max(1, len(legal) // 6)]:
            path = env.composer.path(action)
            paths = env._listed_paths()
            for k, value in enumerate(path):
                assert env.composer.options(state.legal_actions(), paths, path[:k])[value] == 1
            assert env.composer.complete(state.legal_actions(), paths, path) == action
            checked += 1
        # play on with one listed action, component by component
        for value in env.composer.path(legal[int(rng.integers(len(legal)))]):
            env.step(value)
    assert checked > 40


def test_a_component_the_mask_forbids_is_refused():
    env = _to_ask(pz.raw_env("alibi"))
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(IllegalAction, match="not an allowed kind"):
        env.step(int(np.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize("name", ["alibi", "alibi-adlung"])
def test_random_factored_play_ends_with_the_game_returns(name):
    env = pz.raw_env(name)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    rewards = {a: 0.0 for a in env.possible_agents}
    hypotheses = 0
    for agent in env.agent_iter(50_000):
        obs, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        structured = len(env.actions.blocks)
        if name == "alibi" and not env.prefix and obs["action_mask"][structured] and rng.random() < 0.5:
            hypotheses += 1  # ask a hypothesis: the structured kind, then random components
            env.step(structured)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game_state.is_terminal()
    assert rewards == {f"player_{i}": float(r) for i, r in enumerate(env.game_state.returns())}
    if name == "alibi":
        asked = [e for e in env.game_state.events if isinstance(e, Asked)]
        assert hypotheses and all(len(e.cards) >= 1 for e in asked)
        assert any(len({env.game.card_category[c] for c in e.cards}) > 1 for e in asked)
