"""``deduce assist alibi-adlung`` driven end to end through its own input and output streams."""

import json
from collections import Counter

import numpy as np

import deduce.apps.assist.alibi_adlung as assist_adlung
import solvers
from deduce.apps.assist.alibi_adlung import Uncounted, face_posterior
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.errors import TooLarge
from deduce.games.alibi_adlung.log import branches, export, face_of, faces
from deduce.logs import load_log
from solvers.timeline import TimelineCounter
from tests.apps.assist.test_session import (
    assert_lines_refused,
    played,
    saved,
    solver_for,
)
from tests.apps.assist.test_session import session as run_session

SETUP = ["ann, bob, cy", "ann", "s1 s2 s3 s4", "glasses knife bribe fat"]

#: few cards outside the row's features and no special cards, so that an exchange instead of a
#: play (which proves the three cards kept match no uncovered suspect) can contradict the log
SCARCE = {"game": "alibi-adlung", "players": ["ann", "bob", "cy"], "me": "ann", "row": ["s1", "s2", "s3", "s4"],
          "specials": {"alibi": 0, "eye": 0, "bribe": 0},
          "evidence": {"fat": 3, "thin": 3, "male": 3, "female": 3, "long_hair": 3, "short_hair": 1, "plain": 3,
                       "striped": 3, "dotted": 3, "revolver": 1, "knife": 3, "umbrella": 3, "glasses": 3,
                       "newspaper": 2, "shopping_bag": 2},
          "events": [{"type": "hand", "cards": ["newspaper", "shopping_bag", "fat", "glasses"]}]}


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one alibi-adlung session on ``lines``; returns (exit code, transcript, log path)."""
    return run_session(tmp_path, "alibi-adlung", lines, *extra, name=name)


def answer_of(text):
    """The last exact-posterior table and suspect lines in a transcript."""
    start = text.rindex("copies of each face not yet seen")
    return text[start : text.index("\n", text.index("best play", start))]


def test_setup_events_and_the_answer(tmp_path):
    lines = SETUP + ["lay bob glasses", "lay me fat got thin", "eye cy", "lay cy knife", "stop cy",
                     "swap me thin got dotted", "events", "quit"]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "the 4 face-up suspects (s1 to s12" in out and "your 4 cards (faces" in out
    assert "event 1: bob laid evidence: glasses; bob drew 1 card" in out
    assert "event 2: ann laid evidence: fat; ann drew thin" in out
    assert "event 3: cy played a watchful eye" in out
    assert "event 5: cy ended the watchful eye's extra plays; cy drew 2 cards" in out
    assert "event 6: ann exchanged thin (the single exchange); ann drew dotted" in out
    assert "copies of each face not yet seen (exact):" in out
    assert "s1 (fat long_hair male plain umbrella): 1/5 on the table" in out
    assert "best play (counting agent): " in out
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["hand", "lay", "lay", "eye", "lay", "stop", "swap"]
    assert log["events"][2] == {"type": "lay", "player": "ann", "card": "fat", "got": ["thin"]}
    load_log(path, check=solvers.get("cpsat"))


def test_contradiction_undo_redo_and_resume(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(SCARCE))
    lines = [
        "swap bob revolver",
        "exchange cy newspaper",   # cy kept three cards matching no suspect: too few are left
        "1",                       # undo event 1 and add the new one instead
        "undo",
        "redo",
        "lay bob fat",
        "quit",
    ]
    code, out, _ = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "Resumed a game with 1 events." in out
    assert "event 1: bob exchanged revolver (the single exchange)" in out
    assert ("not added: this contradicts event 0 (ann's hand: fat, glasses, newspaper, shopping bag); "
            "event 1 (bob exchanged revolver (the single exchange); bob drew 1 card)") in out
    assert "removed event 1: bob exchanged revolver (the single exchange); bob drew 1 card\nevent 1: cy exchanged newspaper instead of playing" in out
    assert "\n> undo\nremoved event 1: cy exchanged newspaper" in out
    assert "\n> redo\nevent 1: cy exchanged newspaper" in out
    assert "event 2: bob laid evidence: fat" in out
    # what the exchange proves: cy holds the last short_hair, revolver and shopping_bag
    table = answer_of(out)
    for face in ("short_hair", "revolver", "shopping_bag"):
        assert f"  {face:<13}   0.00   1.00   0.00" in table
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["hand", "exchange", "lay"]
    before = answer_of(out)

    code, out2, _ = session(tmp_path, ["grid", "lay cy short", "lay cy long", "quit"])
    assert code == 0 and "Resumed a game with 3 events." in out2
    assert answer_of(out2[: out2.index("> lay cy")]) == before
    assert "error: not added: short_hair matches no uncovered suspect in the row" in out2
    assert "event 3: cy laid evidence: long hair" in out2  # the card cy drew after the exchange
    table = answer_of(out2)
    for face in ("short_hair", "revolver", "shopping_bag"):  # still held: cy drew one card since
        assert f"  {face:<13}   0.00   1.00   0.00" in table
    assert len(saved(path)["events"]) == 4


def test_bad_input_never_changes_the_log(tmp_path):
    code, _, path = session(tmp_path, SETUP + ["lay bob glasses", "quit"])
    before = path.read_text()
    bad = {
        "lay bob tophat": "unknown card 'tophat'",
        "lay bob": "usage: lay WHO FACE [got FACES]",
        "lay me knife": "you drew 1 card(s): say which with 'got'",
        "lay bob knife got fat": "'got' is for your own draws only",
        "lay dee knife": "unknown player 'dee'",
        "alibi bob s13": "unknown suspect 's13'",
        "convict bob s1 new s5": "s1 cannot be convicted",
        "exchange cy umbrella": "but umbrella matches an uncovered suspect",
        "stop cy": "cy has no Watchful Eye open",
        "frobnicate": "unknown command 'frobnicate'",
    }
    assert_lines_refused(tmp_path, "alibi-adlung", path, before, bad)


def test_the_assistant_sees_what_the_engine_shows_the_player():
    game, state = played("alibi-adlung", 7, 30, num_players=3)
    obs = state.observation(1)
    log = export(game, obs)
    a = GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"), log=log)
    counted = face_posterior(a.game, a.log(), a.obs)
    assert not isinstance(counted, Uncounted) and counted[1] == 1
    expect, _ = counted
    # every face's copies add up, and the hidden ones are where the engine's view allows
    for f in faces(game):
        copies = sum(1 for c in range(len(game.deck)) if face_of(game, c) == f)
        assert np.isclose(expect[f].sum(), copies)
    mine = Counter(face_of(game, c) for c in obs.hand)
    assert all(np.isclose(expect[f][1], mine[f]) for f in faces(game))
    shown = a.start()
    assert "copies of each face not yet seen (exact):" in shown
    # the grid is labelled by the adapter, not as a count that gave up
    assert "(the grid: places still possible, spread evenly; a sound simplification" in shown
    assert "too many deals to count" not in shown


def test_setup_refuses_a_row_with_a_repeated_suspect():
    """(A wrong table size and a failed save: the shared checks in test_assist_session.py.)"""
    a = GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"))
    assert a.handle("ann bob cy") == "" and a.handle("ann") == ""
    assert a.handle("s1 s1 s2 s3").startswith("error: the row is 4 different suspects")
    assert a.handle("quit") == "setup abandoned; nothing saved" and a.header is None


def test_after_a_reshuffle_the_answer_is_summed_over_readings_or_labelled_approximate():
    _, state = played("alibi-adlung", 0, 59, num_players=2)  # just after an ambiguous reveal
    a = GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"), log=export(state.game, state.observation(0)))
    assert a.obs.ambiguous
    assert "copies of each face not yet seen (exact, summed over 2 readings of ambiguous reveals):" in a.start()
    _, state = played("alibi-adlung", 11, 300, num_players=4)  # many ambiguous reveals
    b = GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"), log=export(state.game, state.observation(1)))
    assert "copies of each face not yet seen (approximate: counted on a sound relaxation" in b.start()


def reshuffled_session():
    """Ann's view of a seeded three-player game just after a reshuffle: an ambiguous reveal
    with four readings (see tests/games/alibi_adlung/test_log.py)."""
    _, state = played("alibi-adlung", 0, 70, num_players=3)
    return GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"),
                         log=export(state.game, state.observation(0)))


def test_the_face_table_says_why_it_is_not_exact(monkeypatch):
    a = reshuffled_session()
    assert a.obs.ambiguous
    assert face_posterior(a.game, a.log(), a.obs)[1] == 4
    assert "copies of each face not yet seen (exact, summed over 4 readings of ambiguous reveals):" in a.status()
    # too many readings
    why = face_posterior(a.game, a.log(), a.obs, limit=2)
    assert why == Uncounted("more than 2 readings of the log's ambiguous reveals")
    monkeypatch.setattr(assist_adlung, "branches", lambda data, limit: branches(data, limit=2))
    a._marginals = None
    assert "(approximate: counted on a sound relaxation, as more than 2 readings of the log's ambiguous reveals)" in (
        a.status().replace("\n", " "))
    monkeypatch.undo()
    # the counter gives up

    def too_large(self, timeline):
        raise TooLarge("over a million states")

    monkeypatch.setattr("solvers.timeline.TimelineCounter.posterior", too_large)
    text = a.status()
    assert "approximate: counted on a sound relaxation, as the exact counter gave up (over a million states)" in text
    assert "readings" not in text.split("copies of each face")[1].splitlines()[0]


def test_no_deal_under_the_exact_model_is_a_warning_not_numbers(monkeypatch):
    """The exact counter finds no world (the static check let the events in): the assistant
    says the events contradict each other instead of showing approximate copies."""
    a = GameAssistant(adapter_for("alibi-adlung"), solver_for("alibi-adlung"), log=SCARCE)
    real = TimelineCounter.posterior

    def nothing(self, timeline):
        post = real(self, timeline)
        return type("Empty", (), {"total": 0, "cells": [[0] * len(row) for row in post.cells]})()

    monkeypatch.setattr("solvers.timeline.TimelineCounter.posterior", nothing)
    why = face_posterior(a.game, a.log(), a.obs)
    assert isinstance(why, Uncounted) and why.contradiction
    text = a.status()
    assert ("warning: these events contradict each other under the exact model: no deal fits them when every "
            "draw, exchange and reshuffle is followed in order.") in text
    assert "copies of each face" not in text and "best play" not in text and "suspects:" not in text


def test_suspects_are_named_by_the_features_on_their_cards(tmp_path):
    """Issue 20 B14: at a real table a suspect is the card one sees, so setup and event lines
    take its features ("fat+male+long+plain+umbrella": any order, prefixes) as well as s1..s12."""
    lines = ["ann, bob, cy", "ann", "fat+male+long+plain+umb, s2 thin+dot+knife+long+fem s4",
             "glasses knife bribe fat", "alibi bob female+fat+long+striped+umbrella",
             "alibi cy fat+thin", "quit"]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    log = saved(path)
    assert log["row"] == ["s1", "s2", "s3", "s4"]
    assert log["events"][-1] == {"type": "alibi", "player": "bob", "suspect": "s2"}
    assert "no suspect has the features fat, thin" in out
