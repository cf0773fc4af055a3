"""The Checkpoint Charlie game-log format: reading, exporting, and clear errors for bad input."""

import copy

import pytest

import solvers
from deduce import LogError
from deduce.games.checkpoint_charlie.log import CAT_NAMES
from deduce.games.checkpoint_charlie.rules import face
from deduce.logs import export_log, load_log, read_log, view_knowledge
from tests.apps.assist.test_session import played as seeded_game

HGOCN = "hat, glasses, orange, coat, newspaper"
LOG = {
    "game": "checkpoint-charlie",
    "players": ["ann", "bob", "cy"],
    "me": "ann",
    "events": [
        {"type": "round", "starter": "ann"},
        {"type": "side", "player": "ann", "face": "hat"},
        {"type": "side", "player": "bob"},
        {"type": "side", "player": "cy"},
        {"type": "flip", "player": "ann", "cat": HGOCN, "kept": True},
        {"type": "flip", "player": "bob", "cat": "bare ears, bare eyes, grey, sweater, newspaper", "kept": False},
        {"type": "hound", "player": "cy", "face": "orange"},
        {"type": "arrest", "player": "bob", "cat": HGOCN, "row": "ann"},
    ],
}


def with_events(*extra):
    log = copy.deepcopy(LOG)
    log["events"] += list(extra)
    return log


def played(seed, steps, **config):
    return seeded_game("checkpoint-charlie", seed, steps, **config)


def test_the_view_is_rebuilt_from_the_events():
    game, obs = read_log(LOG)
    hgocn = CAT_NAMES.index(HGOCN)
    assert (obs.round, obs.phase, obs.my_feature, obs.my_side) == (1, "poll", 0, 1)
    assert obs.kept == ((hgocn,), (), ()) and obs.arrests == (None, hgocn, None)
    assert obs.revealed == ((2, 1),) and obs.hounds_left == 1 and obs.deck_size == 34 - 3
    kb = view_knowledge(game, obs)
    assert kb.sources[-1] == "event 6"  # every constraint names its log event


@pytest.mark.parametrize("players,seed,steps", [(3, 2, 30), (4, 7, 12), (5, 4, 200), (4, 5, 400)])
def test_export_and_read_back_give_the_engines_own_knowledge(players, seed, steps):
    game, state = played(seed, steps, num_players=players)
    exact = solvers.get("exact")
    for seat in (0, 1, None):
        obs = state.observation(seat)
        log = export_log(game, obs)
        game2, obs2 = read_log(log)
        ours, theirs = game2.knowledge(obs2), game.knowledge(obs)
        assert set(ours.constraints) == set(theirs.constraints)
        assert exact.tallies(ours) == exact.tallies(theirs)
        assert exact.tallies(view_knowledge(game2, obs2)) == exact.tallies(theirs)
        for field in ("round", "starter", "phase", "my_feature", "my_side", "kept", "discarded", "arrests",
                      "revealed", "deck_size", "hounds_left", "unseen_cats", "my_tokens", "colours", "pool_left"):
            assert getattr(obs2, field) == getattr(obs, field), field
        assert export_log(game2, obs2) == log
        load_log(log, check=solvers.get("cpsat"))  # every round's events check out against that round's knowledge


BAD = [
    ({"type": "side", "player": "bob"}, "bob already hid a token this round"),
    ({"type": "flip", "player": "cy", "cat": HGOCN, "kept": True}, "that cat was already flipped at event 4"),
    ({"type": "flip", "player": "cy", "cat": "hat, glasses", "kept": True}, "unknown cat 'hat, glasses'"),
    ({"type": "flip", "player": "cy", "cat": None, "kept": True}, "a kept cat stays face up: name it"),
    ({"type": "hound", "player": "cy", "face": "tail"}, "unknown token face 'tail'"),
    ({"type": "arrest", "player": "cy", "cat": CAT_NAMES[0], "row": "bob"}, "that cat is not face up in bob's row"),
    ({"type": "arrest", "player": "bob", "cat": HGOCN, "row": "ann"}, "bob already arrested a cat this round"),
    ({"type": "arrest", "player": "cy", "cat": HGOCN, "row": "ann"}, "that cat is already arrested"),
    ({"type": "clue", "player": "bob", "feature": "ears"}, "only bob sees which token they drew"),
    ({"type": "scored", "player": "bob", "colour": "gold", "value": 3}, "known only to the player who drew it"),
    ({"type": "scored", "player": "ann", "colour": "green"}, "unknown colour 'green'"),
    ({"type": "verified", "clues": {"ann": "hat"}, "bag": []}, "'clues' must map every player"),
    ({"type": "teleport"}, "unknown event type 'teleport'"),
]


