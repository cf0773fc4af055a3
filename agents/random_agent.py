"""``random``: a uniformly random legal action, for every game."""

from __future__ import annotations

from agents.base import Agent
from deduce.games.base import Action, Observation

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among the legal actions (the baseline every game's agents must beat)."""

    name = "random"

    def act(self, observation: Observation) -> Action:
        actions = observation.legal_actions
        return actions[int(self.rng.integers(len(actions)))]
