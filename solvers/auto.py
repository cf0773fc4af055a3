"""``auto``: the fastest exact backend that supports the knowledge base."""

from __future__ import annotations

import numpy as np

from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import Solver, Tally
from solvers.registry import get

__all__ = ["AutoSolver", "chain_too_wide"]

#: game-specific exact enumerators first (they refuse every other knowledge base), then the
#: static counter, the static counter by branches (where the first one found the DP too large:
#: Mafia Code's crossing counts; tried first when the DP is sure to be too wide), the time-indexed
#: counter, the per-card history counter (``frontier``: small decks and Mayfair Alibi up to its
#: first pass; it refuses bigger ones before any work) and checker, and the general backends. The
#: time-indexed counter goes last where a bound on its opening states is far past what it
#: finishes (Mayfair Alibi: minutes, no answer).
_PREFERENCE = ("tokens", "exact", "split", "chain", "frontier", "epoch", "cpsat", "csp", "brute")


def _too_wide(kb: KnowledgeBase) -> bool:
    """Whether the class DP's state would be wider than its fast kernels allow (Mafia Code's
    crossing counts at 4 players): ``exact`` would spend its whole budget before refusing, so
    ``split``, which branches such knowledge bases into narrow ones, goes first. Cheap: a bound
    from the simplified counts, no DP."""
    from solvers.exact_dp import problem_from_kb, simplify
    from solvers.split import _MAX_BITS, _min_bits

    q = simplify(problem_from_kb(kb))
    return q is not None and _min_bits(q) > _MAX_BITS


#: above this many opening states (an upper bound, :func:`chain_too_wide`) the ``chain``
#: counter goes after the time-indexed checkers. Measured: Crime Hotel views stay below 1e8 (chain
#: counts them in seconds); Mayfair Alibi views with no history question (so chain accepts them)
#: start above 1e14, and chain ran for 15 minutes on one without an answer.
_CHAIN_MAX_OPENINGS = 10**10


def chain_too_wide(kb: KnowledgeBase) -> bool:
    """Whether ``chain``'s epoch-0 states may number more than :data:`_CHAIN_MAX_OPENINGS`:
    per pool of interchangeable cards, the spreads over the locations that the epoch-0 counts
    covering the whole pool allow, multiplied (an upper bound: counts across pools are left
    out). Cheap: no state is built."""
    from deduce.constraints import Count, Op
    from solvers.chain import _Plan

    plan = _Plan(kb)
    bound = 1
    for pool in plan.groups:
        members, size = set(pool), len(pool)
        caps = [size] * plan.L
        for c in plan.by_epoch[0]:
            if isinstance(c, Count) and c.op in (Op.EQ, Op.LE) and members <= set(c.cards):
                caps[c.loc] = min(caps[c.loc], c.n)
        ways = [1] + [0] * size  # ways[t]: spreads of t of the pool's cards over the locations so far
        for cap in caps:
            ways = [sum(ways[t - v] for v in range(min(cap, t) + 1)) for t in range(size + 1)]
        bound *= ways[size]
        if bound > _CHAIN_MAX_OPENINGS:
            return True
    return False


class AutoSolver(Solver):
    """Delegates each query to the first backend in ``order`` that supports it."""

    name = "auto"
    can_sample = True
    can_explain = True

    def __init__(self, order: tuple[str, ...] = _PREFERENCE) -> None:
        self._backends: list[Solver] = []
        for name in order:
            try:
                self._backends.append(get(name))
            except Exception:  # a backend that is not installed is simply skipped
                continue

    def _pick(self, kb: KnowledgeBase) -> list[Solver]:
        found = [b for b in self._backends if b.supports(kb)]  # csp's checks are metered too
        if not found:
            raise NotSupported("auto: no backend supports this knowledge base")
        names = [b.name for b in found]
        if "exact" in names and "split" in names and names.index("exact") < names.index("split") and _too_wide(kb):
            split = found.pop(names.index("split"))
            found.insert(names.index("exact"), split)
        names = [b.name for b in found]
        if "chain" in names and names[-1] != "chain" and chain_too_wide(kb):
            found.append(found.pop(names.index("chain")))
        return found

    def _first(self, kb: KnowledgeBase, query: str, *args: object):
        last: Exception | None = None
        for backend in self._pick(kb):
            try:
                return getattr(backend, query)(kb, *args)
            except TooLarge as exc:
                last = exc
        assert last is not None
        raise last

    def check_supported(self, kb: KnowledgeBase) -> None:
        self._pick(kb)

    def consistent(self, kb: KnowledgeBase) -> bool:
        return self._first(kb, "consistent")

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        return self._first(kb, "possible")

    def tallies(self, kb: KnowledgeBase) -> Tally:
        return self._first(kb, "tallies")

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        return self._first(kb, "solution_counts", loc)

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        return self._first(kb, "sample", n, rng)

    def core(self, kb: KnowledgeBase) -> list[int]:
        return get("cpsat").core(kb)
