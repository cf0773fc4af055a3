"""Alibi (Mayfair 1992, RULES.md §1).

Modules: ``rules`` (the engine and its time-indexed knowledge), ``log`` (the player-view log).
"""

from deduce.games.alibi import log
from deduce.games.alibi.rules import AlibiConfig, AlibiGame, AlibiObservation, AlibiState
from deduce.games.base import GameInfo

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="alibi",
    game=AlibiGame,
    log=log,  # type: ignore[arg-type]
    incremental=False,
)

__all__ = ["INFO", "AlibiConfig", "AlibiGame", "AlibiObservation", "AlibiState"]
