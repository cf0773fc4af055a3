"""The audit's agreement check really runs on every game: on a short game of each, at least
90% of the checks compare two exact methods of different algorithms (or one and the sampler's
worlds, labelled), never silently "n/a"."""

from __future__ import annotations

import pytest

from deduce.apps.audit import FAMILY, audit
from deduce.games.registry import game_names

QUICK_AGENTS = {
    "clue": ["deductive", "random"],
    "alibi": ["random"],
    "alibi-adlung": ["counting", "random"],
    "mafia-code": ["facts", "random"],
    "checkpoint-charlie": ["patient", "random"],
    "crime-hotel": ["random"],
}


def test_every_game_has_quick_agents_here() -> None:
    assert set(QUICK_AGENTS) == set(game_names())


@pytest.mark.parametrize("name", sorted(QUICK_AGENTS))
@pytest.mark.slow
def test_agreement_is_checked_not_skipped(name: str) -> None:
    report = audit(name, games=1, seed=1, agents=QUICK_AGENTS[name], check_every=10, max_actions=40)
    assert report.ok, [f.message for f in report.failures[:3]]
    ran, skipped = report.passed["agreement"], report.skipped["agreement"]
    assert ran > 0 and skipped <= 0.1 * (ran + skipped), (ran, skipped, dict(report.why_skipped))
    assert sum(report.methods.values()) == ran
    for methods in report.methods:
        first, second = methods.split("+")
        assert second == "sampler" or FAMILY[first] != FAMILY[second], methods
