"""Clue on the board in plain words: dice, token moves, intrigue cards and the board picture.

Extends :mod:`deduce.games.clue.text` (which words everything a board-less game has) with the
board's actions and events; :func:`board_text` draws the board with every token for one seat.
``ClueGame.text_module`` names this module when the game is played on the board.
"""

from __future__ import annotations

from collections.abc import Sequence

from deduce.errors import InvalidConfig
from deduce.explain import Phrasing, event_citer
from deduce.games.base import Action, Event, Observation
from deduce.games.clue import text as clue_text
from deduce.games.clue.board import render
from deduce.games.clue.intrigue import CLOCK, Eliminated, IntrigueDrawn, UseAnyRoom
from deduce.games.clue.rules import ClueGame, Move, Roll, Rolled, Suggestion, TokenMoved

__all__ = ["event_text", "action_text", "phraser", "board_text", "status_text", "final_scores", "actions_help"]

status_text = clue_text.status_text
actions_help = clue_text.actions_help
final_scores = clue_text.final_scores


def _seat_name(game: ClueGame, seat: int, you: int | None) -> str:
    return "you" if seat == you else game.config.names[seat]


def _token(game: ClueGame, token: int, you: int | None) -> str:
    suspect = game.config.suspects[token]
    if token < game.num_players:
        return f"{suspect} ({_seat_name(game, token, you)})"
    return suspect


def event_text(game: ClueGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    board = game.board
    if isinstance(event, Rolled):
        return f"{_seat_name(game, event.player, you)} rolled {event.value}"
    if isinstance(event, TokenMoved) and board is not None:
        who, there = _token(game, event.token, you), board.label(event.dst)
        if event.cause == "suggestion":
            return f"{who} was moved into the {there} by the suggestion"
        if event.cause == "passage":
            return f"{who} took the secret passage to the {there}"
        if event.cause == "intrigue":
            return f"{who} played 'move to any room' and went to the {there}"
        article = "the " if board.is_room(event.dst) else ""
        return f"{who} moved from {board.label(event.src)} to {article}{there}"
    if isinstance(event, IntrigueDrawn):
        who = _seat_name(game, event.player, you)
        where = "a rolled '?'" if event.cause == "die" else "a '?' square"
        if event.card == CLOCK:
            return f"{who} drew a clock ({where}); {event.clocks} beside the board"
        card = _CARD_WORDS.get(event.card or "", "a bonus card")
        return f"{who} drew {card} ({where})"
    if isinstance(event, Eliminated):
        return f"{_seat_name(game, event.player, you)} {'are' if event.player == you else 'is'} out ({event.reason})"
    text = clue_text.event_text(game, event, you)
    if isinstance(event, Suggestion) and event.declined:
        names = ", ".join(_seat_name(game, p, you) for p in event.declined)
        if not event.refuters:  # they could have refuted: it is not that nobody could
            text = text.replace("nobody could refute", "nobody showed a card")
        text += f"; declined to show (holding one of them, with a decline card): {names}"
    return text


_CARD_WORDS = {"any_room": "a 'move to any room' card", "decline": "a 'decline to show' card"}


def action_text(game: ClueGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words (what a player types a prefix of to choose it)."""
    board = game.board
    if isinstance(action, Roll):
        return "roll the dice"
    if isinstance(action, Move) and board is not None:
        return f"move to {board.label(action.to)}"
    if isinstance(action, UseAnyRoom) and board is not None:
        return f"play move to any room: {board.label(action.to)}"
    return clue_text.action_text(game, action)


def phraser(game: ClueGame, events: Sequence[Event], you: int | None = None) -> Phrasing:
    """The same wording hook as the board-less game (movement adds no constraints); events are
    cited in the board's words."""
    hook = clue_text.phraser(game, events, you)
    return Phrasing(hook.phrase, event_citer(events, lambda event: event_text(game, event, you), clue_text.FACTS))


def board_text(game: ClueGame, positions: Sequence[int], you: int | None = None) -> str:
    """The board with every suspect token (``1``..``6`` in suspect order) and a legend saying
    whose token each is and where it stands."""
    board = game.board
    if board is None:
        raise InvalidConfig("board_mode", game.config.board_mode, "this Clue game is played without the board")
    legend = [_token(game, t, you) for t in range(len(positions))]
    return _labelled(render(board, positions, legend=legend), board.height, board.width)


def _labelled(picture: str, height: int, width: int) -> str:
    """The map with its row numbers on the left and column numbers on top, so a square named
    ``r18c6`` (row 18, column 6) can be found."""
    lines = picture.split("\n")
    tens = "".join(str(x // 10) if x % 10 == 0 else " " for x in range(width))
    ones = "".join(str(x % 10) for x in range(width))
    rows = [f"r{y:<2} {line}" for y, line in enumerate(lines[:height])]
    return "\n".join(["c   " + tens.rstrip(), "    " + ones, *rows, *lines[height:]])
