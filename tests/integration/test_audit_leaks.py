"""``deduce audit`` leak-checks every game: each state offers a hidden variant that differs only
in what a player has not seen, and the player's observation does not change with it."""

from __future__ import annotations

import pytest

from deduce.audit import audit

QUICK_AGENTS = {
    "alibi-adlung": ["counting", "random"],
    "alibi": ["random"],
    "crime-hotel": ["random"],
    "checkpoint-charlie": ["patient", "random"],
    "mafia-code": ["facts", "random"],
}


@pytest.mark.parametrize("name", sorted(QUICK_AGENTS))
def test_audit_leak_checks_pass(name: str) -> None:
    report = audit(name, games=1, seed=2, agents=QUICK_AGENTS[name], check_every=5, max_actions=60)
    assert not report.failures, report.failures
    assert report.passed["leak"] > 0, (report.passed, report.skipped)