@pytest.mark.parametrize("event,message", BAD)
def test_bad_events_name_the_event(event, message):
    with pytest.raises(LogError) as info:
        read_log(with_events(event))
    assert str(info.value).startswith("event 8 (") and message in str(info.value)


def test_rounds_hounds_and_hidden_sides():
    with pytest.raises(LogError, match="event 0 .*must start with a 'round' event"):
        read_log({**LOG, "events": LOG["events"][1:]})
    with pytest.raises(LogError, match="event 1 .*only bob sees which face"):
        read_log({**LOG, "events": [LOG["events"][0], {"type": "side", "player": "bob", "face": "hat"}]})
    with pytest.raises(LogError, match="event 1 .*give the face you put up"):
        read_log({**LOG, "events": [LOG["events"][0], {"type": "side", "player": "ann"}]})
    two = with_events({"type": "hound", "player": "cy", "face": "coat"})
    read_log(two)
    with pytest.raises(LogError, match="event 9 .*only 2 hound card"):
        read_log({**two, "events": two["events"] + [{"type": "hound", "player": "cy", "face": "newspaper"}]})
    # a new round forgets the old one's cats and arrests
    _, obs = read_log(with_events({"type": "round", "starter": "bob"},
                                  {"type": "flip", "player": "bob", "cat": HGOCN, "kept": False}))
    assert obs.round == 2 and obs.kept == ((), (), ()) and obs.arrests == (None, None, None)


def test_a_contradiction_names_the_earlier_event():
    # ann has hat up (event 1); a kept cat without a hat is impossible for her
    bad = with_events({"type": "flip", "player": "ann", "cat": CAT_NAMES[2], "kept": True})
    with pytest.raises(LogError, match=r"event 8 .* contradicts event 1"):
        load_log(bad, check=solvers.get("cpsat"))
    kb = load_log(LOG, check=solvers.get("cpsat"))
    assert solvers.get("exact").tallies(kb).cells[face(0, 1)][0] == solvers.get("exact").tallies(kb).total


@pytest.mark.parametrize("header,message", [
    ({"players": ["ann", "bob"]}, "num_players=2: Checkpoint Charlie needs 3 to 5 players"),
    ({"players": ["ann", "bob", "bag"]}, "'bag' is not a player name"),
    ({"me": "zed"}, "unknown player 'zed' in 'me'"),
    ({"target_score": 5}, "unknown key(s) 'target_score'"),
])
def test_bad_headers(header, message):
    with pytest.raises(LogError) as info:
        read_log({**copy.deepcopy(LOG), "events": [], **header})
    assert str(info.value).startswith("log header: ") and message in str(info.value)


def test_nothing_is_flipped_or_arrested_once_the_round_has_ended():
    """Issue 20 B12 (seed: the round ends when only one investigator has not arrested)."""
    hat = "hat, bare eyes, grey, sweater, newspaper"
    ended = with_events({"type": "flip", "player": "ann", "cat": hat, "kept": True},
                        {"type": "arrest", "player": "cy", "cat": hat, "row": "ann"})
    read_log(ended)
    for late, what in (({"type": "flip", "player": "bob", "cat": CAT_NAMES[31], "kept": False}, "flip"),
                       ({"type": "hound", "player": "bob", "face": "coat"}, "hound"),
                       ({"type": "arrest", "player": "ann", "cat": HGOCN, "row": "ann"}, "arrest")):
        with pytest.raises(LogError, match=rf"event 10 \(.*\"type\": \"{what}\".*\): the round ended at event 9: only ann "
                                           r"had not arrested; verify it \('verified'\) or start the next"):
            read_log({**ended, "events": ended["events"] + [late]})
