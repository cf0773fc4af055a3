"""The saved late Alibi views of ``benchmarks/alibi_late.py`` load, and each true world is a
world of its view (the benchmark passes it as a start, which epoch refuses otherwise)."""

import numpy as np

from benchmarks.alibi_late import load_views


def test_late_views_load_with_their_true_worlds():
    views = load_views()
    assert len(views) == 16
    assert len({v.name for v in views}) == 16
    for name, kb, truth, possible in views:
        assert kb.epochs >= 9 and kb.num_cards == 78, name
        assert kb.consistent_with(truth), name
        assert possible is None or possible[np.arange(kb.num_cards), truth[-1]].all(), name
    assert sum(v.possible is not None for v in views) == 3
