"""Alibi (Mayfair 1992) rules: deal, questions of each family, passing, melds, sheets, errors."""

from __future__ import annotations

import numpy as np
import pytest

import solvers
from deduce.constraints import CountEver
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.alibi.rules import (
    Accuse,
    AlibiGame,
    AlibiState,
    Ask,
    Asked,
    Done,
    Family,
    Fill,
    Meld,
    Melded,
    PassCard,
    Passed,
    Revealed,
)
from deduce.knowledge import KnowledgeBase
from solvers.epoch import EpochSampler, EpochSolver

SMALL = dict(
    suspects=("A", "B"),
    places=(("P", ("p1", "p2", "p3")),),
    weapons=(("W", ("w1", "w2", "w3")),),
    emotions=(("E", ("e1", "e2", "e3")),),
    dealer=2,
)


def test_deck_and_deal():
    g = AlibiGame(num_players=4)
    assert g.num_cards == 78 and [len(c) for c in g.categories] == [24, 18, 18, 18]
    assert len(g.set_cards) == 26 and all(len(s) == 3 for s in g.set_cards)
    st = g.new_initial_state(0)
    assert sorted(g.card_category[c] for c in st.box) == [0, 1, 2, 3]
    assert sum(len(h) for h in st.hands) == 74 and sorted(len(h) for h in st.hands) == [18, 18, 19, 19]
    # first player: left of whoever got the last card
    last = (g.config.dealer + 74) % 4
    assert st.current_player == (last + 1) % 4 == g.config.first_player
    assert dict(g.subicon_classes)["Morning"] and len(dict(g.subicon_classes)["Morning"]) == 8


def _small_state(n=3):
    g = AlibiGame(num_players=n, **SMALL)
    # cards: A 0-2, B 3-5, P 6-8, W 9-11, E 12-14; box = A/Morning, p1, w1, e1
    box = (0, 6, 9, 12)
    hands = [[1, 2, 3, 13], [4, 5, 7, 14], [8, 10, 11]][:n]
    return g, AlibiState.from_deal(g, box, hands)


def _skip_melds(st):
    while st.phase == "meld":
        st.apply(Meld(()))


def test_questions_of_each_family_and_meld_and_pass():
    g, st = _small_state()
    assert st.order[0] == g.config.first_player == 2
    _skip_melds(st)
    who = st.current_player
    assert who == 2
    ev = st.apply(Ask(0, Family.HAND, (1, 2, 3, 4)))[0]
    assert isinstance(ev, Asked) and ev.answer == 3 and ev.epoch == 0
    ev = st.apply(Ask(1, Family.HELD, ()))[0]  # player 0 asks player 1
    assert ev.answer == 4
    ev = st.apply(Ask(2, Family.SEEN, (8, 9, 10)))[0]
    assert ev.answer == 2
    assert st.phase == "pass"  # round 1: one card each
    assert st.current_player == 2
    with pytest.raises(IllegalAction, match="does not hold"):
        st.apply(PassCard(0))
    st.apply(PassCard(8))
    st.apply(PassCard(13))
    events = st.apply(PassCard(4))
    ps = [e for e in events if isinstance(e, Passed)][0]
    assert ps.counts == (1, 1, 1) and st.round == 2 and st.epoch == 1
    assert ps.view(0).cards[2] == (8,) and ps.view(0).cards[1] is None  # p0 receives from p2
    # player 1 now holds 5, 7, 13, 14 (gave 4): HELD counts distinct cards ever held
    assert g.answer(st.world(), 1, Family.HELD, ()) == 5
    assert g.answer(st.world(), 1, Family.SEEN, (4, 13)) == 2
    assert g.answer(st.world(), 1, Family.HAND, (4, 13)) == 1


