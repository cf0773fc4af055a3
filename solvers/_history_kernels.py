"""Compiled bounds propagation of linear sums over cards' history *options* (numba), which
prunes :class:`solvers.history_model.HistoryModel` before CP-SAT sees it.

The knowledge base comes flattened as :class:`solvers.block_sampler._Flat` builds it: ``J``
sums ``sum over cards of feature(option) op n``; card ``c`` picks one of its options
``opt_ptr[c] .. opt_ptr[c + 1]`` (histories with the same feature row over every sum);
``feat[o, j]`` is option ``o``'s share of sum ``j``. A domain is one bool per option.

Propagation keeps, for every sum, each card's least and greatest share over its live options,
and removes an option whose share would put the sum out of reach given the others' bounds
(the bounds consistency of one linear constraint, repeated to a fixpoint over the sums whose
cards lost options). It only removes options no world uses, so a domain it empties proves
that no world exists.
Without numba the same code runs as plain Python, far slower.
"""

from __future__ import annotations

import numpy as np

from solvers._block_kernels import njit

__all__ = ["propagate"]

#: operators, as :data:`solvers.block_sampler._OPS` codes them
_EQ, _LE, _GE = 0, 1, 2


@njit(cache=True)
def propagate(alive: np.ndarray, opt_ptr: np.ndarray, feat: np.ndarray, op: np.ndarray, n: np.ndarray,
              sum_ptr: np.ndarray, sum_cards: np.ndarray, card_ptr: np.ndarray, card_sums: np.ndarray,
              queued: np.ndarray, queue: np.ndarray, first: np.ndarray) -> tuple[bool, int]:
    """Prune ``alive`` in place to the fixpoint, starting from the sums ``first`` (their
    indices); returns (no domain emptied, work done: options examined)."""
    J = n.shape[0]
    head = 0
    tail = 0
    for j in first:
        if not queued[j]:
            queued[j] = True
            queue[tail % J] = j
            tail += 1
    work = 0
    ok = True
    lo_c = np.empty(sum_cards.shape[0], dtype=np.int64)
    hi_c = np.empty(sum_cards.shape[0], dtype=np.int64)
    while head < tail:
        j = queue[head % J]
        head += 1
        queued[j] = False
        tmin = 0
        tmax = 0
        for k in range(sum_ptr[j], sum_ptr[j + 1]):
            c = sum_cards[k]
            mn = 1 << 40
            mx = -(1 << 40)
            for o in range(opt_ptr[c], opt_ptr[c + 1]):
                work += 1
                if alive[o]:
                    f = feat[o, j]
                    if f < mn:
                        mn = f
                    if f > mx:
                        mx = f
            if mx < mn:
                ok = False
                break
            lo_c[k] = mn
            hi_c[k] = mx
            tmin += mn
            tmax += mx
        if not ok:
            break
        upper_on = op[j] != _GE
        lower_on = op[j] != _LE
        if (upper_on and tmin > n[j]) or (lower_on and tmax < n[j]):
            ok = False
            break
        for k in range(sum_ptr[j], sum_ptr[j + 1]):
            c = sum_cards[k]
            up = n[j] - (tmin - lo_c[k])
            lo = n[j] - (tmax - hi_c[k])
            if (upper_on and hi_c[k] > up) or (lower_on and lo_c[k] < lo):
                left = 0
                for o in range(opt_ptr[c], opt_ptr[c + 1]):
                    work += 1
                    if alive[o]:
                        f = feat[o, j]
                        if (upper_on and f > up) or (lower_on and f < lo):
                            alive[o] = False
                        else:
                            left += 1
                if left == 0:
                    ok = False
                    break
                for i in range(card_ptr[c], card_ptr[c + 1]):
                    s = card_sums[i]
                    if s != j and not queued[s]:
                        queued[s] = True
                        queue[tail % J] = s
                        tail += 1
        if not ok:
            break
    while head < tail:  # leave the flags clean for the next call
        queued[queue[head % J]] = False
        head += 1
    return ok, work
