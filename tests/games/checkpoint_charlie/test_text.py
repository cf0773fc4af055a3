"""The checkpoint-charlie wording module: actions and events in the rule book's words."""

import deduce
from deduce.games.checkpoint_charlie import text


def test_actions_read_as_the_rule_book_says():
    from deduce.games.checkpoint_charlie.rules import Arrest, Arrested, ChooseSide

    game = deduce.make("checkpoint-charlie")
    assert text.action_text(game, Arrest(0)) == "arrest bare ears, bare eyes, grey, sweater, newspaper"
    assert text.action_text(game, ChooseSide(1)) == "side second face up"
    assert text.event_text(game, Arrested(1, 31, 0), you=0) == "p1 arrested [hat, glasses, orange, coat, empty-handed] from your row"
