"""Games by name: ``deduce.make("clue", num_players=4)``.

A built-in game ``name`` lives in the module ``deduce.games.<name with - as _>``, which defines
``GAME`` (its Game class); modules load on first use. ``register`` adds games from elsewhere.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from typing import Any

from deduce.errors import UnknownName
from deduce.games.base import Game

__all__ = ["make", "register", "game_names", "game_class", "BUILTIN_GAMES"]

BUILTIN_GAMES = ("clue", "alibi", "alibi-adlung", "mafia-code", "checkpoint-charlie", "crime-hotel")

_GAMES: dict[str, str | type[Game]] = {}


def _module_name(name: str) -> str:
    return "deduce.games." + name.replace("-", "_")


def register(name: str, game: str | type[Game]) -> None:
    """Make a game class (or ``"module:Class"``) available as ``deduce.make(name)``."""
    _GAMES[name] = game


def game_names() -> tuple[str, ...]:
    """Registered games: the built-in ones whose module is present, then any registered."""
    present = tuple(n for n in BUILTIN_GAMES if importlib.util.find_spec(_module_name(n)) is not None)
    return present + tuple(n for n in _GAMES if n not in present)


def game_class(name: str) -> type[Game]:
    """The Game class registered as ``name`` (its module is imported on first use)."""
    entry = _GAMES.get(name) if isinstance(name, str) else None
    if entry is None:
        if name not in game_names():
            raise UnknownName(f"unknown game {name!r}; known games: {', '.join(game_names())}")
        entry = importlib.import_module(_module_name(name)).GAME
    elif isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = getattr(importlib.import_module(module), attr)
    _GAMES[name] = entry
    return entry


def make(name: str, **config_fields: Any) -> Game:
    """A game by registered name, configured by the fields of its config class."""
    cls = game_class(name)
    config_cls = cls.config_class
    known = {f.name for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(config_fields) - known)
    if unknown:
        raise UnknownName(f"{name}: unknown config field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return cls(config_cls(**config_fields))
