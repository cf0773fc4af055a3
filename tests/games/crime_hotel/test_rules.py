"""Crime Hotel rules (RULES.md §4, the Korean seed): deal, follow floor, parking, deductions,
departments, beginner rule, scoring, the three-game match and its tie-breaks, knowledge."""

import numpy as np
import pytest

import deduce
import solvers
from deduce import IllegalAction
from deduce.constraints import Count, Transfer
from deduce.games.crime_hotel.rules import (
    Bonus,
    Check,
    Checked,
    CrimeHotelGame,
    CrimeHotelState,
    Deduce,
    Double,
    Exchange,
    Exchanged,
    GameStarted,
    MovePolice,
    Play,
    Space,
)
from solvers.chain import ChainSolver


def cid(room: int) -> int:
    """Card id of room number ``room`` (101..309) in the default deck."""
    return (room // 100 - 1) * 9 + room % 100 - 1


def dealt_4p(**config) -> CrimeHotelState:
    game = CrimeHotelGame(num_players=4, **config)
    hands = [
        [cid(r) for r in (101, 102, 103, 104, 105, 106)],
        [cid(r) for r in (201, 202, 203, 204, 205, 206)],
        [cid(r) for r in (301, 302, 303, 304, 305, 306)],
        [cid(r) for r in (107, 108, 109, 207, 208, 209)],
    ]
    return CrimeHotelState.from_deal(game, hands, cid(307), [cid(308), cid(309)])


def first_trick(st: CrimeHotelState) -> None:
    st.apply(Play(cid(101)))  # p0 leads floor 1
    st.apply(Play(cid(201)))  # p1 has no floor 1
    st.apply(Play(cid(301)))  # p2 has no floor 1
    st.apply(Play(cid(109)))  # p3 must follow


def test_registered_and_dealt():
    game = deduce.make("crime-hotel", num_players=3)
    st = game.new_initial_state(5)
    assert [len(h) for h in st.hands] == [6, 6, 6]
    assert len(st.leftover) == 8 and isinstance(st.events[0], GameStarted) and len(st.events[0].revealed) == 8
    boxed = deduce.make("crime-hotel", num_players=4, leftover="box").new_initial_state(5)
    assert boxed.events[0].revealed == () and len(boxed.leftover) == 2
    with pytest.raises(ValueError, match="3 or 4 players"):
        deduce.make("crime-hotel", num_players=5)


def test_follow_floor_is_forced():
    st = dealt_4p()
    st.apply(Play(cid(101)))
    assert {a.card for a in st.legal_actions()} == set(range(9, 15))  # p1: no floor 1, anything
    st.apply(Play(cid(201)))
    st.apply(Play(cid(301)))
    assert {a.card for a in st.legal_actions()} == {cid(107), cid(108), cid(109)}
    with pytest.raises(IllegalAction, match="must follow floor 1"):
        st.apply(Play(cid(207)))
    with pytest.raises(IllegalAction, match="does not hold"):
        st.apply(Play(cid(302)))


def test_ranking_parking_and_police_car():
    st = dealt_4p()
    first_trick(st)
    assert st.parking == (2, 1, 3, 0)  # 301 > 201 > 109 > 101
    assert st.police_car == 2
    assert st.current_player == 2 and st.decision() == "deduce"
    assert st.public >= {cid(101), cid(201), cid(301), cid(109), cid(308), cid(309)}


def test_deductions_and_occupied_spaces():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("room", cid(307))))  # p2 on parking 1
    assert st.decision() == "support" and st.current_player == 1
    with pytest.raises(IllegalAction, match="without skid marks"):
        st.apply(Deduce(Space("floor", 3)))
    st.apply(Bonus())  # p1
    st.apply(Double())  # p3
    assert st.current_player == 0 and st.decision() == "deduce"
    with pytest.raises(IllegalAction, match="occupied"):
        st.apply(Deduce(Space("room", cid(307))))
    st.apply(Deduce(Space("digit", 7)))
    assert st.leader == 2 and st.round == 1


def test_double_placement_once_and_never_two_own():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))  # p2
    st.apply(Double())  # p1 gets a right
    st.apply(Bonus())  # p3
    st.apply(Deduce(Space("digit", 1)))  # p0
    # round 2: p2 leads 302; p3 must follow? p3 has no floor 3
    st.apply(Play(cid(302)))
    st.apply(Play(cid(207)))  # p3
    st.apply(Play(cid(102)))  # p0
    st.apply(Play(cid(202)))  # p1
    assert st.parking == (2, 3, 1, 0)
    with pytest.raises(IllegalAction, match="never two of one's own"):
        st.apply(Deduce(Space("floor", 3)))
    st.apply(Deduce(Space("floor", 2)))
    st.apply(Check(0))  # p3
    st.apply(MovePolice())  # p1: no meeple on the board, nothing moves
    assert st.double_rights(0) == 0
    with pytest.raises(IllegalAction, match="occupied"):
        st.apply(Deduce(Space("floor", 3)))