def test_meld_points_by_round_and_seen_includes_melds():
    g = AlibiGame(num_players=3, **SMALL)
    st = AlibiState.from_deal(g, (0, 6, 9, 12), [[3, 4, 5, 1], [7, 8, 10, 11], [2, 13, 14]])
    assert st.current_player == 2 and st.legal_actions() == [Meld(())]
    st.apply(Meld(()))
    assert Meld((1,)) in st.legal_actions()  # player 0 holds all of suspect B
    ev = st.apply(Meld((1,)))[0]
    assert isinstance(ev, Melded) and ev.points == 6 and ev.epoch == 1
    st.apply(Meld(()))
    assert st.world().shape == (2, 15) and (st.world()[1, [3, 4, 5]] == g.meld_loc).all()
    assert g.answer(st.world(), 1, Family.SEEN, (3, 4)) == 2  # melds are seen by everyone
    assert g.config.meld_points("weapon", 1) == 7 and g.config.meld_points("suspect", 2) == 4
    assert g.config.meld_points("place", 2) == 5 and g.config.meld_points("emotion", 5) == 3
    with pytest.raises(IllegalAction, match="only complete sets it holds"):  # already melded
        st.apply(Meld((1,)))


def test_pass_whole_small_hand_and_k_equals_round():
    g, st = _small_state()
    for r in (1, 2):
        _skip_melds(st)
        for _ in range(3):
            st.apply(next(a for a in st.legal_actions() if not isinstance(a, Accuse)))
        sizes = [len(h) for h in st.hands]
        while st.phase == "pass":
            st.apply(st.legal_actions()[0])
        ps = [e for e in st.events if isinstance(e, Passed)][-1]
        assert ps.counts == tuple(min(r, s) for s in sizes)


def test_accusation_sheet_rules_and_scoring():
    g, st = _small_state()
    _skip_melds(st)
    st.apply(Accuse())
    acc = st.accuser
    assert st.current_player == acc == 2
    with pytest.raises(IllegalAction, match="must name a suspect"):
        st.apply(Done())
    with pytest.raises(IllegalAction, match="before its time"):
        st.apply(Fill(1, 0))
    st.apply(Fill(0, 1))  # suspect B (wrong)
    st.apply(Fill(1, 0))  # Morning: wrong because the suspect is wrong
    st.apply(Fill(2, 0))  # place P (right)
    with pytest.raises(IllegalAction, match="at least 3"):
        st.apply(Done())
    with pytest.raises(IllegalAction, match="already filled"):
        st.apply(Fill(2, 0))
    st.apply(Fill(4, 0))  # weapon W (right)
    st.apply(Done())
    st.apply(Fill(0, 0))
    st.apply(Fill(1, 0))  # A / Morning right
    st.apply(Done())
    events = st.apply(Done())
    rev = events[-1]
    assert isinstance(rev, Revealed) and st.is_terminal()
    # accuser: -2*5 (suspect) -2*3 (time) +5 +5 +7 bonus = 1; player 0: 5 + 3 = 8
    assert rev.sheet_points == (8, 0, 1)
    assert st.returns() == [8.0, 0.0, 1.0]


def test_illegal_questions_say_why():
    g, st = _small_state()
    _skip_melds(st)
    with pytest.raises(IllegalAction, match="cannot ask itself"):
        st.apply(Ask(2, Family.HAND, (1,)))
    with pytest.raises(IllegalAction, match="needs at least one card"):
        st.apply(Ask(0, Family.HAND, ()))
    with pytest.raises(IllegalAction, match="names no cards"):
        st.apply(Ask(0, Family.HELD, (1,)))
    with pytest.raises(IllegalAction, match="must choose cards|asks a question"):
        st.apply(PassCard(8))
    # any union is legal even if not in the canonical list
    st.apply(Ask(0, Family.SEEN, (0, 6, 9, 12)))


def test_forced_accusation_after_max_rounds():
    g = AlibiGame(num_players=3, max_rounds=1, **SMALL)
    st = g.new_initial_state(1)
    _skip_melds(st)
    for _ in range(3):
        st.apply(next(a for a in st.legal_actions() if not isinstance(a, Accuse)))
    while st.phase == "pass":
        st.apply(st.legal_actions()[0])
    _skip_melds(st)
    assert st.legal_actions() == [Accuse()]
    with pytest.raises(IllegalAction, match="must accuse"):
        st.apply(st.questions(st.current_player)[0])


