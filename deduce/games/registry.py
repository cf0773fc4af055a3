"""Games by name: ``deduce.make("clue", num_players=4)``. Modules load on first use."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from deduce.errors import UnknownName
from deduce.games.base import Game

__all__ = ["make", "register", "game_names", "game_class"]

_GAMES: dict[str, str | type[Game]] = {
    "clue": "deduce.games.clue:ClueGame",
}


def register(name: str, game: str | type[Game]) -> None:
    """Make a game class (or ``"module:Class"``) available as ``deduce.make(name)``."""
    _GAMES[name] = game


def game_names() -> tuple[str, ...]:
    return tuple(_GAMES)


def game_class(name: str) -> type[Game]:
    try:
        entry = _GAMES[name]
    except (KeyError, TypeError):
        raise UnknownName(f"unknown game {name!r}; known games: {', '.join(_GAMES)}") from None
    if isinstance(entry, str):
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

