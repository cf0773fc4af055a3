"""Every registered game plays through with random agents, and its observations behave."""

import dataclasses

import pytest

import agents
import deduce
from deduce.play import play_game


def configs(name):
    cls = deduce.games.game_class(name)
    return sorted({cls.min_players, cls.max_players})


#: variants that change the engine's flow, run through the same checks as the defaults
VARIANTS = [
    ("clue", {"board_mode": "board"}),
    ("clue", {"board_mode": "board", "edition": "intrigue"}),
]
CASES = [(name, {}) for name in deduce.game_names()] + VARIANTS


def _id(case):
    name, config = case
    return "-".join([name, *(str(v) for v in config.values())])


@pytest.mark.parametrize("name,config", CASES, ids=[_id(c) for c in CASES])
@pytest.mark.slow
def test_random_play_reaches_the_end(name, config):
    cls = deduce.games.game_class(name)
    for n in configs(name):
        game = deduce.make(name, num_players=n, **config)
        for seed in range(3):
            record = play_game(game, [agents.get("random", game=name) for _ in range(n)], seed)
            assert record.failure is None, record.failure
            assert len(record.returns) == n
        assert cls.name == name


@pytest.mark.parametrize("name,config", CASES, ids=[_id(c) for c in CASES])
def test_observations_match_the_state_and_knowledge_is_sound(name, config):
    import numpy as np

    n = deduce.games.game_class(name).min_players
    game = deduce.make(name, num_players=n, **config)
    state = game.new_initial_state(11)
    rng = np.random.default_rng(11)
    steps = 0
    while not state.is_terminal() and steps < 300:
        player = state.current_player
        obs = state.observation(player)
        assert set(obs.legal_actions) == set(state.legal_actions())
        assert obs.player == player and obs.current_player == player
        for other in range(n):
            if other != player:
                assert state.observation(other).legal_actions == ()
        if steps % 10 == 0:
            try:
                world = state.world()
            except NotImplementedError:
                world = None
            if world is not None:
                for p in range(n):
                    assert game.knowledge(state.observation(p)).consistent_with(world), (p, steps)
        state.apply(obs.legal_actions[int(rng.integers(len(obs.legal_actions)))])
        steps += 1
    assert isinstance(state.returns(), list)


@pytest.mark.parametrize("name", deduce.game_names())
def test_observation_is_immutable_and_detached(name):
    n = deduce.games.game_class(name).min_players
    game = deduce.make(name, num_players=n)
    state = game.new_initial_state(3)
    obs = state.observation(state.current_player)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.player = 99  # type: ignore[misc]
    assert isinstance(obs.events, tuple) and isinstance(obs.legal_actions, tuple)
    for value in vars(obs).values() if hasattr(obs, "__dict__") else ():
        assert value is not state and value is not getattr(state, "rng", object())


@pytest.mark.parametrize("name", deduce.game_names())
def test_class_player_range_is_what_the_config_accepts(name):
    """``min_players``/``max_players`` (the tournament, audit and OpenSpiel read them) and the
    config (``deduce games`` probes it) say the same range."""
    from deduce.cli.games import player_counts

    cls = deduce.games.game_class(name)
    assert player_counts(name) == tuple(range(cls.min_players, cls.max_players + 1))


WORDING_CASES = [(name, {}) for name in deduce.game_names()] + [("clue", {"board_mode": "board"})]


@pytest.mark.parametrize("name,config", WORDING_CASES, ids=[_id(c) for c in WORDING_CASES])
def test_wording_module_provides_the_protocol(name, config):
    """Each member of :class:`~deduce.games.base.Wording` is in the game's wording module, taking
    the protocol's parameters (a missing member or a dropped ``observation`` fails here), and
    answers on a real observation in words."""
    import inspect

    from deduce.games.base import Wording
    from deduce.games.registry import game_info

    game = deduce.make(name, **config)
    text = game_info(name).wording(game)
    members = [m for m in vars(Wording) if not m.startswith("_") and callable(getattr(Wording, m))]
    assert {"event_text", "action_text", "phraser", "status_text", "final_scores", "actions_help"} <= set(members)
    for member in members:
        assert hasattr(text, member), f"{name}: wording lacks {member}"
        wanted = [p for p in inspect.signature(getattr(Wording, member)).parameters if p != "self"]
        given = list(inspect.signature(getattr(text, member)).parameters)
        assert given[: len(wanted)] == wanted, (name, member, given)
    state = game.new_initial_state(5)
    obs = state.observation(state.current_player)
    assert isinstance(text.status_text(game, obs), str)
    assert text.actions_help(game).strip()
    action = obs.legal_actions[0]
    assert text.action_text(game, action, obs).strip()
    assert all(text.event_text(game, e, obs.player).strip() for e in obs.events)
    scores = text.final_scores(game, obs)
    assert scores is None or len(scores) == game.num_players