def test_count_ever_json_describe_and_solvers_agree():
    g, st = _small_state()
    _skip_melds(st)
    st.apply(Ask(0, Family.SEEN, (0, 1, 2, 6)))
    kb = g.knowledge(st.observation(1))
    assert any(isinstance(c, CountEver) for c in kb.constraints)
    assert KnowledgeBase.from_json(kb.dumps()) == kb
    assert "CountEver" in kb.describe(next(c for c in kb.constraints if isinstance(c, CountEver)))
    cp = solvers.get("cpsat")
    assert (cp.possible(kb) == EpochSolver().possible(kb)).all()
    assert cp.consistent(kb) and EpochSolver().consistent(kb)


def test_sampler_marginals_close_to_exact_on_a_tiny_deck():
    g = AlibiGame(num_players=3, **SMALL)
    st = g.new_initial_state(4)
    rng = np.random.default_rng(4)
    while st.round < 2 or st.phase != "ask":
        st.apply(next(a for a in st.legal_actions()[::-1] if not isinstance(a, Accuse))
                 if st.phase != "ask" else st.legal_actions()[int(rng.integers(len(st.legal_actions()) - 1))])
    kb = g.knowledge(st.observation(0))
    exact = solvers.get("cpsat").marginals(kb)
    approx = EpochSampler(chains=4, burn_in=500, thin=10, samples=400, max_samples=400).marginals(kb)
    assert np.abs(exact[:, g.box_loc] - approx[:, g.box_loc]).max() < 0.2


def test_highest_score_wins_even_when_not_positive():
    """Issue 20 B1: 3 players, the first accuser fills four wrong blanks at once: scores go
    negative for it and stay 0 for the others; the highest total wins (ties share)."""
    g, st = _small_state()
    _skip_melds(st)
    st.apply(Accuse())
    # suspect B and its time (wrong), place P (right: the only set), location p2 (wrong)
    for blank, value in ((0, 1), (1, 0), (2, 0), (3, 1)):
        st.apply(Fill(blank, value))
    while not st.is_terminal():
        st.apply(Done())
    scores = st.scores
    assert scores == [0, 0, -2 * 5 - 2 * 3 + 5 - 2 * 3 + 7]
    assert st.winners() == tuple(p for p in range(3) if scores[p] == 0) and len(st.winners()) == 2


def test_melds_at_any_time_or_only_at_the_start_of_a_round():
    """Issue 20 B3 (seed: a complete set may be laid down at any time, even on another's turn):
    by default the player may also meld on its own turn before asking, in an epoch of its own;
    meld_timing="round_start" keeps only the window at the start of each round."""
    g = AlibiGame(num_players=3, **SMALL)
    deal = ((0, 6, 9, 12), [[3, 4, 5, 1], [7, 8, 10, 11], [2, 13, 14]])
    st = AlibiState.from_deal(g, *deal)
    _skip_melds(st)
    assert st.current_player == 2
    st.apply(Ask(0, Family.HAND, (1,)))
    assert st.current_player == 0 and Meld((1,)) in st.legal_actions() and Meld(()) not in st.legal_actions()
    events = st.apply(Meld((1,)))  # player 0 lays suspect B down on its turn, then still asks
    assert [(e.player, e.set_id, e.epoch, e.points) for e in events] == [(0, 1, 1, 6)]
    assert st.current_player == 0 and st.phase == "ask" and st.epoch == 1
    ev = st.apply(Ask(1, Family.SEEN, (3,)))[0]
    assert ev.epoch == 1 and ev.answer == 1  # melded cards are seen by everyone
    kb = g.knowledge(st.observation(1))
    assert kb.epochs == 2 and kb.consistent_with(st.world())
    fixed = AlibiState.from_deal(AlibiGame(num_players=3, meld_timing="round_start", **SMALL), *deal)
    _skip_melds(fixed)
    fixed.apply(Ask(0, Family.HAND, (1,)))
    assert not [a for a in fixed.legal_actions() if isinstance(a, Meld)]
    with pytest.raises(IllegalAction, match="meld_timing"):
        fixed.apply(Meld((1,)))
    with pytest.raises(InvalidConfig, match="meld_timing"):
        AlibiGame(num_players=3, meld_timing="never")
