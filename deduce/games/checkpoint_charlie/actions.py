"""Checkpoint Charlie's fixed action numbering (see :mod:`deduce.actions`): choosing a side,
arresting a category, passing."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice
from deduce.games.checkpoint_charlie.rules import (
    NUM_CATS,
    Arrest,
    CheckpointCharlieGame,
    ChooseSide,
    Pass,
)


def action_index(game: CheckpointCharlieGame) -> ActionIndex:
    """Every action a Checkpoint Charlie configuration can offer, numbered once."""
    return ActionIndex([
        Block(ChooseSide, [Choice((0, 1))]),
        Block(Arrest, [Choice(range(NUM_CATS))]),
        Block(Pass),
    ])
