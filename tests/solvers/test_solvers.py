"""Solver registry, refusals, and the query protocol on a hand-checked instance."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import solvers
from deduce import At, Count, Deck, KnowledgeBase, NotSupported, TooLarge, UnknownName


def two_player_kb() -> KnowledgeBase:
    deck = Deck.from_categories({"k": ["a", "b", "c", "d"]})
    kb = KnowledgeBase(deck, ["ann", "bob"])
    kb.add(Count(range(4), 0, 2))
    return kb


@pytest.mark.parametrize("name", ["brute", "cpsat", "csp", "auto"])
def test_counts_and_marginals(name):
    kb = two_player_kb()
    s = solvers.get(name)
    assert s.count(kb) == comb(4, 2)
    assert np.allclose(s.marginals(kb), 0.5)
    kb.add(At(0, 0))
    assert s.count(kb) == 3
    tally = s.tallies(kb)
    assert tally.fractions()[1][0] == Fraction(1, 3)
    assert s.possible(kb)[0].tolist() == [True, False]
    dist = s.solution_distribution(kb, "ann")
    assert dist == {(0, 1): 1 / 3, (0, 2): 1 / 3, (0, 3): 1 / 3}


def test_unknown_solver_is_a_clear_error():
    with pytest.raises(UnknownName, match="unknown solver 'nope'"):
        solvers.get("nope")


def test_enumeration_refuses_past_its_limit():
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(12)]})
    kb = KnowledgeBase(deck, ["a", "b", "c"])
    with pytest.raises(TooLarge):
        solvers.get("cpsat", limit=1000).count(kb)
    with pytest.raises(TooLarge):
        solvers.get("csp", limit=1000).count(kb)


def test_static_backends_refuse_time_indexed_knowledge():
    from deduce import Transfer

    deck = Deck.from_categories({"k": ["a", "b"]})
    kb = KnowledgeBase(deck, ["ann", "bob"], epochs=2)
    kb.add(Transfer(0, [(0, 1, 1)]))
    for name in ("csp", "exact"):
        assert not solvers.get(name).supports(kb)
        with pytest.raises(NotSupported):
            solvers.get(name).possible(kb)
    assert solvers.get("cpsat").supports(kb) and solvers.get("brute").supports(kb)


def test_epochs_without_a_transfer_between_them_are_refused():
    deck = Deck.from_categories({"k": ["a", "b"]})
    kb = KnowledgeBase(deck, ["ann", "bob"], epochs=2)  # nothing links epoch 0 to epoch 1
    for name in ("brute", "cpsat"):
        with pytest.raises(NotSupported):
            solvers.get(name).possible(kb)


def test_cpsat_core_names_a_small_unsatisfiable_subset():
    kb = two_player_kb()
    kb.extend([At(0, 1), At(1, 1), At(2, 1)], check=False)  # bob holds 3, ann 2 of 4 cards: impossible
    core = solvers.get("cpsat").core(kb)
    assert 0 in core and len(core) == 4


def test_tokens_finds_the_face_down_location_by_structure_not_by_name():
    """Two two-faced tokens, one face of each up (with ann or bob), the other under the table
    (a location of any name): ``tokens`` reads the shape from the constraints and agrees with
    ``brute``; without the all-faces-but-one rule it refuses."""
    from deduce.cards import Card, Deck
    from deduce.constraints import Count, NotAt
    from deduce.errors import NotSupported

    faces = [("red up", 0), ("red down", 0), ("blue up", 1), ("blue down", 1)]
    deck = Deck(tuple(Card(i, n, "face", (("feature", f),)) for i, (n, f) in enumerate(faces)))
    kb = KnowledgeBase(deck, ("ann", "bob", "under the table"))
    under = kb.loc("under the table")
    kb.extend([Count((0, 1), under, 1), Count((2, 3), under, 1), Count(range(4), kb.loc("ann"), 1),
               Count(range(4), kb.loc("bob"), 1), NotAt(0, kb.loc("ann"))], check=False)
    tokens, brute = solvers.get("tokens"), solvers.get("brute")
    assert tokens.count(kb) == brute.count(kb) > 0
    assert (tokens.possible(kb) == brute.possible(kb)).all()
    loose = KnowledgeBase(deck, ("ann", "bob", "under the table"))
    loose.extend([Count(range(4), kb.loc("ann"), 1), Count(range(4), kb.loc("bob"), 1)], check=False)
    with pytest.raises(NotSupported, match="every face of each token but one"):
        tokens.count(loose)


@pytest.mark.parametrize("name", [n for n in solvers.available()])
def test_every_backend_declares_what_it_answers(name):
    """The capability flags match the queries a backend implements, so callers can read the
    flags instead of probing for methods."""
    from solvers.base import EnumeratingSolver, Solver

    backend = solvers.get(name)
    cls = type(backend)

    def overrides(method: str) -> bool:
        return getattr(cls, method) is not getattr(Solver, method)

    assert backend.can_count == overrides("tallies"), "can_count"
    assert backend.can_sample == (overrides("sample") or isinstance(backend, EnumeratingSolver)), "can_sample"
    assert backend.can_explain == overrides("core"), "can_explain"
