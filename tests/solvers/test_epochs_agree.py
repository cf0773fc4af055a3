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
