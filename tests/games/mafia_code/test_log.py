"""The Mafia Code game-log format: reading, exporting, and clear errors for bad input."""

import copy

import pytest

import solvers
from deduce import LogError
from deduce.logs import export_log, load_log, read_log
from tests.apps.assist.test_session import played as seeded_game

HAND = ["red A", "red B", "yellow C", "green D", "green E", "blue C", "blue E", "purple F", "white A", "white B"]
LOG = {
    "game": "mafia-code",
    "players": ["ann", "bob", "cy"],
    "me": "ann",
    "events": [
        {"type": "hand", "player": "ann", "cards": HAND},
        {"type": "code", "roller": "ann", "colour": "red", "letter": "B", "counts": {"ann": 3, "bob": 2, "cy": 4}},
        {"type": "code", "roller": "bob", "colour": "white", "letter": "D", "counts": {"bob": 2}},
        {"type": "guess", "by": "bob", "target": "cy", "card": "red C", "hit": True},
        {"type": "guess", "by": "bob", "target": "ann", "card": "yellow A", "hit": False},
    ],
}


def with_events(*extra):
    log = copy.deepcopy(LOG)
    log["events"] += list(extra)
    return log


def played(seed, steps, **config):
    return seeded_game("mafia-code", seed, steps, **config)


def test_the_view_is_rebuilt_from_the_events():
    game, obs = read_log(LOG)
    assert obs.player == 0 and set(game.deck.names(obs.hand)) == set(HAND)
    assert obs.revealed == ((), (), (game.deck.card("red C").id,))
    assert obs.crossed == ((game.deck.card("yellow A").id,), (), ())
    assert obs.scores == (0, 1, 0)
    assert dict(((colour, letter), k) for colour, letter, k in obs.cells[1]) == {(0, 1): 2, (5, 3): 2}
    assert not obs.terminal and len(obs.events) == len(LOG["events"])


@pytest.mark.parametrize("seed,steps,config", [
    (3, 25, {"num_players": 3}),
    (5, 10, {"num_players": 4}),
    (8, 3, {"num_players": 2, "colours": ("red", "blue", "green", "white"), "letters": ("A", "B", "C", "D"),
            "expert": True}),
])
def test_export_and_read_back_give_the_engines_own_knowledge(seed, steps, config):
    game, state = played(seed, steps, **config)
    small = len(game.deck) <= 16
    for seat in (0, 1, None) if small else (0, 1):
        obs = state.observation(seat)
        log = export_log(game, obs)
        game2, obs2 = read_log(log)
        ours, theirs = game2.knowledge(obs2), game.knowledge(obs)
        # the same constraints (circling and turn ends add none), hence the same marginals
        assert set(ours.constraints) == set(theirs.constraints)
        exact = solvers.get("exact")
        assert exact.tallies(ours) == exact.tallies(theirs)
        assert (obs2.revealed, obs2.crossed, obs2.scores, obs2.circled, obs2.terminal) == (
            obs.revealed, obs.crossed, obs.scores, obs.circled, obs.terminal)
        assert {frozenset(s) for s in obs2.cells} == {frozenset(s) for s in obs.cells}
        assert obs2.hand == obs.hand and obs2.player == obs.player
        assert export_log(game2, obs2) == log


