"""Hostile input: malformed, truncated, oversized and wrong-typed logs and replays fail with a
clear LogError (never another exception, never a hang); knowledge bases round-trip exactly."""

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solvers
from deduce import KnowledgeBase, LogError
from deduce.logs import MAX_EVENTS, load_log
from deduce.replay import load_replay, save_replay
from tests.strategies import small_kbs

VALID = {
    "game": "clue",
    "players": ["ann", "bob", "cy"],
    "me": "ann",
    "events": [
        {"type": "hand", "player": "ann", "cards": ["Rope", "Hall", "Knife", "Miss Scarlet", "Kitchen", "Study"]},
        {"type": "suggestion", "by": "ann", "cards": ["Mr. Green", "Wrench", "Lounge"], "refuted_by": "cy", "shown": "Lounge"},
        {"type": "suggestion", "by": "bob", "cards": ["Mrs. Peacock", "Wrench", "Library"], "refuted_by": None},
        {"type": "accusation", "by": "bob", "cards": ["Mrs. Peacock", "Wrench", "Library"], "correct": False},
        {"type": "card_at", "card": "Hall", "at": "ann"},
    ],
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 30) | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["ann", "bob", "Rope", "Hall", "envelope", "extra", "suggestion", "hand", "clue"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_logs(draw):
    """A valid log with one field anywhere replaced by arbitrary JSON (or removed)."""
    log = copy.deepcopy(VALID)
    paths = [("game",), ("players",), ("me",), ("events",)]
    for i, event in enumerate(log["events"]):
        paths.append(("events", i))
        paths += [("events", i, k) for k in event]
    path = draw(st.sampled_from(paths))
    target = log
    for key in path[:-1]:
        target = target[key]
    if draw(st.booleans()) and isinstance(target, dict):
        target.pop(path[-1], None)
    else:
        target[path[-1]] = draw(json_values)
    return log


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(log=mutated_logs())
@pytest.mark.slow
def test_mutated_logs_load_or_fail_clearly(log):
    try:
        load_log(log)
    except LogError as exc:
        assert str(exc)


@settings(max_examples=500)
@given(data=json_values)
def test_arbitrary_json_fails_clearly(data):
    with pytest.raises(LogError):
        load_log(json.dumps(data) if isinstance(data, dict) else {"game": data})


@settings(max_examples=300)
@given(cut=st.integers(1, len(json.dumps(VALID)) - 1))
def test_truncated_logs(cut):
    with pytest.raises(LogError):
        load_log(json.dumps(VALID)[:cut])


def test_oversized_log_is_refused_without_parsing_events():
    log = copy.deepcopy(VALID)
    log["events"] = [{"type": "card_at", "card": "Rope", "at": "ann"}] * (10**6)
    with pytest.raises(LogError, match=f"more than the limit of {MAX_EVENTS}"):
        load_log(log, check=solvers.get("cpsat"))


def test_deeply_nested_json():
    with pytest.raises(LogError):
        load_log('{"game": ' + "[" * 100_000 + "]" * 100_000 + "}", check=solvers.get("cpsat"))


@st.composite
def mutated_replays(draw):
    import deduce

    game = deduce.make("clue", num_players=3)
    state = game.new_initial_state(1)
    actions = []
    for _ in range(6):
        action = state.legal_actions()[0]
        state.apply(action)
        actions.append(action)
    log = save_replay(game, 1, actions)
    i = draw(st.integers(0, len(log["actions"]) - 1))
    key = draw(st.sampled_from(sorted(log["actions"][i])))
    log["actions"][i][key] = draw(json_values)
    return log


@settings(max_examples=800)
@given(log=mutated_replays())
@pytest.mark.slow
def test_mutated_replays_load_or_fail_clearly(log):
    try:
        load_replay(log)
    except LogError as exc:
        assert str(exc)


@settings(max_examples=200)
@given(kb=small_kbs())
def test_knowledge_base_json_round_trip_is_exact(kb):
    again = KnowledgeBase.from_json(json.loads(json.dumps(kb.to_json())))
    assert again == kb and again.sources == kb.sources
