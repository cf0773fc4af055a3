"""Alibi (Adlung): time-indexed knowledge and its exact counter on hand-checked positions, and
the counting agent's exact-posterior option."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import agents
import solvers
from deduce.constraints import Count, Op, Transfer
from deduce.games.alibi_adlung.history import history, timed_knowledge, timeline, true_history
from deduce.games.alibi_adlung.rules import AlibiAdlungGame, AlibiAdlungState, Exchange, Pass
from solvers.timeline import TimelineCounter
from tests.games.alibi_adlung.test_props import SMALL

#: knife, revolver and the specials match nobody in SMALL's row (the first four suspects).
VOID = ("fat", "thin", "male", "female", "plain", "striped", "dotted", "glasses")


def _voided(**config: object) -> tuple[AlibiAdlungGame, AlibiAdlungState]:
    """Seat 0 holds {knife, revolver}: nothing matches, it exchanges the knife and draws male."""
    g = AlibiAdlungGame(num_players=2, **{**SMALL, **config})
    name = {c.name: c.id for c in g.deck}
    top = ["knife#1", "revolver#1", "fat#1", "thin#1", "male#1"]
    order = [name[c] for c in top] + [c for c in range(len(g.deck)) if g.deck[c].name not in top]
    s = AlibiAdlungState.from_deal(g, order, range(len(g.suspects)), seed=0)
    s.apply(Exchange((name["knife#1"],)))
    s.apply(Pass())
    return g, s


def _until_reshuffle(seed: int = 3) -> tuple[AlibiAdlungGame, AlibiAdlungState]:
    """A two-player game of random moves, stopped just after its first reshuffle."""
    g = AlibiAdlungGame(num_players=2)
    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    while not any(e.kind == "reshuffled" for e in s.events):
        legal = s.legal_actions()
        s.apply(legal[int(rng.integers(len(legal)))])
    return g, s


def test_a_void_is_a_count_at_the_epoch_it_was_proven():
    g, s = _voided()
    kb = g.knowledge(s.observation(1), exact_time=True)
    assert kb.epochs == 3  # deal, exchange (hand -> discard), draw (deck -> hand)
    transfers = sorted((c.epoch, c.moves) for c in kb.constraints if isinstance(c, Transfer))
    assert transfers == [(0, ((0, 3, 1),)), (1, ((2, 0, 1),))]
    (void,) = [c for c in kb.constraints if isinstance(c, Count) and c.n == 0 and c.loc == 0]
    assert void.epoch == 0 and {g.feature_of[c] for c in void.cards} == set(VOID)
    assert kb.consistent_with(true_history(s))


def test_exact_posterior_after_a_void_by_hand():
    """Seen by seat 1: seat 0's kept card is one of the 4 hidden non-matching cards (revolver,
    alibi, eye, bribe) and its new card one of the 9 other hidden cards: 36 worlds, and the new
    card matches with probability 6/9. The static relaxation (at most one matching card in a
    hand of two from ten) says 24/30 instead."""
    g, s = _voided()
    obs = s.observation(1)
    post = TimelineCounter().posterior(timeline(g, obs))
    assert post.total == 36
    assert post.total == solvers.get("chain").count(g.knowledge(obs, exact_time=True))
    frac = np.array([[Fraction(v, post.total) for v in row] for row in post.cells], dtype=object)
    matching = [c for c in range(len(g.deck)) if g.feature_of[c] in VOID]
    assert sum(frac[c, 0] for c in matching) == Fraction(2, 3)
    revolver = g.deck.card("revolver#1").id
    assert frac[revolver, 0] == Fraction(1, 3)  # kept (1/4) or drawn (3/4 * 1/9)
    relaxed = solvers.get("exact").tallies(g.knowledge(obs))
    assert sum(Fraction(relaxed.cells[c][0], relaxed.total) for c in matching) == Fraction(4, 5)
    assert Fraction(relaxed.cells[revolver][0], relaxed.total) == Fraction(3, 10)


def test_a_kept_full_deal_was_not_all_special_cards():
    g, s = _voided(redraw_automatic=True)  # where the engine redraws (not the player's choice)
    kb = g.knowledge(s.observation(1), exact_time=True)
    caps = [c for c in kb.constraints if isinstance(c, Count) and c.op is Op.LE]
    assert [(c.loc, c.n, c.epoch) for c in caps] == [(0, 1, 0)]
    assert {g.special_of[c] is not None for c in caps[0].cards} == {True}
    tl = timeline(g, s.observation(1))
    assert tl.seats == (0,) and tl.steps[0][:2] == (("draw", 2, 0), ("notall", frozenset({"alibi", "eye", "bribe"})))
    # a 2-card hand of specials among 3 is possible a priori: the cap changes the count
    assert TimelineCounter().count(tl) == solvers.get("cpsat").count(kb)


def test_a_reshuffle_inside_a_draw_splits_it():
    g, s = _until_reshuffle()
    h = history(g, s.events)
    i = next(i for i, step in enumerate(h.steps) if step[0].src == 3 and step[0].dst == 2)
    drawn = sum(m.count for step in h.steps for m in step if m.src == 2)
    assert drawn == sum(e.count for e in s.events if e.kind == "drew")  # split parts add up
    truth = true_history(s)
    assert (truth[i] == 2).sum() == 0 and (truth[i + 1] == 3).sum() == 0  # the deck was empty
    tl = timeline(g, s.observation(1))
    assert tl.current_cohort == 1


def test_spectator_timeline_hides_every_hand_and_the_counter_agrees_with_chain():
    g, s = _voided()
    obs = s.observation(None)
    tl = timeline(g, obs)
    assert tl.seats == (0, 1)
    assert TimelineCounter().tallies(tl) == solvers.get("chain").tallies(timed_knowledge(g, obs))


def test_unknown_timeline_step_is_refused():
    from solvers.timeline import _Sets, _slot_states

    with pytest.raises(ValueError, match="unknown timeline step"):
        _slot_states([("teleport", 1)], _Sets(), frozenset(), forced=False)


def test_counting_agent_with_the_exact_posterior_plays_whole_games():
    g = AlibiAdlungGame(num_players=3)
    s = g.new_initial_state(5)
    seated = [agents.get("counting", game="alibi-adlung", exact_time=True) for _ in range(3)]
    for k, a in enumerate(seated):
        a.reset(g, k, k)
    while not s.is_terminal():
        obs = s.observation(s.current_player)
        s.apply(seated[s.current_player].act(obs))
    assert all(a.fallbacks == 0 for a in seated)
    E, deck_p = seated[0].beliefs(s.observation(0))
    assert np.isclose(deck_p.sum(), s.observation(0).deck_size)
    assert s.convicted


def test_reshuffle_facts_tell_the_static_knowledge_base_which_cards_are_in_hands():
    """Two players, after a reshuffle: every hidden card that was not in the pile is in the
    opponent's hand; without the facts the static knowledge base spreads it over the deck."""
    g, s = _until_reshuffle()
    obs = s.observation(1)
    pile = next(e.cards for e in s.events if e.kind == "reshuffled")
    old = [c for c in range(len(g.deck)) if c not in pile and s.world()[c] == 0]
    assert old  # seat 0 kept cards through the reshuffle
    exact = solvers.get("exact")
    with_facts = exact.marginals(g.knowledge(obs))
    without = exact.marginals(g.knowledge(obs, cohorts=False))
    assert np.allclose(with_facts[old, 0], 1.0) and (without[old, 0] < 0.5).all()
    assert g.knowledge(obs).consistent_with(s.world())
    timed = TimelineCounter().marginals(timeline(g, obs))
    assert np.allclose(timed[old, 0], 1.0)


def test_counting_agent_falls_back_to_the_static_model_when_the_count_is_too_large():
    g, s = _voided()
    a = agents.get("counting", game="alibi-adlung")
    a.reset(g, 1, 0)
    a._counter = TimelineCounter(limit=0)  # every count refuses
    obs = s.observation(1)
    _, deck_p = a.beliefs(obs)
    assert a.fallbacks == 1
    static = solvers.get("exact").marginals(g.knowledge(obs))
    assert np.allclose(deck_p, static[:, 2])
