"""racer-reader (agents/clue/suggestion_evidence.py): worlds weighted by how likely each
opponent's own suggestions are in them; racer's game when every ratio is 1, the weighted
scores and envelope chances equal brute force on a tiny game, and only the observation is read."""

from __future__ import annotations

from math import prod

import numpy as np
import pytest

import agents
from agents.clue.questions import score_questions
from agents.clue.suggestion_evidence import (
    ReaderRacerAgent,
    cell_exponents,
    estimate_ratio,
    log_weights,
    opponent_suggestions,
    sampled_accuracy_scores,
    weighted_envelope,
)
from deduce.games.clue.rules import ENVELOPE, EndTurn, Suggest, shown_to
from deduce.play import play_game
from solvers.brute import BruteSolver
from tests.agents.clue.test_styles import ask, dealt


def position():  # noqa: ANN201
    """p0 (holding a, d) to suggest after p0 asked b-e-h, p1 a-f-i and p2 b-e-g."""
    game, state = dealt()
    ask(state, (2, 4, 7), (0, 5, 8), (1, 4, 6))
    return game, state, state.observation(0)


def every_world(kb):  # noqa: ANN001, ANN201
    return np.array(list(BruteSolver().worlds(kb)), dtype=np.int64)


def test_estimate_ratio_counts_known_cells_and_falls_back_on_the_prior():
    cats = [(0, 1, 2), (3, 4, 5)]
    held = np.zeros(6, dtype=bool)
    not_held = np.zeros(6, dtype=bool)
    assert estimate_ratio([(0, 3)], cats, held, not_held, 0.4, 10) == pytest.approx(0.4)
    held[[0, 4]] = True  # known in the suggester's hand
    not_held[[1, 2, 3, 5]] = True
    # two suggestions: held named 1 of 4 held pairs, not-held named 3 of 8 pairs
    got = estimate_ratio([(0, 3), (1, 5)], cats, held, not_held, 0.4, 0)
    assert got == pytest.approx((1 / 4) / (3 / 8))


def test_a_world_weighs_r_per_named_card_in_the_suggesters_hand():
    sugs = [(1, (0, 3)), (1, (0, 4)), (2, (1, 3))]
    exps = cell_exponents(sugs)
    assert exps == {(0, 1): 2, (3, 1): 1, (4, 1): 1, (1, 2): 1, (3, 2): 1}
    worlds = np.array([[1, 2, 0, 1, 0], [0, 2, 1, 2, 1]])
    w = np.exp(log_weights(worlds, exps, {1: 0.5, 2: 3.0}))
    assert w[0] == pytest.approx(0.5**2 * 3.0 * 0.5)  # card 0 at p1 twice, card 1 at p2, card 3 at p1
    assert w[1] == pytest.approx(3.0 * 3.0 * 0.5)  # cards 1 and 3 at p2, card 4 at p1


def test_unit_weights_on_every_world_give_racers_exact_scores():
    game, _, obs = position()
    kb = game.knowledge(obs)
    options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
    shown = shown_to(obs, 0)
    worlds = every_world(kb)
    exact = score_questions(kb, kb.loc(ENVELOPE), options, [1, 2], shown, 10**6, 0.5, "accuracy")
    got = sampled_accuracy_scores(worlds, np.ones(len(worlds)), kb.loc(ENVELOPE), options, [1, 2], shown, 0.5)
    for q in options:
        assert got[q] == pytest.approx(exact[q], abs=1e-12)


def brute_score(worlds, w, env, q, responders, shown, leak):  # noqa: ANN001, ANN201
    """The weighted accuracy score by plain loops: answers and who refuted, per world."""
    joint: dict = {}
    public: dict = {}
    prior: dict = {}
    for world, weight in zip(worlds, w, strict=True):
        e = tuple(int(c) for c in np.flatnonzero(world == env))
        prior[e] = prior.get(e, 0.0) + weight
        answered = False
        for r in responders:
            held = [c for c in dict.fromkeys(q) if world[c] == r]
            if held:
                pool = [c for c in held if c in shown.get(r, ())] or held
                for c in pool:
                    row = joint.setdefault((r, c), {})
                    row[e] = row.get(e, 0.0) + weight / len(pool)
                row = public.setdefault(r, {})
                row[e] = row.get(e, 0.0) + weight
                answered = True
                break
        if not answered:
            for table in (joint, public):
                row = table.setdefault(None, {})
                row[e] = row.get(e, 0.0) + weight
    total = sum(prior.values())
    top = max(prior.values())
    gain = max(sum(max(r.values()) for r in joint.values()) - top, 0.0) / total
    leaked = max(sum(max(r.values()) for r in public.values()) - top, 0.0) / total
    return gain - leak * leaked


