"""What one seat of a deduce game sees, as OpenSpiel strings and tensors.

Everything here is built from the seat's own :class:`~deduce.games.base.Observation`
(``state.observation(player)``), never from the hidden state, so nothing hidden leaks.

- **Information state string** (perfect recall): the seat, then every event the seat has seen,
  one line each in the game's words (its wording module; an event without words by its
  ``repr``), then the rest of the observation (hand, hand sizes, whose turn, the game's own
  fields such as Clue's card to refute).
- **Observation string**: the seat, the rest of the observation and the latest event only.
- Both end, for a seat composing a structured question (Mayfair Alibi's hypotheses, see
  :data:`deduce.apps.openspiel.game.COMPOSED`), with what it has chosen of it so far.
- **Observation tensor**: what the seat may know in a fixed shape, the PettingZoo adapter's
  encoding: the propagated possible-location grid of its knowledge base (``cards x
  locations``, the last epoch for games whose cards move), a one-hot of its seat and one of
  the seat to act (last entry: the game is over).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from deduce.games.base import Event, Game, Observation
from deduce.games.registry import game_info
from deduce.knowledge import propagate

if TYPE_CHECKING:
    from deduce.apps.openspiel.game import DeduceState

__all__ = ["DeduceObserver", "event_words", "information_string", "observation_string", "knowledge_tensor"]

#: observation fields that are not summarised in the status line (said elsewhere, or derived)
_SKIP = {"game", "player", "num_players", "events", "legal_actions", "names"}


def event_words(game: Game) -> Callable[[Event, int], str]:
    """``words(event, seat)``: one viewed event in the game's words (else its ``repr``)."""
    wording = game_info(game.name).wording
    if wording is None:
        return lambda event, seat: repr(event)
    module = wording(game)
    return lambda event, seat: module.event_text(game, event, you=seat)


def _status(obs: Observation) -> str:
    parts = [f"{f.name}={getattr(obs, f.name)!r}" for f in dataclasses.fields(obs) if f.name not in _SKIP]
    return " ".join(parts)


def _seat(obs: Observation, player: int) -> str:
    name = obs.names[player] if obs.names else f"p{player}"
    return f"seat {player} ({name})"


def information_string(obs: Observation, player: int, words: Callable[[Event, int], str]) -> str:
    """The perfect-recall string of ``player``'s observation (see the module docstring)."""
    lines = [_seat(obs, player), *(words(e, player) for e in obs.events), _status(obs)]
    return "\n".join(lines)


def observation_string(obs: Observation, player: int, words: Callable[[Event, int], str]) -> str:
    """The seat, the observation's status and the latest event it saw."""
    last = words(obs.events[-1], player) if obs.events else "nothing yet"
    return "\n".join([_seat(obs, player), _status(obs), f"last: {last}"])


def knowledge_tensor(game: Game, obs: Observation, player: int) -> np.ndarray:
    """The fixed-shape float32 encoding of what ``player`` may know (see the module docstring)."""
    possible = propagate(game.knowledge(obs)).possible
    grid = possible[-1] if possible.ndim == 3 else possible
    n = game.num_players
    me = np.zeros(n, np.float32)
    me[player] = 1.0
    turn = np.zeros(n + 1, np.float32)
    turn[n if obs.terminal else obs.current_player] = 1.0
    return np.concatenate([grid.astype(np.float32).ravel(), me, turn])


class DeduceObserver:
    """OpenSpiel's Python observer protocol (``tensor``, ``dict``, ``set_from``,
    ``string_from``) for one deduce game: perfect recall gives the information state string;
    otherwise the observation string and tensor. Before the deal ends a seat has seen nothing:
    the tensor is zeros and the string names only the seat."""

    def __init__(self, game: Game, perfect_recall: bool, tensor_size: int) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        self.words = event_words(game)
        size = 0 if perfect_recall else tensor_size
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {"observation": self.tensor} if size else {}

    def set_from(self, state: DeduceState, player: int) -> None:
        """Fill ``tensor`` from ``player``'s observation of ``state``."""
        self.tensor.fill(0.0)
        obs = state.deduce_observation(player)
        if obs is not None and self.tensor.size:
            self.tensor[:] = knowledge_tensor(self.game, obs, player)

    def string_from(self, state: DeduceState, player: int) -> str:
        """``player``'s information state string (perfect recall) or observation string."""
        obs = state.deduce_observation(player)
        if obs is None:
            return f"seat {player}: the deal is not over"
        composing = state.composing_text() if state.composing is not None and player == state.current_player() else ""
        if self.perfect_recall:
            text = information_string(obs, player, self.words)
        else:
            text = observation_string(obs, player, self.words)
        return f"{text}\n{composing}" if composing else text
