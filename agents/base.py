"""The agent protocol: an agent sees Observations, never the State."""

from __future__ import annotations

from typing import Any

import numpy as np

from deduce.games.base import Action, Game, Observation

__all__ = ["Agent"]


class Agent:
    """A player. ``reset`` before each game; ``act`` when ``observation.legal_actions`` is non-empty.

    Subclasses keep whatever memory they like between calls, but all they ever receive are
    observations. Every random choice comes from ``self.rng``, seeded in :meth:`reset`.

    Optional: ``cannot_play(game) -> str | None``, the reason this agent cannot play ``game``
    (a configuration it does not handle, e.g. a board-blind Clue agent on the board) or None.
    Tournaments and the audit ask it before seating the agent; an agent that declares it is
    trusted, one that does not is tried in a short game. (No default here: declaring is a claim.)
    """

    name: str = "agent"

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.game: Game | None = None
        self.player: int = -1
        self.rng = np.random.default_rng(0)

    def reset(self, game: Game, player: int, seed: int | np.random.SeedSequence | None = None) -> None:
        self.game = game
        self.player = player
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation) -> Action:
        raise NotImplementedError

    def observe(self, observation: Observation) -> None:
        """Called with this player's observation on other players' turns (optional)."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({args})"
