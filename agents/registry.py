"""Agents by name, per game: ``agents.get("deductive", game="clue")``.

An agent name may have one implementation per game (``register(name, factory, game="clue")``)
and a generic one (``game="*"``) used for any game without its own.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from deduce.errors import UnknownName
from agents.base import Agent

__all__ = ["get", "register", "available"]

Factory = str | Callable[..., Agent]

_AGENTS: dict[tuple[str, str], Factory] = {
    ("random", "*"): "agents.random_agent:RandomAgent",
    ("notebook", "clue"): "agents.clue:NotebookAgent",
    ("deductive", "clue"): "agents.clue:DeductiveAgent",
}


def register(name: str, factory: Factory, game: str = "*") -> None:
    """Make ``factory`` (callable or ``"module:attr"``) available as agent ``name`` for ``game``."""
    _AGENTS[(name, game)] = factory


def available(game: str | None = None) -> tuple[str, ...]:
    """Agent names usable for ``game`` (all names when ``game`` is None)."""
    names = {n for (n, g) in _AGENTS if game is None or g in ("*", game)}
    return tuple(sorted(names))


def get(name: str, game: str = "*", **params: Any) -> Agent:
    """A new agent called ``name`` for ``game``, built with ``params``."""
    factory = _AGENTS.get((name, game)) or _AGENTS.get((name, "*"))
    if factory is None:
        raise UnknownName(
            f"unknown agent {name!r} for game {game!r}; available: {', '.join(available(game))}"
        )
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(**params)
