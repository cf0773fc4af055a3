"""Compiled transitions of one ``frontier`` layer (numba, the ``fast`` extra).

Why: the layer's step tries every (state, option) pair, adds the option's share to the
state's open sums and keeps the pairs whose sums all stay within their bounds. Done over whole
arrays, that builds a states x options x sums array several times larger than the answer and
reduces it again; here each pair costs a loop over its sums, and a pair that passes is written
out with its next state packed into one int64 key (mixed radix over the next sums' ranges), so
the distinct next states are one sort of integers. The order of the pairs (state, then option)
and of the keys (the rows' lexicographic order) is the one the array code gives, so the layers
are identical either way (``tests/solvers/test_frontier.py``).
"""

from __future__ import annotations

import numpy as np

from solvers._epoch_kernels import COMPILED, njit

__all__ = ["COMPILED", "transitions"]


@njit(cache=True)
def transitions(base: np.ndarray, keys: np.ndarray, lower: np.ndarray, upper: np.ndarray, width: int,
                low: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (state ``a``, option ``o``) with ``lower <= base[a] + keys[o] <= upper`` in
    every column, in row-major order, and each one's next state (its first ``width`` columns)
    as ``sum((value - low) * stride)``."""
    m, n = base.shape
    t = keys.shape[0]
    out_a = np.empty(m * t, dtype=np.int64)
    out_o = np.empty(m * t, dtype=np.int64)
    out_k = np.empty(m * t, dtype=np.int64)
    count = 0
    for a in range(m):
        for o in range(t):
            ok = True
            for k in range(n):
                v = base[a, k] + keys[o, k]
                if v < lower[k] or v > upper[k]:
                    ok = False
                    break
            if ok:
                key = 0
                for k in range(width):
                    key += (base[a, k] + keys[o, k] - low[k]) * stride[k]
                out_a[count] = a
                out_o[count] = o
                out_k[count] = key
                count += 1
    return out_a[:count], out_o[:count], out_k[:count]
