"""The Alibi (Mayfair) assistant's grid from ``epoch-gibbs``: labelled with its stated error,
within that error of the exact grid on a view small enough to count, and ``None`` (the even
spread stays) when the chains do not meet the targets within the counted budget."""

from typing import Any, ClassVar

import numpy as np
import pytest

from benchmarks.alibi import state_at_round
from deduce.apps.assist.alibi import AlibiAdapter, sampled_label
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.games.alibi.rules import AlibiGame
from deduce.logs import export_log
from solvers.budget import metered
from solvers.frontier import FrontierSolver
from tests.apps.assist.test_session import solver_for
from tests.solvers.test_frontier import alibi_view


class SmallBlocks(AlibiAdapter):
    """Blocks of 6 cards on a view with 10 that move: sampled, not solved in one block."""

    grid_sampler: ClassVar[dict[str, Any]] = {"block": 6, "work_target": None, "samples": 50, "max_samples": 800}


def test_the_grid_is_labelled_and_within_its_stated_error_of_the_exact_one():
    _, kb = alibi_view(5, 12, None)
    exact = FrontierSolver(max_cells=None).tallies(kb).marginals()
    possible = exact > 0
    grid = SmallBlocks().sampled_grid(kb, possible)
    assert grid is not None
    assert grid.label.startswith("sampled: each chance within \u00b10.0") and "(95%)" in grid.label
    assert "4 chains agree (split R-hat 1.00" in grid.label
    assert grid.error <= 0.02 and grid.rhat <= 1.01
    p = grid.marginals.p
    assert not grid.marginals.exact
    assert float(np.abs(p - exact).max()) <= grid.error
    assert np.array_equal(p == 0, exact == 0) and np.array_equal(p == 1, exact == 1)
    assert np.allclose(p.sum(axis=1), 1.0)
    again = SmallBlocks().sampled_grid(kb, possible)  # seeded: the same view, the same grid
    assert again is not None and np.array_equal(again.marginals.p, p)
    assert grid.marginals.label == grid.label  # the grid carries its label to the session


def test_no_grid_when_the_budget_is_too_small_to_meet_the_targets():
    _, kb = alibi_view(5, 12, None)

    class Short(SmallBlocks):
        grid_sampler: ClassVar[dict[str, Any]] = {**SmallBlocks.grid_sampler, "samples": 8, "max_samples": 8}

    assert Short().sampled_grid(kb) is None
    with metered(1_000):  # the session's work meter runs out inside the block steps
        assert SmallBlocks().sampled_grid(kb) is None

    class Tight(SmallBlocks):
        grid_budget: ClassVar[int] = 1_000

    assert Tight().sampled_grid(kb) is None  # its own budget, counted: no meter running


def test_the_label_rounds_the_error_up_for_people():
    assert sampled_label(0.0141, 1.0062, 4) == (
        "sampled: each chance within \u00b10.02 of the exact one (95%); 4 chains agree (split R-hat 1.006)")
    assert sampled_label(0.02, 1.0, 4).startswith("sampled: each chance within \u00b10.02 ")
    assert sampled_label(0.0001, 1.0, 4).startswith("sampled: each chance within \u00b10.01 ")


@pytest.mark.slow
def test_the_session_counts_the_first_pass_exactly_and_the_sampler_is_within_its_error_there():
    game = AlibiGame(num_players=4)
    state = state_at_round(game, 0, 2)  # 4 players after the first pass: frontier still counts it
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=export_log(game, state.observation(0)))
    text = a.start()
    assert "(sampled: " not in text and "(approximate: too many deals" not in text
    m = a.marginals()
    exact = FrontierSolver().tallies(a.kb)
    assert m.exact and m.total == exact.total and m.cells == tuple(tuple(r) for r in exact.cells)
    got = AlibiAdapter().sampled_grid(a.kb, np.asarray(exact.marginals()) > 0)
    assert got is not None
    sampled = got.marginals
    assert sampled.label.startswith("sampled: each chance within \u00b10.0")
    stated = float(sampled.label.split("\u00b1")[1].split(" ")[0])
    assert not sampled.exact and stated <= 0.02
    assert float(np.abs(sampled.p - np.asarray(exact.marginals())).max()) <= stated


def test_the_session_hook_skips_full_deck_views_past_the_epochs_it_converges_in():
    game = AlibiGame(num_players=4)
    kb = game.knowledge(state_at_round(game, 0, 4).observation(0))
    assert kb.epochs > AlibiAdapter.grid_max_epochs and kb.num_cards * kb.epochs > 160
    assert kb.num_cards == game.num_cards == AlibiAdapter.grid_gate_cards  # the gate is the full deck's
    with metered(10**9) as meter:  # frontier refuses before any work, the sampler is not tried
        assert AlibiAdapter().grid(kb, lambda: np.ones((kb.num_cards, kb.num_locations))) is None
    assert meter.used == 0


def first_view_past_the_default_work(seed: int = 1, seat: int = 1):
    """The first two-epoch view of seeded game ``seed`` (4 players, seat ``seat``) that
    ``frontier``'s default work cap (1M transitions) refuses: late in round 2."""
    from deduce.errors import TooLarge
    from deduce.games.alibi.rules import Accuse
    from deduce.play import RandomPlayer, play_game

    game = AlibiGame(num_players=4)
    found = []

    def view(state):
        if state.round > 2:
            return True
        kb = game.knowledge(state.observation(seat))
        if kb.epochs == 2:
            try:
                FrontierSolver().tallies(kb)
            except TooLarge:
                found.append(kb)
                return True
        return False

    play_game(game, [RandomPlayer(seed, exclude=(Accuse,))] * 4, seed, state=game.new_initial_state(seed),
              until=view, errors="raise")
    assert found, "the default cap counts every round-2 view of this game"
    return found[0]


def test_the_grid_counts_round_two_views_past_frontiers_default_work():
    """``grid_exact_work``: views after the first pass that ``frontier`` refuses at its default
    1M transitions are counted exactly (the sampler spent 3 s there and gave up)."""
    kb = first_view_past_the_default_work()
    with metered(10**9):
        grid = AlibiAdapter().grid(kb, lambda: np.ones((kb.num_cards, kb.num_locations)))
    exact = FrontierSolver(max_work=None).tallies(kb)
    assert grid is not None and grid.exact and grid.total == exact.total
    assert grid.cells == tuple(tuple(r) for r in exact.cells)
