"""Explanations where cards move between epochs (Crime Hotel's tricks and exchanges, Mayfair
Alibi's passes): the fact explained is where the card is now, and the chain names the moves."""

import pytest

import solvers
from deduce.apps.assist.alibi import ADAPTER as ALIBI
from deduce.apps.assist.crime_hotel import ADAPTER as HOTEL
from deduce.constraints import At, NotAt, Transfer
from deduce.errors import DeduceError
from deduce.explain import explain_card, explain_fact, why
from deduce.knowledge import KnowledgeBase
from deduce.logs import read_log, view_knowledge
from tests.games.alibi.test_log import GAME as ALIBI_GAME
from tests.games.alibi.test_log import HAND as _HAND
from tests.games.alibi.test_log import STATE as ALIBI_STATE
from tests.games.alibi.test_log import with_events
from tests.games.crime_hotel.test_log import LOG as HOTEL_BASE

# ann plays 105 to the first trick; bob puts a meeple down; cy takes 203 from ann for 301 (ann
# sees both); then bob and dee swap a card ann does not see.
HOTEL_LOG = {**HOTEL_BASE, "events": HOTEL_BASE["events"][:9] + [
    {"type": "exchange", "actor": "bob", "target": "dee", "k": 1},
]}

# ann passes X to bob in round 1, then bob passes two cards on to cy in round 2: X is bob's or
# cy's now, and only the passes rule out every other place.
_DEE = [ALIBI_GAME.deck[c].name for c in sorted(ALIBI_STATE.hands[3])]
X, Y = _HAND[0], _DEE[0]
ALIBI_LOG = with_events({"type": "pass", "gave": [X], "got": [Y]},
                        {"type": "pass", "gave": _HAND[1:3], "got": _DEE[1:3]})
ROUND_2 = "ann, bob, cy and dee each passed 2 cards to the next (dee to ann) and no other card moved (event 4)"


@pytest.fixture(scope="module")
def cpsat():
    return solvers.get("cpsat")


@pytest.fixture(scope="module")
def alibi_solver():
    """The assistant's solver for Alibi (its possible places come fast from the epoch backend)."""
    return solvers.get("auto", order=ALIBI.backends)


def knowledge(log):
    game, obs = read_log(log)
    return view_knowledge(game, obs)


def entailed_by(kb, e, steps, cpsat):
    """Whether ``steps`` force the explained fact in its epoch, given the moves that link the
    epochs (a knowledge base with unlinked epochs is refused, so every Transfer stays)."""
    sub = KnowledgeBase(kb.deck, kb.locations, kb.epochs)
    negation = NotAt(e.card, e.loc, epoch=e.epoch) if e.certain else At(e.card, e.loc, epoch=e.epoch)
    moves = [c for c in kb.constraints if isinstance(c, Transfer)]
    sub.extend(list({s.constraint for s in steps} | set(moves)) + [negation], check=False)
    return not cpsat.consistent(sub)


def assert_minimal(kb, e, cpsat):
    """The steps force the fact, and none of them but the moves can be left out."""
    assert entailed_by(kb, e, e.steps, cpsat)
    for i, step in enumerate(e.steps):
        if not isinstance(step.constraint, Transfer):
            assert not entailed_by(kb, e, e.steps[:i] + e.steps[i + 1 :], cpsat), step


def test_a_card_swapped_away_is_explained_by_the_exchange(cpsat):
    kb = knowledge(HOTEL_LOG)
    text = why(kb, kb.card("203"), cpsat, places=HOTEL.places)
    assert text == (
        "203 is cy's now: cy holds 203 after event 8; "
        "bob and dee swapped 1 card and no other card moved (event 9)."
    )


