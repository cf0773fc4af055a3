"""Arrests as evidence in the Checkpoint Charlie posterior: each arrest by another seat of a
cat that does not fit that seat's clue scales a world by ``arrest_noise``, exactly."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.checkpoint_charlie.posterior import BayesianAgent, posterior
from deduce.errors import InvalidConfig
from deduce.games.checkpoint_charlie.rules import Arrested, CheckpointCharlieGame


def _observations_after_arrests(seed: int, limit: int = 6):
    """Observations (seat, obs) of a seeded game in which another seat has arrested this round."""
    game = CheckpointCharlieGame(num_players=3)
    state = game.new_initial_state(seed)
    seated = [agents.get(n, game="checkpoint-charlie") for n in ("bayesian", "random", "patient")]
    for i, a in enumerate(seated):
        a.reset(game, i, seed + i)
    found = []
    while not state.is_terminal() and len(found) < limit:
        seat = state.current_player
        obs = state.observation(seat)
        here = CheckpointCharlieGame.round_events(obs.events)
        if any(isinstance(e, Arrested) and e.player != seat for e in here):
            found.append((seat, obs))
        state.apply(seated[seat].act(obs))
    return game, found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_misfit_arrest_scales_a_world_by_the_noise(seed: int) -> None:
    game, found = _observations_after_arrests(seed)
    assert found, "no arrest by another seat in this game"
    for seat, obs in found:
        flat = posterior(game, obs)
        assert np.allclose(flat.weight, 1 / flat.size)  # 1.0: the uniform model of old
        soft = posterior(game, obs, arrest_noise=0.25)
        misfits = np.zeros(flat.size)
        for e in CheckpointCharlieGame.round_events(obs.events):
            if isinstance(e, Arrested) and e.player != seat:
                misfits += ((e.cat >> flat.feature[:, e.player]) & 1) != flat.side[:, e.player]
        expected = 0.25 ** misfits
        assert np.allclose(soft.weight, expected / expected.sum())
        assert soft.p_chief.sum() == pytest.approx(1.0)
        assert np.allclose(soft.p_chief, np.bincount(soft.chief, weights=soft.weight, minlength=32))


def test_arresters_that_never_err_rule_out_worlds() -> None:
    game, found = _observations_after_arrests(1)
    seat, obs = found[0]
    hard = posterior(game, obs, arrest_noise=0.0)
    flat = posterior(game, obs)
    arrests = [e for e in CheckpointCharlieGame.round_events(obs.events) if isinstance(e, Arrested) and e.player != seat]
    kept = hard.weight > 0
    for e in arrests:
        fits = ((e.cat >> hard.feature[:, e.player]) & 1) == hard.side[:, e.player]
        assert fits[kept].all()
    assert kept.sum() <= flat.size


def test_arrest_noise_out_of_range_is_refused_naming_it() -> None:
    with pytest.raises(InvalidConfig, match="arrest_noise"):
        BayesianAgent(arrest_noise=1.5)
