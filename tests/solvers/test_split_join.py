"""``split``'s count by locations (``_Join``: each location's possible sets, joined over the cards
dealt so far) equals brute force and CP-SAT, where it is forced to answer (``max_bits`` tiny, so
every branch is "too wide" for the class DP and the join goes first)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
import solvers.split as split_mod
from deduce import Count, Deck, KnowledgeBase
from deduce.games.mafia_code.rules import MafiaCodeGame
from solvers.exact_dp import problem_from_kb, simplify
from solvers.split import SplitSolver, _Join
from tests.games.mafia_code.test_props import random_play
from tests.solvers.test_exact_vs_brute import static_kbs


def _joining() -> SplitSolver:
    return SplitSolver(max_bits=1, wide_budget=0, classes=False)  # the join by sets, not by classes


@settings(max_examples=60, deadline=None)
@given(kb=static_kbs(), seed=st.integers(0, 2**32 - 1))
def test_join_agrees_with_brute_on_random_static_kbs(kb, seed):
    split = _joining()
    brute = solvers.get("brute")
    tally = split.tallies(kb)
    assert tally == brute.tallies(kb)
    assert split.solution_counts(kb, 0) == brute.solution_counts(kb, 0)
    for w in split.sample(kb, 3, np.random.default_rng(seed)):
        assert kb.consistent_with(w)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 16), seat=st.integers(0, 4))
def test_join_agrees_with_brute_on_mafia_code_3x3(n, seed, steps, seat):
    game = MafiaCodeGame(num_players=n, colours=("r", "g", "b"), letters=("A", "B", "C"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    kb = game.knowledge(state.observation(None if seat >= n else seat))
    split = _joining()
    tally = split.tallies(kb)
    assert tally == solvers.get("brute").tallies(kb)
    assert tally.total >= 1
    loc = int(seed % kb.num_locations)
    assert split.solution_counts(kb, loc) == solvers.get("brute").solution_counts(kb, loc)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_join_counts_a_4x4_game_as_cpsat_does_and_really_joins(seed):
    game = MafiaCodeGame(num_players=3, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), 3)
    kb = game.knowledge(state.observation(None))  # the spectator: every hand open
    split = _joining()
    assert split.tallies(kb) == solvers.get("cpsat").tallies(kb)
    assert split.joins >= 1
    q = simplify(problem_from_kb(kb))
    assert q is not None and _Join(q).total == split.tallies(kb).total


def test_join_samples_are_uniform():
    """A spectator's view of a 3-player 4x4 game: every world drawn about equally often."""
    game = MafiaCodeGame(num_players=3, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    kb = game.knowledge(game.new_initial_state(1).observation(None))
    split = _joining()
    total = split.count(kb)
    assert total == 24 and split.joins >= 1
    seen: dict[tuple[int, ...], int] = {}
    for w in split.sample(kb, 100 * total, np.random.default_rng(0)):
        assert kb.consistent_with(w)
        key = tuple(int(x) for x in w)
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == total
    assert min(seen.values()) > 55 and max(seen.values()) < 145  # binomial(2400, 1/24): sd ~ 9.8


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 14),
    hands=st.lists(st.integers(0, 2**14 - 1), max_size=40),
    deals=st.lists(st.integers(0, 2**14 - 1), min_size=1, max_size=20),
    must=st.integers(0, 2**14 - 1),
)
def test_compiled_walk_finds_the_pairs_the_dense_test_finds(n, hands, deals, must):
    mask = (1 << n) - 1
    hs = np.unique(np.array([h & mask for h in hands], dtype=np.int64))
    keys = np.unique(np.array([d & mask for d in deals], dtype=np.int64))
    m = np.int64(must & mask & ~int(keys[0]) if must % 3 == 0 else 0)
    got = split_mod._pairs(keys, hs, m, 10**9)
    kernel, split_mod._join_kernel = split_mod._join_kernel, None
    try:
        want = split_mod._pairs(keys, hs, m, 10**9)
    finally:
        split_mod._join_kernel = kernel
    as_set = lambda r: sorted((int(u), int(h), int(r[3][i])) for u, h, i in zip(r[0], r[1], r[2], strict=True))  # noqa: E731
    assert as_set(got) == as_set(want)
    assert sorted(got[3].tolist()) == sorted(want[3].tolist())


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(0, 12),
    rules=st.lists(st.tuples(st.integers(0, 2**12 - 1), st.integers(0, 6), st.integers(0, 6)), max_size=5),
)
def test_hands_lists_exactly_the_subsets_meeting_every_rule(n, rules):
    """The sets one location may hold, listed with partial sets pruned to those some completion
    reaches, are every subset of its cards within every rule's bounds (brute force), and the
    count by sizes agrees."""
    cards = list(range(n))
    rules = [(m & ((1 << n) - 1), min(a, b), max(a, b)) for m, a, b in rules]
    want = [s for s in range(1 << n) if all(lo <= bin(s & m).count("1") <= hi for m, lo, hi in rules)]
    got = split_mod._hands(cards, rules, 1 << 13)
    assert got is not None and got.tolist() == want
    sizes: dict[int, int] = {}
    for s in want:
        sizes[bin(s).count("1")] = sizes.get(bin(s).count("1"), 0) + 1
    assert {k: v for k, v in split_mod._count_hands(cards, rules).items() if v} == sizes
    if len(want) > 1:
        assert split_mod._hands(cards, rules, len(want) - 1) is None


