"""Clue on the board (issue 10, item 1): the board as data, movement by dice, suggestions only in
one's room, the named suspect's token dragged there, the repeat rule, and agents that move."""

import json

import numpy as np
import pytest

import agents
from deduce.apps.audit import audit
from deduce.errors import IllegalAction
from deduce.games.clue.board import CLASSIC_BOARD, Board, render
from deduce.games.clue.rules import (
    Accuse,
    ClueConfig,
    ClueGame,
    ClueState,
    EndTurn,
    Move,
    Roll,
    Rolled,
    Suggest,
    TokenMoved,
    ViewExtra,
)
from deduce.play import play_game
from deduce.replay import load_replay, save_replay

B = CLASSIC_BOARD



def sq(row, col):
    return B.square(row, col)


# -- the board as data --------------------------------------------------------------------------
def test_classic_board_layout():
    assert (B.width, B.height) == (24, 25)
    assert len(B.rooms) == 9 and len(B.starts) == 6
    doors = {B.rooms[r]: len(d) for r, d in B.doors.items()}
    assert doors == {"Kitchen": 1, "Ballroom": 4, "Conservatory": 1, "Dining Room": 2, "Billiard Room": 2,
                     "Library": 2, "Lounge": 1, "Hall": 3, "Study": 1}
    assert B.passages == {B.room("Kitchen"): B.room("Study"), B.room("Study"): B.room("Kitchen"),
                          B.room("Conservatory"): B.room("Lounge"), B.room("Lounge"): B.room("Conservatory")}
    for start in B.starts:  # start squares lie on the edge of the board
        y, x = B.cells[start]
        assert y in (0, B.height - 1) or x in (0, B.width - 1)
    # rooms in their classic corners
    corner = {name: B.room_cells[B.room(name)][0] for name in ("Kitchen", "Conservatory", "Lounge", "Study")}
    assert corner["Kitchen"][0] < 5 and corner["Kitchen"][1] < 5
    assert corner["Conservatory"][0] < 5 and corner["Conservatory"][1] > 15
    assert corner["Lounge"][0] > 15 and corner["Lounge"][1] < 5
    assert corner["Study"][0] > 15 and corner["Study"][1] > 15
    for start in B.starts:  # every room can be reached from every start
        assert set(B.room_distances(start)) == set(range(9))


def test_bad_maps_are_rejected():
    with pytest.raises(ValueError, match="same length"):
        Board.parse("..\n...")
    with pytest.raises(ValueError, match="unknown board symbol"):
        Board.parse("..?\n...", letters={}, rooms=(), passages=())
    with pytest.raises(ValueError, match="one corridor square"):
        Board.parse(".k.\n...", letters={"K": "Kitchen"}, rooms=("Kitchen",), passages=())


# -- movement ---------------------------------------------------------------------------------
def test_reachable_squares_up_to_the_roll_orthogonally():
    start = B.starts[0]  # Miss Scarlet, bottom edge (row 24, column 7)
    assert B.cells[start] == (24, 7)
    assert set(B.reachable(start, 1)) == {sq(23, 7), sq(24, 8)}
    assert set(B.reachable(start, 2)) == {sq(23, 7), sq(24, 8), sq(22, 7), sq(23, 8)}  # no diagonal, any count <= 2
    assert start not in B.reachable(start, 6)  # one must move


def test_occupied_squares_block_passing_and_landing():
    start = B.starts[0]
    assert B.reachable(start, 6, occupied=[sq(23, 7), sq(24, 8)]) == ()  # boxed in
    far = B.reachable(start, 6, occupied=[sq(22, 7), sq(22, 8)])
    assert far and all(B.cells[p][0] >= 22 for p in far) and sq(22, 7) not in far


def test_entering_a_room_ends_movement_and_rooms_are_no_shortcut():
    outside = sq(7, 4)  # in front of the Kitchen door
    kitchen = B.room("Kitchen")
    assert kitchen in B.reachable(outside, 1)
    # the squares left and right of the Ballroom are 2 apart through the room, much more around it
    assert B.distances(sq(5, 7))[sq(5, 16)] == 15
    # a room is a dead end: the Study is not reached through the Kitchen's secret passage
    assert B.room("Study") not in B.reachable(outside, 12)


def test_leaving_a_room_through_any_door_but_not_reentering_it():
    ballroom = B.room("Ballroom")
    one = set(B.reachable(ballroom, 1))
    assert one == {sq(5, 7), sq(5, 16), sq(8, 9), sq(8, 14)}
    assert ballroom not in B.reachable(ballroom, 12)
    assert set(B.reachable(ballroom, 1, occupied=[sq(5, 7), sq(8, 9)])) == {sq(5, 16), sq(8, 14)}


