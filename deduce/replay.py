"""Replay logs: any game, saved as its configuration, deal seed and the actions played, and
replayed to the same final state. The action and config encodings are generic (dataclass
fields as JSON), so every registered game has one without code of its own.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from deduce.errors import DeduceError, IllegalAction, LogError
from deduce.games.base import Action, Game, State
from deduce.games.registry import game_class, game_names

__all__ = ["save_replay", "load_replay", "encode_action", "decode_action", "FORMAT"]

FORMAT = "deduce-replay/1"


def _to_json(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_json(v) for k, v in value.items()}
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def _to_tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_to_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_tuples(v) for k, v in value.items()}
    return value


def encode_action(action: Action) -> dict[str, Any]:
    """``{"type": ClassName, field: value, ...}``."""
    return {"type": type(action).__name__, **_to_json(action)}


def decode_action(game: Game, data: Mapping[str, Any]) -> Action:
    """The action of ``game``'s module named by ``data["type"]``, fields restored."""
    module = sys.modules[type(game).__module__]  # loaded: the game was built from it
    cls = getattr(module, str(data.get("type")), None)
    if not (isinstance(cls, type) and issubclass(cls, Action)):
        raise LogError(f"unknown action type {data.get('type')!r} for {game.name}")
    try:
        return _restore(data, cls, module)
    except (TypeError, ValueError, KeyError) as exc:
        raise LogError(f"bad fields for action {cls.__name__}: {exc}") from None


def _restore(value: Any, hint: Any, module: Any) -> Any:
    """Rebuild a JSON value as the type ``hint`` names: dataclasses, enums, tuples, unions."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        for option in options:
            try:
                return _restore(value, option, module)
            except (TypeError, ValueError, KeyError):
                continue
        return _to_tuples(value)
    if origin is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_restore(v, args[0], module) for v in value)
        if args and len(args) == len(value):
            return tuple(_restore(v, a, module) for v, a in zip(value, args, strict=True))
        return _to_tuples(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, Mapping):
        hints = typing.get_type_hints(hint, vars(module))
        kwargs = {
            f.name: _restore(value[f.name], hints.get(f.name, Any), module)
            for f in dataclasses.fields(hint)
            if f.init and f.name in value
        }
        unknown = set(value) - {f.name for f in dataclasses.fields(hint)} - {"type"}
        if unknown:
            raise TypeError(f"unknown field(s) {sorted(unknown)}")
        return hint(**kwargs)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    return _to_tuples(value)


def save_replay(game: Game, deal_seed: int, actions: Sequence[Action]) -> dict[str, Any]:
    """A JSON-ready replay log of a game dealt from ``deal_seed`` and played with ``actions``."""
    return {
        "format": FORMAT,
        "game": game.name,
        "config": _to_json(game.config),
        "seed": int(deal_seed),
        "actions": [encode_action(a) for a in actions],
    }


def load_replay(data: Mapping[str, Any] | str) -> tuple[Game, State]:
    """Rebuild the game and replay every action; an illegal or unreadable action is a
    :class:`LogError` naming its index."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise LogError(f"replay: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise LogError(f"replay: not a {FORMAT} log")
    name = data.get("game")
    if name not in game_names():
        raise LogError(f"replay: unknown game {name!r}")
    cls = game_class(name)
    try:
        config = cls.config_class(**{k: _to_tuples(v) for k, v in dict(data.get("config", {})).items()})
        game = cls(config)
        state = game.new_initial_state(int(data["seed"]))
    except (TypeError, ValueError, KeyError, DeduceError) as exc:
        raise LogError(f"replay: bad header: {exc}") from None
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise LogError("replay: 'actions' must be a list")
    for i, raw in enumerate(actions):
        if not isinstance(raw, Mapping):
            raise LogError(f"replay: action {i} must be an object", i, raw)
        try:
            state.apply(decode_action(game, raw))
        except (IllegalAction, LogError) as exc:
            raise LogError(f"replay: action {i} ({json.dumps(raw)[:120]}): {exc}", i, raw) from None
    return game, state
