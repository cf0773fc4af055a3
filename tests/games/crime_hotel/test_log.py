"""The Crime Hotel game-log format: reading, exporting, and clear errors for bad input."""

import copy

import pytest

import solvers
from deduce import LogError
from deduce.games.crime_hotel.rules import Space
from deduce.logs import export_log, load_log, read_log, view_knowledge
from tests.apps.assist.test_session import played as seeded_game

LOG = {
    "game": "crime-hotel",
    "players": ["ann", "bob", "cy", "dee"],
    "me": "ann",
    "events": [
        {"type": "game", "leader": "ann", "revealed": ["104", "207"]},
        {"type": "hand", "player": "ann", "cards": ["101", "105", "203", "206", "302", "309"]},
        {"type": "play", "player": "ann", "card": "105"},
        {"type": "play", "player": "bob", "card": "108"},
        {"type": "play", "player": "cy", "card": "201"},
        {"type": "play", "player": "dee", "card": "102"},
        {"type": "trick"},
        {"type": "deduce", "player": "bob", "space": "digit 5"},
        {"type": "exchange", "actor": "cy", "target": "ann", "k": 1, "given": ["301"], "taken": ["203"]},
        {"type": "check", "actor": "dee", "target": "bob", "k": 2},
        {"type": "move", "player": "bob", "from": "digit 5", "to": "room 305"},
    ],
}


def with_events(*extra):
    log = copy.deepcopy(LOG)
    log["events"] += list(extra)
    return log


def played(seed, steps, **config):
    return seeded_game("crime-hotel", seed, steps, **config)


def test_the_view_is_rebuilt_from_the_events():
    game, obs = read_log(LOG)
    assert list(game.deck.names(obs.hand)) == ["101", "206", "301", "302", "309"]  # 105 played, 203 swapped for 301
    assert obs.round == 1 and obs.trick == () and obs.parking == (2, 1, 0, 3)
    assert obs.board == ((Space("room", game.deck.card("305").id), 1),)
    kb = view_knowledge(game, obs)
    assert kb.epochs == 3 and kb.sources[-1] == "event 8"  # dee's check of bob shows ann nothing


@pytest.mark.parametrize("players,seed,steps,config", [
    (4, 3, 25, {}), (3, 4, 60, {"leftover": "box"}), (4, 5, 140, {}), (3, 6, 80, {"beginner": True}),
])
@pytest.mark.slow
def test_export_and_read_back_give_the_engines_own_knowledge(players, seed, steps, config):
    game, state = played(seed, steps, num_players=players, **config)
    auto = solvers.get("auto")
    for seat in (0, 1, None):
        obs = state.observation(seat)
        log = export_log(game, obs)
        game2, obs2 = read_log(log)
        ours, theirs = view_knowledge(game2, obs2), game.knowledge(obs)
        assert set(ours.constraints) == set(theirs.constraints) and ours.epochs == theirs.epochs
        assert auto.tallies(ours) == auto.tallies(theirs)
        for field in ("hand", "hand_sizes", "round", "trick", "led", "board"):
            assert getattr(obs2, field) == getattr(obs, field), field
        assert export_log(game2, obs2) == log
        load_log(log, check=solvers.get("cpsat"))


BAD = [
    ({"type": "play", "player": "ann", "card": "105"}, "105 was already played at event 2"),
    ({"type": "play", "player": "ann", "card": "999"}, "unknown card '999'"),
    ({"type": "trick"}, "a trick closes after every player played; 0 played"),
    ({"type": "deduce", "player": "bob", "space": "digit 12"}, "unknown space 'digit 12'"),
    ({"type": "move", "player": "cy", "from": "room 305", "to": "floor 1"}, "cy has no meeple on room 305"),
    ({"type": "exchange", "actor": "cy", "target": "dee", "k": 1, "given": ["303"], "taken": ["304"]},
     "only cy and dee see those cards"),
    ({"type": "check", "actor": "bob", "target": "ann", "k": 1}, "you took part: give 'cards'"),
    ({"type": "check", "actor": "bob", "target": "bob", "k": 1}, "one exchanges with, or checks, another player"),
    ({"type": "check", "actor": "bob", "target": "cy", "k": 0}, "'k' must be a number of cards"),
    ({"type": "hand", "player": "bob", "cards": ["303"]}, "'cards' must list 6 card(s), not 1"),
    ({"type": "suggestion"}, "unknown event type 'suggestion'"),
]


@pytest.mark.parametrize("event,message", BAD)
def test_bad_events_name_the_event(event, message):
    with pytest.raises(LogError) as info:
        read_log(with_events(event))
    assert str(info.value).startswith("event 11 (") and message in str(info.value)


def test_one_card_per_player_per_trick_and_games_start_clean():
    with pytest.raises(LogError, match="event 12 .*cy already played to this trick"):
        read_log(with_events({"type": "play", "player": "cy", "card": "303"},
                             {"type": "play", "player": "cy", "card": "304"}))
    with pytest.raises(LogError, match="event 0 .*must start with a 'game' event"):
        read_log({**LOG, "events": LOG["events"][1:]})
    with pytest.raises(LogError, match="'revealed' must list 2 card"):
        read_log({**LOG, "events": [{"type": "game", "leader": "ann", "revealed": []}]})
    _, obs = read_log(with_events({"type": "game", "leader": "bob", "revealed": ["301", "302"]}))
    assert obs.game_index == 1 and obs.board == () and obs.round == 0


def test_a_contradiction_names_the_earlier_event():
    # 104 is lit on the board (event 0): bob cannot show it to ann from his hand
    bad = with_events({"type": "check", "actor": "ann", "target": "bob", "k": 1, "cards": ["104"]})
    with pytest.raises(LogError, match=r"event 11 .* contradicts event 0"):
        load_log(bad, check=solvers.get("cpsat"))
    load_log(LOG, check=solvers.get("cpsat"))


def test_a_trick_is_led_by_whoever_took_the_last_one_and_played_clockwise():
    """Issue 20 B7 (seed: the police-car holder, i.e. the last trick's highest card, leads the
    next round; the others follow clockwise): cy took trick 1 with 201, so ann may not lead."""
    with pytest.raises(LogError, match=r"event 11 \(.*\): ann cannot lead this trick: cy leads it \(cy took the last trick\)"):
        read_log(with_events({"type": "play", "player": "ann", "card": "101"}))
    with pytest.raises(LogError, match=r"event 12 .*bob cannot play now: dee plays next"):
        read_log(with_events({"type": "play", "player": "cy", "card": "303"},
                             {"type": "play", "player": "bob", "card": "304"}))
    first = {**LOG, "events": LOG["events"][:2] + [{"type": "play", "player": "bob", "card": "108"}]}
    with pytest.raises(LogError, match=r"event 2 .*bob cannot lead this trick: ann leads it \(the game's leader\)"):
        read_log(first)
    _, obs = read_log(with_events({"type": "play", "player": "cy", "card": "303"},
                                  {"type": "play", "player": "dee", "card": "304"}))
    assert [p for p, _ in obs.trick] == [2, 3]
    with pytest.raises(LogError, match=r"event 12 .*the trick is still open \(1 of 4 played\)"):
        read_log(with_events({"type": "play", "player": "cy", "card": "303"},
                             {"type": "check", "actor": "dee", "target": "bob", "k": 2}))
