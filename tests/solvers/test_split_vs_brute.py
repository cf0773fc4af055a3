"""``split`` (the exact DP by branches) agrees with ``brute`` on random small knowledge bases and
Mafia Code games, with its thresholds forced low so that it really branches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce import Count, Deck, KnowledgeBase
from deduce.games.mafia_code.rules import MafiaCodeGame
from solvers.split import SplitSolver
from tests.games.mafia_code.test_props import random_play
from tests.solvers.test_exact_vs_brute import static_kbs


def _eager(max_bits: int) -> SplitSolver:
    """A split solver that branches on almost every knowledge base (tiny DP budgets; the count
    by classes, which would answer most of them at the root, only for some ``max_bits``)."""
    return SplitSolver(branch_limit=50, max_bits=max_bits, wide_budget=0, join=max_bits % 2 == 0,
                       classes=max_bits % 3 == 0)


@settings(max_examples=80, deadline=None)
@given(kb=static_kbs(), max_bits=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_split_agrees_with_brute_on_random_static_kbs(kb, max_bits, seed):
    split = _eager(max_bits)
    brute = solvers.get("brute")
    tally = split.tallies(kb)
    assert tally == brute.tallies(kb)
    assert np.array_equal(split.possible(kb), brute.possible(kb))
    assert split.consistent(kb) == (tally.total > 0)
    assert split.solution_counts(kb, 0) == brute.solution_counts(kb, 0)
    for w in split.sample(kb, 3, np.random.default_rng(seed)):
        assert kb.consistent_with(w)
    if tally.total == 0:
        assert split.sample(kb, 2, np.random.default_rng(seed)) == []


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 12),
    seat=st.integers(0, 4),
    max_bits=st.integers(4, 20),
)
@pytest.mark.slow
def test_split_agrees_with_brute_on_mafia_code_3x3(n, seed, steps, seat, max_bits):
    game = MafiaCodeGame(num_players=n, colours=("r", "g", "b"), letters=("A", "B", "C"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    viewer = None if seat >= n else seat  # a spectator's (public) knowledge base too
    kb = game.knowledge(state.observation(viewer))
    split = _eager(max_bits)
    tally = split.tallies(kb)
    assert tally == solvers.get("brute").tallies(kb)
    assert tally == solvers.get("exact").tallies(kb)
    assert tally == solvers.get("cpsat").tallies(kb)
    assert tally.total >= 1  # the truth is a world


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 20))
def test_split_agrees_with_cpsat_on_mafia_code_4x4(n, seed, steps):
    """Bigger decks than brute can list: ``split`` (branching hard) against cpsat enumeration."""
    game = MafiaCodeGame(num_players=n, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    kb = game.knowledge(state.observation(state.current_player if not state.is_terminal() else 0))
    split = _eager(24)
    tally = split.tallies(kb)
    assert tally == solvers.get("cpsat").tallies(kb)
    assert np.array_equal(split.possible(kb), solvers.get("cpsat").possible(kb))


def test_samples_are_uniform_over_branches():
    """A spectator's view of a 3-player game on a 4x4 deck: 24 worlds over 20 branches of
    different sizes, every world drawn about equally often."""
    game = MafiaCodeGame(num_players=3, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    kb = game.knowledge(game.new_initial_state(1).observation(None))
    split = SplitSolver(branch_limit=50, max_bits=4, wide_budget=0, join=False, classes=False)  # branches, not a join
    total = split.count(kb)
    assert total == 24 and split.leaves > 1
    draws = split.sample(kb, 100 * total, np.random.default_rng(0))
    seen: dict[tuple[int, ...], int] = {}
    for w in draws:
        assert kb.consistent_with(w)
        key = tuple(int(x) for x in w)
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == total
    assert min(seen.values()) > 55 and max(seen.values()) < 145  # binomial(2400, 1/24): sd ~ 9.8


def test_split_refutes_disjoint_counts_that_overflow_a_larger_one_without_a_dp():
    """At most one of four cards at the hand, yet at least one of the first two and at least
    one of the last two: propagation sees each count alone and misses it; split refutes the
    knowledge base before compiling any DP (no leaf), and the count stays exact (zero)."""
    deck = Deck.from_categories({"k": ["c0", "c1", "c2", "c3"]})
    kb = KnowledgeBase(deck, ["hand", "rest"])
    kb.extend([Count([0, 1, 2, 3], 0, 1, "<="), Count([0, 1], 0, 1, ">="), Count([2, 3], 0, 1, ">=")], check=False)
    split = SplitSolver()
    tally = split.tallies(kb)
    assert tally == solvers.get("brute").tallies(kb)
    assert tally.total == 0
    assert split.leaves == 0  # before: one DP compiled to find no world


def test_split_keeps_worlds_where_the_disjoint_counts_fit():
    """The same shape with room for both (at most two at the hand): the check lets it through
    and the counts match brute."""
    deck = Deck.from_categories({"k": ["c0", "c1", "c2", "c3"]})
    kb = KnowledgeBase(deck, ["hand", "rest"])
    kb.extend([Count([0, 1, 2, 3], 0, 2, "<="), Count([0, 1], 0, 1, ">="), Count([2, 3], 0, 1, ">=")], check=False)
    tally = SplitSolver().tallies(kb)
    assert tally == solvers.get("brute").tallies(kb)
    assert tally.total == 4
