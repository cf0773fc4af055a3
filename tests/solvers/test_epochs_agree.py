"""cpsat agrees with brute on random tiny time-indexed knowledge bases (2 epochs)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce import At, AtLeastOne, Count, Deck, KnowledgeBase, NotAll, NotAt, propagate
from deduce.constraints import Transfer


@st.composite
def epoch_kbs(draw, max_cards: int = 5, max_locations: int = 3, max_constraints: int = 5) -> KnowledgeBase:
    n_cards = draw(st.integers(2, max_cards))
    n_locs = draw(st.integers(2, max_locations))
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(n_cards)]})
    kb = KnowledgeBase(deck, [f"z{i}" for i in range(n_locs)], epochs=2)
    card = st.integers(0, n_cards - 1)
    loc = st.integers(0, n_locs - 1)
    epoch = st.integers(0, 1)
    cards = st.lists(card, min_size=1, max_size=n_cards, unique=True)
    pairs = [(s, d) for s in range(n_locs) for d in range(n_locs) if s != d]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=3, unique=True))
    moves = [(s, d, draw(st.integers(0, 2))) for s, d in chosen]
    constraint = st.one_of(
        st.builds(At, card, loc, epoch),
        st.builds(NotAt, card, loc, epoch),
        st.builds(AtLeastOne, cards, loc, epoch),
        st.builds(Count, cards, loc, st.integers(0, 3), st.sampled_from(["==", "<=", ">="]), epoch),
        st.builds(NotAll, st.lists(st.tuples(card, loc), min_size=1, max_size=2), epoch),
    )
    kb.extend([Transfer(0, moves)], check=False)
    for c in draw(st.lists(constraint, max_size=max_constraints)):
        kb.extend([c], check=False)
    return kb


@settings(max_examples=60, deadline=None)
@given(kb=epoch_kbs())
@pytest.mark.slow
def test_cpsat_agrees_with_brute_on_two_epochs(kb):
    ref = solvers.get("brute")
    cp = solvers.get("cpsat")
    assert cp.consistent(kb) == ref.consistent(kb)
    for e in (0, 1):
        assert np.array_equal(cp.possible(kb, epoch=e), ref.possible(kb, epoch=e))
    assert cp.tallies(kb) == ref.tallies(kb)
    assert cp.solution_counts(kb, 0) == ref.solution_counts(kb, 0)
    ref_worlds = sorted(w.tobytes() for w in ref.worlds(kb))
    assert sorted(w.tobytes() for w in cp.worlds(kb)) == ref_worlds


@settings(max_examples=60, deadline=None)
@given(kb=epoch_kbs())
def test_propagation_is_sound_across_epochs(kb):
    prop = propagate(kb)
    worlds = list(solvers.get("brute").worlds(kb))
    if prop.contradiction is not None:
        assert worlds == []
        return
    for w in worlds:
        for e in range(kb.epochs):
            assert prop.possible[e, np.arange(kb.num_cards), w[e]].all()


@settings(max_examples=25, deadline=None)
@given(kb=epoch_kbs(max_cards=6, max_constraints=6), moves=st.sampled_from([0, 50, 2_000]))
@pytest.mark.slow
def test_epoch_possible_is_brute_force_possible(kb, moves):
    """epoch's possible locations (witnessed by chains and CP-SAT worlds, the rest refuted
    together) are exactly brute force's, in the last epoch and the first, with and without
    the chains' witnesses."""
    from solvers.epoch import EpochSolver

    ref = solvers.get("brute")
    ep = EpochSolver(witness_moves=moves)
    for e in (0, 1):
        assert np.array_equal(ep.possible(kb, epoch=e), ref.possible(kb, epoch=e))


@pytest.mark.parametrize("seed,moves,seat", [(1, 20, 0), (2, 30, 1), (5, 40, 1), (5, 12, None), (7, 35, 2)])
def test_epoch_possible_equals_frontier_on_real_alibi_views(seed, moves, seat):
    """On real tiny Alibi views (passes, melds, history answers) epoch's possible locations are
    where frontier's exact counts are positive."""
    from solvers.epoch import EpochSolver
    from solvers.frontier import FrontierSolver
    from tests.solvers.test_frontier import alibi_view

    _, kb = alibi_view(seed, moves, seat)
    exact = np.array(FrontierSolver(max_cells=None).tallies(kb).cells) > 0
    for moves_ in (0, 20_000):
        assert np.array_equal(EpochSolver(witness_moves=moves_).possible(kb), exact)
