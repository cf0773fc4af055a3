"""A second CP-SAT formulation of a time-indexed knowledge base: one Boolean per card *history
option* instead of one per card, location and epoch.

Why: late in a Mayfair Alibi game at 6+ players, ``epoch``'s model (one Boolean per cell of
every epoch, a frame clause per card and pass) witnesses all but a few cells cheaply and then
cannot prove the last ones impossible: 20 units of CP-SAT deterministic time did not. Over
histories the same facts are linear sums of one choice per card (as ``frontier`` reads them:
a card's options are its histories grouped by their share of every sum, see
:class:`solvers.block_sampler._Flat`), the frame rule and the passes are compiled into the
choices, and CP-SAT's linear relaxation is much tighter: the same cells are refuted in 0.4-1
unit (measured on saved 6-player views, docs/benchmarks.md "Audit"). Bounds propagation over
the options (:func:`solvers._history_kernels.propagate`) prunes the model first; it alone
empties some of those cells.

The model is exact (every world of the knowledge base is a choice of one history per card
that meets every sum, and back), so a world it finds is a world and an infeasible query is a
proof.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deduce.knowledge import KnowledgeBase
from solvers._history_kernels import propagate
from solvers.block_sampler import _Flat
from solvers.budget import Work, active, charge
from solvers.frontier import _Problem

__all__ = ["HistoryModel"]

#: options the compiled propagation examines per counted step (a step is about 0.5 us, see
#: :mod:`solvers.budget`; measured: 1.7-2.0M options in 7-9 ms on 7-player views)
_OPTIONS_PER_STEP = 100
#: counted steps per term of the model's sums, for building them in Python (measured: 0.7-1.1 s
#: for the histories, options and model of a 7-player, 11-12 epoch view of 150,000-190,000
#: terms, about what the budget counts for that time)
_STEPS_PER_TERM = 10


class HistoryModel:
    """CP-SAT over the live history options of ``kb`` (see module doc); ``contradiction`` is
    set (and no model built) when propagation alone proves there is no world.

    Construction reads the histories and propagates; :meth:`build` makes the CP-SAT model,
    whose cost (:attr:`build_steps`, counted work) the caller can weigh first against what is
    left of its budget (:meth:`affordable`)."""

    def __init__(self, kb: KnowledgeBase, history_limit: int = 20_000) -> None:
        self.kb = kb
        self.model = None
        prob = _Problem(kb, history_limit)
        self.contradiction = prob.contradiction
        if self.contradiction is not None:
            return
        flat = _Flat(prob)
        self.flat = flat
        C, J = kb.num_cards, len(prob.sums)
        members = [sorted(prob.feature[j]) for j in range(J)]
        by_card: list[list[int]] = [[] for _ in range(C)]
        for j, cards in enumerate(members):
            for c in cards:
                by_card[c].append(j)
        sum_ptr = np.cumsum([0] + [len(m) for m in members]).astype(np.int64)
        sum_cards = np.array([c for m in members for c in m], dtype=np.int64)
        card_ptr = np.cumsum([0] + [len(s) for s in by_card]).astype(np.int64)
        card_sums = np.array([j for s in by_card for j in s], dtype=np.int64)
        options = len(flat.mult)
        self.card_of = np.repeat(np.arange(C), np.diff(flat.opt_ptr))
        self.alive = np.ones(options, dtype=np.bool_)
        ok, work = propagate(self.alive, flat.opt_ptr, np.ascontiguousarray(flat.feat), flat.op, flat.n,
                             sum_ptr, sum_cards, card_ptr, card_sums, np.zeros(J, dtype=np.bool_),
                             np.empty(J, dtype=np.int64), np.arange(J, dtype=np.int64))
        charge(work // _OPTIONS_PER_STEP)
        if not ok:
            self.contradiction = "bounds propagation over the cards' histories empties a card"
            return
        #: counted steps :meth:`build` charges (10 a term of the sums it posts)
        self.build_steps = int(np.count_nonzero(flat.feat[self.alive])) * _STEPS_PER_TERM

    def affordable(self) -> bool:
        """Whether :meth:`build` fits in what is left of the active budget (always without one)."""
        meter = active()
        return meter is None or self.build_steps <= meter.left

    def build(self) -> None:
        """Build the CP-SAT model (once), its cost counted before it is paid: a model past the
        budget is refused at once."""
        from ortools.sat.python import cp_model

        if self.model is not None:
            return
        charge(self.build_steps)
        kb, flat, prob = self.kb, self.flat, self.flat.prob
        C, J, E, L = kb.num_cards, len(prob.sums), kb.epochs, kb.num_locations
        options = len(self.alive)
        #: reach[o, e, z]: some history of option o is at z in epoch e
        self.reach = np.zeros((options, E, L), dtype=bool)
        hist_opt = np.repeat(np.arange(options), np.diff(flat.opt_hist_ptr))
        locs = np.array([prob.hist[int(self.card_of[o])][int(h)] for o, h in zip(hist_opt, flat.opt_hist, strict=True)],
                        dtype=np.int64).reshape(len(hist_opt), E)
        self.reach[hist_opt[:, None], np.arange(E)[None, :], locs] = True
        m = cp_model.CpModel()
        self.model = m
        self.x = {int(o): m.NewBoolVar(f"h{o}") for o in np.flatnonzero(self.alive)}
        for c in range(C):
            m.AddExactlyOne([self.x[o] for o in range(flat.opt_ptr[c], flat.opt_ptr[c + 1]) if o in self.x])
        feat = flat.feat
        for j in range(J):
            opts = np.flatnonzero(self.alive & (feat[:, j] != 0))
            total = cp_model.LinearExpr.WeightedSum([self.x[int(o)] for o in opts], feat[opts, j].tolist())
            n = int(flat.n[j])
            if flat.op[j] == 0:
                m.Add(total == n)
            elif flat.op[j] == 1:
                m.Add(total <= n)
            else:
                m.Add(total >= n)

    def possible_cells(self, epoch: int) -> np.ndarray:
        """bool[card, loc]: the cells some live option reaches at ``epoch`` (a superset of the
        possible ones: what propagation has not refuted)."""
        self.build()
        out = np.zeros((self.kb.num_cards, self.kb.num_locations), dtype=bool)
        live = np.flatnonzero(self.alive)
        np.logical_or.at(out, self.card_of[live], self.reach[live, epoch])
        return out

    def world_with_one_of(self, cells: Sequence[tuple[int, int]], epoch: int, work: Work | None,
                          seed: int = 0) -> np.ndarray | None:
        """A world ``[epoch, card]`` with at least one of ``cells`` (card, loc) at ``epoch``, or
        None when no world has any of them. ``work`` counts CP-SAT's deterministic time (an
        undecided solve is a :class:`~deduce.errors.TooLarge`)."""
        from ortools.sat.python import cp_model

        self.build()
        m = self.model
        lits = [self.x[o] for c, z in cells
                for o in range(self.flat.opt_ptr[c], self.flat.opt_ptr[c + 1])
                if o in self.x and self.reach[o, epoch, z]]
        if not lits:
            return None
        some = m.NewBoolVar("")
        m.AddBoolOr(lits).OnlyEnforceIf(some)
        m.ClearAssumptions()
        m.AddAssumptions([some])
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = int(seed)
        # presolve and probing cost more than the solve here (measured on late 6- and
        # 7-player views: presolve 1.2 against 0.4 units a query; without probing, two views
        # the budget refused answer in 0.75-0.8 units); the linear relaxation is what refutes,
        # so it stays on, at its fuller level
        solver.parameters.cp_model_presolve = False
        solver.parameters.cp_model_probing_level = 0
        solver.parameters.linearization_level = 2
        if work is not None:
            work.cap(solver)
        status = solver.Solve(m)
        if work is not None:
            work.spend(solver, status)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        wanted = {(int(c), int(z)) for c, z in cells}
        flat, prob = self.flat, self.flat.prob
        world = np.empty((self.kb.epochs, self.kb.num_cards), dtype=np.int64)
        for c in range(self.kb.num_cards):
            o = next(o for o in range(flat.opt_ptr[c], flat.opt_ptr[c + 1]) if o in self.x and solver.BooleanValue(self.x[o]))
            hs = [prob.hist[c][int(h)] for h in flat.opt_hist[flat.opt_hist_ptr[o]:flat.opt_hist_ptr[o + 1]]]
            # any history of the option fits (equal shares of every sum): one at a wanted cell
            world[:, c] = next((h for h in hs if (c, h[epoch]) in wanted), hs[0])
        return world
