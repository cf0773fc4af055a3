"""Clue's words at a person's turn: the barred room, "you are refuting", the labelled board."""

import dataclasses

import deduce
from deduce.games.clue import board_text, text


def test_the_barred_room_and_a_refutation_are_said():
    game = deduce.make("clue")
    obs = game.new_initial_state(1).observation(0)
    hall = game.deck.card("Hall").id
    words = text.status_text(game, dataclasses.replace(obs, barred_room=hall))
    assert "you may not suggest in Hall this turn" in words
    asked = dataclasses.replace(obs, to_refute=(1, tuple(game.deck.card(n).id for n in ("Mr. Green", "Rope", "Hall"))))
    assert "you are refuting: p1 suggested Mr. Green, Rope, Hall; show one of your cards" in text.status_text(game, asked)


def test_the_board_has_row_and_column_labels():
    game = deduce.make("clue", board_mode="board")
    obs = game.new_initial_state(1).observation(0)
    picture = board_text.board_text(game, obs.positions, 0).splitlines()
    assert picture[1].startswith("    0123456789")
    assert picture[2].startswith("r0 ") and picture[2 + 18].startswith("r18 ")
