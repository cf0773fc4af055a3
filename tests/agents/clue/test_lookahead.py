"""Win-seeking Clue agents (agents.clue.lookahead): accusations, gambles, refutations, deadlines."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

import agents
from agents.clue.lookahead import LookaheadAgent, opponent_view, suggester_view
from agents.clue.questions import entropy_bits, joint_sets
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    CardAt,
    CardNotAt,
    ClueConfig,
    ClueGame,
    ClueObservation,
    ClueState,
    EndTurn,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
)
from deduce.play import play_game


def small(players: int = 3, max_turns: int = 1000) -> ClueGame:
    return ClueGame(ClueConfig(num_players=players, suspects=("a", "b", "c"), weapons=("d", "e", "f"),
                               rooms=("g", "h", "i"), max_turns=max_turns))


def envelope_counts(game: ClueGame, obs: ClueObservation) -> dict[tuple[int, ...], int]:
    kb = game.knowledge(obs)
    return {k[0]: v for k, v in joint_sets(kb, [kb.loc(ENVELOPE)]).items()}


def with_facts(game: ClueGame, state: ClueState, obs: ClueObservation, skip: set[int]) -> ClueObservation:
    """``obs`` plus public facts placing every card outside ``skip`` where it truly is."""
    w = state.world()
    names = game.locations
    facts = tuple(CardAt(c, names[int(w[c])]) for c in range(len(game.deck)) if c not in skip)
    return dataclasses.replace(obs, events=obs.events + facts)


def after_own_suggestion(game: ClueGame, state: ClueState) -> ClueState:
    state.apply(state.legal_actions()[0])  # the first legal suggestion
    while state.current_player != 0:  # refuters holding several named cards show the first
        state.apply(state.legal_actions()[0])
    assert state.phase == "after"
    return state


def test_registered_and_validated():
    assert isinstance(agents.get("lookahead", game="clue"), LookaheadAgent)
    with pytest.raises(ValueError, match="refute"):
        LookaheadAgent(refute="nope")
    with pytest.raises(ValueError, match="objective"):
        LookaheadAgent(objective="nope")


def test_accuses_when_certain():
    game = ClueGame(num_players=3)
    state = game.new_initial_state(5)
    obs = with_facts(game, state, state.observation(0), set(state.envelope))
    agent = LookaheadAgent()
    agent.reset(game, 0, 1)
    assert agent.act(obs) == Accuse(state.envelope)


def _fifty_fifty(gamble: bool = True, min_gamble: float = 0.5) -> tuple[LookaheadAgent, ClueObservation, ClueState]:
    """After its own suggestion, player 0 knows the envelope up to two weapons."""
    game = ClueGame(num_players=3)
    state = game.new_initial_state(11)
    other_weapon = next(c for c in game.categories[1] if c != state.envelope[1] and c not in state.hands[0])
    state = after_own_suggestion(game, state)
    obs = with_facts(game, state, state.observation(0), set(state.envelope) | {other_weapon})
    counts = envelope_counts(game, obs)
    assert len(counts) == 2 and len(set(counts.values())) == 1
    agent = LookaheadAgent(gamble=gamble, min_gamble=min_gamble)
    agent.reset(game, 0, 3)
    return agent, obs, state


def test_gambles_only_when_opponents_are_about_to_solve():
    agent, obs, state = _fifty_fifty()
    # opponents that solve on their next turn for sure: a coin flip now beats waiting
    agent.threat = lambda obs, stop: {1: 1.0, 2: 1.0}  # type: ignore[method-assign]
    action = agent.act(obs)
    assert isinstance(action, Accuse) and action.cards in envelope_counts(agent.game, obs)  # type: ignore[arg-type]
    assert agent.gambles and agent.gambles[0][1] == pytest.approx(0.5)
    # opponents nowhere near: the envelope will be certain next lap, so wait
    agent, obs, state = _fifty_fifty()
    agent.threat = lambda obs, stop: {1: 0.0, 2: 0.0}  # type: ignore[method-assign]
    assert agent.act(obs) == EndTurn()
    # nor below the smallest chance it gambles on
    agent, obs, state = _fifty_fifty(min_gamble=0.6)
    agent.threat = lambda obs, stop: {1: 1.0, 2: 1.0}  # type: ignore[method-assign]
    assert agent.act(obs) == EndTurn()
    # gamble=False never accuses short of certainty
    agent, obs, state = _fifty_fifty(gamble=False)
    agent.threat = lambda obs, stop: {1: 1.0, 2: 1.0}  # type: ignore[method-assign]
    assert agent.act(obs) == EndTurn()


def test_looks_at_leftover_pile_before_gambling():
    game = ClueGame(num_players=4)  # 18 = 4 * 4 + 2: two face-down leftovers
    state = game.new_initial_state(2)
    state = after_own_suggestion(game, state)
    extra = set(state.extra)
    obs = with_facts(game, state, state.observation(0), set(state.envelope) | extra)
    agent = LookaheadAgent()
    agent.reset(game, 0, 0)
    agent.threat = lambda obs, stop: {1: 1.0, 2: 1.0, 3: 1.0}  # type: ignore[method-assign]
    assert len(envelope_counts(game, obs)) == 4  # the two hidden leftovers leave four envelopes
    cautious = LookaheadAgent(gamble=False)  # no gamble needed: the pile settles the envelope
    cautious.reset(game, 0, 0)
    assert cautious.act(obs) == ViewExtra() and not cautious.gambles
    assert agent.act(obs) == ViewExtra()
    state.apply(ViewExtra())
    obs = with_facts(game, state, state.observation(0), set(state.envelope) | extra)
    assert agent.act(obs) == Accuse(state.envelope)  # the pile settles it


def test_never_accuses_an_excluded_triple_and_games_finish():
    for players, seed in ((3, 0), (3, 1), (4, 2)):
        game = small(players, max_turns=60)
        seats = [LookaheadAgent(deadline=0.5, objective="win" if i == 0 else "info") for i in range(players)]
        checked: list[tuple[tuple[int, ...], int]] = []
        for seat in seats:
            original = seat.act

            def act(obs, original=original, checked=checked, game=game):  # type: ignore[no-untyped-def]
                action = original(obs)
                if isinstance(action, Accuse):
                    checked.append((action.cards, envelope_counts(game, obs).get(action.cards, 0)))
                return action

            seat.act = act  # type: ignore[method-assign]
        rec = play_game(game, seats, seed)
        assert rec.failure is None and rec.winners
        assert checked and all(count > 0 for _, count in checked)


def test_honours_its_deadline():
    game = ClueGame(num_players=4)
    state = game.new_initial_state(9)
    for deadline in (1.0, 0.15):
        agent = LookaheadAgent(deadline=deadline)
        agent.reset(game, 0, 0)
        t0 = time.perf_counter()
        action = agent.act(state.observation(0))
        assert time.perf_counter() - t0 < deadline
        assert action in state.legal_actions()


def test_refutes_with_a_card_already_shown_then_the_least_revealing():
    game = ClueGame(num_players=3)
    state = game.new_initial_state(4)
    me, asker = 1, 0
    a, b = state.hands[me][0], state.hands[me][1]
    obs = state.observation(me)
    pending = (asker, (a, b, game.categories[2][0]))
    legal = (Show(a), Show(b))
    base = dataclasses.replace(obs, to_refute=pending, legal_actions=legal, current_player=me)
    agent = LookaheadAgent()
    agent.reset(game, me, 0)
    # once shown b, always b again
    seen_b = Suggestion(asker, (a, b, game.categories[2][0]), (), (me,), (b,))
    assert agent.act(dataclasses.replace(base, events=obs.events + (seen_b,))) == Show(b)
    # a is publicly known to be out of the envelope: showing it tells the asker less
    hint = CardNotAt(a, ENVELOPE)
    for seed in range(3):
        agent.reset(game, me, seed)
        assert agent.act(dataclasses.replace(base, events=obs.events + (hint,))) == Show(a)
    kb = suggester_view(game, dataclasses.replace(base, events=obs.events + (hint,)), asker)
    assert len(joint_sets(kb, [kb.loc(ENVELOPE)])) > 1


def test_bluff_names_an_own_card():
    game = ClueGame(num_players=3)
    state = game.new_initial_state(7)
    agent = LookaheadAgent(bluff=1.0)
    agent.reset(game, 0, 0)
    action = agent.act(state.observation(0))
    assert isinstance(action, Suggest) and set(action.cards) & set(state.hands[0])


def test_opponent_view_matches_the_opponents_knowledge_when_refutations_were_forced():
    checked = 0
    for seed in range(6):
        game = ClueGame(num_players=3)
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        forced = True
        for _ in range(8):  # four suggestions, refutations forced or first-card
            if state.is_terminal():
                break
            options = [a for a in state.legal_actions() if isinstance(a, Suggest)]
            state.apply(options[int(rng.integers(len(options)))] if state.phase == "start" else EndTurn())
            while state.phase == "refute":
                forced = False
                state.apply(state.legal_actions()[0])
        if not forced or state.is_terminal():
            continue
        obs = state.observation(0)
        for j in (1, 2):
            view = opponent_view(game, obs, j, state.world(), rng)
            truth = game.knowledge(state.observation(j))
            mine = joint_sets(view, [view.loc(ENVELOPE)])
            theirs = joint_sets(truth, [truth.loc(ENVELOPE)])
            assert entropy_bits(mine.values()) == pytest.approx(entropy_bits(theirs.values()))
            checked += 1
    assert checked
