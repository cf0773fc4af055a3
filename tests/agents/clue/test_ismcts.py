"""Information-set MCTS for Clue (agents.clue.ismcts): deadlines, accusations, determinisations,
seeds, and the soundness of its rollout notebooks."""

from __future__ import annotations

import random

import numpy as np
import pytest

import agents
from agents.clue.ismcts import ISMCTSAgent, Notebook, Race, _Arm
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    ClueConfig,
    ClueGame,
    EndTurn,
    Suggest,
    ViewExtra,
)
from solvers.exact import ExactSolver
from tests.agents.clue.test_lookahead import (
    after_own_suggestion,
    envelope_counts,
    small,
    with_facts,
)


class FakeClock:
    """Advances ``step`` seconds every time it is read: deadlines without real timing."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def play(game: ClueGame, team: list[ISMCTSAgent | agents.Agent], seed: int, check=None) -> list:
    """Play one game; ``check(state, seat, action)`` before every move; the actions."""
    state = game.new_initial_state(seed)
    for i, a in enumerate(team):
        a.reset(game, i, 100 + seed * 10 + i)
    moves = []
    while not state.is_terminal():
        seat = state.current_player
        action = team[seat].act(state.observation(seat))
        if check:
            check(state, seat, action)
        moves.append(action)
        state.apply(action)
    return moves


def test_registered_and_validated():
    assert isinstance(agents.get("ismcts", game="clue"), ISMCTSAgent)
    with pytest.raises(ValueError, match="refute"):
        ISMCTSAgent(refute="nope")
    with pytest.raises(ValueError, match="deadline"):
        ISMCTSAgent(deadline=0)
    with pytest.raises(ValueError, match="iterations"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(ValueError, match="top_k"):
        ISMCTSAgent(top_k=0)


def _first_turn(players: int = 3, seed: int = 4):
    game = ClueGame(num_players=players)
    state = game.new_initial_state(seed)
    return game, state, state.observation(0)


def test_deadline_stops_the_search_with_a_legal_answer():
    game, _, obs = _first_turn()
    agent = ISMCTSAgent(deadline=1.0, budget=0.7)
    agent.reset(game, 0, 1)
    agent.clock = FakeClock(0.02)  # every read costs 20 ms of fake time: 0.7 s is ~35 reads
    action = agent.act(obs)
    assert action in obs.legal_actions and isinstance(action, Suggest)
    rec = agent.searches[-1]
    assert rec.kind == "suggest" and rec.iterations < 35
    assert agent.clock.now < 1.0  # type: ignore[attr-defined] - returned before the deadline
    # no time at all: still a legal suggestion, found without a single iteration
    agent.clock = FakeClock(10.0)
    action = agent.act(obs)
    assert action in obs.legal_actions and agent.searches[-1].iterations == 0


def test_iteration_budget_is_exact_and_more_time_means_more_iterations():
    game, _, obs = _first_turn()
    agent = ISMCTSAgent(deadline=1e9, iterations=25)
    agent.reset(game, 0, 1)
    agent.act(obs)
    assert agent.searches[-1].iterations == 25
    slow, fast = (ISMCTSAgent(deadline=1.0, iterations=None, classes=None) for _ in range(2))
    for a, step in ((slow, 0.05), (fast, 0.002)):
        a.reset(game, 0, 1)
        a.clock = FakeClock(step)
        a.act(obs)
    assert fast.searches[-1].iterations > slow.searches[-1].iterations


def test_determinisations_are_consistent_with_its_own_knowledge():
    game = ClueGame(num_players=4)
    state = game.new_initial_state(3)
    team = [agents.get("infogain", game="clue", gamble=False) for _ in range(4)]
    for i, a in enumerate(team):
        a.reset(game, i, i)
    while state.turns < 6 or state.current_player != 0 or state.phase != "start":
        state.apply(team[state.current_player].act(state.observation(state.current_player)))
    obs = state.observation(0)
    agent = ISMCTSAgent(deadline=1e9, iterations=40)
    agent.reset(game, 0, 5)
    agent.act(obs)
    kb = game.knowledge(obs)
    assert len(agent.last_worlds) >= 40
    assert all(kb.consistent_with(w) for w in agent.last_worlds)
    # drawn from its knowledge, not the truth: the worlds differ from each other and the truth
    truth = state.world()
    assert any(not np.array_equal(w, truth) for w in agent.last_worlds)
    assert len({w.tobytes() for w in agent.last_worlds}) > 1


def test_same_seed_same_game_and_another_seed_another():
    game = small(3)

    def moves(seed_offset: int) -> list:
        team = [ISMCTSAgent(deadline=1e9, iterations=15) for _ in range(3)]
        state = game.new_initial_state(8)
        for i, a in enumerate(team):
            a.reset(game, i, 40 + i + seed_offset)
        out = []
        while not state.is_terminal():
            action = team[state.current_player].act(state.observation(state.current_player))
            out.append(action)
            state.apply(action)
        return out

    assert moves(0) == moves(0)
    assert any(moves(0) != moves(k) for k in (1, 2, 3))


def test_never_accuses_a_card_it_knows_is_not_in_the_envelope():
    game = small(3)
    solver = ExactSolver()
    accusations = 0

    def check(state, seat, action):
        nonlocal accusations
        if isinstance(action, Accuse):
            accusations += 1
            kb = game.knowledge(state.observation(seat))
            possible = solver.possible(kb)
            assert all(possible[c, kb.loc(ENVELOPE)] for c in action.cards), (seat, action)

    for seed in range(6):  # eager gamblers: many accusations short of certainty
        team = [ISMCTSAgent(deadline=1e9, iterations=10, min_gamble=0.0) for _ in range(3)]
        play(game, team, seed, check)
    assert accusations >= 6


def _fifty_fifty(**params) -> tuple[ISMCTSAgent, object]:
    """After its own suggestion, player 0 knows the envelope up to two weapons."""
    game = ClueGame(num_players=3)
    state = game.new_initial_state(11)
    other = next(c for c in game.categories[1] if c != state.envelope[1] and c not in state.hands[0])
    state = after_own_suggestion(game, state)
    obs = with_facts(game, state, state.observation(0), set(state.envelope) | {other})
    counts = envelope_counts(game, obs)
    assert len(counts) == 2 and len(set(counts.values())) == 1
    agent = ISMCTSAgent(**params)
    agent.reset(game, 0, 3)
    return agent, obs


def test_gambles_when_going_on_is_worth_less():
    agent, obs = _fifty_fifty(gambles_by="rollouts")
    agent._estimate_go_on = lambda *a: 0.2  # type: ignore[method-assign]
    action = agent.act(obs)
    assert isinstance(action, Accuse) and action.cards in envelope_counts(agent.game, obs)  # type: ignore[arg-type]
    assert agent.gambles == [(obs.turn, pytest.approx(0.5))]  # type: ignore[attr-defined]
    agent, obs = _fifty_fifty(gambles_by="rollouts")
    agent._estimate_go_on = lambda *a: 0.8  # type: ignore[method-assign]
    assert agent.act(obs) == EndTurn()
    for params in ({"gamble": False}, {"min_gamble": 0.6}):  # never below its threshold
        agent, obs = _fifty_fifty(gambles_by="rollouts", **params)
        agent._estimate_go_on = lambda *a: 0.0  # type: ignore[method-assign]
        assert agent.act(obs) == EndTurn()


def _judged(gambles_by: str, wait: float, go_on: float, **params) -> object:
    """The action after a fifty-fifty answer when the mirror model values waiting at ``wait``
    and the rollouts value going on at ``go_on``."""
    agent, obs = _fifty_fifty(gambles_by=gambles_by, **params)
    agent._mirror.waiting_value = lambda *a: wait  # type: ignore[method-assign]
    agent._estimate_go_on = lambda *a: go_on  # type: ignore[method-assign]
    return agent.act(obs)


def test_mirror_policy_gambles_when_infogain_would():
    """The default gamble judge is infogain's mirror race model: the same decision on the same
    knowledge, and only the judges ``gambles_by`` names have a say."""
    agent, obs = _fifty_fifty()
    mirror = agents.get("infogain", game="clue")
    mirror.reset(agent.game, 0, 3)
    assert isinstance(agent.act(obs), Accuse) == isinstance(mirror.act(obs), Accuse)
    assert isinstance(_judged("mirror", 0.3, 1.0), Accuse)  # rollouts have no say
    assert _judged("mirror", 0.7, 0.0) == EndTurn()
    assert _judged("mirror", 0.3, 1.0, min_gamble=0.6) == EndTurn()  # never below the floor
    assert isinstance(_judged("both", 0.3, 0.2), Accuse)
    assert _judged("both", 0.3, 0.8) == EndTurn()  # the rollouts veto
    assert _judged("both", 0.7, 0.0) == EndTurn()  # the mirror vetoes
    with pytest.raises(ValueError, match="gambles_by"):
        ISMCTSAgent(gambles_by="dice")


def test_rollout_estimate_is_a_probability_from_real_rollouts():
    agent, obs = _fifty_fifty(deadline=1e9, iterations=30, gambles_by="rollouts")
    action = agent.act(obs)
    rec = agent.searches[-1]
    assert rec.kind == "after" and rec.iterations == 30 and 0.0 <= rec.go_on <= 1.0
    assert action in (EndTurn(), *[Accuse(t) for t in envelope_counts(agent.game, obs)])  # type: ignore[arg-type]


def test_looks_at_the_pile_when_it_settles_the_envelope():
    game = ClueGame(num_players=4)  # two face-down leftovers
    state = after_own_suggestion(game, game.new_initial_state(2))
    obs = with_facts(game, state, state.observation(0), set(state.envelope) | set(state.extra))
    agent = ISMCTSAgent(deadline=1e9, iterations=5)
    agent.reset(game, 0, 1)
    assert len(envelope_counts(game, obs)) == 4  # a quarter chance without looking
    assert agent.act(obs) == ViewExtra()
    assert not agent.gambles  # a sure thing, not a gamble


def test_rollout_notebooks_never_exclude_the_truth():
    """Rule propagation is sound: over random determinised games every notebook keeps the
    world's location of every card, and a player it declares solved is right."""
    for players, seed in ((3, 1), (4, 2), (6, 3)):
        game = ClueGame(ClueConfig(num_players=players))
        state = game.new_initial_state(seed)
        team = [agents.get("infogain", game="clue", gamble=False) for _ in range(players)]
        for i, a in enumerate(team):
            a.reset(game, i, i)
        while state.turns < 2 * players:
            state.apply(team[state.current_player].act(state.observation(state.current_player)))
        obs = state.observation(0)
        kb = game.knowledge(obs)
        race = Race(game, obs)
        rnd = random.Random(seed)
        for world in ExactSolver().sample(kb, 10, np.random.default_rng(seed)):
            books = race.opponent_books(obs, world, range(1, players), rnd)
            books[0] = Notebook([int(sum(1 << int(z) for z in np.flatnonzero(r))) for r in ExactSolver().possible(kb)])
            for _ in range(3 * players):  # a few turns of the race, checking after each
                for nb in books.values():
                    race.propagate(nb)
                    assert all(nb.dom[c] >> int(world[c]) & 1 for c in range(len(world)))
                    if race.solved(nb):
                        env = [c for c in range(len(world)) if nb.dom[c] == 1 << race.env]
                        assert sorted(env) == sorted(np.flatnonzero(world == race.env))
                p = rnd.randrange(players)
                cards = race.choose_suggestion(books[p], p, rnd)
                passed, ans = race.answer(world, p, cards, rnd)
                race.learn(books, p, cards, passed, ans)


