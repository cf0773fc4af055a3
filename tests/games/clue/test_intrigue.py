"""The intrigue edition of Clue (issue 10, item 2): "?" squares and die faces draw intrigue
cards, bonus cards (move to any room, decline to show), clocks that eliminate, accusations only
from the pool, eliminated players still refuting; and board agents that play it."""

import numpy as np
import pytest

import agents
from deduce.errors import IllegalAction
from deduce.games.clue.board import CLASSIC_BOARD, INTRIGUE_BOARD, QUESTION_SQUARES, render
from deduce.games.clue.intrigue import (
    CLOCK,
    DECLINE,
    Decline,
    Eliminated,
    IntrigueDrawn,
    UseAnyRoom,
)
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueConfig,
    ClueGame,
    ClueState,
    EndTurn,
    Move,
    Roll,
    Rolled,
    Show,
    Suggest,
    Suggestion,
    TokenMoved,
)
from deduce.play import play_game

B = INTRIGUE_BOARD


def sq(row, col):
    return B.square(row, col)


def fixed(seed=0, **cfg):
    g = ClueGame(num_players=3, board_mode="board", edition="intrigue", **cfg)
    d = g.deck
    ids = lambda *names: [d.card(n).id for n in names]  # noqa: E731
    env = ids("Miss Scarlet", "Rope", "Hall")
    hands = [
        ids("Colonel Mustard", "Knife", "Kitchen", "Ballroom", "Conservatory", "Dining Room"),
        ids("Mrs. White", "Lead Pipe", "Billiard Room", "Library", "Lounge", "Study"),
        ids("Mr. Green", "Mrs. Peacock", "Professor Plum", "Candlestick", "Revolver", "Wrench"),
    ]
    return g, ClueState.from_deal(g, env, hands, seed=seed), ids


def to_question_square(s, seat=0):
    """Put ``seat``'s token next to a "?" square (one per seat) and move onto it (any roll reaches it)."""
    y, x = QUESTION_SQUARES[seat]
    s.positions[seat] = sq(y, x + 1)
    s.apply(Roll())
    s.apply(Move(sq(y, x)))


# -- configuration and board ----------------------------------------------------------------------
def test_config_fields_and_checks():
    cfg = ClueConfig(board_mode="board", edition="intrigue")
    assert cfg.intrigue and cfg.clocks == 8 and cfg.accuse_in_pool and not ClueConfig().intrigue
    assert ClueGame(cfg).board is B and ClueGame(board_mode="board").board.pool is None
    with pytest.raises(ValueError, match="played on the board"):
        ClueConfig(edition="intrigue")
    with pytest.raises(ValueError, match="edition must be one of"):
        ClueConfig(edition="deluxe")
    with pytest.raises(ValueError, match="'peek'"):
        ClueConfig(board_mode="board", edition="intrigue", bonus_cards=(("peek", 1),))
    with pytest.raises(ValueError, match="clocks"):
        ClueConfig(board_mode="board", edition="intrigue", clocks=0)
    with pytest.raises(ValueError, match="question_dice"):
        ClueConfig(board_mode="board", edition="intrigue", question_dice=3)


def test_question_squares_stop_movement_and_the_pool_is_entered_like_a_room():
    y, x = QUESTION_SQUARES[0]  # (7, 3): the corridor along row 7
    left, mark, right = sq(y, x - 1), sq(y, x), sq(y, x + 1)
    assert mark in B.reachable(right, 1)
    assert CLASSIC_BOARD.distances(right)[left] == 2 and B.distances(right)[left] == 4  # round it, not through
    assert left in B.reachable(mark, 1)  # leaving a "?" square is free
    pool = B.pool
    assert B.label(pool) == "Pool" and not B.is_room(pool) and B.ends_move(pool)
    assert pool in B.reachable(sq(9, 12), 1) and pool not in B.reachable(sq(9, 11), 1)  # through its door
    picture = render(B, [pool, right])
    assert "Pool" in picture and "?" in picture and "1" in picture.split("Pool")[1].splitlines()[1]