# -- the engine -----------------------------------------------------------------------------------
def fixed(num_players=3, seed=0, **cfg):
    g = ClueGame(num_players=num_players, board_mode="board", **cfg)
    d = g.deck
    ids = lambda *names: [d.card(n).id for n in names]  # noqa: E731
    env = ids("Miss Scarlet", "Rope", "Hall")
    hands = [
        ids("Colonel Mustard", "Knife", "Kitchen", "Ballroom", "Conservatory", "Dining Room"),
        ids("Mrs. White", "Lead Pipe", "Billiard Room", "Library", "Lounge", "Study"),
        ids("Mr. Green", "Mrs. Peacock", "Professor Plum", "Candlestick", "Revolver", "Wrench"),
    ]
    return g, ClueState.from_deal(g, env, hands, seed=seed), ids


def test_config_checks_board_mode():
    assert ClueConfig().board_mode == "any_room" and ClueGame().board is None
    with pytest.raises(ValueError, match="board_mode"):
        ClueConfig(board_mode="hexes")
    with pytest.raises(ValueError, match="rooms"):
        ClueConfig(board_mode="board", rooms=("A", "B"))
    with pytest.raises(ValueError, match="dice"):
        ClueConfig(board_mode="board", dice=0)


def test_turn_starts_with_a_seeded_roll_then_a_move():
    g, s, ids = fixed()
    assert s.positions == list(B.starts)
    legal = s.legal_actions()
    assert Roll() in legal and not any(isinstance(a, Suggest | Move) for a in legal)
    with pytest.raises(IllegalAction, match="must roll"):
        s.apply(Move(sq(23, 7)))
    with pytest.raises(IllegalAction, match="only in a room"):
        s.apply(Suggest(tuple(ids("Mr. Green", "Rope", "Hall"))))
    s.apply(Roll())
    ev = s.events[-1]
    assert isinstance(ev, Rolled) and ev.player == 0 and 2 <= ev.value <= 12
    _, again, _ = fixed()
    again.apply(Roll())
    assert again.events[-1] == ev  # same seed, same dice
    rolls = set()
    for seed in range(40):
        _, t, _ = fixed(seed=seed, dice=1)
        t.apply(Roll())
        rolls.add(t.roll)
    assert rolls == set(range(1, 7))
    assert s.observation(2).roll == ev.value and s.observation(1).events[-1] == ev  # public
    moves = {a.to for a in s.legal_actions() if isinstance(a, Move)}
    assert moves == set(B.reachable(B.starts[0], ev.value, s.occupied()))
    with pytest.raises(IllegalAction, match="cannot roll"):
        s.apply(Roll())
    with pytest.raises(IllegalAction, match="cannot reach"):
        s.apply(Move(B.room("Kitchen")))
    target = min(moves)
    s.apply(Move(target))
    assert s.events[-1] == TokenMoved(0, B.starts[0], target, "move")
    if not B.is_room(target):
        assert s.legal_actions()[0] == EndTurn()
        assert not any(isinstance(a, Suggest) for a in s.legal_actions())


def test_entering_a_room_means_suggesting_there_and_drags_the_suspect():
    g, s, ids = fixed()
    s.positions[0] = sq(18, 5)  # just outside the Lounge door
    s.apply(Roll())
    lounge = B.room("Lounge")
    assert Move(lounge) in s.legal_actions()
    s.apply(Move(lounge))
    legal = s.legal_actions()
    assert EndTurn() not in legal and Roll() not in legal
    sugg = [a for a in legal if isinstance(a, Suggest)]
    assert len(sugg) == 36 and {a.cards[2] for a in sugg} == set(ids("Lounge"))
    with pytest.raises(IllegalAction, match="only there"):
        s.apply(Suggest(tuple(ids("Mr. Green", "Rope", "Hall"))))
    s.apply(Suggest(tuple(ids("Mrs. White", "Rope", "Lounge"))))  # White is seat 2's token
    moved = [e for e in s.events if isinstance(e, TokenMoved) and e.cause == "suggestion"]
    assert moved == [TokenMoved(2, B.starts[2], lounge, "suggestion")]
    assert s.positions[2] == lounge
    assert s.current_player == 1 and s.phase == "refute"  # seat 1 holds White and the Lounge
    assert s.observation(1).positions[2] == lounge


