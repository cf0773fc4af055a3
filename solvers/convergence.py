"""Convergence checks and Monte Carlo errors for the samplers' cell marginals.

Each cell ``(card, location)`` gives every chain a 0/1 series (is the card there in this
sample). :func:`split_rhat` is the split potential scale reduction factor of Gelman et al.
(Bayesian Data Analysis, 3rd ed., §11.4): each chain is cut in half and the between-half
variance compared with the within-half variance; values near 1 mean the chains agree.
:func:`batch_se` is the batch-means standard error of the pooled marginal, which accounts for
the autocorrelation the chains' samples have. :func:`error_bound` turns the standard errors
into one stated bound on the largest cell error (Bonferroni over the cells left open).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["split_rhat", "batch_se", "error_bound", "cell_series"]


def cell_series(samples: np.ndarray, num_locations: int) -> np.ndarray:
    """``[chain, draw, card, loc]`` 0/1 indicators from ``[chain, draw, card]`` locations."""
    return (samples[..., None] == np.arange(num_locations)).astype(float)


def split_rhat(x: np.ndarray) -> np.ndarray:
    """Split R-hat over axis 0 (chains) and 1 (draws) of ``x``; the other axes are cells.

    A cell constant and equal in every half has R-hat 1; constant within each half but not
    across them (chains stuck in different places) has R-hat infinity.
    """
    n = x.shape[1] // 2
    if n < 2:
        raise ValueError(f"split_rhat: {x.shape[1]} draws per chain; at least 4 are needed")
    halves = np.concatenate([x[:, :n], x[:, x.shape[1] - n :]], axis=0)
    means = halves.mean(axis=1)
    within = halves.var(axis=1, ddof=1).mean(axis=0)
    between = n * means.var(axis=0, ddof=1)
    var_plus = (n - 1) / n * within + between / n
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(var_plus / within)
    r = np.where(within > 0, r, np.where(between > 0, np.inf, 1.0))
    return r


def batch_se(x: np.ndarray, batches: int = 10) -> np.ndarray:
    """Batch-means standard error of the mean over chains and draws of ``x`` (axes 0, 1)."""
    m, d = x.shape[0], x.shape[1]
    b = max(1, min(batches, d))
    size = d // b
    cut = x[:, : size * b].reshape((m, b, size) + x.shape[2:]).mean(axis=2)
    flat = cut.reshape((m * b,) + x.shape[2:])
    if flat.shape[0] < 2:
        return np.full(x.shape[2:], np.inf)
    return flat.std(axis=0, ddof=1) / np.sqrt(flat.shape[0])


def error_bound(se: np.ndarray, p: np.ndarray, level: float = 0.95) -> float:
    """A bound on the largest cell error that holds with probability ``level`` (normal
    approximation, Bonferroni over the cells whose estimate is neither 0 nor 1)."""
    open_cells = max(1, int(((p > 0) & (p < 1)).sum()))
    z = float(stats.norm.ppf(1 - (1 - level) / (2 * open_cells)))
    return float(z * se.max()) if se.size else 0.0
