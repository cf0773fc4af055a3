"""``cpsat``: OR-Tools CP-SAT model of a knowledge base.

Possible locations come from entailment checks under assumptions (one solve per cell no
earlier solution has witnessed); counts and marginals come from enumerating solutions, which
refuses with :class:`~deduce.errors.TooLarge` past ``limit`` worlds. Unsatisfiable cores
(``core``) name the constraints behind a contradiction.

Time-indexed knowledge bases get one Boolean ``x[card][loc][epoch]`` per cell and epoch; a
:class:`~deduce.constraints.Transfer` becomes, per card, a forbidden-move clause for every
unlisted ``(src, dst)`` pair (the frame rule) and a move indicator per listed pair whose sum
is ``k``. ``possible`` answers for the last epoch unless asked for another.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from ortools.sat.python import cp_model

from deduce.constraints import (
    At,
    AtLeastOne,
    Constraint,
    Count,
    CountEver,
    NotAll,
    NotAt,
    Op,
    Transfer,
)
from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase, propagate
from solvers.base import EPOCH_KINDS, EnumeratingSolver
from solvers.budget import Work

__all__ = ["CpSatSolver"]


class _Model:
    """A CP-SAT model of one knowledge base; ``gated`` adds one enforcement literal per constraint.

    ``xe[e][card][loc]`` are the variables of epoch ``e``; ``x`` is the last epoch's (the only
    one for a static knowledge base).
    """

    def __init__(self, kb: KnowledgeBase, gated: bool = False) -> None:
        self.kb = kb
        m = cp_model.CpModel()
        self.model = m
        self.xe = [
            [
                [m.NewBoolVar(f"x_{c}_{z}" if kb.epochs == 1 else f"x_{c}_{z}_{e}") for z in range(kb.num_locations)]
                for c in range(kb.num_cards)
            ]
            for e in range(kb.epochs)
        ]
        self.x = self.xe[-1]
        for rows in self.xe:
            for row in rows:
                m.AddExactlyOne(row)
        self.gates: list[cp_model.IntVar] = []
        for i, c in enumerate(kb.constraints):
            gate = m.NewBoolVar(f"g_{i}") if gated else None
            for ct in self._post(c):
                if gate is not None:
                    ct.OnlyEnforceIf(gate)
            if gate is not None:
                self.gates.append(gate)

    def _post(self, c: Constraint) -> list[cp_model.Constraint]:
        m = self.model
        if isinstance(c, Transfer):
            return self._post_transfer(c)
        if isinstance(c, CountEver):
            return self._post_count_ever(c)
        x = self.xe[c.epoch]
        if isinstance(c, At):
            return [m.Add(x[c.card][c.loc] == 1)]
        if isinstance(c, NotAt):
            return [m.Add(x[c.card][c.loc] == 0)]
        if isinstance(c, AtLeastOne):
            return [m.AddBoolOr([x[k][c.loc] for k in c.cards])]
        if isinstance(c, Count):
            total = sum(x[k][c.loc] for k in c.cards)
            if c.op is Op.EQ:
                return [m.Add(total == c.n)]
            if c.op is Op.LE:
                return [m.Add(total <= c.n)]
            return [m.Add(total >= c.n)]
        if isinstance(c, NotAll):
            return [m.AddBoolOr([x[k][z].Not() for k, z in c.pairs])]
        raise TypeError(f"cpsat cannot model {c!r}")  # check_supported prevents this

    def _post_transfer(self, c: Transfer) -> list[cp_model.Constraint]:
        """Frame clauses for unlisted moves, and ``sum(moved) == k`` for each listed one.

        The move indicators are defined (``y <-> before & after``) outside the gate, so a
        gated transfer only switches its own clauses and sums on and off.
        """
        m, kb = self.model, self.kb
        before, after = self.xe[c.epoch], self.xe[c.epoch + 1]
        pairs = c.pairs()
        out: list[cp_model.Constraint] = []
        moved: dict[tuple[int, int], list[cp_model.IntVar]] = {p: [] for p in pairs}
        for card in range(kb.num_cards):
            for s in range(kb.num_locations):
                for d in range(kb.num_locations):
                    if s == d:
                        continue
                    a, b = before[card][s], after[card][d]
                    if (s, d) not in pairs:
                        out.append(m.AddBoolOr([a.Not(), b.Not()]))
                        continue
                    y = m.NewBoolVar(f"y_{c.epoch}_{card}_{s}_{d}")
                    m.AddBoolOr([a.Not(), b.Not(), y])
                    m.AddImplication(y, a)
                    m.AddImplication(y, b)
                    moved[(s, d)].append(y)
        for (s, d), k in pairs.items():
            out.append(m.Add(sum(moved[(s, d)]) == k))
        return out

    def _post_count_ever(self, c: CountEver) -> list[cp_model.Constraint]:
        """``h[card] <-> OR(x[card][z][e] for z in locs, e in epochs)`` (defined outside the
        gate, shared between constraints over the same cells), then the count over ``h``."""
        m = self.model
        if not hasattr(self, "_ever"):
            self._ever: dict[tuple, cp_model.IntVar] = {}
        hs = []
        for card in c.cards:
            key = (card, c.locs, c.epochs)
            h = self._ever.get(key)
            if h is None:
                cells = [self.xe[e][card][z] for e in c.epochs for z in c.locs]
                h = m.NewBoolVar(f"h_{card}_{len(self._ever)}")
                m.AddBoolOr(cells).OnlyEnforceIf(h)
                for v in cells:
                    m.AddImplication(v, h)
                self._ever[key] = h
            hs.append(h)
        total = sum(hs)
        if c.op is Op.EQ:
            return [m.Add(total == c.n)]
        if c.op is Op.LE:
            return [m.Add(total <= c.n)]
        return [m.Add(total >= c.n)]

    def solve(self, assumptions: list = (), work: Work | None = None) -> tuple[int, cp_model.CpSolver]:
        """One solve (one worker, so deterministic); ``work`` caps and counts its deterministic
        time, and a solve the cap stops before it decides raises :class:`TooLarge`."""
        self.model.ClearAssumptions()
        if assumptions:
            self.model.AddAssumptions(list(assumptions))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        if work is not None:
            work.cap(solver)
        status = solver.Solve(self.model)
        if work is not None:
            work.spend(solver, status)
        return status, solver

    def world(self, solver: cp_model.CpSolver, epoch: int = -1) -> np.ndarray:
        """The ``[card]`` row of ``epoch`` (default the last) in the solver's solution."""
        return np.array(
            [next(z for z, v in enumerate(row) if solver.BooleanValue(v)) for row in self.xe[epoch]],
            dtype=np.int64,
        )


