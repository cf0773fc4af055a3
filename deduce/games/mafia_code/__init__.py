"""Mafia Code (RULES.md §2).

Modules: ``rules`` (the engine and its knowledge), ``log`` (the player-view log), ``text`` (its words for people), ``actions`` (the action
numbering).
"""

from deduce.games.base import GameInfo
from deduce.games.mafia_code import log, text
from deduce.games.mafia_code.actions import action_index
from deduce.games.mafia_code.rules import (
    MafiaCodeConfig,
    MafiaCodeGame,
    MafiaCodeObservation,
    MafiaCodeState,
)

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="mafia-code",
    game=MafiaCodeGame,
    log=log,  # type: ignore[arg-type]
    wording=lambda game: text,  # type: ignore[arg-type, return-value]
    incremental=True,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "MafiaCodeConfig", "MafiaCodeGame", "MafiaCodeObservation", "MafiaCodeState"]
