"""racer-threat (agents/clue/threat_racer.py): its gamble floor falls with the closest
opponent's threat, so it gambles below racer's floor when an opponent is about to accuse
right, and waits when nobody is near."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.clue.deduction import RacerAgent
from agents.clue.threat_racer import ThreatRacerAgent, opponent_threats
from deduce.errors import DeduceError
from deduce.games.clue.rules import Accuse, EndTurn, Suggest
from deduce.play import play_game
from tests.agents.clue.test_agents import small
from tests.agents.clue.test_opponent_model import p1_certain
from tests.agents.clue.test_styles import dealt


def answered(state, cards):  # noqa: ANN001, ANN201
    """``state`` after the player to move suggests ``cards`` and the first refutation answers."""
    state.apply(Suggest(cards))
    while state.phase == "refute":
        state.apply(state.legal_actions()[0])
    return state


def chance(agent, obs) -> float:  # noqa: ANN001
    dist = agent.envelope_distribution(obs)
    return max(dist.values()) / sum(dist.values())


@pytest.mark.slow  # the exact sampler's first use compiles it
def test_threats_see_the_certain_opponent_and_are_seeded():
    game, state = p1_certain()
    obs = state.observation(0)
    threats = opponent_threats(game, obs, 8, np.random.default_rng(0), 10**6)
    assert threats[1] == 1.0 and 0.0 < threats[2] < 0.5
    assert threats == opponent_threats(game, obs, 8, np.random.default_rng(0), 10**6)


@pytest.mark.slow
def test_accuses_below_racers_floor_when_the_next_player_is_certain():
    game, state = p1_certain()
    obs = answered(state, (0, 3, 7)).observation(0)  # an answer that leaves p0 at one in four
    me, racer = ThreatRacerAgent(), RacerAgent()
    me.reset(game, 0, seed=0)
    racer.reset(game, 0, seed=0)
    assert chance(me, obs) == 0.25  # under racer's floor of 1/2 at three players
    assert racer.act(obs) == EndTurn()
    assert isinstance(me.act(obs), Accuse) and me.gambles == [(obs.turn, 0.25)]
    (_, p, floor, wait, threats) = me.threat_log[-1]
    assert (p, floor, wait, threats[1]) == (0.25, 0.0, 0.0, 1.0)


@pytest.mark.slow
def test_waits_on_the_same_chance_when_nobody_is_near():
    game, state = dealt()
    obs = answered(state, (0, 3, 8)).observation(0)  # the first question of the game
    me = ThreatRacerAgent()
    me.reset(game, 0, seed=0)
    assert chance(me, obs) == 0.25
    assert me.act(obs) == EndTurn() and not me.gambles
    (_, p, floor, wait, threats) = me.threat_log[-1]
    assert max(threats.values()) < 0.5 and p < floor


def test_hopeless_chances_are_not_weighed():
    game, state = dealt()
    obs = answered(state, (0, 3, 8)).observation(0)
    me = ThreatRacerAgent(watch_from=0.3)
    me.reset(game, 0, seed=0)
    assert me.act(obs) == EndTurn() and me.threat_log == []


def test_bad_parameters_are_refused_naming_them():
    for key, value in (("samples", 0), ("watch_from", 1.5), ("opponent_gamble", -0.1)):
        with pytest.raises(DeduceError, match=key):
            ThreatRacerAgent(**{key: value})


@pytest.mark.slow
def test_registered_and_plays_reproducible_games():
    game = small(3, max_turns=60)
    records = [play_game(game, [agents.get(n, game="clue") for n in ("racer-threat", "racer", "aggressive-accuser")],
                         3) for _ in range(2)]
    assert records[0].failure is None and records[0].winners
    assert records[0].returns == records[1].returns and records[0].moves == records[1].moves
