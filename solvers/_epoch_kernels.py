"""Compiled Metropolis moves over time-indexed worlds (the ``epoch-sample`` chains, numba).

The moves are the ones :class:`solvers.epoch.Chains` makes (segment swaps of two cards whose
ends are epochs where they share a location, full-history 3-cycles), with the constraints
flattened into arrays so a move costs microseconds instead of a Python call per constraint.
A proposal is accepted when every constraint naming a moved card still holds, so the chain
targets the uniform distribution over consistent worlds.

Constraint kinds (``ctype``): 0 a one-epoch count (``Count``; ``AtLeastOne`` is a count ``>= 1``),
1 a history count (``CountEver``), 2 ``NotAll`` (its value is how many of its pairs hold; it
fails when all do). Ops: 0 ``==``, 1 ``<=``, 2 ``>=``. Without numba (the ``fast`` extra) the
same functions run as plain Python, about a hundred times slower.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # numba is the optional "fast" extra; without it the same code runs as plain Python
    from numba import njit

    COMPILED = True
except ImportError:  # pragma: no cover - exercised only without the extra
    COMPILED = False

    def njit(**_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return lambda f: f

__all__ = ["COMPILED", "mark_cells", "run_chain"]


@njit(cache=True)
def _term(k, card, w, ctype, cepoch, cloc, emask, lmask, pair_ptr, pair_card, pair_loc):
    t = ctype[k]
    if t == 0:
        return 1 if w[cepoch[k], card] == cloc[k] else 0
    if t == 1:
        for e in range(w.shape[0]):
            if emask[k, e] and lmask[k, w[e, card]]:
                return 1
        return 0
    s = 0
    for j in range(pair_ptr[k], pair_ptr[k + 1]):
        if pair_card[j] == card and w[cepoch[k], card] == pair_loc[j]:
            s += 1
    return s


@njit(cache=True)
def _holds(k, v, ctype, op, n, pair_ptr):
    if ctype[k] == 2:
        return v < pair_ptr[k + 1] - pair_ptr[k]
    o = op[k]
    if o == 0:
        return v == n[k]
    if o == 1:
        return v <= n[k]
    return v >= n[k]


@njit(cache=True)
def _try(w, cards, ncards, lo, hi, newcols, possible, member, card_ptr, card_cons, ctype, op, n, cepoch, cloc,
         emask, lmask, pair_ptr, pair_card, pair_loc, value, stamp, tick, touched, old, olds):
    """Give ``cards[i]`` the locations ``newcols[i, lo..hi]``; keep it if consistent."""
    same = True
    for i in range(ncards):
        c = cards[i]
        for e in range(lo, hi + 1):
            if newcols[i, e] != w[e, c]:
                same = False
            if not possible[e, c, newcols[i, e]]:
                return False
    if same:
        return False
    nt = 0
    for i in range(ncards):
        c = cards[i]
        for j in range(card_ptr[c], card_ptr[c + 1]):
            k = card_cons[j]
            if stamp[k] == tick:
                continue
            stamp[k] = tick
            if ctype[k] == 0:
                allin = True
                for i2 in range(ncards):
                    if not member[k, cards[i2]]:
                        allin = False
                if allin:
                    continue  # a permutation inside the set keeps a one-epoch count
            touched[nt] = k
            s = 0
            for i2 in range(ncards):
                if member[k, cards[i2]]:
                    s += _term(k, cards[i2], w, ctype, cepoch, cloc, emask, lmask, pair_ptr, pair_card, pair_loc)
            old[nt] = s
            nt += 1
    for i in range(ncards):
        c = cards[i]
        for e in range(lo, hi + 1):
            olds[i, e] = w[e, c]
            w[e, c] = newcols[i, e]
    ok = True
    for t in range(nt):
        k = touched[t]
        s = 0
        for i2 in range(ncards):
            if member[k, cards[i2]]:
                s += _term(k, cards[i2], w, ctype, cepoch, cloc, emask, lmask, pair_ptr, pair_card, pair_loc)
        v = value[k] + s - old[t]
        if not _holds(k, v, ctype, op, n, pair_ptr):
            ok = False
            break
        old[t] = v  # keep the new value until every check passed
    if not ok:
        for i in range(ncards):
            c = cards[i]
            for e in range(lo, hi + 1):
                w[e, c] = olds[i, e]
        return False
    for t in range(nt):
        value[touched[t]] = old[t]
    return True


@njit(cache=True)
def run_chain(w, possible, mobile, member, card_ptr, card_cons, ctype, op, n, cepoch, cloc, emask, lmask,
              pair_ptr, pair_card, pair_loc, value, seed, burn_in, thin, samples, out):
    """Advance the world ``w`` (in place) by ``burn_in`` moves, then record its last epoch into
    ``out[s]`` every ``thin`` moves for ``samples`` rows. Returns the accepted moves."""
    np.random.seed(seed)
    E = w.shape[0]
    M = mobile.shape[0]
    K = ctype.shape[0]
    stamp = np.zeros(K, dtype=np.int64)
    touched = np.zeros(K, dtype=np.int64)
    old = np.zeros(K, dtype=np.int64)
    olds = np.zeros((3, E), dtype=w.dtype)
    newcols = np.zeros((3, E), dtype=w.dtype)
    cards = np.zeros(3, dtype=np.int64)
    tick = 0
    accepted = 0
    if M < 2:
        for s in range(samples):
            out[s, :] = w[E - 1, :]
        return 0
    total = burn_in + thin * samples
    row = 0
    for step in range(total):
        ia = np.random.randint(M)
        ib = np.random.randint(M)
        if ia != ib:
            a = mobile[ia]
            b = mobile[ib]
            tick += 1
            if np.random.random() < 1.0 / 3.0 and M > 2:
                ic = np.random.randint(M)
                if ic != ia and ic != ib:
                    c = mobile[ic]
                    cards[0] = a
                    cards[1] = b
                    cards[2] = c
                    for e in range(E):
                        newcols[0, e] = w[e, b]
                        newcols[1, e] = w[e, c]
                        newcols[2, e] = w[e, a]
                    if _try(w, cards, 3, 0, E - 1, newcols, possible, member, card_ptr, card_cons, ctype, op, n,
                            cepoch, cloc, emask, lmask, pair_ptr, pair_card, pair_loc, value, stamp, tick,
                            touched, old, olds):
                        accepted += 1
            else:
                # segment [lo, hi]: lo is 0 or one past a shared epoch, hi is E-1 or one before
                nlo = 1
                for e in range(E - 1):
                    if w[e, a] == w[e, b]:
                        nlo += 1
                pick = np.random.randint(nlo)
                lo = 0
                if pick > 0:
                    cnt = 0
                    for e in range(E - 1):
                        if w[e, a] == w[e, b]:
                            cnt += 1
                            if cnt == pick:
                                lo = e + 1
                                break
                nhi = 1
                for e in range(1, E):
                    if w[e, a] == w[e, b] and e - 1 >= lo:
                        nhi += 1
                pick = np.random.randint(nhi)
                hi = E - 1
                if pick > 0:
                    cnt = 0
                    for e in range(1, E):
                        if w[e, a] == w[e, b] and e - 1 >= lo:
                            cnt += 1
                            if cnt == pick:
                                hi = e - 1
                                break
                cards[0] = a
                cards[1] = b
                for e in range(lo, hi + 1):
                    newcols[0, e] = w[e, b]
                    newcols[1, e] = w[e, a]
                if _try(w, cards, 2, lo, hi, newcols, possible, member, card_ptr, card_cons, ctype, op, n,
                        cepoch, cloc, emask, lmask, pair_ptr, pair_card, pair_loc, value, stamp, tick,
                        touched, old, olds):
                    accepted += 1
        if step >= burn_in and (step - burn_in + 1) % thin == 0 and row < samples:
            out[row, :] = w[E - 1, :]
            row += 1
    return accepted


@njit(cache=True)
def mark_cells(rows, out):
    """``out[c, rows[s, c]] = True`` for every row ``s`` and card ``c``: the cells a chain's
    recorded worlds show (in place of numpy's broadcast fancy assignment of every row)."""
    for s in range(rows.shape[0]):
        for c in range(rows.shape[1]):
            out[c, rows[s, c]] = True
