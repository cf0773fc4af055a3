"""Players. An agent sees an Observation, never the State.

``agents.get(name, game=...)`` builds one: ``random`` for every game, plus each game's own
agents from ``agents/<game>.py`` and ``agents/<game>_*.py`` (``deduce agents GAME`` lists them):
Clue ``notebook``, ``deductive``, ``infogain``, ``lookahead`` and the board agents; Mafia Code
``facts``, ``greedy``, ``solver``; Checkpoint Charlie ``patient``, ``bayesian``; Crime Hotel
``solver``; Alibi ``solver``, ``solver-randq``; Alibi (Adlung) ``counting``.
"""

from agents.base import Agent
from agents.registry import available, get, register

__all__ = ["Agent", "get", "register", "available"]
