"""Clue properties: every player's knowledge is sound at every step; an observation does not
depend on cards its player has not seen."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce.games.clue.rules import Accuse, ClueGame, ClueState, Show, Suggestion, ViewExtra

SMALL = dict(suspects=("S1", "S2", "S3"), weapons=("W1", "W2", "W3"), rooms=("R1", "R2", "R3"))


def random_actions(state, rng, steps):
    """Play mostly suggestions (so knowledge accumulates), sometimes accusations."""
    played = []
    for _ in range(steps):
        if state.is_terminal():
            break
        acts = state.legal_actions()
        non_acc = [a for a in acts if not isinstance(a, Accuse | ViewExtra)]
        pool = acts if (rng.random() < 0.05 or not non_acc) else non_acc
        action = pool[int(rng.integers(len(pool)))]
        state.apply(action)
        played.append(action)
    return played


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(3, 6),
    mode=st.sampled_from(["equal_leftover", "equal_leftover_public", "all"]),
    refute_all=st.booleans(),
)
@pytest.mark.slow
def test_true_deal_is_consistent_with_every_knowledge_base(seed, n, mode, refute_all):
    game = ClueGame(num_players=n, deal_mode=mode, refute_all=refute_all)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    world = state.world()
    for _ in range(40):
        if state.is_terminal():
            break
        random_actions(state, rng, 1)
        for p in [*range(n), None]:
            kb = game.knowledge(state.observation(p))
            assert kb.consistent_with(world), kb.violated(world)


@settings(max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([3, 4]))
@pytest.mark.slow
def test_solvers_never_exclude_the_truth_on_small_decks(seed, n):
    game = ClueGame(num_players=n, **SMALL)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    world = state.world()
    cards = np.arange(len(world))
    for _ in range(12):
        if state.is_terminal():
            break
        random_actions(state, rng, 2)
        for p in range(n):
            kb = game.knowledge(state.observation(p))
            for name in ("cpsat", "csp"):
                assert solvers.get(name).possible(kb)[cards, world].all()
            reference = solvers.get("cpsat").tallies(kb)
            assert solvers.get("csp").tallies(kb) == reference
            if p == 0:
                assert solvers.get("brute").tallies(kb) == reference


def test_hand_size_counting_is_used():
    # ann (spectator here) learns bob holds one of {Rope, Knife} by a refutation; bob holds 6
    # cards and is known to lack all but 7 of them, one of which the clause rules out
    game = ClueGame(num_players=3)
    from deduce.logs import load_log

    deck = game.deck
    lacks = [c.name for c in deck][:14]
    keep = [c.name for c in deck][14:]  # 7 candidates for bob's 6 cards
    events = [{"type": "card_not_at", "card": c, "at": "bob"} for c in lacks]
    events.append({"type": "card_not_at", "card": keep[0], "at": "bob"})
    kb = load_log({"game": "clue", "players": ["ann", "bob", "cy"], "events": events})
    possible = solvers.get("cpsat").possible(kb)
    for name in keep[1:]:
        assert possible[kb.card(name)].tolist() == [False, True, False, False]


def hidden_swap(state, p):
    """Two cards in other players' hands that were never named, shown or accused: swapping
    them changes nothing ``p`` can see."""
    named = set()
    for e in state.events:
        if isinstance(e, Suggestion) or type(e).__name__ == "Accusation":
            named |= set(e.cards)
    if state._pending is not None:  # a suggestion still being refuted
        named |= set(state._pending["cards"])
    others = [q for q in range(len(state.hands)) if q != p]
    for i, q in enumerate(others):
        for r in others[i + 1 :]:
            for a in state.hands[q]:
                for b in state.hands[r]:
                    if a not in named and b not in named:
                        return q, a, r, b
    return None


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 6), steps=st.integers(1, 30))
def test_observation_ignores_unseen_cards(seed, n, steps):
    game = ClueGame(num_players=n)
    a = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    played = random_actions(a, rng, steps)
    for p in range(n):
        swap = hidden_swap(a, p)
        if swap is None:
            continue
        q, ca, r, cb = swap
        hands = [list(h) for h in a.hands]
        hands[q][hands[q].index(ca)] = cb
        hands[r][hands[r].index(cb)] = ca
        original = ClueState.from_deal(game, a.envelope, a.hands, a.extra)
        b = ClueState.from_deal(game, a.envelope, hands, a.extra)
        for action in played:
            assert original.observation(p) == b.observation(p)
            if isinstance(action, Show):
                assert action in b.legal_actions()
            original.apply(action)
            b.apply(action)
        assert original.observation(p) == b.observation(p)
        assert original.observation(q) != b.observation(q)  # the test can tell a difference


INTRIGUE = dict(board_mode="board", edition="intrigue")


def intrigue_actions(state, rng, steps):
    """Random play in the intrigue edition, steering half the time towards rooms and the pool
    (moves into them) so that suggestions, declines and accusations happen, not only walking."""
    played = []
    board = state.game.board
    for _ in range(steps):
        if state.is_terminal():
            break
        acts = state.legal_actions()
        into = [a for a in acts if getattr(a, "to", None) is not None and board.ends_move(a.to)]
        non_acc = [a for a in acts if not isinstance(a, Accuse | ViewExtra)]
        if into and rng.random() < 0.5:
            pool = into
        else:
            pool = acts if (rng.random() < 0.05 or not non_acc) else non_acc
        action = pool[int(rng.integers(len(pool)))]
        state.apply(action)
        played.append(action)
    return played


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 6), bonus=st.integers(0, 8))
@pytest.mark.slow
def test_intrigue_edition_knowledge_stays_sound(seed, n, bonus):
    """Declines, bonus cards, clocks and pool accusations never rule out the true deal."""
    game = ClueGame(num_players=n, bonus_cards=(("any_room", bonus), ("decline", 8)), max_turns=200, **INTRIGUE)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    world = state.world()
    for _ in range(60):
        if state.is_terminal():
            break
        intrigue_actions(state, rng, 3)
        for p in [*range(n), None]:
            kb = game.knowledge(state.observation(p))
            assert kb.consistent_with(world), kb.violated(world)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 5), steps=st.integers(5, 120))
def test_intrigue_hidden_variant_keeps_the_players_observation(seed, n, steps):
    """``hidden_variant`` (two unseen cards swapped, the same dice and intrigue deck) changes
    the world but nothing the player saw, declines and bonus cards included."""
    game = ClueGame(num_players=n, bonus_cards=(("any_room", 4), ("decline", 8)), **INTRIGUE)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    actions = intrigue_actions(state, rng, steps)
    for p in range(n):
        variant = state.hidden_variant(p, actions, rng)
        if variant is not None:
            assert not np.array_equal(variant.world(), state.world())
            assert variant.observation(p) == state.observation(p)
            assert variant.bonus == state.bonus and variant.clocks_out == state.clocks_out
