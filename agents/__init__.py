"""Players. An agent sees an Observation, never the State.

``agents.get(name, game=...)`` builds one: ``random`` for every game, plus each game's own
agents, listed in ``agents/<game>/__init__.py`` (``deduce agents GAME`` lists them): Clue
``notebook``, ``deductive``, ``infogain``, ``racer``, ``lookahead``, ``ismcts`` and the board
agents; Mafia Code ``facts``, ``greedy``, ``guess-chain``; Checkpoint Charlie ``patient``,
``bayesian``; Crime Hotel ``expected-points``; Alibi ``sampling``, ``sampling-randq``; Alibi
(Adlung) ``counting``.
"""

from agents.base import Agent
from agents.registry import available, get, register

__all__ = ["Agent", "get", "register", "available"]
