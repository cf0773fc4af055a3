"""Clue rules (RULES.md §5): deal modes, refutation, accusations, elimination, illegal actions."""

import pytest

import deduce
from deduce.errors import IllegalAction
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueConfig,
    ClueGame,
    ClueState,
    EndTurn,
    EnvelopeSeen,
    ExtraSeen,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
    refute_order,
)


def card(game, name):
    return game.deck.card(name).id


def test_deal_modes_follow_the_rules():
    for n in range(3, 7):
        g = ClueGame(num_players=n)
        s = g.new_initial_state(1)
        assert [len(h) for h in s.hands] == [18 // n] * n
        assert len(s.extra) == 18 % n
        assert g.config.hand_sizes() == (18 // n,) * n
        classic = ClueGame(num_players=n, deal_mode="all")
        t = classic.new_initial_state(1)
        assert sum(len(h) for h in t.hands) == 18 and not t.extra
        assert [len(h) for h in t.hands] == sorted((len(h) for h in t.hands), reverse=True)
    s = ClueGame(num_players=4).new_initial_state(7)
    assert sorted(s.world().tolist()).count(4) == 3  # envelope holds three cards


def test_public_leftover_is_revealed_to_everyone():
    g = ClueGame(num_players=4, deal_mode="equal_leftover_public")
    s = g.new_initial_state(2)
    for p in range(4):
        kb = g.knowledge(s.observation(p))
        assert kb.consistent_with(s.world())
        assert any(type(e).__name__ == "ExtraRevealed" for e in s.observation(p).events)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError):
        ClueConfig(num_players=2)
    with pytest.raises(ValueError):
        ClueConfig(deal_mode="weird")
    with pytest.raises(deduce.UnknownName):
        deduce.make("clue", colour="red")


def fixed_game(**cfg):
    g = ClueGame(num_players=3, **cfg)
    d = g.deck
    ids = lambda *names: [d.card(n).id for n in names]  # noqa: E731
    env = ids("Miss Scarlet", "Rope", "Hall")
    hands = [
        ids("Colonel Mustard", "Knife", "Kitchen", "Ballroom", "Conservatory", "Dining Room"),
        ids("Mrs. White", "Lead Pipe", "Billiard Room", "Library", "Lounge", "Study"),
        ids("Mr. Green", "Mrs. Peacock", "Professor Plum", "Candlestick", "Revolver", "Wrench"),
    ]
    return g, ClueState.from_deal(g, env, hands), ids


def test_first_able_player_refutes_privately():
    g, s, ids = fixed_game()
    # p1 holds Lead Pipe only (forced); p2 would also match Mr. Green but is never asked
    s.apply(Suggest(tuple(ids("Mr. Green", "Lead Pipe", "Hall"))))
    ev = s.events[-1]
    assert isinstance(ev, Suggestion)
    assert ev.passed == () and ev.refuters == (1,) and ev.shown == (ids("Lead Pipe")[0],)
    assert s.observation(0).events[-1].shown == ev.shown  # the suggester sees it
    assert s.observation(2).events[-1].shown == (None,)  # the third player does not
    assert s.observation(None).events[-1].shown == (None,)
    assert s.legal_actions()[0] == EndTurn()


def test_refuter_chooses_when_it_holds_several():
    g, s, ids = fixed_game()
    s.apply(Suggest(tuple(ids("Mrs. White", "Lead Pipe", "Kitchen"))))  # p1 holds White and Pipe
    assert s.current_player == 1
    obs = s.observation(1)
    assert obs.to_refute == (0, tuple(ids("Mrs. White", "Lead Pipe", "Kitchen")))
    assert set(obs.legal_actions) == {Show(c) for c in ids("Mrs. White", "Lead Pipe")}
    with pytest.raises(IllegalAction, match="must show"):
        s.apply(Show(ids("Kitchen")[0]))
    s.apply(Show(ids("Mrs. White")[0]))
    assert s.current_player == 0 and s.events[-1].shown == tuple(ids("Mrs. White"))


def test_passes_are_recorded_and_nobody_refutes():
    g, s, ids = fixed_game()
    s.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Kitchen"))))  # only the suggester holds Kitchen
    ev = s.events[-1]
    assert ev.passed == (1, 2) and ev.refuters == ()


def test_refute_order_goes_left_round_the_table_without_the_asker():
    assert refute_order(0, 3) == [1, 2]
    assert refute_order(2, 4) == [3, 0, 1]
    assert refute_order(5, 6) == [0, 1, 2, 3, 4]


def test_refute_all_asks_everyone():
    g, s, ids = fixed_game(refute_all=True)
    s.apply(Suggest(tuple(ids("Mr. Green", "Lead Pipe", "Hall"))))
    ev = s.events[-1]
    assert ev.refuters == (1, 2)


def test_wrong_accuser_is_eliminated_but_still_refutes():
    g, s, ids = fixed_game()
    s.apply(Accuse(tuple(ids("Mr. Green", "Rope", "Hall"))))
    assert isinstance(s.events[-2], Accusation) and not s.events[-2].correct
    assert isinstance(s.events[-1], EnvelopeSeen)
    assert s.observation(1).events[-1] == s.events[-2]  # others see the accusation, not the envelope
    assert s.current_player == 1 and 0 in s.eliminated


def test_eliminated_player_refutes_in_seat_order():
    g, s, ids = fixed_game()
    s.apply(Accuse(tuple(ids("Mr. Green", "Rope", "Hall"))))  # p0 out
    assert s.current_player == 1
    s.apply(Suggest(tuple(ids("Colonel Mustard", "Rope", "Hall"))))  # p2 passes, p0 shows Mustard
    ev = s.events[-1]
    assert ev.passed == (2,) and ev.refuters == (0,)


def test_correct_accusation_wins_and_ends_the_game():
    g, s, ids = fixed_game()
    s.apply(Accuse(tuple(ids("Miss Scarlet", "Rope", "Hall"))))
    assert s.is_terminal() and s.returns() == [1.0, 0.0, 0.0]
    with pytest.raises(IllegalAction, match="over"):
        s.apply(EndTurn())


def test_game_ends_when_everyone_is_eliminated():
    g, s, ids = fixed_game()
    for _ in range(3):
        s.apply(Accuse(tuple(ids("Mr. Green", "Rope", "Hall"))))
    assert s.is_terminal() and s.returns() == [0.0, 0.0, 0.0]
    assert s.winners() == ()  # nobody wins: all 0 is no shared win (issue 20 B1)


def test_last_player_wins_variant():
    g, s, ids = fixed_game(last_player_wins=True)
    s.apply(Accuse(tuple(ids("Mr. Green", "Rope", "Hall"))))
    s.apply(Accuse(tuple(ids("Mr. Green", "Rope", "Hall"))))
    assert s.is_terminal() and s.returns() == [0.0, 0.0, 1.0] and s.winners() == (2,)


def test_no_suggestion_twice_or_from_the_same_room_next_turn():
    g, s, ids = fixed_game()
    s.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Kitchen"))))
    with pytest.raises(IllegalAction, match="already suggested"):
        s.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Hall"))))
    s.apply(EndTurn())
    for _ in range(2):  # players 1 and 2 suggest, then it is player 0's turn again
        s.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Hall"))))
        if s.current_player != s.turn_player:
            s.apply(s.legal_actions()[0])
        s.apply(EndTurn())
    assert s.current_player == 0
    with pytest.raises(IllegalAction, match="last turn"):
        s.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Kitchen"))))
    assert s.observation(0).barred_room == ids("Kitchen")[0]


def test_viewing_the_leftover_pile_commits_to_an_accusation():
    g = ClueGame(num_players=4)
    s = g.new_initial_state(3)
    assert ViewExtra() in s.legal_actions()
    s.apply(ViewExtra())
    seen = s.events[-1]
    assert isinstance(seen, ExtraSeen) and seen.cards == s.extra
    assert s.observation(1).events[-1].cards is None  # others see only that it happened
    assert all(isinstance(a, Accuse) for a in s.legal_actions())


def test_suggestion_must_name_one_card_per_category():
    g, s, ids = fixed_game()
    with pytest.raises(IllegalAction):
        s.apply(Suggest(tuple(ids("Hall", "Rope", "Kitchen"))))


def test_clone_is_independent():
    g, s, ids = fixed_game()
    t = s.clone()
    t.apply(Suggest(tuple(ids("Miss Scarlet", "Rope", "Kitchen"))))
    assert len(t.events) == len(s.events) + 1 and s.phase == "start"


def test_turn_limit_ends_the_game_without_a_winner():
    g = ClueGame(num_players=3, max_turns=2)
    s = g.new_initial_state(0)
    for _ in range(2):
        s.apply(next(a for a in s.legal_actions() if isinstance(a, Suggest)))
        while s.current_player != s.turn_player:
            s.apply(s.legal_actions()[0])
        s.apply(EndTurn())
    assert s.is_terminal() and s.returns() == [0.0, 0.0, 0.0] and s.winners() == ()
