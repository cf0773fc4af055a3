"""``exact`` agrees with ``brute`` on random small static knowledge bases and Clue games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce import At, AtLeastOne, Count, Deck, KnowledgeBase, NotAll, NotAt
from deduce.games.clue.rules import Accuse, ClueGame, EndTurn, Show, Suggest
from solvers.exact import ExactSolver

#: (cards, locations) pairs whose brute enumeration stays quick (≤ 8 cards, ≤ 4 locations)
SHAPES = [(n, z) for n in range(1, 9) for z in range(1, 5) if z**n <= 6561]


@st.composite
def static_kbs(draw) -> KnowledgeBase:
    """Random static knowledge bases mixing every constraint kind and op.

    Card sets are drawn either freely or as unions of a few fixed blocks, so that cards
    with the same constraints (classes, the counter's main shortcut) occur often.
    """
    n_cards, n_locs = draw(st.sampled_from(SHAPES))
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(n_cards)]})
    kb = KnowledgeBase(deck, [f"z{i}" for i in range(n_locs)])
    blocks = [list(range(n_cards))[i::3] for i in range(3)]
    blocks = [b for b in blocks if b]
    card = st.integers(0, n_cards - 1)
    loc = st.integers(0, n_locs - 1)
    free_sets = st.lists(card, min_size=1, max_size=n_cards, unique=True)
    block_sets = st.lists(st.sampled_from(range(len(blocks))), min_size=1, unique=True).map(
        lambda ix: sorted(c for i in ix for c in blocks[i])
    )
    cards = st.one_of(free_sets, block_sets)
    constraint = st.one_of(
        st.builds(At, card, loc),
        st.builds(NotAt, card, loc),
        st.builds(AtLeastOne, cards, loc),
        st.builds(Count, cards, loc, st.integers(0, n_cards + 1), st.sampled_from(["==", "<=", ">="])),
        st.builds(NotAll, st.lists(st.tuples(card, loc), min_size=1, max_size=3)),
    )
    kb.extend(draw(st.lists(constraint, max_size=8)), check=False)
    return kb


@settings(deadline=None, max_examples=250)
@given(kb=static_kbs(), data=st.data())
@pytest.mark.slow
def test_exact_agrees_with_brute(kb, data):
    ref = solvers.get("brute")
    exact = ExactSolver()
    assert exact.consistent(kb) == ref.consistent(kb)
    assert np.array_equal(exact.possible(kb), ref.possible(kb))
    assert exact.tallies(kb) == ref.tallies(kb)
    loc = data.draw(st.integers(0, kb.num_locations - 1))
    assert exact.solution_counts(kb, loc) == ref.solution_counts(kb, loc)


SMALL_CLUE = dict(suspects=("s1", "s2", "s3"), weapons=("w1", "w2", "w3"), rooms=("r1", "r2", "r3"))


def play(state, rng: np.random.Generator, steps: int, accuse_rate: float) -> None:
    """Random legal play; wrong accusations (not-all constraints) now and then."""
    for _ in range(steps):
        if state.is_terminal():
            return
        legal = state.legal_actions()
        if state.phase == "refute":
            action = legal[int(rng.integers(len(legal)))]
        elif state.phase == "start":
            options = [a for a in legal if isinstance(a, Suggest)]
            action = options[int(rng.integers(len(options)))]
        elif rng.random() < accuse_rate:
            options = [a for a in legal if isinstance(a, Accuse)]
            action = options[int(rng.integers(len(options)))]
        else:
            action = next(a for a in legal if isinstance(a, EndTurn))
        assert isinstance(action, Suggest | Show | Accuse | EndTurn)
        state.apply(action)


@settings(deadline=None, max_examples=25)
@given(
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 30),
    deal_mode=st.sampled_from(["equal_leftover", "all"]),
)
def test_exact_agrees_with_brute_on_small_clue_games(seed, steps, deal_mode):
    game = ClueGame(num_players=3, deal_mode=deal_mode, **SMALL_CLUE)
    state = game.new_initial_state(seed)
    play(state, np.random.default_rng(seed), steps, accuse_rate=0.1)
    truth = state.world()
    ref = solvers.get("brute")
    exact = ExactSolver()
    for p in range(3):
        kb = game.knowledge(state.observation(p))
        tally = exact.tallies(kb)
        assert tally == ref.tallies(kb)
        assert all(tally.cells[c][z] > 0 for c, z in enumerate(truth))
        counts = exact.solution_counts(kb, "envelope")
        assert sum(counts.values()) == tally.total
        assert counts[tuple(sorted(state.envelope))] > 0


@settings(deadline=None, max_examples=15)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 80), players=st.integers(3, 6))
def test_classic_clue_games_count_the_truth(seed, steps, players):
    """Full-size games (too big for brute): the truth is counted, tallies are coherent."""
    game = ClueGame(num_players=players)
    state = game.new_initial_state(seed)
    play(state, np.random.default_rng(seed), steps, accuse_rate=0.02)
    truth = state.world()
    exact = ExactSolver()
    for view in (None, seed % players):
        kb = game.knowledge(state.observation(view))
        tally = exact.tallies(kb)
        assert tally.total > 0
        for c, row in enumerate(tally.cells):
            assert sum(row) == tally.total
            assert row[truth[c]] > 0