# -- drawing intrigue cards -------------------------------------------------------------------------
def test_a_question_square_draws_a_card_and_ends_the_move():
    g, s, _ = fixed(clocks=8, bonus_cards=(("decline", 1),), question_dice=0)
    s.intrigue_deck = [CLOCK] * 8 + [DECLINE]  # the top card (drawn first) is the last one
    to_question_square(s)
    drawn = s.events[-1]
    assert drawn == IntrigueDrawn(0, DECLINE, "square", 0)
    assert s.bonus[0] == [DECLINE] and s.phase == "after" and s.legal_actions()[0] == EndTurn()
    assert s.observation(0).intrigue_hand == (DECLINE,)
    assert s.observation(1).events[-1] == IntrigueDrawn(0, None, "square", 0)  # which bonus: private
    assert s.observation(1).bonus_held == (1, 0, 0) and s.observation(1).intrigue_hand == ()


def test_a_rolled_question_face_draws_and_counts_one_step():
    seen = False
    for seed in range(60):
        g, s, _ = fixed(seed=seed, dice=1)
        s.apply(Roll())
        rolled = s.events[-2] if isinstance(s.events[-1], IntrigueDrawn) else s.events[-1]
        assert isinstance(rolled, Rolled)
        if isinstance(s.events[-1], IntrigueDrawn):
            assert s.events[-1].cause == "die" and rolled.value == 1
            seen = True
        g2, t, _ = fixed(seed=seed, dice=1, question_dice=0)
        t.apply(Roll())
        assert t.events[-1] == rolled and not isinstance(t.events[-1], IntrigueDrawn)  # same dice
    assert seen


def test_the_eighth_clock_eliminates_then_every_clock_does():
    g, s, ids = fixed(clocks=2, bonus_cards=(), question_dice=0)  # only squares draw here
    s.intrigue_deck = [CLOCK, CLOCK]
    to_question_square(s, 0)
    assert s.events[-1] == IntrigueDrawn(0, CLOCK, "square", 1) and s.observation(2).clocks_drawn == 1
    assert 0 not in s.eliminated
    s.apply(EndTurn())
    to_question_square(s, 1)
    assert list(s.events[-2:]) == [IntrigueDrawn(1, CLOCK, "square", 2), Eliminated(1, CLOCK)]
    assert s.eliminated == {1} and s.current_player == 2 and s.phase == "start"  # its turn ended
    assert s.clocks_reshuffled and s.intrigue_deck == [CLOCK, CLOCK] and s.clocks_out == 0
    to_question_square(s, 2)
    assert s.events[-1] == Eliminated(2, CLOCK) and s.current_player == 0  # every clock now
    # eliminated players still refute: seat 1 holds the Lounge
    s.positions[0] = sq(18, 5)
    s.apply(Roll())
    s.apply(Move(B.room("Lounge")))
    s.apply(Suggest(tuple(ids("Mr. Green", "Rope", "Lounge"))))
    last = s.events[-1]
    assert isinstance(last, Suggestion) and last.refuters == (1,)
    s.apply(EndTurn())
    assert s.current_player == 0  # the eliminated seats take no turns


# -- bonus cards --------------------------------------------------------------------------------------
def test_move_to_any_room_replaces_the_roll_and_leads_to_a_suggestion():
    g, s, ids = fixed()
    assert not any(isinstance(a, UseAnyRoom) for a in s.legal_actions())
    with pytest.raises(IllegalAction, match="no move-to-any-room card"):
        s.apply(UseAnyRoom(B.room("Study")))
    s.bonus[0].append("any_room")
    legal = s.legal_actions()
    assert {a.to for a in legal if isinstance(a, UseAnyRoom)} == set(range(9))
    s.apply(UseAnyRoom(B.room("Study")))
    assert s.events[-1] == TokenMoved(0, B.starts[0], B.room("Study"), "intrigue")
    assert s.bonus[0] == [] and s.phase == "suggest"
    assert {a.cards[2] for a in s.legal_actions() if isinstance(a, Suggest)} == set(ids("Study"))


