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


def _refuted_by_p1(seed: int = 5):
    """A 3-player deal where p0 suggests a triple of which p1 holds exactly one card."""
    import itertools

    from deduce.games.clue.rules import Suggest

    game = deduce.make("clue", num_players=3, player_names=("Peacock", "Mustard", "Plum"))
    state = game.new_initial_state(seed)
    hands = state.hands
    for trip in itertools.product(*[list(game.deck.in_category(c)) for c in game.deck.categories]):
        ids = tuple(c.id for c in trip)
        if not set(ids) & set(hands[0]) and len(set(ids) & set(hands[1])) == 1:
            break
    state.apply(Suggest(ids))
    if state.current_player == 1:  # the refutation is asked (else it was p1's only choice)
        state.apply(state.legal_actions()[0])
    return game, state, ids, next(c for c in ids if c in hands[1])


def test_why_cites_the_events_in_words():
    """'Why is this card Mustard's?' names the suggestion that forced it as the table says it,
    from the reader's point of view and for anyone else, never as "(event 1)" or a constraint."""
    import re

    import solvers
    from deduce.explain import why

    game, state, ids, card = _refuted_by_p1()
    suggested = ", ".join(game.deck.names(ids))
    shown = game.deck[card].name
    obs = state.observation(0)
    said = why(game.knowledge(obs), card, solvers.get("auto"), text.phraser(game, obs.events, 0))
    assert said == (f"{shown} is Mustard's: Mustard showed you {shown} "
                    f"(event 1: you suggested {suggested}: Mustard showed you {shown}).")
    names_only = why(game.knowledge(obs), card, solvers.get("auto"), text.phraser(game, obs.events))
    assert f"(event 1: Peacock suggested {suggested}: Mustard showed Peacock {shown})" in names_only
    # the board's wording module cites the same way
    hook = board_text.phraser(game, obs.events, 0)
    assert hook.cite("event 1") == ("event 1", f"you suggested {suggested}: Mustard showed you {shown}")
    assert re.search(r"\(event \d+\)", said + names_only) is None
