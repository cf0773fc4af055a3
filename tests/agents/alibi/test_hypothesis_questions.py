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