def test_join_orders_by_sampling_and_counts_the_same_in_every_order():
    """A spectator's 4x4 view: the order the sampled estimate picks, and every other order, give
    the same count (the order changes the work, never the answer)."""
    from itertools import permutations

    game = MafiaCodeGame(num_players=3, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    state = game.new_initial_state(2)
    random_play(state, np.random.default_rng(2), 3)
    q = simplify(problem_from_kb(game.knowledge(state.observation(None))))
    assert q is not None
    join = _Join(q)
    want = solvers.get("cpsat").tallies(game.knowledge(state.observation(None)))
    assert join.total == want.total and len(join.order) >= 2
    for order in permutations(join.order):
        other = _Join.__new__(_Join)
        other.__dict__.update({k: v for k, v in join.__dict__.items()})
        other.order = list(order)
        other._forward(q, 10**9)
        assert other.total == want.total
        assert [list(r) for r in other.tallies()] == [list(r) for r in join.tallies()]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 16), seat=st.integers(0, 4))
def test_join_ending_by_classes_agrees_with_brute(n, seed, steps, seat):
    """The last two locations counted together by card classes (``_Ending``): totals, tallies,
    per-set counts and samples as brute force has them, on joins that really end that way."""
    game = MafiaCodeGame(num_players=n, colours=("r", "g", "b"), letters=("A", "B", "C"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    kb = game.knowledge(state.observation(None if seat >= n else seat))
    q = simplify(problem_from_kb(kb))
    assert q is not None
    join = _Join(q)
    brute = solvers.get("brute")
    want = brute.tallies(kb)
    assert join.total == want.total
    if join.end is None:
        return
    # the join's own cells on the two locations it counts by classes
    cells = join.tallies()
    fixed = [k for k in range(kb.num_cards) if q.dom[k] & (q.dom[k] - 1) == 0]
    for k in range(kb.num_cards):
        if k not in fixed:
            for z in (join.end.y, join.end.z):
                assert cells[k][z] == want.cells[k][z]
    assert _joining().tallies(kb) == want
    for z in (join.end.y, join.end.z):
        assert join.solution_counts(z) == brute.solution_counts(kb, z)
    for w in join.sample(4, np.random.default_rng(seed)):
        assert kb.consistent_with(w)


def test_join_ending_by_classes_is_taken_and_exact_on_3x3_games():
    """Joins that really end by classes (the property test's may all end by pair search): some
    of these small games' views do, and each equals brute force."""
    brute = solvers.get("brute")
    ended = 0
    for seed in range(12):
        game = MafiaCodeGame(num_players=2 + seed % 3, colours=("r", "g", "b"), letters=("A", "B", "C"))
        state = game.new_initial_state(seed)
        random_play(state, np.random.default_rng(seed), seed % 5)
        kb = game.knowledge(state.observation(seed % 2))
        q = simplify(problem_from_kb(kb))
        assert q is not None
        join = _Join(q)
        ended += join.end is not None
        want = brute.tallies(kb)
        assert join.total == want.total
        assert _joining().tallies(kb) == want
    assert ended >= 3


# -- the count by card classes (``_ClassJoin``) ------------------------------------------------
def _by_classes(kb):
    """The count by classes of ``kb``'s propagated problem, or None where it refuses (or the
    problem has no world by propagation)."""
    q = simplify(problem_from_kb(kb))
    if q is None:
        return None
    try:
        return split_mod._ClassJoin(q, cap=10**9)
    except split_mod._NoJoin:
        return None


def _assert_class_join_is_brute(kb, join, seed):
    brute = solvers.get("brute")
    want = brute.tallies(kb)
    assert join.total == want.total
    assert [tuple(r) for r in join.tallies()] == [tuple(r) for r in want.cells]
    for z in range(kb.num_locations):
        assert join.solution_counts(z) == brute.solution_counts(kb, z)
    for w in join.sample(4, np.random.default_rng(seed)):
        assert kb.consistent_with(w)


@settings(max_examples=80, deadline=None)
@given(kb=static_kbs(), seed=st.integers(0, 2**32 - 1))
def test_class_join_agrees_with_brute_on_random_static_kbs(kb, seed):
    """Totals, per-cell tallies, per-set counts at every location and samples, directly and
    through the solver (which offers every branch to it first)."""
    join = _by_classes(kb)
    if join is not None:
        _assert_class_join_is_brute(kb, join, seed)
    split = SplitSolver(max_bits=1, wide_budget=0)
    assert split.tallies(kb) == solvers.get("brute").tallies(kb)
    assert split.solution_counts(kb, 0) == solvers.get("brute").solution_counts(kb, 0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 16), seat=st.integers(0, 4))
def test_class_join_agrees_with_brute_on_mafia_code_3x3(n, seed, steps, seat):
    game = MafiaCodeGame(num_players=n, colours=("r", "g", "b"), letters=("A", "B", "C"))
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    kb = game.knowledge(state.observation(None if seat >= n else seat))
    join = _by_classes(kb)
    assert join is not None  # 9 cards: never past the caps
    _assert_class_join_is_brute(kb, join, seed)


def test_class_join_answers_early_mafia_code_views_as_the_join_by_sets_does():
    """6x6 four-player views at the first turns (tens of millions of worlds, classes of several
    cards): the solver counts them by classes, the same as without (the join by sets and
    branching)."""
    game = MafiaCodeGame(num_players=4)
    classed = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        random_play(state, np.random.default_rng(seed), seed)
        kb = game.knowledge(state.observation(seed % 4))
        new, old = SplitSolver(), SplitSolver(classes=False)
        assert new.tallies(kb) == old.tallies(kb)
        classed += new.classed
        assert new.sample(kb, 2, np.random.default_rng(seed)) and all(
            kb.consistent_with(w) for w in new.sample(kb, 3, np.random.default_rng(seed)))
    assert classed == 3


def test_class_join_samples_are_uniform_within_classes():
    """Six interchangeable-by-pairs cards: two at ``a`` (one of c0-c2, one of c3-c5), two at
    ``b``, the rest at ``c``: 54 worlds, classes of three cards, each world drawn about equally
    often (the shuffle inside a class must not favour any card)."""
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(6)]})
    kb = KnowledgeBase(deck, ["a", "b", "c"])
    kb.extend([Count(range(6), 0, 2), Count([0, 1, 2], 0, 1), Count(range(6), 1, 2)], check=False)
    join = _by_classes(kb)
    assert join is not None and join.total == 54 and max(len(c) for c in join.members) == 3
    seen: dict[tuple[int, ...], int] = {}
    for w in join.sample(100 * 54, np.random.default_rng(0)):
        assert kb.consistent_with(w)
        seen[tuple(int(x) for x in w)] = seen.get(tuple(int(x) for x in w), 0) + 1
    assert len(seen) == 54
    assert min(seen.values()) > 55 and max(seen.values()) < 145  # binomial(5400, 1/54): sd ~ 9.9
    _assert_class_join_is_brute(kb, join, 0)


