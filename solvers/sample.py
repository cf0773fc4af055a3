"""``sample``: exactly uniform samples of consistent worlds, guided by exact counts.

Two methods, both exactly uniform (never rejection sampling):

- ``"dp"`` (default): walk the exact counter's dynamic programme forwards, choosing each
  class placement with probability proportional to its number of completions (the backward
  counts), then spread the class's cards over the chosen locations uniformly. One count,
  then each sample costs a few dictionary lookups.
- ``"sequential"``: card by card, pin the card to each still-possible location, count the
  completions exactly, pick proportionally, keep the pin. Slow (a count per card and
  location per sample) but independent of the DP's internals: a cross-check.

Counting queries (``consistent``, ``possible``, ``tallies``, ``solution_counts``) are answered
exactly by the same counter; :meth:`SampleSolver.estimate_marginals` gives Monte Carlo
marginals for callers that want the sampling estimate itself. Knowledge bases too large to
count raise :class:`~deduce.errors.TooLarge` for now.
"""

from __future__ import annotations

import numpy as np

from deduce.knowledge import KnowledgeBase
from solvers.base import Solver, Tally
from solvers.exact import ExactSolver
from solvers.exact_dp import DEFAULT_LIMIT, Plan, problem_from_kb, randbelow

__all__ = ["SampleSolver", "METHODS"]

METHODS = ("dp", "sequential")


class SampleSolver(Solver):
    """Uniform sampler over the consistent worlds of a static knowledge base."""

    name = "sample"
    can_sample = True

    def __init__(self, method: str = "dp", limit: int = DEFAULT_LIMIT, cache_size: int = 128) -> None:
        if method not in METHODS:
            raise ValueError(f"sample: method must be one of {METHODS}, not {method!r}")
        self.method = method
        self._exact = ExactSolver(limit=limit, cache_size=cache_size)

    # -- exact counting queries (delegated) -----------------------------------------------------
    def consistent(self, kb: KnowledgeBase) -> bool:
        return self._exact.consistent(kb)

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        return self._exact.possible(kb)

    def tallies(self, kb: KnowledgeBase) -> Tally:
        return self._exact.tallies(kb)

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        return self._exact.solution_counts(kb, loc)

    # -- sampling --------------------------------------------------------------------------------
    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` independent, exactly uniform consistent worlds (``[]`` if there is none)."""
        self.check_supported(kb)
        if self.method == "dp":
            return self._exact.sample(kb, n, rng)
        return [w for w in (self._sequential(kb, rng) for _ in range(int(n))) if w is not None]

    def _sequential(self, kb: KnowledgeBase, rng: np.random.Generator) -> np.ndarray | None:
        problem = problem_from_kb(kb)
        limit = self._exact.limit
        if Plan(problem, limit).total == 0:
            return None
        world = np.empty(kb.num_cards, dtype=np.int64)
        for card in range(kb.num_cards):
            options: list[tuple[int, int]] = []
            for z in range(kb.num_locations):
                if problem.dom[card] >> z & 1:
                    total = Plan(problem.with_domain(card, 1 << z), limit).total
                    if total:
                        options.append((z, total))
            r = randbelow(rng, sum(t for _, t in options))
            chosen = options[-1][0]
            for z, t in options:
                if r < t:
                    chosen = z
                    break
                r -= t
            world[card] = chosen
            problem = problem.with_domain(card, 1 << chosen)
        return world

    def estimate_marginals(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> np.ndarray:
        """Monte Carlo marginals ``float[card, loc]`` from ``n`` uniform samples."""
        worlds = self.sample(kb, n, rng)
        out = np.zeros((kb.num_cards, kb.num_locations))
        idx = np.arange(kb.num_cards)
        for w in worlds:
            out[idx, w] += 1
        return out / max(len(worlds), 1)