def test_move_police_and_double_right_use():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))  # p2
    st.apply(Double())  # p1
    st.apply(Bonus())  # p3
    st.apply(Deduce(Space("digit", 1)))  # p0
    st.apply(Play(cid(302)))  # p2 leads
    st.apply(Play(cid(207)))  # p3
    st.apply(Play(cid(102)))  # p0
    st.apply(Play(cid(203)))  # p1
    assert st.parking == (2, 3, 1, 0)
    st.apply(Deduce(Space("room", cid(307))))  # p2
    st.apply(Check(1))  # p3
    assert st.legal_actions() and st.current_player == 1
    st.apply(MovePolice())  # p1 no meeple yet: the effect is ignored
    st.apply(Deduce(Space("floor", 3)) if False else Deduce(Space("digit", 2)))  # p0
    # round 3: p2 leads 303, p3 any, p0 any, p1 any
    for card in (cid(303), cid(208), cid(103), cid(204)):
        st.apply(Play(card))
    assert st.parking == (2, 3, 1, 0)
    st.apply(Deduce(Space("room", cid(303))))
    # p3 moves its... p3 has no meeple; take the exchange slot instead
    st.apply(Bonus())
    # p1 holds a double right; it has no meeple on the board, so it uses the move slot with no move
    move = [a for a in st.legal_actions() if isinstance(a, MovePolice)]
    assert move == [MovePolice()]


def test_exchange_moves_cards_and_views():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))  # p2
    before0, before1 = set(st.hands[0]), set(st.hands[1])
    give = (cid(202),)
    st.apply(Exchange(0, give))  # p1, leftmost exchange slot: 1 card
    ev = [e for e in st.events if isinstance(e, Exchanged)][-1]
    assert ev.k == 1 and ev.given == give and ev.taken[0] in before0
    assert set(st.hands[1]) == before1 - set(give) | set(ev.taken)
    assert set(st.hands[0]) == before0 - set(ev.taken) | set(give)
    assert ev.view(2).given is None and ev.view(0) == ev
    # next exchange slot is 2 cards
    st.apply(Exchange(1, (cid(107), cid(108))))  # p3
    ev2 = [e for e in st.events if isinstance(e, Exchanged)][-1]
    assert ev2.k == 2 and len(ev2.taken) == 2
    assert all(len(h) == 5 for h in st.hands)
    kb = st.game.knowledge(st.observation(2))
    assert kb.epochs == 4 and kb.consistent_with(st.world())
    assert any(isinstance(c, Transfer) and c.moves == ((1, 3, 2), (3, 1, 2)) for c in kb.constraints)


def test_check_shows_cards_to_actor_and_target_only():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))
    st.apply(Check(3))
    ev = [e for e in st.events if isinstance(e, Checked)][-1]
    assert ev.k == 1 and ev.cards[0] in st.hands[3]
    assert ev.view(0).cards is None and ev.view(3) == ev and ev.view(1) == ev
    kb = st.game.knowledge(st.observation(1))
    possible = ChainSolver().possible(kb)
    assert possible[ev.cards[0]].tolist().count(True) == 1


def test_follow_floor_void_is_in_the_knowledge_base():
    st = dealt_4p()
    first_trick(st)
    kb = st.game.knowledge(st.observation(3))
    floor1 = tuple(cid(r) for r in range(101, 110))
    assert Count(floor1, 1, 0, epoch=0) in kb.constraints and Count(floor1, 2, 0, epoch=0) in kb.constraints
    m = ChainSolver().marginals(kb)
    assert abs(m[:, kb.loc("hidden")].sum() - 1) < 1e-9


def test_beginner_rule_discards_middle_meeples():
    st = dealt_4p(beginner=True)
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))
    assert st.current_player == 0  # p1 and p3 were discarded
    assert all(isinstance(a, Deduce) for a in st.legal_actions())
    st.apply(Deduce(Space("digit", 7)))
    assert st.round == 1
    assert sum(1 for e in st.events if e.kind == "discarded") == 2


def play_out(st: CrimeHotelState, rng: np.random.Generator, stop_game: int | None = None) -> None:
    while not st.is_terminal() and (stop_game is None or st.game_index == stop_game):
        acts = st.legal_actions()
        st.apply(acts[int(rng.integers(len(acts)))])


def test_scoring_and_bonus_only_when_deductions_score():
    st = dealt_4p(rounds=1, games=2)
    first_trick(st)
    st.apply(Deduce(Space("room", cid(307))))  # p2: the criminal's room, 10
    st.apply(Bonus())  # p1: bonus slot 3, but no deduction: nothing
    st.apply(Bonus())  # p3: bonus slot 2, no deduction: nothing
    st.stations["bonus"].append(0)  # p0 also holds the third bonus slot (1 point)
    st.apply(Deduce(Space("digit", 7)))  # p0: end digit 7, 5 (+1 bonus)
    assert st.scores[0] == (6, 0, 10, 0)
    assert st.game_index == 1 and st.leader == 2 == st.police_car  # the holder leads game 2
    assert len(st.hands[0]) == 6 and st.board == []  # a new deal, an empty board


def test_three_game_match():
    st = dealt_4p()
    play_out(st, np.random.default_rng(1))
    assert st.is_terminal() and len(st.scores) == 3
    assert st.totals == [sum(s[p] for s in st.scores) for p in range(4)]
    assert sum(st.returns()) >= 1
    assert st.events[-1].kind == "match_ended"


