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
    pairs = [(s, d) for s in range(n_locs) for d in range(n_locs) if s != d]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=3, unique=True))
    moves = [(s, d, draw(st.integers(0, 2))) for s, d in chosen]
    kb.extend([Transfer(0, moves)], check=False)
    for c in draw(st.lists(constraints(n_cards, n_locs), max_size=max_constraints)):
        kb.extend([c], check=False)
    return kb


def constraints(n_cards: int, n_locs: int, epochs: int = 2) -> st.SearchStrategy:
    """One random constraint over ``n_cards`` cards, ``n_locs`` locations and ``epochs`` epochs."""
    card = st.integers(0, n_cards - 1)
    loc = st.integers(0, n_locs - 1)
    epoch = st.integers(0, epochs - 1)
    cards = st.lists(card, min_size=1, max_size=n_cards, unique=True)
    return st.one_of(
        st.builds(At, card, loc, epoch),
        st.builds(NotAt, card, loc, epoch),
        st.builds(AtLeastOne, cards, loc, epoch),
        st.builds(Count, cards, loc, st.integers(0, 3), st.sampled_from(["==", "<=", ">="]), epoch),
        st.builds(NotAll, st.lists(st.tuples(card, loc), min_size=1, max_size=2), epoch),
    )


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


@st.composite
def growing_kbs(draw) -> tuple[list[KnowledgeBase], list[tuple[int, int]]]:
    """A knowledge base and its growths (each the one before plus a few constraints, as a
    player's view grows), one unrelated base, and an order of queries over them ``(base,
    epoch)`` that asks bigger bases before smaller ones too (where nothing may be reused)."""
    kb = draw(epoch_kbs(max_cards=5, max_constraints=3))
    chain = [kb]
    for _ in range(draw(st.integers(1, 4))):
        grown = chain[-1].copy()
        grown.extend(draw(st.lists(constraints(kb.num_cards, kb.num_locations), min_size=1, max_size=2)),
                     check=False)
        chain.append(grown)
    chain.append(draw(epoch_kbs(max_cards=5, max_constraints=4)))  # other cards, locations
    order = draw(st.lists(st.tuples(st.integers(0, len(chain) - 1), st.integers(0, 1)), min_size=3, max_size=10))
    return chain, order


@settings(max_examples=80, deadline=None)
@given(case=growing_kbs(), moves=st.sampled_from([0, 30, 2_000]))
def test_epoch_possible_reusing_earlier_answers_is_brute_force_possible(case, moves):
    """One ``epoch`` solver asked about growing knowledge bases in any order (bigger first
    too, the same one twice, an unrelated one between) answers each exactly as brute force:
    a cell refuted for a subset stays refuted, a world of a subset is used only where it
    satisfies the added constraints, and nothing of a superset's answer is used for a subset."""
    from solvers.epoch import EpochSolver

    chain, order = case
    ref = solvers.get("brute")
    ep = EpochSolver(witness_moves=moves)
    for i, e in order:
        assert np.array_equal(ep.possible(chain[i], epoch=e), ref.possible(chain[i], epoch=e)), (i, e)


def test_epoch_possible_builds_no_model_when_an_earlier_answer_covers_it(monkeypatch):
    """Asked again about a base (or one grown by a constraint its worlds satisfy), ``epoch``
    starts from the worlds it kept and skips the refuted cells: no CP-SAT model is built."""
    from solvers import epoch as ep_mod

    deck = Deck.from_categories({"k": [f"c{i}" for i in range(4)]})
    kb = KnowledgeBase(deck, ["z0", "z1", "z2"], epochs=2)
    kb.extend([Transfer(0, [(0, 1, 1)]), Count(range(4), 0, 2, epoch=0), At(0, 2, epoch=0)], check=False)
    ref = solvers.get("brute")
    solver = ep_mod.EpochSolver()
    built = []
    real = ep_mod._Pruned
    monkeypatch.setattr(ep_mod, "_Pruned", lambda *a: built.append(1) or real(*a))
    assert np.array_equal(solver.possible(kb), ref.possible(kb))
    first = len(built)
    assert first >= 1
    assert np.array_equal(solver.possible(kb), ref.possible(kb))
    grown = kb.copy()
    grown.extend([NotAt(0, 1, epoch=0)], check=False)  # card 0 is at z2 at epoch 0 already
    assert np.array_equal(solver.possible(grown), ref.possible(grown))
    assert len(built) == first
    smaller = KnowledgeBase(deck, ["z0", "z1", "z2"], epochs=2)
    smaller.extend([Transfer(0, [(0, 1, 1)]), Count(range(4), 0, 2, epoch=0)], check=False)
    assert np.array_equal(solver.possible(smaller), ref.possible(smaller))  # a subset: refuted cells not reused


