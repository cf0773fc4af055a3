"""The opponents of other styles (agents/clue/styles.py): each one's defining behaviour on a
constructed position, legal and reproducible games, and the errors of bad parameters."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.clue.deduction import DeductiveAgent, NotebookAgent, RacerAgent
from agents.clue.styles import (
    AggressiveAccuserAgent,
    MemoryNotebookAgent,
    OwnCardProberAgent,
    OwnEvidenceAgent,
    notebook_grid,
    own_evidence,
)
from deduce.errors import DeduceError
from deduce.games.clue.rules import (
    Accuse,
    ClueGame,
    ClueState,
    EndTurn,
    Show,
    Suggest,
    Suggestion,
)
from deduce.play import play_game
from tests.agents.clue.test_agents import small

STYLES = ["aggressive-accuser", "own-evidence", "own-card-prober", "memory-notebook"]


def dealt() -> tuple[ClueGame, ClueState]:
    """p0 holds a, d; p1 b, e; p2 g, h; the envelope is c, f, i."""
    game = small(3)
    return game, ClueState.from_deal(game, (2, 5, 8), [(0, 3), (1, 4), (6, 7)])


def play(state: ClueState, actions: list) -> ClueState:
    for a in actions:
        state.apply(a)
    return state


def ask(state: ClueState, *questions: tuple[int, int, int]) -> ClueState:
    """Each question in turn by the player to move, answered by the first legal refutation
    (forced ones are applied by the engine), then the turn ends."""
    for cards in questions:
        state.apply(Suggest(cards))
        while state.phase == "refute":
            state.apply(state.legal_actions()[0])
        state.apply(EndTurn())
    return state


def two_thirds() -> tuple[ClueGame, ClueState]:
    """p0 to suggest, its best accusation right with chance exactly 2/3 (found by seeded play)."""
    game, state = dealt()
    play(state, [Suggest((2, 4, 7)), EndTurn(), Suggest((1, 5, 8)), EndTurn(), Suggest((1, 4, 7)), Show(1),
                 EndTurn(), Suggest((0, 5, 8)), EndTurn(), Suggest((0, 3, 6)), EndTurn(), Suggest((0, 3, 8)),
                 Show(0), EndTurn()])
    assert state.current_player == 0 and state.phase != "refute"
    return game, state


def test_aggressive_accuser_accuses_above_its_threshold_where_racer_asks():
    game, state = two_thirds()
    obs = state.observation(0)
    bold = AggressiveAccuserAgent(threshold=0.5)
    bold.reset(game, 0, seed=0)
    dist = bold.envelope_distribution(obs)
    assert max(dist.values()) * 3 == 2 * sum(dist.values())  # p = 2/3
    action = bold.act(obs)
    assert isinstance(action, Accuse) and action.cards == max(dist, key=lambda k: (dist[k], k))
    assert bold.gambles == [(obs.turn, pytest.approx(2 / 3))]
    racer = RacerAgent()
    racer.reset(game, 0, seed=0)
    assert isinstance(racer.act(obs), Suggest)
    careful = AggressiveAccuserAgent(threshold=0.7)
    careful.reset(game, 0, seed=0)
    assert isinstance(careful.act(obs), Suggest)


def test_aggressive_accuser_asks_its_best_guess():
    game, state = dealt()
    obs = state.observation(0)
    agent = AggressiveAccuserAgent()
    agent.reset(game, 0, seed=3)
    dist = agent.envelope_distribution(obs)
    action = agent.act(obs)
    assert isinstance(action, Suggest)
    assert dist[action.cards] == max(dist.values())
    assert not set(action.cards) & {0, 3}  # an own card is never in the envelope


@pytest.mark.parametrize("threshold", [1.0, -0.1, 2])
def test_aggressive_accuser_threshold_must_be_a_chance_below_one(threshold):
    with pytest.raises(DeduceError, match="threshold"):
        AggressiveAccuserAgent(threshold=threshold)


def _p1_asks_the_envelope() -> tuple[ClueGame, ClueState]:
    """p0 asked a, d, i (its own two cards and a room): nobody refuted, so i is in the envelope;
    then p1 asked c, f, i, the envelope, and p2 and p0 passed: only third parties learn that
    p2 holds neither c nor f."""
    game, state = dealt()
    play(state, [Suggest((0, 3, 8)), EndTurn(), Suggest((2, 5, 8)), EndTurn()])
    assert state.current_player == 2
    return game, state


def test_own_evidence_ignores_other_players_questions():
    game, state = _p1_asks_the_envelope()
    obs = state.observation(0)
    assert [e.by for e in obs.events if isinstance(e, Suggestion)] == [0, 1]
    assert [e.by for e in own_evidence(obs).events if isinstance(e, Suggestion)] == [0]
    full, own = DeductiveAgent(), OwnEvidenceAgent()
    for agent in (full, own):
        agent.reset(game, 0, seed=0)
    p2, env = 2, 3
    # both learnt from their own question that the room is i
    assert full.envelope_candidates(obs)[2] == own.envelope_candidates(obs)[2] == [8]
    # only the full deduction uses p1's question: p2 passed on c and f
    assert not full._possible(obs)[2, p2] and not full._possible(obs)[5, p2]
    assert own._possible(obs)[2, p2] and own._possible(obs)[5, p2]
    assert own._possible(obs)[2, env] and full._possible(obs)[2, env]


def test_own_evidence_still_refutes_with_a_card_already_shown():
    game, state = dealt()
    play(state, [Suggest((1, 3, 6)), EndTurn(), Suggest((1, 4, 6)), EndTurn(), Suggest((0, 3, 7))])
    assert state.phase == "refute" and state.current_player == 0
    agent = OwnEvidenceAgent()
    agent.reset(game, 0, seed=0)
    action = agent.act(state.observation(0))
    assert isinstance(action, Show) and action.card in (0, 3)


@pytest.mark.parametrize("seed", range(5))
def test_prober_names_its_own_cards_around_one_unknown(seed):
    game, state = dealt()
    obs = state.observation(0)
    prober, plain = OwnCardProberAgent(), DeductiveAgent()
    prober.reset(game, 0, seed=seed)
    plain.reset(game, 0, seed=seed)
    probe = prober.act(obs)
    # rooms have the most unknown candidates (g, h, i); a and d are p0's own suspect and weapon
    assert isinstance(probe, Suggest) and probe.cards[:2] == (0, 3) and probe.cards[2] in (6, 7, 8)
    asked = plain.act(obs)
    assert isinstance(asked, Suggest) and not set(asked.cards) & {0, 3}


def test_prober_blocks_with_one_own_card_when_the_room_is_barred():
    game, state = _p1_asks_the_envelope()
    ask(state, (1, 4, 7))  # p2 asks b, e, h: p1 refutes
    obs = state.observation(0)
    assert state.current_player == 0 and obs.barred_room == 8  # p0 asked in i last turn
    for seed in range(4):
        prober = OwnCardProberAgent()
        prober.reset(game, 0, seed=seed)
        action = prober.act(obs)
        assert isinstance(action, Suggest) and action.cards[2] in (6, 7)  # the solved room i is barred
        # one own card (a or d) blocks; the other names an unknown suspect or weapon
        assert sum(c in (0, 3) for c in action.cards[:2]) == 1
        assert set(action.cards[:2]) & {1, 2, 4, 5}


def test_memory_notebook_remembers_who_refuted_what():
    game, state = dealt()
    # p0's turn; then p1 asks a, d, g: p2 refutes, p0 does not see the card; but a and d are
    # p0's own, so p2 must hold g
    ask(state, (1, 3, 6), (0, 3, 6))
    obs = state.observation(0)
    assert any(isinstance(e, Suggestion) and e.by == 1 and e.refuters == (2,) and e.shown == (None,)
               for e in obs.events)
    memory, plain = MemoryNotebookAgent(), NotebookAgent()
    for agent in (memory, plain):
        agent.reset(game, 0, seed=0)
    grid = memory.grid(obs)
    assert grid[6].tolist() == [False, False, True, False]  # g: p2's
    assert memory.placed(obs)[6] and not plain.placed(obs)[6]
    assert 6 not in memory.envelope_candidates(obs)[2] and 6 in plain.envelope_candidates(obs)[2]
    # and p1, who showed b, holds it (notebook only knows it is held by someone)
    assert grid[1].tolist() == [False, True, False, False]


def test_memory_notebook_counts_hands():
    game, state = dealt()
    # p0 asks b, d, g (p1 shows b); p1 asks b, e, g (p2 shows g); p2 asks a, d, g (p0 shows);
    # p0 asks a, e, h (p1 shows e): p1's two cards are known, so it holds nothing else
    ask(state, (1, 3, 6), (1, 4, 6), (0, 3, 6), (0, 4, 7))
    obs = state.observation(0)
    grid = notebook_grid(game, obs)
    assert np.flatnonzero(grid[:, 1]).tolist() == [1, 4]
    deduced = DeductiveAgent()
    deduced.reset(game, 0, seed=0)
    # the notebook never rules out what the solver still allows
    assert not (deduced._possible(obs) & ~grid).any()


@pytest.mark.parametrize("name", STYLES)
@pytest.mark.parametrize("players", [3, 4])
def test_styles_play_legal_reproducible_games(name, players):
    game = small(players, max_turns=60)
    records = []
    for _ in range(2):
        seats = [agents.get(name, game="clue") for _ in range(players)]
        records.append(play_game(game, seats, 5))
    assert records[0].failure is None
    assert records[0].winners or players == 4  # a 4-player deal leaves 2 cards face down
    assert records[0].returns == records[1].returns and records[0].moves == records[1].moves


def test_registered_without_clashes():
    from agents.clue import AGENTS

    for name in STYLES:
        assert name in AGENTS and agents.get(name, game="clue").name == name
    assert len(set(AGENTS.values())) == len(AGENTS)
