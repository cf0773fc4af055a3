"""Players. An agent sees an Observation, never the State.

``agents.get(name, game=...)`` builds one: ``random`` for every game; for Clue also
``notebook`` (a careful human's checklist) and ``deductive`` (full solver deduction).
"""

from agents.base import Agent
from agents.registry import available, get, register

__all__ = ["Agent", "get", "register", "available"]
