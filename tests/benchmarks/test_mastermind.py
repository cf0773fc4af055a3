"""The Mastermind calibration of the information-gain selector, on reduced boards."""

from __future__ import annotations

from collections import Counter
from math import log2

import numpy as np

from benchmarks.mastermind import (
    SELECTORS,
    all_codes,
    feedback,
    feedback_table,
    partition_counts,
    solve_all,
)


def test_feedback_table_matches_the_rules():
    codes = all_codes(3, 4)
    table = feedback_table(codes, 4)
    for g in range(0, len(codes), 7):
        for s in range(len(codes)):
            b, w = feedback(codes[g], codes[s], 4)
            assert table[g, s] == b * 4 + w


def test_entropy_selector_maximises_expected_information():
    codes = all_codes(2, 4)
    table = feedback_table(codes, 4)
    secrets = np.arange(0, len(codes), 2)
    counts = partition_counts(table, secrets, 9)
    score = SELECTORS["entropy"](counts)
    for g in range(len(codes)):
        parts = Counter(table[g, secrets].tolist()).values()
        n = len(secrets)
        h = -sum(c / n * log2(c / n) for c in parts)
        best = -(score[g] / n) + log2(n)  # H = log2 n - (1/n) sum n_i log2 n_i
        assert abs(h - best) < 1e-9


def test_every_secret_is_solved_on_a_small_board():
    for name in SELECTORS:
        res = solve_all(name, pegs=3, colours=3)
        assert res["max"] <= 4
        assert 27 <= res["total"] <= 27 * 4


def test_published_figures_on_the_full_board():
    """Knuth's minimax 5801 (max 5) and Neuwirth's entropy 5722, with Knuth's tie-break."""
    assert solve_all("minimax") == {"total": 5801, "max": 5, "first_guess": "1122"}
    assert solve_all("entropy")["total"] == 5722
