"""The Clue game-log format: reading, exporting, and clear errors for bad input."""

import copy
import json

import numpy as np
import pytest

import solvers
from deduce import LogError
from deduce.games.clue.rules import ClueGame
from deduce.logs import export_log, load_log, read_log

LOG = {
    "game": "clue",
    "players": ["ann", "bob", "cy"],
    "me": "ann",
    "events": [
        {"type": "hand", "player": "ann", "cards": ["Rope", "Hall", "Knife", "Miss Scarlet", "Kitchen", "Study"]},
        {"type": "suggestion", "by": "ann", "cards": ["MrGreen", "Wrench", "Lounge"], "refuted_by": "cy", "shown": "Lounge"},
        {"type": "suggestion", "by": "bob", "cards": ["Mrs. Peacock", "Wrench", "Library"], "refuted_by": None},
        {"type": "suggestion", "by": "cy", "cards": ["Professor Plum", "Candlestick", "Ballroom"], "refuted_by": "bob"},
        {"type": "accusation", "by": "bob", "cards": ["Mrs. Peacock", "Wrench", "Library"], "correct": False},
        {"type": "card_not_at", "card": "Revolver", "at": "envelope"},
    ],
}


def with_events(*extra):
    log = copy.deepcopy(LOG)
    log["events"] += list(extra)
    return log


def test_log_maps_to_the_expected_constraints():
    kb = load_log(LOG, check=solvers.get("cpsat"))
    possible = solvers.get("cpsat").possible(kb)
    ann, bob, cy, env = (kb.loc(n) for n in ("ann", "bob", "cy", "envelope"))
    assert possible[kb.card("Lounge")].tolist() == [False, False, True, False]
    # bob's unrefuted suggestion: ann and cy hold none of the three
    for name in ("Mrs. Peacock", "Wrench", "Library"):
        assert not possible[kb.card(name), cy] and not possible[kb.card(name), ann]
    assert not possible[kb.card("Revolver"), env]


