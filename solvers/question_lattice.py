"""Joint counts of (first refuter, cards it holds among the named ones, target location's card
set) for every Clue-style question at once, by a DP over the locations in refutation order.

Why this works: when every constraint is local to one location (counts, clauses and not-alls
each about one location's card set - true of Clue), a world is a partition of the free cards
whose parts are each valid on their own. Placing the responders' hands in refutation order,
the state is the multiset of card classes placed so far (cards of one class are
interchangeable, so the state is a count per class; with every card in a class of its own it
is the set of cards placed). The first refuter of a question is the first responder whose hand
meets the named cards, so one forward pass (ways to give a given set to the first responders),
one backward pass (ways to give a given set to the later responders and the other locations)
and, per responder, the hands it may take, give every question's answer distribution jointly
with the target's set: named cards in this responder's hand, the others outside the placed set.

The per-question work is a table look-up: per responder, one kernel sums over the placed
multisets and the target's class profiles the weights of every pattern "these named classes in
this hand, those named classes outside" (an outer product over question slots), and
:func:`question_matrices` turns the tables into answers-by-target-groups matrices.

Needs numba (the ``fast`` extra): :data:`AVAILABLE` is False without it and callers fall back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from solvers.exact_dp import Problem

__all__ = ["AVAILABLE", "MAX_STATES", "MEASURES", "Lattice", "build", "matrix_gains", "question_gains", "question_matrices"]

#: what a question's value measures: Shannon entropy, Hartley entropy, or accusation accuracy
#: (in the kernels' numbering).
MEASURES = ("shannon", "hartley", "accuracy")
#: largest lattice (product over classes of class size + 1) the dense arrays may take.
MAX_STATES = 1 << 19
#: most class profiles one location may take before the lattice is refused.
MAX_PROFILES = 50_000

try:  # pragma: no cover - exercised only where numba is installed
    from numba import njit
except ImportError:  # pragma: no cover
    AVAILABLE = False
else:
    AVAILABLE = True


@dataclass
class Lattice:
    """A compiled problem: classes, their sizes and slots, and every location's valid profiles.

    Profiles are stored sparse (CSR over ``(class, count)`` pairs) with their lattice index
    ``sum(count * radix[class])`` and their packed code ``sum(count << shift[class])``: one bit
    field per class with a guard bit on top, so whether two multisets fit together (no class
    over its size) or one holds another is one add and one mask, not a loop over classes."""

    cards: list[tuple[int, ...]]  # free cards per class
    size: np.ndarray  # cards per class
    radix: np.ndarray
    states: int
    shift: np.ndarray  # first bit of each class's field in the packed code
    fmask: np.ndarray  # each class's field below its guard bit (shifted down)
    guard: int  # the guard bit of every field
    bias: int  # per field 2**(width - 1) - 1 - size: a sum over the size reaches the guard bit
    slot: np.ndarray  # question slot of each class, -1 when never named
    kidx: np.ndarray  # index of the class among its slot's classes
    slot_classes: list[list[int]]
    profiles: dict[int, tuple[np.ndarray, ...]]  # loc -> (index, code, fields used, ptr, cls, cnt)
    targets: np.ndarray  # dense class counts of each valid target profile (rows)
    class_of: dict[int, int]


def build(q: Problem, loc: int, slot_of: Mapping[int, int], key_of: Mapping[int, tuple], slots: int) -> Lattice | None:
    """The lattice of the simplified problem ``q`` (``None`` when it does not apply or is too
    big): classes are the free cards with the same ``key_of`` signature and slot."""
    for pairs in q.notalls:
        if len({z for _, z in pairs}) != 1:
            return None  # a constraint spanning locations: not a product over locations
    free = [k for k, d in enumerate(q.dom) if d & (d - 1)]
    groups: dict[tuple, list[int]] = {}
    for k in free:
        groups.setdefault((key_of[k], slot_of.get(k, -1)), []).append(k)
    cards = [tuple(v) for v in groups.values()]
    class_of = {k: c for c, cs in enumerate(cards) for k in cs}
    size = np.array([len(cs) for cs in cards], dtype=np.int64)
    radix = np.ones(len(cards), dtype=np.int64)
    shift = np.zeros(len(cards), dtype=np.int64)
    fmask = np.zeros(len(cards), dtype=np.int64)
    states, bits, guard, bias = 1, 0, 0, 0
    for c, m in enumerate(size.tolist()):
        radix[c] = states
        states *= m + 1
        if states > MAX_STATES:
            return None
        width = m.bit_length() + 1
        shift[c] = bits
        fmask[c] = (1 << (width - 1)) - 1
        guard |= 1 << (bits + width - 1)
        bias |= ((1 << (width - 1)) - 1 - m) << bits
        bits += width
    if bits > 62:
        return None  # pragma: no cover - MAX_STATES keeps the fields within 40 bits
    slot = np.array([slot_of.get(cs[0], -1) for cs in cards], dtype=np.int64)
    slot_classes: list[list[int]] = [[] for _ in range(slots)]
    kidx = np.full(len(cards), -1, dtype=np.int64)
    for c, j in enumerate(slot.tolist()):
        if j >= 0:
            kidx[c] = len(slot_classes[j])
            slot_classes[j].append(c)
    profiles = {}
    dense_of = {}
    for z in range(q.num_locations):
        dense = _profiles(q, z, cards, class_of, size.tolist())
        if dense is None:
            return None
        rows, cols = np.nonzero(dense)
        ptr = np.zeros(len(dense) + 1, dtype=np.int64)
        ptr[1:] = np.cumsum(np.bincount(rows, minlength=len(dense)))
        profiles[z] = (dense @ radix, dense @ (np.int64(1) << shift), (dense > 0) @ (fmask << shift), ptr,
                       cols.astype(np.int64), dense[rows, cols])
        dense_of[z] = dense
    return Lattice(cards, size, radix, states, shift, fmask, guard, bias, slot, kidx, slot_classes, profiles, dense_of[loc], class_of)


def _profiles(
    q: Problem, z: int, cards: Sequence[tuple[int, ...]], class_of: Mapping[int, int], size: Sequence[int]
) -> np.ndarray | None:
    """Every class-count profile location ``z`` may receive, as rows of counts per class
    (``None`` past MAX_PROFILES): counts within bounds, every clause met, no not-all complete.
    Constraints hold whole classes. Built class by class, dropping rows over an upper bound as
    they appear."""
    bit = 1 << z
    allowed = [c for c, cs in enumerate(cards) if q.dom[cs[0]] & bit]
    counts = [({class_of[k] for k in ks}, lo, hi) for ks, zz, lo, hi in q.counts if zz == z]
    clauses = [{class_of[k] for k in ks} for ks, zz in q.clauses if zz == z]
    notalls = [{class_of[k] for k, _ in pairs} for pairs in q.notalls if pairs[0][1] == z]
    hi = np.array([h for _, _, h in counts], dtype=np.int64)
    rows = np.zeros((1, len(allowed)), dtype=np.int64)
    sums = np.zeros((1, len(counts)), dtype=np.int64)
    for i, c in enumerate(allowed):
        inc = np.array([c in cs for cs, _, _ in counts], dtype=np.int64)
        parts_r, parts_s = [], []
        for n in range(size[c] + 1):
            s2 = sums + n * inc
            keep = (s2 <= hi).all(axis=1)
            if not keep.any():
                break
            r2 = rows[keep].copy()
            r2[:, i] = n
            parts_r.append(r2)
            parts_s.append(s2[keep])
        rows, sums = np.concatenate(parts_r), np.concatenate(parts_s)
        if len(rows) > 4 * MAX_PROFILES:
            return None
    ok = np.ones(len(rows), dtype=bool)
    for j, (_, lo, _) in enumerate(counts):
        ok &= sums[:, j] >= lo
    col = {c: i for i, c in enumerate(allowed)}
    for cl in clauses:
        have = np.zeros(len(rows), dtype=bool)
        for c in cl:
            if c in col:
                have |= rows[:, col[c]] > 0
        ok &= have
    for na in notalls:
        if all(c in col for c in na):
            ok &= ~np.all(np.stack([rows[:, col[c]] == size[c] for c in na]), axis=0)
    rows = rows[ok]
    if len(rows) > MAX_PROFILES:
        return None
    dense = np.zeros((len(rows), len(cards)), dtype=np.int64)
    dense[:, allowed] = rows
    return dense


def _binomials(n: int) -> np.ndarray:
    table = np.zeros((n + 1, n + 1))
    for a in range(n + 1):
        for b in range(a + 1):
            table[a, b] = comb(a, b)
    return table


if AVAILABLE:  # pragma: no branch

    @njit(cache=True, nogil=True)
    def _digits(x, size, dig):  # type: ignore[no-untyped-def]
        """``dig[c]`` = class c's count in the multiset of lattice index ``x`` (mixed radix)."""
        for c in range(size.shape[0]):
            dig[c] = x % (size[c] + 1)
            x //= size[c] + 1

    @njit(cache=True, nogil=True)
    def _push(src, nz, ncode, tidx, tcode, tsupp, tptr, tcls, tcnt, size, shift, fmask, guard, bias, binom):  # type: ignore[no-untyped-def]
        """dst[u + t] += src[u] * prod_c C(u_c + t_c, t_c): ways to give a specific set of profile
        u + t to one more location (choosing which of its cards that location takes); also the
        states reached, sorted, and their packed codes. A pair that overflows a class is
        dropped by its packed codes (one add and mask); the binomials are taken only where u
        and t share a class."""
        dst = np.zeros_like(src)
        touched = np.empty(src.shape[0], np.int64)
        tcodes = np.empty(src.shape[0], np.int64)
        nt = 0
        for ii in range(nz.shape[0]):
            u = nz[ii]
            uc = ncode[ii]
            ub = uc + bias
            f = src[u]
            for t in range(tidx.shape[0]):
                if (ub + tcode[t]) & guard:
                    continue
                w = 1.0
                if uc & tsupp[t]:
                    for p in range(tptr[t], tptr[t + 1]):
                        c = tcls[p]
                        d = (uc >> shift[c]) & fmask[c]
                        if d:
                            w *= binom[d + tcnt[p], tcnt[p]]
                y = u + tidx[t]
                if dst[y] == 0.0:
                    touched[nt] = y
                    tcodes[nt] = uc + tcode[t]
                    nt += 1
                dst[y] += f * w
        order = np.argsort(touched[:nt])
        return dst, touched[:nt][order], tcodes[:nt][order]

    @njit(cache=True, nogil=True)
    def _pull(src, ys, ycodes, tidx, tcode, tsupp, tptr, tcls, tcnt, size, shift, fmask, guard, bias, binom):  # type: ignore[no-untyped-def]
        """What :func:`_push` would give at the states ``ys`` only: sum over the profiles t inside
        y of src[y - t] * prod_c C(y_c, t_c) (for the few states a last step is needed at)."""
        out = np.zeros(ys.shape[0])
        for ii in range(ys.shape[0]):
            y = ys[ii]
            yg = ycodes[ii] | guard
            acc = 0.0
            for t in range(tidx.shape[0]):
                if ((yg - tcode[t]) & guard) != guard:
                    continue
                f = src[y - tidx[t]]
                if f == 0.0:
                    continue
                w = 1.0
                for p in range(tptr[t], tptr[t + 1]):
                    c = tcls[p]
                    w *= binom[(ycodes[ii] >> shift[c]) & fmask[c], tcnt[p]]
                acc += f * w
            out[ii] = acc
        return out

    @njit(cache=True, nogil=True)
    def _completable(nz, ncode, pback, xidx, xcode, xsupp, xptr, xcls, xcnt, top, guard, bias):  # type: ignore[no-untyped-def]
        """The positions in ``nz`` of the states that some target profile and later placement
        complete (the others carry no world: dropping them changes no count)."""
        keep = np.empty(nz.shape[0], np.int64)
        nk = 0
        for ii in range(nz.shape[0]):
            u = nz[ii]
            ub = ncode[ii] + bias
            for e in range(xidx.shape[0]):
                if (ub + xcode[e]) & guard:
                    continue
                if pback[top - u - xidx[e]] != 0.0:
                    keep[nk] = ii
                    nk += 1
                    break
        return keep[:nk]

    @njit(cache=True, nogil=True)
    def _hand_patterns(tptr, tcls, tcnt, size, slot, kidx, nk, astride, ostride):  # type: ignore[no-untyped-def]
        """Per hand profile, the patterns of named classes it holds (at most one per slot, code
        in the ``astride`` layout) with their weights (product of the chosen classes' counts),
        in CSR; whether it holds a class of several cards; and per pattern code its code in the
        output (``ostride``) layout and the slots it takes. They do not depend on the placed
        multiset, so :func:`_layer` looks them up instead of rebuilding them per multiset."""
        nt = tptr.shape[0] - 1
        oc = np.zeros((3, 64), np.int64)
        of = np.ones((3, 64))
        no = np.ones(3, np.int64)
        hptr = np.zeros(nt + 1, np.int64)
        tmul = np.zeros(nt, np.bool_)
        for t in range(nt):
            m = 1
            for j in range(3):
                no[j] = 1
            for p in range(tptr[t], tptr[t + 1]):
                c = tcls[p]
                if size[c] > 1:
                    tmul[t] = True
                if slot[c] >= 0:
                    no[slot[c]] += 1
            for j in range(3):
                m *= no[j]
            hptr[t + 1] = hptr[t] + m
        hpc = np.empty(hptr[nt], np.int64)
        hpw = np.empty(hptr[nt])
        for t in range(nt):
            for j in range(3):
                no[j] = 1
            for p in range(tptr[t], tptr[t + 1]):
                c = tcls[p]
                j = slot[c]
                if j >= 0:
                    oc[j, no[j]] = 1 + kidx[c]
                    of[j, no[j]] = tcnt[p]
                    no[j] += 1
            k = hptr[t]
            for p0 in range(no[0]):
                for p1 in range(no[1]):
                    for p2 in range(no[2]):
                        hpc[k] = oc[0, p0] * astride[0] + oc[1, p1] * astride[1] + oc[2, p2] * astride[2]
                        hpw[k] = of[0, p0] * of[1, p1] * of[2, p2]
                        k += 1
        a2o = np.zeros(astride[3], np.int64)
        amask = np.zeros(astride[3], np.int64)
        for code_a in range(astride[3]):
            for j in range(3):
                a = (code_a // astride[j]) % (nk[j] + 1)
                if a > 0:
                    a2o[code_a] += a * ostride[j]
                    amask[code_a] |= 1 << j
        return hptr, hpc, hpw, tmul, a2o, amask

    @njit(cache=True, nogil=True)
    def _layer(fprev, vnz, vcodes, tidx, tcode, tsupp, tptr, tcls, tcnt, pnext, xd, xidx, xcode, xsupp, xptr, xcls, xcnt,  # type: ignore[no-untyped-def]
               top, size, guard, bias, binom, slot, kidx, nk, sptr, scls, astride, ostride, with_empty, exact, out, inner):
        """Adds one responder's answer weights to ``out[target profile, code]`` (see module doc):
        per placed multiset v (after this responder) and target profile, g = ways to pick V
        disjoint from the target times ways to complete; per hand profile t, the named classes
        in the hand weigh t_c, the named classes outside weigh (cards of c outside V and target).
        With ``exact`` (every weight an integer below 2**53, so float sums are exact) neither
        coding depends on the target, so one vector per v serves every target: where V holds
        fewer named classes than its complement, ``inner`` gets the weights with the classes
        *inside* V weighing v_c, else ``out`` gets them with the classes outside V weighing
        size_c - v_c (:func:`_finish` turns both into outside-V-and-target weights).
        Without ``exact``, ``out`` gets the outside weights per target directly.
        Exactly three slots (unused ones have no classes)."""
        nc = size.shape[0]
        nx = xidx.shape[0]
        ncode = ostride[3]
        vd = np.empty(nc, np.int64)
        hv = np.zeros(astride[3])
        hlist = np.empty(astride[3], np.int64)
        hcode = np.empty(astride[3], np.int64)  # the hand pattern's code in the output layout
        hmask = np.empty(astride[3], np.int64)  # slots the hand pattern takes
        gs = np.empty(nx)
        es = np.empty(nx, np.int64)
        fit = np.empty(max(nx, tidx.shape[0]), np.int64)
        hptr, hpc, hpw, tmul, a2o, amask = _hand_patterns(tptr, tcls, tcnt, size, slot, kidx, nk, astride, ostride)
        oc = np.zeros((3, 64), np.int64)
        of = np.ones((3, 64))
        no = np.ones(3, np.int64)
        ic = np.zeros((3, 64), np.int64)
        icf = np.ones((3, 64))
        ni = np.ones(3, np.int64)
        pcode = np.empty(ncode, np.int64)
        pval = np.empty(ncode)
        for ii in range(vnz.shape[0]):
            v = vnz[ii]
            vc = vcodes[ii]
            vb = vc + bias
            vg = vc | guard
            _digits(v, size, vd)
            g0 = 1.0
            for c in range(nc):
                if vd[c]:
                    g0 *= binom[size[c], vd[c]]
            # the targets fitting beside V and the hands inside V, listed without a branch
            # per profile (a mispredicted branch per check cost more than the check)
            nfit = 0
            for e in range(nx):
                fit[nfit] = e
                nfit += ((vb + xcode[e]) & guard) == 0
            ne = 0
            for a in range(nfit):
                e = fit[a]
                g = g0
                if vc & xsupp[e]:
                    for p in range(xptr[e], xptr[e + 1]):
                        c = xcls[p]
                        if vd[c]:  # exact: the divisor is a factor of g
                            g = g / binom[size[c], vd[c]] * binom[size[c] - xcnt[p], vd[c]]
                pw = pnext[top - v - xidx[e]]
                if pw == 0.0:
                    continue
                gs[ne] = g * pw
                es[ne] = e
                ne += 1
            if ne == 0:
                continue
            # hand weights per pattern of named classes in the hand
            nin = 0
            for t in range(tidx.shape[0]):
                fit[nin] = t
                nin += ((vg - tcode[t]) & guard) == guard
            nh = 0
            for a in range(nin):
                t = fit[a]
                f = fprev[v - tidx[t]]
                if f == 0.0:
                    continue
                if tmul[t]:  # classes of several cards: which of V's cards the hand takes
                    for p in range(tptr[t], tptr[t + 1]):
                        f *= binom[vd[tcls[p]], tcnt[p]]
                for p in range(hptr[t], hptr[t + 1]):
                    code = hpc[p]
                    if hv[code] == 0.0:
                        hlist[nh] = code
                        nh += 1
                    hv[code] += f * hpw[p]
            for h in range(nh):
                hcode[h] = a2o[hlist[h]]
                hmask[h] = amask[hlist[h]]
            # named classes inside V, and (for the cost) outside V
            cost_in = 0
            cost_out = 0
            nout = np.ones(3, np.int64)
            for j in range(3):
                ni[j] = 1
                for r in range(sptr[j], sptr[j + 1]):
                    c = scls[r]
                    if vd[c] > 0:
                        ic[j, ni[j]] = (nk[j] + 1 + kidx[c]) * ostride[j]
                        icf[j, ni[j]] = vd[c]
                        ni[j] += 1
                    if vd[c] < size[c]:
                        nout[j] += 1
            for h in range(nh):
                if hlist[h] == 0 and not with_empty:
                    continue
                a_in = 1
                a_out = 1
                for j in range(3):
                    if not (hmask[h] >> j) & 1:
                        a_in *= ni[j]
                        a_out *= nout[j]
                cost_in += a_in
                cost_out += a_out
            if exact:
                # one vector per v for every target: the inside weights, or where those are
                # more the outside-V weights size_c - v_c (:func:`_finish` takes the
                # target's cards off them)
                dest = inner
                if cost_out <= cost_in:
                    dest = out
                    for j in range(3):
                        ni[j] = 1
                        for r in range(sptr[j], sptr[j + 1]):
                            c = scls[r]
                            o = size[c] - vd[c]
                            if o > 0:
                                ic[j, ni[j]] = (nk[j] + 1 + kidx[c]) * ostride[j]
                                icf[j, ni[j]] = o
                                ni[j] += 1
                npv = 0
                for h in range(nh):
                    if hlist[h] == 0 and not with_empty:
                        continue
                    n0 = 1 if hmask[h] & 1 else ni[0]
                    n1 = 1 if hmask[h] & 2 else ni[1]
                    n2 = 1 if hmask[h] & 4 else ni[2]
                    wa = hv[hlist[h]]
                    for p0 in range(n0):
                        for p1 in range(n1):
                            w1 = wa * icf[0, p0] * icf[1, p1]
                            c1 = hcode[h] + ic[0, p0] + ic[1, p1]
                            for p2 in range(n2):
                                pcode[npv] = c1 + ic[2, p2]
                                pval[npv] = w1 * icf[2, p2]
                                npv += 1
                for q in range(ne):
                    row = dest[es[q]]
                    g = gs[q]
                    for k in range(npv):
                        row[pcode[k]] += g * pval[k]
            else:
                for q in range(ne):
                    e = es[q]
                    g = gs[q]
                    row = out[e]
                    for j in range(3):
                        no[j] = 1
                        for r in range(sptr[j], sptr[j + 1]):
                            c = scls[r]
                            o = size[c] - xd[e, c] - vd[c]
                            if o > 0:
                                oc[j, no[j]] = (nk[j] + 1 + kidx[c]) * ostride[j]
                                of[j, no[j]] = o
                                no[j] += 1
                    oc[0, 0] = 0
                    oc[1, 0] = 0
                    oc[2, 0] = 0
                    of[0, 0] = 1.0
                    of[1, 0] = 1.0
                    of[2, 0] = 1.0
                    for h in range(nh):
                        if hlist[h] == 0 and not with_empty:
                            continue
                        n0 = 1 if hmask[h] & 1 else no[0]
                        n1 = 1 if hmask[h] & 2 else no[1]
                        n2 = 1 if hmask[h] & 4 else no[2]
                        wa = g * hv[hlist[h]]
                        cb = hcode[h]
                        for p0 in range(n0):
                            for p1 in range(n1):
                                w1 = wa * of[0, p0] * of[1, p1]
                                c1 = cb + oc[0, p0] + oc[1, p1]
                                for p2 in range(n2):
                                    row[c1 + oc[2, p2]] += w1 * of[2, p2]
            for h in range(nh):
                hv[hlist[h]] = 0.0
            oc[0, 0] = 0
            oc[1, 0] = 0
            oc[2, 0] = 0
            of[0, 0] = 1.0
            of[1, 0] = 1.0
            of[2, 0] = 1.0

    @njit(cache=True, nogil=True)
    def _uncertainty(w, lgm, measure):  # type: ignore[no-untyped-def]
        """(mass, uncertainty) of one row of group weights with log2 multiplicities ``lgm``:
        measure 0 Shannon entropy, 1 Hartley (log2 of the card sets left), 2 the chance that
        the most likely card set is wrong; 0 without mass."""
        mass = 0.0
        for c in range(w.shape[0]):
            mass += w[c]
        if mass <= 0.0:
            return 0.0, 0.0
        h = 0.0
        if measure == 0:
            for c in range(w.shape[0]):
                if w[c] > 0.0:
                    pr = w[c] / mass
                    h -= pr * (np.log2(pr) - lgm[c])
        elif measure == 1:
            top = -np.inf
            for c in range(w.shape[0]):
                if w[c] > 0.0 and lgm[c] > top:
                    top = lgm[c]
            spread = 0.0
            for c in range(w.shape[0]):
                if w[c] > 0.0:
                    spread += np.exp2(lgm[c] - top)
            h = top + np.log2(spread)
        else:
            best = 0.0
            for c in range(w.shape[0]):
                if w[c] > 0.0 and w[c] / np.exp2(lgm[c]) > best:
                    best = w[c] / np.exp2(lgm[c])
            h = 1.0 - best / mass
        return mass, h

    @njit(cache=True, nogil=True)
    def _gain(mat, lg, nresp, width, leak_weight, measure, prior, public):  # type: ignore[no-untyped-def]
        """Expected information of one question from its answers-by-groups matrix, minus
        ``leak_weight`` times what who refuted tells everyone (rows: responder position x slot,
        then nobody). Zero weights are skipped, so padded columns cost a compare."""
        nans, ncol = mat.shape
        prior[:ncol] = 0.0
        for a in range(nans):
            for c in range(ncol):
                prior[c] += mat[a, c]
        total, h0 = _uncertainty(prior[:ncol], lg, measure)
        if total <= 0.0:
            return 0.0
        after = 0.0
        for a in range(nans):
            m, h = _uncertainty(mat[a], lg, measure)
            after += m / total * h
        gain = max(h0 - after, 0.0)
        if leak_weight != 0.0:
            m, h = _uncertainty(mat[nans - 1], lg, measure)
            seen = m / total * h
            for r in range(nresp):
                public[:ncol] = 0.0
                for j in range(width):
                    for c in range(ncol):
                        public[c] += mat[r * width + j, c]
                m, h = _uncertainty(public[:ncol], lg, measure)
                seen += m / total * h
            gain -= leak_weight * max(h0 - seen, 0.0)
        return gain

    @njit(cache=True, nogil=True)
    def _matrix_gains(mats, lgm, nresp, width, leak_weight, measure, out):  # type: ignore[no-untyped-def]
        """``out[q]`` = :func:`_gain` of question q's matrix."""
        nq, nans, ncol = mats.shape
        prior = np.empty(ncol)
        public = np.empty(ncol)
        for qi in range(nq):
            out[qi] = _gain(mats[qi], lgm[qi], nresp, width, leak_weight, measure, prior, public)

    @njit(cache=True, nogil=True)
    def _finish(table, inner, exact, room, size, nk, sptr, scls, ostride, ready):  # type: ignore[no-untyped-def]
        """``ready[code, target]`` = outside weights from :func:`_layer`'s two tables, slot by
        slot: a class c outside V and the target has (size_c - target_c) - v_c cards, so with
        ``exact`` its entry is (size_c - target_c) times the entry without the slot's condition
        minus the inside entry (``inner``), and the outside-V entry minus target_c times the
        entry without the condition (``table``): inclusion-exclusion, exact on integer weights
        below 2**53. Without ``exact``, ``table`` holds the outside weights already."""
        nx, ncode = table.shape
        for e in range(nx):
            row = inner[e]
            rout = table[e]
            if exact:
                for j in range(3):
                    step = ostride[j]
                    block = ostride[j + 1]
                    for d in range(nk[j] + 1, 2 * nk[j] + 1):
                        c = scls[sptr[j] + d - nk[j] - 1]
                        r = room[e, c]
                        x = size[c] - r
                        for o in range(0, ncode, block):
                            at = o + d * step
                            for i in range(step):
                                row[at + i] = r * row[o + i] - row[at + i]
                            if x:
                                for i in range(step):
                                    rout[at + i] -= x * rout[o + i]
                for code in range(ncode):
                    ready[code, e] = rout[code] + row[code]
            else:
                for code in range(ncode):
                    ready[code, e] = rout[code]

    @njit(cache=True, nogil=True)
    def _groups(qrow, xd, size, binom, mu0):  # type: ignore[no-untyped-def]
        """The groups of one question: (target profile, slots whose named free card is in the
        target, number of target card sets in the group, product over the other named free
        classes of their cards outside the target)."""
        nx = xd.shape[0]
        nslot = qrow.shape[0]
        free = 0
        for j in range(nslot):
            if qrow[j] >= 0:
                free |= 1 << j
        ge = np.empty(nx << nslot, np.int64)
        gom = np.empty(nx << nslot, np.int64)
        gmu = np.empty(nx << nslot)
        gden = np.empty(nx << nslot)
        ng = 0
        for e in range(nx):
            om = free
            while True:
                mu = mu0[e]
                den = 1.0
                for j in range(nslot):
                    c = qrow[j]
                    if c < 0:
                        continue
                    inx = (om >> j) & 1
                    k = xd[e, c] - inx
                    if k < 0 or k > size[c] - 1:
                        mu = 0.0
                        break
                    mu = mu / binom[size[c], xd[e, c]] * binom[size[c] - 1, k]
                    if not inx:
                        den *= size[c] - xd[e, c]
                if mu > 0.0:
                    ge[ng] = e
                    gom[ng] = om
                    gmu[ng] = mu
                    gden[ng] = den
                    ng += 1
                if om == 0:
                    break
                om = (om - 1) & free
        return ge[:ng], gom[:ng], gmu[:ng], gden[:ng]

    @njit(cache=True, nogil=True)
    def _columns(qcls, xd, size, binom, mu0):  # type: ignore[no-untyped-def]
        """Groups per question (columns of its matrix)."""
        out = np.zeros(qcls.shape[0], np.int64)
        for qi in range(qcls.shape[0]):
            out[qi] = _groups(qcls[qi], xd, size, binom, mu0)[0].shape[0]
        return out

    @njit(cache=True, nogil=True)
    def _assemble_one(tables, qrow, rrow, prow, xd, size, binom, mu0, nk, kidx, ostride, nresp, codes, pools, npool, mat, lg):  # type: ignore[no-untyped-def]
        """One question's answers-by-groups matrix into ``mat`` (zero on entry; returns its
        number of columns, their log2 multiplicities into ``lg``): a group is (target profile,
        which named free cards are in the target), weighted by its number of card sets.
        ``qrow[j]``: the class of slot j's named card, -1 when it is fixed (``rrow``: the
        responder position holding it, -1 for none; ``prow``: the responder prefers showing
        it). The table code of every (slots in the target, slots in the hand) pair is made
        once; ``codes``, ``pools`` and ``npool`` are scratch."""
        nslot = qrow.shape[0]
        nans = mat.shape[0]
        nsub = 1 << nslot
        first = nresp
        free = 0
        for j in range(nslot):
            if qrow[j] < 0:
                if 0 <= rrow[j] < first:
                    first = rrow[j]
            else:
                free |= 1 << j
        fixed_here = 0
        fixed_pref = 0
        for j in range(nslot):
            if qrow[j] < 0 and rrow[j] == first and first < nresp:
                fixed_here |= 1 << j
                if prow[j]:
                    fixed_pref |= 1 << j
        for om in range(nsub):
            if om & ~free:
                continue
            avail = free & ~om
            for sa in range(nsub):
                if sa & ~avail:
                    continue
                code = 0
                for j in range(nslot):
                    c = qrow[j]
                    if (sa >> j) & 1:
                        code += (1 + kidx[c]) * ostride[j]
                    elif (avail >> j) & 1:
                        code += (nk[j] + 1 + kidx[c]) * ostride[j]
                codes[om, sa] = code
        for sa in range(nsub):
            for here in range(2):
                pool = sa
                if here:
                    pool = fixed_pref if fixed_pref else sa | fixed_here
                pools[here, sa] = pool
                cnt = 0
                for j in range(nslot):
                    cnt += (pool >> j) & 1
                npool[here, sa] = cnt
        last = first if first < nresp else nresp - 1
        ge, gom, gmu, gden = _groups(qrow, xd, size, binom, mu0)
        ncol = ge.shape[0]
        for col in range(ncol):
            lg[col] = np.log2(gmu[col])
            gmu[col] /= gden[col]
        for om in range(nsub):
            if om & ~free:
                continue
            mine = np.flatnonzero(gom == om)
            if mine.shape[0] == 0:
                continue
            avail = free & ~om
            for layer in range(last + 1):
                here = 1 if layer == first else 0
                for sa in range(nsub):
                    if sa & ~avail:
                        continue
                    if sa == 0 and not here:
                        if first == nresp and layer == nresp - 1:
                            row = tables[layer, codes[om, 0]]
                            for col in mine:
                                mat[nans - 1, col] += row[ge[col]] * gmu[col]  # nobody refutes
                        continue
                    row = tables[layer, codes[om, sa]]
                    pool = pools[here, sa]
                    share = 1.0 / npool[here, sa]
                    for j in range(nslot):
                        if (pool >> j) & 1:
                            ans = layer * nslot + j
                            for col in mine:
                                mat[ans, col] += row[ge[col]] * gmu[col] * share
        return ncol

    @njit(cache=True, nogil=True)
    def _assemble(tables, qcls, qresp, qpref, xd, size, binom, mu0, nk, kidx, ostride, nresp, mats, lgm):  # type: ignore[no-untyped-def]
        """Every question's matrix (:func:`_assemble_one`) into ``mats[q]``, ``lgm[q]``."""
        nsub = 1 << qcls.shape[1]
        codes = np.zeros((nsub, nsub), np.int64)
        pools = np.zeros((2, nsub), np.int64)
        npool = np.zeros((2, nsub), np.int64)
        for qi in range(qcls.shape[0]):
            _assemble_one(tables, qcls[qi], qresp[qi], qpref[qi], xd, size, binom, mu0, nk, kidx, ostride, nresp,
                          codes, pools, npool, mats[qi], lgm[qi])

    @njit(cache=True, nogil=True)
    def _assemble_gains(tables, qcls, qresp, qpref, xd, size, binom, mu0, nk, kidx, ostride, nresp, leak_weight, measure, out):  # type: ignore[no-untyped-def]
        """``out[q]`` = :func:`_gain` of question q's matrix, each matrix made in one scratch
        buffer and scored at once (all of them together are tens of megabytes, most of it
        zeros: allocating and touching them cost more than scoring)."""
        nslot = qcls.shape[1]
        nsub = 1 << nslot
        codes = np.zeros((nsub, nsub), np.int64)
        pools = np.zeros((2, nsub), np.int64)
        npool = np.zeros((2, nsub), np.int64)
        most = xd.shape[0] << nslot
        mat = np.zeros((nresp * nslot + 1, most))
        lg = np.zeros(most)
        prior = np.empty(most)
        public = np.empty(most)
        for qi in range(qcls.shape[0]):
            ncol = _assemble_one(tables, qcls[qi], qresp[qi], qpref[qi], xd, size, binom, mu0, nk, kidx, ostride, nresp,
                                 codes, pools, npool, mat, lg)
            out[qi] = _gain(mat[:, :ncol], lg[:ncol], nresp, nslot, leak_weight, measure, prior, public)
            mat[:, :ncol] = 0.0


def question_matrices(
    q: Problem,
    loc: int,
    questions: Sequence[tuple[int, ...]],
    responders: Sequence[int],
    pref: Mapping[int, set[int]],
    key_of: Mapping[int, tuple],
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per question, the matrix of answer weights (rows: responder position x slot of the card
    shown, then "nobody") by target groups (columns), and log2 of each group's number of card
    sets; ``None`` when the lattice does not apply (no numba, constraints across locations,
    questions of mixed length or a card in two slots, a preferred card not fixed, too big).
    ``q`` must be simplified; ``key_of[k]`` is free card k's symmetry signature."""
    found = _answer_tables(q, loc, questions, responders, pref, key_of)
    if found is None:
        return None
    ready, qcls, qresp, qpref, targets, size, binom, mu0, nk, kidx, ostride, n = found
    cols = _columns(qcls, targets, size, binom, mu0)
    mats = np.zeros((len(questions), n * qcls.shape[1] + 1, max(int(cols.max()), 1)))
    lgm = np.zeros((len(questions), mats.shape[2]))
    _assemble(ready, qcls, qresp, qpref, targets, size, binom, mu0, nk, kidx, ostride, n, mats, lgm)
    return mats, lgm


def question_gains(
    q: Problem,
    loc: int,
    questions: Sequence[tuple[int, ...]],
    responders: Sequence[int],
    pref: Mapping[int, set[int]],
    key_of: Mapping[int, tuple],
    leak_weight: float = 0.0,
    measure: str = "shannon",
) -> np.ndarray | None:
    """:func:`matrix_gains` of :func:`question_matrices` without keeping the matrices: each is
    scored as soon as it is made (``None`` where :func:`question_matrices` is)."""
    found = _answer_tables(q, loc, questions, responders, pref, key_of)
    if found is None:
        return None
    ready, qcls, qresp, qpref, targets, size, binom, mu0, nk, kidx, ostride, n = found
    out = np.zeros(len(questions))
    _assemble_gains(ready, qcls, qresp, qpref, targets, size, binom, mu0, nk, kidx, ostride, n, float(leak_weight),
                    MEASURES.index(measure), out)
    return out


def _answer_tables(
    q: Problem,
    loc: int,
    questions: Sequence[tuple[int, ...]],
    responders: Sequence[int],
    pref: Mapping[int, set[int]],
    key_of: Mapping[int, tuple],
) -> tuple | None:
    """The per-responder answer tables ``ready[layer, code, target]`` and the per-question
    arrays :func:`_assemble` reads (see :func:`question_matrices`)."""
    if not AVAILABLE or not questions or not responders:
        return None
    width = len(questions[0])
    if any(len(x) != width for x in questions) or loc in responders or len(set(responders)) != len(responders):
        return None
    slot_of: dict[int, int] = {}
    for x in questions:
        for j, k in enumerate(x):
            if slot_of.setdefault(k, j) != j:
                return None
    if any(q.dom[k] & (q.dom[k] - 1) for cs in pref.values() for k in cs):
        return None
    lat = build(q, loc, slot_of, key_of, width)
    if width > 3 or lat is None or not lat.cards or max(len(sc) for sc in lat.slot_classes) > 60:
        return None
    size = lat.size
    binom = _binomials(int(size.max()) + 1)
    n = len(responders)
    e0 = np.zeros(lat.states)
    e0[0] = 1.0
    start = (e0, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    top = lat.states - 1
    packing = (size, lat.shift, lat.fmask, lat.guard, lat.bias, binom)
    rest = start
    for z in range(q.num_locations):
        if z != loc and z not in responders:
            rest = _push(*rest, *lat.profiles[z], *packing)
    backward = [rest] * (n + 1)
    for i in range(n - 1, 0, -1):  # the first responder's step is needed only at the targets' complements
        backward[i] = _push(*backward[i + 1], *lat.profiles[responders[i]], *packing)
    forward = [start]
    for i, r in enumerate(responders):
        f, nz, codes = _push(*forward[-1], *lat.profiles[r], *packing)
        live = _completable(nz, codes, backward[i + 1][0], *lat.profiles[loc], top, lat.guard, lat.bias)
        if len(live) < len(nz):
            f[np.delete(nz, live)] = 0.0
        forward.append((f, nz[live], codes[live]))
    nk = np.array([len(sc) for sc in lat.slot_classes] + [0] * (3 - width), dtype=np.int64)
    astride = np.cumprod(np.r_[1, nk + 1]).astype(np.int64)
    ostride = np.cumprod(np.r_[1, 2 * nk + 1]).astype(np.int64)
    sptr = np.r_[0, np.cumsum(nk)].astype(np.int64)
    scls = np.array([c for sc in lat.slot_classes for c in sc], dtype=np.int64)
    # per card (then per question slot): its class when free, else its holder's responder
    # position (-1: not a responder) and whether that holder shows it first
    position = np.full(q.num_locations + 1, -1, dtype=np.int64)
    position[list(responders)] = np.arange(n)
    fixed = np.array([(d.bit_length() - 1) if d & (d - 1) == 0 else q.num_locations for d in q.dom], dtype=np.int64)
    card_cls = np.full(q.num_cards, -1, dtype=np.int64)
    for k, c in lat.class_of.items():
        card_cls[k] = c
    shown_first = np.zeros(q.num_cards, dtype=np.bool_)
    for z, cs in pref.items():
        shown_first[[k for k in cs if fixed[k] == z]] = True
    named = np.array(questions, dtype=np.int64).reshape(len(questions), width)
    qcls = card_cls[named]
    qresp = np.where(qcls < 0, position[fixed[named]], -1)
    qpref = (qcls < 0) & shown_first[named]
    empty_at = np.zeros(n, dtype=np.bool_)
    empty_at[n - 1] = True
    first_held = np.where(qresp >= 0, qresp, n).min(axis=1)
    empty_at[first_held[first_held < n]] = True
    xidx = lat.profiles[loc][0]
    layer = np.zeros((len(xidx), int(ostride[-1])))  # one responder's outside weights, then the inside ones
    inner = np.zeros((len(xidx), int(ostride[-1])))
    mu0 = binom[size[None, :], lat.targets].prod(axis=1)  # card sets per target profile (small integers: exact)
    full = int(size @ (np.int64(1) << lat.shift))
    rest_of = _pull(backward[1][0], top - xidx, full - lat.profiles[loc][1], *lat.profiles[responders[0]], *packing)
    total = float((mu0 * rest_of).sum())
    exact = total * float(size.max()) ** width < 2.0**52
    ready = np.zeros((n, int(ostride[-1]), len(xidx)))  # [layer, code, target]
    room = (size[None, :] - lat.targets).astype(float)  # [target, class]: its cards not in the target
    for i, r in enumerate(responders):
        if i:
            layer[:] = 0.0
            inner[:] = 0.0
        _layer(forward[i][0], *forward[i + 1][1:], *lat.profiles[r], backward[i + 1][0], lat.targets, *lat.profiles[loc], top,
               size, lat.guard, lat.bias, binom, lat.slot, lat.kidx, nk, sptr, scls, astride, ostride, bool(empty_at[i]), exact, layer, inner)
        _finish(layer, inner, exact, room, size, nk, sptr, scls, ostride, ready[i])
    return ready, qcls, qresp, qpref, lat.targets, size, binom, mu0, nk, lat.kidx, ostride, n



def matrix_gains(mats: np.ndarray, lgm: np.ndarray, responders: int, leak_weight: float = 0.0,
                 measure: str = "shannon") -> np.ndarray:
    """Each question's score from :func:`question_matrices`' output (``measure``: "shannon",
    "hartley" or "accuracy"; ``leak_weight`` w subtracts w times what who refuted tells
    everyone), compiled: the matrices are mostly zeros and per-element array passes over them
    cost more than the DP that fills them."""
    out = np.zeros(mats.shape[0])
    width = (mats.shape[1] - 1) // responders
    _matrix_gains(mats, lgm, responders, width, float(leak_weight), MEASURES.index(measure), out)
    return out
