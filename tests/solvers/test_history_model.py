"""The history model (CP-SAT over cards' history options, :mod:`solvers.history_model`) is
exact, and ``epoch`` answers through it where its cell model runs out: late 6-player Mayfair
Alibi views that no exact backend answered before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from benchmarks.alibi_late import load_views
from deduce.errors import InvalidConfig, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.budget import metered
from solvers.epoch import EpochSolver
from solvers.history_model import HistoryModel
from tests.solvers.test_epoch_sampler import history_kbs
from tests.solvers.test_epochs_agree import epoch_kbs


def late_view(name: str) -> tuple[KnowledgeBase, np.ndarray, np.ndarray]:
    """A saved view of ``benchmarks/alibi_late.py`` with its true world and its checked possible
    cells (every cell left out that propagation keeps was proven infeasible by a separate CP-SAT
    solve per cell on the history model with presolve, 20 units each; every cell kept is in a
    world)."""
    view = next(v for v in load_views() if v.name == name)
    assert view.possible is not None
    return view.kb, view.truth, view.possible


def check_exact(kb: KnowledgeBase) -> None:
    ref = solvers.get("brute")
    e = kb.epochs - 1
    truth = ref.possible(kb, epoch=e)
    model = HistoryModel(kb)
    if model.contradiction is not None:
        assert not truth.any()
        return
    assert not (truth & ~model.possible_cells(e)).any()  # propagation refutes only what is impossible
    for c in range(kb.num_cards):
        for z in range(kb.num_locations):
            world = model.world_with_one_of([(c, z)], e, None)
            assert (world is not None) == truth[c, z], (c, z)
            if world is not None:
                assert kb.consistent_with(world) and world[e, c] == z


@settings(max_examples=40, deadline=None)
@given(kb=epoch_kbs(max_cards=5, max_constraints=6))
def test_history_model_finds_a_world_exactly_where_brute_force_does(kb):
    check_exact(kb)


@settings(max_examples=25, deadline=None)
@given(kb=history_kbs())
def test_history_model_is_exact_on_history_answers(kb):
    """With ``CountEver`` (answers about what a player has ever held) and passes."""
    check_exact(kb)


@settings(max_examples=30, deadline=None)
@given(kb=epoch_kbs(max_cards=6, max_constraints=6), moves=st.sampled_from([0, 50]))
def test_epoch_through_the_history_model_is_brute_force_possible(kb, moves):
    """``history_after=0``: every "one of these" query goes to the history model at once."""
    ref = solvers.get("brute")
    assert np.array_equal(EpochSolver(witness_moves=moves, history_after=0.0).possible(kb), ref.possible(kb))


@pytest.mark.parametrize("name", ["g4-6p-10e-0", "g4-6p-10e-1", "g4-6p-10e-2"])
def test_epoch_answers_late_six_player_views_within_the_audit_budget(name):
    """Three views from game 4 (6 players, 10 epochs) of ``deduce audit alibi --games 10 --seed 1``
    that no exact backend answered within 2M steps: epoch now does, with the same answer."""
    kb, truth, expected = late_view(name)
    with metered(2_000_000):
        got = EpochSolver().possible(kb, starts=[truth])
    assert np.array_equal(got, expected)
    assert got[np.arange(kb.num_cards), truth[-1]].all()


def test_the_cell_model_alone_runs_out_on_a_late_six_player_view():
    """Why the history model is there: without it the same query is refused."""
    kb, truth, _ = late_view("g4-6p-10e-1")
    with pytest.raises(TooLarge), metered(2_000_000):
        EpochSolver(history_after=None).possible(kb, starts=[truth])


def test_history_model_weighs_its_build_against_the_budget():
    """``affordable`` says whether the build's counted cost fits in what the meter has left,
    and a build past it is refused before any of it is built."""
    kb, _, _ = late_view("g4-6p-10e-0")
    model = HistoryModel(kb)
    assert model.build_steps > 100_000 and model.affordable()  # no meter: always
    with metered(model.build_steps - 1):
        assert not model.affordable()
        with pytest.raises(TooLarge):
            model.build()
    assert model.model is None
    with metered(model.build_steps):
        assert model.affordable()
        model.build()
    assert model.model is not None


@settings(max_examples=30, deadline=None)
@given(kb=epoch_kbs(max_cards=6, max_constraints=6))
def test_epoch_keeps_the_query_where_the_history_model_cannot_list_the_histories(kb):
    """A card with more histories than ``history_limit`` (spectator views at round 20 have
    more than 20,000): the cell model keeps the query, uncapped, and the answer is still exact
    (it used to be refused with the history model's TooLarge)."""
    ref = solvers.get("brute")
    got = EpochSolver(witness_moves=0, history_after=0.0, history_limit=1).possible(kb)
    assert np.array_equal(got, ref.possible(kb))


def test_history_limit_must_be_positive():
    with pytest.raises(InvalidConfig, match="history_limit"):
        EpochSolver(history_limit=0)


def test_a_budget_that_runs_out_in_the_history_model_is_a_refusal(monkeypatch):
    """The history model's refusals hand the query back to the cell model, but a meter that runs
    out while the histories are read still refuses the whole query (the next solve is capped by
    the same meter), it does not run on unmetered."""
    from solvers import history_model
    from solvers.budget import charge

    def spend_everything(self, kb, history_limit=20_000):
        charge(10**9)

    monkeypatch.setattr(history_model.HistoryModel, "__init__", spend_everything)
    kb, truth, _ = late_view("g4-6p-10e-1")
    with pytest.raises(TooLarge), metered(2_000_000) as meter:
        EpochSolver().possible(kb, starts=[truth])
    assert meter.exhausted