class _Collector(cp_model.CpSolverSolutionCallback):
    """Collects every solution: ``[card]`` rows for one epoch, ``[epoch, card]`` arrays for more."""

    def __init__(self, xe: list[list[list[cp_model.IntVar]]], limit: int) -> None:
        super().__init__()
        self.xe = xe
        self.limit = limit
        self.found: list[np.ndarray] = []
        self.overflow = False

    def on_solution_callback(self) -> None:
        if len(self.found) >= self.limit:
            self.overflow = True
            self.StopSearch()
            return
        world = np.array(
            [[next(z for z, v in enumerate(row) if self.Value(v)) for row in rows] for rows in self.xe],
            dtype=np.int64,
        )
        self.found.append(world[0] if len(self.xe) == 1 else world)


class CpSatSolver(EnumeratingSolver):
    """OR-Tools CP-SAT backend: every constraint kind, time-indexed ones included; entailment
    for ``possible``."""

    name = "cpsat"
    can_explain = True
    kinds = EPOCH_KINDS + (CountEver,)
    max_epochs = None

    def __init__(self, limit: int = 50_000, work_limit: float | None = None) -> None:
        super().__init__(limit)
        #: CP-SAT deterministic time one query may spend (None: no cap), see :mod:`solvers.budget`
        self.work_limit = work_limit

    def _work(self) -> Work | None:
        return Work.needed("cpsat", self.work_limit)

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.check_supported(kb)
        status, _ = _Model(kb).solve(work=self._work())
        return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    def possible(self, kb: KnowledgeBase, epoch: int | None = None) -> np.ndarray:
        """bool[card, loc]: where each card can be in the last epoch (or in ``epoch``)."""
        self.check_supported(kb)
        e = kb.epochs - 1 if epoch is None else int(epoch)
        if not 0 <= e < kb.epochs:
            raise ValueError(f"epoch {epoch} out of range 0..{kb.epochs - 1}")
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        prop = propagate(kb)
        if prop.contradiction is not None:
            return out
        candidates = prop.possible[e]
        model = _Model(kb)
        work = self._work()
        status, solver = model.solve(work=work)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return out
        idx = np.arange(kb.num_cards)
        out[idx, model.world(solver, e)] = True
        for card in range(kb.num_cards):
            if candidates[card].sum() == 1:
                out[card] = candidates[card]
                continue
            for z in range(kb.num_locations):
                if out[card, z] or not candidates[card, z]:
                    continue
                status, solver = model.solve([model.xe[e][card][z]], work)
                if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    out[idx, model.world(solver, e)] = True
        return out

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        model = _Model(kb)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.enumerate_all_solutions = True
        work = self._work()
        if work is not None:
            work.cap(solver)
        collector = _Collector(model.xe, self.limit)
        status = solver.Solve(model.model, collector)
        if collector.overflow:
            raise TooLarge(f"cpsat: more than {self.limit} consistent worlds; use the exact backend")
        if work is not None:
            work.spend(solver, status, finished=(cp_model.OPTIMAL, cp_model.INFEASIBLE))
        yield from collector.found

    def core(self, kb: KnowledgeBase) -> list[int]:
        """Indices of constraints that together are unsatisfiable (small, not always minimum)."""
        self.check_supported(kb)
        model = _Model(kb, gated=True)
        work = self._work()
        status, solver = model.solve(model.gates, work)
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
            status, _ = model.solve([model.gates[j] for j in trial], work)
            if status == cp_model.INFEASIBLE:
                kept = trial
        return kept
