"""benchmarks.alibi_adlung's table-assistant section counts what it claims."""

from __future__ import annotations

import pytest

from benchmarks.alibi_adlung import assist_exactness


@pytest.mark.slow
def test_before_the_first_reshuffle_every_view_is_exact():
    got = assist_exactness(3, 1, seed=0)
    exact, total, times = got["before reshuffle"]
    assert total > 0 and exact == total and len(times) == total
    assert sum(t for _, t, _ in got.values()) == sum(len(ts) for _, _, ts in got.values())
