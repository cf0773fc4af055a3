"""The one game loop (deduce.play): its hooks, its players and its step-by-step form."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import deduce
from deduce.errors import IllegalAction
from deduce.play import Forfeit, GameRun, RandomPlayer, ScriptedPlayer, Step, play_game, seeds_for


def _mafia(players: int = 3):
    return deduce.make("mafia-code", num_players=players)


def _randoms(game):
    return [agents.get("random", game=game.name) for _ in range(game.num_players)]


def test_on_action_sees_every_action_with_its_state_events_and_time():
    game = _mafia()
    steps: list[tuple[int, object, int, int]] = []

    def seen(step: Step) -> None:
        assert step.state.events[-len(step.events):] == step.events and step.events
        assert step.seconds >= 0 and step.observation.legal_actions and step.action in step.observation.legal_actions
        steps.append((step.seat, step.action, step.moves, len(step.state.events)))

    record = play_game(game, _randoms(game), 7, on_action=seen)
    assert record.failure is None and len(steps) == record.moves
    assert [m for _, _, m, _ in steps] == list(range(1, record.moves + 1))
    # the same seed plays the same game with or without the hook
    again: list[object] = []
    play_game(game, _randoms(game), 7, on_action=lambda step: again.append(step.action))
    assert again == [a for _, a, _, _ in steps]


def test_before_act_runs_before_each_decision_on_what_the_seat_is_shown():
    game = _mafia()
    before: list[tuple[int, object]] = []
    shown: list[tuple[int, object]] = []

    def decide(state, seat, obs):
        assert state.current_player == seat and not state.is_terminal()
        before.append((seat, obs))

    play_game(game, _randoms(game), 3, before_act=decide, on_action=lambda s: shown.append((s.seat, s.observation)))
    assert before and before == shown


def test_until_stops_before_a_decision_and_max_moves_bounds_the_game():
    game = _mafia()
    full = play_game(game, _randoms(game), 5)
    state = game.new_initial_state(seeds_for(5, game.num_players + 1)[0])
    cut = play_game(game, _randoms(game), 5, state=state, until=lambda s: len(s.events) >= 20)
    assert cut.moves < full.moves and cut.winners == () and cut.failure is None
    assert len(state.events) >= 20 and not state.is_terminal()  # the state passed in is played in place
    assert play_game(game, _randoms(game), 5, max_moves=4).moves == 4


def test_agent_seeds_and_a_given_state_replace_the_seeds_from_the_game_seed():
    game = _mafia(2)
    seen: list[object] = []

    class Spy(RandomPlayer):
        def reset(self, game, player, seed=None):
            seen.append(seed)

    play_game(game, [Spy(0), Spy(0)], 11)
    assert seen == seeds_for(11, 3)[1:]
    seen.clear()
    play_game(game, [Spy(0), Spy(0)], 11, agent_seeds=[100, 101], deal_seed=42)
    assert seen == [100, 101]
    given = game.new_initial_state(42)
    play_game(game, [RandomPlayer(1)] * 2, 11, state=given)
    run = GameRun(game, [RandomPlayer(1)] * 2, 999, deal_seed=42)  # the game seed does not deal then
    list(run)
    assert given.is_terminal() and given.events == run.state.events


def test_one_random_player_everywhere_is_one_generator_in_turn_order():
    game = deduce.make("alibi-adlung", num_players=3)
    hand = game.new_initial_state(9)
    rng = np.random.default_rng(9)
    while not hand.is_terminal():
        legal = hand.legal_actions()
        hand.apply(legal[int(rng.integers(len(legal)))])
    looped = game.new_initial_state(9)
    play_game(game, [RandomPlayer(9)] * 3, 0, state=looped)
    assert looped.events == hand.events
    # separate players draw separately: another game
    apart = game.new_initial_state(9)
    play_game(game, [RandomPlayer(9) for _ in range(3)], 0, state=apart)
    assert apart.events != hand.events


def test_random_player_can_leave_out_action_types():
    from deduce.games.alibi.rules import Accuse, AlibiGame

    game = AlibiGame(num_players=3)
    chosen: list[object] = []
    play_game(game, [RandomPlayer(2, exclude=(Accuse,))] * 3, 0, max_moves=300,
              on_action=lambda s: chosen.append(s.action))
    assert len(chosen) == 300 and not any(isinstance(a, Accuse) for a in chosen)


def test_a_scripted_player_replays_a_game_through_the_loop():
    game = _mafia()
    actions: list[object] = []
    run = GameRun(game, _randoms(game), 4, on_action=lambda s: actions.append(s.action))
    list(run)
    replay = GameRun(game, [ScriptedPlayer(actions)] * game.num_players, 4, max_moves=len(actions))
    list(replay)
    assert replay.state.events == run.state.events and replay.record().winners == run.record().winners
    short = play_game(game, [ScriptedPlayer(actions[:5])] * game.num_players, 4)
    assert short.failure is not None and short.failure.kind == "script" and short.moves == 5


class _Remote:
    """A seat whose action comes from elsewhere; after three actions it breaks a rule, and the
    referee blames seat 0 whoever was asked."""

    name = "remote"

    def __init__(self) -> None:
        self.asked = 0

    def reset(self, game, player, seed=None):
        self.inner = RandomPlayer(seed)

    def act(self, observation):
        self.asked += 1
        if self.asked > 3:
            raise Forfeit("repeat", "said the same thing twice", seat=0)
        return self.inner.act(observation)


def test_a_forfeit_from_a_remote_seat_goes_through_the_loops_failure_handling():
    game = _mafia(2)
    remote = _Remote()
    record = play_game(game, [remote, remote], 1)
    assert record.moves == 3 and record.failure is not None
    assert (record.failure.seat, record.failure.kind, record.failure.agent) == (0, "repeat", "remote")
    assert record.returns[0] == -1.0 and record.winners == ()


def test_a_forfeit_from_a_hook_or_from_reset():
    game = _mafia(2)

    def referee(step: Step) -> None:
        if step.moves == 2:
            raise Forfeit("announce", "hung up while being told", seat=1)

    record = play_game(game, _randoms(game), 1, on_action=referee)
    assert record.moves == 2 and (record.failure.seat, record.failure.kind) == (1, "announce")
    record = play_game(game, _randoms(game), 1, before_act=lambda *_: (_ for _ in ()).throw(Forfeit("x", "no")))
    assert record.moves == 0 and record.failure.seat == 0 and record.failure.kind == "x"

    class NoShow(RandomPlayer):
        def reset(self, game, player, seed=None):
            raise Forfeit("no_connection", "never came")

    record = play_game(game, [RandomPlayer(0), NoShow(0)], 1, errors="raise")
    assert record.moves == 0 and (record.failure.seat, record.failure.kind) == (1, "no_connection")


class _Crash(RandomPlayer):
    def act(self, observation):
        raise RuntimeError("bug")


class _Cheat(RandomPlayer):
    def act(self, observation):
        return "not an action"


def test_errors_raise_lets_a_bug_propagate_instead_of_forfeiting():
    game = _mafia(2)
    assert play_game(game, [_Crash(0), _Crash(0)], 0).failure.kind == "exception"
    assert play_game(game, [_Cheat(0), _Cheat(0)], 0).failure.kind == "illegal"
    with pytest.raises(RuntimeError, match="bug"):
        play_game(game, [_Crash(0), _Crash(0)], 0, errors="raise")
    with pytest.raises(IllegalAction):
        play_game(game, [_Cheat(0), _Cheat(0)], 0, errors="raise")


def test_a_game_run_is_the_loop_play_game_runs_and_can_stop_and_go_on():
    game = _mafia()
    whole = play_game(game, _randoms(game), 8)
    run = GameRun(game, _randoms(game), 8)
    for step in run:
        if step.moves == 10:
            break
    assert run.moves == 10 and run.record().winners == () and not run.state.is_terminal()
    rest = list(run)
    assert rest[0].moves == 11 and run.state.is_terminal()
    record = run.record()
    assert (record.returns, record.winners, record.moves, record.turns) == (
        whole.returns, whole.winners, whole.moves, whole.turns)
    stopped = GameRun(game, _randoms(game), 8)
    next(iter(stopped))
    stopped.forfeit(2, "disqualified", "by the referee")
    assert list(stopped) == [] and stopped.record().failure.seat == 2 and stopped.record().returns[2] == -1.0


def test_a_seat_answering_from_elsewhere_can_decline_the_observation():
    game = _mafia(2)
    state = game.new_initial_state(1)
    built: list[object] = []
    given: list[object] = []
    observation = type(state).observation

    def counted(self, player):
        built.append(player)
        return observation(self, player)

    class Elsewhere:
        name = "elsewhere"
        needs_observation = False

        def __init__(self) -> None:
            self.rng = np.random.default_rng(0)

        def reset(self, game, player, seed=None):
            pass

        def act(self, observation):
            given.append(observation)
            legal = state.legal_actions()
            return legal[int(self.rng.integers(len(legal)))]

    type(state).observation = counted
    try:
        record = play_game(game, [Elsewhere(), Elsewhere()], 1, state=state)
    finally:
        type(state).observation = observation
    assert record.failure is None and record.moves > 0 and built == [] and given == [None] * record.moves
    # a before_act hook still gets the observation (and so does the seat)
    seen: list[object] = []
    state = game.new_initial_state(1)
    record = play_game(game, [Elsewhere(), Elsewhere()], 1, state=state, max_moves=3,
                       before_act=lambda s, seat, obs: seen.append(obs))
    assert record.failure is None, record.failure
    assert len(seen) == 3 and all(o is not None for o in seen)


def test_random_player_asks_structured_questions_and_the_loop_knows_them_legal():
    """Alibi's hypothesis questions are legal but never listed: the seeded random player draws
    them (uniform over every legal action) and ``_is_legal`` accepts them."""
    from deduce.games.registry import make
    from deduce.play import RandomPlayer, _is_legal

    game = make("alibi", num_players=4)
    state = game.new_initial_state(3)
    player = RandomPlayer(1)
    unlisted = 0
    for _ in range(200):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        action = player.act(state.observation(state.current_player))
        if action not in tuple(legal):
            assert action in legal and _is_legal(state, action)
            unlisted += 1
        state.apply(action)
    assert unlisted > 0
