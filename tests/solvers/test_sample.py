"""The uniform sampler: every sample is consistent, and frequencies pass a chi-square test
against brute enumeration (fixed seeds, so the tests are deterministic)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import solvers
from deduce import AtLeastOne, Count, Deck, KnowledgeBase, NotAll, NotAt, NotSupported
from deduce.games.clue.rules import ClueGame
from solvers.sample import SampleSolver

# chi-square critical values at significance 0.001 for the degrees of freedom used below
_CHI2_999 = {
    1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12, 9: 27.88,
    10: 29.59, 11: 31.26, 12: 32.91, 13: 34.53, 14: 36.12, 15: 37.70, 16: 39.25, 17: 40.79,
    18: 42.31, 19: 43.82, 20: 45.31, 24: 51.18, 29: 58.30, 34: 65.25, 39: 72.05, 49: 85.35,
}


def critical(df: int) -> float:
    if df in _CHI2_999:
        return _CHI2_999[df]
    # Wilson-Hilferty approximation of the 0.999 quantile
    z = 3.0902
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def mixed_kb() -> KnowledgeBase:
    """Six cards, three places, every constraint kind, classes of two cards."""
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(6)]})
    kb = KnowledgeBase(deck, ["a", "b", "c"])
    kb.extend(
        [
            Count(range(6), 0, 2),
            Count([0, 1, 2, 3], 1, 1, ">="),
            AtLeastOne([2, 3, 4], 2),
            NotAll([(0, 1), (5, 2)]),
            NotAt(4, 0),
            Count([4, 5], 1, 1, "<="),
        ],
        check=False,
    )
    return kb


def chi_square(kb: KnowledgeBase, solver, n: int, seed: int) -> tuple[float, int]:
    worlds = [tuple(int(z) for z in w) for w in solvers.get("brute").worlds(kb)]
    samples = solver.sample(kb, n, np.random.default_rng(seed))
    assert len(samples) == n
    for w in samples:
        assert kb.consistent_with(w)
    freq = Counter(tuple(int(z) for z in w) for w in samples)
    assert set(freq) <= set(worlds)
    expected = n / len(worlds)
    stat = sum((freq.get(w, 0) - expected) ** 2 / expected for w in worlds)
    return stat, len(worlds) - 1


@pytest.mark.parametrize("method", ["dp", "sequential"])
@pytest.mark.slow
def test_uniform_on_mixed_kb(method):
    kb = mixed_kb()
    n = 4000 if method == "dp" else 800
    stat, df = chi_square(kb, SampleSolver(method=method), n, seed=12345)
    assert df >= 5
    assert stat < critical(df), (stat, df)


def test_uniform_on_small_clue_game():
    game = ClueGame(num_players=3, suspects=("a", "b", "c"), weapons=("d", "e", "f"), rooms=("g", "h", "i"))
    state = game.new_initial_state(5)
    kb = game.knowledge(state.observation(1))
    stat, df = chi_square(kb, SampleSolver(), 6000, seed=99)
    assert stat < critical(df), (stat, df)


def test_sample_marginals_close_to_exact():
    game = ClueGame(num_players=4)
    kb = game.knowledge(game.new_initial_state(3).observation(2))
    s = SampleSolver()
    est = s.estimate_marginals(kb, 3000, np.random.default_rng(0))
    exact = s.marginals(kb)
    assert np.abs(est - exact).max() < 0.05


def test_same_seed_same_samples():
    kb = mixed_kb()
    a = SampleSolver().sample(kb, 20, np.random.default_rng(7))
    b = SampleSolver().sample(kb, 20, np.random.default_rng(7))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_no_world_no_sample_and_refusals():
    deck = Deck.from_categories({"k": ["a", "b"]})
    kb = KnowledgeBase(deck, ["x", "y"])
    kb.extend([Count([0, 1], 0, 3, ">=")], check=False)
    assert SampleSolver().sample(kb, 5, np.random.default_rng(0)) == []
    assert SampleSolver(method="sequential").sample(kb, 5, np.random.default_rng(0)) == []
    with pytest.raises(NotSupported):
        SampleSolver().sample(KnowledgeBase(deck, ["x", "y"], epochs=2), 1, np.random.default_rng(0))
    with pytest.raises(ValueError):
        SampleSolver(method="mcmc")


def test_registry_and_exact_queries():
    s = solvers.get("sample")
    kb = mixed_kb()
    assert s.tallies(kb) == solvers.get("brute").tallies(kb)
    assert s.consistent(kb)
