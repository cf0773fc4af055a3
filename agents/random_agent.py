"""``random``: a uniformly random legal action, for every game."""

from __future__ import annotations

from agents.base import Agent
from deduce.games.base import Action, Observation, sample_action

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among all the legal actions, listed or structured (Alibi's hypothesis
    questions): the baseline every game's agents must beat."""

    name = "random"

    def act(self, observation: Observation) -> Action:
        return sample_action(observation.legal_actions, self.rng)
