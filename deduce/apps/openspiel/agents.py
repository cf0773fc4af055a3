"""OpenSpiel's bots as deduce agents: ``openspiel-ismcts``, ``openspiel-mcts``, ``openspiel-random``.

Each decision turns the agent's own observation into an OpenSpiel state of its information set
(:func:`deduce.apps.openspiel.resample.from_observation`: a hidden world drawn exactly uniformly
from its knowledge base, the moves it saw replayed) and asks the bot:

- ``openspiel-ismcts``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``, resampling every
  iteration's world with deduce's exact resampler (``max_simulations`` iterations, ``uct_c``,
  ``max_world_samples`` distinct worlds per search, -1 for a new one every iteration; leaves
  valued by ``rollouts`` random rollouts);
- ``openspiel-mcts``: ``open_spiel.python.algorithms.mcts.MCTSBot`` on one such world per
  decision (determinised MCTS: it searches that world as if it were known);
- ``openspiel-random``: ``UniformRandomBot``, through the same states (a check of the plumbing).

Budgets are iterations, never seconds; every random choice comes from the seed ``reset`` is
given. Clue without the board only (the games with an explicit deal).
``deduce.apps.openspiel.register_agents()`` registers these names for Clue.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from agents.base import Agent
from deduce.apps.openspiel.game import DeduceGame
from deduce.apps.openspiel.params import to_params
from deduce.apps.openspiel.resample import from_observation, resample
from deduce.errors import InvalidConfig
from deduce.games.base import Action, Game, Observation

__all__ = ["OpenSpielAgent", "ISMCTSAgent", "MCTSAgent", "UniformRandomAgent", "AGENTS"]


class OpenSpielAgent(Agent):
    """The common part: the OpenSpiel game of the deduce game, and a state per decision."""

    name = "openspiel"

    def reset(self, game: Game, player: int, seed: int | np.random.SeedSequence | None = None) -> None:
        super().reset(game, player, seed)
        self.spiel: DeduceGame = pyspiel.load_game(f"python_deduce_{game.name.replace('-', '_')}", to_params(game))
        self.bot = self.make_bot(np.random.RandomState(int(self.rng.integers(2**32))))

    def cannot_play(self, game: Any) -> str | None:
        """Why this agent cannot play ``game``: it rebuilds its state from an observation
        through Clue's explicit deal, which Clue on the board does not have (the seed behind
        its dice is in no observation)."""
        if getattr(game, "board", None) is not None:
            return f"{self.name} plays Clue without the board only: a board game's dice come from a seed no observation holds"
        return None

    def make_bot(self, random_state: np.random.RandomState) -> pyspiel.Bot:
        raise NotImplementedError

    def act(self, observation: Observation) -> Action:
        state = from_observation(self.spiel, observation, self.rng)
        return self.spiel.actions.decode(int(self.bot.step(state)))


def _positive(name: str, value: Any) -> int:
    if int(value) < 1:
        raise InvalidConfig(name, value, f"{name} must be a positive number of iterations")
    return int(value)


class ISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's ISMCTS with deduce's exact resampling (see the module docstring)."""

    name = "openspiel-ismcts"

    def __init__(self, max_simulations: int = 100, uct_c: float = 2.0, max_world_samples: int = -1,
                 rollouts: int = 1, **params: Any) -> None:
        super().__init__(max_simulations=max_simulations, uct_c=uct_c, max_world_samples=max_world_samples,
                         rollouts=rollouts, **params)
        self.max_simulations = _positive("max_simulations", max_simulations)
        self.rollouts = _positive("rollouts", rollouts)
        self.uct_c = float(uct_c)
        self.max_world_samples = int(max_world_samples)
        if self.max_world_samples == 0 or self.max_world_samples < -1:
            raise InvalidConfig("max_world_samples", max_world_samples, "give a positive count, or -1 for unlimited")

    def make_bot(self, random_state: np.random.RandomState) -> pyspiel.Bot:
        from open_spiel.python.algorithms import ismcts, mcts

        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        bot = ismcts.ISMCTSBot(self.spiel, evaluator, self.uct_c, self.max_simulations,
                               max_world_samples=self.max_world_samples, random_state=random_state)
        bot.set_resampler(lambda state, player: resample(state, player, self.rng))
        return bot


class MCTSAgent(OpenSpielAgent):
    """OpenSpiel's MCTS on one exactly sampled world per decision."""

    name = "openspiel-mcts"

    def __init__(self, max_simulations: int = 100, uct_c: float = 2.0, rollouts: int = 1, **params: Any) -> None:
        super().__init__(max_simulations=max_simulations, uct_c=uct_c, rollouts=rollouts, **params)
        self.max_simulations = _positive("max_simulations", max_simulations)
        self.rollouts = _positive("rollouts", rollouts)
        self.uct_c = float(uct_c)

    def make_bot(self, random_state: np.random.RandomState) -> pyspiel.Bot:
        from open_spiel.python.algorithms import mcts

        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        return mcts.MCTSBot(self.spiel, self.uct_c, self.max_simulations, evaluator, solve=False,
                            random_state=random_state)


class UniformRandomAgent(OpenSpielAgent):
    """OpenSpiel's uniform random bot."""

    name = "openspiel-random"

    def make_bot(self, random_state: np.random.RandomState) -> pyspiel.Bot:
        from open_spiel.python.bots.uniform_random import UniformRandomBot

        return UniformRandomBot(self.player, random_state)


#: the agents, by name (registered for Clue by deduce.apps.openspiel.register_agents)
AGENTS: dict[str, type[OpenSpielAgent]] = {a.name: a for a in (ISMCTSAgent, MCTSAgent, UniformRandomAgent)}
