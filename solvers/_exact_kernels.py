"""Optional numba kernels for one layer of the exact counter's DP (the ``fast`` extra).

They compute exactly what the pure-Python loops in :mod:`solvers.exact_dp` compute, on
``int64`` states and counts; the caller uses them only when every packed state fits in 62
bits and every count is provably below ``2**62`` (the number of assignments bounds them), so
the answers are identical. Without numba, :data:`AVAILABLE` is False and nothing is compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["AVAILABLE", "forward_layer", "backward_layer"]

forward_layer: Callable[..., Any] | None = None
backward_layer: Callable[..., Any] | None = None

try:  # pragma: no cover - exercised only where numba is installed
    from numba import njit
except ImportError:  # pragma: no cover
    AVAILABLE = False
else:
    AVAILABLE = True

    @njit(cache=True, nogil=True)
    def _next(s, op, delta, nclear, guard, thr, cb, keep, base):  # type: ignore[no-untyped-def]
        ns = ((s | op) + delta) & nclear
        if ns & guard:
            return -1
        if thr != 0 and ((ns | guard) - thr) & guard != guard:
            return -1
        if ns & cb:
            return -1
        if keep != -1:
            ns = (ns & keep) | base
        return ns

    @njit(cache=True, nogil=True)
    def _forward(states, counts, deltas, nclears, weights, op, guard, thr, cb, keep, base):  # type: ignore[no-untyped-def]
        n = states.shape[0]
        m = deltas.shape[0]
        bits = 4
        while (1 << bits) < 2 * n * m + 2:
            bits += 1
        size = 1 << bits
        mask = size - 1
        keys = np.empty(size, np.int64)
        vals = np.zeros(size, np.int64)
        used = np.zeros(size, np.bool_)
        slots = np.empty(n * m, np.int64)
        filled = 0
        mult = np.uint64(11400714819323198485)
        shift = np.uint64(64 - bits)
        for i in range(n):
            s = states[i]
            c = counts[i]
            for j in range(m):
                ns = _next(s, op, deltas[j], nclears[j], guard, thr, cb, keep, base)
                if ns < 0:
                    continue
                h = np.int64((np.uint64(ns) * mult) >> shift)
                while used[h] and keys[h] != ns:
                    h = (h + 1) & mask
                if not used[h]:
                    used[h] = True
                    keys[h] = ns
                    slots[filled] = h
                    filled += 1
                vals[h] += c * weights[j]
        out_s = np.empty(filled, np.int64)
        out_c = np.empty(filled, np.int64)
        for t in range(filled):
            out_s[t] = keys[slots[t]]
            out_c[t] = vals[slots[t]]
        return out_s, out_c

    @njit(cache=True, nogil=True)
    def _backward(states, fcounts, nkeys, nvals, deltas, nclears, weights, op, guard, thr, cb, keep, base):  # type: ignore[no-untyped-def]
        n = states.shape[0]
        m = deltas.shape[0]
        nn = nkeys.shape[0]
        bvals = np.zeros(n, np.int64)
        per_move = np.zeros(m, np.int64)
        for i in range(n):
            s = states[i]
            f = fcounts[i]
            acc = 0
            for j in range(m):
                ns = _next(s, op, deltas[j], nclears[j], guard, thr, cb, keep, base)
                if ns < 0:
                    continue
                k = np.searchsorted(nkeys, ns)
                if k < nn and nkeys[k] == ns:
                    b = nvals[k]
                    acc += weights[j] * b
                    per_move[j] += f * b
            bvals[i] = acc
        return bvals, per_move

    forward_layer = _forward
    backward_layer = _backward
