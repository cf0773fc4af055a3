"""Clue's fixed action numbering (see :mod:`deduce.actions`): suggestions and accusations by
(suspect, weapon, room), shown cards by id, then the actions without fields."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice, Seq
from deduce.games.clue.rules import Accuse, ClueGame, EndTurn, Show, Suggest, ViewExtra


def action_index(game: ClueGame) -> ActionIndex:
    """Every action a Clue configuration can offer, numbered once."""
    s, w, r = (Choice(cat) for cat in game.categories)
    triple = Seq([s, w, r])
    return ActionIndex([
        Block(Suggest, [triple]),
        Block(Show, [Choice(range(len(game.deck)))]),
        Block(Accuse, [triple]),
        Block(ViewExtra),
        Block(EndTurn),
    ])
