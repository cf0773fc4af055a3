"""Game engines, one folder per game, each of the same shape (see :mod:`deduce.games.base`) and each
declaring what it provides in one :class:`~deduce.games.base.GameInfo` record."""

from deduce.games.base import Action, Event, Game, GameInfo, Observation, State
from deduce.games.registry import game_class, game_info, game_names, make, register

__all__ = ["Action", "Event", "Game", "Observation", "State", "make", "register", "game_names", "game_class", "game_info", "GameInfo"]
