"""Compiled block step of ``epoch-gibbs`` (numba): the ``frontier`` DP over one block of cards
with every other card fixed, an exact draw of the block's histories and their conditional cells.

The knowledge base comes flattened (:class:`solvers.block_sampler._Flat`): ``J`` sums
``sum over cards of feature(history) op n``; each card's histories grouped into *options*
(histories with the same feature row), an option's feature row ``feat[o, J]``, its number of
histories ``mult[o]`` and of those ending at each location ``ends[o, L]``. A state is the
vector of the block's partial sums that vary within the block (a sum is dropped from the key
once its last varying card is taken and it holds); states are merged through an
open-addressing hash table. Counts are float64 (a block of 20 cards with 77 histories each has
at most 1e38 completions, well inside its range; the draw's weights are exact to rounding).
Without numba the same code runs as plain Python, far slower.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # numba is the optional "fast" extra
    from numba import njit
except ImportError:  # pragma: no cover - exercised only without the extra

    def njit(**_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return lambda f: f

__all__ = ["block_step", "swap_moves"]

OK, TOO_MANY_STATES, TOO_MUCH_WORK, NO_COMPLETION = 0, 1, 2, 3


@njit(cache=True)
def _hash(row: np.ndarray) -> np.uint64:
    h = np.uint64(1469598103934665603)
    for v in row:
        h = (h ^ np.uint64(v + 32768)) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def block_step(block: np.ndarray, chosen: np.ndarray, hist_opt_ptr: np.ndarray, hist_opt: np.ndarray,
               opt_ptr: np.ndarray, feat: np.ndarray, mult: np.ndarray, ends: np.ndarray,
               opt_hist_ptr: np.ndarray, opt_hist: np.ndarray, op: np.ndarray, n: np.ndarray, tot: np.ndarray,
               u: np.ndarray, max_states: int, max_work: int, cells: np.ndarray, picks: np.ndarray) -> tuple[int, int]:
    """Resample ``block``'s histories given every other card's ``chosen`` history.

    ``tot[j]``: sum ``j`` over the current world (updated in place with ``chosen``); ``u``: 2 per
    block card uniform draws in [0, 1); ``cells[i, z]`` (out): P(block card i ends at z | the
    others); ``picks[i]`` (out): its new history. Returns (status, transitions examined)."""
    k = len(block)
    J = len(n)
    L = ends.shape[1]
    # the sums' targets for the block: the others' share off
    r = n - tot
    for i in range(k):
        c = block[i]
        o = hist_opt[hist_opt_ptr[c] + chosen[c]]
        for j in range(J):
            r[j] += feat[o, j]
    # per position, the least and most each sum can gain; sums varying within the block
    lo = np.zeros((k, J), dtype=np.int64)
    hi = np.zeros((k, J), dtype=np.int64)
    for i in range(k):
        c = block[i]
        for j in range(J):
            a, b = 1 << 30, -(1 << 30)
            for o in range(opt_ptr[c], opt_ptr[c + 1]):
                v = feat[o, j]
                a = min(a, v)
                b = max(b, v)
            lo[i, j], hi[i, j] = a, b
    varies = np.zeros(J, dtype=np.bool_)
    last = np.full(J, -1, dtype=np.int64)
    for j in range(J):
        fixed = 0
        for i in range(k):
            if lo[i, j] != hi[i, j]:
                varies[j] = True
                last[j] = i
            else:
                fixed += lo[i, j]
        if not varies[j]:
            v = fixed
            if (op[j] == 0 and v != r[j]) or (op[j] == 1 and v > r[j]) or (op[j] == 2 and v < r[j]):
                return NO_COMPLETION, 0
    cols = np.flatnonzero(varies)
    A = len(cols)
    # the targets of the varying sums, less the fixed shares; what positions i.. can still add
    target = np.zeros(A, dtype=np.int64)
    for a in range(A):
        j = cols[a]
        target[a] = r[j]
        for i in range(k):
            if lo[i, j] == hi[i, j]:
                target[a] -= lo[i, j]
    rem_lo = np.zeros((k + 1, A), dtype=np.int64)
    rem_hi = np.zeros((k + 1, A), dtype=np.int64)
    for i in range(k - 1, -1, -1):
        for a in range(A):
            j = cols[a]
            vl, vh = (lo[i, j], hi[i, j]) if lo[i, j] != hi[i, j] else (0, 0)
            rem_lo[i, a] = rem_lo[i + 1, a] + vl
            rem_hi[i, a] = rem_hi[i + 1, a] + vh
    # forward: transitions (state, option, next state) per layer, contiguous per state
    tr_a = np.empty(max_work, dtype=np.int64)
    tr_o = np.empty(max_work, dtype=np.int64)
    tr_b = np.empty(max_work, dtype=np.int64)
    layer_ptr = np.zeros(k + 1, dtype=np.int64)
    layer_size = np.zeros(k + 1, dtype=np.int64)
    fwd_ptr = np.zeros(k + 2, dtype=np.int64)
    fwd = np.empty(max_states * (k + 1) + 1, dtype=np.float64)
    cur = np.zeros((1, A), dtype=np.int16)
    layer_size[0] = 1
    fwd[0] = 1.0
    fwd_ptr[1] = 1
    work = 0
    top = 1
    while top < 2 * max_states:
        top *= 2
    table = np.full(top, -1, dtype=np.int64)
    nxt = np.empty((max_states, A), dtype=np.int16)
    cand = np.empty(A, dtype=np.int16)
    t = 0
    for i in range(k):
        c = block[i]
        m = layer_size[i]
        # a table twice the most states this layer can make (cleared only that far)
        cap = 1
        while cap < 2 * min(max_states, m * (opt_ptr[c + 1] - opt_ptr[c])) and cap < top:
            cap *= 2
        table[:cap] = -1
        size = 0
        base = fwd_ptr[i]
        nbase = fwd_ptr[i + 1]
        layer_ptr[i] = t
        for s in range(m):
            for o in range(opt_ptr[c], opt_ptr[c + 1]):
                work += 1
                if work > max_work:
                    return TOO_MUCH_WORK, work
                ok = True
                for a in range(A):
                    j = cols[a]
                    if last[j] < i:  # closed earlier
                        cand[a] = 0
                        continue
                    v = cur[s, a] + (feat[o, j] if lo[i, j] != hi[i, j] else 0)
                    tg = target[a]
                    if op[j] != 2 and v + rem_lo[i + 1, a] > tg:
                        ok = False
                        break
                    if op[j] != 1 and v + rem_hi[i + 1, a] < tg:
                        ok = False
                        break
                    cand[a] = 0 if last[j] == i else v  # closed and holding: out of the key
                if not ok:
                    continue
                h = _hash(cand)
                slot = np.int64(h & np.uint64(cap - 1))
                while True:
                    q = table[slot]
                    if q < 0:
                        if size >= max_states:
                            return TOO_MANY_STATES, work
                        nxt[size] = cand
                        table[slot] = size
                        fwd[nbase + size] = 0.0
                        q = size
                        size += 1
                        break
                    same = True
                    for a in range(A):
                        if nxt[q, a] != cand[a]:
                            same = False
                            break
                    if same:
                        break
                    slot = (slot + 1) & (cap - 1)
                tr_a[t] = s
                tr_o[t] = o
                tr_b[t] = q
                t += 1
                fwd[nbase + q] += fwd[base + s] * mult[o]
        if size == 0:
            return NO_COMPLETION, work
        layer_size[i + 1] = size
        fwd_ptr[i + 2] = nbase + size
        cur = nxt[:size].copy()
    layer_ptr[k] = t
    # backward: completions of each state by the cards after it
    back = np.zeros(fwd_ptr[k + 1], dtype=np.float64)
    back[fwd_ptr[k]] = 1.0
    for i in range(k - 1, -1, -1):
        for x in range(layer_ptr[i], layer_ptr[i + 1]):
            back[fwd_ptr[i] + tr_a[x]] += mult[tr_o[x]] * back[fwd_ptr[i + 1] + tr_b[x]]
    total = back[0]
    # the block's conditional cells of the last epoch
    for i in range(k):
        for z in range(L):
            cells[i, z] = 0.0
        for x in range(layer_ptr[i], layer_ptr[i + 1]):
            w = fwd[fwd_ptr[i] + tr_a[x]] * back[fwd_ptr[i + 1] + tr_b[x]] / total
            o = tr_o[x]
            for z in range(L):
                if ends[o, z]:
                    cells[i, z] += w * ends[o, z]
    # an exact draw: each card an option by its completions, then one of its histories
    s = 0
    for i in range(k):
        x0 = layer_ptr[i]
        while tr_a[x0] != s:  # transitions of a layer are grouped by state, in order
            x0 += 1
        x1 = x0
        weight = 0.0
        while x1 < layer_ptr[i + 1] and tr_a[x1] == s:
            weight += mult[tr_o[x1]] * back[fwd_ptr[i + 1] + tr_b[x1]]
            x1 += 1
        pick = u[2 * i] * weight
        x = x0
        while x < x1 - 1:
            pick -= mult[tr_o[x]] * back[fwd_ptr[i + 1] + tr_b[x]]
            if pick < 0:
                break
            x += 1
        o = tr_o[x]
        span = opt_hist_ptr[o + 1] - opt_hist_ptr[o]
        picks[i] = opt_hist[opt_hist_ptr[o] + min(span - 1, int(u[2 * i + 1] * span))]
        s = tr_b[x]
    # the new world's sums
    for i in range(k):
        c = block[i]
        old = hist_opt[hist_opt_ptr[c] + chosen[c]]
        new = hist_opt[hist_opt_ptr[c] + picks[i]]
        for j in range(J):
            tot[j] += feat[new, j] - feat[old, j]
        chosen[c] = picks[i]
    return OK, work


@njit(cache=True)
def swap_moves(chosen: np.ndarray, hist_opt_ptr: np.ndarray, hist_opt: np.ndarray, feat: np.ndarray,
               code_sorted: np.ndarray, code_index: np.ndarray, code: np.ndarray, op: np.ndarray, n: np.ndarray,
               tot: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> int:
    """Metropolis swaps: for each pair ``(pa[t], pb[t])`` the two cards trade their whole
    histories when each may have the other's and every sum still holds (the proposal is its
    own reverse and the target uniform, so a consistent swap is always accepted). ``code``:
    each card's histories as integers (per card ``hist_opt_ptr[c]..``), ``code_sorted`` /
    ``code_index`` the same sorted with their history indices. Returns the swaps made."""
    J = len(n)
    made = 0
    for t in range(len(pa)):
        a, b = pa[t], pb[t]
        ha, hb = chosen[a], chosen[b]
        ca, cb = code[hist_opt_ptr[a] + ha], code[hist_opt_ptr[b] + hb]
        if ca == cb:
            continue
        lo_a, hi_a = hist_opt_ptr[a], hist_opt_ptr[a + 1]
        lo_b, hi_b = hist_opt_ptr[b], hist_opt_ptr[b + 1]
        ia = lo_a + np.searchsorted(code_sorted[lo_a:hi_a], cb)
        if ia >= hi_a or code_sorted[ia] != cb:
            continue
        ib = lo_b + np.searchsorted(code_sorted[lo_b:hi_b], ca)
        if ib >= hi_b or code_sorted[ib] != ca:
            continue
        na, nb = code_index[ia], code_index[ib]
        oa, ob = hist_opt[lo_a + ha], hist_opt[lo_b + hb]
        qa, qb = hist_opt[lo_a + na], hist_opt[lo_b + nb]
        ok = True
        for j in range(J):
            v = tot[j] + feat[qa, j] - feat[oa, j] + feat[qb, j] - feat[ob, j]
            if (op[j] == 0 and v != n[j]) or (op[j] == 1 and v > n[j]) or (op[j] == 2 and v < n[j]):
                ok = False
                break
        if not ok:
            continue
        for j in range(J):
            tot[j] += feat[qa, j] - feat[oa, j] + feat[qb, j] - feat[ob, j]
        chosen[a], chosen[b] = na, nb
        made += 1
    return made
