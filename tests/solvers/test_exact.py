"""The exact model counter on hand-computed instances and Clue start-of-game counts."""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

import numpy as np
import pytest

import solvers
from deduce import At, AtLeastOne, Count, Deck, KnowledgeBase, NotAll, NotAt, NotSupported, TooLarge
from deduce.games.clue.rules import ClueGame
from solvers.exact import ExactSolver


def small_kb(n_cards: int = 4, locations: tuple[str, ...] = ("ann", "bob")) -> KnowledgeBase:
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(n_cards)]})
    return KnowledgeBase(deck, list(locations))


def add(kb: KnowledgeBase, *constraints) -> KnowledgeBase:
    kb.extend(constraints, check=False)
    return kb


def test_registered_by_name():
    assert isinstance(solvers.get("exact"), ExactSolver)
    assert solvers.get("sample").name == "sample"


def test_unconstrained_count_is_locations_to_the_cards():
    assert ExactSolver().count(small_kb(5, ("a", "b", "c"))) == 3**5


def test_hand_size_and_fact():
    kb = add(small_kb(), Count(range(4), 0, 2))
    s = ExactSolver()
    assert s.count(kb) == comb(4, 2)
    add(kb, At(0, 0))
    tally = s.tallies(kb)
    assert tally.total == 3
    assert tally.cells[0] == (3, 0)
    assert tally.cells[1] == (1, 2)
    assert s.fractions(kb)[1][0] == Fraction(1, 3)
    assert s.possible(kb)[0].tolist() == [True, False]
    assert s.solution_counts(kb, "ann") == {(0, 1): 1, (0, 2): 1, (0, 3): 1}


def test_clause_count():
    # 3 cards, 2 places, at least one of {0, 1} at place 0: 8 worlds minus 2 with both away
    kb = add(small_kb(3), AtLeastOne([0, 1], 0))
    tally = ExactSolver().tallies(kb)
    assert tally.total == 6
    assert tally.cells[0] == (4, 2)
    assert tally.cells[2] == (3, 3)


def test_not_all_and_inequalities():
    kb = add(small_kb(4, ("a", "b", "c")), NotAll([(0, 0), (1, 0)]), Count([0, 1, 2], 1, 2, "<="))
    # brute force by hand: iterate every world
    worlds = [
        (w0, w1, w2, w3)
        for w0 in range(3)
        for w1 in range(3)
        for w2 in range(3)
        for w3 in range(3)
        if not (w0 == 0 and w1 == 0) and sum(x == 1 for x in (w0, w1, w2)) <= 2
    ]
    s = ExactSolver()
    assert s.count(kb) == len(worlds)
    add(kb, Count([1, 2, 3], 2, 1, ">="))
    worlds = [w for w in worlds if sum(x == 2 for x in w[1:]) >= 1]
    tally = s.tallies(kb)
    assert tally.total == len(worlds)
    for card in range(4):
        for z in range(3):
            assert tally.cells[card][z] == sum(w[card] == z for w in worlds)


def test_tallies_sum_to_total_per_card():
    kb = add(small_kb(6, ("a", "b", "c")), Count(range(6), 0, 2), AtLeastOne([1, 2, 3], 1), NotAt(4, 2))
    tally = ExactSolver().tallies(kb)
    assert tally.total > 0
    for row in tally.cells:
        assert sum(row) == tally.total


def test_contradiction_counts_zero():
    kb = add(small_kb(), At(0, 0), Count([0, 1], 0, 0))
    s = ExactSolver()
    assert s.count(kb) == 0
    assert not s.consistent(kb)
    assert not s.possible(kb).any()
    assert s.tallies(kb).total == 0
    assert s.solution_counts(kb, 0) == {}
    assert s.sample(kb, 3, np.random.default_rng(0)) == []
    assert np.array_equal(s.marginals(kb), np.zeros((4, 2)))


def test_contradiction_found_only_by_counting():
    # each pair must be split between the two places, yet three cards share a place
    kb = add(
        small_kb(3),
        Count([0, 1], 0, 1),
        Count([1, 2], 0, 1),
        Count([0, 2], 0, 1),
    )
    assert ExactSolver().count(kb) == 0


