"""``auto``: the fastest exact backend that supports the knowledge base."""

from __future__ import annotations

import numpy as np

from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import Solver, Tally
from solvers.budget import Meter, active, allowance
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


#: the first share of a work budget a backend gets under a meter; each round multiplies the
#: shares by :data:`_GROWTH` and brings in :data:`_PER_ROUND` more backends, in preference order
#: (measured: Mafia Code's 3-player spectator logs, where ``exact`` needs more than 20M steps
#: before refusing, ``split`` answers in 0.5-2M and ``cpsat`` finds a witness in a few thousand)
_FIRST_ALLOWANCE = 1_000_000
_GROWTH = 4
_PER_ROUND = 2


def _deepening(backends: list[Solver], meter: Meter, kb: KnowledgeBase, query: str, args: tuple) -> object:
    """``query`` under a work budget by iterative deepening over the backends. In round r the
    backend at position i of the preference order (from round ``i // _PER_ROUND`` on) gets a
    share of ``_FIRST_ALLOWANCE * _GROWTH ** (r - i // _PER_ROUND)`` steps; one refused by its
    share (not by its own limits) tries again in the next round; once a share would reach what
    is left, the backends left share all of it, in order. Why: in order, a backend that needs
    more than the whole budget spent all of it before refusing, and the next one, which would
    have answered in a tenth of it, got nothing; the staggering keeps the general backends
    (slow per step) from taking shares while a specialised one is still close to an answer.
    All of it is counted work, so a log is answered or refused the same way on any machine."""
    live = list(enumerate(backends))
    last: TooLarge | None = None
    unsupported: Exception | None = None
    rnd = 0
    while live:
        shares = {i: _FIRST_ALLOWANCE * _GROWTH ** (rnd - i // _PER_ROUND) for i, _ in live if i // _PER_ROUND <= rnd}
        final = any(share >= meter.left for share in shares.values())
        again: list[tuple[int, Solver]] = []
        for i, backend in live:
            if i not in shares and not final:
                again.append((i, backend))
                continue
            with allowance(meter.left if final else shares[i]) as part:
                try:
                    return getattr(backend, query)(kb, *args)
                except TooLarge as exc:
                    last = exc
                    if part.exhausted and not final:
                        again.append((i, backend))
                except (NotSupported, NotImplementedError) as exc:  # supports the base, not the query
                    unsupported = unsupported or exc
            if meter.left == 0 or meter.over():
                raise meter.refused()
        live = again
        rnd += 1
    if last is None and unsupported is not None:
        raise unsupported
    assert last is not None
    raise last


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
        backends = self._pick(kb)
        meter = active()
        if meter is not None and len(backends) > 1:
            if query == "consistent":
                backends = self._witness_order(backends)
            return _deepening(backends, meter, kb, query, args)
        last: Exception | None = None
        for backend in backends:
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

    def _witness_order(self, found: list[Solver]) -> list[Solver]:
        """For ``consistent`` under a work budget: ``cpsat`` second, since one world settles it
        and a SAT search finds one where the counters must rule out most of the rest."""
        names = [b.name for b in found]
        if "cpsat" in names and names.index("cpsat") > 1:
            found.insert(1, found.pop(names.index("cpsat")))
        return found

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
