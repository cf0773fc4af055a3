"""Alibi (Mayfair 1992, RULES.md §1).

Modules: ``rules`` (the engine and its time-indexed knowledge), ``log`` (the player-view log), ``text`` (its words for people), ``actions``
(the action numbering).
"""

from deduce.games.alibi import log, text
from deduce.games.alibi.actions import action_index
from deduce.games.alibi.rules import AlibiConfig, AlibiGame, AlibiObservation, AlibiState
from deduce.games.base import GameInfo

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="alibi",
    game=AlibiGame,
    log=log,  # type: ignore[arg-type]
    wording=lambda game: text,  # type: ignore[arg-type, return-value]
    incremental=False,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "AlibiConfig", "AlibiGame", "AlibiObservation", "AlibiState"]
