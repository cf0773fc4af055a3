"""The crime-hotel wording module: actions and events in the rule book's words."""

import deduce
from deduce.games.crime_hotel import text


def test_actions_read_as_the_rule_book_says():
    from deduce.games.crime_hotel.rules import Deduce, Exchange, Space

    game = deduce.make("crime-hotel")
    room = next(c.id for c in game.deck if c.name == "306")
    assert text.action_text(game, Deduce(Space("room", room))) == "deduce room 306"
    assert text.action_text(game, Deduce(Space("digit", 7))) == "deduce digit 7"
    assert text.action_text(game, Exchange(1, (room,))) == "exchange with p1: give 306"
