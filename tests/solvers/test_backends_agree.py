"""Every backend agrees with ``brute`` on small knowledge bases."""

import numpy as np
import pytest
from hypothesis import given, settings

import solvers
from tests.strategies import small_kbs

BACKENDS = ["cpsat", "csp"]


@pytest.mark.parametrize("name", BACKENDS)
@settings(max_examples=60)
@given(kb=small_kbs())
@pytest.mark.slow
def test_backend_agrees_with_brute(name, kb):
    ref = solvers.get("brute")
    other = solvers.get(name)
    assert other.consistent(kb) == ref.consistent(kb)
    assert np.array_equal(other.possible(kb), ref.possible(kb))
    assert other.tallies(kb) == ref.tallies(kb)
    assert other.solution_counts(kb, 0) == ref.solution_counts(kb, 0)


@settings(max_examples=40)
@given(kb=small_kbs())
@pytest.mark.slow
def test_brute_counts_only_consistent_worlds(kb):
    brute = solvers.get("brute")
    for world in brute.worlds(kb):
        assert kb.consistent_with(world)
    tally = brute.tallies(kb)
    for row in tally.cells:
        assert sum(row) == tally.total
