"""``exact``: exact model counting for static knowledge bases.

Counts, per-cell tallies, marginals (as floats or exact fractions), the distribution of the
card set at one location (the Clue envelope) and exactly uniform samples, all from one
compiled dynamic programme over classes of interchangeable cards (see
:mod:`solvers.exact_dp`). Compiled plans are cached per ``kb.fingerprint()`` so repeated
queries on the same knowledge base cost a dictionary lookup.
"""

from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction

import numpy as np

from deduce.knowledge import KnowledgeBase
from solvers.base import Solver, Tally
from solvers.exact_dp import DEFAULT_LIMIT, Plan, problem_from_kb, solution_counts

__all__ = ["ExactSolver"]


class ExactSolver(Solver):
    """Exact counts over every world of a static knowledge base (one epoch).

    ``limit`` bounds the DP transitions of one query; past it the backend raises
    :class:`~deduce.errors.TooLarge` instead of running for ever. ``cache_size`` plans are
    kept (least recently used first out). ``kernels=False`` forces the pure-Python DP even
    when numba is installed (same answers, slower on big frontiers).
    """

    name = "exact"
    can_sample = True

    def __init__(self, limit: int = DEFAULT_LIMIT, cache_size: int = 128, kernels: bool = True) -> None:
        self.limit = int(limit)
        self.kernels = bool(kernels)
        self.cache_size = int(cache_size)
        self._plans: OrderedDict[tuple, Plan] = OrderedDict()
        self._solutions: OrderedDict[tuple, dict[tuple[int, ...], int]] = OrderedDict()

    # -- plumbing ---------------------------------------------------------------------------------
    def plan(self, kb: KnowledgeBase) -> Plan:
        """The compiled counting plan of ``kb`` (cached)."""
        key = kb.fingerprint()
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
            return plan
        self.check_supported(kb)
        plan = Plan(problem_from_kb(kb), self.limit, self.kernels)
        self._plans[key] = plan
        if len(self._plans) > self.cache_size:
            self._plans.popitem(last=False)
        return plan

    def clear_cache(self) -> None:
        self._plans.clear()
        self._solutions.clear()

    # -- queries ----------------------------------------------------------------------------------
    def consistent(self, kb: KnowledgeBase) -> bool:
        return self.plan(kb).feasible  # needs no count (the DP's states decide it)

    def count(self, kb: KnowledgeBase) -> int:
        return self.plan(kb).total

    def tallies(self, kb: KnowledgeBase) -> Tally:
        plan = self.plan(kb)
        cells = plan.tallies()
        return Tally(plan.total, tuple(tuple(row) for row in cells))

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        plan = self.plan(kb)
        return np.array(plan.tallies(), dtype=object).astype(bool).reshape(kb.num_cards, kb.num_locations)

    def fractions(self, kb: KnowledgeBase) -> list[list[Fraction]]:
        """Exact marginal probabilities ``P(card at loc)`` as fractions (all zero if inconsistent)."""
        return self.tallies(kb).fractions()

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        key = (kb.fingerprint(), z)
        cached = self._solutions.get(key)
        if cached is not None:
            self._solutions.move_to_end(key)
            return dict(cached)
        self.check_supported(kb)
        counts = solution_counts(problem_from_kb(kb), z, self.limit, self.kernels)
        self._solutions[key] = counts
        if len(self._solutions) > self.cache_size:
            self._solutions.popitem(last=False)
        return dict(counts)

    def solution_fractions(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], Fraction]:
        """Exact distribution of the card set at ``loc``."""
        counts = self.solution_counts(kb, loc)
        total = sum(counts.values())
        return {k: Fraction(v, total) for k, v in counts.items()}

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Exactly uniform consistent worlds, drawn along the DP's completion counts."""
        return self.plan(kb).sample(int(n), rng)