def test_points_and_bonus_only_when_scoring():
    game = CrimeHotelGame(num_players=4)
    h = cid(307)
    assert game.points(Space("floor", 3), h) == 2
    assert game.points(Space("digit", 7), h) == 5
    assert game.points(Space("room", h), h) == 10
    assert game.points(Space("room", cid(306)), h) == 0


def test_tie_breaks():
    st = dealt_4p()
    st.scores = [(5, 5, 0, 0), (0, 5, 0, 0), (5, 0, 0, 0)]
    st.totals = [10, 10, 0, 0]
    st.police_car = 1
    assert st.match_winners() == (1,)  # the police car decides first
    st.police_car = 3
    assert st.match_winners() == (0,)  # then game 3
    st.scores = [(5, 5, 0, 0), (0, 0, 0, 0), (5, 5, 0, 0)]
    assert st.match_winners() == (0, 1)  # equal in every game: shared


def test_illegal_support_actions_say_why():
    st = dealt_4p()
    first_trick(st)
    st.apply(Deduce(Space("floor", 3)))
    with pytest.raises(IllegalAction, match="not oneself"):
        st.apply(Check(1))
    st.apply(Exchange(0, (cid(202),)))
    st.apply(Exchange(0, (cid(107), cid(108))))
    st.apply(Deduce(Space("digit", 1)))
    for card in (cid(302), cid(208), cid(102), cid(203)):
        if Play(card) in st.legal_actions():
            st.apply(Play(card))
        else:
            st.apply(st.legal_actions()[0])
    while st.decision() == "deduce":
        st.apply(st.legal_actions()[0])
    with pytest.raises(IllegalAction, match="exchange department is full"):
        st.apply(Exchange(0, (st.hands[st.current_player][0],)))


@pytest.mark.parametrize("beginner", [False, True])
def test_solver_agent_plays_a_legal_match(beginner):
    import agents
    from deduce.play import play_game

    game = CrimeHotelGame(num_players=3, beginner=beginner)
    players = [agents.get("expected-points", game="crime-hotel"), agents.get("random", game="crime-hotel"), agents.get("random", game="crime-hotel")]
    record = play_game(game, players, seed=3)
    assert record.failure is None
    assert len(record.returns) == 3 and max(record.returns) == 1.0


def test_solver_agent_deduces_by_expected_points():
    """The solver's deduction is the legal space with the highest expected points under its
    exact posterior, and the posterior rules out every card it has seen."""
    import agents

    st = dealt_4p()
    first_trick(st)
    agent = agents.get("expected-points", game="crime-hotel")
    agent.reset(st.game, 2, seed=0)
    obs = st.observation(2)
    hidden, _ = agent.beliefs(obs)
    assert abs(hidden.sum() - 1) < 1e-9
    assert all(hidden[c] == 0 for c in list(st.hands[2]) + [cid(301), cid(308), cid(309)])
    action = agent.act(obs)
    values = agent.space_values(hidden)
    assert isinstance(action, Deduce)
    assert values[action.space] == max(values[a.space] for a in obs.legal_actions)


def _random_until(seed: int, num_players: int, stop) -> tuple[CrimeHotelGame, CrimeHotelState]:
    """A seeded random game played until ``stop(state)``."""
    game = CrimeHotelGame(num_players=num_players)
    st = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    while not stop(st):
        actions = st.legal_actions()
        st.apply(actions[int(rng.integers(len(actions)))])
    return game, st


@pytest.mark.slow
def test_played_cards_and_final_hands_are_public_in_the_knowledge_base():
    """Issue 20 B13 (RULES 4C/4E: every played card, and the final hands, are public): a card
    of the trick still open and a final-revealed card are at ``public`` with certainty, not at
    their owner; the number of consistent worlds is what it was before (figures measured with
    the earlier model, which kept those cards at their owners)."""
    auto = solvers.get("auto")
    game, st = _random_until(3, 4, lambda s: s.round == 1 and len(s.trick) == 2)
    pub = game.locations.index("public")
    for seat, worlds in ((0, 138600), (1, 9009000), (None, 36664828200000)):
        kb = game.knowledge(st.observation(seat))
        tally = auto.tallies(kb)
        assert tally.total == worlds and kb.epochs == 5 and kb.consistent_with(st.world())
        p = tally.marginals()
        for who, card in st.trick:
            assert p[card, pub] == 1.0 and p[card, who] == 0.0
    game, st = _random_until(5, 3, lambda s: s.finished)
    pub = game.locations.index("public")
    final = [e for e in game.current_game_events(st.events) if type(e).__name__ == "FinalRevealed"]
    assert final
    for seat, worlds in ((0, 1), (2, 1), (None, 16)):
        kb = game.knowledge(st.observation(seat))
        tally = auto.tallies(kb)
        assert tally.total == worlds and kb.consistent_with(st.world())
        p = tally.marginals()
        for e in final:
            assert p[e.card, pub] == 1.0 and p[e.card, e.player] == 0.0
