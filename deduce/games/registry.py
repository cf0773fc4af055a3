"""Games by name: ``deduce.make("clue", num_players=4)``.

Each built-in game is a folder ``deduce/games/<game>/`` whose ``INFO`` (a
:class:`~deduce.games.base.GameInfo`) declares what it provides; :data:`BUILTIN_GAMES` lists them
in order, and a game's folder is imported on first use. ``register`` adds games from elsewhere.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from deduce.errors import UnknownName
from deduce.games.base import Game, GameInfo

__all__ = ["make", "register", "game_names", "game_class", "game_info", "BUILTIN_GAMES"]

#: the built-in games, by the name a person types, with where each declares its ``INFO``
BUILTIN_GAMES: dict[str, str] = {
    "clue": "deduce.games.clue:INFO",
    "alibi": "deduce.games.alibi:INFO",
    "alibi-adlung": "deduce.games.alibi_adlung:INFO",
    "mafia-code": "deduce.games.mafia_code:INFO",
    "checkpoint-charlie": "deduce.games.checkpoint_charlie:INFO",
    "crime-hotel": "deduce.games.crime_hotel:INFO",
}

_REGISTERED: dict[str, str | GameInfo] = {}
_LOADED: dict[str, GameInfo] = {}


def register(name: str, game: str | type[Game] | GameInfo) -> None:
    """Make a game available as ``deduce.make(name)``: its :class:`GameInfo`, a ``"module:attr"``
    naming one, or a bare Game class (a game with no log format, wording or action numbering)."""
    if isinstance(game, type):
        game = GameInfo(name=name, game=game)
    _REGISTERED[name] = game
    _LOADED.pop(name, None)


def game_names() -> tuple[str, ...]:
    """Registered games: the built-in ones, then any registered."""
    return tuple(BUILTIN_GAMES) + tuple(n for n in _REGISTERED if n not in BUILTIN_GAMES)


def game_info(name: str) -> GameInfo:
    """What the game registered as ``name`` provides (its folder is imported on first use)."""
    info = _LOADED.get(name) if isinstance(name, str) else None
    if info is not None:
        return info
    entry = (_REGISTERED.get(name) or BUILTIN_GAMES.get(name)) if isinstance(name, str) else None
    if entry is None:
        raise UnknownName(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        loaded = getattr(importlib.import_module(module), attr)
        entry = loaded if isinstance(loaded, GameInfo) else GameInfo(name=name, game=loaded)
    _LOADED[name] = entry
    return entry


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name``."""
    return game_info(name).game


def make(name: str, **config_fields: Any) -> Game:
    """A game by registered name, configured by the fields of its config class."""
    cls = game_class(name)
    config_cls = cls.config_class
    known = {f.name for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(config_fields) - known)
    if unknown:
        raise UnknownName(f"{name}: unknown config field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return cls(config_cls(**config_fields))
