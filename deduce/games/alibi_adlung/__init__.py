"""Alibi (Adlung 2001, RULES.md §1′).

Modules: ``rules`` (the engine and its static knowledge), ``history`` (the time-indexed
knowledge an exact posterior needs), ``log`` (the player-view log, in card faces), ``actions`` (the action numbering).
"""

from deduce.games.alibi_adlung import log, text
from deduce.games.alibi_adlung.actions import action_index
from deduce.games.alibi_adlung.rules import (
    AlibiAdlungConfig,
    AlibiAdlungGame,
    AlibiAdlungObservation,
    AlibiAdlungState,
)
from deduce.games.base import GameInfo

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="alibi-adlung",
    game=AlibiAdlungGame,
    log=log,  # type: ignore[arg-type]
    wording=lambda game: text,  # type: ignore[arg-type, return-value]
    incremental=False,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "AlibiAdlungConfig", "AlibiAdlungGame", "AlibiAdlungObservation", "AlibiAdlungState"]