def test_decline_to_show_passes_the_refutation_on_and_says_one_is_held():
    g, s, ids = fixed()
    s.bonus[1].append(DECLINE)
    s.positions[0] = sq(18, 5)
    s.apply(Roll())
    s.apply(Move(B.room("Lounge")))
    s.apply(Suggest(tuple(ids("Mr. Green", "Lead Pipe", "Lounge"))))  # seat 1: Lead Pipe, Lounge
    assert s.current_player == 1 and Decline() in s.legal_actions()
    assert set(s.legal_actions()) == {Show(ids("Lead Pipe")[0]), Show(ids("Lounge")[0]), Decline()}
    s.apply(Decline())
    last = s.events[-1]  # seat 2 holds Mr. Green (one card, forced) and shows it
    assert isinstance(last, Suggestion) and last.declined == (1,) and last.refuters == (2,)
    assert s.bonus[1] == [] and Decline() not in s.legal_actions()
    # everyone learns seat 1 holds one of the three; the truth stays consistent
    for p in range(3):
        kb = g.knowledge(s.observation(p))
        assert kb.consistent_with(s.world())
    kb2 = g.knowledge(s.observation(2))
    assert any(type(c).__name__ == "AtLeastOne" and c.loc == 1 for c in kb2.constraints)


def test_a_single_matching_card_is_a_decision_when_one_could_decline():
    g, s, ids = fixed()
    s.bonus[1].append(DECLINE)
    s.positions[0] = sq(18, 5)
    s.apply(Roll())
    s.apply(Move(B.room("Lounge")))
    s.apply(Suggest(tuple(ids("Mr. Green", "Rope", "Lounge"))))
    assert s.current_player == 1 and set(s.legal_actions()) == {Show(ids("Lounge")[0]), Decline()}


# -- accusations from the pool -------------------------------------------------------------------------
def test_accusations_only_from_the_pool():
    g, s, ids = fixed()
    right = Accuse(tuple(ids("Miss Scarlet", "Rope", "Hall")))
    assert not any(isinstance(a, Accuse) for a in s.legal_actions())
    with pytest.raises(IllegalAction, match="in the pool to accuse"):
        s.apply(right)
    s.positions[0] = sq(9, 12)
    s.apply(Roll())
    s.apply(Move(B.pool))
    legal = s.legal_actions()
    assert EndTurn() in legal and right in legal and not any(isinstance(a, Suggest) for a in legal)
    s.apply(right)
    assert s.events[-1] == Accusation(0, right.cards, True) and s.is_terminal() and s.winner == 0


# -- agents ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("names", [
    ("infogain-planner-board", "deductive-target", "infogain-nearest-board"),
    ("deductive-board", "notebook-board", "infogain-board"),
])
@pytest.mark.slow
def test_board_agents_play_the_intrigue_edition_and_accuse_from_the_pool(names):
    game = ClueGame(num_players=3, board_mode="board", edition="intrigue", max_turns=400)
    used = set()
    for seed in range(3):
        state = game.new_initial_state(seed)
        seated = [agents.get(n, game="clue") for n in names]
        for i, a in enumerate(seated):
            a.reset(game, i, seed * 10 + i)
        while not state.is_terminal():
            p = state.current_player
            action = seated[p].act(state.observation(p))
            used.add(type(action).__name__)
            if isinstance(action, Accuse):
                assert state.positions[p] == B.pool  # they walk there first
            state.apply(action)
        assert any(isinstance(e, Accusation | Eliminated) for e in state.events)
        assert state.winner is not None or len(state.eliminated) == 3
    assert "Accuse" in used and "Roll" in used


