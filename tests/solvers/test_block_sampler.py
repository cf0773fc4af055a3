"""``epoch-gibbs``: the compiled block step's conditionals are exact (a block of every mobile
card gives frontier's exact cells), its chains stay consistent, and with blocks smaller than
the mobile cards its grid matches exact counts within its stated bound."""

from __future__ import annotations

import numpy as np

import solvers
from solvers.block_sampler import BlockGibbs
from solvers.frontier import FrontierSolver
from tests.solvers.test_epoch_sampler import history_kb
from tests.solvers.test_frontier import alibi_view


def test_a_block_of_every_mobile_card_gives_the_exact_cells():
    _, kb = alibi_view(5, 12, None)
    exact = FrontierSolver(max_cells=None).tallies(kb).marginals()
    (chain,) = BlockGibbs(chains=1, block=10_000)._start(kb, np.random.default_rng(0))
    cards, cells = chain.step()
    grid = np.zeros_like(exact)
    grid[np.arange(kb.num_cards), chain.last()] = 1.0
    grid[cards] = cells
    assert len(cards) == len(chain.mobile) > 2
    assert np.abs(grid - exact).max() < 1e-9
    assert all(c.holds(chain.world()) for c in kb.constraints)


def test_small_blocks_stay_consistent_and_match_exact_counts():
    _, kb = alibi_view(5, 12, None)
    exact = FrontierSolver(max_cells=None).tallies(kb).marginals()
    g = BlockGibbs(block=3, work_target=None, seed=1, max_samples=3200)
    (chain,) = g._start(kb, np.random.default_rng(1))[:1]
    assert len(chain.mobile) > 3
    for _ in range(200):
        chain.step()
        assert all(c.holds(chain.world()) for c in kb.constraints)
    est = g.estimate(kb)
    d = est.diagnostics
    err = float(np.abs(est.marginals - exact).max())
    assert d.rhat <= 1.01 and err <= max(d.error, 0.02), f"error {err:.3f}, stated {d.error:.3f}, R-hat {d.rhat:.4f}"


def test_matches_brute_on_a_history_question_and_is_registered():
    kb = history_kb()
    exact = solvers.get("brute").marginals(kb)
    g = solvers.get("epoch-gibbs", block=2, work_target=None, seed=0, max_samples=3200)
    est = g.estimate(kb)
    assert not g.exact and est.diagnostics.rhat <= 1.01
    assert np.abs(est.marginals - exact).max() <= 0.03
    a = BlockGibbs(seed=3, samples=20, max_samples=20).estimate(kb).marginals
    b = BlockGibbs(seed=3, samples=20, max_samples=20).estimate(kb).marginals
    assert np.array_equal(a, b)


def test_swaps_keep_the_world_consistent_and_the_grid_exact_within_its_bound():
    _, kb = alibi_view(5, 12, None)
    exact = FrontierSolver(max_cells=None).tallies(kb).marginals()
    g = BlockGibbs(block=6, work_target=None, seed=2, swaps=50, max_samples=800)
    (chain,) = g._start(kb, np.random.default_rng(2))[:1]
    made = 0
    for _ in range(100):
        made += chain.swap(20)
        assert all(c.holds(chain.world()) for c in kb.constraints)
        assert np.array_equal(chain.tot, chain.flat.totals(chain.chosen))
    assert made > 0
    est = g.estimate(kb)
    d = est.diagnostics
    err = float(np.abs(est.marginals - exact).max())
    assert d.converged and d.rhat <= 1.01 and err <= d.error <= 0.02, f"error {err:.3f}, stated {d.error:.3f}"


def test_gives_up_when_the_target_is_out_of_reach_within_the_sweeps():
    _, kb = alibi_view(5, 12, None)
    kw = dict(block=6, work_target=None, seed=0, samples=50, max_samples=800, error_target=0.0005)
    d = BlockGibbs(give_up=1.5, **kw).estimate(kb).diagnostics
    assert not d.converged and d.samples == 4 * 50  # the first check: 0.0005 cannot be reached in 800
    assert BlockGibbs(**kw).estimate(kb).diagnostics.samples == 4 * 800  # without give_up: every sweep
