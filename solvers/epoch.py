"""Time-indexed knowledge bases (cards that move between epochs): an exact ``possible`` and an
approximate sampler.

``EpochSolver`` (exact): a CP-SAT model pruned by :func:`~deduce.knowledge.propagate` (only
cells propagation keeps get a variable; a transfer becomes one frame clause per card and
possible location instead of one per pair of locations). ``possible`` witnesses cells with real
worlds (one CP-SAT solution, then cheap Markov-chain moves that only visit consistent worlds)
and proves the remaining candidates by one CP-SAT solve each, so its answer is exact.

``EpochSampler`` (approximate, ``exact = False``): Metropolis sampling of worlds uniform over
the consistent ones. A move swaps the locations of two cards over a segment of epochs
``[lo, hi]`` whose ends are epochs where the two cards share a location (or the first / last
epoch): every per-epoch location count and every transfer's ``(src, dst)`` tally is unchanged,
so only the constraints naming one of the two cards are rechecked. The proposal is symmetric
(the set of valid segments of a pair does not change under the swap), so accepting every
consistent proposal targets the uniform distribution. Several chains start from different
CP-SAT solutions; :meth:`EpochSampler.diagnostics` reports the spread of the chains' marginals
(the stated mixing check). Irreducibility is not guaranteed under hard answer constraints,
which is why the answer is labelled approximate and its error is measured against exact
enumeration (benchmarks/alibi.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
from deduce.errors import NotSupported
from deduce.knowledge import KnowledgeBase, propagate
from solvers.base import EPOCH_KINDS, Solver

__all__ = ["EpochSolver", "EpochSampler", "Chains", "pruned_model"]

KINDS = EPOCH_KINDS + (CountEver,)


class _Pruned:
    """CP-SAT model with a variable only for the cells ``possible[e, card, loc]`` allows."""

    def __init__(self, kb: KnowledgeBase, possible: np.ndarray) -> None:
        self.kb = kb
        self.possible = possible
        m = cp_model.CpModel()
        self.model = m
        E, C, L = possible.shape
        self.x: list[list[dict[int, cp_model.IntVar]]] = []
        for e in range(E):
            rows = []
            for c in range(C):
                cells = {int(z): m.NewBoolVar(f"x{e}_{c}_{z}") for z in np.flatnonzero(possible[e, c])}
                m.AddExactlyOne(list(cells.values()))
                rows.append(cells)
            self.x.append(rows)
        for con in kb.constraints:
            self._post(con)

    def lit(self, e: int, c: int, z: int) -> cp_model.IntVar | None:
        return self.x[e][c].get(z)

    def _sum(self, lits: list, op: Op, n: int) -> None:
        m = self.model
        total = sum(lits) if lits else 0
        if op is Op.EQ:
            m.Add(total == n)
        elif op is Op.LE:
            m.Add(total <= n)
        else:
            m.Add(total >= n)

    def _post(self, c: Constraint) -> None:
        m = self.model
        if isinstance(c, (At, NotAt)):
            v = self.lit(c.epoch, c.card, c.loc)
            if v is not None:
                m.Add(v == (1 if isinstance(c, At) else 0))
            elif isinstance(c, At):
                m.AddBoolOr([])  # impossible cell: the model is infeasible
        elif isinstance(c, Count):
            lits = [v for k in c.cards if (v := self.lit(c.epoch, k, c.loc)) is not None]
            self._sum(lits, c.op, c.n)
        elif isinstance(c, CountEver):
            hs = []
            for k in c.cards:
                cells = [v for e in c.epochs for z in c.locs if (v := self.lit(e, k, z)) is not None]
                if not cells:
                    continue
                if len(cells) == 1:
                    hs.append(cells[0])
                    continue
                h = m.NewBoolVar("")
                m.AddBoolOr(cells).OnlyEnforceIf(h)
                for v in cells:
                    m.AddImplication(v, h)
                hs.append(h)
            self._sum(hs, c.op, c.n)
        elif isinstance(c, AtLeastOne):
            m.AddBoolOr([v for k in c.cards if (v := self.lit(c.epoch, k, c.loc)) is not None])
        elif isinstance(c, NotAll):
            lits = []
            for k, z in c.pairs:
                v = self.lit(c.epoch, k, z)
                if v is None:
                    return  # one pair cannot hold: satisfied
                lits.append(v.Not())
            m.AddBoolOr(lits)
        elif isinstance(c, Transfer):
            self._transfer(c)
        else:  # pragma: no cover - check_supported prevents this
            raise NotSupported(f"epoch: cannot model {c!r}")

    def _transfer(self, c: Transfer) -> None:
        m = self.model
        e = c.epoch
        dests: dict[int, list[int]] = {}
        for s, d, _ in c.moves:
            dests.setdefault(s, []).append(d)
        moved: dict[tuple[int, int], list] = {(s, d): [] for s, d, _ in c.moves}
        for card in range(self.kb.num_cards):
            before, after = self.x[e][card], self.x[e + 1][card]
            for z, v in before.items():
                nxt = [after[z]] if z in after else []
                for d in dests.get(z, ()):
                    if d in after:
                        y = m.NewBoolVar("")
                        m.AddBoolOr([v.Not(), after[d].Not(), y])
                        m.AddImplication(y, v)
                        m.AddImplication(y, after[d])
                        moved[(z, d)].append(y)
                        nxt.append(after[d])
                m.AddBoolOr(nxt).OnlyEnforceIf(v)
        for s, d, k in c.moves:
            if moved[(s, d)]:
                m.Add(sum(moved[(s, d)]) == k)
            elif k:
                m.AddBoolOr([])  # k cards must move but none can: infeasible

    def solve(self, assumptions: Sequence = (), seed: int = 0, objective: dict | None = None,
              work_limit: float | None = None) -> np.ndarray | None:
        """A world ``[epoch, card]`` or None when there is none (under ``assumptions``).
        ``work_limit`` bounds an optimisation in CP-SAT's deterministic time units (about
        seconds), never in wall time: a wall-clock limit would let machine load decide which
        world comes back, and with it every answer built on it."""
        m = self.model
        m.ClearAssumptions()
        if assumptions:
            m.AddAssumptions(list(assumptions))
        if objective:
            m.Maximize(sum(w * v for v, w in objective.items()))
        else:
            m.ClearObjective()
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = int(seed)
        # small pruned models: CP-SAT's presolve, probing, symmetry and LP layers cost far more
        # than the search (measured 10-20x on Alibi round-6 models)
        solver.parameters.cp_model_presolve = False
        solver.parameters.cp_model_probing_level = 0
        solver.parameters.symmetry_level = 0
        solver.parameters.linearization_level = 0
        if work_limit is not None:
            solver.parameters.max_deterministic_time = float(work_limit)
        status = solver.Solve(m)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        E, C = len(self.x), len(self.x[0])
        w = np.empty((E, C), dtype=np.int64)
        for e in range(E):
            for card in range(C):
                w[e, card] = next(z for z, v in self.x[e][card].items() if solver.BooleanValue(v))
        return w


def pruned_model(kb: KnowledgeBase) -> tuple[_Pruned | None, np.ndarray]:
    """The pruned CP-SAT model and propagation's ``possible[epoch, card, loc]`` (None if
    propagation already finds a contradiction)."""
    prop = propagate(kb)
    if prop.contradiction is not None:
        return None, prop.possible
    return _Pruned(kb, prop.possible), prop.possible


class Chains:
    """Metropolis chains over consistent worlds of one knowledge base (see module docstring)."""

    def __init__(self, kb: KnowledgeBase, possible: np.ndarray, start: np.ndarray, rng: np.random.Generator) -> None:
        self.kb = kb
        self.possible = possible
        self.rng = rng
        self.world = start.copy()
        E, C, _ = possible.shape
        self.E = E
        self.mobile = np.flatnonzero((possible.sum(axis=2) > 1).any(axis=0))
        # constraints that a swap can change, by card
        self.checks: list[Constraint] = [
            c for c in kb.constraints if isinstance(c, (Count, CountEver, AtLeastOne, NotAll))
        ]
        self.members: list[frozenset[int]] = [frozenset(c.cards_involved()) for c in self.checks]
        self.by_card: list[list[int]] = [[] for _ in range(C)]
        for i, mem in enumerate(self.members):
            for card in mem:
                self.by_card[card].append(i)
        self.value = [self._value(i, self.world) for i in range(len(self.checks))]
        self.accepted = 0
        self.proposed = 0

    def _value(self, i: int, w: np.ndarray) -> int:
        c = self.checks[i]
        if isinstance(c, Count):
            return int(sum(1 for k in c.cards if w[c.epoch, k] == c.loc))
        if isinstance(c, CountEver):
            return int(sum(1 for k in c.cards if c.ever(w, k)))
        return int(c.holds(w))

    def _card_term(self, i: int, w: np.ndarray, card: int) -> int:
        c = self.checks[i]
        if isinstance(c, Count):
            return int(w[c.epoch, card] == c.loc)
        return int(c.ever(w, card))

    def step(self, moves: int) -> None:
        """``moves`` proposals (accepted when the new world is consistent): two thirds are
        segment swaps of two cards, one third full-history 3-cycles of three cards (which
        keep counts that a single swap breaks, e.g. two cards of one set for one of another)."""
        mobile, rng, E = self.mobile, self.rng, self.E
        if len(mobile) < 2:
            return
        w = self.world
        picks = rng.integers(0, len(mobile), size=(moves, 3))
        us = rng.random((moves, 3))
        full = slice(0, E)
        for (ia, ib, ic), (u1, u2, u3) in zip(picks, us, strict=True):
            self.proposed += 1
            if ia == ib:
                continue
            a, b = int(mobile[ia]), int(mobile[ib])
            if u3 < 1 / 3 and len(mobile) > 2:
                if ic == ia or ic == ib:
                    continue
                c = int(mobile[ic])
                cards = (a, b, c)
                cols = (w[:, b].copy(), w[:, c].copy(), w[:, a].copy())
                if self._try(cards, cols, full):
                    self.accepted += 1
                continue
            col_a, col_b = w[:, a], w[:, b]
            coloc = np.flatnonzero(col_a == col_b)
            los = [0] + [int(t) + 1 for t in coloc if t + 1 < E]
            lo = los[int(u1 * len(los))]
            his = [E - 1] + [int(t) - 1 for t in coloc if t > 0]
            his = [h for h in his if h >= lo]
            hi = his[int(u2 * len(his))]
            seg = slice(lo, hi + 1)
            if self._try((a, b), (col_b[seg].copy(), col_a[seg].copy()), seg):
                self.accepted += 1

    def _try(self, cards: tuple[int, ...], cols: tuple[np.ndarray, ...], seg: slice) -> bool:
        """Give ``cards[i]`` the locations ``cols[i]`` over ``seg`` if the world stays consistent."""
        w, possible = self.world, self.possible
        olds = [w[seg, k].copy() for k in cards]
        if all(np.array_equal(o, n) for o, n in zip(olds, cols, strict=True)):
            return False
        ep = np.arange(seg.start, seg.stop)
        for k, col in zip(cards, cols, strict=True):
            if not possible[ep, k, col].all():
                return False
        touched: set[int] = set()
        for k in cards:
            touched.update(self.by_card[k])
        old_terms = {}
        for i in touched:
            if isinstance(self.checks[i], (Count, CountEver)):
                mem = self.members[i]
                if isinstance(self.checks[i], Count) and all(k in mem for k in cards):
                    continue  # a permutation inside the set keeps a one-epoch count
                old_terms[i] = sum(self._card_term(i, w, k) for k in cards if k in mem)
        for k, col in zip(cards, cols, strict=True):
            w[seg, k] = col
        new_values = {}
        ok = True
        for i in touched:
            c = self.checks[i]
            if i in old_terms:
                mem = self.members[i]
                v = self.value[i] + sum(self._card_term(i, w, k) for k in cards if k in mem) - old_terms[i]
                if not c.op.compare(v, c.n):
                    ok = False
                    break
                new_values[i] = v
            elif not isinstance(c, (Count, CountEver)) and not c.holds(w):
                ok = False
                break
        if not ok:
            for k, col in zip(cards, olds, strict=True):
                w[seg, k] = col
            return False
        for i, v in new_values.items():
            self.value[i] = v
        return True


@dataclass(frozen=True)
class Diagnostics:
    """Mixing check: ``spread`` = largest difference between two chains' estimates of one
    cell marginal (of the asked location); ``acceptance`` = accepted / proposed moves."""

    chains: int
    samples: int
    spread: float
    acceptance: float


class EpochSolver(Solver):
    """Exact ``consistent`` and ``possible`` for time-indexed knowledge bases (see module doc)."""

    name = "epoch"
    can_count = False
    exact = True
    kinds = KINDS
    max_epochs = None

    def __init__(self, witness_moves: int = 6000, seed: int = 0) -> None:
        self.witness_moves = int(witness_moves)
        self.seed = int(seed)

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.check_supported(kb)
        model, _ = pruned_model(kb)
        return model is not None and model.solve() is not None

    def possible(self, kb: KnowledgeBase, epoch: int | None = None) -> np.ndarray:
        """bool[card, loc] of the last epoch (or ``epoch``): every cell is witnessed by a
        consistent world or refuted by CP-SAT, so the answer is exact."""
        self.check_supported(kb)
        e = kb.epochs - 1 if epoch is None else int(epoch)
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        model, possible = pruned_model(kb)
        if model is None:
            return out
        world = model.solve(seed=self.seed)
        if world is None:
            return out
        idx = np.arange(kb.num_cards)
        out[idx, world[e]] = True
        chains = Chains(kb, possible, world, np.random.default_rng(self.seed))
        for _ in range(max(1, self.witness_moves // 500)):
            chains.step(500)
            out[idx, chains.world[e]] = True
        for card, z in np.argwhere(possible[e] & ~out):
            if out[card, z]:
                continue
            w = model.solve([model.x[e][card][z]])
            if w is not None:
                out[idx, w[e]] = True
        return out


class EpochSampler(Solver):
    """Approximately uniform samples of consistent worlds ``[epoch, card]`` (labelled
    approximate: ``exact = False``); marginals of the last epoch from them."""

    name = "epoch-sample"
    can_count = False
    can_sample = True
    exact = False
    kinds = KINDS
    max_epochs = None

    def __init__(self, chains: int = 4, burn_in: int = 2000, thin: int = 50, samples: int = 400) -> None:
        self.chains = int(chains)
        self.burn_in = int(burn_in)
        self.thin = int(thin)
        self.samples = int(samples)
        self.last: Diagnostics | None = None

    def starts(self, kb: KnowledgeBase, possible: np.ndarray, model: _Pruned, rng: np.random.Generator) -> list[np.ndarray]:
        """Different CP-SAT solutions to start the chains from (random objectives over the
        last epoch's open cells, short time limit)."""
        out = []
        e = kb.epochs - 1
        open_cells = [(c, z) for c in range(kb.num_cards) if possible[e, c].sum() > 1 for z in np.flatnonzero(possible[e, c])]
        for i in range(self.chains):
            objective = None
            if i > 0 and open_cells:
                weights = rng.integers(0, 100, size=len(open_cells))
                objective = {model.x[e][c][int(z)]: int(wt) for (c, z), wt in zip(open_cells, weights, strict=True)}
            w = model.solve(seed=int(rng.integers(2**31)), objective=objective, work_limit=0.2)
            if w is None:
                w = model.solve(seed=i)
            if w is None:
                return []
            out.append(w)
        return out

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` worlds ``[epoch, card]``, spread over the chains (empty when inconsistent)."""
        self.check_supported(kb)
        model, possible = pruned_model(kb)
        if model is None:
            return []
        starts = self.starts(kb, possible, model, rng)
        if not starts:
            return []
        per = -(-n // len(starts))
        out: list[np.ndarray] = []
        groups: list[list[np.ndarray]] = []
        acc = prop = 0
        for w0 in starts:
            ch = Chains(kb, possible, w0, rng)
            ch.step(self.burn_in)
            group = []
            for _ in range(per):
                ch.step(self.thin)
                group.append(ch.world.copy())
            groups.append(group)
            out += group
            acc += ch.accepted
            prop += ch.proposed
        self.last = _diagnose(kb, groups, acc, prop)
        order = rng.permutation(len(out))[:n]
        return [out[i] for i in order]

    def marginals(self, kb: KnowledgeBase) -> np.ndarray:
        worlds = self.sample(kb, self.samples, np.random.default_rng(0))
        out = np.zeros((kb.num_cards, kb.num_locations))
        if not worlds:
            return out
        idx = np.arange(kb.num_cards)
        for w in worlds:
            out[idx, w[-1]] += 1
        return out / len(worlds)

    def diagnostics(self) -> Diagnostics | None:
        """The mixing check of the last :meth:`sample` call."""
        return self.last


def _diagnose(kb: KnowledgeBase, groups: list[list[np.ndarray]], accepted: int, proposed: int) -> Diagnostics:
    idx = np.arange(kb.num_cards)
    est = []
    for g in groups:
        m = np.zeros((kb.num_cards, kb.num_locations))
        for w in g:
            m[idx, w[-1]] += 1
        est.append(m / max(1, len(g)))
    spread = float(max((np.abs(a - b).max() for i, a in enumerate(est) for b in est[i + 1 :]), default=0.0))
    return Diagnostics(len(groups), sum(len(g) for g in groups), spread, accepted / max(1, proposed))