def test_class_join_with_python_integers_counts_as_with_int64():
    """The ``object`` path (counts past an int64, 32 open cards or more) gives the same integers
    and samples as the int64 one, on a 4x4 spectator view."""
    game = MafiaCodeGame(num_players=3, colours=("r", "g", "b", "w"), letters=("A", "B", "C", "D"))
    kb = game.knowledge(game.new_initial_state(5).observation(1))
    join = _by_classes(kb)
    assert join is not None and join.dtype is np.int64
    big = split_mod._ClassJoin.__new__(split_mod._ClassJoin)
    big.__dict__.update(join.__dict__)
    big.dtype, big._back, big._tallies, big._starts = object, None, None, None
    big._forward(10**9)
    assert big.total == join.total == solvers.get("cpsat").count(kb)
    assert big.tallies() == join.tallies()
    assert [w.tolist() for w in big.sample(5, np.random.default_rng(3))] == [w.tolist() for w in join.sample(5, np.random.default_rng(3))]


def test_class_join_refuses_past_its_cap():
    game = MafiaCodeGame(num_players=4)
    kb = game.knowledge(game.new_initial_state(0).observation(0))
    q = simplify(problem_from_kb(kb))
    assert q is not None
    assert split_mod._ClassJoin(q).total == SplitSolver(classes=False).count(kb)
    with pytest.raises(split_mod._NoJoin):
        split_mod._ClassJoin(q, cap=10)


@settings(max_examples=100, deadline=None)
@given(
    cap=st.lists(st.integers(0, 3), max_size=5),
    rules=st.lists(st.tuples(st.integers(0, 31), st.integers(0, 5), st.integers(0, 5)), max_size=3),
)
def test_count_vectors_are_exactly_those_within_every_rule(cap, rules):
    """The count vectors listed (and counted before listing) are every vector within ``cap``
    whose rule sums lie within the bounds (brute force over the product), in lexicographic
    order."""
    from itertools import product

    m = len(cap)
    a = np.array([[(mask >> j) & 1 for j in range(m)] for mask, _x, _y in rules], dtype=np.int64).reshape(len(rules), m)
    lo = np.array([min(x, y) for _m, x, y in rules], dtype=np.int64)
    hi = np.array([max(x, y) for _m, x, y in rules], dtype=np.int64)
    want = [v for v in product(*(range(c + 1) for c in cap)) if all(lo[i] <= int(a[i] @ np.array(v, dtype=np.int64).reshape(m)) <= hi[i] for i in range(len(rules)))]
    space = split_mod._Vectors(np.array(cap, dtype=np.int64), a, lo, hi)
    assert space.total == len(want)
    listed = space.listed(10**6)
    assert listed is not None and [tuple(v) for v in listed.tolist()] == want
    if want:
        assert split_mod._Vectors(np.array(cap, dtype=np.int64), a, lo, hi).listed(len(want) - 1) is None
