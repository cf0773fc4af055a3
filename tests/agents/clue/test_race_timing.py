"""racer-lap (agents/clue/race_timing.py): a lap of waiting valued by the next question's exact
expected best chance; its gambles obey that comparison, and lap="mirror" is racer."""

from __future__ import annotations

import pytest

import agents
from agents.clue.deduction import waiting_value
from agents.clue.race_timing import LapRacerAgent, lap_value
from deduce.errors import DeduceError
from deduce.play import play_game
from tests.agents.clue.test_agents import small


@pytest.mark.parametrize("c", [0.0, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("m", [1, 2, 5])
def test_an_answer_worth_no_more_than_racers_lap_gives_racers_value(c, m):
    for p in (0.0, 0.3, 0.9):
        assert lap_value(c, m, p, c + (1 - c) * p) == pytest.approx(waiting_value(c, m, p))
        assert lap_value(c, m, p, 0.0) == pytest.approx(waiting_value(c, m, p))


def test_a_more_valuable_next_answer_makes_waiting_worth_more():
    assert lap_value(0.1, 2, 0.5, 0.8) > lap_value(0.1, 2, 0.5, 0.6) > waiting_value(0.1, 2, 0.5)
    assert lap_value(0.0, 2, 0.5, 2.0) <= 1.0  # a chance, whatever the estimate


def test_an_unknown_lap_rule_is_refused_naming_it():
    with pytest.raises(DeduceError, match="lap"):
        LapRacerAgent(lap="hope")


class _Logged(LapRacerAgent):
    """racer-lap that also notes every accuse-or-wait decision it takes after weighing a lap."""

    def reset(self, game, player, seed=None):  # noqa: ANN001
        super().reset(game, player, seed)
        self.decisions: list[tuple[int, str]] = []

    def act(self, observation):  # noqa: ANN001
        before = len(self.laps)
        action = super().act(observation)
        if len(self.laps) > before:
            self.decisions.append((len(self.laps) - 1, type(action).__name__))
        return action


@pytest.mark.slow
def test_it_gambles_exactly_when_the_chance_beats_the_lap():
    """Every lap it weighed: it accused iff p beat the waiting value (and the floor of 1/2 at
    three players); so no gamble below the floor, none when waiting is worth more."""
    game = small(3, max_turns=80)
    weighed = 0
    for seed in range(6):
        seats = [_Logged(), agents.get("racer", game="clue"), agents.get("aggressive-accuser", game="clue")]
        rec = play_game(game, seats, seed)
        assert rec.failure is None
        me = seats[0]
        for index, action in me.decisions:
            _, p, _, _, wait = me.laps[index]
            assert p >= 0.5
            assert (action == "Accuse") == (p > wait), (seed, me.laps[index], action)
            weighed += 1
        for _, p in me.gambles:
            assert p >= 0.5
    assert weighed > 0


@pytest.mark.slow
def test_the_mirror_lap_plays_racers_games():
    game = small(3, max_turns=60)
    for seed in range(3):
        a = play_game(game, [LapRacerAgent(lap="mirror", threat="mirror"), agents.get("deductive", game="clue"),
                             agents.get("aggressive-accuser", game="clue")], seed)
        b = play_game(game, [agents.get("racer", game="clue"), agents.get("deductive", game="clue"),
                             agents.get("aggressive-accuser", game="clue")], seed)
        assert (a.returns, a.moves) == (b.returns, b.moves)


def test_registered():
    assert isinstance(agents.get("racer-lap", game="clue"), LapRacerAgent)


@pytest.mark.slow  # the exact sampler's first use compiles it
def test_it_gambles_when_the_next_player_is_certain():
    """With the opponents' own views, p1 (certain) solves before p0's next turn: waiting is
    worth nothing, so p0 gambles on its best guess."""
    from deduce.games.clue.rules import Accuse, EndTurn, Suggest
    from tests.agents.clue.test_opponent_model import p1_certain

    game, state = p1_certain()
    before = state.observation(0)
    views, mirror = LapRacerAgent(), LapRacerAgent(threat="mirror")
    views.reset(game, 0, seed=0)
    mirror.reset(game, 0, seed=0)
    dist = views.envelope_distribution(before)
    p = max(dist.values()) / sum(dist.values())
    assert views.waiting_value(before, p) == 0.0  # p1 accuses next
    assert mirror.waiting_value(before, p) > 0.2  # the mirror sees p1 as no closer than p0
    state.apply(Suggest((1, 4, 8)))  # p1 shows b or e
    while state.phase == "refute":
        state.apply(state.legal_actions()[0])
    obs = state.observation(0)
    assert EndTurn() in obs.legal_actions
    dist = views.envelope_distribution(obs)
    p = max(dist.values()) / sum(dist.values())
    assert 0.5 <= p < 1.0
    assert isinstance(views.act(obs), Accuse) and views.laps[-1][-1] == 0.0 and views.gambles
