"""Every registered game passes PettingZoo's own API and determinism checks."""

import warnings

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import deduce  # noqa: E402
from deduce.apps import pettingzoo as pz  # noqa: E402


def test_one_env_per_registered_game():
    assert pz.env_names() == tuple(g.replace("-", "_") + "_v0" for g in deduce.game_names())
    assert "mafia_code_v0" in pz.env_names() and "clue_v0" in pz.env_names()
    for name in pz.env_names():
        spec = getattr(pz, name)
        assert spec.name == name and pz.game_of(name) == spec.game


@pytest.mark.parametrize("name", pz.env_names())
@pytest.mark.slow
def test_api_test_passes(name):
    env = getattr(pz, name).env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=1000)
    # Dict observations ({"observation", "action_mask"}) draw two advisory warnings, exactly as
    # PettingZoo's own classic games do; anything else is a real complaint.
    expected = ("Observation is not a NumPy array", "Observation space for each agent probably should be")
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(expected)]
    assert unexpected == []


@pytest.mark.parametrize("name", pz.env_names())
@pytest.mark.slow
def test_seeded_runs_are_identical(name):
    seed_test(lambda: getattr(pz, name).env(), num_cycles=10)
