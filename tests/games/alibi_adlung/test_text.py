"""The alibi-adlung wording module: actions and events in the rule book's words."""

import deduce
from deduce.games.alibi_adlung import text


def test_actions_read_as_the_rule_book_says():
    game = deduce.make("alibi-adlung")
    state = game.new_initial_state(1)
    first = state.observation(0).events
    row = next(text.event_text(game, e, 0) for e in first if type(e).__name__ == "RowDealt")
    assert row.startswith("the row of suspects: s") and ", " in row and "(" not in row
    assert text.suspect_text(game, 0).startswith("s1: ")
