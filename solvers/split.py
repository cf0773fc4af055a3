"""``split``: exact counts for knowledge bases the plain ``exact`` DP finds too wide.

Mafia Code sheets give every player several overlapping ``Count`` constraints (a colour row
and a letter column crossing on a 6x6 grid). The class DP of :mod:`solvers.exact_dp` keeps
one bit field per open count, so with a dozen cells per player its states stop fitting the
62-bit numba kernels and its frontier explodes, although such late knowledge bases often have
only a few thousand consistent worlds. This backend branches instead: it fixes the location of
the card shared by the most counts (each branch is propagated by
:func:`~solvers.exact_dp.simplify`, which prunes hard on exact counts) until the DP of a
branch is narrow enough, counts each branch with that DP and adds the exact integer results.
Branches partition the worlds, so totals and per-cell tallies are plain sums.

Nothing here is specific to Mafia Code; it answers any static knowledge base the ``exact``
backend accepts, only slower than ``exact`` on those ``exact`` finds easy.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import Solver, Tally
from solvers.budget import BRANCH_STEPS, charge
from solvers.exact_dp import (
    DEFAULT_LIMIT,
    Plan,
    Problem,
    problem_from_kb,
    randbelow,
    simplify,
    solution_counts,
)

__all__ = ["SplitSolver"]

#: widest DP state (bits) a branch may have before it is split further: the numba kernels'
#: limit, past which the pure-Python DP is far slower than splitting.
_MAX_BITS = 62
#: counts over more cards than this are hand sizes (they hold every card): never split on.
_LONG = 15


class _Wide(Exception):
    """Raised by :class:`_BranchPlan` instead of running a DP wider than allowed."""


class _BranchPlan(Plan):
    """A :class:`Plan` that refuses (``_Wide``) rather than run its DP on states wider than
    ``max_bits`` (states wider than that leave the fast kernels)."""

    #: give up once the projected forward work passes ``patience`` x the branch budget.
    patience = 2.0

    def __init__(self, p: Problem, limit: int, max_bits: int = _MAX_BITS) -> None:
        self.max_bits = max_bits
        self._layer = -1
        super().__init__(p, limit)

    def _forward(self) -> None:
        if self.state_bits > self.max_bits:
            raise _Wide
        self._layer = 0
        super()._forward()
        self._layer = -1

    def _charge(self, amount: int) -> None:
        """Also give up early in the forward pass, once the layer at hand times the layers still
        to come would pass the limit: a branch that big is split rather than counted."""
        if self._layer >= 0:
            self._layer += 1
            if self.work + amount * (len(self.steps) - self._layer + 1) > self.limit * self.patience:
                raise TooLarge("split: branch projected past its transition budget")
        super()._charge(amount)


def _min_bits(q: Problem) -> int:
    """A lower bound on the DP state width of ``q`` (one field of ``hi`` + guard per count),
    cheap enough to skip compiling a branch that would be too wide anyway."""
    return sum(max(1, hi.bit_length()) + 1 for _cards, _z, _lo, hi in q.counts)


def _counts_fit(q: Problem) -> bool:
    """A necessary condition propagation misses: at each location, counts over disjoint card
    sets inside a larger count's set must fit its bounds (their lower bounds sum to at most its
    upper bound; its lower bound is reachable with their upper bounds plus its other cards).
    Mafia Code's row and column counts inside a hand: most branches that it refutes would
    otherwise each compile a DP only to find no world."""
    by_loc: dict[int, list[tuple[frozenset[int], int, int]]] = {}
    for cards, z, lo, hi in q.counts:
        by_loc.setdefault(z, []).append((frozenset(cards), lo, hi))
    for counts in by_loc.values():
        if len(counts) < 2:
            continue
        for outer, lo_o, hi_o in counts:
            inner = sorted((c for c in counts if c[0] < outer), key=lambda c: -c[1])
            used: set[int] = set()
            lo_sum = hi_sum = 0
            for cards, lo, hi in inner:  # a greedy family of disjoint inner sets, largest lower bound first
                if not cards & used:
                    used |= cards
                    lo_sum += lo
                    hi_sum += hi
            if lo_sum > hi_o or lo_o > hi_sum + len(outer) - len(used):
                return False
    return True


def _split_card(q: Problem) -> int:
    """The open card in the most short counts (fewest locations on a tie): fixing it narrows
    the most DP fields and lets propagation settle the most counts."""
    degree: dict[int, int] = {}
    for cards, _z, _lo, _hi in q.counts:
        if len(cards) > _LONG:
            continue
        for k in cards:
            degree[k] = degree.get(k, 0) + 1
    open_ = [k for k, d in enumerate(q.dom) if d & (d - 1)]
    return max(open_, key=lambda k: (degree.get(k, 0), -bin(q.dom[k]).count("1"), -k))


class SplitSolver(Solver):
    """Exact totals and per-cell tallies by branching on card locations until each branch's DP
    is narrow (``max_bits``) and cheap (``branch_limit`` transitions), then summing.

    Before branching at all, a knowledge base too wide for the kernels gets one try of the
    pure-Python DP within ``wide_budget`` transitions (0: never): some wide ones are small.

    ``limit`` bounds the DP transitions spent over all branches plus
    :data:`~solvers.budget.BRANCH_STEPS` per branch opened (refused with
    :class:`~deduce.errors.TooLarge` past it). Tallies are cached per ``kb.fingerprint()``.
    """

    name = "split"
    can_sample = True

    def __init__(
        self,
        limit: int = 50 * DEFAULT_LIMIT,
        branch_limit: int = 1_000_000,
        max_bits: int = _MAX_BITS,
        cache_size: int = 128,
        wide_budget: int = 50_000,
    ) -> None:
        if branch_limit < 1 or limit < 1 or max_bits < 1:
            raise ValueError(
                f"split: limit, branch_limit and max_bits must be positive, not {limit}, {branch_limit}, {max_bits}"
            )
        if wide_budget < 0:
            raise ValueError(f"split: wide_budget cannot be negative, not {wide_budget}")
        self.limit = int(limit)
        self.branch_limit = int(branch_limit)
        self.max_bits = int(max_bits)
        self.cache_size = int(cache_size)
        self.wide_budget = int(wide_budget)
        self._cache: OrderedDict[tuple, Tally] = OrderedDict()
        #: branches counted by a DP, branches split further and DP transitions spent, in the
        #: last uncached query.
        self.leaves = 0
        self.splits = 0
        self.work = 0

    # -- the branching ----------------------------------------------------------------------
    def _branches(self, kb: KnowledgeBase) -> Iterator[tuple[Problem, Plan]]:
        """``(problem, plan)`` of branches that partition the worlds of ``kb`` (depth first;
        inconsistent branches are left out)."""
        self.check_supported(kb)
        self.leaves = self.splits = self.work = 0
        stack = [problem_from_kb(kb)]
        root = True
        while stack:
            self.work += BRANCH_STEPS  # propagating and compiling a branch: counted, so bounded
            charge(BRANCH_STEPS)
            q = simplify(stack.pop())
            if q is None or not _counts_fit(q):
                continue
            budget = min(self.branch_limit, self.limit - self.work)
            if budget <= 0:
                raise TooLarge(
                    f"split: more than {self.limit} DP transitions and branch steps needed; raise SplitSolver(limit=...)"
                )
            plan = self._attempt(q, budget, self.max_bits)
            if plan is None and root and self.wide_budget:  # one wide DP may still be quick
                plan = self._attempt(q, min(self.wide_budget, budget), 1 << 30)
            root = False
            if plan is None:
                self.splits += 1
                k = _split_card(q)
                d = q.dom[k]
                stack.extend(q.with_domain(k, 1 << z) for z in range(d.bit_length()) if d >> z & 1)
                continue
            self.work += 2 * plan.work  # the backward pass (tallies, samples) costs what the forward did
            plan.limit = 2 * plan.work + 1
            self.leaves += 1
            if plan.total:
                yield q, plan

    def _attempt(self, q: Problem, budget: int, max_bits: int) -> Plan | None:
        """The DP of branch ``q`` within ``budget`` transitions and ``max_bits`` state bits, or
        None (the work it spent is counted either way)."""
        plan = _BranchPlan.__new__(_BranchPlan)
        plan.work = 0
        try:
            if _min_bits(q) > max_bits:
                raise _Wide
            plan.__init__(q, budget, max_bits)
        except (_Wide, TooLarge):
            self.work += plan.work
            return None
        return plan

    # -- queries ----------------------------------------------------------------------------
    def tallies(self, kb: KnowledgeBase) -> Tally:
        key = kb.fingerprint()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        nl = kb.num_locations
        total = 0
        cells = [[0] * nl for _ in range(kb.num_cards)]
        for _q, plan in self._branches(kb):
            total += plan.total
            for row, add in zip(cells, plan.tallies(), strict=True):
                for z in range(nl):
                    row[z] += add[z]
        tally = Tally(total, tuple(tuple(row) for row in cells))
        self._cache[key] = tally
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return tally

    def consistent(self, kb: KnowledgeBase) -> bool:
        return self.tallies(kb).total > 0

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        cells = self.tallies(kb).cells
        return np.array(cells, dtype=object).astype(bool).reshape(kb.num_cards, kb.num_locations)

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        out: dict[tuple[int, ...], int] = {}
        for q, _plan in self._branches(kb):
            for cards, n in solution_counts(q, z, self.limit).items():
                out[cards] = out.get(cards, 0) + n
        return out

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Exactly uniform worlds: a branch with probability proportional to its count, then a
        uniform world of that branch (drawn along its DP)."""
        plans = [plan for _q, plan in self._branches(kb)]
        total = sum(plan.total for plan in plans)
        out: list[np.ndarray] = []
        for _ in range(int(n) if total else 0):
            r = randbelow(rng, total)
            for plan in plans:
                if r < plan.total:
                    out.extend(plan.sample(1, rng))
                    break
                r -= plan.total
        return out
