"""The intrigue edition of Clue (2008 and later; RULES.md §5A, the seed): ``?`` squares and die
faces draw intrigue cards, bonus cards, clocks that eliminate, accusations from the pool.

``ClueConfig(board_mode="board", edition="intrigue")`` plays it on
:data:`~deduce.games.clue.board.INTRIGUE_BOARD`. The rules, with the defaults for what the
seed leaves open (each a ``ClueConfig`` field):

* the intrigue deck holds ``clocks`` clock cards (8) and the bonus cards ``bonus_cards``
  (4 "move to any room", 4 "decline to show a card"), shuffled with the state's generator the
  first time a card is drawn;
* a card is drawn for every ``?`` rolled (``question_dice`` of the dice (1) show ``?`` in place
  of the 1, and a ``?`` counts ``question_face_steps`` (1) towards the move) and on ending a move
  on a ``?`` square (a token passing one must stop there, so moves end on them);
* that a card was drawn, and a clock, is public; which bonus card is private to its drawer
  (``bonus_public`` makes it public); bonus cards are kept until played, then discarded;
* a clock is laid beside the board; whoever draws the ``clocks``-th is eliminated at once; the
  clocks are then shuffled back into the deck and every clock drawn after that eliminates;
* "move to any room" is played at the start of one's turn instead of rolling: the token goes to
  any other room and its owner suggests there; "decline" is played instead of showing a card
  (only by a player who holds a named card: everyone sees that it holds one), and the next
  player refutes instead (``decline_passes_on``);
* accusations (and looking at the face-down leftover pile) only with one's token in the pool
  (``accuse_in_pool``); the pool is entered like a room, and nobody suggests there;
* eliminated players, by clock or by a wrong accusation, still refute.

Intrigue cards say nothing about where the deduction cards are, so the knowledge base is the
board game's, plus "holds one of the three" for a player who declined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from deduce.games.base import Action, Event

if TYPE_CHECKING:
    from deduce.games.clue.rules import ClueState

__all__ = [
    "CLOCK",
    "ANY_ROOM",
    "DECLINE",
    "BONUS_KINDS",
    "UseAnyRoom",
    "Decline",
    "IntrigueDrawn",
    "Eliminated",
    "draw",
    "new_deck",
]

CLOCK = "clock"
ANY_ROOM = "any_room"
DECLINE = "decline"
#: the bonus cards this engine knows (the two the seed names)
BONUS_KINDS = (ANY_ROOM, DECLINE)


@dataclass(frozen=True)
class UseAnyRoom(Action):
    """Play a "move to any room" card at the start of one's turn: the token goes to room
    ``to`` (a board place), where its owner then suggests."""

    to: int


@dataclass(frozen=True)
class Decline(Action):
    """Play a "decline to show" card instead of showing one of the named cards one holds."""


@dataclass(frozen=True)
class IntrigueDrawn(Event):
    """``player`` drew an intrigue card (``cause``: ``"die"`` or ``"square"``); ``card`` is
    ``"clock"`` for everyone, a bonus card's kind for its drawer (``None`` for the others unless
    bonus cards are public); ``clocks`` is the number of clocks beside the board after it."""

    player: int
    card: str | None
    cause: str
    clocks: int
    public: bool = False
    kind: ClassVar[str] = "intrigue_drawn"

    def view(self, player: int | None) -> Event | None:
        if self.card == CLOCK or self.public or player == self.player:
            return self
        return IntrigueDrawn(self.player, None, self.cause, self.clocks, self.public)


@dataclass(frozen=True)
class Eliminated(Event):
    """``player`` is out (``reason``: ``"clock"``); it still refutes suggestions."""

    player: int
    reason: str
    kind: ClassVar[str] = "eliminated"


def new_deck(state: ClueState) -> list[str]:
    """The shuffled intrigue deck of a new game, from the state's generator."""
    cfg = state.game.config
    deck = [CLOCK] * cfg.clocks + [kind for kind, count in cfg.bonus_cards for _ in range(count)]
    state.rng.shuffle(deck)
    return deck


def draw(state: ClueState, player: int, cause: str) -> list[Event]:
    """``player`` draws the top intrigue card (nothing if the deck is empty): a bonus card goes
    to its hand; a clock may eliminate it (the caller ends the turn if so)."""
    cfg = state.game.config
    if state.intrigue_deck is None:
        state.intrigue_deck = new_deck(state)
    if not state.intrigue_deck:
        return []
    card = state.intrigue_deck.pop()
    if card != CLOCK:
        state.bonus[player].append(card)
        return [IntrigueDrawn(player, card, cause, state.clocks_out, cfg.bonus_public)]
    state.clocks_out += 1
    events: list[Event] = [IntrigueDrawn(player, CLOCK, cause, state.clocks_out, cfg.bonus_public)]
    if state.clocks_reshuffled or state.clocks_out >= cfg.clocks:
        events.append(Eliminated(player, CLOCK))
        state.eliminated.add(player)
    if not state.clocks_reshuffled and state.clocks_out >= cfg.clocks:
        state.clocks_reshuffled = True
        state.clocks_out = 0
        state.intrigue_deck += [CLOCK] * cfg.clocks
        state.rng.shuffle(state.intrigue_deck)
    return events
