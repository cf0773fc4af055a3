"""Checkpoint Charlie properties over random games: knowledge is sound, observations hide what
a player cannot see, and the exact posterior equals a brute-force count over clue assignments
made straight from the rules (not from the knowledge base)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce.games.base import Action
from deduce.games.checkpoint_charlie.rules import (
    NUM_FEATURES,
    CatFlipped,
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    CheckpointCharlieState,
    ChooseSide,
    Colour,
    HoundFlipped,
    RoundDeal,
    chief_from_down,
    chief_from_sides,
    matches,
)
from solvers.tokens import TokenSolver

SOLVER = TokenSolver()


def random_action(state: CheckpointCharlieState, rng: np.random.Generator, arrest_rate: float) -> Action:
    """Sides at random; arrests with probability ``arrest_rate`` per poll (else pass)."""
    legal = state.legal_actions()
    if len(legal) > 1 and not isinstance(legal[0], ChooseSide):
        if rng.random() >= arrest_rate:
            return legal[0]
        return legal[1 + int(rng.integers(len(legal) - 1))]
    return legal[int(rng.integers(len(legal)))]


def chief_counts(kb_obs: CheckpointCharlieObservation, game: CheckpointCharlieGame) -> Counter[int]:
    kb = game.knowledge(kb_obs)
    out: Counter[int] = Counter()
    for down, n in SOLVER.solution_counts(kb, "down").items():
        out[chief_from_down(down)] += n
    return out


def brute_assignments(obs: CheckpointCharlieObservation) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every (feature per seat, up side per feature) that explains the current round's public
    events and the observer's own token, straight from the rules: a flipped cat is kept iff it
    fits the flipper's clue. Uses no other event content, so a leak cannot narrow it."""
    n = obs.num_players
    revealed = dict(obs.revealed)
    flips = [(e.player, e.cat, e.kept) for e in CheckpointCharlieGame.round_events(obs.events)
             if isinstance(e, CatFlipped) and e.cat is not None]
    free = [f for f in range(NUM_FEATURES) if f not in revealed]
    out = []
    for features in itertools.permutations(free, n):
        if obs.my_feature is not None and features[obs.player] != obs.my_feature:
            continue
        for sides in itertools.product((0, 1), repeat=NUM_FEATURES):
            if any(sides[f] != s for f, s in revealed.items()):
                continue
            if obs.my_side is not None and sides[features[obs.player]] != obs.my_side:
                continue
            if all(matches(cat, features[p], sides[features[p]]) == kept for p, cat, kept in flips):
                out.append((features, sides))
    return out


def brute_chief_counts(obs: CheckpointCharlieObservation) -> Counter[int]:
    return Counter(chief_from_sides(sides) for _, sides in brute_assignments(obs))


@settings(max_examples=12)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.05, 0.3, 1.0]))
@pytest.mark.slow
def test_true_world_consistent_with_every_players_knowledge(n: int, seed: int, rate: float) -> None:
    game = CheckpointCharlieGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal():
        truth = state.world()
        chief = state.chief()
        for p in range(n):
            obs = state.observation(p)
            kb = game.knowledge(obs)
            assert kb.consistent_with(truth), (p, kb.violated(truth))
            if obs.phase == "poll":
                # the true chief has non-zero posterior probability
                assert chief_counts(obs, game)[chief] > 0
        state.apply(random_action(state, rng, rate))
        steps += 1
    assert steps > 0


def alternative_deal(
    state: CheckpointCharlieState, features: tuple[int, ...], sides: tuple[int, ...]
) -> RoundDeal:
    """A deal for the current round with the same deck and revealed tokens but the given
    tokens per seat and sides."""
    revealed = list(state.revealed)
    rest = [f for f in range(NUM_FEATURES) if f not in features and f not in dict(revealed)]
    bag = [f for f, _ in revealed] + rest
    coins = [s for _, s in revealed] + [sides[f] for f in rest]
    return RoundDeal(tuple(features), tuple(bag), tuple(coins), state.deal.deck)


