"""Alibi (Adlung) properties over random games: every knowledge base stays sound, observations
depend only on what a player has seen, and the exact counter agrees with cpsat and brute force
on small decks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import solvers
from deduce.errors import IllegalAction
from deduce.games.alibi_adlung.rules import AlibiAdlungGame, AlibiAdlungState
from deduce.knowledge import propagate

#: 10 evidence cards (knife and revolver match nobody: dead cards make voids common) + 3 specials.
SMALL = dict(
    suspects=(
        ("fat", "male", "plain"),
        ("thin", "female", "striped"),
        ("fat", "female", "dotted"),
        ("thin", "male", "plain", "glasses"),
        ("fat", "male", "striped"),
    ),
    evidence_counts=tuple((f, 1) for f in ("fat", "thin", "male", "female", "plain", "striped", "dotted",
                                           "glasses", "knife", "revolver")),
    num_alibi=1,
    num_eye=1,
    num_bribe=1,
    hand_size=2,
    convict_distinct=3,
)


def random_play(state: AlibiAdlungState, rng: np.random.Generator, steps: int) -> list:
    actions = []
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
    return actions


@settings(max_examples=12)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), small=st.booleans())
@pytest.mark.slow
def test_truth_is_consistent_with_every_knowledge_base_at_every_step(n, seed, small):
    game = AlibiAdlungGame(num_players=min(n, 3) if small else n, **(SMALL if small else {}))
    n = game.num_players
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(120 if small else 60):
        truth = state.world()
        for p in [*range(n), None]:
            kb = game.knowledge(state.observation(p))
            assert kb.consistent_with(truth), [kb.describe(c) for c in kb.violated(truth)]
            assert propagate(kb).contradiction is None
        if state.is_terminal():
            break
        random_play(state, rng, 1)


def _seen(game: AlibiAdlungGame, state: AlibiAdlungState, player: int) -> set[int]:
    """Every card id that appears in ``player``'s view of the events, or in its hand."""
    out = set(state.hands[player])
    for e in state.views(player):
        for attr in ("card", "target"):
            if hasattr(e, attr):
                out.add(int(getattr(e, attr)))
        out.update(int(c) for c in getattr(e, "cards", ()))
    return out


@settings(max_examples=15)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60), small=st.booleans())
@example(n=2, seed=1, steps=0, small=True)  # a swap of kinds once made the opponent's opening hand all specials
def test_observation_depends_only_on_what_the_player_has_seen(n, seed, steps, small):
    """Deals that differ only in cards a player never saw give it the same observation, turn by
    turn, under the same actions (same seed: same reshuffles)."""
    game = AlibiAdlungGame(num_players=min(n, 3) if small else n, **(SMALL if small else {}))
    n = game.num_players
    rng = np.random.default_rng(seed)
    order = [int(c) for c in rng.permutation(len(game.deck))]
    suspects = [int(s) for s in rng.permutation(len(game.suspects))]
    real = AlibiAdlungState.from_deal(game, order, suspects, seed=seed)
    actions = random_play(real, rng, steps)
    for p in range(n):
        unseen = sorted(set(range(len(game.deck))) - _seen(game, real, p))
        if len(unseen) < 2:
            continue
        for same_type in (False, True):
            perm = list(unseen)
            if same_type:  # always legal: swap only among copies of one feature
                by_type: dict[object, list[int]] = {}
                for c in unseen:
                    by_type.setdefault(game.feature_of[c] or game.special_of[c], []).append(c)
                mapping = {}
                for group in by_type.values():
                    mapping.update(zip(group, rng.permutation(group).tolist(), strict=True))
            else:
                # any evidence for any evidence, any special card for any special card: a swap
                # between the two kinds can make an unseen opening hand all specials, and its
                # redraw is public (RULES.md §1′)
                mapping = {}
                for special in (False, True):
                    group = [c for c in perm if bool(game.special_of[c]) == special]
                    mapping.update(zip(group, rng.permutation(group).tolist(), strict=True))
            other = [mapping.get(c, c) for c in order]
            a = AlibiAdlungState.from_deal(game, order, suspects, seed=seed)
            b = AlibiAdlungState.from_deal(game, other, suspects, seed=seed)
            assert a.observation(p) == b.observation(p)
            try:
                for action in actions:
                    a.apply(action)
                    b.apply(action)
                    assert a.observation(p) == b.observation(p)
                    assert a.observation(None) == b.observation(None)
            except IllegalAction:
                assert not same_type  # an opponent's exchange may be illegal with other cards
                continue


def test_a_changed_seen_card_changes_the_observation():
    game = AlibiAdlungGame(num_players=2, **SMALL)
    order = list(range(len(game.deck)))
    s = AlibiAdlungState.from_deal(game, order, seed=0)
    t = AlibiAdlungState.from_deal(game, [order[0], order[4]] + order[2:4] + [order[1]] + order[5:], seed=0)
    assert s.observation(0) != t.observation(0)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40), seat=st.integers(0, 1))
def test_exact_agrees_with_cpsat_and_brute_on_a_small_deck(seed, steps, seat):
    game = AlibiAdlungGame(num_players=2, **SMALL)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    kb = game.knowledge(state.observation(seat))
    exact = solvers.get("exact").tallies(kb)
    assert exact == solvers.get("brute").tallies(kb)
    assert exact == solvers.get("cpsat").tallies(kb)
    assert exact.total >= 1
    m = exact.marginals()
    assert np.allclose(m.sum(axis=1), 1.0)


@settings(max_examples=8)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 200))
@pytest.mark.slow
def test_exact_possible_agrees_with_cpsat_on_the_full_deck(n, seed, steps):
    game = AlibiAdlungGame(num_players=n)
    state = game.new_initial_state(seed)
    random_play(state, np.random.default_rng(seed), steps)
    p = state.current_player if not state.is_terminal() else 0
    kb = game.knowledge(state.observation(p))
    possible = solvers.get("exact").possible(kb)
    assert np.array_equal(possible, solvers.get("cpsat").possible(kb))
    truth = state.world()
    assert possible[np.arange(len(truth)), truth].all()


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_hidden_variant_keeps_the_players_observation(n, seed, steps):
    """``hidden_variant`` renames only cards a player never saw: its view stays the same."""
    game = AlibiAdlungGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = random_play(state, rng, steps)
    for p in range(n):
        variant = state.hidden_variant(p, actions, rng)
        if variant is not None:
            assert not np.array_equal(variant.world(), state.world())
            assert variant.observation(p) == state.observation(p)
            assert variant.observation(None) == state.observation(None)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(150, 400))
def test_reshuffle_variants_keep_the_players_observation(n, seed, steps):
    """A variant that reorders a reshuffled deck (two cards the player never saw again) moves
    hidden cards and keeps the player's and the spectator's view."""
    game = AlibiAdlungGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = random_play(state, rng, steps)
    for p in range(n):
        variant = state._reshuffle_variant(p, actions, rng)
        if variant is not None:
            assert variant.reshuffles != state.reshuffles and variant._deal == state._deal
            assert not np.array_equal(variant.world(), state.world())
            assert variant.observation(p) == state.observation(p)
            assert variant.observation(None) == state.observation(None)


def test_reshuffle_variants_exist():
    found = 0
    for seed in range(4):
        game = AlibiAdlungGame(num_players=3)
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        actions = random_play(state, rng, 300)
        assert state.reshuffles
        found += sum(state._reshuffle_variant(p, actions, rng) is not None for p in range(3))
    assert found >= 4