def test_a_card_that_stayed_is_explained_by_what_moved_instead(cpsat):
    kb = knowledge(HOTEL_LOG)
    [e] = explain_card(kb, kb.card("101"), cpsat)
    assert e.certain and e.loc == kb.loc("ann") and e.epoch == kb.epochs - 1 == 3
    # the trick's cards reach the open cards with its last play (event 5; issue 20 B13: a trick is
    # one epoch from its first play, and the 'trick' line only ranks it)
    assert {s.source for s in e.steps} == {"event 1", "event 5", "event 8", "event 9"}
    assert sum(isinstance(s.constraint, Transfer) for s in e.steps) == 3
    text = why(kb, kb.card("101"), cpsat, places=HOTEL.places)
    assert text.startswith("101 is ann's now: ann holds 101 and 105 at the start (event 1); ")
    for clause in ("ann, bob, cy and dee each put 1 card in the open cards and no other card moved (event 5)",
                   "105 is in the open cards after event 5",
                   "ann and cy swapped 1 card and no other card moved (event 8)",
                   "ann holds 203 after event 5 (event 8)", "cy holds 203 after event 8"):
        assert clause in text
    assert_minimal(kb, e, cpsat)


def test_a_played_card_is_in_the_open_cards_now(cpsat):
    kb = knowledge(HOTEL_LOG)
    text = why(kb, kb.card("108"), cpsat, places=HOTEL.places)
    assert text == ("108 is in the open cards now: 108 is in the open cards after event 5; "
                    "no move took a card out of the open cards (events 8 and 9).")


def test_the_deal_is_not_mistaken_for_now(cpsat):
    # 203 was ann's at the deal: nothing says it is ann's now, and asking about epoch 0 still works
    kb = knowledge(HOTEL_LOG)
    with pytest.raises(DeduceError, match="not known to be at ann now"):
        explain_fact(kb, kb.card("203"), kb.loc("ann"), True, cpsat)
    dealt = explain_fact(kb, kb.card("203"), kb.loc("ann"), True, cpsat, epoch=0)
    assert [s.source for s in dealt.steps] == ["event 1"]
    with pytest.raises(DeduceError, match="epoch 4 is out of range"):
        explain_fact(kb, kb.card("203"), kb.loc("ann"), True, cpsat, epoch=4)


@pytest.mark.slow
def test_alibi_passes_rule_out_every_other_place(cpsat, alibi_solver):
    kb = knowledge(ALIBI_LOG)
    lines = why(kb, kb.card(X), alibi_solver, places=ALIBI.places).splitlines()
    assert lines[0] == f"{X} may still be with bob or cy."
    for where in ("ann's", "dee's", "in the box"):
        assert f"{X} is not {where} now: bob holds {X} after event 3; {ROUND_2}." in lines
    assert f"{X} is not in the melds now: 0 cards are in the melds after event 4." in lines
    for e in explain_card(kb, kb.card(X), alibi_solver):
        assert_minimal(kb, e, cpsat)


@pytest.mark.slow
def test_alibi_cards_received_and_passed_on(alibi_solver):
    kb = knowledge(ALIBI_LOG)
    got = why(kb, kb.card(_DEE[1]), alibi_solver, places=ALIBI.places)
    assert got == f"{_DEE[1]} is ann's now: ann holds {_DEE[1]} after event 4."
    gave = why(kb, kb.card(_HAND[1]), alibi_solver, places=ALIBI.places)
    assert gave == f"{_HAND[1]} is bob's now: bob holds {_HAND[1]} after event 4."


def test_a_large_core_is_minimised_without_dropping_the_links(cpsat, monkeypatch):
    """Cores above the size CP-SAT minimises are minimised here; leaving a move out would leave
    epochs unlinked (refused by the solvers), so moves stay and everything else is pruned."""

    class Unminimised:
        def possible(self, kb):
            return cpsat.possible(kb)

        def consistent(self, kb):
            return cpsat.consistent(kb)

        def core(self, kb):  # the whole knowledge base: sufficient, far from minimal
            return list(range(len(kb.constraints)))

    monkeypatch.setattr("deduce.explain._MINIMISE_ABOVE", 0)
    kb = knowledge(HOTEL_LOG)
    e = explain_fact(kb, kb.card("203"), kb.loc("cy"), True, Unminimised())
    assert_minimal(kb, e, cpsat)
    kinds = sorted(type(s.constraint).__name__ for s in e.steps)
    assert kinds == ["At", "Transfer", "Transfer", "Transfer"]
    assert {s.source for s in e.steps if isinstance(s.constraint, At)} == {"event 8"}