@settings(max_examples=25)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), observer=st.integers(0, 4),
       pick=st.integers(0, 10**6), rate=st.sampled_from([0.1, 0.5]))
def test_observation_same_for_deals_differing_only_in_unseen(
    n: int, seed: int, observer: int, pick: int, rate: float
) -> None:
    observer %= n
    game = CheckpointCharlieGame(num_players=n)
    start = game.new_initial_state(seed)
    state = start.clone()
    rng = np.random.default_rng(seed)
    actions: list[Action] = []
    # play round 1 up to (not including) the action that ends it
    while True:
        action = random_action(state, rng, rate)
        trial = state.clone()
        trial.apply(action)
        if trial.round != 1 or trial.is_terminal():
            break
        state = trial
        actions.append(action)
    candidates = brute_assignments(state.observation(observer))
    features, sides = candidates[pick % len(candidates)]
    a, b = start.clone(), start.redeal(alternative_deal(state, features, sides))
    for action in actions:
        assert a.observation(observer) == b.observation(observer)
        assert a.current_player == b.current_player
        if isinstance(action, ChooseSide) and a.current_player != observer:
            other = ChooseSide(sides[features[a.current_player]])
        else:
            other = action
        a.apply(action)
        b.apply(other)
    assert a.observation(observer) == b.observation(observer)


@settings(max_examples=10)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), observer=st.integers(0, 4))
def test_other_players_token_values_are_invisible(n: int, seed: int, observer: int) -> None:
    observer %= n
    game = CheckpointCharlieGame(num_players=n)
    a = game.new_initial_state(seed)
    b = a.clone()
    # every token's value changes (each colour's pool reversed); until the observer draws a
    # token whose value differs, its observation must not change
    for colour in Colour:
        b.pools[colour] = list(reversed(b.pools[colour]))
    rng = np.random.default_rng(seed)
    while not a.is_terminal() and not b.is_terminal():
        obs_a, obs_b = a.observation(observer), b.observation(observer)
        if obs_a.my_tokens != obs_b.my_tokens:
            break
        assert obs_a == obs_b
        action = random_action(a, rng, 0.3)
        a.apply(action)
        b.apply(action)


@settings(max_examples=30)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), stop=st.integers(1, 60),
       observer=st.integers(0, 4))
def test_exact_posterior_matches_brute_force(n: int, seed: int, stop: int, observer: int) -> None:
    observer %= n
    game = CheckpointCharlieGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(stop):
        if state.is_terminal() or (state.round > 1 and state.phase == "choose"):
            break
        state.apply(random_action(state, rng, 0.1))
    obs = state.observation(observer)
    assert chief_counts(obs, game) == brute_chief_counts(obs)


def test_checkpoint_solver_agrees_with_cpsat() -> None:
    cpsat = solvers.get("cpsat")
    for n, seed in ((3, 1), (4, 2), (5, 3)):
        game = CheckpointCharlieGame(num_players=n)
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(n + 8):
            state.apply(random_action(state, rng, 0.05))
        kb = game.knowledge(state.observation(1))
        assert any(isinstance(e, (CatFlipped, HoundFlipped)) for e in state.observation(1).events)
        assert SOLVER.solution_counts(kb, "down") == cpsat.solution_counts(kb, "down")
        assert SOLVER.tallies(kb) == cpsat.tallies(kb)
        assert (SOLVER.possible(kb) == cpsat.possible(kb)).all()


@settings(max_examples=10, deadline=None)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80))
def test_hidden_variant_keeps_the_players_observation(n: int, seed: int, steps: int) -> None:
    """``hidden_variant`` re-deals only tokens a player has not seen: its view stays the same."""
    game = CheckpointCharlieGame(num_players=n)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions: list[Action] = []
    for _ in range(steps):
        if state.is_terminal():
            break
        actions.append(random_action(state, rng, 0.2))
        state.apply(actions[-1])
    for p in range(n):
        variant = state.hidden_variant(p, actions, rng)
        if variant is not None:
            assert variant.deal != state.deal and variant.deal.features[p] == state.deal.features[p]
            assert variant.observation(p) == state.observation(p)
