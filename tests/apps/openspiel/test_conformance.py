"""Conformance: OpenSpiel's own random simulation test, serialisation step included, on every
registered game, and its Python-side equivalent (every check it makes, plus a replay by
history); a deserialised state is the same state, its chance outcomes and future included."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from deduce.apps.openspiel import game_names  # noqa: E402
from deduce.apps.openspiel.chance import SEED_BYTES, Dice, SeedDeal  # noqa: E402
from deduce.apps.openspiel.game import dealt  # noqa: E402
from deduce.errors import IllegalAction  # noqa: E402

#: small configurations: a cut-off keeps each simulation short (the cut is part of the game)
SHORT = {"max_game_length": 20}
#: the board registrations at three players, long enough to roll and move
BOARD = {"players": 3, "max_game_length": 30}


def short(name: str) -> dict:
    return BOARD if name in ("python_deduce_clue_board", "python_deduce_clue_intrigue") else SHORT


@pytest.mark.parametrize("name", game_names())
def test_openspiel_random_sim_test_with_serialisation(name):
    """OpenSpiel's own C++ random simulation test, with its serialisation round trip, on every
    registered game (each declares explicit chance, so OpenSpiel can serialise it)."""
    game = pyspiel.load_game(name, short(name))
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def play_randomly(state, moves: int, rng: np.random.Generator):
    """``moves`` actions (chance outcomes drawn from their probabilities) or until the end."""
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


def same_state(a, b, n: int) -> None:
    assert str(a) == str(b) and a.history() == b.history()
    assert a.is_chance_node() == b.is_chance_node() and a.is_terminal() == b.is_terminal()
    for p in range(n):
        assert a.information_state_string(p) == b.information_state_string(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
    assert a.legal_actions() == b.legal_actions()
    if a.is_chance_node():
        assert a.chance_outcomes() == b.chance_outcomes()


@pytest.mark.parametrize("name", game_names())
def test_serialisation_round_trip_is_the_same_state_and_future(name):
    """A deserialised mid-game state equals the original: the same history, strings, tensors
    and legal actions, and the same moves give the same game to the end (its later draws,
    dealt from the chance outcomes, come out the same)."""
    game = pyspiel.load_game(name, short(name))
    state = play_randomly(game.new_initial_state(), 12, np.random.default_rng(1))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    n = game.num_players()
    same_state(state, state2, n)
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(actions, p=probs))
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
        state.apply_action(action)
        state2.apply_action(action)
        same_state(state, state2, n)
    assert state.returns() == state2.returns()


@pytest.mark.parametrize("name", ["python_deduce_mafia_code", "python_deduce_clue_board"])
def test_a_resampled_state_survives_serialisation(name):
    """A resampled hidden world is in the serialised state (not only the history, which
    replays the true game)."""
    game = pyspiel.load_game(name, short(name))
    state, rng = game.new_initial_state(), np.random.default_rng(2)
    while len(state.history()) < 14 or state.is_chance_node():  # random moves, no accusation
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[int(rng.integers(len(state.chance_outcomes())))][0])
            continue
        seat = state.current_player()
        legal = [a for a in state.legal_actions() if not state.action_to_string(seat, a).startswith("accuse")]
        state.apply_action(legal[int(rng.integers(len(legal)))])
    player = state.current_player()
    new = state.resample_from_infostate(player, np.random.default_rng(3).random)
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, new))
    same_state(new, again, game.num_players())  # every seat's strings: the other seats' hands too
    assert new.information_state_string(player) == state.information_state_string(player)


def test_a_seeded_deal_is_explicit_bytes_of_its_seed():
    """A seeded game deals by four explicit byte nodes (1/256 each), which spell its seed; the
    same seed is the same game, and another byte another deal."""
    game = pyspiel.load_game("python_deduce_mafia_code")
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(b, 1 / 256) for b in range(256)]
    assert game.max_chance_outcomes() == 256
    a = dealt(game, 123_456_789)
    assert len(a.history()) == SEED_BYTES and a.seed == 123_456_789
    assert SeedDeal.seed_of(a.history()) == 123_456_789
    b = replay(game, a.history())
    assert b.information_state_string(0) == a.information_state_string(0)
    assert b.engine.hands == a.engine.hands
    c = dealt(game, 123_456_790)
    assert c.engine.hands != a.engine.hands
    with pytest.raises(IllegalAction):
        game.new_initial_state().apply_action(256)


def test_the_board_rolls_its_dice_at_an_explicit_chance_node():
    """On the board a Roll hands the turn to a chance node with every ordered pair of faces at
    1/36; the engine moves by exactly the faces drawn."""
    game = pyspiel.load_game("python_deduce_clue_board", {"players": 3})
    state = play_randomly(game.new_initial_state(), SEED_BYTES, np.random.default_rng(0))
    from deduce.games.clue.rules import Roll

    roll = game.actions.encode(Roll())
    assert roll in state.legal_actions()
    seat = state.current_player()
    state.apply_action(roll)
    assert state.is_chance_node() and state.rolling == seat
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 36 and all(p == pytest.approx(1 / 36) for _, p in outcomes)
    dice = Dice(2)
    outcome = dice.outcome_of((6, 5))
    assert dice.faces(outcome) == (6, 5)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, outcome) == "roll: 6 and 5 (11)"
    state.apply_action(outcome)
    assert state.current_player() == seat and state.engine.roll == 11
    assert state.steps[-1].chance == outcome


def replay(game, history):
    """A fresh state with ``history`` applied: deserialisation by history."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def random_simulation(game, rng: np.random.Generator) -> None:
    """OpenSpiel's RandomSimulation checks, in Python."""
    n = game.num_players()
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        copy = state.clone()
        assert str(copy) == str(state) and copy.history() == state.history()
        size = len(state.history())
        again = replay(game, state.history()) if size < 4 or size & (size - 1) == 0 else copy  # as OpenSpiel
        assert str(again) == str(state)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-9
            assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
            actions, probs = zip(*outcomes, strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        player = state.current_player()
        legal = state.legal_actions()
        assert legal and legal == sorted(set(legal))
        assert all(0 <= a < game.num_distinct_actions() for a in legal)
        assert sum(state.legal_actions_mask(player)) == len(legal)
        for other in range(n):
            if other != player:
                assert state.legal_actions(other) == []
            assert state.information_state_string(other) == again.information_state_string(other)
            assert len(state.observation_tensor(other)) == game.observation_tensor_size()
        action = legal[int(rng.integers(len(legal)))]
        assert state.action_to_string(player, action)
        state.apply_action(action)
        copy.apply_action(action)
        assert str(copy) == str(state)
        moves += 1
    assert moves <= game.max_game_length()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    returns = state.returns()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert [state.player_return(p) for p in range(n)] == returns


@pytest.mark.parametrize("name", game_names())
def test_python_random_simulation(name):
    random_simulation(pyspiel.load_game(name, SHORT), np.random.default_rng(0))


def test_mayfair_alibi_offers_its_hypothesis_questions_one_component_at_a_time():
    """A hypothesis question (never listed: about a million a turn) is a start action, then one
    decision per component by the same player, each in words; the question is played when its
    last component is chosen, and a question already listed is not offered a second way."""
    from deduce.games.alibi.rules import Ask

    game = pyspiel.load_game("python_deduce_alibi", {"max_game_length": 200})
    state = dealt(game, 3)
    rng = np.random.default_rng(0)
    while not any(a >= game.actions.size for a in state.legal_actions()):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    seat = state.current_player()
    start = next(a for a in state.legal_actions() if a >= game.actions.size)
    assert state.action_to_string(seat, start).startswith("compose a question")
    bare = state.clone()  # a suspect card alone is a listed question: not composed as well
    bare.apply_action(start)
    for value in (0, 0, 0, 0, 0):
        bare.apply_action(game.actions.size + 4 + value)
    assert game.actions.size + 4 not in bare.legal_actions() and game.actions.size + 5 in bare.legal_actions()
    before = len(state.steps)
    state.apply_action(start)
    chosen = []
    while state.composing is not None:
        assert state.current_player() == seat and len(state.steps) == before
        legal = state.legal_actions()
        texts = [state.action_to_string(seat, a) for a in legal]
        assert len(set(texts)) == len(texts)
        pick = 0 if len(chosen) < 3 else len(legal) - 1  # the last card of each optional category
        chosen.append(texts[pick])
        state.apply_action(legal[pick])
        if state.composing is not None:
            assert chosen[-1] in state.information_state_string(seat)  # the composer recalls it
    ask = state.steps[-1].action
    assert isinstance(ask, Ask) and len(state.steps) == before + 1 and len(ask.cards) == 4
    assert [t.split(": ")[0] for t in chosen] == ["target", "family", "suspect card", "place card",
                                                   "weapon card", "emotion card"]
    with pytest.raises(IllegalAction):
        state.apply_action(game.actions.size + 4)  # a component value with nothing composed