BAD = [
    ({"type": "code", "roller": "ann", "colour": "pink", "letter": "B", "counts": {"ann": 1}}, "unknown colour 'pink'"),
    ({"type": "code", "roller": "ann", "colour": "red", "letter": "B", "counts": {"ann": 2}},
     "ann already wrote 3 for red B at event 1"),
    ({"type": "code", "roller": "ann", "colour": "red", "letter": "C", "counts": {"bob": 1}},
     "written by every player (the opening round) or by the roller alone"),
    ({"type": "code", "roller": "ann", "colour": "red", "letter": "C", "counts": {"ann": 12}},
     "ann's count must be a whole number from 0 to 10"),
    ({"type": "code", "roller": "ann", "colour": "red", "letter": "C", "counts": {}}, "'counts' must map"),
    ({"type": "guess", "by": "ann", "target": "ann", "card": "red C", "hit": True}, "cannot guess its own cards"),
    ({"type": "guess", "by": "ann", "target": "bob", "card": "red C", "hit": True},
     "red C was already revealed by cy at event 3"),
    ({"type": "guess", "by": "ann", "target": "bob", "card": "red Z", "hit": True}, "unknown card 'red Z'"),
    ({"type": "guess", "by": "ann", "target": "zed", "card": "red D", "hit": True}, "unknown player 'zed'"),
    ({"type": "guess", "by": "ann", "target": "bob", "card": "red D", "hit": "yes"}, "'hit' must be true or false"),
    ({"type": "guess", "by": "ann", "target": "bob", "card": "red D"}, "missing field(s) 'hit'"),
    ({"type": "guess", "by": "ann", "target": "bob", "card": "red D", "hit": True, "x": 1}, "unknown field(s) 'x'"),
    ({"type": "hand", "player": "bob", "cards": ["red D"]}, "bob holds 10 cards, but 1 are listed"),
    ({"type": "suggestion"}, "unknown event type 'suggestion'; expected hand, code or guess"),
    ("code", "an event must be an object with a 'type'"),
]


@pytest.mark.parametrize("event,message", BAD)
def test_bad_events_name_the_event(event, message):
    with pytest.raises(LogError) as info:
        read_log(with_events(event))
    assert str(info.value).startswith("event 5 (")
    assert message in str(info.value)


@pytest.mark.parametrize("header,message", [
    ({"players": ["ann"]}, "num_players=1: Mafia Code needs 2 to 4 players"),
    ({"players": ["ann", "Ann"]}, "player names must be distinct"),
    ({"players": ["ann", "box"]}, "'box' is not a player name"),
    ({"colours": []}, "'colours' must be a non-empty list"),
    ({"hand_size": 0}, "'hand_size' must be a positive integer"),
    ({"hand_size": 13}, "3 hands of 13 need 39 cards; the deck has 36"),
    ({"expert": "yes"}, "'expert' must be true or false"),
    ({"me": "zed"}, "unknown player 'zed' in 'me'"),
    ({"rules": "house"}, "unknown key(s) 'rules'"),
])
def test_bad_headers(header, message):
    log = {**copy.deepcopy(LOG), "events": [], **header}
    with pytest.raises(LogError) as info:
        read_log(log)
    assert str(info.value).startswith("log header: ") and message in str(info.value)


def test_no_turns_after_a_player_revealed_every_card():
    cards = ["red A", "red B", "blue A", "blue B"]
    log = {"game": "mafia-code", "players": ["ann", "bob"], "colours": ["red", "blue"], "letters": ["A", "B"],
           "hand_size": 2, "events": [
               {"type": "guess", "by": "ann", "target": "bob", "card": cards[0], "hit": True},
               {"type": "guess", "by": "ann", "target": "bob", "card": cards[1], "hit": True},
               {"type": "guess", "by": "bob", "target": "ann", "card": cards[2], "hit": True}]}
    with pytest.raises(LogError, match=r"event 2 .*the game ended at event 1"):
        read_log(log)
    log["events"].pop()
    assert read_log(log)[1].terminal and read_log(log)[1].scores == (2, 0)


def test_a_contradiction_names_the_earlier_event():
    # cy holds red C (event 3), so cy cannot have written 0 for red C
    bad = with_events({"type": "code", "roller": "cy", "colour": "red", "letter": "C", "counts": {"cy": 0}})
    with pytest.raises(LogError, match=r"event 5 .* contradicts event 3"):
        load_log(bad, check=solvers.get("cpsat"))
    assert load_log(LOG, check=solvers.get("cpsat")) is not None
