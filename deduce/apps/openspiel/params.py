"""A deduce game's configuration as OpenSpiel game parameters, and back.

OpenSpiel parameters are ``int``, ``float``, ``bool`` or ``str``. Every config field with a
default of one of those types is a parameter of the same name and type (``num_players`` is
called ``players``, OpenSpiel's usual name); every other field (tuples of names, optional
values) is a ``str`` parameter holding JSON, where the empty string keeps the rule book's
default: ``{"suspects": '["Plum", "Peacock", "Green"]'}``. One parameter belongs to the adapter:
``max_game_length`` (player moves before the game is cut off with no winner). There is no seed
parameter: every chance node is explicit, so OpenSpiel (or the caller) draws its outcomes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from deduce.errors import InvalidConfig, UnknownName
from deduce.games.base import Game

__all__ = ["PLAYERS", "MAX_GAME_LENGTH", "defaults", "config_fields", "to_params"]

#: OpenSpiel's name for ``num_players``
PLAYERS = "players"
#: player moves after which the adapter ends the game with no winner (every return 0)
MAX_GAME_LENGTH = "max_game_length"
#: the default of ``max_game_length``: far beyond any game its engine lets finish (random play
#: ends Alibi, the longest, in under 800 moves; every engine caps its turns)
DEFAULT_MAX_GAME_LENGTH = 5000

_SCALARS = (bool, int, float, str)


def _name(field: str) -> str:
    return PLAYERS if field == "num_players" else field


def defaults(game_class: type[Game]) -> dict[str, Any]:
    """The parameter specification of ``game_class``: every parameter with its default."""
    config = game_class.config_class()
    spec: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        spec[_name(f.name)] = value if isinstance(value, _SCALARS) else ""
    spec[MAX_GAME_LENGTH] = DEFAULT_MAX_GAME_LENGTH
    return spec


def _tuples(value: Any) -> Any:
    """JSON lists as tuples, all the way down (config fields are hashable tuples)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def config_fields(game_class: type[Game], params: Mapping[str, Any]) -> dict[str, Any]:
    """The config fields that ``params`` set (an empty JSON parameter keeps its default)."""
    config = game_class.config_class()
    known = {_name(f.name): f.name for f in dataclasses.fields(config)}
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key == MAX_GAME_LENGTH:
            continue
        field = known.get(key)
        if field is None:
            raise UnknownName(f"{game_class.name}: unknown parameter {key!r}; known: {', '.join(sorted(known))}")
        default = getattr(config, field)
        if isinstance(default, _SCALARS):
            out[field] = value
        elif value != "":
            try:
                out[field] = _tuples(json.loads(value))
            except (TypeError, json.JSONDecodeError) as exc:
                raise InvalidConfig(key, value, f"give {key} as JSON ({exc})") from None
    return out


def to_params(game: Game) -> dict[str, Any]:
    """The parameters that load ``game``'s configuration (the fields that differ from the
    rule book's, JSON where a field is not a scalar)."""
    book = game.config_class()
    out: dict[str, Any] = {}
    for f in dataclasses.fields(game.config):
        value = getattr(game.config, f.name)
        if value == getattr(book, f.name):
            continue
        out[_name(f.name)] = value if isinstance(value, _SCALARS) else json.dumps(value)
    return out
