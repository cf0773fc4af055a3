"""``cpsat``: OR-Tools CP-SAT model of a knowledge base.

Possible locations come from entailment checks under assumptions (one solve per cell no
earlier solution has witnessed); counts and marginals come from enumerating solutions, which
refuses with :class:`~deduce.errors.TooLarge` past ``limit`` worlds. Unsatisfiable cores
(``core``) name the constraints behind a contradiction.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from ortools.sat.python import cp_model

from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt, Op
from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase, propagate
from solvers.base import EnumeratingSolver

__all__ = ["CpSatSolver"]


class _Model:
    """A CP-SAT model of one knowledge base; ``gated`` adds one enforcement literal per constraint."""

    def __init__(self, kb: KnowledgeBase, gated: bool = False) -> None:
        self.kb = kb
        m = cp_model.CpModel()
        self.model = m
        self.x = [
            [m.NewBoolVar(f"x_{c}_{z}") for z in range(kb.num_locations)] for c in range(kb.num_cards)
        ]
        for row in self.x:
            m.AddExactlyOne(row)
        self.gates: list[cp_model.IntVar] = []
        for i, c in enumerate(kb.constraints):
            gate = m.NewBoolVar(f"g_{i}") if gated else None
            ct = self._post(c)
            if gate is not None:
                ct.OnlyEnforceIf(gate)
                self.gates.append(gate)

    def _post(self, c: Constraint) -> cp_model.Constraint:
        m, x = self.model, self.x
        if isinstance(c, At):
            return m.Add(x[c.card][c.loc] == 1)
        if isinstance(c, NotAt):
            return m.Add(x[c.card][c.loc] == 0)
        if isinstance(c, AtLeastOne):
            return m.AddBoolOr([x[k][c.loc] for k in c.cards])
        if isinstance(c, Count):
            total = sum(x[k][c.loc] for k in c.cards)
            if c.op is Op.EQ:
                return m.Add(total == c.n)
            if c.op is Op.LE:
                return m.Add(total <= c.n)
            return m.Add(total >= c.n)
        if isinstance(c, NotAll):
            return m.AddBoolOr([x[k][z].Not() for k, z in c.pairs])
        raise TypeError(f"cpsat cannot model {c!r}")  # check_supported prevents this

    def solve(self, assumptions: list = ()) -> tuple[int, cp_model.CpSolver]:
        self.model.ClearAssumptions()
        if assumptions:
            self.model.AddAssumptions(list(assumptions))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        status = solver.Solve(self.model)
        return status, solver

    def world(self, solver: cp_model.CpSolver) -> np.ndarray:
        return np.array(
            [next(z for z, v in enumerate(row) if solver.BooleanValue(v)) for row in self.x],
            dtype=np.int64,
        )


class _Collector(cp_model.CpSolverSolutionCallback):
    def __init__(self, x: list[list[cp_model.IntVar]], limit: int) -> None:
        super().__init__()
        self.x = x
        self.limit = limit
        self.found: list[np.ndarray] = []
        self.overflow = False

    def on_solution_callback(self) -> None:
        if len(self.found) >= self.limit:
            self.overflow = True
            self.StopSearch()
            return
        self.found.append(
            np.array([next(z for z, v in enumerate(row) if self.Value(v)) for row in self.x], dtype=np.int64)
        )


class CpSatSolver(EnumeratingSolver):
    """OR-Tools CP-SAT backend: every static constraint kind; entailment for ``possible``."""

    name = "cpsat"

    def __init__(self, limit: int = 200_000) -> None:
        super().__init__(limit)

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.check_supported(kb)
        status, _ = _Model(kb).solve()
        return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        self.check_supported(kb)
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        prop = propagate(kb)
        if prop.contradiction is not None:
            return out
        candidates = prop.possible[0]
        model = _Model(kb)
        status, solver = model.solve()
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return out
        idx = np.arange(kb.num_cards)
        out[idx, model.world(solver)] = True
        for card in range(kb.num_cards):
            if candidates[card].sum() == 1:
                out[card] = candidates[card]
                continue
            for z in range(kb.num_locations):
                if out[card, z] or not candidates[card, z]:
                    continue
                status, solver = model.solve([model.x[card][z]])
                if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    out[idx, model.world(solver)] = True
        return out

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        model = _Model(kb)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.enumerate_all_solutions = True
        collector = _Collector(model.x, self.limit)
        solver.Solve(model.model, collector)
        if collector.overflow:
            raise TooLarge(f"cpsat: more than {self.limit} consistent worlds; use the exact backend")
        yield from collector.found

    def core(self, kb: KnowledgeBase) -> list[int]:
        """Indices of constraints that together are unsatisfiable (small, not always minimum)."""
        self.check_supported(kb)
        model = _Model(kb, gated=True)
        status, solver = model.solve(model.gates)
        if status != cp_model.INFEASIBLE:
            return []
        index_of = {g.Index(): i for i, g in enumerate(model.gates)}
        core = sorted(index_of[v] for v in solver.SufficientAssumptionsForInfeasibility() if v in index_of)
        if len(core) > 60:
            return core
        # deletion-based minimisation: drop each member that is not needed
        kept = list(core)
        for i in list(core):
            trial = [j for j in kept if j != i]
            status, _ = model.solve([model.gates[j] for j in trial])
            if status == cp_model.INFEASIBLE:
                kept = trial
        return kept