def test_decline_and_move_anywhere_are_used_sensibly():
    g, s, ids = fixed()
    agent = agents.get("infogain-planner-board", game="clue")
    agent.reset(g, 1, 0)
    s.bonus[1].append(DECLINE)
    s.positions[0] = sq(18, 5)
    s.apply(Roll())
    s.apply(Move(B.room("Lounge")))
    s.apply(Suggest(tuple(ids("Mr. Green", "Lead Pipe", "Lounge"))))
    assert agent.act(s.observation(1)) == Decline()  # nothing shown to seat 0 before: decline
    # a card already shown to that suggester costs nothing to show again
    t = s.clone()
    t.apply(Show(ids("Lounge")[0]))
    t.bonus[1].append(DECLINE)
    while not (t.current_player == 0 and t.phase == "start"):
        t.apply(next(a for a in t.legal_actions() if not isinstance(a, Accuse)))
    t.positions[0] = sq(18, 5)
    t.apply(Roll())
    t.apply(Move(B.room("Lounge")))
    t.apply(Suggest(tuple(ids("Mr. Green", "Knife", "Lounge"))))
    assert t.current_player == 1 and Decline() in t.legal_actions()
    assert agent.act(t.observation(1)) == Show(ids("Lounge")[0])
    # far from every informative room, the planner plays "move to any room"
    g, s, ids = fixed()
    s.bonus[0].append("any_room")
    planner = agents.get("infogain-planner-board", game="clue")
    planner.reset(g, 0, 0)
    s.positions[0] = sq(24, 7)
    action = planner.act(s.observation(0))
    assert isinstance(action, UseAnyRoom) or action == Roll()
    values, _ = planner._room_values(s.observation(0))
    if isinstance(action, UseAnyRoom):
        assert values[action.to] == max(values.values())


def test_random_play_finishes_and_seeded_games_repeat():
    game = ClueGame(num_players=4, board_mode="board", edition="intrigue", max_turns=300)
    import agents

    records = [play_game(game, [agents.get("random", game="clue") for _ in range(4)], 7) for _ in range(2)]
    assert records[0].failure is None and records[0].returns == records[1].returns
    rng = np.random.default_rng(0)
    state = game.new_initial_state(3)
    drawn = 0
    while not state.is_terminal():
        acts = [a for a in state.legal_actions() if not isinstance(a, Accuse)] or state.legal_actions()
        state.apply(acts[int(rng.integers(len(acts)))])
    drawn = sum(isinstance(e, IntrigueDrawn) for e in state.events)
    assert drawn > 0 and state.eliminated  # without accusations, the clocks end the game


# -- logs, audit ----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_replay_round_trip_and_audit_in_the_intrigue_edition():
    import json

    from deduce.apps.audit import audit
    from deduce.replay import load_replay, save_replay

    game = ClueGame(num_players=3, board_mode="board", edition="intrigue")
    state = game.new_initial_state(4)
    rng = np.random.default_rng(4)
    actions = []
    while not state.is_terminal() and len(actions) < 300:
        acts = [a for a in state.legal_actions() if not isinstance(a, Accuse)] or state.legal_actions()
        a = acts[int(rng.integers(len(acts)))]
        state.apply(a)
        actions.append(a)
    assert any(isinstance(e, IntrigueDrawn) for e in state.events)
    _, again = load_replay(json.dumps(save_replay(game, 4, actions)))
    assert again.events == state.events and again.positions == state.positions and again.bonus == state.bonus
    report = audit("clue", games=2, seed=1, agents=["random"], check_every=10, max_actions=200,
                   config={"board_mode": "board", "edition": "intrigue"})
    assert not report.failures, report.failures[:1]


@pytest.mark.slow
def test_with_a_face_down_pile_agents_go_to_the_pool_to_look_at_it():
    from deduce.games.clue.rules import ViewExtra

    game = ClueGame(num_players=4, board_mode="board", edition="intrigue", max_turns=400)
    assert game.config.extra_size() == 2  # 18 cards, 4 hands of 4, 2 face down
    names = ["deductive-board", "infogain-planner-board", "deductive-target", "infogain-nearest-board"]
    state = game.new_initial_state(1)
    seated = [agents.get(n, game="clue") for n in names]
    for i, a in enumerate(seated):
        a.reset(game, i, i)
    looked = []
    while not state.is_terminal():
        p = state.current_player
        action = seated[p].act(state.observation(p))
        if isinstance(action, ViewExtra):
            looked.append(state.positions[p])
        state.apply(action)
    assert looked and set(looked) == {B.pool}
    assert state.winner is not None
