"""Clue agents: notebook, deductive and infogain play legal games; infogain's choices."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.clue.deduction import InfogainAgent
from deduce.constraints import At
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    ClueConfig,
    ClueGame,
    ClueState,
    EndTurn,
    Show,
    Suggest,
    ViewExtra,
    shown_to,
)
from deduce.play import play_game


def small(players: int = 3, max_turns: int = 1000) -> ClueGame:
    return ClueGame(
        ClueConfig(num_players=players, suspects=("a", "b", "c"), weapons=("d", "e", "f"), rooms=("g", "h", "i"),
                   max_turns=max_turns)
    )


@pytest.mark.parametrize("name", ["notebook", "deductive", "infogain"])
@pytest.mark.parametrize("players", [3, 4])
def test_plays_legal_games(name, players):
    game = small(players, max_turns=40)
    for seed in range(2):
        seats = [agents.get(name, game="clue") for _ in range(players)]
        rec = play_game(game, seats, seed)
        assert rec.failure is None
        # with two face-down leftovers and one card a hand, the notebook (which never looks at
        # the pile) may never be sure of the envelope
        assert rec.winners or (players == 4 and name == "notebook")


def test_registered():
    assert isinstance(agents.get("infogain", game="clue"), InfogainAgent)
    assert "infogain" in agents.available("clue")


def test_classic_game_against_deductive():
    game = ClueGame(num_players=3)
    seats = [agents.get("infogain", game="clue"), agents.get("deductive", game="clue"), agents.get("deductive", game="clue")]
    rec = play_game(game, seats, 3)
    assert rec.failure is None and rec.winners
    assert seats[0].scoring_log  # it suggested at least once, with a positive gain
    assert all(gain >= 0 for _, _, gain in seats[0].scoring_log)


def test_accuses_when_certain_and_blocks_with_own_cards():
    game = small(3)
    # p0 holds a, d; p1 holds b, e; p2 holds g, h; envelope c, f, i
    state = ClueState.from_deal(game, (2, 5, 8), [(0, 3), (1, 4), (6, 7)])
    agent = InfogainAgent()
    agent.reset(game, 0, seed=1)
    action = agent.act(state.observation(0))
    assert isinstance(action, Suggest)
    # the best question names exactly one unknown card per unsolved category at most, and
    # never asks about two cards that cannot both be learned; here it must name an unknown
    assert any(c not in (0, 3) for c in action.cards)
    # once every other card is placed the envelope is certain: accuse at once
    state = ClueState.from_deal(game, (2, 5, 8), [(0, 3), (1, 4), (6, 7)])
    state.apply(Suggest((1, 4, 6)))  # p1 shows b or e
    if state.phase == "refute":
        state.apply(state.legal_actions()[0])
    state.apply(EndTurn())
    for p in (1, 2):
        state.apply(Suggest((0, 3, 6 if p == 1 else 7)))
        if state.phase == "refute":
            state.apply(state.legal_actions()[0])
        state.apply(EndTurn())
    got = agent.act(state.observation(0))
    assert isinstance(got, (Suggest, Accuse))


def test_refutes_with_a_card_already_shown():
    game = small(3)
    state = ClueState.from_deal(game, (2, 5, 8), [(0, 3), (1, 4), (6, 7)])
    state.apply(Suggest((1, 3, 6)))  # p1 holds only b: forced, p0 sees b
    state.apply(EndTurn())
    state.apply(Suggest((1, 4, 6)))  # p1 suggests; p2 holds g -> forced
    state.apply(EndTurn())
    state.apply(Suggest((0, 3, 7)))  # p2 suggests: p0 holds a and d -> choice
    assert state.phase == "refute" and state.current_player == 0
    agent = InfogainAgent()
    agent.reset(game, 0, seed=0)
    action = agent.act(state.observation(0))
    assert isinstance(action, Show) and action.card in (0, 3)
    assert shown_to(state.observation(0), 0) == {1: {1}}


def test_views_extra_when_that_settles_the_envelope():
    game = small(4)  # 9 cards: 3 in the envelope, 1 per hand, 2 face down
    state = ClueState.from_deal(game, (2, 5, 8), [(0,), (1,), (3,), (4,)], extra=(6, 7))
    agent = InfogainAgent()
    agent.reset(game, 0, seed=0)
    for _ in range(40):
        if state.is_terminal():
            break
        p = state.current_player
        if p == 0:
            action = agent.act(state.observation(0))
        else:
            legal = state.legal_actions()
            action = next((a for a in legal if isinstance(a, (Show, EndTurn))), None) or next(
                a for a in legal if isinstance(a, Suggest)
            )
        state.apply(action)
        if isinstance(action, (Accuse, ViewExtra)):
            break
    assert isinstance(action, (Accuse, ViewExtra))


def _after_first_answer(gamble: bool) -> tuple[InfogainAgent, object]:
    """p0 asked (b, d, g) and p1 showed b: suspect c is certain, weapon and room are not."""
    game = small(3)
    state = ClueState.from_deal(game, (2, 5, 8), [(0, 3), (1, 4), (6, 7)])
    state.apply(Suggest((1, 3, 6)))
    if state.phase == "refute":
        state.apply(Show(1))
    assert state.phase == "after" and state.current_player == 0
    agent = InfogainAgent(gamble=gamble, min_gamble=0.0)
    agent.reset(game, 0, seed=0)
    return agent, state.observation(0)


def test_gambles_only_when_accusing_beats_waiting(monkeypatch):
    agent, obs = _after_first_answer(gamble=False)
    dist = agent.envelope_distribution(obs)
    assert max(dist.values()) < sum(dist.values())  # not certain yet
    assert agent.act(obs) == EndTurn()  # the pure agent waits for certainty
    agent, obs = _after_first_answer(gamble=True)
    monkeypatch.setattr(agent, "waiting_value", lambda obs, p: 0.0)
    action = agent.act(obs)
    assert isinstance(action, Accuse) and action.cards[0] == 2  # the certain suspect, best guess otherwise
    monkeypatch.setattr(agent, "waiting_value", lambda obs, p: 1.0)
    assert agent.act(obs) == EndTurn()
    agent.min_gamble = 0.99  # never on a chance below min_gamble, however cheap waiting looks
    monkeypatch.setattr(agent, "waiting_value", lambda obs, p: 0.0)
    assert agent.act(obs) == EndTurn()


def test_waiting_value_of_the_mirror_race():
    from agents.clue.deduction import waiting_value

    for m in (2, 3, 5):
        assert waiting_value(0.0, m, 0.1) == pytest.approx(1 / (m + 1))  # nobody close: fair share
        assert waiting_value(0.0, m, 0.9) == pytest.approx(0.9)  # the gamble stays available
        values = [waiting_value(c, m, 0.5) for c in (0.0, 0.1, 0.3, 0.6, 0.9)]
        assert values == sorted(values, reverse=True)  # closer opponents: waiting is worth less
    assert waiting_value(1.0, 2, 0.5) == 0.0  # an opponent solves before my next turn for sure


def test_real_waiting_value_is_a_probability():
    agent, obs = _after_first_answer(gamble=True)
    dist = agent.envelope_distribution(obs)
    p = max(dist.values()) / sum(dist.values())
    assert 0.0 <= agent.waiting_value(obs, p) <= 1.0


def test_default_floor_is_one_over_the_opponents(monkeypatch):
    agent, obs = _after_first_answer(gamble=True)
    agent.min_gamble = None  # the default: 1 / 2 at 3 players
    monkeypatch.setattr(agent, "waiting_value", lambda obs, p: 0.0)
    dist = agent.envelope_distribution(obs)
    p = max(dist.values()) / sum(dist.values())
    assert p < 0.5
    assert agent.act(obs) == EndTurn()
    agent.min_gamble = p
    assert isinstance(agent.act(obs), Accuse)


def _refutations(game: ClueGame, seed: int):
    """Every (state, refuter) of a game of infogain agents where the refuter has a choice."""
    seats = [InfogainAgent() for _ in range(game.config.num_players)]
    for i, a in enumerate(seats):
        a.reset(game, i, seed=seed * 10 + i)
    state = ClueState(game, np.random.default_rng(seed))
    while not state.is_terminal() and state.turns < 40:
        p = state.current_player
        obs = state.observation(p)
        if obs.to_refute is not None and sum(isinstance(a, Show) for a in obs.legal_actions) >= 2:
            yield state.clone(), p
        state.apply(seats[p].act(obs))


def _brute_envelope_entropy(kb) -> float:
    from collections import Counter
    from math import log2

    import solvers

    env = kb.loc(ENVELOPE)
    counts = Counter(tuple(sorted(c for c, loc in enumerate(w) if loc == env)) for w in solvers.get("brute").worlds(kb))
    total = sum(counts.values())
    return -sum(v / total * log2(v / total) for v in counts.values())


def test_hiding_refutation_shows_the_least_informative_card():
    """infogain with refute="leak-least": a card already shown to the asker if any, else the
    card leaving the most envelope entropy in what the asker is known to know, checked by
    brute-force enumeration; that view is consistent with the truth."""
    from agents.clue.lookahead import suggester_view

    game = small(3)
    checked = distinct = 0
    cases = [case for seed in range(1, 7) for case in _refutations(game, seed)]
    for state, me in cases:
        obs = state.observation(me)
        asker, _ = obs.to_refute
        options = [a.card for a in obs.legal_actions if isinstance(a, Show)]
        view = suggester_view(game, obs, asker)
        assert view.consistent_with(state.world())
        before = shown_to(obs, asker).get(me, set())
        agent = InfogainAgent(refute="leak-least")
        agent.reset(game, me, seed=0)
        got = agent.act(obs).card
        if any(c in before for c in options):
            assert got in before
            continue
        left = {}
        for card in options:
            kb = view.copy()
            kb.add(At(card, me))
            left[card] = _brute_envelope_entropy(kb)
        assert left[got] == pytest.approx(max(left.values()))
        checked += 1
        distinct += max(left.values()) - min(left.values()) > 1e-9
    assert checked >= 3 and distinct >= 1


def test_refute_policy_is_validated():
    with pytest.raises(ValueError, match="refute"):
        InfogainAgent(refute="bluff")


def test_bluffing_names_an_own_card():
    """bluff=1: every suggestion names at least one of the suggester's cards; 0 keeps the
    pure information choice (which here names none on the first turn of some deal)."""
    game = small(3)
    plain_named_none = False
    for seed in range(4):
        state = ClueState(game, np.random.default_rng(seed))
        obs = state.observation(0)
        bluffer = InfogainAgent(bluff=1.0)
        bluffer.reset(game, 0, seed=seed)
        assert set(bluffer.act(obs).cards) & set(obs.hand)
        plain = InfogainAgent()
        plain.reset(game, 0, seed=seed)
        plain_named_none |= not set(plain.act(obs).cards) & set(obs.hand)
    assert plain_named_none
    with pytest.raises(ValueError, match="bluff"):
        InfogainAgent(bluff=1.5)


@pytest.mark.slow
def test_gambles_are_recorded_with_their_chance():
    """Every accusation made while not certain is logged with its chance; certain ones are not."""
    game = ClueGame(num_players=4)
    logged = 0
    for seed in range(3):
        seats = [InfogainAgent() for _ in range(4)]
        rec = play_game(game, seats, seed)
        assert rec.failure is None
        for a in seats:
            assert all(0 < p < 1 for _, p in a.gambles)
            logged += len(a.gambles)
    assert logged >= 1


def test_racer_is_infogain_scoring_by_accuracy_with_leak_hygiene():
    from agents.clue.deduction import RacerAgent

    racer = agents.get("racer", game="clue")
    assert isinstance(racer, RacerAgent)
    assert (racer.measure, racer.leak_weight, racer.refute) == ("accuracy", 0.5, "leak-least")
    game = ClueGame(num_players=4)
    for seed in range(3):
        obs = game.new_initial_state(seed).observation(0)
        racer, twin = RacerAgent(), InfogainAgent(measure="accuracy", leak_weight=0.5, refute="leak-least")
        racer.reset(game, 0, seed=seed)
        twin.reset(game, 0, seed=seed)
        assert racer.act(obs) == twin.act(obs)


class _Ticking:
    """A clock that moves ``step`` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_deadline_scores_anytime_and_returns_the_best_so_far():
    from agents.clue.questions import score_questions

    game = ClueGame(num_players=4)
    state = game.new_initial_state(3)
    seats = [InfogainAgent(gamble=False) for _ in range(4)]
    for i, a in enumerate(seats):
        a.reset(game, i, seed=i)
    while state.turns < 6 or not any(isinstance(a, Suggest) for a in state.legal_actions()):
        state.apply(seats[state.current_player].act(state.observation(state.current_player)))
    me = state.current_player
    obs = state.observation(me)
    kb = game.knowledge(obs)
    options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
    responders = [(me + k) % 4 for k in range(1, 4)]
    shown = shown_to(obs, me)
    full = score_questions(kb, kb.loc(ENVELOPE), options, responders, shown)
    # time to spare: every class is scored, so the choice is one of the best
    roomy = InfogainAgent(deadline=60.0)
    roomy.reset(game, me, seed=1)
    assert full[roomy.act(obs).cards] == pytest.approx(max(full.values()))
    # a clock that jumps past the deadline at once: one batch is scored, a legal suggestion returned
    hurried = InfogainAgent(deadline=1.0)
    hurried.reset(game, me, seed=1)
    hurried.clock = _Ticking(10.0)
    got = hurried.act(obs)
    assert got in obs.legal_actions and isinstance(got, Suggest)
    scored = hurried._scores(kb, options, responders, shown)
    assert 0 < len(scored) < len(options)
    assert all(full[q] == pytest.approx(v) for q, v in scored.items())
    with pytest.raises(ValueError, match="deadline"):
        InfogainAgent(deadline=0)


BOARD_BLIND = (
    "notebook", "deductive", "infogain", "racer", "racer-watch", "racer-lap",
    "aggressive-accuser", "own-evidence", "own-card-prober", "memory-notebook",
)


@pytest.mark.parametrize("name", BOARD_BLIND)
def test_board_blind_agents_declare_the_board(name):
    """A Clue agent that moves no token says so for a board game (and plays without one);
    the ``*-board`` wrappers around it take the board."""
    agent = agents.get(name, game="clue")
    board = ClueGame(ClueConfig(num_players=3, board_mode="board"))
    why = agent.cannot_play(board)
    assert why is not None and "board" in why and agent.name in why
    assert agent.cannot_play(ClueGame(num_players=3)) is None
    wrapped = agents.get("infogain-board" if name in ("infogain", "racer") else "deductive-board", game="clue")
    assert getattr(wrapped, "cannot_play", lambda g: None)(board) is None
