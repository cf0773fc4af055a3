"""racer-two-step (agents/clue/two_step.py): questions valued by the best guess's exact expected
chance after the question and the best follow-up, so it can prefer a question racer's one-step
score ranks lower when that question sets up a better next turn."""

from __future__ import annotations

import pytest

import agents
from agents.clue.deduction import RacerAgent
from agents.clue.questions import score_questions
from agents.clue.two_step import TwoStepRacerAgent, answered_knowledge, two_step_values
from deduce.errors import DeduceError
from deduce.games.clue.rules import ENVELOPE, Suggest, shown_to
from deduce.play import play_game
from tests.agents.clue.test_agents import small
from tests.agents.clue.test_styles import ask, dealt


def position():  # noqa: ANN201
    """p0 (holding a, d) to suggest after p0 asked b-e-h, p1 a-f-i and p2 b-e-g (first legal
    refutations), the envelope c, f, i."""
    game, state = dealt()
    ask(state, (2, 4, 7), (0, 5, 8), (1, 4, 6))
    assert state.current_player == 0 and state.phase == "start"
    return game, state, state.observation(0)


def scored(game, obs):  # noqa: ANN001, ANN201
    kb = game.knowledge(obs)
    options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
    return kb, options, [1, 2], shown_to(obs, 0)


def test_one_step_value_is_the_best_guess_plus_racers_accuracy_gain():
    game, _, obs = position()
    kb, options, responders, shown = scored(game, obs)
    env = kb.loc(ENVELOPE)
    gains = score_questions(kb, env, options, responders, shown, 10**6, 0.0, "accuracy")
    from agents.clue.lookahead import _envelope_counts

    counts = _envelope_counts(kb, 10**6)
    p = max(counts.values()) / sum(counts.values())
    alone = two_step_values(kb, options, {q: [] for q in options}, responders, shown, 10**6)
    for q in options:
        assert alone[q][0] == alone[q][1] == pytest.approx(p + gains[q], abs=1e-9)
    both = two_step_values(kb, options[:5], {q: options for q in options[:5]}, responders, shown, 10**6)
    assert all(both[q][0] == pytest.approx(alone[q][0]) for q in options[:5])
    assert all(both[q][1] >= both[q][0] - 1e-9 for q in options[:5])
    assert any(both[q][1] > both[q][0] + 0.01 for q in options[:5])


def test_an_answer_is_added_as_its_passes_and_its_card():
    from agents.clue.lookahead import _envelope_counts

    game, _, obs = position()
    kb = game.knowledge(obs)
    before = _envelope_counts(kb, 10**6)
    after = _envelope_counts(answered_knowledge(kb, (2, 4, 7), [1, 2], (2, 7)), 10**6)  # p1 passed, p2 showed h
    assert set(after) < set(before) and any(7 in e for e in before) and not any(7 in e for e in after)
    assert sum(after.values()) < sum(before.values())
    nobody = _envelope_counts(answered_knowledge(kb, (2, 5, 8), [1, 2], None), 10**6)
    assert nobody == {(2, 5, 8): sum(nobody.values())}  # nobody holds c, f or i: certain
    assert _envelope_counts(kb, 10**6) == before  # the knowledge asked about is not changed


def test_prefers_a_lower_one_step_question_that_sets_up_the_next_turn():
    game, _, obs = position()
    kb, options, responders, shown = scored(game, obs)
    env = kb.loc(ENVELOPE)
    racer = score_questions(kb, env, options, responders, shown, 10**6, 0.5, "accuracy")
    top = max(racer.values())
    racers_picks = [q for q in options if racer[q] >= top - 1e-9]  # racer draws one of these
    me = TwoStepRacerAgent(follow_weight=1.0)  # the full two-step value
    me.reset(game, 0, seed=0)
    choice = me.suggest(obs).cards
    assert racer[choice] < top - 0.01  # racer would never ask it
    every = list(game.triples())
    follow = {q: [t for t in every if t[2] != q[2]] for q in [choice, *racers_picks]}
    two = {q: v[1] for q, v in two_step_values(kb, [choice, *racers_picks], follow, responders, shown, 10**6).items()}
    assert all(two[choice] > two[q] + 0.01 for q in racers_picks)
    (turn, planned, chosen_value, racers_value) = me.plans[-1]
    assert planned >= 2 and chosen_value == pytest.approx(two[choice])


def test_a_small_follow_weight_keeps_racers_best_questions():
    game, _, obs = position()
    kb, options, responders, shown = scored(game, obs)
    racer = score_questions(kb, kb.loc(ENVELOPE), options, responders, shown, 10**6, 0.5, "accuracy")
    top = max(racer.values())
    me = TwoStepRacerAgent(follow_weight=0.02)
    me.reset(game, 0, seed=0)
    assert racer[me.suggest(obs).cards] >= top - 0.02  # the follow-up only breaks near-ties


def test_plays_legal_games_and_is_registered():
    game = small(3, max_turns=60)
    me = agents.get("racer-two-step", game="clue")
    assert isinstance(me, TwoStepRacerAgent)
    assert me.follow_weight == 0.1  # the registered default is the setting measured level with racer, not 1
    rec = play_game(game, [me, RacerAgent(), RacerAgent()], 3)
    assert rec.failure is None and rec.winners and me.plans


def test_bad_parameters_are_refused_naming_them():
    for key, value in (("width", 0), ("broad", -1), ("follow_weight", 1.5)):
        with pytest.raises(DeduceError, match=key):
            TwoStepRacerAgent(**{key: value})


def test_the_tuning_space_builds_the_agent_with_whole_numbers():
    from benchmarks.tune_clue import SPACES, token
    from deduce.apps.tournament import parse_agent
    from deduce.apps.tournament.worker import build_agent

    assert {p.name for p in SPACES["racer-two-step"]} >= {"width", "broad"}
    me = build_agent(parse_agent(token("racer-two-step", {"width": 9.0, "broad": 0.0, "leak_weight": 0.3})), "clue")
    assert isinstance(me, TwoStepRacerAgent) and (me.width, me.broad, me.leak_weight) == (9, 0, 0.3)