@pytest.mark.parametrize("seed,seat", [(1, 0), (5, 1), (7, 2)])
def test_epoch_possible_on_a_growing_real_alibi_view_equals_frontier(seed, seat):
    """One ``epoch`` solver following a seat's view of a tiny Alibi game every 5 actions (as
    the audit does: earlier answers reused where the view only grew) agrees with frontier's
    exact counts at every step."""
    from solvers.epoch import EpochSolver
    from solvers.frontier import FrontierSolver
    from tests.solvers.test_frontier import alibi_view

    ep = EpochSolver()
    for moves in range(5, 45, 5):
        _, kb = alibi_view(seed, moves, seat)
        exact = np.array(FrontierSolver(max_cells=None).tallies(kb).cells) > 0
        assert np.array_equal(ep.possible(kb), exact), moves
        assert np.array_equal(ep.possible(kb, epoch=0), FrontierSolver(max_cells=None).possible(kb, epoch=0)), moves


@settings(max_examples=30, deadline=None)
@given(kbs=st.lists(epoch_kbs(max_constraints=4), min_size=1, max_size=12))
def test_remembered_propagation_is_propagation(kbs):
    """``propagated`` (remembered by content for the audit, epoch and the sampler) answers as
    ``propagate`` on every base, asked twice, and each caller's copy is its own."""
    from solvers.epoch import propagated

    for kb in kbs + kbs[::-1]:
        got, ref = propagated(kb), propagate(kb)
        assert got.contradiction == ref.contradiction
        assert np.array_equal(got.possible, ref.possible)
        got.possible[:] = False  # a caller narrowing its copy changes no later answer
        assert np.array_equal(propagated(kb).possible, ref.possible)


@settings(max_examples=40, deadline=None)
@given(case=growing_kbs(), pick=st.integers(0, 10**6), moves=st.sampled_from([0, 30]))
def test_epoch_possible_from_given_worlds_is_brute_force_possible(case, pick, moves):
    """Given a world of the base to start from (the audit's true world), along with what it
    kept of earlier answers, ``epoch`` still answers as brute force, and the world given is
    not changed."""
    from solvers.epoch import EpochSolver

    chain, order = case
    ref = solvers.get("brute")
    ep = EpochSolver(witness_moves=moves)
    for i, e in order:
        worlds = list(ref.worlds(chain[i]))
        start = [worlds[pick % len(worlds)].copy()] if worlds else None
        kept = None if start is None else start[0].copy()
        assert np.array_equal(ep.possible(chain[i], epoch=e, starts=start), ref.possible(chain[i], epoch=e)), (i, e)
        if start is not None:
            assert np.array_equal(start[0], kept)


def test_epoch_refuses_a_given_start_that_is_not_a_world_of_the_base():
    from deduce.errors import InvalidConfig
    from solvers.epoch import EpochSolver

    deck = Deck.from_categories({"k": [f"c{i}" for i in range(3)]})
    kb = KnowledgeBase(deck, ["z0", "z1"], epochs=2)
    kb.extend([Transfer(0, [(0, 1, 1)]), At(0, 0, epoch=0)], check=False)
    with pytest.raises(InvalidConfig, match="starts"):
        EpochSolver().possible(kb, starts=[np.array([[1, 0, 0], [1, 0, 0]])])
    with pytest.raises(InvalidConfig, match="starts"):
        EpochSolver().possible(kb, starts=[np.array([0, 0, 0])])
