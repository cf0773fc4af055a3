"""Bots both ways: deduce agents as pyspiel.Bots, and OpenSpiel's bots as deduce agents."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import agents  # noqa: E402
import deduce  # noqa: E402
from deduce.apps.openspiel import load_game, register_agents  # noqa: E402
from deduce.apps.openspiel.bots import AgentBot  # noqa: E402
from deduce.errors import InvalidConfig  # noqa: E402
from deduce.play import play_game  # noqa: E402


@pytest.fixture(autouse=True)
def openspiel_agents(monkeypatch):
    """The OpenSpiel agents registered for this test only (other tests see the usual table)."""
    monkeypatch.setattr(agents.registry, "_EXTRA", dict(agents.registry._EXTRA))
    register_agents()


def test_deduce_agents_play_in_openspiels_evaluation_loop():
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = load_game("clue", players=3)
    bots = [AgentBot(agents.get(name, game="clue"), seat, seed=seat) for seat, name in
            enumerate(["random", "notebook", "random"])]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert all(r in (0.0, 1.0) for r in returns) and sum(returns) <= 1.0


def test_openspiel_agents_are_registered_for_clue():
    assert {"openspiel-ismcts", "openspiel-mcts", "openspiel-random"} <= set(agents.available("clue"))
    with pytest.raises(InvalidConfig, match="max_simulations"):
        agents.get("openspiel-ismcts", game="clue", max_simulations=0)


@pytest.mark.parametrize("name", ["openspiel-ismcts", "openspiel-mcts", "openspiel-random"])
def test_an_openspiel_agent_answers_with_a_legal_move_reproducibly(name):
    game = deduce.make("clue", num_players=3)
    state = game.new_initial_state(4)
    obs = state.observation(state.current_player)
    picks = []
    for _ in range(2):
        agent = agents.get(name, game="clue", **({} if name == "openspiel-random" else {"max_simulations": 4}))
        agent.reset(game, state.current_player, seed=11)
        picks.append(agent.act(obs))
    assert picks[0] in obs.legal_actions and picks[0] == picks[1]


@pytest.mark.slow
def test_openspiel_ismcts_plays_a_whole_game_against_deduce_agents():
    game = deduce.make("clue", num_players=3)
    seats = [agents.get("openspiel-ismcts", game="clue", max_simulations=8), agents.get("racer", game="clue"),
             agents.get("infogain", game="clue")]
    record = play_game(game, seats, seed=2, errors="raise")
    assert record.failure is None and len(record.winners) <= 1


@pytest.mark.slow
def test_a_deduce_agent_is_an_openspiel_policy():
    from benchmarks.openspiel import SMALL
    from deduce.apps.openspiel.bots import AgentPolicy

    game = load_game("clue", **SMALL)
    policy = AgentPolicy(game, lambda: agents.get("racer", game="clue"), seed=0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert list(probs.values()) == [1.0] and set(probs) <= set(state.legal_actions())
    assert policy.action_probabilities(state.clone()) == probs  # one answer per information state


@pytest.mark.slow
def test_openspiels_nash_conv_ranks_a_solver_above_random():
    from benchmarks.openspiel import nash_conv

    racer, rnd = nash_conv("racer"), nash_conv("random")
    assert 0.0 <= racer["nash_conv"] < rnd["nash_conv"]
    assert rnd["improvements"][1:] == [0.0, 0.0]  # only the first seat decides in the small game


def test_the_tournament_command_finds_openspiel_agents(tmp_path, monkeypatch):
    """``deduce tournament`` registers the adapter's agents when a name asks for them (in the
    command's process and in each worker), so no Python is needed to seat them."""
    import json

    from deduce.cli import main
    from deduce.errors import UnknownName

    unregistered = {k: f for k, f in agents.registry._EXTRA.items() if not k[0].startswith("openspiel-")}
    monkeypatch.setattr(agents.registry, "_EXTRA", unregistered)
    with pytest.raises(UnknownName):
        agents.get("openspiel-random", game="clue")

    out = tmp_path / "run"
    code = main(["tournament", "clue", "--agents", "openspiel-random", "random", "--games", "2", "--seed", "3",
                 "--players", "3", "--out", str(out), "--json"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "openspiel-random" in json.dumps(summary)


@pytest.mark.parametrize("name", ["openspiel-ismcts", "openspiel-mcts", "openspiel-random"])
def test_openspiel_agents_say_they_cannot_play_clue_on_the_board(name):
    agent = agents.get(name, game="clue")
    assert agent.cannot_play(deduce.make("clue")) is None
    reason = agent.cannot_play(deduce.make("clue", board_mode="board"))
    assert reason and name in reason and "board" in reason
