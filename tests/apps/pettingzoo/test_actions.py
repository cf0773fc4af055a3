"""The adapter's Discrete(N) is the core numbering (deduce.actions, tested in
tests/core/test_actions.py): each game's declared ActionIndex, re-exported under the old names."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import deduce  # noqa: E402
from deduce import actions as core_actions  # noqa: E402
from deduce.apps import pettingzoo as pz  # noqa: E402
from deduce.games.registry import game_info  # noqa: E402

REEXPORTED = ["ActionIndex", "Block", "Choice", "Combos", "Dimension", "Seq", "action_index", "register_action_index"]


def test_numbering_names_are_the_core_ones():
    for name in REEXPORTED:
        assert name in pz.__all__
        assert getattr(pz, name) is getattr(core_actions, name)


@pytest.mark.parametrize("game_name", deduce.game_names())
def test_action_space_is_the_declared_numbering(game_name):
    env = pz.raw_env(game_name, action_mode="flat")
    declared = game_info(game_name).actions(env.game)
    assert env.action_space("player_0").n == env.actions.size == declared.size
    assert env.actions.kinds == declared.kinds
    env.reset(seed=3)
    legal = env.legal_actions()
    mask = env.observe(env.agent_selection)["action_mask"]
    assert np.array_equal(mask, declared.mask(legal))
    assert [env.actions.encode(a) for a in legal] == [declared.encode(a) for a in legal]


def test_a_registered_numbering_is_used_by_the_env():
    from deduce.games.checkpoint_charlie import rules as cc

    everything = [cc.ChooseSide(0), cc.ChooseSide(1), *(cc.Arrest(c) for c in range(cc.NUM_CATS)), cc.Pass()]
    listed = pz.ActionIndex.from_actions(list(reversed(everything)))
    pz.register_action_index("checkpoint-charlie", lambda g: listed)
    try:
        env = pz.raw_env("checkpoint-charlie")
        assert env.actions is listed and env.action_space("player_0").n == len(everything)
    finally:
        core_actions._BUILDERS.pop("checkpoint-charlie")
    assert pz.raw_env("checkpoint-charlie").actions is not listed