def test_refuses_multiple_epochs():
    deck = Deck.from_categories({"k": ["a", "b"]})
    kb = KnowledgeBase(deck, ["x", "y"], epochs=2)
    s = ExactSolver()
    assert not s.supports(kb)
    with pytest.raises(NotSupported):
        s.count(kb)


def test_refuses_past_its_limit():
    kb = add(small_kb(12, ("a", "b", "c")), *[AtLeastOne([i, i + 1, i + 2], i % 3) for i in range(10)])
    with pytest.raises(TooLarge):
        ExactSolver(limit=10).count(kb)


def test_cache_returns_the_same_answer_cheaply():
    kb = add(small_kb(8, ("a", "b", "c")), Count(range(8), 0, 3), AtLeastOne([0, 1], 1))
    s = ExactSolver()
    first = s.tallies(kb)
    assert s.plan(kb) is s.plan(kb.copy())
    assert s.tallies(kb.copy()) == first


# -- Clue -------------------------------------------------------------------------------------
def test_spectator_at_start_of_three_player_game():
    game = ClueGame(num_players=3)
    kb = game.knowledge(game.new_initial_state(0).observation(None))
    s = ExactSolver()
    expected = 324 * factorial(18) // factorial(6) ** 3
    assert s.count(kb) == expected
    fr = s.fractions(kb)
    env = kb.loc("envelope")
    suspect, room = 0, 12
    assert fr[suspect][env] == Fraction(1, 6)
    assert fr[room][env] == Fraction(1, 9)
    assert fr[suspect][0] == Fraction(5, 18)
    counts = s.solution_counts(kb, env)
    assert len(counts) == 324
    assert set(counts.values()) == {factorial(18) // factorial(6) ** 3}
    assert sum(counts.values()) == expected


def test_own_view_at_start():
    game = ClueGame(num_players=4)  # hands of 4, two cards face down in the leftover pile
    state = game.new_initial_state(7)
    kb = game.knowledge(state.observation(0))
    hand = state.hands[0]
    per_cat = [len([c for c in cat if c not in hand]) for cat in game.categories]
    envelopes = per_cat[0] * per_cat[1] * per_cat[2]
    rest = 21 - 3 - 4  # 14 cards to three hands of 4 and a pile of 2
    expected = envelopes * factorial(rest) // (factorial(4) ** 3 * factorial(2))
    s = ExactSolver()
    tally = s.tallies(kb)
    assert tally.total == expected
    for row in tally.cells:
        assert sum(row) == expected
    for c in hand:
        assert tally.cells[c][0] == expected
    counts = s.solution_counts(kb, "envelope")
    assert len(counts) == envelopes
    assert sum(counts.values()) == expected
    assert tuple(state.envelope) in counts


def test_clue_state_after_play_counts_the_truth():
    game = ClueGame(num_players=5)
    state = game.new_initial_state(11)
    rng = np.random.default_rng(1)
    from deduce.games.clue.rules import EndTurn, Suggest

    for _ in range(40):
        legal = state.legal_actions()
        suggestions = [a for a in legal if isinstance(a, Suggest)]
        if suggestions:
            action = suggestions[int(rng.integers(len(suggestions)))]
        elif any(isinstance(a, EndTurn) for a in legal):
            action = EndTurn()
        else:
            action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
    s = ExactSolver()
    truth = state.world()
    for view in (None, 0, 3):
        kb = game.knowledge(state.observation(view))
        tally = s.tallies(kb)
        assert tally.total > 0
        for card, z in enumerate(truth):
            assert tally.cells[card][z] > 0
        counts = s.solution_counts(kb, "envelope")
        assert sum(counts.values()) == tally.total
        assert tuple(state.envelope) in counts


@pytest.mark.parametrize("players", [4, 6])
def test_python_fallback_matches_kernels(players):
    """Without numba (or with kernels off) the pure-Python DP gives identical answers."""
    from tests.solvers.test_exact_vs_brute import play

    game = ClueGame(num_players=players)
    state = game.new_initial_state(players)
    play(state, np.random.default_rng(players), 40, accuse_rate=0.05)
    for view in (None, 1):
        kb = game.knowledge(state.observation(view))
        fast, slow = ExactSolver(), ExactSolver(kernels=False)
        assert fast.tallies(kb) == slow.tallies(kb)
        assert slow.plan(kb).kernels is False
        assert fast.solution_counts(kb, "envelope") == slow.solution_counts(kb, "envelope")
