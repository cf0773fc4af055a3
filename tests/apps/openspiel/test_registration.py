"""Every deduce game loads through pyspiel.load_game with a truthful GameType and GameInfo."""

from __future__ import annotations

import math

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from deduce.apps.openspiel import REGISTRATIONS, game_names, load_game  # noqa: E402
from deduce.errors import InvalidConfig, UnknownName  # noqa: E402
from deduce.games.registry import game_names as deduce_games  # noqa: E402


def deal(state, rng):
    """Draw the chance nodes of ``state`` from their declared probabilities."""
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    return state


def test_every_deduce_game_is_registered():
    assert {r.game for r in REGISTRATIONS} == set(deduce_games())
    registered = set(pyspiel.registered_names())
    assert set(game_names()) <= registered
    assert "python_deduce_clue" in game_names() and "python_deduce_mafia_code" in game_names()
    assert {"python_deduce_clue_board", "python_deduce_clue_intrigue"} <= set(game_names())


@pytest.mark.parametrize("name", game_names())
def test_game_type_says_the_truth(name):
    game = pyspiel.load_game(name)
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC  # every node lists its odds
    assert (game.min_utility(), game.max_utility()) == (0.0, 1.0)
    composed = game.compose_width  # Mayfair Alibi: its structured questions, composed
    assert game.num_distinct_actions() == game.actions.size + (4 + composed if composed else 0)
    assert game.num_players() == game.deduce.num_players
    assert t.min_num_players == type(game.deduce).min_players
    moves = game.get_parameters()["max_game_length"]
    assert game.max_game_length() == (moves * 9 if composed else moves)  # a move: up to 1 + 8 decisions
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()


def test_parameters_are_the_config_fields():
    game = load_game("clue", players=4, refute_all=True, suspects='["Plum", "Peacock", "Green"]', max_turns=7)
    cfg = game.deduce.config
    assert (cfg.num_players, cfg.refute_all, cfg.max_turns) == (4, True, 7)
    assert cfg.suspects == ("Plum", "Peacock", "Green")
    assert game.num_players() == 4
    with pytest.raises(pyspiel.SpielError, match="unknown|Unknown"):
        pyspiel.load_game("python_deduce_clue", {"nonsense": 1})
    assert issubclass(UnknownName, KeyError)


def test_clue_is_played_without_the_board():
    """``python_deduce_clue`` is Clue without the board: the board is its own registration."""
    with pytest.raises(InvalidConfig, match="board_mode"):
        load_game("clue", board_mode="board")
    with pytest.raises(InvalidConfig, match="board_mode"):
        pyspiel.load_game("python_deduce_clue_board", {"board_mode": "any_room"})
    with pytest.raises(InvalidConfig, match="edition"):
        pyspiel.load_game("python_deduce_clue_board", {"edition": "intrigue"})


@pytest.mark.parametrize(("name", "edition"), [("python_deduce_clue_board", "classic"),
                                               ("python_deduce_clue_intrigue", "intrigue")])
def test_clue_on_the_board_numbers_every_board_move(name, edition):
    """The board registrations play the board (and the intrigue edition), keep Clue's own
    numbers for the actions Clue without the board has, and number every action a random game
    offers (rolls, moves, the intrigue cards) in the game's words."""
    from deduce.games.clue.intrigue import Decline, UseAnyRoom
    from deduce.games.clue.rules import Accuse, Move, Roll, ViewExtra

    game = pyspiel.load_game(name, {"players": 3})
    assert (game.deduce.config.board_mode, game.deduce.config.edition) == ("board", edition)
    plain = load_game("clue", players=3).actions
    assert all(game.actions.decode(i) == plain.decode(i) for i in range(plain.size))
    kinds = set(game.actions.kinds)
    assert {Roll, Move} <= kinds and ({UseAnyRoom, Decline} <= kinds) == (edition == "intrigue")
    state = deal(game.new_initial_state(), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(150):
        if state.is_terminal():
            break
        if state.is_chance_node():  # the dice
            deal(state, rng)
            continue
        legal = state.legal_actions()
        assert {game.actions.decode(a) for a in legal} == set(state.engine.legal_actions())
        playing = [a for a in legal if not isinstance(game.actions.decode(a), Accuse | ViewExtra)] or legal
        action = playing[int(rng.integers(len(playing)))]  # no accusations: the game goes on
        seen.add(type(game.actions.decode(action)))
        text = state.action_to_string(action)
        assert text and text != repr(game.actions.decode(action))  # words, not a repr
        state.apply_action(action)
    assert {Roll, Move} <= seen and len(seen) >= 4


def test_the_deal_is_explicit_chance_with_exact_probabilities():
    game = load_game("clue", players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    nodes = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert math.isclose(sum(p for _, p in outcomes), 1.0)
        assert len({p for _, p in outcomes}) == 1  # every unplaced card equally likely
        assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        nodes += 1
    assert nodes == len(game.deduce.deck)
    engine = state.engine
    assert sorted(engine.envelope + sum(map(tuple, engine.hands), ()) + engine.extra) == list(range(nodes))


def test_actions_are_the_declared_numbering_in_the_games_words():
    game = load_game("clue")
    state = deal(game.new_initial_state(), np.random.default_rng(1))
    legal = state.legal_actions()
    assert legal == sorted(legal)
    assert {game.actions.decode(a) for a in legal} == set(state.engine.legal_actions())
    assert state.action_to_string(legal[0]) == "suggest Miss Scarlet, Candlestick, Kitchen"
    assert state.legal_actions((state.current_player() + 1) % game.num_players()) == []


def test_information_comes_from_the_players_own_observation():
    """Two deals that differ only in the cards seat 0 has not seen give it the same strings
    and tensor, and different ones to a seat whose hand changed."""
    game = load_game("clue", players=3)
    one, two = game.new_initial_state(), game.new_initial_state()
    env = [0, 6, 12]
    rest = [c for c in range(len(game.deduce.deck)) if c not in env]
    swapped = rest[:6] + rest[12:] + rest[6:12]  # seats 1 and 2 exchange hands
    for a, b in zip(env + rest, env + swapped, strict=True):
        one.apply_action(a)
        two.apply_action(b)
    for state in (one, two):
        state.apply_action(state.legal_actions()[0])
    assert one.information_state_string(0) == two.information_state_string(0)
    assert one.observation_string(0) == two.observation_string(0)
    assert one.observation_tensor(0) == two.observation_tensor(0)
    assert one.information_state_string(1) != two.information_state_string(1)
    assert "your hand" in one.information_state_string(0)
