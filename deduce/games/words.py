"""Words every game's wording module uses: a seat as a person reads it ("you" for the reader's
own seat, else the player's name) and a list of card names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["who", "cards_text"]


def who(game: Any, seat: int, you: int | None) -> str:
    """``"you"`` for the reader's own seat, else the player's name from the game's config."""
    return "you" if seat == you else game.config.names[seat]


def cards_text(game: Any, cards: Sequence[int]) -> str:
    """Card names separated by commas."""
    return ", ".join(game.deck[c].name for c in cards)