def test_repeat_rule_leave_first_unless_dragged():
    g, s, ids = fixed()
    lounge, hall = B.room("Lounge"), B.room("Hall")
    s.positions[0] = sq(18, 5)
    s.apply(Roll())
    s.apply(Move(lounge))
    s.apply(Suggest(tuple(ids("Mrs. White", "Rope", "Lounge"))))  # drags seat 2 (Mrs. White)
    while s.current_player != 0 or s.phase != "after":
        s.apply(s.legal_actions()[0])
    s.apply(EndTurn())
    # seat 1 was not dragged: it must move
    assert s.current_player == 1 and not any(isinstance(a, Suggest) for a in s.legal_actions())
    s.positions[1] = sq(17, 11)
    s.apply(Roll())
    s.apply(Move(hall))
    s.apply(Suggest(tuple(ids("Colonel Mustard", "Rope", "Hall"))))  # its own token: no drag
    while s.current_player != 1 or s.phase != "after":
        s.apply(s.legal_actions()[0])
    s.apply(EndTurn())
    # seat 2 was dragged into the Lounge: it may suggest there without moving
    assert s.current_player == 2 and s.positions[2] == lounge
    legal = s.legal_actions()
    assert Roll() in legal and Suggest(tuple(ids("Mr. Green", "Knife", "Lounge"))) in legal
    assert Move(B.room("Conservatory")) in legal  # the Lounge's secret passage
    s.apply(Roll())  # it chose to move instead; it may not stay in the Lounge
    assert Move(lounge) not in s.legal_actions()
    # seat 0 stayed in the Lounge since its last turn: it must leave before suggesting there again
    t = s.clone()
    while t.current_player != 0:
        a = t.legal_actions()[0]
        t.apply(a if not isinstance(a, Accuse) else EndTurn())
    assert t.positions[0] == lounge and t.phase == "start"
    with pytest.raises(IllegalAction, match="must leave"):
        t.apply(Suggest(tuple(ids("Mr. Green", "Knife", "Lounge"))))


def test_secret_passage_replaces_the_roll():
    g, s, ids = fixed()
    kitchen, study = B.room("Kitchen"), B.room("Study")
    s.positions[0] = kitchen
    assert Move(study) in s.legal_actions()
    s.apply(Move(study))
    assert s.events[-1] == TokenMoved(0, kitchen, study, "passage")
    assert {a.cards[2] for a in s.legal_actions() if isinstance(a, Suggest)} == set(ids("Study"))


def test_boxed_in_player_passes():
    g, s, ids = fixed()
    s.positions[1], s.positions[2] = sq(23, 7), sq(24, 8)  # around Miss Scarlet's start
    s.apply(Roll())
    legal = s.legal_actions()
    assert legal[0] == EndTurn() and not any(isinstance(a, Move) for a in legal)


def test_movement_adds_no_knowledge_and_everything_stays_sound():
    game = ClueGame(num_players=4, board_mode="board")
    plain = ClueGame(num_players=4)
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for step in range(400):
        if state.is_terminal():
            break
        acts = [a for a in state.legal_actions() if not isinstance(a, Accuse | ViewExtra)] or state.legal_actions()
        state.apply(acts[int(rng.integers(len(acts)))])
        if step % 25 == 0:
            for p in range(4):
                obs = state.observation(p)
                assert obs.positions == tuple(state.positions)
                kb = game.knowledge(obs)
                assert kb.consistent_with(state.world())
                assert kb.constraints == plain.knowledge(obs).constraints  # movement is card-free


def test_hidden_variant_replays_the_same_dice():
    game = ClueGame(num_players=3, board_mode="board")
    state = game.new_initial_state(9)
    rng = np.random.default_rng(9)
    actions = []
    for _ in range(120):
        if state.is_terminal():
            break
        acts = [a for a in state.legal_actions() if not isinstance(a, Accuse | ViewExtra)]
        a = acts[int(rng.integers(len(acts)))]
        state.apply(a)
        actions.append(a)
    variant = state.hidden_variant(0, actions, np.random.default_rng(1))
    assert variant is not None and variant.positions == state.positions
    assert variant.observation(0) == state.observation(0)


def test_replay_round_trip_in_board_mode():
    game = ClueGame(num_players=3, board_mode="board")
    state = game.new_initial_state(4)
    rng = np.random.default_rng(4)
    actions = []
    while not state.is_terminal() and len(actions) < 150:
        acts = state.legal_actions()
        a = acts[int(rng.integers(len(acts)))]
        state.apply(a)
        actions.append(a)
    _, again = load_replay(json.dumps(save_replay(game, 4, actions)))
    assert again.events == state.events and again.positions == state.positions


