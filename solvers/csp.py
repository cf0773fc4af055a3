"""``csp``: python-constraint2 (``import constraint``) as a second opinion on small problems.

One variable per card whose domain is the locations it may occupy. ``possible`` restricts one
card's domain at a time and asks for a single solution; counts enumerate every solution.
"""

from __future__ import annotations

from collections.abc import Iterator

import constraint as pc
import numpy as np

from deduce.constraints import At, AtLeastOne, Count, NotAll, NotAt, Op
from deduce.knowledge import KnowledgeBase, propagate
from solvers.base import EnumeratingSolver
from solvers.budget import CHECK_STEPS, charge

__all__ = ["CspSolver"]


def _count_check(loc: int, n: int, op: Op):
    if op is Op.EQ:
        return lambda *vals: sum(v == loc for v in vals) == n
    if op is Op.LE:
        return lambda *vals: sum(v == loc for v in vals) <= n
    return lambda *vals: sum(v == loc for v in vals) >= n


def _counted(check):
    """``check`` charging :data:`~solvers.budget.CHECK_STEPS` of the command's work budget (if
    one is metered) per call:
    python-constraint's search runs between two worlds without returning, so its constraint
    checks are what a budget can count."""

    def counted(*vals):
        charge(CHECK_STEPS)
        return check(*vals)

    return counted


class CspSolver(EnumeratingSolver):
    """python-constraint2 backend for static knowledge bases."""

    name = "csp"

    def __init__(self, limit: int = 50_000) -> None:
        super().__init__(limit)

    def _problem(self, kb: KnowledgeBase, pin: tuple[int, int] | None = None) -> pc.Problem | None:
        prop = propagate(kb)  # sound pruning keeps domains small
        if prop.contradiction is not None:
            return None
        domains = prop.possible[0]
        problem = pc.Problem()
        for card in range(kb.num_cards):
            dom = [int(z) for z in np.flatnonzero(domains[card])]
            if pin is not None and pin[0] == card:
                if pin[1] not in dom:
                    return None
                dom = [pin[1]]
            problem.addVariable(card, dom)
        for c in kb.constraints:
            if isinstance(c, (At, NotAt)):
                continue  # already in the domains
            if isinstance(c, AtLeastOne):
                loc = c.loc
                problem.addConstraint(
                    pc.FunctionConstraint(_counted(lambda *vals, loc=loc: any(v == loc for v in vals))), list(c.cards)
                )
            elif isinstance(c, Count):
                if not c.cards:
                    continue
                problem.addConstraint(pc.FunctionConstraint(_counted(_count_check(c.loc, c.n, c.op))), list(c.cards))
            elif isinstance(c, NotAll):
                cards = [k for k, _ in c.pairs]
                locs = [z for _, z in c.pairs]
                if len(set(cards)) != len(cards):
                    # the same card at two places never holds at once: always satisfied
                    continue
                problem.addConstraint(
                    pc.FunctionConstraint(_counted(
                        lambda *vals, locs=tuple(locs): not all(v == z for v, z in zip(vals, locs, strict=True))
                    )),
                    cards,
                )
        return problem

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.check_supported(kb)
        problem = self._problem(kb)
        return problem is not None and problem.getSolution() is not None

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        self.check_supported(kb)
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        prop = propagate(kb)
        if prop.contradiction is not None:
            return out
        idx = np.arange(kb.num_cards)
        for card in range(kb.num_cards):
            for z in np.flatnonzero(prop.possible[0][card]):
                if out[card, z]:
                    continue
                problem = self._problem(kb, pin=(card, int(z)))
                sol = problem.getSolution() if problem is not None else None
                if sol is not None:
                    out[idx, [sol[k] for k in range(kb.num_cards)]] = True
        return out

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        problem = self._problem(kb)
        if problem is None:
            return
        for sol in problem.getSolutionIter():
            yield np.array([sol[k] for k in range(kb.num_cards)], dtype=np.int64)
