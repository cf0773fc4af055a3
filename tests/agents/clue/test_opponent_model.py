"""The opponent model (agents/clue/opponent_model.py): opponents' closeness to solving from
their own views, the race value it feeds, and racer-watch's accusation timing."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.clue.deduction import RacerAgent, waiting_value
from agents.clue.opponent_model import RaceWatchAgent, opponent_closeness, race_value
from deduce.errors import DeduceError
from deduce.games.clue.rules import Accuse, EndTurn, Suggest
from deduce.play import play_game
from tests.agents.clue.test_agents import small
from tests.agents.clue.test_styles import ask, dealt


def p1_certain():
    """p1 (holding b, e) has been shown a and d by p0 and g and h by p2: it knows the envelope
    is c, f, i; p0 knows p2's hand (g, h, shown to it), so it can tell; p2 is far from it."""
    game, state = dealt()
    ask(state, (0, 3, 6), (0, 5, 8), (0, 3, 6), (0, 3, 7), (0, 4, 6), (0, 3, 7), (0, 3, 8), (1, 3, 8), (0, 3, 6),
        (0, 3, 6), (0, 4, 7), (0, 3, 7))
    assert state.current_player == 0 and state.phase == "start"
    return game, state


@pytest.mark.slow  # the exact sampler's first use compiles it
def test_closeness_sees_an_opponent_who_is_certain():
    game, state = p1_certain()
    obs = state.observation(0)
    close = opponent_closeness(game, obs, 8, np.random.default_rng(0), 10**6)
    assert close[1] == (1.0, 1.0)
    best, certain = close[2]
    assert certain == 0.0 and 0.0 < best < 0.5
    assert close == opponent_closeness(game, obs, 8, np.random.default_rng(0), 10**6)  # seeded


@pytest.mark.parametrize("c", [0.0, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("m", [1, 2, 5])
def test_race_value_with_mirror_threats_is_the_mirror_model(c, m):
    for p in (0.0, 0.3, 0.9):
        assert race_value(c, [c] * m, p) == pytest.approx(waiting_value(c, m, p))


def test_race_value_falls_as_threats_rise():
    assert race_value(0.3, [0.0, 0.0], 0.5) > race_value(0.3, [0.2, 0.0], 0.5) > race_value(0.3, [0.9, 0.2], 0.5)
    assert race_value(0.3, [1.0, 0.0], 0.5) == 0.0


@pytest.mark.slow  # the exact sampler's first use compiles it
def test_waiting_is_worth_nothing_when_the_next_player_is_certain():
    game, state = p1_certain()
    obs = state.observation(0)
    watch, racer = RaceWatchAgent(), RacerAgent()
    watch.reset(game, 0, seed=0)
    racer.reset(game, 0, seed=0)
    dist = watch.envelope_distribution(obs)
    p = max(dist.values()) / sum(dist.values())
    assert 0.0 < p < 1.0
    assert watch.waiting_value(obs, p) == 0.0  # p1 accuses next: a gamble now is all that is left
    assert racer.waiting_value(obs, p) > 0.2  # the mirror model sees p1 as no closer than p0
    (turn, logged_p, wait, threats) = watch.threat_log[-1]
    assert (logged_p, wait, threats[1]) == (p, 0.0, 1.0) and threats[2] < 1.0


@pytest.mark.slow  # the exact sampler's first use compiles it
def test_gambles_after_its_answer_because_the_next_player_is_certain():
    game, state = p1_certain()
    state.apply(Suggest((1, 4, 8)))  # p1 shows b or e
    while state.phase == "refute":
        state.apply(state.legal_actions()[0])
    obs = state.observation(0)
    assert EndTurn() in obs.legal_actions
    watch = RaceWatchAgent()
    watch.reset(game, 0, seed=0)
    dist = watch.envelope_distribution(obs)
    assert max(dist.values()) < sum(dist.values())  # not certain: a gamble
    assert isinstance(watch.act(obs), Accuse)
    assert watch.threat_log[-1][2] == 0.0 and watch.gambles


def test_samples_must_be_positive():
    with pytest.raises(DeduceError, match="samples"):
        RaceWatchAgent(samples=0)


@pytest.mark.slow
def test_registered_and_plays_reproducible_games():
    game = small(3, max_turns=60)
    records = [play_game(game, [agents.get(n, game="clue") for n in ("racer-watch", "racer", "deductive")], 2)
               for _ in range(2)]
    assert records[0].failure is None and records[0].winners
    assert records[0].returns == records[1].returns and records[0].moves == records[1].moves
