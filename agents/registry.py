"""Agents by name, per game: ``agents.get("deductive", game="clue")``.

Generic agents (``random``) play every game. A game's own agents live in the module
``agents.<game name with - as _>``, which defines ``AGENTS: dict[str, type[Agent]]``; they
load on first use. ``register`` adds agents from elsewhere, for one game or for all (``"*"``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable
from typing import Any

from agents.base import Agent
from deduce.errors import UnknownName
from deduce.games.registry import game_names

__all__ = ["get", "register", "available"]

Factory = str | Callable[..., Agent]

_GENERIC: dict[str, Factory] = {"random": "agents.random_agent:RandomAgent"}
_EXTRA: dict[tuple[str, str], Factory] = {}


def register(name: str, factory: Factory, game: str = "*") -> None:
    """Make ``factory`` (callable or ``"module:attr"``) available as agent ``name`` for ``game``."""
    if game == "*":
        _GENERIC[name] = factory
    else:
        _EXTRA[(name, game)] = factory


def _game_agents(game: str) -> dict[str, Factory]:
    """The agents of ``game``: ``AGENTS`` in ``agents.<game>`` and in any ``agents.<game>_*``
    module (e.g. ``agents.clue_board``, ``agents.clue_search``), then run-time registrations."""
    if game == "*":
        return {}
    stem = game.replace("-", "_")
    found: dict[str, Factory] = {}
    other_games = {g.replace("-", "_") for g in game_names()} - {stem}
    modules = [stem] + sorted(
        m.name
        for m in pkgutil.iter_modules(_package_path())
        if m.name.startswith(stem + "_") and m.name not in other_games
    )
    for name in modules:
        module = "agents." + name
        if importlib.util.find_spec(module) is not None:
            found.update(getattr(importlib.import_module(module), "AGENTS", {}))
    found.update({n: f for (n, g), f in _EXTRA.items() if g == game})
    return found


def _package_path() -> list[str]:
    import agents

    return list(agents.__path__)


def available(game: str | None = None) -> tuple[str, ...]:
    """Agent names usable for ``game`` (the generic ones when ``game`` is None)."""
    return tuple(sorted(set(_GENERIC) | set(_game_agents(game or "*"))))


def get(name: str, game: str = "*", **params: Any) -> Agent:
    """A new agent called ``name`` for ``game``, built with ``params``."""
    factory = _game_agents(game).get(name) or _GENERIC.get(name)
    if factory is None:
        raise UnknownName(f"unknown agent {name!r} for game {game!r}; available: {', '.join(available(game))}")
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(**params)
