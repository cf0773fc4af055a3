"""Any deduce agent as a ``pyspiel.Bot``, for OpenSpiel's evaluation loops, or as an OpenSpiel
policy, for its exploitability tools.

``AgentBot(agent, player, seed)`` answers ``step(state)`` by showing the agent its own deduce
observation of the state (never the state) and numbering the action it chooses; OpenSpiel's
``restart_at`` resets the agent for a new game with the seat and the seed given here.
``AgentPolicy(game, make_agent, seed)`` is the (deterministic) policy of an agent in every seat:
at each information state the agent, reset with that seat and ``seed``, picks one move from the
seat's observation (an agent that remembers earlier calls is asked afresh each time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyspiel

from deduce.apps.openspiel.game import DeduceState
from deduce.errors import IllegalAction

__all__ = ["AgentBot", "AgentPolicy"]


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


class AgentPolicy:
    """A deduce agent as an ``open_spiel.python.policy.Policy`` (see the module docstring)."""

    def __new__(cls, game: Any, make_agent: Callable[[], Any], seed: int = 0) -> Any:
        from open_spiel.python import policy

        class _Policy(policy.Policy):
            def __init__(self) -> None:
                super().__init__(game, list(range(game.num_players())))
                self._cache: dict[tuple[int, str], int] = {}

            def action_probabilities(self, state: DeduceState, player_id: int | None = None) -> dict[int, float]:
                seat = state.current_player() if player_id is None else player_id
                key = (seat, state.information_state_string(seat))
                if key not in self._cache:
                    agent = make_agent()
                    agent.reset(game.deduce, seat, seed)
                    self._cache[key] = int(game.actions.encode(agent.act(state.deduce_observation(seat))))
                return {self._cache[key]: 1.0}

        return _Policy()