def test_weighted_scores_and_envelope_equal_brute_force():
    game, _, obs = position()
    kb = game.knowledge(obs)
    env = kb.loc(ENVELOPE)
    worlds = every_world(kb)
    sugs = opponent_suggestions(obs, 0)
    assert [p for p, _ in sugs] == [1, 2]
    ratios = {1: 0.2, 2: 3.0}
    w = np.exp(log_weights(worlds, cell_exponents(sugs), ratios))
    # the weight straight from the definition, world by world
    for world, weight in zip(worlds, w, strict=True):
        assert weight == pytest.approx(prod(ratios[p] for p, cards in sugs for c in cards if world[c] == p))
    options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
    shown = shown_to(obs, 0)
    got = sampled_accuracy_scores(worlds, w, env, options, [1, 2], shown, 0.5)
    for q in options:
        assert got[q] == pytest.approx(brute_score(worlds, w, env, q, [1, 2], shown, 0.5), abs=1e-12)
    # every world once, no shrinkage: the weighted envelope distribution exactly
    exact = {}
    for world, weight in zip(worlds, w, strict=True):
        e = tuple(int(c) for c in np.flatnonzero(world == env))
        exact[e] = exact.get(e, 0.0) + weight
    counts = {e: sum(1 for world in worlds if tuple(np.flatnonzero(world == env)) == e) for e in exact}
    dist = weighted_envelope(counts, worlds, w, env, shrink=0.0)
    z = sum(exact.values())
    assert dist == pytest.approx({e: v / z for e, v in exact.items()})
    # and from exactly uniform samples it converges on them
    agent = ReaderRacerAgent()
    agent.reset(game, 0, seed=1)
    sample = np.asarray(agent._exact().sample(kb, 20_000, np.random.default_rng(3)), dtype=np.int64)
    approx = weighted_envelope(counts, sample, np.exp(log_weights(sample, cell_exponents(sugs), ratios)), env, 2.0)
    assert max(abs(approx[e] - exact[e] / z) for e in exact) < 0.02


def actions_of(game, names, seed):  # noqa: ANN001, ANN201
    seen = []
    rec = play_game(game, [agents.get(n[0], game="clue", **n[1]) for n in names], seed, on_action=lambda s: seen.append(
        (s.seat, s.action)), errors="raise")
    return rec, seen


@pytest.mark.parametrize("seed", [0, 1])
def test_with_every_ratio_one_it_plays_racers_game(seed):
    from deduce.games import make

    game = make("clue", max_turns=300)
    table = [("racer", {}), ("racer", {}), ("infogain", {"gamble": False})]
    rec, seen = actions_of(game, table, seed)
    mine, mine_seen = actions_of(game, [("racer-reader", {"r": 1.0}), *table[1:]], seed)
    assert mine_seen == seen and mine.returns == rec.returns


def test_the_weights_change_questions_but_not_certain_accusations():
    from deduce.games import make

    game = make("clue", max_turns=300)
    me = ReaderRacerAgent(r=0.1)
    seats = [me, agents.get("racer", game="clue"), agents.get("infogain", game="clue", gamble=False)]
    rec = play_game(game, seats, 4, errors="raise")
    assert rec.failure is None
    assert me.readings and all(set(r) <= {1, 2} and all(v == 0.1 for v in r.values()) for _, r, _ in me.readings)


def test_it_reads_only_its_observation():
    """A deal that differs only in cards this seat never saw (b and g swapped between p1 and
    p2) gives the same observation and the same decision."""
    game, state = dealt()
    actions = []
    for cards in ((2, 4, 7), (0, 5, 8), (2, 5, 8)):
        for a in (Suggest(cards),):
            state.apply(a)
            actions.append(a)
        while state.phase == "refute":
            a = state.legal_actions()[0]
            state.apply(a)
            actions.append(a)
        state.apply(EndTurn())
        actions.append(EndTurn())
    assert state.current_player == 0
    obs = state.observation(0)
    other = state.hidden_variant(0, actions, np.random.default_rng(0))
    assert other is not None and other.hands != state.hands and other.observation(0) == obs
    picks = []
    for s in (state, other):
        agent = ReaderRacerAgent(r=0.2)
        agent.reset(game, 0, seed=5)
        picks.append(agent.act(s.observation(0)))
        assert agent.readings
    assert picks[0] == picks[1]


def test_the_weighting_stays_on_under_a_deadline(monkeypatch):
    """Speed Clue's client gives every agent a deadline (seconds per decision): the questions
    are still corrected by the weighted samples (they were not, so the protocol played racer's
    questions), on the options racer's anytime scoring reached in time."""
    import agents.clue.suggestion_evidence as module

    calls = []
    real = module.sampled_accuracy_scores
    monkeypatch.setattr(module, "sampled_accuracy_scores", lambda *a: calls.append(a[3]) or real(*a))
    game, _, obs = position()
    for deadline, weigh in ((60.0, True), (None, True), (60.0, False)):
        calls.clear()
        agent = ReaderRacerAgent(r=0.2, deadline=deadline, weigh_questions=weigh)
        agent.reset(game, 0, seed=5)
        assert isinstance(agent.suggest(obs), Suggest)
        assert len(calls) == (2 if weigh else 0)  # weighted and unweighted, on the same options
        if weigh:
            legal = {a.cards for a in obs.legal_actions if isinstance(a, Suggest)}
            assert calls[0] == calls[1] and set(calls[0]) == legal  # 60 s: every question scored


def test_refuses_bad_parameters():
    with pytest.raises(ValueError):
        ReaderRacerAgent(r=0.0)
    with pytest.raises(ValueError):
        ReaderRacerAgent(measure="shannon")
