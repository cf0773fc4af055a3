"""Exact expected information gain (agents.clue.questions) against brute-force enumeration."""

from __future__ import annotations

from fractions import Fraction
from math import log2

import numpy as np
import pytest

import solvers
from agents.clue.questions import expected_information, outcomes, score_questions
from deduce.games.clue.rules import ClueConfig, ClueGame, EndTurn, Suggest, Suggestion


def small_game(players: int) -> ClueGame:
    return ClueGame(ClueConfig(num_players=players, suspects=("a", "b", "c"), weapons=("d", "e", "f"), rooms=("g", "h", "i")))


def played(game: ClueGame, seed: int, suggestions: int):
    """A seeded game after a few random suggestions; returns (state, asker)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    done = 0
    while done < suggestions and not state.is_terminal():
        legal = state.legal_actions()
        if state.phase == "start":
            sugg = [a for a in legal if isinstance(a, Suggest)]
            action = sugg[int(rng.integers(len(sugg)))]
            done += 1
        elif state.phase == "refute":
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = EndTurn()
        state.apply(action)
    return state, int(rng.integers(game.num_players))


def preferred_of(obs, asker: int) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for e in obs.events:
        if isinstance(e, Suggestion) and e.by == asker:
            for r, s in zip(e.refuters, e.shown, strict=True):
                if s is not None:
                    out.setdefault(r, set()).add(s)
    return out


def asker_view(game: ClueGame, seed: int, steps: int):
    """(knowledge base, envelope location, responders in order, refuters' preferred cards) of
    the random asker after ``steps`` random suggestions of game ``seed``."""
    state, asker = played(game, seed, steps)
    obs = state.observation(asker)
    kb = game.knowledge(obs)
    n = game.num_players
    return kb, kb.loc("envelope"), [(asker + k) % n for k in range(1, n)], preferred_of(obs, asker)


def brute_answers(worlds, env, cards, responders, preferred) -> dict:
    """{answer: {envelope: exact weight}} over every listed world, refuters per RULES §5C."""
    joint: dict = {}
    for w in worlds:
        e = tuple(sorted(int(k) for k in np.flatnonzero(w == env)))
        for r in responders:
            held = [k for k in cards if w[k] == r]
            if held:
                pool = [k for k in held if k in preferred.get(r, ())] or held
                for k in pool:
                    row = joint.setdefault((r, k), {})
                    row[e] = row.get(e, 0) + Fraction(1, len(pool))
                break
        else:
            row = joint.setdefault(None, {})
            row[e] = row.get(e, 0) + 1
    return joint


def brute_gain(worlds, env, cards, responders, preferred):
    """Joint (answer, envelope) over every listed world; exact fractions, then entropies."""
    joint = {(a, e): v for a, row in brute_answers(worlds, env, cards, responders, preferred).items() for e, v in row.items()}
    total = sum(joint.values())

    def h(d):
        t = sum(d.values())
        return -sum(float(v / t) * log2(float(v / t)) for v in d.values() if v)

    prior: dict = {}
    by_answer: dict = {}
    for (a, e), v in joint.items():
        prior[e] = prior.get(e, 0) + v
        by_answer.setdefault(a, {})[e] = v
    gain = h(prior) - sum(float(sum(d.values()) / total) * h(d) for d in by_answer.values())
    probs = {a: sum(d.values()) / total for a, d in by_answer.items()}
    return gain, probs


@pytest.mark.parametrize("players,seed,steps", [(3, 1, 0), (3, 2, 2), (3, 5, 4), (4, 3, 1), (4, 7, 3)])
def test_gain_matches_brute_force(players, seed, steps):
    game = small_game(players)
    kb, env, responders, pref = asker_view(game, seed, steps)
    questions = list(game.triples())
    scores = score_questions(kb, env, questions, responders, pref)
    worlds = list(solvers.get("brute").worlds(kb))
    for q in questions:
        want, probs = brute_gain(worlds, env, q, responders, pref)
        got = outcomes(kb, env, q, responders, pref)
        assert got.probabilities() == probs
        assert abs(got.gain() - want) < 1e-9
        assert abs(scores[q] - want) < 1e-9
        assert abs(expected_information(kb, env, q, responders, pref) - want) < 1e-9


def brute_certainty(worlds, env, cards, responders, preferred) -> Fraction:
    """P(the answer leaves one envelope), by listing every world."""
    joint = brute_answers(worlds, env, cards, responders, preferred)
    total = sum(sum(d.values()) for d in joint.values())
    return sum((sum(d.values()) for d in joint.values() if len(d) == 1), Fraction(0)) / total


def test_certainty_matches_brute_force():
    from agents.clue.questions import certainty_chance

    game = ClueGame(ClueConfig(num_players=3, suspects=tuple("abcd"), weapons=tuple("efgh"), rooms=tuple("ijkl")))
    seen = set()
    for seed, steps in [(2, 2), (5, 4), (9, 6), (3, 8)]:
        kb, env, responders, pref = asker_view(game, seed, steps)
        worlds = list(solvers.get("brute").worlds(kb))
        for q in game.triples():
            want = brute_certainty(worlds, env, q, responders, pref)
            assert outcomes(kb, env, q, responders, pref).certainty() == want
            assert certainty_chance(kb, env, q, responders, pref) == pytest.approx(float(want))
            seen.add(want)
    assert len(seen) > 2  # the instances discriminate: questions settle with different chances


def test_own_cards_block():
    """Naming two of one's own cards asks the table about the third card alone."""
    game = small_game(3)
    state, _ = played(game, 4, 0)
    obs = state.observation(0)
    kb = game.knowledge(obs)
    env = kb.loc("envelope")
    scores = score_questions(kb, env, list(game.triples()), [1, 2], {})
    assert all(v >= 0 for v in scores.values())
    assert max(scores.values()) > 0


@pytest.mark.parametrize("players,seed,steps", [(3, 2, 2), (4, 3, 1), (4, 7, 3)])
def test_joint_sets_match_brute_force(players, seed, steps):
    from agents.clue.questions import joint_sets

    game = small_game(players)
    state, asker = played(game, seed, steps)
    kb = game.knowledge(state.observation(asker))
    locs = [kb.loc("envelope")] + ([kb.loc("extra")] if "extra" in game.locations else [])
    want: dict = {}
    for w in solvers.get("brute").worlds(kb):
        key = tuple(tuple(sorted(int(k) for k in np.flatnonzero(w == z))) for z in locs)
        want[key] = want.get(key, 0) + 1
    assert joint_sets(kb, locs) == want
    assert joint_sets(kb, locs[:1]) == {k[:1]: v for k, v in _marginal(want).items()}


def _marginal(joint: dict) -> dict:
    out: dict = {}
    for k, v in joint.items():
        out[k[:1]] = out.get(k[:1], 0) + v
    return out


@pytest.mark.parametrize("players,seed,steps", [(3, 2, 2), (4, 7, 3)])
def test_leak_weight_subtracts_the_public_part(players, seed, steps):
    game = small_game(players)
    kb, env, responders, pref = asker_view(game, seed, steps)
    questions = list(game.triples())
    full = score_questions(kb, env, questions, responders, pref)
    private = score_questions(kb, env, questions, responders, pref, leak_weight=1.0)
    for q in questions:
        o = outcomes(kb, env, q, responders, pref)
        assert abs(private[q] - o.gain(1.0)) < 1e-9
        assert -1e-9 <= private[q] <= full[q] + 1e-12  # chain rule: I(X; card | refuter) >= 0


def brute_hartley_gain(worlds, env, cards, responders, preferred) -> float:
    """Expected fall of log2(number of possible envelopes), by listing every world."""
    joint = brute_answers(worlds, env, cards, responders, preferred)
    total = sum(sum(d.values()) for d in joint.values())
    before = len({e for d in joint.values() for e in d})
    after = sum(float(sum(d.values()) / total) * log2(len(d)) for d in joint.values())
    return log2(before) - after


@pytest.mark.parametrize("players,seed,steps", [(3, 2, 2), (3, 5, 4), (4, 3, 1), (4, 7, 3)])
def test_hartley_gain_matches_brute_force(players, seed, steps):
    game = small_game(players)
    kb, env, responders, pref = asker_view(game, seed, steps)
    questions = list(game.triples())
    scores = score_questions(kb, env, questions, responders, pref, measure="hartley")
    shannon = score_questions(kb, env, questions, responders, pref)
    worlds = list(solvers.get("brute").worlds(kb))
    for q in questions:
        want = brute_hartley_gain(worlds, env, q, responders, pref)
        assert abs(outcomes(kb, env, q, responders, pref).gain(measure="hartley") - want) < 1e-9
        assert abs(scores[q] - want) < 1e-9
    if (players, seed) == (3, 2):  # a position where the two measures rank questions differently
        assert max(scores, key=scores.get) != max(shannon, key=shannon.get) or scores != shannon


def brute_accuracy_gain(worlds, env, cards, responders, preferred, public: bool = False) -> float:
    """Expected rise in the chance that the most likely envelope is right, by listing worlds
    (``public``: from who refuted alone)."""
    joint = brute_answers(worlds, env, cards, responders, preferred)
    if public:
        merged: dict = {}
        for a, d in joint.items():
            row = merged.setdefault(None if a is None else a[0], {})
            for e, v in d.items():
                row[e] = row.get(e, 0) + v
        joint = merged
    total = sum(sum(d.values()) for d in joint.values())
    prior: dict = {}
    for d in joint.values():
        for e, v in d.items():
            prior[e] = prior.get(e, 0) + v
    return float(sum(max(d.values()) for d in joint.values()) / total - max(prior.values()) / total)


@pytest.mark.parametrize("players,seed,steps", [(3, 2, 2), (3, 5, 4), (4, 3, 1), (4, 7, 3)])
def test_accuracy_gain_matches_brute_force(players, seed, steps):
    game = small_game(players)
    kb, env, responders, pref = asker_view(game, seed, steps)
    questions = list(game.triples())
    scores = score_questions(kb, env, questions, responders, pref, measure="accuracy")
    leaky = score_questions(kb, env, questions, responders, pref, leak_weight=0.5, measure="accuracy")
    worlds = list(solvers.get("brute").worlds(kb))
    for q in questions:
        want = brute_accuracy_gain(worlds, env, q, responders, pref)
        assert abs(outcomes(kb, env, q, responders, pref).gain(measure="accuracy") - want) < 1e-9
        assert abs(scores[q] - want) < 1e-9
        private = want - 0.5 * brute_accuracy_gain(worlds, env, q, responders, pref, public=True)
        assert abs(outcomes(kb, env, q, responders, pref).gain(0.5, "accuracy") - private) < 1e-9
        assert abs(leaky[q] - private) < 1e-9
    envelopes = {tuple(c for c, loc in enumerate(w) if loc == env) for w in worlds}
    if len(envelopes) == 1:  # settled: nothing to gain (the gain can be 0 otherwise too: the
        assert max(scores.values()) == 0  # most likely envelope may stay so after every answer)


def test_unknown_measure_is_refused():
    game = small_game(3)
    kb, env, responders, pref = asker_view(game, 2, 2)
    with pytest.raises(ValueError, match="measure"):
        score_questions(kb, env, list(game.triples())[:3], responders, pref, measure="renyi")


def classic_view(players: int, seed: int, steps: int):
    """The random asker's view of a seeded classic-deck game after ``steps`` suggestions."""
    game = ClueGame(num_players=players)
    state, asker = played(game, seed, steps)
    obs = state.observation(asker)
    kb = game.knowledge(obs)
    responders = [(asker + k) % players for k in range(1, players)]
    return game, kb, kb.loc("envelope"), responders, preferred_of(obs, asker)


@pytest.mark.parametrize(
    "players,seed,steps,leak,measure",
    [
        (3, 11, 12, 0.0, "shannon"),
        (4, 12, 10, 0.5, "shannon"),
        pytest.param(5, 23, 8, 0.0, "hartley", marks=pytest.mark.slow),
        pytest.param(6, 24, 10, 0.3, "accuracy", marks=pytest.mark.slow),
    ],
)
def test_shared_passes_give_the_per_class_scores(players, seed, steps, leak, measure, monkeypatch):
    """The block-sharing scorer equals the one-pass-per-class reference on random classic
    states (3-6 players, refuters' preferences, leak weights, every measure), with fewer passes."""
    import agents.clue.questions as questions

    game, kb, env, responders, pref = classic_view(players, seed, steps)
    options = list(game.triples())
    passes = {"now": 0}
    real_plan = questions.Plan

    def counting(*args, **kwargs):
        passes["now"] += 1
        return real_plan(*args, **kwargs)

    monkeypatch.setattr(questions, "Plan", counting)
    want = questions.score_questions_per_class(kb, env, options, responders, pref, leak_weight=leak, measure=measure)
    reference_passes, passes["now"] = passes["now"], 0
    got = questions.score_questions_by_blocks(kb, env, options, responders, pref, leak_weight=leak, measure=measure)
    assert got.keys() == want.keys()
    assert max(abs(got[q] - want[q]) for q in options) < 1e-9
    assert len(set(got.values())) > 3  # the state discriminates between questions
    assert passes["now"] < reference_passes  # the blocks did share passes


CLASSIC_STATES = [
    (3, 11, 12, 0.0, "shannon"),
    (4, 12, 10, 0.5, "shannon"),
    (5, 23, 8, 0.0, "hartley"),
    (6, 24, 10, 0.3, "accuracy"),
    (5, 31, 10, 0.0, "shannon"),
    (6, 5, 0, 0.0, "shannon"),
    (4, 8, 8, 0.2, "accuracy"),
]


@pytest.mark.parametrize("players,seed,steps,leak,measure", CLASSIC_STATES)
def test_refutation_lattice_gives_the_per_class_scores(players, seed, steps, leak, measure, monkeypatch):
    """The default scorer (one DP over the locations in refutation order) equals the
    one-pass-per-class reference on random classic states, without falling back."""
    import agents.clue.questions as questions

    game, kb, env, responders, pref = classic_view(players, seed, steps)
    options = list(game.triples())
    want = questions.score_questions_per_class(kb, env, options, responders, pref, leak_weight=leak, measure=measure)

    def refuse(*args, **kwargs):
        raise AssertionError("fell back to the block scorer")

    monkeypatch.setattr(questions, "score_questions_by_blocks", refuse)
    got = questions.score_questions(kb, env, options, responders, pref, leak_weight=leak, measure=measure)
    assert got.keys() == want.keys()
    assert max(abs(got[q] - want[q]) for q in options) < 1e-12
    assert len(set(got.values())) > 3  # the state discriminates between questions


def test_lattice_matrices_count_every_world():
    """Each question's answers-by-groups matrix sums to the number of consistent worlds (every
    world answers exactly once), and the groups' multiplicities cover every envelope."""
    from agents.clue.questions import card_classes
    from solvers.exact_dp import Plan, problem_from_kb, simplify
    from solvers.question_lattice import question_matrices

    game, kb, env, responders, pref = classic_view(5, 31, 10)
    p = problem_from_kb(kb)
    q = simplify(p)
    sig = card_classes(p, pref)
    options = list(game.triples())
    found = question_matrices(q, env, options, responders, {z: set(c) for z, c in pref.items()}, dict(enumerate(sig)))
    assert found is not None
    mats, _ = found
    total = Plan(q).total
    assert np.allclose(mats.sum(axis=(1, 2)), total, rtol=1e-12)


def test_constraint_across_locations_falls_back_to_the_blocks():
    """A not-all over two locations is not a product over locations: the lattice refuses and
    the block scorer answers (same scores as the reference)."""
    from agents.clue.questions import card_classes, score_questions_per_class
    from deduce.constraints import NotAll
    from solvers.exact_dp import problem_from_kb, simplify
    from solvers.question_lattice import question_matrices

    game = small_game(3)
    kb, env, responders, pref = asker_view(game, 2, 2)
    q0 = simplify(problem_from_kb(kb))
    a, b = [k for k, d in enumerate(q0.dom) if d & (d - 1)][:2]
    za = min(z for z in range(q0.num_locations) if q0.dom[a] >> z & 1)
    zb = min(z for z in range(q0.num_locations) if q0.dom[b] >> z & 1 and z != za)
    kb = kb.copy()
    kb.add(NotAll(((a, za), (b, zb))))
    p = problem_from_kb(kb)
    options = list(game.triples())
    assert question_matrices(simplify(p), env, options, responders, {}, dict(enumerate(card_classes(p, pref)))) is None
    got = score_questions(kb, env, options, responders, pref)
    want = score_questions_per_class(kb, env, options, responders, pref)
    assert max(abs(got[k] - want[k]) for k in options) < 1e-12
    assert max(got.values()) > 0
