"""The alibi wording module: actions and events in the rule book's words."""

import deduce
from deduce.games.alibi import text
from deduce.games.alibi.log import set_name


def test_actions_read_as_the_rule_book_says():
    from deduce.games.alibi.rules import Ask, Family, Fill, Meld

    game = deduce.make("alibi")
    rage = game.set_cards[[set_name(game, s) for s in range(len(game.set_cards))].index("Rage")]
    assert text.action_text(game, Ask(1, Family.HAND, rage)) == "ask p1 holds Rage"
    assert text.action_text(game, Ask(2, Family.HELD, ())) == "ask p2 how many different cards held"
    assert text.action_text(game, Meld(())) == "meld nothing"
    assert text.action_text(game, Fill(0, 0)) == "fill suspect Slim Slant"
    assert text.action_text(game, Fill(1, 1)) == "fill time Noon"
    # a question about a union of named sets names each of them
    assert text.card_set_text(game, game.categories[1] + rage) == "place + Rage"
