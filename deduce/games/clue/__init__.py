"""Clue / Cluedo (RULES.md §5): board-less, on the board (``board_mode="board"``) or the intrigue edition.

Modules: ``rules`` (the engine and its knowledge), ``board`` and ``intrigue`` (the board and the
intrigue edition's cards), ``log`` (the player-view log), ``text`` and ``board_text`` (wording),
``actions`` (the action numbering).
"""

from deduce.games.base import Game, GameInfo, Wording
from deduce.games.clue import board_text, log, text
from deduce.games.clue.actions import action_index
from deduce.games.clue.rules import ClueConfig, ClueGame, ClueObservation, ClueState


def _wording(game: Game) -> Wording:
    """Board play adds dice, moves and the board picture to the board-less words."""
    return board_text if game.board is not None else text  # type: ignore[attr-defined, return-value]


#: what this game provides (read by :mod:`deduce.games.registry`)
INFO = GameInfo(
    name="clue",
    game=ClueGame,
    log=log,  # type: ignore[arg-type]
    wording=_wording,
    incremental=True,
    actions=action_index,  # type: ignore[arg-type]
)

__all__ = ["INFO", "ClueConfig", "ClueGame", "ClueObservation", "ClueState"]