def test_plays_the_most_informative_suggestion_unless_search_is_confident():
    agent = ISMCTSAgent(confidence=1.0)
    top, other = _Arm((0, 6, 12), 0.6, members=[(0, 6, 12)]), _Arm((1, 7, 13), 0.4, members=[(1, 7, 13)])
    top.visits, top.value = 40, 14.0  # mean 0.35
    other.visits, other.value = 60, 24.0  # mean 0.40: more visits, within one standard error
    assert agent._pick([top, other]) is top
    other.visits, other.value = 600, 300.0  # mean 0.50, far outside the noise
    assert agent._pick([top, other]) is other
    loose = _Arm((1, 7, 13), 0.4, members=[], visits=60, value=24.0)
    assert ISMCTSAgent(confidence=0.0)._pick([top, loose]) is loose


def test_rollout_gamblers_win_or_drop_out():
    game = small(3)  # 27 envelopes: first-lap gambles are sometimes right
    state = game.new_initial_state(6)
    obs = state.observation(0)
    race = Race(game, obs)
    rnd = random.Random(0)
    outcomes = set()
    for world in ExactSolver().sample(game.knowledge(obs), 30, np.random.default_rng(1)):
        books = race.opponent_books(obs, world, range(3), rnd)
        winner = race.rollout(world, books, 1, horizon=1, rnd=rnd, gamble_at=10**6)  # all gamble at once
        if winner is None:
            assert not books  # nobody won in the lap: everybody accused wrongly and is out
        else:
            assert winner in books
        outcomes.add(winner is None)
    assert outcomes == {True, False}  # wrong gambles knock players out, right ones win


def test_measure_reaches_the_scoring_and_the_mirror_model(monkeypatch):
    import agents.clue.questions

    seen = []
    real = agents.clue.questions.score_questions

    def recording(*args, **kwargs):
        seen.append(kwargs.get("measure", "shannon"))
        return real(*args, **kwargs)

    monkeypatch.setattr(agents.clue.questions, "score_questions", recording)
    game = small(3)
    agent = ISMCTSAgent(measure="accuracy", iterations=4)
    assert agent._mirror.measure == "accuracy"
    agent.reset(game, 0, seed=1)
    state = game.new_initial_state(2)
    assert isinstance(agent.act(state.observation(0)), Suggest)
    assert seen and set(seen) == {"accuracy"}
    with pytest.raises(ValueError, match="measure"):
        ISMCTSAgent(measure="renyi")
