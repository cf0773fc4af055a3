"""Checkpoint Charlie (RULES.md §3).

Modules: ``rules`` (the engine and its knowledge of the current round), ``log`` (the player-view log), ``text`` (its words for people),
``actions`` (the action numbering).
"""

from deduce.games.base import GameInfo
from deduce.games.checkpoint_charlie import log, text
from deduce.games.checkpoint_charlie.actions import action_index
from deduce.games.checkpoint_charlie.rules import (
    CheckpointCharlieConfig,
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    CheckpointCharlieState,
)

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="checkpoint-charlie",
    game=CheckpointCharlieGame,
    log=log,  # type: ignore[arg-type]
    wording=lambda game: text,  # type: ignore[arg-type, return-value]
    incremental=True,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "CheckpointCharlieConfig", "CheckpointCharlieGame", "CheckpointCharlieObservation", "CheckpointCharlieState"]
