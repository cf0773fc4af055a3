"""Any deduce agent as a ``pyspiel.Bot``, for OpenSpiel's evaluation loops.

``AgentBot(agent, player, seed)`` answers ``step(state)`` by showing the agent its own deduce
observation of the state (never the state) and numbering the action it chooses; OpenSpiel's
``restart_at`` resets the agent for a new game with the seat and the seed given here.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from deduce.apps.openspiel.game import DeduceState
from deduce.errors import IllegalAction

__all__ = ["AgentBot"]


class AgentBot(pyspiel.Bot):
    """A deduce agent (``agents.get(...)``) playing seat ``player`` of a python_deduce_ game."""

    def __init__(self, agent: Any, player: int, seed: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self.player = int(player)
        self.seed = int(seed)
        self._game: Any = None

    def restart_at(self, state: DeduceState) -> None:
        """A new game: reset the agent with its seat and seed."""
        self._game = state.get_game()
        self.agent.reset(self._game.deduce, self.player, self.seed)

    def provides_policy(self) -> bool:
        return False

    def step(self, state: DeduceState) -> int:
        """The agent's move, numbered (the agent sees only its own observation)."""
        if self._game is None or self._game is not state.get_game():
            self.restart_at(state)
        if state.current_player() != self.player:
            raise IllegalAction(f"seat {self.player}'s bot was asked to move for seat {state.current_player()}")
        obs = state.deduce_observation(self.player)
        return int(self._game.actions.encode(self.agent.act(obs)))
