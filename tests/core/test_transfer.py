"""The time-indexed part of the vocabulary: Transfer semantics, validation, JSON, propagation,
and the cpsat/brute answers on hand-checked instances."""

from math import comb

import numpy as np
import pytest

import solvers
from deduce import (
    At,
    Contradiction,
    Count,
    Deck,
    InvalidConstraint,
    KnowledgeBase,
    NotSupported,
    propagate,
)
from deduce.constraints import CONSTRAINT_KINDS, Transfer


def deck(n: int) -> Deck:
    return Deck.from_categories({"k": [f"c{i}" for i in range(n)]})


def exchange_kb() -> KnowledgeBase:
    """ann holds c0,c1; bob holds c2,c3; they swap one unknown card each way."""
    kb = KnowledgeBase(deck(4), ["ann", "bob"], epochs=2)
    kb.extend([At(0, 0), At(1, 0), At(2, 1), At(3, 1), Transfer(0, [(0, 1, 1), (1, 0, 1)])])
    return kb


def test_transfer_holds_exactly():
    t = Transfer(0, [(0, 1, 1), (1, 0, 1)])
    assert t.holds([[0, 0, 1, 1], [1, 0, 0, 1]])
    assert not t.holds([[0, 0, 1, 1], [0, 0, 1, 1]])  # nothing moved
    assert not t.holds([[0, 0, 1, 1], [1, 1, 1, 1]])  # two moved one way, none back
    assert not t.holds([[0, 0, 1, 1], [1, 1, 0, 0]])  # two each way
    t2 = Transfer(0, [(0, 2, 1)])
    assert t2.holds([[0, 1, 1], [2, 1, 1]])
    assert not t2.holds([[0, 1, 1], [2, 0, 1]])  # an unlisted move 1 -> 0 breaks the frame rule


def test_transfer_is_registered_and_round_trips_through_json():
    assert CONSTRAINT_KINDS["Transfer"] is Transfer
    kb = exchange_kb()
    kb.add(Count(range(4), 0, 2, epoch=1), source="sizes")
    again = KnowledgeBase.from_json(kb.dumps())
    assert again == kb
    assert again.to_json()["constraints"][4] == {"kind": "Transfer", "epoch": 0, "moves": [["ann", "bob", 1], ["bob", "ann", 1]]}
    assert kb.describe(kb.constraints[4]) == "Transfer@0->1(ann->bob: 1, bob->ann: 1)"


@pytest.mark.parametrize(
    "bad, why",
    [
        (Transfer(1, [(0, 1, 1)]), "links epoch 1 to 2"),
        (Transfer(0, [(0, 0, 1)]), "to itself"),
        (Transfer(0, [(0, 1, -1)]), "negative"),
        (Transfer(0, [(0, 1, 1), (0, 1, 2)]), "listed twice"),
        (Transfer(0, [(0, 5, 1)]), "location index 5"),
    ],
)
def test_bad_transfers_are_rejected(bad, why):
    kb = KnowledgeBase(deck(3), ["a", "b"], epochs=2)
    with pytest.raises(InvalidConstraint, match=why):
        kb.add(bad)


def test_propagation_carries_facts_across_a_transfer():
    kb = exchange_kb()
    prop = propagate(kb)
    assert prop.contradiction is None
    # nothing can reach a location other than ann/bob; c0 may be at bob after the swap
    assert prop.possible[1, 0].tolist() == [True, True]
    kb.add(At(0, 0, epoch=1))  # ann kept c0 ...
    with pytest.raises(Contradiction, match="only 0 cards can go from ann to bob"):
        kb.add(At(1, 0, epoch=1))  # ... and c1: then no ann card can have gone to bob
    assert len(kb) == 6  # the rejected fact left nothing behind


def test_propagation_fixes_cards_that_provably_stay():
    kb = KnowledgeBase(deck(3), ["a", "b", "table"], epochs=2)
    kb.extend([At(0, 0), At(1, 1), At(2, 1), Transfer(0, [(0, 2, 1)])], check=False)
    prop = propagate(kb)
    assert prop.fixed(1)[1] == 1  # b gives nothing: c1 stays with b
    assert prop.fixed(1)[0] == 2  # a must give its only possible card c0


@pytest.mark.parametrize("name", ["brute", "cpsat"])
def test_exchange_counts(name):
    s = solvers.get(name)
    kb = exchange_kb()
    assert s.count(kb) == 4  # one of ann's two cards each way times one of bob's two
    assert np.allclose(s.marginals(kb), 0.5)
    first = s.possible(kb, epoch=0)
    assert first[0].tolist() == [True, False]
    kb.add(At(2, 0, epoch=1))  # ann received c2
    assert s.count(kb) == 2
    worlds = list(s.worlds(kb))
    assert all(w.shape == (2, 4) for w in worlds)
    assert all(kb.consistent_with(w) for w in worlds)


@pytest.mark.parametrize("name", ["brute", "cpsat"])
def test_unlinked_epochs_are_refused(name):
    kb = KnowledgeBase(deck(2), ["a", "b"], epochs=3)
    kb.add(Transfer(0, [(0, 1, 1)]))
    with pytest.raises(NotSupported, match="epochs 1 and 2"):
        solvers.get(name).count(kb)


def test_static_backends_refuse_transfers():
    kb = exchange_kb()
    for name in ("exact", "csp"):
        assert not solvers.get(name).supports(kb)


def test_cpsat_core_names_a_transfer():
    kb = exchange_kb()
    kb.extend([At(0, 0, epoch=1), At(1, 0, epoch=1)], check=False)
    core = solvers.get("cpsat").core(kb)
    assert 4 in core  # the transfer is part of every explanation


def test_played_cards_leave_hands():
    """Three cards per hand, each player plays one to the table: the remaining hand size follows."""
    kb = KnowledgeBase(deck(6), ["a", "b", "table"], epochs=2)
    kb.extend([Count(range(6), 0, 3), Count(range(6), 1, 3), Count(range(6), 2, 0)])
    kb.extend([Transfer(0, [(0, 2, 1), (1, 2, 1)]), At(0, 2, epoch=1), At(3, 2, epoch=1)])
    s = solvers.get("cpsat")
    assert s.count(kb) == 2 * comb(4, 2)  # c0/c3 one in each hand, then 2 of the other 4 for a
    assert s.count(kb) == solvers.get("brute").count(kb)
