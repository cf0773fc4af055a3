"""KnowledgeBase: transactional add, cheap propagation, JSON round trips."""

import numpy as np
import pytest

import solvers
from deduce import (
    At,
    AtLeastOne,
    Contradiction,
    Count,
    Deck,
    InvalidConstraint,
    KnowledgeBase,
    NotAll,
    NotAt,
    UnknownName,
    propagate,
)


def small_kb() -> KnowledgeBase:
    deck = Deck.from_categories({"s": ["a", "b"], "w": ["c", "d"], "r": ["e", "f", "g"]})
    kb = KnowledgeBase(deck, ["ann", "bob", "envelope"])
    env = kb.loc("envelope")
    for cat in deck.categories:
        kb.add(Count([c.id for c in deck.in_category(cat)], env, 1), source="rules")
    kb.add(Count(range(7), 0, 2), source="rules")
    kb.add(Count(range(7), 1, 2), source="rules")
    return kb


def test_names_are_case_and_punctuation_insensitive():
    kb = small_kb()
    assert kb.card("A") == 0
    assert kb.loc("EnVeLoPe") == 2
    with pytest.raises(UnknownName, match="unknown card 'zz'"):
        kb.card("zz")
    with pytest.raises(UnknownName, match="unknown location 'carl'"):
        kb.loc("carl")


@pytest.mark.parametrize(
    "bad",
    [
        At(0, 1),  # a is known to be at ann
        NotAt(0, 0),
        Count([0, 1], 0, 0),
        AtLeastOne([0, 2], 1) ,
        NotAll([(0, 0)]),
    ],
    ids=["At", "NotAt", "Count", "AtLeastOne", "NotAll"],
)
def test_rejected_constraint_leaves_kb_unchanged(bad):
    kb = small_kb()
    kb.add(At(0, 0))
    kb.add(NotAt(2, 1))
    before = kb.copy()
    with pytest.raises(Contradiction) as info:
        kb.add(bad, source="event 9", check=solvers.get("cpsat"))
    assert kb == before
    assert info.value.constraint == bad
    assert "contradicts" in str(info.value)


def test_solver_checker_catches_what_propagation_misses():
    # bob holds two cards but three disjoint clauses each need one of his cards
    kb = small_kb()
    kb.add(AtLeastOne([0, 1], 1))
    kb.add(AtLeastOne([2, 3], 1))
    third = AtLeastOne([4, 5], 1)
    kb.add(third)  # propagation alone cannot see the pigeonhole
    kb2 = small_kb()
    kb2.add(AtLeastOne([0, 1], 1))
    kb2.add(AtLeastOne([2, 3], 1))
    before = kb2.copy()
    with pytest.raises(Contradiction):
        kb2.add(third, check=solvers.get("cpsat"))
    assert kb2 == before
    assert not solvers.get("brute").consistent(kb)


def test_contradiction_names_conflicting_constraints_with_sources():
    kb = small_kb()
    kb.add(AtLeastOne([0, 2, 4], 1), source="event 1")
    kb.add(NotAt(0, 1), source="event 2")
    kb.add(NotAt(2, 1), source="event 3")
    with pytest.raises(Contradiction) as info:
        kb.add(NotAt(4, 1), source="event 4", check=solvers.get("cpsat"))
    assert set(info.value.sources) >= {"event 1", "event 2", "event 3"}
    assert "rules" not in info.value.sources


def test_extend_is_all_or_nothing():
    kb = small_kb()
    before = kb.copy()
    with pytest.raises(Contradiction):
        kb.extend([At(0, 0), At(1, 0), At(2, 0)])  # ann holds only two cards
    assert kb == before
    kb.extend([At(0, 0), At(2, 0)])
    assert len(kb) == len(before) + 2


