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

Where the branches' DPs are many and wide but every hand has only a few hundred to a few
thousand possible sets (late views), a branch is counted by locations instead (:class:`_Join`).

Nothing here is specific to Mafia Code; it answers any static knowledge base the ``exact``
backend accepts, only slower than ``exact`` on those ``exact`` finds easy.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterator
from itertools import accumulate, permutations

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


# -- counting by locations ---------------------------------------------------------------------
#: most sets of open cards one location may be enumerated with before the join by locations
#: gives up on it.
_HANDS_CAP = 60_000
#: most steps (pair tests, or walk steps and pairs found) the join may take before it gives up.
_PAIRS_CAP = 8_000_000
#: pairs tested per block (bounds the memory of one test).
_BLOCK = 1 << 21


try:  # pragma: no cover - exercised only where numba is installed (the ``fast`` extra)
    from numba import njit
except ImportError:  # pragma: no cover
    _join_kernel = None
else:

    @njit(cache=True, nogil=True)
    def _join_kernel(keys, hs, perm, start, bmask, bstart, pivots, must, limit):  # type: ignore[no-untyped-def]
        """Every (partial deal, set) pair that is disjoint and deals every card in ``must``,
        and the index of each pair's new partial deal among the distinct ones (first seen
        first): what the numpy path computes with a dense test and a sort. ``hs`` is grouped
        by its sets' part on the ``pivots`` cards (bucket ``t``, a mask over the pivots, is
        ``hs[start[t]:start[t + 1]]``; ``bmask``/``bstart``: the nonempty buckets), so a partial
        deal visits only the buckets whose pivot cards it has not dealt: the submasks of its
        free pivots, or every nonempty bucket where those are more. ``perm[h]`` is the index
        of ``hs[h]`` in the caller's order. Stops (returning ``limit + 1`` steps) once the
        steps and pairs pass ``limit``."""
        npiv = pivots.shape[0]
        nb = bmask.shape[0]
        cap = 1024
        iu = np.empty(cap, dtype=np.int64)
        ih = np.empty(cap, dtype=np.int64)
        un = np.empty(cap, dtype=np.int64)
        j = 0
        tests = 0
        for u in range(keys.shape[0]):
            k = keys[u]
            free = 0
            need = 0
            for i in range(npiv):
                if not (k >> pivots[i]) & 1:
                    free |= 1 << i
                    if (must >> pivots[i]) & 1:
                        need |= 1 << i
            rest = free & ~need
            nfree = 0
            x = rest
            while x:
                x &= x - 1
                nfree += 1
            bysub = nfree < 62 and (1 << nfree) <= nb
            s = rest
            bi = 0
            while True:  # one bucket per pass
                if tests + j > limit:
                    return iu[:j], ih[:j], iu[:0], un[:0], limit + 1
                tests += 1
                if bysub:
                    t = s | need
                    lo, hi = start[t], start[t + 1]
                else:
                    if bi == nb:
                        break
                    t = bmask[bi]
                    lo, hi = bstart[bi], bstart[bi + 1]
                    bi += 1
                    if t & ~free or t & need != need:
                        continue
                for h in range(lo, hi):
                    tests += 1
                    m = k | hs[h]
                    if k & hs[h] == 0 and (m & must) == must:
                        if j == cap:
                            cap *= 2
                            iu = np.concatenate((iu, np.empty(cap - j, dtype=np.int64)))
                            ih = np.concatenate((ih, np.empty(cap - j, dtype=np.int64)))
                            un = np.concatenate((un, np.empty(cap - j, dtype=np.int64)))
                        iu[j] = u
                        ih[j] = perm[h]
                        un[j] = m
                        j += 1
                if bysub:
                    if s == 0:
                        break
                    s = (s - 1) & rest
        # the distinct unions, first seen first (open addressing on a multiplicative hash)
        size = 16
        lg = 4
        while size < 2 * j:
            size *= 2
            lg += 1
        table = np.full(size, -1, dtype=np.int64)
        slot_of = np.empty(size, dtype=np.int64)
        new = np.empty(j, dtype=np.int64)
        inv = np.empty(j, dtype=np.int64)
        distinct = 0
        shift = np.uint64(64 - lg)
        for p in range(j):
            m = un[p]
            s = np.int64((np.uint64(m) * np.uint64(0x9E3779B97F4A7C15)) >> shift)
            while table[s] != -1 and table[s] != m:
                s = (s + 1) & (size - 1)
            if table[s] == -1:
                table[s] = m
                slot_of[s] = distinct
                new[distinct] = m
                distinct += 1
            inv[p] = slot_of[s]
        return iu[:j], ih[:j], inv, new[:distinct], tests


class _NoJoin(Exception):
    """Raised by :class:`_Join` for knowledge bases it does not handle or finds too large."""


