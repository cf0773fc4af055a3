"""``deduce audit`` leak-checks every game: each state offers a hidden variant that differs only
in what a player has not seen, and the player's observation does not change with it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from deduce.apps.audit import audit
from deduce.games.registry import game_class, make

QUICK_AGENTS = {
    "alibi-adlung": ["counting", "random"],
    "alibi": ["random"],
    "crime-hotel": ["random"],
    "checkpoint-charlie": ["patient", "random"],
    "mafia-code": ["facts", "random"],
}


@pytest.mark.parametrize("name", sorted(QUICK_AGENTS))
@pytest.mark.slow
def test_audit_leak_checks_pass(name: str) -> None:
    report = audit(name, games=1, seed=2, agents=QUICK_AGENTS[name], check_every=5, max_actions=60, solvers=())  # leaks only
    assert not report.failures, report.failures
    assert report.passed["leak"] > 0, (report.passed, report.skipped)


@pytest.mark.parametrize("name", sorted(QUICK_AGENTS))
@pytest.mark.slow
def test_audit_catches_a_planted_leak(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The variants really differ in hidden cards: an observation that carries a digest of
    the whole true world fails the leak check."""
    state_class = type(make(name, num_players=game_class(name).min_players).new_initial_state(0))
    original = state_class.observation

    def leaky(self: Any, player: int | None) -> Any:
        obs = original(self, player)
        return dataclasses.replace(obs, game=f"{obs.game}:{hash(self.world().tobytes())}")

    monkeypatch.setattr(state_class, "observation", leaky)
    report = audit(name, games=1, seed=2, agents=QUICK_AGENTS[name], check_every=5, max_actions=20, solvers=())
    assert report.failed()["leak"] > 0
