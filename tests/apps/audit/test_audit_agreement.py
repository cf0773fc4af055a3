"""The audit's agreement check really runs on every game: on a short game of each, at least
90% of the checks compare two exact methods of different algorithms (or one and the sampler's
worlds, labelled), never silently "n/a"."""

from __future__ import annotations

import pytest

from deduce.apps.audit import AS_COUNTS, FAMILY, audit
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
        first, second = (m.removesuffix(AS_COUNTS) for m in methods.split("+"))
        assert second == "sampler" or FAMILY[first] != FAMILY[second], methods


@pytest.mark.slow
def test_a_short_alibi_audit_compares_the_same_methods_and_skips_none():
    """Pinned figures of a small fixed Mayfair Alibi audit (3 players, seed 1, 40 actions, a
    check every 10): the first pass is compared by frontier and epoch, the rest by epoch and
    the sampler's worlds; none is n/a. A change in the pairs or in the n/a count fails."""
    report = audit("alibi", games=1, seed=1, agents=["random"], check_every=10, max_actions=40)
    assert report.ok, [f.message for f in report.failures[:3]]
    assert dict(report.methods) == {"frontier+epoch": 6, "epoch+sampler": 6}
    assert report.passed["agreement"] == 12 and report.skipped["agreement"] == 0 and not report.why_skipped