def test_players_strictly_between_suggester_and_refuter_pass():
    log = copy.deepcopy(LOG)
    log["events"] = [{"type": "suggestion", "by": "cy", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": "bob"}]
    game, obs = read_log(log)
    assert obs.events[0].passed == (0,) and obs.events[0].refuters == (1,)


def test_spectator_log_has_no_hand():
    log = copy.deepcopy(LOG)
    del log["me"]
    log["events"] = [e for e in log["events"] if e["type"] != "hand" and "shown" not in e]
    kb = load_log(log, check=solvers.get("cpsat"))
    game, obs = read_log(log)
    assert obs.player is None and obs.hand == ()
    assert kb.num_locations == 4


def test_export_and_read_back_give_the_same_knowledge():
    game = ClueGame(num_players=4)
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        if state.is_terminal():
            break
        acts = [a for a in state.legal_actions() if type(a).__name__ not in ("Accuse", "ViewExtra")]
        state.apply(acts[rng.integers(len(acts))])
    for p in (0, 2, None):
        obs = state.observation(p)
        log = json.loads(json.dumps(export_log(game, obs)))
        g2, obs2 = read_log(log)
        kb1, kb2 = game.knowledge(obs), g2.knowledge(obs2)
        assert kb1.fingerprint() == kb2.fingerprint()


@pytest.mark.parametrize(
    "event, message",
    [
        ({"type": "suggestion", "by": "cy", "cards": ["Hall", "Rope", "Lounge"], "refuted_by": None}, "two room cards"),
        ({"type": "suggestion", "by": "cy", "cards": ["Mr. Green", "Rope"], "refuted_by": None}, "three cards"),
        ({"type": "suggestion", "by": "dan", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": None}, "unknown player 'dan'"),
        ({"type": "suggestion", "by": "cy", "cards": ["Mr. Grene", "Rope", "Hall"], "refuted_by": None}, "unknown card 'Mr. Grene'"),
        ({"type": "suggestion", "by": "cy", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": "cy"}, "its own suggestion"),
        ({"type": "suggestion", "by": "cy", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": "bob", "shown": "Rope"}, "neither"),
        ({"type": "suggestion", "by": "bob", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": "cy"}, "eliminated by a wrong accusation at event 4"),
        ({"type": "accusation", "by": "bob", "cards": ["Mr. Green", "Rope", "Hall"], "correct": False}, "takes no more turns"),
        ({"type": "suggestion", "by": "cy", "cards": [1, "Rope", "Hall"], "refuted_by": None}, "must be a card name"),
        ({"type": "hand", "player": "cy", "cards": "Rope"}, "must be a list"),
        ({"type": "suggestion", "by": "ann", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": "cy", "shown": "Knife"}, "not one of the named"),
        ({"type": "hand", "player": "bob", "cards": ["Wrench"]}, "holds 6 cards"),
        ({"type": "accusation", "by": "bob", "cards": ["Mr. Green", "Rope", "Hall"], "correct": "yes"}, "true or false"),
        ({"type": "card_at", "card": "Rope", "at": "extra"}, "no leftover"),
        ({"type": "teleport"}, "unknown event type"),
        ({"type": "card_at", "card": "Rope", "at": "bob", "when": 3}, "unknown field"),
        ("hello", "must be an object"),
    ],
)
def test_bad_events_name_the_event(event, message):
    log = with_events(event)
    with pytest.raises(LogError) as info:
        load_log(log, check=solvers.get("cpsat"))
    text = str(info.value)
    assert text.startswith(f"event {len(LOG['events'])} (") and message in text
    assert info.value.index == len(LOG["events"])


def test_no_turns_after_the_game_ended():
    log = with_events(
        {"type": "accusation", "by": "cy", "cards": ["Mr. Green", "Rope", "Hall"], "correct": True},
        {"type": "suggestion", "by": "ann", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": None},
    )
    with pytest.raises(LogError, match="event 7 .*ended with the correct accusation of event 6"):
        load_log(log)


def test_duplicate_card_names_in_a_custom_deck():
    log = copy.deepcopy(LOG)
    log["deck"] = {"suspect": ["A", "A", "B"], "weapon": ["W", "V"], "room": ["R", "S"]}
    with pytest.raises(LogError, match="duplicate card name"):
        load_log(log, check=solvers.get("cpsat"))


def test_contradiction_names_the_earlier_event():
    log = with_events({"type": "card_at", "card": "Lounge", "at": "bob"})
    with pytest.raises(LogError, match=r"event 6 .* contradicts event 1"):
        load_log(log, check=solvers.get("cpsat"))


def test_contradiction_found_only_by_counting():
    # bob holds 6 cards; declare that bob holds none of 16 cards, leaving him 5 candidates
    names = [c.name for c in ClueGame().deck if c.name not in ("Rope", "Hall", "Knife", "Miss Scarlet", "Kitchen", "Study")]
    events = [{"type": "card_not_at", "card": n, "at": "bob"} for n in names[:10]]
    log = with_events(*events)
    with pytest.raises(LogError, match="contradicts"):
        load_log(log, check=solvers.get("cpsat"))


@pytest.mark.parametrize(
    "header, message",
    [
        ({"players": ["ann", "ann", "cy"]}, "distinct"),
        ({"players": ["ann", "bob"]}, "3 to 6 players"),
        ({"hand_sizes": [7, 7, 7]}, "add up to 21"),
        ({"hand_sizes": [6, 6]}, "one non-negative integer per player"),
        ({"me": "zed"}, "unknown player 'zed'"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"deck": {"suspect": ["A"]}}, "'deck' must map"),
        ({"colour": 1}, "unknown key"),
    ],
)
def test_bad_headers(header, message):
    log = copy.deepcopy(LOG)
    log.update(header)
    with pytest.raises(LogError, match=message):
        load_log(log, check=solvers.get("cpsat"))


def test_malformed_json_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "clue", "players": [')
    with pytest.raises(LogError, match="malformed JSON at line 1"):
        load_log(bad, check=solvers.get("cpsat"))
    with pytest.raises(LogError, match="cannot read"):
        load_log(tmp_path / "missing.json", check=solvers.get("cpsat"))
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]")
    with pytest.raises(LogError, match="JSON object"):
        load_log(arr, check=solvers.get("cpsat"))


def test_custom_deck_and_hand_sizes():
    log = {
        "game": "clue",
        "players": ["a", "b", "c"],
        "deck": {"suspect": ["S1", "S2"], "weapon": ["W1", "W2"], "room": ["R1", "R2", "R3"]},
        "hand_sizes": [1, 1, 1],
        "me": "a",
        "events": [{"type": "hand", "player": "a", "cards": ["S1"]}],
    }
    kb = load_log(log, check=solvers.get("cpsat"))
    assert "extra" in kb.locations
    assert solvers.get("brute").count(kb) == solvers.get("cpsat").count(kb) > 0
