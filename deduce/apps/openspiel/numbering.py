"""The action numbering of Clue on the board (classic and intrigue edition) for OpenSpiel.

Clue's declared numbering (``deduce/games/clue/actions.py``) has no board moves, so the board
registrations number their actions here: Clue's own blocks first, unchanged (a suggestion,
a shown card, an accusation, a look at the pile or the end of a turn has the same number as
without the board), then ``Roll``, ``Move`` to each place of the board, and for the intrigue
edition its bonus cards: ``UseAnyRoom`` to each place and ``Decline``. A place is a
:class:`~deduce.games.clue.board.Board` place id (a room or a square); the ones no move can
reach are simply never legal.
"""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice
from deduce.games.clue.actions import action_index as clue_action_index
from deduce.games.clue.intrigue import Decline, UseAnyRoom
from deduce.games.clue.rules import ClueGame, Move, Roll

__all__ = ["board_action_index", "places"]


def places(game: ClueGame) -> tuple[int, ...]:
    """Every place of the game's board (rooms, squares, the intrigue pool), ascending."""
    board = game.board
    if board is None:
        raise ValueError(f"{game.name}: board_mode={game.config.board_mode!r} has no board")
    found = set(board.neighbours) | set(board.cells) | set(board.passages) | set(board.starts)
    if board.pool is not None:
        found.add(board.pool)
    return tuple(sorted(found))


def board_action_index(game: ClueGame) -> ActionIndex:
    """Clue's numbering, then the board's moves, then the intrigue cards (module docstring)."""
    where = Choice(places(game))
    blocks = [*clue_action_index(game).blocks, Block(Roll), Block(Move, [where])]
    if game.config.intrigue:
        blocks += [Block(UseAnyRoom, [where]), Block(Decline)]
    return ActionIndex(blocks)
