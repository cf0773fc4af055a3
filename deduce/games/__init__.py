"""Game engines, one module per game, each of the same shape (see :mod:`deduce.games.base`)."""

from deduce.games.base import Action, Event, Game, Observation, State
from deduce.games.registry import game_class, game_names, make, register

__all__ = ["Action", "Event", "Game", "Observation", "State", "make", "register", "game_names", "game_class"]