def _popcount(a: np.ndarray) -> np.ndarray:
    """Set bits per element of an ``int64`` array (numpy 1.26 has no ``bitwise_count``)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a).astype(np.int64)
    v = a.astype(np.uint64)
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def _mask(cards: Iterator[int] | tuple[int, ...] | list[int]) -> int:
    out = 0
    for k in cards:
        out |= 1 << k
    return out


def _hands(cards: list[int], rules: list[tuple[int, int, int]], cap: int) -> np.ndarray | None:
    """Every subset of ``cards`` (as a sorted array of bit masks) meeting every rule ``(mask,
    lo, hi)`` (between ``lo`` and ``hi`` of its cards in the subset), or None past ``cap``
    sets. First over the distinct rule counts alone (a few thousand states), forward with the
    bounds each card breaks, then backward to the states some completion reaches; then card by
    card over the sets, keeping only partial sets in such states, so no layer holds more
    partial sets than the answer has sets (dropping only the broken ones, a mid-game hand of
    33 cards went past 240,000 partial sets on the way to 6,905 sets)."""
    if not rules:
        if len(cards) >= cap.bit_length():
            return None
        out = np.zeros(1, dtype=np.int64)
        for k in cards:
            out = np.concatenate([out, out | np.int64(1 << k)])
        return np.sort(out)
    rmask = [r[0] for r in rules]
    lo = np.array([r[1] for r in rules], dtype=np.int64)
    hi = np.array([r[2] for r in rules], dtype=np.int64)
    place, p = [], 1
    for h in hi.tolist():
        place.append(p)
        p *= h + 1
    if p >= 1 << 62:  # too many fields for one int64 key
        return None
    pl = np.array(place, dtype=np.int64)
    every = _mask(cards)
    rem = np.array([bin(m & every).count("1") for m in rmask], dtype=np.int64)
    # forward over the distinct rule counts (partial sets' states): each layer's states, and
    # per state the state after leaving the card out / taking it (-1: a bound is broken)
    states = np.zeros((1, len(rules)), dtype=np.int64)
    moves: list[tuple[np.ndarray, np.ndarray]] = []
    for k in cards:
        a = np.array([m >> k & 1 for m in rmask], dtype=np.int64)
        rem -= a
        inc = a.astype(bool)
        took = states + a
        keep_ok = np.all(states[:, inc] + rem[inc] >= lo[inc], axis=1)  # leaving k out: lows still reachable
        take_ok = np.all(took[:, inc] <= hi[inc], axis=1)  # taking k: no high passed
        both = np.concatenate([states[keep_ok], took[take_ok]])
        keys, first, inv = np.unique(both @ pl, return_index=True, return_inverse=True)
        inv = inv.reshape(-1)
        keep_to = np.full(len(states), -1, dtype=np.int64)
        take_to = np.full(len(states), -1, dtype=np.int64)
        keep_to[keep_ok] = inv[: int(keep_ok.sum())]
        take_to[take_ok] = inv[int(keep_ok.sum()) :]
        moves.append((keep_to, take_to))
        states = both[first]
        charge(len(keys))
    # backward: which states some completion reaches (every state of the last layer, but for
    # a rule none of the cards touches)
    alive = np.all((states >= lo) & (states <= hi), axis=1)
    alive_at = [alive]
    for keep_to, take_to in moves[::-1]:
        ok = np.append(alive, False)  # index -1: no move
        alive = ok[keep_to] | ok[take_to]
        alive_at.append(alive)
    alive_at.reverse()
    # the sets themselves, keeping only partial sets that some completion extends: each layer
    # holds at most as many partial sets as the answer has sets
    masks = np.zeros(1 if alive_at[0][0] else 0, dtype=np.int64)
    at = np.zeros(len(masks), dtype=np.int64)
    for i, k in enumerate(cards):
        keep_to, take_to = moves[i]
        nxt = np.append(alive_at[i + 1], False)
        kt, tt = keep_to[at], take_to[at]
        kk, tk = nxt[kt], nxt[tt]
        masks = np.concatenate([masks[kk], masks[tk] | np.int64(1 << k)])
        at = np.concatenate([kt[kk], tt[tk]])
        charge(len(masks))
        if len(masks) > cap:
            return None
    return np.sort(masks)


def _count_hands(cards: list[int], rules: list[tuple[int, int, int]]) -> dict[int, int]:
    """How many subsets of ``cards`` of each size meet every rule (what :func:`_hands` would
    list), without listing them: the same card-by-card pass over distinct (counts, size)
    states, so cheap enough to plan the join before any set is built."""
    radix = [hi + 1 for _m, _lo, hi in rules] + [len(cards) + 1]
    place, p = [], 1
    for r in radix:
        place.append(p)
        p *= r
    if p >= 1 << 62:  # too many fields for one int64 key: say "many" (the join then refuses)
        return {len(cards): 1 << 62}
    m = len(rules)
    lo = np.array([r[1] for r in rules], dtype=np.int64)
    hi = np.array([r[2] for r in rules], dtype=np.int64)
    every = _mask(cards)
    rem = np.array([bin(r[0] & every).count("1") for r in rules], dtype=np.int64)
    cnt = np.zeros((1, m + 1), dtype=np.int64)
    ways = np.ones(1, dtype=np.int64)  # at most 2**62 subsets (62 cards at most)
    pl = np.array(place, dtype=np.int64)
    for k in cards:
        a = np.array([r[0] >> k & 1 for r in rules] + [1], dtype=np.int64)
        rem[:] -= a[:m]
        inc = a[:m].astype(bool)
        took = cnt + a
        keep_ok = np.all(cnt[:, :m][:, inc] + rem[inc] >= lo[inc], axis=1)
        take_ok = np.all(took[:, :m][:, inc] <= hi[inc], axis=1)
        both = np.concatenate([cnt[keep_ok], took[take_ok]])
        w = np.concatenate([ways[keep_ok], ways[take_ok]])
        keys, first, inv = np.unique(both @ pl, return_index=True, return_inverse=True)
        cnt = both[first]
        ways = np.zeros(len(keys), dtype=np.int64)
        np.add.at(ways, inv.reshape(-1), w)
        charge(len(keys))
    ok = np.all((cnt[:, :m] >= lo) & (cnt[:, :m] <= hi), axis=1)  # a rule none of the cards touches
    out: dict[int, int] = {}
    for size, n in zip(cnt[ok, m].tolist(), ways[ok].tolist(), strict=True):
        out[size] = out.get(size, 0) + int(n)
    return out


#: joins a query may see refused before it stops trying them (each refusal costs up to
#: :data:`_PAIRS_CAP` steps; where the root's join is too big, its branches' mostly are too).
_JOIN_TRIES = 2
#: most enumerated locations whose every order the join estimates by sampling (4: 24 orders).
_SAMPLED_ORDERS = 4
#: partial deals per layer those estimates run on.
_ORDER_SAMPLE = 64
#: how far past the pairs cap the plan's model, then the sampled estimate, may put a join
#: before it is refused untried (both misjudge by a few times; the pairs cap decides).
_MODEL_SLACK = 4
#: steps the compiled join takes per partial deal before it finds anything (a rough mean on
#: Mafia Code views), in the plan's cost model; the order is then chosen by sampling.
_WALK_STEPS = 32


def _join_plan(sizes: dict[int, dict[int, int]], n: int, dense: bool) -> tuple[list[int], int, float]:
    """The order of locations (all but the last, which takes the cards left) with the least
    expected work, the last location and that expectation. ``sizes[z]``: how many sets of each
    size location ``z`` has. Expected by treating each partial deal as random: a set of ``s``
    cards misses ``u`` dealt cards out of ``n`` with probability C(n-u, s) / C(n, s). The work
    of one location is its pair tests (``dense``: every partial deal with every set) or, for the
    compiled join, :data:`_WALK_STEPS` per partial deal plus the pairs found."""
    from math import comb

    best: tuple[float, list[int], int] | None = None
    for perm in permutations(sizes):
        *order, last = perm
        deals, used, work = 1.0, 0.0, 0.0
        for z in order:
            total = sum(sizes[z].values())
            u = round(used)
            found = deals * sum(c * comb(n - u, s) / comb(n, s) for s, c in sizes[z].items() if s <= n - u)
            work += deals * total if dense else deals * _WALK_STEPS + found
            deals = found
            used += sum(s * c for s, c in sizes[z].items()) / max(1, total)
        if best is None or work < best[0]:
            best = (work, list(order), last)
    assert best is not None
    return best[1], best[2], best[0]


#: most cards the compiled join buckets its sets by (a table of 2**_PIVOTS bucket starts).
_PIVOTS = 12
#: partial deals sampled to choose the pivot cards.
_PIVOT_SAMPLE = 4096


def _pivots(keys: np.ndarray, hs: np.ndarray) -> np.ndarray:
    """The cards to bucket ``hs`` by: those that most often both lie in a set and are dealt in a
    partial deal (most sets a deal can skip by bucket), at most :data:`_PIVOTS`."""
    every = int(np.bitwise_or.reduce(hs)) if len(hs) else 0
    sample = keys[:: max(1, len(keys) // _PIVOT_SAMPLE)]
    score = []
    for b in range(63):
        if every >> b & 1:
            in_sets = int(np.count_nonzero((hs >> b) & 1))
            dealt = int(np.count_nonzero((sample >> b) & 1))
            score.append((in_sets * dealt, in_sets, b))
    score.sort(reverse=True)
    return np.array(sorted(b for _x, _y, b in score[:_PIVOTS]), dtype=np.int64)


def _pairs(keys: np.ndarray, hs: np.ndarray, must: np.int64, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """``(iu, ih, inv, new, work)``: the pairs of partial deal ``keys[iu]`` and set ``hs[ih]``
    (``hs`` sorted) that are disjoint and deal every card of ``must``, their distinct unions
    ``new`` (pair ``j`` makes ``new[inv[j]]``) and the steps that took. Compiled where numba is
    installed, else dense numpy tests in blocks (the same pairs and unions, in another order).
    Past ``limit`` steps the work returned is above ``limit`` and the pairs are incomplete."""
    if _join_kernel is not None:
        pivots = _pivots(keys, hs)
        part = np.zeros(len(hs), dtype=np.int64)
        for i, b in enumerate(pivots.tolist()):
            part |= ((hs >> b) & 1) << i
        perm = np.argsort(part, kind="stable")
        part = part[perm]
        start = np.searchsorted(part, np.arange((1 << len(pivots)) + 1, dtype=np.int64))
        bmask, bstart = np.unique(part, return_index=True)
        bstart = np.append(bstart, len(part)).astype(np.int64)
        iu, ih, inv, new, tests = _join_kernel(keys, hs[perm], perm.astype(np.int64), start.astype(np.int64),
                                               bmask.astype(np.int64), bstart, pivots, np.int64(must), limit)
        return iu, ih, inv, new, int(tests) + len(iu)
    if len(keys) * len(hs) > limit:
        return keys[:0], keys[:0], keys[:0], keys[:0], limit + 1
    ius, ihs = [], []
    step = max(1, _BLOCK // max(1, len(hs)))
    for a in range(0, len(keys), step):
        block = keys[a : a + step]
        ok = (block[:, None] & hs[None, :]) == 0
        if must:
            ok &= ((block[:, None] | hs[None, :]) & must) == must
        iu, ih = np.nonzero(ok)
        ius.append(iu + a)
        ihs.append(ih)
    iu = np.concatenate(ius) if ius else np.zeros(0, dtype=np.int64)
    ih = np.concatenate(ihs) if ihs else np.zeros(0, dtype=np.int64)
    new, inv = np.unique(keys[iu] | hs[ih], return_inverse=True)
    return iu, ih, inv.reshape(-1), new, len(keys) * len(hs)



#: most count vectors (cards per class) the last enumerated location may have for the join to
#: count it together with the last location by classes (:class:`_Ending`).
_ENDING_VECTORS = 20_000


class _Vectors:
    """The count vectors ``n`` (``0 <= n_j <= cap[j]`` cards of class ``j``) whose rule sums
    ``a @ n`` lie within ``[lo, hi]``: first a class-by-class pass over the distinct rule sums
    alone (dropping sums past a high bound or that can no longer reach a low one; with how many
    partial vectors reach each), which counts them (``total``) before any is listed, then a
    backward pass to the sums some completion reaches, so listing keeps no partial vector that
    no vector extends (the pass over partial vectors themselves held several times the answer
    and cost a late view's refusal tens of ms)."""

    def __init__(self, cap: np.ndarray, a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        self.cap = cap
        self.work = 0
        self.total = 1 << 62
        #: per class: the state each (state, count taken) pair moves to (-1: a bound is broken)
        self.moves: list[np.ndarray] = []
        if len(hi) and int(np.prod((hi + 1).astype(object))) >= 1 << 62:  # too many fields for one key
            return
        place = np.cumprod(np.concatenate([[1], hi + 1]))[: len(hi)].astype(np.int64)
        room = (a * cap).sum(axis=1)
        sums = np.zeros((1, len(lo)), dtype=np.int64)
        ways = np.ones(1, dtype=np.int64)  # at most prod_j (cap_j + 1) <= 2**(cards) vectors
        for j in range(len(cap)):
            t = int(cap[j]) + 1
            took = np.repeat(sums, t, axis=0) + np.tile(np.arange(t, dtype=np.int64), len(sums))[:, None] * a[:, j]
            room = room - a[:, j] * cap[j]
            ok = np.all((took <= hi) & (took + room >= lo), axis=1)
            _k, first, inv = np.unique(took[ok] @ place, return_index=True, return_inverse=True)
            to = np.full(len(took), -1, dtype=np.int64)
            to[ok] = inv.reshape(-1)
            merged = np.zeros(len(first), dtype=np.int64)
            np.add.at(merged, to[ok], np.repeat(ways, t)[ok])
            self.moves.append(to.reshape(len(sums), t))
            sums, ways = took[ok][first], merged
            self.work += len(took)
        self.last_states = len(ways)
        self.total = int(ways.sum()) if len(cap) or np.all((lo <= 0) & (hi >= 0)) else 0

    def listed(self, limit: int) -> np.ndarray | None:
        """The vectors as rows, in lexicographic order, or None past ``limit`` of them (or where
        the sums did not fit one key)."""
        if self.total > limit:
            return None
        alive = [np.ones(self.last_states, dtype=bool)] if self.moves else []
        for to in self.moves[:0:-1]:
            ok = np.append(alive[-1], False)  # index -1: no move
            alive.append(ok[to].any(axis=1))
        alive.reverse()
        vecs = np.zeros((1 if self.total else 0, 0), dtype=np.int64)
        at = np.zeros(len(vecs), dtype=np.int64)
        for j, to in enumerate(self.moves):
            t = to.shape[1]
            nxt = np.append(alive[j], False)
            step = to[at].reshape(-1)
            keep = nxt[step]
            vecs = np.concatenate([np.repeat(vecs, t, axis=0), np.tile(np.arange(t, dtype=np.int64), len(vecs))[:, None]], axis=1)[keep]
            at = step[keep]
            self.work += len(at)
        return vecs


def _count_vectors(cap: np.ndarray, a: np.ndarray, lo: np.ndarray, hi: np.ndarray, limit: int) -> tuple[np.ndarray | None, int]:
    """Every count vector of :class:`_Vectors` as rows, and the work it took; None past
    ``limit`` vectors."""
    space = _Vectors(cap, a, lo, hi)
    vecs = space.listed(limit)
    return vecs, space.work


class _Ending:
    """The last two locations of a join counted together: ``y`` (the last one a join would
    enumerate) and ``z`` (which takes what is left). Cards that no rule or candidacy of either
    tells apart form a class, so how many ways the cards left ``R`` split between them depends
    only on how many cards of each class ``R`` has (its profile): the sum, over the count
    vectors ``n`` that meet ``y``'s rules (``n_j`` of class ``j`` at ``y``), of the product of
    C(r_j, n_j) where ``z``'s rules hold for ``r - n``. Why: on a 4-player view with hands of
    3,062, 1,512 and 25,616 sets every order of pair search took 15 million steps or more,
    while its 60,834 partial deals of two hands have a few thousand profiles and the third hand
    a few hundred count vectors."""

    def __init__(self, y: int, z: int, open_mask: int, cand: list[int], rules: list[list[tuple[int, int, int]]]) -> None:
        self.y, self.z = y, z
        sig: dict[tuple[int, ...], int] = {}
        k = 0
        while open_mask >> k:
            if open_mask >> k & 1:
                key = (cand[y] >> k & 1, cand[z] >> k & 1, *(m >> k & 1 for m, _lo, _hi in rules[y]),
                       *(m >> k & 1 for m, _lo, _hi in rules[z]))
                sig[key] = sig.get(key, 0) | 1 << k
            k += 1
        keys = list(sig)
        self.classes = np.array([sig[s] for s in keys], dtype=np.int64)
        size = np.array([bin(sig[s]).count("1") for s in keys], dtype=np.int64)
        in_y = np.array([s[0] for s in keys], dtype=bool)
        self.in_z = np.array([s[1] for s in keys], dtype=bool)
        ny = len(rules[y])
        a_y = np.array([s[2 : 2 + ny] for s in keys], dtype=np.int64).reshape(len(keys), ny).T
        self.a_z = np.array([s[2 + ny :] for s in keys], dtype=np.int64).reshape(len(keys), len(rules[z])).T
        self.lo_z = np.array([r[1] for r in rules[z]], dtype=np.int64)
        self.hi_z = np.array([r[2] for r in rules[z]], dtype=np.int64)
        lo_y = np.array([r[1] for r in rules[y]], dtype=np.int64)
        hi_y = np.array([r[2] for r in rules[y]], dtype=np.int64)
        self.work = 0
        self.vectors: np.ndarray | None = None
        if bin(open_mask).count("1") > 56:  # n_j C(r_j, n_j) summed must fit an int64
            return
        self.vectors, self.work = _count_vectors(np.where(in_y, size, 0), a_y, lo_y, hi_y, _ENDING_VECTORS)

    def profiles(self, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(profiles, inv)``: the distinct class counts of ``rest`` (cards left per partial
        deal), and which profile each partial deal has."""
        r = np.stack([_popcount(rest & c) for c in self.classes.tolist()], axis=1).reshape(len(rest), len(self.classes))
        place = np.cumprod(np.concatenate([[1], _popcount(self.classes)[:-1] + 1]))  # < 2**56: one int64 key
        _keys, first, inv = np.unique(r @ place, return_index=True, return_inverse=True)
        self.work += len(rest) * len(self.classes)
        return r[first], inv.reshape(-1)

    def ways(self, prof: np.ndarray) -> np.ndarray:
        """``w[p, v]``: the splits of profile ``p`` with count vector ``v`` at ``y`` (0 where
        ``v`` does not fit ``p`` or ``z``'s rules fail on what is left)."""
        assert self.vectors is not None
        v = self.vectors[None, :, :]
        r = prof[:, None, :]
        left = r - v
        ok = np.all((left >= 0) & (self.in_z | (left == 0)), axis=2)
        if len(self.lo_z):
            zs = left @ self.a_z.T
            ok &= np.all((zs >= self.lo_z) & (zs <= self.hi_z), axis=2)
        w = np.where(ok, np.prod(_BINOM[r, v], axis=2), 0)  # C(r, n) is 0 for n > r
        self.work += w.size
        return w

    def count(self, rest: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(g, at_y, inv)`` per profile: the ways to deal the cards left, and the ways with one
        given card of class ``j`` at ``y`` (``at_y[p, j]``); ``inv[u]``: partial deal ``u``'s profile."""
        prof, inv = self.profiles(rest)
        assert self.vectors is not None
        g = np.zeros(len(prof), dtype=np.int64)
        at_y = np.zeros(prof.shape, dtype=np.int64)
        step = max(1, (1 << 20) // max(1, len(self.vectors) * prof.shape[1]))
        for a in range(0, len(prof), step):
            w = self.ways(prof[a : a + step])
            g[a : a + step] = w.sum(axis=1)
            at_y[a : a + step] = w @ self.vectors  # ways x cards of the class at y
        at_y = np.where(prof > 0, at_y // np.maximum(prof, 1), 0)  # per card: n_j C(r_j, n_j) / r_j = C(r_j - 1, n_j - 1)
        return g, at_y, inv


def _binomials(n: int) -> np.ndarray:
    out = np.zeros((n + 1, n + 1), dtype=np.int64)
    for a in range(n + 1):
        out[a, 0] = 1
        for b in range(1, a + 1):
            out[a, b] = out[a - 1, b - 1] + out[a - 1, b]
    return out


#: C(a, b) for a, b <= 62 (a set of open cards fits an int64, so its splits' products do).
_BINOM = _binomials(62)


class _Tallied:
    """What both joins share for per-card tallies: the cache, and the cells of the cards fixed
    before the join (each at its place in every world); :meth:`_free_cells` fills the rest."""

    num_cards: int
    num_locations: int
    total: int
    fixed: list[int]
    _tallies: list[list[int]] | None

    def tallies(self) -> list[list[int]]:
        """``cells[card][loc]``: how many worlds put ``card`` at ``loc``."""
        if self._tallies is not None:
            return self._tallies
        cells = [[0] * self.num_locations for _ in range(self.num_cards)]
        if self.total:
            for k, z in enumerate(self.fixed):
                if z >= 0:
                    cells[k][z] = self.total
            self._free_cells(cells)
        self._tallies = cells
        return cells

    def _free_cells(self, cells: list[list[int]]) -> None:
        raise NotImplementedError


class _Join(_Tallied):
    """Exact counts by locations instead of cards: every location's possible sets of open
    cards (each location's constraints alone: Mafia Code's crossing counts leave a few hundred
    to a few thousand hands per player), then a dynamic programme over locations whose state is
    the set of cards dealt so far. The last location takes the cards left, checked against its
    constraints, so it is never enumerated (the box, or a hand nobody knows anything about).

    Why: the class DP keeps every crossing count of every hand open at once (70 bits, millions
    of states) while a world is one hand per location, and a few thousand hands per location
    meet in a few thousand partial deals. Raises :class:`_NoJoin` where a constraint spans
    locations (``NotAll``), two locations have too many sets, or the join would test more
    than ``pairs_cap`` pairs."""

    def __init__(self, q: Problem, hands_cap: int = _HANDS_CAP, pairs_cap: int = _PAIRS_CAP) -> None:
        if q.notalls or q.num_cards > 62:
            raise _NoJoin
        self.num_cards, self.num_locations = q.num_cards, q.num_locations
        self.work = 0
        nl = q.num_locations
        self.fixed = [(d.bit_length() - 1) if d & (d - 1) == 0 else -1 for d in q.dom]
        open_ = [k for k, z in enumerate(self.fixed) if z < 0]
        self.open_mask = _mask(open_)
        cand = [_mask(k for k in open_ if q.dom[k] >> z & 1) for z in range(nl)]
        rules: list[list[tuple[int, int, int]]] = [[] for _ in range(nl)]
        for cards, z, lo, hi in q.counts:
            rules[z].append((_mask(cards), lo, hi))
        for cards, z in q.clauses:
            rules[z].append((_mask(cards), 1, len(cards)))
        active = [z for z in range(nl) if cand[z]]
        if len(active) > 6:  # the plan tries every order of the locations
            raise _NoJoin
        cards_at = {z: [k for k in open_ if cand[z] >> k & 1] for z in active}
        sizes = {z: _count_hands(cards_at[z], rules[z]) for z in active}
        self.order, self.last, expected = _join_plan(sizes, len(open_), _join_kernel is None) if active else ([], -1, 0.0)
        if expected > _MODEL_SLACK * pairs_cap or any(sum(sizes[z].values()) > hands_cap for z in self.order):
            raise _NoJoin
        self.sets: dict[int, np.ndarray] = {}
        for z in self.order:
            hs = _hands(cards_at[z], rules[z], hands_cap)
            if hs is None:
                raise _NoJoin
            self.sets[z] = hs
            self.work += len(hs)
        self.cand = cand
        self.rules = rules
        # the exact integers fit int64 when the number of assignments does
        bound = 1
        for k in open_:
            bound *= bin(q.dom[k]).count("1")
        self.dtype: type = np.int64 if bound < 1 << 62 else object
        self.q = q
        endings = {}
        for y in self.order:
            end = _Ending(y, self.last, self.open_mask, cand, rules)
            self.work += end.work
            charge(end.work)
            if end.vectors is not None:
                endings[y] = end
        self.end: _Ending | None = endings.get(self.order[-1]) if self.order else None
        if _join_kernel is not None and 1 <= len(self.order) <= _SAMPLED_ORDERS:
            # every order, with the last two locations paired by search or counted by classes
            costs: dict[tuple[tuple[int, ...], bool], float] = {}
            for order in permutations(self.order):
                if len(order) > 1:
                    costs[order, False] = self._estimate(q, list(order), pairs_cap)[0]
                end = endings.get(order[-1])
                if end is not None:
                    walked, deals = self._estimate(q, list(order[:-1]), pairs_cap, {order[-1]})
                    assert end.vectors is not None
                    costs[order, True] = walked + deals * (len(end.classes) + len(end.vectors))
            if not costs:
                costs[tuple(self.order), False] = 0.0
            best = min(costs, key=lambda o: (costs[o], o))
            if costs[best] > _MODEL_SLACK * pairs_cap:  # the sample's deals overcount: a loose test
                raise _NoJoin
            self.order = list(best[0])
            self.end = endings[self.order[-1]] if best[1] else None
        #: the locations enumerated (all of ``order`` but the last where ``end`` counts it)
        self.walk = self.order[:-1] if self.end is not None else list(self.order)
        self._forward(q, pairs_cap)

    def _must(self, q: Problem, later: set[int]) -> np.int64:
        """The open cards no location in ``later`` may take (so dealt by now)."""
        return np.int64(_mask(k for k in range(self.num_cards) if self.fixed[k] < 0 and not any(q.dom[k] >> y & 1 for y in later)))

    def _alive(self, new: np.ndarray, later: set[int]) -> np.ndarray:
        """Which partial deals ``new`` the locations in ``later`` can still complete (a rule
        there needs at most as many of its cards as are left)."""
        rest = np.int64(self.open_mask) & ~new
        alive = np.ones(len(new), dtype=bool)
        for y in later:
            for m, lo, _hi in self.rules[y]:
                if lo:
                    alive &= _popcount(rest & np.int64(m)) >= lo
        return alive

    def _estimate(self, q: Problem, order: list[int], pairs_cap: int, after: set[int] | None = None) -> tuple[float, float]:
        """The steps the join would take in ``order`` (``after``: locations dealt after it,
        besides the last), and the partial deals it would end with, estimated on a sample of
        each layer's partial deals (every ``len // _ORDER_SAMPLE``-th, so the same every time),
        the sample's distinct next deals standing for the layer's. Why: the plan's model treats
        deals as random, but a hand's sets share cards (the crossing counts), and on a
        4-player mid-game view the model's order took 19 million steps where another takes 4."""
        # a prefix's layers depend only on it and the locations after it, so each is estimated
        # once per join (an order ended by classes is a prefix of the order that is not)
        memo: dict[tuple[tuple[int, ...], frozenset[int]], tuple[float, float, np.ndarray, bool]] = self.__dict__.setdefault("_prefixes", {})
        later = {self.last} | set(order) | (after or set()) if self.last >= 0 else set()
        cost, deals, keys, stopped = 0.0, 1.0, np.zeros(1, dtype=np.int64), False
        for i, z in enumerate(order):
            later.discard(z)
            key = (tuple(order[: i + 1]), frozenset(later))
            if key not in memo:
                if stopped:
                    memo[key] = (cost, deals, keys, True)
                else:
                    iu, _ih, inv, new, tests = _pairs(keys, self.sets[z], self._must(q, later), pairs_cap)
                    self.work += tests
                    charge(tests)
                    if tests > pairs_cap:
                        memo[key] = (float("inf"), float("inf"), keys, True)
                    else:
                        c = cost + deals * tests / len(keys)
                        new = new[self._alive(new, later)]
                        d = deals * len(new) / len(keys)
                        memo[key] = (c, d, new[:: max(1, len(new) // _ORDER_SAMPLE)], not len(new) or c > _MODEL_SLACK * pairs_cap)
            cost, deals, keys, stopped = memo[key]
        return cost, deals

    def _forward(self, q: Problem, pairs_cap: int) -> None:
        keys = np.zeros(1, dtype=np.int64)
        f = np.ones(1, dtype=self.dtype)
        self.layers: list[tuple[np.ndarray, np.ndarray]] = [(keys, f)]
        self.pairs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        later = {self.last} | set(self.order) if self.last >= 0 else set()
        tested = 0
        for z in self.walk:
            later.discard(z)
            hs = self.sets[z]
            iu, ih, inv, new, tests = _pairs(keys, hs, self._must(q, later), pairs_cap - tested)
            tested += tests
            charge(tests)
            self.work += tests
            if tested > pairs_cap:
                raise _NoJoin
            # partial deals the locations still to come cannot complete (a rule there needs
            # more of its cards than are left) are dropped before they multiply
            alive = self._alive(new, later)
            if not alive.all():
                renum = np.cumsum(alive) - 1
                keep = alive[inv]
                iu, ih, inv = iu[keep], ih[keep], renum[inv[keep]]
                new = new[alive]
            nf = np.zeros(len(new), dtype=self.dtype)
            np.add.at(nf, inv, f[iu])
            self.pairs.append((iu, ih, inv))
            keys, f = new, nf
            self.layers.append((keys, f))
        # the last location takes what is left
        rest = np.int64(self.open_mask) & ~keys
        self.end_ways: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if self.end is not None:  # it and the last enumerated location, by classes
            before = self.end.work
            self.end_ways = self.end.count(rest)
            g, _at_y, inv = self.end_ways
            charge(self.end.work - before)
            self.work += self.end.work - before
            valid = g[inv]
        elif self.last < 0:
            valid = rest == 0
        else:
            valid = (rest & ~np.int64(self.cand[self.last])) == 0
            for m, lo, hi in self.rules[self.last]:
                c = _popcount(rest & np.int64(m))
                valid &= (c >= lo) & (c <= hi)
        self.rest = rest
        self.valid = np.asarray(valid).astype(np.int64).astype(self.dtype)
        self.total = int((f * self.valid).sum()) if len(f) else 0
        self._back: list[np.ndarray] | None = None
        self._tallies: list[list[int]] | None = None
        self._starts: list[np.ndarray] | None = None

    def _backward(self) -> list[np.ndarray]:
        """``back[i][u]``: the ways to deal the locations from ``order[i]`` on, given layer
        ``i``'s partial deal ``u``."""
        if self._back is None:
            back = [self.valid]
            for (keys, _f), (iu, _ih, inv) in zip(self.layers[-2::-1], self.pairs[::-1], strict=True):
                b = np.zeros(len(keys), dtype=self.dtype)
                np.add.at(b, iu, back[-1][inv])
                back.append(b)
            self._back = back[::-1]
        return self._back

    def _set_weights(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per location: ``(loc, sets as masks of open cards, worlds with each set there)``."""
        back = self._backward()
        out = []
        for i, z in enumerate(self.walk):
            iu, ih, inv = self.pairs[i]
            w = np.zeros(len(self.sets[z]), dtype=self.dtype)
            np.add.at(w, ih, self.layers[i][1][iu] * back[i + 1][inv])
            out.append((z, self.sets[z], w))
        if self.last >= 0 and self.end is None:
            out.append((self.last, self.rest, self.layers[-1][1] * self.valid))
        return out

    def _end_cells(self, cells: list[list[int]]) -> None:
        """The tallies of the two locations :class:`_Ending` counts together: per card left,
        the ways with it at ``y`` given its class, summed over the partial deals leaving it."""
        assert self.end is not None and self.end_ways is not None
        g, at_y, inv = self.end_ways
        f = self.layers[-1][1]
        here = f * g[inv].astype(self.dtype)
        for j, c in enumerate(self.end.classes.tolist()):
            at = f * at_y[inv, j].astype(self.dtype)
            if self.dtype is not object:  # one product per class: a card's partial deals leaving it
                ks = [k for k in range(self.num_cards) if c >> k & 1]
                left = (self.rest[:, None] >> np.array(ks, dtype=np.int64)) & 1
                for k, a, h in zip(ks, (left.T @ at).tolist(), (left.T @ here).tolist(), strict=True):
                    cells[k][self.end.y] = int(a)
                    cells[k][self.end.z] = int(h) - int(a)
                continue
            for k in range(self.num_cards):
                if c >> k & 1:
                    left = (self.rest >> k) & 1 == 1
                    cells[k][self.end.y] = int(at[left].sum())
                    cells[k][self.end.z] = int(here[left].sum()) - cells[k][self.end.y]

    def _full(self) -> _Join:
        """This join with its last two locations paired by search (per-set answers need it)."""
        import copy

        full = copy.copy(self)
        full.end = None
        full.walk = list(self.order)
        try:
            full._forward(self.q, _MODEL_SLACK * _PAIRS_CAP)
        except _NoJoin:
            raise TooLarge("split: the per-hand counts of this join need more than its pair budget") from None
        return full

    def _free_cells(self, cells: list[list[int]]) -> None:
        for z, masks, w in self._set_weights():
            for k in range(self.num_cards):
                if self.cand[z] >> k & 1:
                    cells[k][z] = int(w[(masks >> k) & 1 == 1].sum())
        if self.end is not None:
            self._end_cells(cells)

    def solution_counts(self, loc: int) -> dict[tuple[int, ...], int]:
        """Worlds per set of cards at ``loc`` (its fixed cards included)."""
        if not self.total:
            return {}
        if self.end is not None and loc in (self.end.y, self.end.z):
            return self._full().solution_counts(loc)
        fixed = [k for k, z in enumerate(self.fixed) if z == loc]
        for z, masks, w in self._set_weights():
            if z == loc:
                out: dict[tuple[int, ...], int] = {}
                for m, n in zip(masks.tolist(), w.tolist(), strict=True):
                    if n:
                        key = tuple(sorted(fixed + [k for k in range(self.num_cards) if m >> k & 1]))
                        out[key] = out.get(key, 0) + int(n)
                return out
        return {tuple(fixed): self.total}

    def sample(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` exactly uniform worlds: each location's set drawn in order with probability
        proportional to the ways to deal the rest."""
        if not self.total or n <= 0:
            return []
        back = self._backward()
        if self._starts is None:
            self._starts = []
            for iu, _ih, _inv in self.pairs:
                by = np.argsort(iu, kind="stable")
                self._starts.append(by)
        out = []
        for _ in range(n):
            w = np.array(self.fixed, dtype=np.int64)
            u = 0
            for i, z in enumerate(self.walk):
                iu, ih, inv = self.pairs[i]
                by = self._starts[i]
                lo, hi = np.searchsorted(iu[by], [u, u + 1])
                idx = by[lo:hi]
                r = randbelow(rng, int(back[i][u]))
                for j in idx.tolist():
                    b = int(back[i + 1][inv[j]])
                    if r < b:
                        break
                    r -= b
                hand = int(self.sets[z][ih[j]])
                for k in range(self.num_cards):
                    if hand >> k & 1:
                        w[k] = z
                u = int(inv[j])
            rest = int(self.rest[u])
            if self.end is not None:
                self._end_sample(w, u, rng)
            else:
                for k in range(self.num_cards):
                    if rest >> k & 1:
                        w[k] = self.last
            out.append(w)
        return out


    def _end_sample(self, w: np.ndarray, u: int, rng: np.random.Generator) -> None:
        """Deal the cards partial deal ``u`` leaves between :class:`_Ending`'s two locations,
        uniformly: a count vector with probability proportional to its splits, then that many
        cards of each class, uniformly, at ``y``."""
        assert self.end is not None and self.end_ways is not None and self.end.vectors is not None
        _g, _at_y, inv = self.end_ways
        rest = int(self.rest[u])
        prof = np.array([[bin(rest & c).count("1") for c in self.end.classes.tolist()]], dtype=np.int64)
        ways = self.end.ways(prof)[0].tolist()
        v = bisect.bisect_right(list(accumulate(ways)), randbelow(rng, sum(ways)))
        for j, c in enumerate(self.end.classes.tolist()):
            cards = [k for k in range(self.num_cards) if (rest & c) >> k & 1]
            at_y = set(rng.permutation(len(cards))[: int(self.end.vectors[v, j])].tolist())
            for i, k in enumerate(cards):
                w[k] = self.end.y if i in at_y else self.end.z


#: most (profile, count vector) pairs the count by classes tests before it gives up (one test:
#: a comparison per class, in numpy blocks).
_CLASS_CAP = 1_000_000
#: most card classes the count by classes takes (past that the hands are mostly single cards,
#: and the join by sets is the better count).
_CLASS_MAX = 40
#: most profiles (prod_j (s_j + 1) over the classes) the count by classes takes: past it the
#: classes are mostly single cards, its profiles are the join by sets' partial deals, and that
#: join's compiled walk is the faster count (4-player benchmark views: the early ones have
#: 0.2-6 million, the late ones 50-100 million).
_CLASS_SPACE = 1 << 24
#: DP transitions a branch's DP may take before the branch is offered to the count by classes:
#: under it the DP is the cheaper count (2- and 3-player benchmark views: 1-2 ms by DP, 3-5 ms
#: by classes), past it the classes win (early 4-player views: 0.2-0.8 s by DP or joins, 6-60
#: ms by classes).
_QUICK_DP = 50_000
#: count-by-classes refusals a query sees before it stops trying them.
_CLASS_TRIES = 2


def _column_sums(w: np.ndarray, n: np.ndarray) -> list[int]:
    """``sum_p w[p] * n[p, j]`` per column ``j``, exactly: grouped by the value of ``n[p, j]``, so
    no partial sum passes what ``w`` sums to (worlds), where a product could pass an int64."""
    out = []
    for j in range(n.shape[1]):
        col = n[:, j]
        t = 0
        for c in np.unique(col).tolist():
            if c:
                t += int(c) * int(w[col == c].sum())
        out.append(t)
    return out


class _ClassJoin(_Tallied):
    """Exact counts by card classes, location by location. Cards that no candidacy or rule tells
    apart (the same possible locations, in the same counts) form a class; a world is then one
    count vector per location (cards of each class it holds, meeting its rules; the vectors sum
    to the class sizes) times prod_j multinomial(s_j; n_1j, n_2j, ...) ways to pick the cards. A
    DP over locations whose state is the profile of cards dealt so far (cards per class) adds
    them up; the last location takes what is left, checked against its rules, so it is never
    listed. Per-card tallies follow by symmetry (every card of a class is at ``z`` in the same
    number of worlds).

    Why: early Mafia Code views (a few written cells per sheet) have 11-17 classes of 28 open
    cards, a few dozen count vectors per hand and a few hundred profiles; view 224 of
    ``benchmarks.mafia_code`` (38 million worlds) takes 1,816 pair tests here where the join by
    sets and branching took 12 million steps. Late views have mostly single-card classes:
    there the join by sets (:class:`_Join`) is better, and this refuses (:class:`_NoJoin`) past
    ``cap`` pair tests, past :data:`_CLASS_MAX` classes, where a constraint spans locations
    (``NotAll``) or two locations have more than :data:`_ENDING_VECTORS` count vectors."""

    def __init__(self, q: Problem, cap: int = _CLASS_CAP) -> None:
        if q.notalls or q.num_cards > 62:
            raise _NoJoin
        nl = q.num_locations
        self.num_cards, self.num_locations = q.num_cards, nl
        self.work = 0
        self.fixed = [(d.bit_length() - 1) if d & (d - 1) == 0 else -1 for d in q.dom]
        open_ = [k for k, z in enumerate(self.fixed) if z < 0]
        rules = [(_mask(cards), z, lo, hi) for cards, z, lo, hi in q.counts]
        rules += [(_mask(cards), z, 1, len(cards)) for cards, z in q.clauses]
        sig: dict[tuple[int, ...], list[int]] = {}
        for k in open_:
            sig.setdefault((q.dom[k], *(r[0] >> k & 1 for r in rules)), []).append(k)
        if len(sig) > _CLASS_MAX:
            raise _NoJoin
        keys = list(sig)
        m = len(keys)
        #: the open cards of each class, and how many
        self.members = [sig[s] for s in keys]
        self.size = np.array([len(c) for c in self.members], dtype=np.int64).reshape(m)
        active = [z for z in range(nl) if any(s[0] >> z & 1 for s in keys)]
        #: per location: (rule rows over the classes, low bounds, high bounds, classes allowed there)
        if sum(int(s).bit_length() + 1 for s in self.size.tolist()) > 62:  # a profile must pack in an int64
            raise _NoJoin
        if int(np.prod((self.size + 1).astype(object))) > _CLASS_SPACE:  # mostly single cards: the join by sets
            raise _NoJoin
        self.bounds: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        spaces: dict[int, _Vectors] = {}
        for z in active:
            mine = [i for i, r in enumerate(rules) if r[1] == z]
            a = np.array([[s[1 + i] for s in keys] for i in mine], dtype=np.int64).reshape(len(mine), m)
            lo = np.array([rules[i][2] for i in mine], dtype=np.int64)
            hi = np.array([rules[i][3] for i in mine], dtype=np.int64)
            allowed = np.array([s[0] >> z & 1 for s in keys], dtype=bool).reshape(m)
            self.bounds[z] = (a, lo, hi, allowed)
            spaces[z] = _Vectors(np.where(allowed, self.size, 0), a, lo, hi)
            self.work += spaces[z].work
            charge(spaces[z].work)
        counted = {z: sp.total for z, sp in spaces.items()}
        # the last location takes the cards left: the one with the most count vectors (never listed)
        self.last = max(active, key=lambda z: (counted[z], z), default=-1)
        #: the locations dealt by count vectors, fewest vectors first
        self.walk = sorted((z for z in active if z != self.last), key=lambda z: (counted[z], z))
        if len(self.walk) > 1 and counted[self.walk[0]] * counted[self.walk[1]] > cap:  # the first pair tests alone
            raise _NoJoin
        self.vectors: dict[int, np.ndarray] = {}
        for z in self.walk:
            before = spaces[z].work
            vecs = spaces[z].listed(_ENDING_VECTORS)
            self.work += spaces[z].work - before
            charge(spaces[z].work - before)
            if vecs is None:
                raise _NoJoin
            self.vectors[z] = vecs
        bound = 1
        for k in open_:
            bound *= bin(q.dom[k]).count("1")
        self.dtype: type = np.int64 if bound < 1 << 62 else object
        self._back: list[np.ndarray] | None = None
        self._tallies: list[list[int]] | None = None
        self._starts: list[np.ndarray] | None = None
        self._forward(cap)

    def _alive(self, prof: np.ndarray, later: list[int]) -> np.ndarray:
        """Which profiles (cards dealt per class) the locations in ``later`` can complete: each
        class no later location may take is dealt, and each rule there can still be met."""
        rest = self.size - prof
        somewhere = np.zeros(len(self.size), dtype=bool)
        for y in later:
            somewhere |= self.bounds[y][3]
        alive = np.all((rest == 0) | somewhere, axis=1)
        for y in later:
            a, lo, _hi, _allowed = self.bounds[y]
            if len(lo):
                alive &= np.all(rest @ a.T >= lo, axis=1)
        return alive

    def _forward(self, cap: int) -> None:
        # a profile packed in one int64: class j's count in a field of bit_length(s_j) bits and a
        # guard bit above it; adding ``over`` (2**bits - 1 - s_j per field) sets the guard of
        # each field past its class size, so one addition tests every class at once
        m = len(self.size)
        width = [int(s).bit_length() + 1 for s in self.size.tolist()]
        offset = [0, *accumulate(width)]
        place = np.array([1 << b for b in offset[:-1]], dtype=np.int64)
        over = np.int64(sum(((1 << (w - 1)) - 1 - s) << b for w, s, b in zip(width, self.size.tolist(), offset, strict=False)))
        guard = np.int64(sum(1 << (b + w - 1) for w, b in zip(width, offset, strict=False)))
        many = self.size > 1
        prof = np.zeros((1, m), dtype=np.int64)
        f = np.ones(1, dtype=self.dtype)
        self.layers: list[tuple[np.ndarray, np.ndarray]] = [(prof, f)]
        #: per listed location: (profile index, vector index, new profile index, ways to pick the cards)
        self.pairs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        tested = 0
        for i, z in enumerate(self.walk):
            v = self.vectors[z]
            tests = len(prof) * len(v)
            tested += tests
            if tested > cap:
                raise _NoJoin
            self.work += tests
            charge(tests)
            # profile + vector fits the class sizes iff no field's guard bit is set
            pk, vk = prof @ place, v @ place + over
            ius, ivs = [], []
            step = max(1, _BLOCK // max(1, len(v)))
            for a in range(0, len(prof), step):
                iu, iv = np.nonzero(((pk[a : a + step, None] + vk[None, :]) & guard) == 0)
                ius.append(iu + a)
                ivs.append(iv)
            iu, iv = np.concatenate(ius), np.concatenate(ivs)
            _k, first, inv = np.unique(pk[iu] + vk[iv] - over, return_index=True, return_inverse=True)
            inv = inv.reshape(-1)
            new = prof[iu[first]] + v[iv[first]]
            alive = self._alive(new, self.walk[i + 1 :] + ([self.last] if self.last >= 0 else []))
            if i + 1 < len(self.walk) and tested + int(alive.sum()) * len(self.vectors[self.walk[i + 1]]) > cap:
                raise _NoJoin  # the next layer's tests, before this one's ways are worked out
            if not alive.all():
                renum = np.cumsum(alive) - 1
                keep = alive[inv]
                iu, iv, inv = iu[keep], iv[keep], renum[inv[keep]]
                new = new[alive]
            # ways to pick the cards: C(cards of class j left, n_j) over the classes of two or
            # more cards (a single card's is 1 wherever the pair fits)
            coef = np.prod(_BINOM[(self.size - prof[iu])[:, many], v[iv][:, many]], axis=1).reshape(len(iu))
            if self.dtype is object:
                coef = coef.astype(object)
            nf = np.zeros(len(new), dtype=self.dtype)
            np.add.at(nf, inv, f[iu] * coef)
            self.pairs.append((iu, iv, inv, coef))
            prof, f = new, nf
            self.layers.append((prof, f))
        rest = self.size - prof
        if self.last < 0:
            valid = np.all(rest == 0, axis=1)
        else:
            a, lo, hi, allowed = self.bounds[self.last]
            valid = np.all((rest == 0) | allowed, axis=1)
            if len(lo):
                sums = rest @ a.T
                valid &= np.all((sums >= lo) & (sums <= hi), axis=1)
        self.rest = rest
        self.valid = np.asarray(valid).astype(np.int64).astype(self.dtype)
        self.total = int((f * self.valid).sum()) if len(f) else 0

    def _backward(self) -> list[np.ndarray]:
        """``back[i][u]``: the ways to deal the locations from ``walk[i]`` on, given layer ``i``'s
        profile ``u``."""
        if self._back is None:
            back = [self.valid]
            for (prof, _f), (iu, _iv, inv, coef) in zip(self.layers[-2::-1], self.pairs[::-1], strict=True):
                b = np.zeros(len(prof), dtype=self.dtype)
                np.add.at(b, iu, coef * back[-1][inv])
                back.append(b)
            self._back = back[::-1]
        return self._back

    def _by_vector(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per location: ``(loc, count vectors, worlds with each vector there)`` (a vector may
        repeat, on pairs of different profiles)."""
        back = self._backward()
        out = []
        for i, z in enumerate(self.walk):
            iu, iv, inv, coef = self.pairs[i]
            out.append((z, self.vectors[z][iv], self.layers[i][1][iu] * coef * back[i + 1][inv]))
        if self.last >= 0:
            out.append((self.last, self.rest, self.layers[-1][1] * self.valid))
        return out

    def _free_cells(self, cells: list[list[int]]) -> None:
        for z, vecs, w in self._by_vector():
            for j, t in enumerate(_column_sums(w, vecs)):
                per, left = divmod(t, int(self.size[j]))
                assert left == 0, "the cards of a class are interchangeable"
                for k in self.members[j]:
                    cells[k][z] = per

    def solution_counts(self, loc: int) -> dict[tuple[int, ...], int]:
        """Worlds per set of cards at ``loc`` (its fixed cards included): each count vector's
        worlds split evenly over the sets with that many cards of each class."""
        from itertools import combinations, product
        from math import comb

        if not self.total:
            return {}
        fixed = [k for k, z in enumerate(self.fixed) if z == loc]
        ways: dict[tuple[int, ...], int] = {}
        for z, vecs, w in self._by_vector():
            if z == loc:
                for n, x in zip(vecs.tolist(), w.tolist(), strict=True):
                    if x:
                        ways[tuple(n)] = ways.get(tuple(n), 0) + int(x)
        if not ways:
            return {tuple(fixed): self.total}
        out: dict[tuple[int, ...], int] = {}
        for n, x in ways.items():
            sets = 1
            for j, c in enumerate(n):
                sets *= comb(len(self.members[j]), c)
            charge(sets)
            per = x // sets
            for parts in product(*(combinations(self.members[j], c) for j, c in enumerate(n))):
                out[tuple(sorted(fixed + [k for part in parts for k in part]))] = per
        return out

    def sample(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` exactly uniform worlds: each location's count vector drawn in order with
        probability proportional to the ways to deal the rest, then each class's cards shuffled
        and dealt out in those numbers."""
        if not self.total or n <= 0:
            return []
        back = self._backward()
        if self._starts is None:
            self._starts = [np.argsort(iu, kind="stable") for iu, _iv, _inv, _c in self.pairs]
        out = []
        for _ in range(n):
            w = np.array(self.fixed, dtype=np.int64)
            u = 0
            dealt = []
            for i, z in enumerate(self.walk):
                iu, iv, inv, coef = self.pairs[i]
                by = self._starts[i]
                lo, hi = np.searchsorted(iu[by], [u, u + 1])
                r = randbelow(rng, int(back[i][u]))
                for j in by[lo:hi].tolist():
                    b = int(coef[j]) * int(back[i + 1][inv[j]])
                    if r < b:
                        break
                    r -= b
                dealt.append((z, self.vectors[z][iv[j]].tolist()))
                u = int(inv[j])
            for j, cards in enumerate(self.members):
                order = [cards[int(x)] for x in rng.permutation(len(cards))]
                at = 0
                for z, vec in dealt:
                    for k in order[at : at + vec[j]]:
                        w[k] = z
                    at += vec[j]
                for k in order[at:]:
                    w[k] = self.last
            out.append(w)
        return out


class SplitSolver(Solver):
    """Exact totals and per-cell tallies by branching on card locations until each branch's DP
    is narrow (``max_bits``) and cheap (``branch_limit`` transitions), then summing.

    A branch whose DP does not finish within :data:`_QUICK_DP` transitions is first offered to
    the count by card classes (``classes``, :class:`_ClassJoin`: count vectors per location
    over cards no rule tells apart), which
    answers early Mafia Code views (few written cells, a dozen classes) in a few thousand pair
    tests; it refuses late views (mostly single-card classes) within :data:`_CLASS_CAP` tests,
    at most :data:`_CLASS_TRIES` times per query. A branch too wide for the kernels (or too big for its DP budget) is first counted by
    locations (``join``, :class:`_Join`: each location's possible sets, joined), which answers
    late Mafia Code views with crossing counts 20-60x faster than branching; where that plan
    is too big (early views: tens of thousands of sets per hand), branching goes on. Before
    branching at all, a knowledge base too wide for the kernels gets one try of the
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
        join: bool = True,
        classes: bool = True,
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
        self.join = bool(join)
        self.classes = bool(classes)
        self._cache: OrderedDict[tuple, Tally] = OrderedDict()
        #: branches counted by a DP, branches split further and DP transitions spent, in the
        #: last uncached query.
        self.leaves = 0
        self.splits = 0
        self.work = 0
        #: branches counted by locations (:class:`_Join`) in the last uncached query.
        self.joins = 0
        self._refused = 0
        #: branches counted by card classes (:class:`_ClassJoin`) in the last uncached query.
        self.classed = 0
        self._class_refused = 0

    # -- the branching ----------------------------------------------------------------------
    def _branches(self, kb: KnowledgeBase) -> Iterator[tuple[Problem, Plan]]:
        """``(problem, plan)`` of branches that partition the worlds of ``kb`` (depth first;
        inconsistent branches are left out)."""
        self.check_supported(kb)
        self.leaves = self.splits = self.work = self.joins = self._refused = self.classed = self._class_refused = 0
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
            wide = _min_bits(q) > self.max_bits
            plan = None
            if self.classes and self._class_refused < _CLASS_TRIES:
                if not wide:  # a small DP is cheaper than its count by classes: try it first
                    plan = self._attempt(q, min(_QUICK_DP, budget), self.max_bits)
                if plan is None:
                    by_classes = self._by_classes(q)
                    if by_classes is not None:
                        root = False
                        if by_classes.total:
                            yield q, by_classes
                        continue
            if plan is None:
                joined = self._join(q) if wide and self.join else None  # the class DP is sure to be too wide
                if joined is not None:
                    root = False
                    if joined.total:
                        yield q, joined
                    continue
                plan = self._attempt(q, budget, self.max_bits)
            if plan is None and not wide and self.join:
                joined = self._join(q)
                if joined is not None:
                    root = False
                    if joined.total:
                        yield q, joined
                    continue
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

    def _join(self, q: Problem) -> _Join | None:
        """Branch ``q`` counted by locations (:class:`_Join`), or None where that does not
        apply or would pass what is left of the limit (its work is counted either way)."""
        if self._refused >= _JOIN_TRIES:
            return None
        left = self.limit - self.work
        try:
            join = _Join(q, pairs_cap=min(_PAIRS_CAP, left))
        except _NoJoin:
            self.work += BRANCH_STEPS
            self._refused += 1
            return None
        self.work += join.work
        self.joins += 1
        return join

    def _by_classes(self, q: Problem) -> _ClassJoin | None:
        """Branch ``q`` counted by card classes (:class:`_ClassJoin`), or None where that does not
        apply or would pass its cap or what is left of the limit (its work is counted either way)."""
        try:
            plan = _ClassJoin(q, cap=min(_CLASS_CAP, self.limit - self.work))
        except _NoJoin:
            self.work += BRANCH_STEPS
            self._class_refused += 1
            return None
        self.work += plan.work
        self.classed += 1
        return plan

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
        for q, plan in self._branches(kb):
            found = plan.solution_counts(z) if isinstance(plan, (_Join, _ClassJoin)) else solution_counts(q, z, self.limit)
            for cards, n in found.items():
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
