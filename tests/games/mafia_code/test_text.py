"""The mafia-code wording module: actions and events in the rule book's words."""

import deduce
from deduce.games.mafia_code import text


def test_actions_read_as_the_rule_book_says():
    from deduce.games.mafia_code.rules import Guess, Guessed

    game = deduce.make("mafia-code")
    card = game.deck.card("white D").id
    assert text.action_text(game, Guess(1, card)) == "guess p1 white D"
    assert text.event_text(game, Guessed(1, 0, card, True), you=0) == "p1 guessed you hold white D: a hit, the card is revealed"
    # no word of a guess but the colour and the letter starts with a letter of the dice
    words = text.action_text(game, Guess(1, card)).split()
    assert [w for w in words if w.casefold().startswith(("c", "d"))] == ["D"]