def test_audit_passes_in_board_mode():
    report = audit("clue", games=2, seed=1, agents=["random"], check_every=10, max_actions=200,
                   config={"board_mode": "board"})
    assert not report.failures, report.failures[:1]


# -- agents and rendering -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 6])
@pytest.mark.slow
def test_random_and_board_agents_finish_games(n):
    game = ClueGame(num_players=n, board_mode="board")
    names = ["random", "notebook-board", "deductive-board", "deductive-target", "infogain-board", "random"][:n]
    for seed in range(2):
        record = play_game(game, [agents.get(a, game="clue") for a in names], seed)
        assert record.failure is None, record.failure


class _AlwaysKitchen(agents.Agent):
    """Board-blind: suggests in the Kitchen whatever it is offered."""

    name = "always-kitchen"

    def act(self, obs):
        return Suggest((0, 6, self.game.deck.card("Kitchen").id))


def test_board_blind_agent_forfeits_outside_its_room():
    game = ClueGame(num_players=3, board_mode="board")
    record = play_game(game, [_AlwaysKitchen() for _ in range(3)], 0)
    assert record.failure is not None and record.failure.kind == "illegal"
    assert "only in a room" in record.failure.message


def test_render_shows_rooms_and_tokens():
    positions = list(B.starts)
    positions[1] = B.room("Kitchen")
    text = render(B, positions, legend=["Scarlet", "Mustard", "White", "Green", "Peacock", "Plum"])
    lines = text.splitlines()
    assert lines[24][7] == "1" and lines[0][9] == "3"
    assert "Kitchen" in text.split("\n\n")[1] and "Kitche" in lines[4]
    assert any("2" in line[:6] for line in lines[1:7])  # Mustard inside the Kitchen
    assert "Ballro" in text and "Hall" in text


# -- the movement-aware planner ------------------------------------------------------------------
def test_expected_turns_to_reach_a_room():
    from agents.clue.board import expected_turns

    one = expected_turns(1, 30)
    assert one[0] == 1.0 and one[1] == 1.0  # in reach of any roll
    assert one[2] == pytest.approx(1 + 1 / 6)  # only a 1 falls short, then any roll reaches it
    two = expected_turns(2, 40)
    assert two[2] == 1.0 and two[3] == pytest.approx(1 + 1 / 36)
    assert all(a <= b for a, b in zip(two, two[1:], strict=False))  # farther is never quicker
    # far away: about 7 steps a turn, plus the renewal overshoot E[X^2] / (2 E[X]^2)
    assert 2.0 < two[14] < 3.0 and two[40] == pytest.approx(40 / 7 + (35 / 6 + 49) / 98, abs=0.1)


def test_planner_heads_for_the_most_informative_room_discounted_by_distance():
    from agents.clue.board import InfogainPlannerAgent, expected_turns

    g, s, ids = fixed()
    here = s.positions[0] = sq(18, 5)  # next to the Lounge door: the Lounge is the nearest room
    planner = InfogainPlannerAgent()
    planner.reset(g, 0, 0)
    obs = s.observation(0)
    values, scores = planner._room_values(obs)
    assert set(values) == set(range(9)) and len(scores) == 6 * 6 * 9
    assert max(values.values()) > 0
    assert planner.act(obs) == Roll()
    turns = expected_turns(2, 100)
    dist = B.room_distances(here, s.occupied() - {here})
    worth = {r: values[r] * 0.5 ** (turns[d] - 1) for r, d in dist.items()}
    assert worth[planner.target] == pytest.approx(max(worth.values()))
    s.apply(Roll())
    obs = s.observation(0)
    move = planner.act(obs)
    assert isinstance(move, Move)
    if B.is_room(move.to):
        reach = {a.to for a in obs.legal_actions if isinstance(a, Move) and B.is_room(a.to)}
        assert values[move.to] == max(values[r] for r in reach)
    # with no discount for distance the planner makes for the best room on the board
    far = InfogainPlannerAgent(discount=1.0)
    far.reset(g, 0, 0)
    t = fixed()[1]
    t.positions[0] = sq(18, 5)
    far.act(t.observation(0))
    assert values[far.target] == max(values.values())
    with pytest.raises(ValueError, match="discount"):
        InfogainPlannerAgent(discount=0.0)


def test_planner_and_nearest_share_the_inner_agent():
    from agents.clue.board import InfogainNearestAgent, InfogainPlannerAgent

    a, b = InfogainPlannerAgent(), InfogainNearestAgent()
    assert a.inner_name == b.inner_name == "infogain" and (a.policy, b.policy) == ("value", "nearest")
    assert type(a.inner) is type(b.inner) and a.inner.params == b.inner.params
