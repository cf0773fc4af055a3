"""The table-side assistant: one session (:mod:`.session`) and one adapter per game.

Adapters are listed by game name in :data:`.session.ADAPTERS`; ``text`` holds what they share
for reading names and drawing the grid.
"""

from deduce.apps.assist.session import (
    ADAPTERS,
    GameAdapter,
    GameAssistant,
    adapter_for,
    assisted_games,
)

__all__ = ["ADAPTERS", "GameAdapter", "GameAssistant", "adapter_for", "assisted_games"]
