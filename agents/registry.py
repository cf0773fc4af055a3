"""Agents by name, per game: ``agents.get("deductive", game="clue")``.

Generic agents (``random``) play every game. Each game's own agents are listed in its folder's
``AGENTS`` table (``agents/<game>/__init__.py``), found through :data:`GAME_AGENTS`; an agent's
module is imported when it is first built. ``register`` adds agents from elsewhere, for one game
or for all (``"*"``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.base import Agent
from deduce.errors import UnknownName

__all__ = ["get", "register", "available", "GAME_AGENTS", "RENAMED"]

Factory = str | Callable[..., Agent]

#: where each game's table of agents lives
GAME_AGENTS: dict[str, str] = {
    "clue": "agents.clue:AGENTS",
    "alibi": "agents.alibi:AGENTS",
    "alibi-adlung": "agents.alibi_adlung:AGENTS",
    "mafia-code": "agents.mafia_code:AGENTS",
    "checkpoint-charlie": "agents.checkpoint_charlie:AGENTS",
    "crime-hotel": "agents.crime_hotel:AGENTS",
}

#: (old name, game) -> new name, for agents that were renamed (three were all called "solver")
RENAMED: dict[tuple[str, str], str] = {
    ("solver", "alibi"): "sampling",
    ("solver-randq", "alibi"): "sampling-randq",
    ("solver", "crime-hotel"): "expected-points",
    ("solver", "mafia-code"): "guess-chain",
}

_GENERIC: dict[str, Factory] = {"random": "agents.random_agent:RandomAgent"}
_EXTRA: dict[tuple[str, str], Factory] = {}


def register(name: str, factory: Factory, game: str = "*") -> None:
    """Make ``factory`` (callable or ``"module:attr"``) available as agent ``name`` for ``game``."""
    if game == "*":
        _GENERIC[name] = factory
    else:
        _EXTRA[(name, game)] = factory


def _load(entry: str) -> Any:
    module, _, attr = entry.partition(":")
    return getattr(importlib.import_module(module), attr)


def _game_agents(game: str) -> dict[str, Factory]:
    """The agents of ``game``: its folder's table, then run-time registrations."""
    found: dict[str, Factory] = dict(_load(GAME_AGENTS[game])) if game in GAME_AGENTS else {}
    found.update({n: f for (n, g), f in _EXTRA.items() if g == game})
    return found


def available(game: str | None = None) -> tuple[str, ...]:
    """Agent names usable for ``game`` (the generic ones when ``game`` is None)."""
    return tuple(sorted(set(_GENERIC) | set(_game_agents(game or "*"))))


def get(name: str, game: str = "*", **params: Any) -> Agent:
    """A new agent called ``name`` for ``game``, built with ``params``."""
    factory = _game_agents(game).get(name) or _GENERIC.get(name)
    if factory is None:
        renamed = RENAMED.get((name, game))
        if renamed is not None:
            raise UnknownName(f"agent {name!r} for {game} is now called {renamed!r}")
        raise UnknownName(f"unknown agent {name!r} for game {game!r}; available: {', '.join(available(game))}")
    if isinstance(factory, str):
        factory = _load(factory)
    return factory(**params)
