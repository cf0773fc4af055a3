"""Crime Hotel (RULES.md §4).

Modules: ``rules`` (the engine and its time-indexed knowledge of the current game), ``log``
(the player-view log), ``actions`` (the action numbering).
"""

from deduce.games.base import GameInfo
from deduce.games.crime_hotel import log, text
from deduce.games.crime_hotel.actions import action_index
from deduce.games.crime_hotel.rules import (
    CrimeHotelConfig,
    CrimeHotelGame,
    CrimeHotelObservation,
    CrimeHotelState,
)

#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="crime-hotel",
    game=CrimeHotelGame,
    log=log,  # type: ignore[arg-type]
    wording=lambda game: text,  # type: ignore[arg-type, return-value]
    incremental=False,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "CrimeHotelConfig", "CrimeHotelGame", "CrimeHotelObservation", "CrimeHotelState"]