def test_propagation_uses_hand_sizes():
    # bob must hold k of the k+1 remaining candidates; one is excluded by a clause -> the rest are his
    deck = Deck.from_categories({"x": ["a", "b", "c", "d"]})
    kb = KnowledgeBase(deck, ["ann", "bob"])
    kb.add(Count(range(4), 0, 1))
    kb.add(Count(range(4), 1, 3))
    kb.add(At(0, 0))
    p = propagate(kb)
    assert p.contradiction is None
    assert p.fixed().tolist() == [0, 1, 1, 1]


@pytest.mark.parametrize(
    "bad",
    [At(99, 0), NotAt(0, 7), AtLeastOne([], 0), Count([0], 0, -1), NotAll([])],
    ids=["card", "loc", "empty-clause", "negative", "empty-notall"],
)
def test_invalid_constraints_are_refused(bad):
    kb = small_kb()
    before = kb.copy()
    with pytest.raises(InvalidConstraint):
        kb.add(bad)
    assert kb == before


def test_json_round_trip_is_exact():
    kb = small_kb()
    kb.add(AtLeastOne([0, 2, 4], 1), source="event 1")
    kb.add(NotAll([(0, 2), (2, 2), (4, 2)]), source="event 2")
    kb.add(Count([0, 3, 5], 0, 1, "<="), source="event 3")
    again = KnowledgeBase.from_json(kb.dumps())
    assert again == kb
    assert again.sources == kb.sources
    assert np.array_equal(solvers.get("brute").possible(again), solvers.get("brute").possible(kb))


def test_consistent_with_checks_the_world():
    kb = small_kb()
    kb.add(At(0, 0))
    world = [0, 2, 0, 2, 1, 1, 2]  # a,c at ann; e,f at bob; b,d,g envelope
    assert kb.consistent_with(world)
    assert not kb.consistent_with([1, 2, 0, 2, 0, 1, 2])
    with pytest.raises(ValueError):
        kb.consistent_with([0, 1])


class CountingChecker:
    """A checker that says yes and counts how often it was asked."""

    def __init__(self) -> None:
        self.calls = 0

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.calls += 1
        return True


def test_a_repeated_fact_costs_nothing():
    """Issue 22: 10,000 repeated ``card_at`` lines took 553 s, each re-checking the whole base."""
    kb = small_kb()
    checker = CountingChecker()
    kb.checker = checker
    fact = At(kb.card("a"), kb.loc("ann"))
    kb.add(fact, source="event 1")
    before = len(kb)
    for i in range(50):
        kb.add(At(kb.card("a"), kb.loc("ann")), source=f"event {i + 2}")
        kb.extend([fact, fact], source="again")
    assert checker.calls == 1
    assert len(kb) == before
    assert kb.sources[kb.constraints.index(fact)] == "event 1"  # the first source is the one cited
    copy = kb.copy()
    copy.add(fact)
    assert checker.calls == 1 and len(copy) == before
    kb.add(NotAt(kb.card("b"), kb.loc("ann")))  # a new fact is still checked
    assert checker.calls == 2 and len(kb) == before + 1


def test_extend_takes_one_source_per_constraint_and_keeps_the_first():
    kb = small_kb()
    before = len(kb.constraints)
    kb.extend([At(0, 0), NotAt(1, 0), At(0, 0)], sources=["event 3", "event 4", "event 5"], check=False)
    assert list(kb.constraints[before:]) == [At(0, 0), NotAt(1, 0)]
    assert list(kb.sources[before:]) == ["event 3", "event 4"]  # the repeat keeps its first source
    checked = small_kb()
    checked.extend([At(2, 1)], sources=["event 0"])  # with the default check too
    assert checked.sources[-1] == "event 0"


@pytest.mark.parametrize("kwargs", [{"sources": ["event 0"]}, {"sources": ["event 0", "event 1"], "source": "x"}])
def test_extend_refuses_sources_that_do_not_match_the_constraints(kwargs):
    from deduce.errors import InvalidConfig

    kb = small_kb()
    with pytest.raises(InvalidConfig, match="sources"):
        kb.extend([At(0, 0), NotAt(1, 0)], **kwargs)
    assert At(0, 0) not in kb.constraints
