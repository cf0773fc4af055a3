"""The ``sampling`` agent scores hypothesis questions (legal without being listed) beside the
listed ones: the seed's form and the likeliest box, each one it may really ask."""

import agents
from deduce.games.alibi.rules import AlibiGame, Ask, Meld


def test_the_candidates_hold_legal_hypotheses_beyond_the_menu():
    game = AlibiGame(num_players=3)
    state = game.new_initial_state(2)
    while state.phase != "ask":
        state.apply(Meld(()))
    obs = state.observation(state.current_player)
    agent = agents.get("sampling", game="alibi")
    agent.reset(game, state.current_player, 0)
    worlds = agent.worlds(obs)
    listed = [a for a in obs.legal_actions if isinstance(a, Ask)]
    candidates = agent.candidate_questions(obs, worlds, listed)
    extra = candidates[len(listed):]
    assert extra and not set(extra) & set(listed)
    assert all(q in obs.legal_actions and q.target != obs.player for q in extra)
    block = obs.legal_actions.structured[0]
    assert any(len(q.cards) == 3 and block.of(q.cards) is not None for q in extra)  # the seed's form
    assert any(len(q.cards) == 4 for q in extra)  # the likeliest box


def test_the_random_question_ablation_draws_from_every_legal_question():
    """``sampling-randq``'s question is uniform over the listed questions and the hypotheses:
    almost all of its draws are hypotheses (about a million against a few hundred listed), and
    each one is legal."""
    import numpy as np

    from agents.alibi.sampling import random_question

    game = AlibiGame(num_players=4)
    state = game.new_initial_state(1)
    while state.phase != "ask":
        state.apply(Meld(()))
    obs = state.observation(state.current_player)
    legal = obs.legal_actions
    listed = [a for a in legal if isinstance(a, Ask)]
    rng = np.random.default_rng(0)
    draws = [random_question(legal, listed, rng) for _ in range(200)]
    assert all(isinstance(q, Ask) and q in legal for q in draws)
    share_listed = sum(q in set(listed) for q in draws) / len(draws)
    expected = len(listed) / (len(listed) + sum(b.size for b in legal.structured))
    assert expected < 0.01 and share_listed < 0.05  # the old menu-only draw gave 1.0
    assert len(set(draws)) > 190
    # the agent itself asks those questions
    agent = agents.get("sampling-randq", game="alibi", samples=20)
    agent.reset(game, state.current_player, 3)
    asked = [agent.act(obs) for _ in range(3)]
    assert any(isinstance(q, Ask) and q not in set(listed) and q in legal for q in asked)
