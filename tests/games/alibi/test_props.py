"""Alibi properties over random games: knowledge bases stay sound at every step, observations
depend only on what a player has seen, and cpsat agrees with brute (and the epoch solver) on
tiny decks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce.games.alibi.rules import Accuse, AlibiGame, AlibiState, Ask, Family
from deduce.knowledge import propagate
from solvers.epoch import EpochSolver

SMALL = dict(
    suspects=("A", "B"),
    places=(("P", ("p1", "p2", "p3")),),
    weapons=(("W", ("w1", "w2", "w3")),),
    emotions=(("E", ("e1", "e2", "e3")),),
)


def _pick(state: AlibiState, rng: np.random.Generator, accuse_ok: bool) -> object:
    legal = state.legal_actions()
    if not accuse_ok and len(legal) > 1:
        legal = [a for a in legal if not isinstance(a, Accuse)]
    if state.phase == "ask" and len(state.legal_actions()) > 1 and rng.random() < 0.3:  # a random union, beyond the canonical family
        cards = tuple(int(c) for c in rng.choice(state.game.num_cards, size=int(rng.integers(1, 5)), replace=False))
        target = int(rng.choice([p for p in range(state.game.num_players) if p != state.current_player]))
        return Ask(target, Family(rng.choice(["hand", "seen"])), cards)
    return legal[int(rng.integers(len(legal)))]


@settings(max_examples=10, deadline=None)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), small=st.booleans())
@pytest.mark.slow
def test_truth_is_consistent_with_every_knowledge_base_at_every_step(n, seed, small):
    game = AlibiGame(num_players=n, max_rounds=3, **(SMALL if small else {}))
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        if steps % (3 if small else 60) == 0 or state.is_terminal():
            truth = state.world()
            for p in [*range(n), None]:
                kb = game.knowledge(state.observation(p))
                assert kb.consistent_with(truth), [kb.describe(c) for c in kb.violated(truth)]
                prop = propagate(kb)
                assert prop.contradiction is None
                e, c = np.indices(truth.shape)
                assert prop.possible[e, c, truth].all()
        if state.is_terminal():
            break
        state.apply(_pick(state, rng, accuse_ok=steps > 40))
        steps += 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60), player=st.integers(0, 2))
def test_observation_depends_only_on_what_the_player_has_seen(seed, steps, player):
    """Swap two cards the player has never seen between the two other hands: under the same
    actions the player's observation is identical at every step, until the player sees one of
    them or a public answer differs between the two worlds."""
    game = AlibiGame(num_players=3, **SMALL)
    a = game.new_initial_state(seed)
    others = [p for p in range(3) if p != player]
    h0, h1 = sorted(a.hands[others[0]]), sorted(a.hands[others[1]])
    rng = np.random.default_rng(seed)
    x, y = int(rng.choice(h0)), int(rng.choice(h1))
    hands = [sorted(h) for h in a.hands]
    hands[others[0]] = sorted(set(h0) - {x} | {y})
    hands[others[1]] = sorted(set(h1) - {y} | {x})
    b = AlibiState.from_deal(game, a.box, hands)
    seen = set(a.hands[player])
    for _ in range(steps):
        if a.is_terminal():
            break
        oa, ob = a.observation(player), b.observation(player)
        if x in seen or y in seen:
            break  # from here on the player has seen one of them
        assert oa == ob
        who = a.current_player
        legal = a.legal_actions()
        if who != player:
            # the others play the same action where it is legal in both worlds
            legal = [act for act in legal if act in b.legal_actions() and not isinstance(act, Accuse)]
        if not legal:
            break
        action = legal[int(rng.integers(len(legal)))]
        if action not in b.legal_actions():
            break
        if isinstance(action, Ask):
            ans = [a.game.answer(s.world(), action.target, action.family, action.cards) for s in (a, b)]
            if ans[0] != ans[1]:
                break  # a public answer tells the worlds apart: that is the game, not a leak
        a.apply(action)
        b.apply(action)
        world = a.world()
        seen |= set(np.flatnonzero((world == player).any(axis=0)).tolist())


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), player=st.integers(0, 2), asks=st.integers(0, 3))
@pytest.mark.slow
def test_cpsat_agrees_with_brute_on_tiny_decks(seed, player, asks):
    """After a pass (two or more epochs) and some questions, with all but three unknown cards
    pinned to the truth so brute force stays small, brute, cpsat and the epoch solver agree."""
    from deduce.constraints import At

    game = AlibiGame(num_players=3, **SMALL)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    while state.phase != "ask" or state.round < 2:
        state.apply(_pick(state, rng, accuse_ok=False))
    for _ in range(asks):
        if state.phase != "ask":
            break
        state.apply(_pick(state, rng, accuse_ok=False))
    kb = game.knowledge(state.observation(player))
    truth = state.world()
    free = set(rng.choice(game.num_cards, size=3, replace=False).tolist())
    kb.extend([At(c, int(truth[e, c]), epoch=e) for e in range(kb.epochs) for c in range(game.num_cards) if c not in free], check=False)
    brute, cpsat = solvers.get("brute"), solvers.get("cpsat")
    assert brute.count(kb) == cpsat.count(kb) >= 1
    for e in range(kb.epochs):
        p = brute.possible(kb, epoch=e)
        assert (p == cpsat.possible(kb, epoch=e)).all()
        assert (p == EpochSolver().possible(kb, epoch=e)).all()


@settings(max_examples=8, deadline=None)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_hidden_variant_keeps_the_players_observation(n, seed, steps):
    """``hidden_variant`` swaps only cards a player never saw and keeps every public answer:
    the player's view stays the same."""
    game = AlibiGame(num_players=n, max_rounds=3)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(steps):
        if state.is_terminal():
            break
        actions.append(_pick(state, rng, accuse_ok=False))
        state.apply(actions[-1])
    for p in range(n):
        variant = state.hidden_variant(p, actions, rng)
        if variant is not None:
            assert not np.array_equal(variant.world(), state.world())
            assert variant.observation(p) == state.observation(p)
