"""Mafia Code's fixed action numbering (see :mod:`deduce.actions`): a guess by (seat, card),
then stopping."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice
from deduce.games.mafia_code.rules import Guess, MafiaCodeGame, Stop


def action_index(game: MafiaCodeGame) -> ActionIndex:
    """Every action a Mafia Code configuration can offer, numbered once."""
    return ActionIndex([
        Block(Guess, [Choice(range(game.num_players)), Choice(range(game.config.num_cards))]),
        Block(Stop),
    ])
