"""Explanations: minimal chains of events behind a deduction, in words."""

from pathlib import Path

import pytest

import solvers
from deduce.cli import main
from deduce.constraints import At, NotAt
from deduce.errors import DeduceError, NotSupported
from deduce.explain import explain_card, explain_fact, render, why
from deduce.games.clue.text import phraser
from deduce.knowledge import KnowledgeBase
from deduce.logs import load_log, read_log

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clue-3p.json"

# cy watches: ann asks about Plum, Rope, Hall and bob shows her a card cy does not see; later
# bob is seen not to hold Plum or Rope, so the card must have been Hall.
HALL_LOG = {
    "game": "clue",
    "players": ["ann", "bob", "cy"],
    "me": "cy",
    "events": [
        {"type": "hand", "player": "cy", "cards": ["Miss Scarlet", "Knife", "Kitchen", "Study", "Lounge", "Wrench"]},
        {"type": "suggestion", "by": "ann", "cards": ["Professor Plum", "Rope", "Hall"], "refuted_by": "bob"},
        {"type": "card_not_at", "card": "Professor Plum", "at": "bob"},
        {"type": "card_at", "card": "Mrs. White", "at": "ann"},
        {"type": "card_not_at", "card": "Rope", "at": "bob"},
    ],
}


@pytest.fixture(scope="module")
def cpsat():
    return solvers.get("cpsat")


def _hall(cpsat):
    kb = load_log(HALL_LOG)
    game, obs = read_log(HALL_LOG)
    return kb, phraser(game, obs.events)


def test_the_chain_names_the_events_in_words(cpsat):
    kb, phrase = _hall(cpsat)
    hall = kb.card("Hall")
    assert why(kb, hall, cpsat, phrase) == (
        "Hall is bob's: bob showed ann one of {Professor Plum, Rope, Hall} "
        "(event 1: ann suggested Professor Plum, Rope, Hall: bob showed ann a card); "
        "bob holds neither Professor Plum (event 2) nor Rope (event 4)."
    )


def test_the_chain_is_minimal_and_sufficient(cpsat):
    kb, _ = _hall(cpsat)
    e = explain_fact(kb, kb.card("Hall"), kb.loc("bob"), True, cpsat)
    assert {s.source for s in e.steps} == {"event 1", "event 2", "event 4"}  # event 3 is irrelevant

    def entails(steps):
        sub = KnowledgeBase(kb.deck, kb.locations)
        sub.extend([s.constraint for s in steps] + [NotAt(e.card, e.loc)], check=False)
        return not cpsat.consistent(sub)

    assert entails(e.steps)
    for i in range(len(e.steps)):
        assert not entails(e.steps[:i] + e.steps[i + 1 :])


def test_impossible_places_are_explained_one_by_one(cpsat):
    kb = load_log(EXAMPLE)
    game, obs = read_log(EXAMPLE)
    text = why(kb, kb.card("Candlestick"), cpsat, phraser(game, obs.events))
    lines = text.splitlines()
    assert lines[0] == "Candlestick may still be with bob or cy."
    assert lines[1] == ("Candlestick is not ann's: ann does not hold Candlestick (event 3: cy suggested "
                        "Professor Plum, Candlestick, Ballroom: ann has none of them; bob showed cy a card).")
    # the envelope holds one weapon, and the Wrench is nobody's: a rule joins the chain
    assert lines[2].startswith("Candlestick is not in the envelope: ")
    assert "the envelope holds one weapon" in lines[2] and "Wrench (event 1: ann suggested Mr. Green, Wrench, Lounge: bob has none of them" in lines[2]


def test_hand_size_rules_are_said_in_words(cpsat):
    kb = load_log(EXAMPLE)
    text = why(kb, kb.card("Ballroom"), cpsat)
    assert "Ballroom is not ann's" in text
    e = [x for x in explain_card(kb, kb.card("Colonel Mustard"), cpsat) if x.loc == kb.loc("ann")][0]
    assert "ann holds 6 cards" in render(kb, e)


def test_generic_wording_without_a_phrase_hook(cpsat):
    kb, _ = _hall(cpsat)
    text = why(kb, kb.card("Hall"), cpsat)
    assert text.startswith("Hall is bob's: bob holds at least one of {Professor Plum, Rope, Hall} (event 1)")


def test_nothing_known_and_not_entailed(cpsat):
    kb, _ = _hall(cpsat)
    text = why(kb, kb.card("Candlestick"), cpsat)
    assert text.splitlines()[1] == (
        "Candlestick is not cy's: cy holds Miss Scarlet, Knife, Wrench, Kitchen, Lounge and Study (event 0); "
        "cy holds 6 cards."
    )
    blank = load_log({**{k: v for k, v in HALL_LOG.items() if k != "me"}, "events": []})
    assert why(blank, blank.card("Candlestick"), cpsat).endswith("nothing rules any of these out yet.")
    with pytest.raises(DeduceError, match="not known"):
        explain_fact(kb, kb.card("Candlestick"), kb.loc("ann"), True, cpsat)


def test_a_solver_without_cores_is_refused():
    kb = load_log(HALL_LOG)
    with pytest.raises(NotSupported, match="core"):
        explain_fact(kb, kb.card("Hall"), kb.loc("bob"), True, solvers.get("exact"))


def test_contradictory_knowledge_is_reported(cpsat):
    kb = load_log(HALL_LOG)
    kb.extend([At(kb.card("Hall"), kb.loc("ann"))], source="event 9", check=False)
    with pytest.raises(DeduceError, match="contradict"):
        why(kb, kb.card("Hall"), cpsat)


def test_solve_why(capsys):
    code = main(["solve", str(EXAMPLE), "--why", "lou"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.strip() == ("Lounge is cy's: cy showed ann Lounge (event 1: ann suggested Mr. Green, Wrench, Lounge: "
                           "bob has none of them; cy showed ann Lounge).")
    code = main(["solve", str(EXAMPLE), "--why", "mrs", "--solver", "exact"])
    _, err = capsys.readouterr()
    assert code == 2 and "ambiguous" in err and "Mrs. White" in err
