"""Bad configurations raise :class:`deduce.InvalidConfig` naming the field, in every game, and the
other caller-given settings (deals, decks, board maps, knowledge-base shapes) do too."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import deduce
from deduce import DeduceError, InvalidConfig
from deduce.cards import Card, Deck
from deduce.cli import main
from deduce.games.clue.board import Board
from deduce.games.clue.rules import ClueState
from deduce.knowledge import KnowledgeBase
from deduce.play import play_game

#: (game, config fields, the field the error must name): at least one per game, several for Clue.
BAD = [
    ("clue", {"num_players": 7}, "num_players"),
    ("clue", {"num_players": 2}, "num_players"),
    ("clue", {"deal_mode": "deal-it-all"}, "deal_mode"),
    ("clue", {"board_mode": "hexes"}, "board_mode"),
    ("clue", {"board_mode": "board", "dice": 0}, "dice"),
    ("clue", {"board_mode": "board", "rooms": ("Kitchen", "Hall")}, "rooms"),
    ("clue", {"edition": "deluxe"}, "edition"),
    ("clue", {"edition": "intrigue"}, "board_mode"),
    ("clue", {"edition": "intrigue", "board_mode": "board", "clocks": 0}, "clocks"),
    ("clue", {"edition": "intrigue", "board_mode": "board", "question_dice": 3}, "question_dice"),
    ("clue", {"weapons": ()}, "weapons"),
    ("clue", {"player_names": ("ann", "bob")}, "player_names"),
    ("clue", {"max_turns": 0}, "max_turns"),
    ("clue", {"num_players": 6, "suspects": ("a",), "weapons": ("b",), "rooms": ("c", "d", "e")}, "num_players"),
    ("alibi", {"num_players": 11}, "num_players"),
    ("alibi", {"dealer": 4}, "dealer"),
    ("alibi", {"max_rounds": -1}, "max_rounds"),
    ("alibi", {"first_accuser_min_blanks": 9}, "first_accuser_min_blanks"),
    ("alibi", {"blank_values": (1, 2)}, "blank_values"),
    ("alibi-adlung", {"num_players": 6}, "num_players"),
    ("alibi-adlung", {"hand_size": 0}, "hand_size"),
    ("alibi-adlung", {"num_bribe": -1}, "num_bribe"),
    ("alibi-adlung", {"first_player": 3}, "first_player"),
    ("alibi-adlung", {"num_suspects": 2}, "num_suspects"),
    ("alibi-adlung", {"suspect_items": (2, 1)}, "suspect_items"),
    ("alibi-adlung", {"max_turns": 0}, "max_turns"),
    ("mafia-code", {"num_players": 5}, "num_players"),
    ("mafia-code", {"initial_rolls": -1}, "initial_rolls"),
    ("mafia-code", {"hand_size": 0}, "hand_size"),
    ("mafia-code", {"hand_size": 20}, "hand_size"),
    ("mafia-code", {"colours": ("red", "red")}, "colours"),
    ("mafia-code", {"ties_shared": False}, "ties_shared"),
    ("checkpoint-charlie", {"num_players": 6}, "num_players"),
    ("checkpoint-charlie", {"max_rounds": 0}, "max_rounds"),
    ("checkpoint-charlie", {"hound_placement": "anywhere-at-all"}, "hound_placement"),
    ("checkpoint-charlie", {"first_player": -1}, "first_player"),
    ("checkpoint-charlie", {"stasi_variant": True}, "stasi_variant"),
    ("crime-hotel", {"num_players": 5}, "num_players"),
    ("crime-hotel", {"floors": 0}, "floors"),
    ("crime-hotel", {"hand_size": 40}, "hand_size"),
    ("crime-hotel", {"rounds": 0}, "rounds"),
    ("crime-hotel", {"games": -2}, "games"),
    ("crime-hotel", {"leftover": "bin"}, "leftover"),
]


def test_every_registered_game_is_covered() -> None:
    assert {game for game, _, _ in BAD} == set(deduce.game_names())


@pytest.mark.parametrize(("game", "fields", "field"), BAD, ids=[f"{g}-{f}" for g, _, f in BAD])
def test_bad_configuration_names_the_field(game: str, fields: dict, field: str) -> None:
    with pytest.raises(InvalidConfig) as info:
        deduce.make(game, **fields)
    err = info.value
    assert isinstance(err, ValueError) and isinstance(err, DeduceError)
    assert err.field == field
    assert str(err).startswith(f"{field}=")
    if field in fields:
        assert err.value == fields[field]
        assert str(err).startswith(f"{field}={fields[field]!r}: ")
    assert err.reason and "\n" not in str(err)


def test_message_reads_field_value_reason_and_survives_pickling() -> None:
    err = InvalidConfig("num_players", 7, "Clue takes 3 to 6 players")
    assert str(err) == "num_players=7: Clue takes 3 to 6 players"
    again = pickle.loads(pickle.dumps(err))
    assert (again.field, again.value, again.reason, str(again)) == ("num_players", 7, err.reason, str(err))
    long = InvalidConfig("hands", tuple(range(100)), "too many")
    assert len(str(long)) < 80 and str(long).endswith(": too many")


def test_existing_value_error_callers_still_catch_it() -> None:
    with pytest.raises(ValueError, match="Clue needs 3 to 6 players"):
        deduce.make("clue", num_players=9)
    assert "InvalidConfig" in deduce.__all__ and deduce.InvalidConfig is InvalidConfig


def test_bad_deal_names_the_part_of_the_deal() -> None:
    game = deduce.make("clue", num_players=3)
    state = game.new_initial_state(0)
    envelope, hands = state.envelope, [list(h) for h in state.hands]
    hands[0][0] = hands[1][0]  # one card twice, another nowhere
    with pytest.raises(InvalidConfig, match="placed more than once") as info:
        ClueState.from_deal(game, envelope, hands, state.extra)
    assert info.value.field == "deal"
    with pytest.raises(InvalidConfig) as info:
        ClueState.from_deal(game, (envelope[1], envelope[0], envelope[2]), state.hands, state.extra)
    assert info.value.field == "envelope"
    with pytest.raises(InvalidConfig) as info:
        ClueState(game)  # neither a generator nor a deal
    assert info.value.field == "rng"


def test_another_games_observation_is_refused() -> None:
    clue, alibi = deduce.make("clue"), deduce.make("alibi")
    obs = alibi.new_initial_state(0).observation(0)
    with pytest.raises(InvalidConfig, match="ClueGame.knowledge takes a ClueObservation") as info:
        clue.knowledge(obs)
    assert info.value.field == "observation" and info.value.value == "AlibiObservation"


def test_deck_knowledge_base_board_and_play_settings() -> None:
    with pytest.raises(InvalidConfig) as info:
        Deck((Card(0, "Rope", "weapon"), Card(1, "rope", "weapon")))
    assert info.value.field == "cards[1].name" and "duplicate card name" in str(info.value)
    with pytest.raises(InvalidConfig) as info:
        Deck((Card(1, "Rope", "weapon"),))
    assert info.value.field == "cards[0].id"
    deck = Deck.from_categories({"c": ["a", "b"]})
    with pytest.raises(InvalidConfig) as info:
        KnowledgeBase(deck, ["x", "y"], epochs=0)
    assert info.value.field == "epochs"
    with pytest.raises(InvalidConfig) as info:
        KnowledgeBase(deck, ["x", "X"])
    assert info.value.field == "locations"
    kb = KnowledgeBase(deck, ["x", "y"])
    with pytest.raises(InvalidConfig) as info:
        kb.consistent_with(np.array([0, 1, 0]))
    assert info.value.field == "world.shape"
    with pytest.raises(InvalidConfig) as info:
        kb.consistent_with(np.array([0, 5]))
    assert info.value.field == "world[0][1]" and info.value.value == 5
    with pytest.raises(InvalidConfig, match="unknown board symbol") as info:
        Board.parse("K?\nKk")
    assert info.value.field == "text" and info.value.value == "?"
    with pytest.raises(InvalidConfig) as info:
        play_game(deduce.make("clue", num_players=3), [], seed=0)
    assert info.value.field == "agents"


def test_cli_play_exits_2_with_one_line_naming_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "clue", "--set", "num_players=9"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "num_players=9" in err, err


def test_cli_tournament_exits_2_with_one_line_naming_the_field(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["tournament", "clue", "--agents", "random", "random", "random", "--games", "1", "--out", str(out)]
    assert main([*argv, "--config", "board_mode=board", "--config", "dice=0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "dice=0" in err, err
    assert not out.exists()
