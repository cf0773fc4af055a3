"""The exact model counter behind the ``exact`` and ``sample`` backends.

Pipeline (each step exists because it shrinks the work, never changes the answer):

1. :func:`problem_from_kb` turns a static knowledge base into location bitmask domains plus
   counts ``(cards, loc, lo, hi)``, clauses ``(cards, loc)`` and not-all ``pairs``.
2. :func:`simplify` runs unit propagation with counting to a fixpoint and drops every card
   whose location is known, adjusting the bounds of the counts it belonged to.
3. :func:`compile_problem` merges interchangeable locations (a location touched only by an
   exact size constraint over every card that may go there - an opponent's hand nobody knows
   anything about - is interchangeable with others of the same kind: closed-form multinomial),
   groups interchangeable cards into classes (same domain, same constraints), and runs a
   dynamic programme over the classes. A class of ``m`` cards is placed all at once by a
   composition ``(k_1, ..., k_d)`` of ``m`` over its locations weighted by the multinomial
   coefficient; the state packs every open count into bit fields of one Python int (with a
   guard bit per field so all upper bounds are checked by one ``&``, and a borrow trick for
   the lower-bound look-ahead) plus one bit per open clause / not-all constraint.
4. :class:`Plan` keeps the forward layers; a backward pass yields per-cell tallies
   (forward-backward) and completion counts that drive exactly uniform sampling.
5. Optionally the state also carries *tracking* fields that no constraint ever resets: how
   many cards of each class went to a tracked location, and where a tracked card went, so
   the final layer holds joint counts of those outcomes (:meth:`Plan.tracked`).

All arithmetic on counts is exact Python ints.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np

from deduce.constraints import At, AtLeastOne, Count, NotAll, NotAt, Op
from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers import _exact_kernels as _kernels
from solvers.budget import active, charge

__all__ = [
    "Problem",
    "Plan",
    "Tracked",
    "problem_from_kb",
    "simplify",
    "compile_problem",
    "solution_counts",
    "randbelow",
    "DEFAULT_LIMIT",
]

#: default bound on DP transitions (state x move) before refusing with TooLarge.
DEFAULT_LIMIT = 20_000_000

CountC = tuple[tuple[int, ...], int, int, int]  # cards, loc, lo, hi
Clause = tuple[tuple[int, ...], int]  # cards, loc
Pairs = tuple[tuple[int, int], ...]  # (card, loc) pairs: not all of them hold


@dataclass(frozen=True)
class Problem:
    """A static counting problem: per-card location bitmasks plus the non-unit constraints."""

    num_cards: int
    num_locations: int
    dom: tuple[int, ...]
    counts: tuple[CountC, ...]
    clauses: tuple[Clause, ...]
    notalls: tuple[Pairs, ...]

    def with_domain(self, card: int, mask: int) -> Problem:
        """The same problem with ``card`` restricted to the locations in ``mask``."""
        dom = list(self.dom)
        dom[card] &= mask
        return Problem(self.num_cards, self.num_locations, tuple(dom), self.counts, self.clauses, self.notalls)


def problem_from_kb(kb: KnowledgeBase) -> Problem:
    """Translate a single-epoch knowledge base (static constraint kinds only)."""
    if kb.epochs != 1:
        raise NotSupported(f"exact: knowledge bases with {kb.epochs} epochs are not supported")
    n, nl = kb.num_cards, kb.num_locations
    full = (1 << nl) - 1
    dom = [full] * n
    counts: list[CountC] = []
    clauses: list[Clause] = []
    notalls: list[Pairs] = []
    for c in kb.constraints:
        if isinstance(c, At):
            dom[c.card] &= 1 << c.loc
        elif isinstance(c, NotAt):
            dom[c.card] &= full ^ (1 << c.loc)
        elif isinstance(c, AtLeastOne):
            clauses.append((c.cards, c.loc))
        elif isinstance(c, Count):
            if c.op is Op.EQ:
                counts.append((c.cards, c.loc, c.n, c.n))
            elif c.op is Op.LE:
                counts.append((c.cards, c.loc, 0, c.n))
            else:
                counts.append((c.cards, c.loc, c.n, len(c.cards)))
        elif isinstance(c, NotAll):
            where: dict[int, int] = {}
            if all(where.setdefault(k, z) == z for k, z in c.pairs):
                notalls.append(c.pairs)
            # a card named at two places never satisfies every pair: always true, dropped
        else:
            raise NotSupported(f"exact: constraint kind {c.kind} is not supported")
    return Problem(n, nl, tuple(dom), tuple(counts), tuple(clauses), tuple(notalls))


def simplify(p: Problem) -> Problem | None:
    """Propagate to a fixpoint; ``None`` when a contradiction shows up.

    The result mentions only cards with two or more possible locations; counts carry bounds
    on how many of those cards may still join the location.
    """
    dom = list(p.dom)
    counts = list(p.counts)
    clauses = list(p.clauses)
    notalls = list(p.notalls)
    changed = True
    while changed:
        changed = False
        if 0 in dom:
            return None
        new_counts: list[CountC] = []
        for cards, z, lo, hi in counts:
            bit = 1 << z
            here = 0
            poss: list[int] = []
            for k in cards:
                d = dom[k]
                if d & bit:
                    if d == bit:
                        here += 1
                    else:
                        poss.append(k)
            lo -= here
            hi -= here
            np_ = len(poss)
            if hi < 0 or lo > np_:
                return None
            if lo < 0:
                lo = 0
            if hi > np_:
                hi = np_
            if hi == 0:
                if poss:
                    for k in poss:
                        dom[k] &= ~bit
                    changed = True
                continue
            if lo == np_:
                for k in poss:
                    dom[k] = bit
                changed = True
                continue
            if lo == 0 and hi == np_:
                continue
            new_counts.append((tuple(poss), z, lo, hi))
        counts = new_counts
        new_clauses: list[Clause] = []
        for cards, z in clauses:
            bit = 1 << z
            poss = []
            sat = False
            for k in cards:
                d = dom[k]
                if d & bit:
                    if d == bit:
                        sat = True
                        break
                    poss.append(k)
            if sat:
                continue
            if not poss:
                return None
            if len(poss) == 1:
                dom[poss[0]] = bit
                changed = True
                continue
            new_clauses.append((tuple(poss), z))
        clauses = new_clauses
        new_notalls: list[Pairs] = []
        for pairs in notalls:
            open_: list[tuple[int, int]] = []
            dead = False
            for k, z in pairs:
                d = dom[k]
                bit = 1 << z
                if not d & bit:
                    dead = True
                    break
                if d != bit:
                    open_.append((k, z))
            if dead:
                continue
            if not open_:
                return None
            if len(open_) == 1:
                k, z = open_[0]
                dom[k] &= ~(1 << z)
                changed = True
                continue
            new_notalls.append(tuple(open_))
        notalls = new_notalls
    # deduplicate: same card set at the same location -> intersect bounds
    merged: dict[tuple[tuple[int, ...], int], tuple[int, int]] = {}
    for cards, z, lo, hi in counts:
        key = (cards, z)
        if key in merged:
            lo0, hi0 = merged[key]
            lo, hi = max(lo, lo0), min(hi, hi0)
            if lo > hi:
                return None
        merged[key] = (lo, hi)
    clause_set = sorted(set(clauses), key=lambda c: (len(c[0]), c))
    kept: list[Clause] = []
    for cards, z in clause_set:  # drop clauses implied by a smaller one at the same place
        s = set(cards)
        if not any(kz == z and set(kc) <= s for kc, kz in kept):
            kept.append((cards, z))
    return Problem(
        p.num_cards,
        p.num_locations,
        tuple(dom),
        tuple((cards, z, lo, hi) for (cards, z), (lo, hi) in merged.items()),
        tuple(kept),
        tuple(sorted(set(notalls))),
    )


@lru_cache(maxsize=4096)
def _compositions(m: int, d: int) -> tuple[tuple[int, ...], ...]:
    """Every way to write ``m`` as an ordered sum of ``d`` non-negative parts."""
    if d == 1:
        return ((m,),)
    out: list[tuple[int, ...]] = []
    for first in range(m, -1, -1):
        for rest in _compositions(m - first, d - 1):
            out.append((first,) + rest)
    return tuple(out)


def _multinomial(parts: Sequence[int]) -> int:
    out = factorial(sum(parts))
    for k in parts:
        out //= factorial(k)
    return out


def _bits(mask: int) -> list[int]:
    out = []
    z = 0
    while mask:
        if mask & 1:
            out.append(z)
        mask >>= 1
        z += 1
    return out


def randbelow(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in ``[0, n)`` for arbitrarily large ``n``, drawn from ``rng``."""
    if n <= 0:
        raise ValueError("randbelow needs a positive bound")
    if n <= 1 << 62:
        return int(rng.integers(0, n))
    k = n.bit_length()
    words = (k + 31) // 32
    while True:  # draw k random bits; accept below n (probability > 1/2 per round)
        r = 0
        for w in rng.integers(0, 1 << 32, size=words, dtype=np.uint64):
            r = (r << 32) | int(w)
        r >>= words * 32 - k
        if r < n:
            return r


@dataclass
class _VLoc:
    """A virtual location: one real location, or a group of interchangeable ones."""

    kind: str  # "one" | "free" (no constraint, weight g per card) | "cap" (exact sizes)
    locs: tuple[int, ...]
    caps: tuple[int, ...] = ()

    @property
    def mult(self) -> int:
        return len(self.locs) if self.kind == "free" else 1


@dataclass
class _Move:
    """Placing one class: all compositions with the same effect on the state, merged."""

    delta: int
    nclear: int  # AND-mask that clears the satisfied bits
    weight: int
    wk: list[int]  # sum over compositions of weight * k_v, per position in the class domain
    comps: list[tuple[tuple[int, ...], int]]


@dataclass
class _Step:
    members: tuple[int, ...]
    vdom: tuple[int, ...]
    moves: list[_Move]
    opening: int  # bits set as this step opens clauses / not-alls
    guard: int
    thr: int  # 0 when no lower-bound look-ahead is needed
    closebits: int
    keep: int  # -1 when no field closes here
    base: int


@dataclass(frozen=True)
class Tracked:
    """Joint counts of what tracked locations and cards received, from one DP pass.

    ``locs[i] = (loc, cards)``: a class of interchangeable cards that may go to ``loc``;
    ``counts[(placed, where)]`` is the number of worlds in which ``placed[i]`` cards of
    ``locs[i]`` went to its location (every subset of that size equally often, by symmetry)
    and tracked card ``cards[j]`` went to location ``where[j]``. ``fixed_at[loc]``: cards
    that are at a tracked location in every world.
    """

    locs: tuple[tuple[int, tuple[int, ...]], ...]
    fixed_at: dict[int, tuple[int, ...]]
    cards: tuple[int, ...]
    counts: dict[tuple[tuple[int, ...], tuple[int, ...]], int]


class Plan:
    """A compiled counting problem: ``total`` now, tallies and samples on demand.

    ``track_locs`` / ``track_cards`` make the final DP states remember, per class, how many
    of its cards went to each tracked location, and where each tracked card went (tracked
    cards become classes of their own, placed last so fewer states carry them; locations a
    tracked card may take are never merged). :meth:`tracked` and :meth:`tracked_arrays` read
    the joint counts back: one pass gives what would otherwise take one count per outcome.
    """

    def __init__(
        self,
        p: Problem,
        limit: int = DEFAULT_LIMIT,
        use_kernels: bool = True,
        track_locs: Sequence[int] = (),
        track_cards: Sequence[int] = (),
    ) -> None:
        self.use_kernels = use_kernels
        self.track_locs = tuple(track_locs)
        self.track_cards = tuple(track_cards)
        self._fields: list[tuple[str, int, tuple[int, ...], int, int]] = []
        self._tstart = 0
        self.kernels = False
        self._layers: list[dict[int, int]] | None = None
        self._arrays: list[tuple[np.ndarray, np.ndarray]] = []
        self._class_sums: list[list[int]] | None = None
        self._back_arrays: list[tuple[np.ndarray, np.ndarray]] = []
        self.num_cards = p.num_cards
        self.num_locations = p.num_locations
        self.limit = limit
        self.work = 0
        self._total: int | None = 0
        self._tallies: list[list[int]] | None = None
        self._backward: list[dict[int, int]] | None = None
        self._sample_cache: dict[tuple[int, int], tuple[list[int], list[tuple[int, _Move]]]] = {}
        q = simplify(p)
        self.dom = q.dom if q is not None else p.dom
        if q is None:
            self.feasible = False
            self.total = 0
            return
        self.feasible = True
        self._build(q)
        self._forward()

    # -- compilation ----------------------------------------------------------------------------
    def _build(self, q: Problem) -> None:
        nl = q.num_locations
        dom = q.dom
        self.fixed = [(d.bit_length() - 1) if d & (d - 1) == 0 else -1 for d in dom]
        free = [k for k in range(q.num_cards) if self.fixed[k] < 0]
        column = [frozenset(k for k in free if dom[k] >> z & 1) for z in range(nl)]
        touched: set[int] = {z for _, z in q.clauses}
        touched |= {z for pairs in q.notalls for _, z in pairs}
        counts_at: dict[int, list[CountC]] = {}
        for cnt in q.counts:
            counts_at.setdefault(cnt[1], []).append(cnt)
        # group interchangeable locations
        groups: dict[tuple, list[int]] = {}
        vlocs: list[_VLoc] = []
        vof = [-1] * nl
        # tracked locations, and every place a tracked card may go, stay locations of their own
        protect = set(self.track_locs)
        for k in self.track_cards:
            protect.update(_bits(dom[k]))
        for z in range(nl):
            if not column[z]:
                continue
            cs = counts_at.get(z, [])
            plain = z not in touched and z not in protect and all(frozenset(c[0]) == column[z] for c in cs)
            if plain and not cs:
                groups.setdefault(("free", column[z]), []).append(z)
            elif plain and len(cs) == 1 and cs[0][2] == cs[0][3]:
                groups.setdefault(("cap", column[z]), []).append(z)
            else:
                vof[z] = len(vlocs)
                vlocs.append(_VLoc("one", (z,)))
        vcounts: list[CountC] = [(c[0], vof[c[1]], c[2], c[3]) for c in q.counts if vof[c[1]] >= 0]
        self.factor = 1
        for (kind, col), zs in groups.items():
            v = len(vlocs)
            for z in zs:
                vof[z] = v
            if kind == "cap":
                caps = tuple(counts_at[z][0][2] for z in zs)
                vlocs.append(_VLoc("cap", tuple(zs), caps))
                vcounts.append((tuple(sorted(col)), v, sum(caps), sum(caps)))
                self.factor *= _multinomial(caps)
            else:
                vlocs.append(_VLoc("free", tuple(zs)))
        self.vlocs = vlocs
        self._vof = vof
        vclauses = [(cards, vof[z]) for cards, z in q.clauses]
        vnotalls = [tuple((k, vof[z]) for k, z in pairs) for pairs in q.notalls]
        vdom = {}
        for k in free:
            vdom[k] = tuple(sorted({vof[z] for z in _bits(dom[k])}))
        # classes of interchangeable cards
        member: dict[int, list] = {k: [] for k in free}
        for j, (cards, _, _, _) in enumerate(vcounts):
            for k in cards:
                member[k].append(("c", j))
        for j, (cards, _) in enumerate(vclauses):
            for k in cards:
                member[k].append(("a", j))
        for j, pairs in enumerate(vnotalls):
            for k, v in pairs:
                member[k].append(("n", j, v))
        classes: dict[tuple, list[int]] = {}
        self.inert: list[int] = []
        tracked = set(self.track_cards)
        tmask = sum(1 << z for z in self.track_locs)
        for k in free:
            if k in tracked:  # a class of its own, whose location the final states record
                member[k].append(("t", k))
            if not member[k] and not dom[k] & tmask:
                self.inert.append(k)
                self.factor *= bin(dom[k]).count("1")
            else:
                classes.setdefault((vdom[k], tuple(member[k])), []).append(k)
        self._classes = classes
        ordered = self._split(self._order(list(classes.items())), vcounts, vclauses, vnotalls)
        self._layout(ordered, vcounts, vclauses, vnotalls)

    @staticmethod
    def _split(ordered, vcounts, vclauses, vnotalls):
        """Place a big class card by card when that needs fewer moves than all compositions.

        A class of ``m`` cards over ``d`` locations has ``C(m+d-1, d-1)`` compositions (fewer
        distinct ones when it touches only ``t`` locations' constraints: ``C(m+t, t)``);
        card by card it costs about ``m * d`` moves over states of the same kind.
        """
        out = []
        for (vd, mem), cards in ordered:
            m, d = len(cards), len(vd)
            if m == 1 or any(key[0] == "n" for key in mem):
                out.append(((vd, mem), cards))
                continue
            touched = {vcounts[key[1]][1] for key in mem if key[0] == "c"}
            touched |= {vclauses[key[1]][1] for key in mem if key[0] == "a"}
            t = len(touched)
            moves = comb(m + t, t) if t < d else comb(m + d - 1, d - 1)
            if moves > m * d:
                out.extend(((vd, mem), [k]) for k in cards)
            else:
                out.append(((vd, mem), cards))
        return out

    @staticmethod
    def _order(items: list[tuple[tuple, list[int]]]) -> list[tuple[tuple, list[int]]]:
        """Greedy elimination order: open few constraints, close many (small DP frontier).

        Each pick takes the class with the smallest (tracked, opened - closed, -closed, size),
        the first such on a tie; the opened and closed counts of the other classes are
        updated only where they share a constraint with the pick (linear work per pick)."""
        uses: dict[tuple, int] = {}
        for (_, mem), _cards in items:
            for key in mem:
                ck = key[:2]
                uses[ck] = uses.get(ck, 0) + 1
        n = len(items)
        keys = [tuple({key[:2] for key in mem}) for (_, mem), _cards in items]
        late = [any(key[0] == "t" for key in mem) for (_, mem), _cards in items]  # tracked cards last
        size = [len(cards) for _, cards in items]
        holders: dict[tuple, list[int]] = {}
        for i, ks in enumerate(keys):
            for ck in ks:
                holders.setdefault(ck, []).append(i)
        new = [len(ks) for ks in keys]
        close = [sum(1 for ck in ks if uses[ck] == 1) for ks in keys]
        alive = [True] * n
        left = list(range(n))
        opened: set[tuple] = set()
        done: dict[tuple, int] = {}
        order: list[tuple[tuple, list[int]]] = []
        while left:
            best = min(left, key=lambda i: (late[i], new[i] - close[i], -close[i], size[i], i))
            left.remove(best)
            alive[best] = False
            order.append(items[best])
            for ck in keys[best]:
                d = done.get(ck, 0)
                fresh = ck not in opened
                opened.add(ck)
                done[ck] = d + 1
                u = uses[ck]
                for i in holders[ck]:
                    if alive[i]:
                        if fresh:
                            new[i] -= 1
                        if d + 1 == u:
                            close[i] -= 1
                        if d + 2 == u:
                            close[i] += 1
        return order

    def _layout(self, ordered, vcounts, vclauses, vnotalls) -> None:
        full_keys = [key for key, _ in ordered]
        ordered = [((vd, tuple(k for k in mem if k[0] != "t")), cards) for (vd, mem), cards in ordered]
        nclass = len(ordered)
        # field widths
        maxdelta = [0] * len(vcounts)
        last: dict[tuple, int] = {}
        first: dict[tuple, int] = {}
        for i, ((_, mem), cards) in enumerate(ordered):
            for key in mem:
                last[key[:2]] = i
                first.setdefault(key[:2], i)
                if key[0] == "c":
                    maxdelta[key[1]] = max(maxdelta[key[1]], len(cards))
        shift = []
        width = []
        offs = []
        pos = 0
        for j, (_, _, _lo, hi) in enumerate(vcounts):
            b = 1
            while (1 << b) < max(hi + 1, maxdelta[j]):
                b += 1
            shift.append(pos)
            width.append(b)
            offs.append((1 << b) - 1 - hi)
            pos += b + 1
        # one bit per open clause / not-all; constraints whose lifetimes do not overlap share
        # a bit (set when the constraint opens, checked clear when it closes)
        slot: dict[tuple, int] = {}
        free_at: list[int] = []  # per slot: the step after which it is free again
        for key in sorted((k for k in first if k[0] != "c"), key=lambda k: (first[k], last[k])):
            b = next((x for x, until in enumerate(free_at) if until < first[key]), len(free_at))
            if b == len(free_at):
                free_at.append(0)
            free_at[b] = last[key]
            slot[key] = pos + b
        pos += len(free_at)
        self._tstart = pos
        # tracking fields, above everything else so no borrow or reset ever touches them:
        # per tracked location and class, how many of the class's cards went there; per
        # tracked card, the location it went to
        tdelta: dict[tuple, list[tuple[int, int, int]]] = {}  # class key -> (vloc, shift, kind)
        lw = max(1, (self.num_locations - 1).bit_length())
        for z in self.track_locs:
            v = self._vof[z]
            for key, cards in self._classes.items():
                if v >= 0 and v in key[0]:
                    w = len(cards).bit_length()
                    self._fields.append(("loc", z, tuple(cards), pos, w))
                    tdelta.setdefault(key, []).append((v, pos, 0))
                    pos += w
        for key, cards in self._classes.items():
            if any(k[0] == "t" for k in key[1]):
                self._fields.append(("card", cards[0], tuple(cards), pos, lw))
                tdelta.setdefault(key, []).append((-1, pos, 1))
                pos += lw
        self.state_bits = pos
        guard = sum(1 << (shift[j] + width[j]) for j in range(len(vcounts)))
        self.init = sum(offs[j] << shift[j] for j in range(len(vcounts)))
        remaining = [len(c[0]) for c in vcounts]
        closed_before: set[int] = set()
        steps: list[_Step] = []
        for i, ((vd, mem), cards) in enumerate(ordered):
            m = len(cards)
            tracking = tdelta.get(full_keys[i], [])
            cjs = [(key[1], vd.index(vcounts[key[1]][1])) for key in mem if key[0] == "c"]
            ajs = [(key[1], vd.index(vclauses[key[1]][1])) for key in mem if key[0] == "a"]
            njs = [(key[1], vd.index(key[2])) for key in mem if key[0] == "n"]
            for j, _ in cjs:
                remaining[j] -= m
            mults = [self.vlocs[v].mult for v in vd]
            moves: dict[tuple[int, int], _Move] = {}
            for comp in _compositions(m, len(vd)):
                if any(comp[x] > vcounts[j][3] for j, x in cjs):
                    continue
                delta = 0
                for j, x in cjs:
                    delta += comp[x] << shift[j]
                for v, tpos, kind in tracking:
                    if kind == 0:
                        delta += comp[vd.index(v)] << tpos
                    else:  # a tracked card: record the location its composition names
                        delta += self.vlocs[vd[comp.index(1)]].locs[0] << tpos
                clear = 0
                for j, x in ajs:
                    if comp[x]:
                        clear |= 1 << slot[("a", j)]
                for j, x in njs:
                    if comp[x] < m:
                        clear |= 1 << slot[("n", j)]
                w = _multinomial(comp)
                for x, g in enumerate(mults):
                    if g != 1 and comp[x]:
                        w *= g ** comp[x]
                mv = moves.get((delta, clear))
                if mv is None:
                    mv = moves[(delta, clear)] = _Move(delta, ~clear, 0, [0] * len(vd), [])
                mv.weight += w
                for x in range(len(vd)):
                    mv.wk[x] += w * comp[x]
                mv.comps.append((comp, w))
            closing = {key[:2] for key in mem if last[key[:2]] == i}
            closebits = 0
            keep = -1
            base = 0
            for kind, j in closing:
                if kind == "a":
                    closebits |= 1 << slot[("a", j)]
                elif kind == "n":
                    closebits |= 1 << slot[("n", j)]
                else:
                    keep &= ~(((1 << (width[j] + 1)) - 1) << shift[j])
                    base |= offs[j] << shift[j]
            thr = 0
            need = False
            for j, (_, _, lo, _) in enumerate(vcounts):
                if j in closed_before:
                    t = offs[j]
                else:
                    short = lo - remaining[j]
                    if short > 0:
                        need = True
                    t = max(short, 0) + offs[j]
                thr |= t << shift[j]
            closed_before |= {j for kind, j in closing if kind == "c"}
            opening = 0
            for key in mem:
                if key[0] != "c" and first[key[:2]] == i:
                    opening |= 1 << slot[key[:2]]
            steps.append(
                _Step(
                    tuple(cards), vd, list(moves.values()), opening, guard, thr if need else 0, closebits, keep, base
                )
            )
        self.steps = steps
        self.nclass = nclass

    # -- dynamic programme ----------------------------------------------------------------------
    def _charge(self, amount: int) -> None:
        self.work += amount
        charge(amount)  # the command's work budget, if one is metered
        if self.work > self.limit:
            raise self._too_large()

    def _too_large(self) -> TooLarge:
        return TooLarge(
            f"exact: more than {self.limit} DP transitions needed; "
            "raise the limit (ExactSolver(limit=...)) or use a sampling backend"
        )

    def _kernels_ok(self) -> bool:
        """The int64 kernels give the same answers when states fit 62 bits and counts 2**62."""
        if not (self.use_kernels and _kernels.AVAILABLE) or self.state_bits > 62:
            return False
        bound = 1
        for st in self.steps:
            for k in st.members:
                bound *= bin(self.dom[k]).count("1")
        return bound < 1 << 62

    def _forward(self) -> None:
        self.kernels = self._kernels_ok()
        if self.kernels:
            self._forward_kernels()
            return
        predicted = self._predict()
        if predicted is None:
            self._count_python(pay=True)
            return
        charges, feasible = predicted
        for amount in charges:  # the very charges the counting pass makes, in its order
            self._charge(amount)
        if feasible is None:  # pragma: no cover - the last charge passed the limit and raised
            raise self._too_large()
        self.feasible = feasible
        self._total = None  # counted on first use (a consistency check never needs the count)

    def _predict(self) -> tuple[list[int], bool | None] | None:
        """The charges of the pure-Python pass, layer by layer, and whether a world exists,
        from the DP's states alone (numpy, no counts: which states exist never depends on the
        counts; None: refused at the last layer); None where states do not fit ``int64``. Why: the counting pass runs on Python
        ints, many times slower, and used to spend a whole work budget before refusing. The
        prediction stops at the layer whose charge passes the limit or the work budget: replaying
        its charges then refuses exactly there, with the counting pass's message and the same
        steps on the meter (so ``auto``'s other backends behave as before), but no transition of
        the counting pass is ever computed."""
        if self.state_bits > 62:
            return None
        meter = active()
        room = self.limit - self.work if meter is None else min(self.limit - self.work, meter.left)
        charges: list[int] = []
        spent = 0
        states = np.array([self.init], dtype=np.int64)
        for st in self.steps:
            amount = len(states) * len(st.moves)
            charges.append(amount)
            spent += amount
            if spent > room:  # refused at this layer, before computing it
                return charges, None
            deltas = np.array([mv.delta for mv in st.moves], dtype=np.int64)
            nclears = np.array([mv.nclear for mv in st.moves], dtype=np.int64)
            nxt = (((states | st.opening)[:, None] + deltas[None, :]) & nclears[None, :]).ravel()
            ok = (nxt & st.guard) == 0
            if st.thr:
                ok &= (((nxt | st.guard) - st.thr) & st.guard) == st.guard
            if st.closebits:
                ok &= (nxt & st.closebits) == 0
            nxt = nxt[ok]
            if st.keep != -1:
                nxt = (nxt & st.keep) | st.base
            nxt.sort()  # distinct states (np.unique hashes, many times slower on these keys)
            states = nxt[np.concatenate(([True], nxt[1:] != nxt[:-1]))] if len(nxt) else nxt
            if not len(states):
                break
        return charges, len(charges) == len(self.steps) and len(states) > 0

    @property
    def total(self) -> int:
        """The number of consistent worlds (counted on first use where :meth:`_predict` ran)."""
        if self._total is None:
            self._count_python(pay=False)
        assert self._total is not None
        return self._total

    @total.setter
    def total(self, value: int) -> None:
        self._total = value

    def _count_python(self, pay: bool) -> None:
        """The forward pass on Python ints (``pay``: False when :meth:`_predict` has already
        charged its work)."""
        layers: list[dict[int, int]] = [{self.init: 1}]
        for st in self.steps:
            cur = layers[-1]
            if pay:
                self._charge(len(cur) * len(st.moves))
            nxt: dict[int, int] = {}
            get = nxt.get
            op, guard, thr, cb, keep, base = st.opening, st.guard, st.thr, st.closebits, st.keep, st.base
            moves = [(mv.delta, mv.nclear, mv.weight) for mv in st.moves]
            for s, cnt in cur.items():
                s |= op
                for delta, nclear, w in moves:
                    ns = (s + delta) & nclear
                    if ns & guard:
                        continue
                    if thr and ((ns | guard) - thr) & guard != guard:
                        continue
                    if ns & cb:
                        continue
                    if keep != -1:
                        ns = (ns & keep) | base
                    nxt[ns] = get(ns, 0) + cnt * w
            layers.append(nxt)
            if not nxt:
                break
        self._layers = layers
        dp_total = sum(layers[-1].values()) if len(layers) == len(self.steps) + 1 else 0
        self.total = dp_total * self.factor
        self.feasible = self.total > 0

    @staticmethod
    def _move_arrays(st: _Step) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.array([mv.delta for mv in st.moves], dtype=np.int64),
            np.array([mv.nclear for mv in st.moves], dtype=np.int64),
            np.array([mv.weight for mv in st.moves], dtype=np.int64),
        )

    def _forward_kernels(self) -> None:
        assert _kernels.forward_layer is not None
        states = np.array([self.init], dtype=np.int64)
        counts = np.ones(1, dtype=np.int64)
        arrays = [(states, counts)]
        for st in self.steps:
            self._charge(len(states) * len(st.moves))
            d, nc, w = self._move_arrays(st)
            states, counts = _kernels.forward_layer(
                states, counts, d, nc, w, st.opening, st.guard, st.thr, st.closebits, st.keep, st.base
            )
            arrays.append((states, counts))
            if not len(states):
                break
        self._arrays = arrays
        complete = len(arrays) == len(self.steps) + 1
        dp_total = sum(int(c) for c in arrays[-1][1].tolist()) if complete else 0
        self.total = dp_total * self.factor
        self.feasible = self.total > 0

    @property
    def layers(self) -> list[dict[int, int]]:
        """Forward layers as ``{state: count}`` dicts (converted from arrays on demand)."""
        if self._layers is None and self._total is None:
            self._count_python(pay=False)
        if self._layers is None:
            self._layers = [
                dict(zip(s.tolist(), c.tolist(), strict=True)) for s, c in self._arrays
            ]
        return self._layers

    def _step_targets(self, i: int, s: int) -> Iterator[tuple[int, _Move]]:
        st = self.steps[i]
        guard, thr, cb, keep, base = st.guard, st.thr, st.closebits, st.keep, st.base
        s |= st.opening
        for mv in st.moves:
            ns = (s + mv.delta) & mv.nclear
            if ns & guard:
                continue
            if thr and ((ns | guard) - thr) & guard != guard:
                continue
            if ns & cb:
                continue
            if keep != -1:
                ns = (ns & keep) | base
            yield ns, mv

    def _run_backward(self) -> None:
        """Completion counts per state and, per class, weighted location sums (tallies)."""
        if self._class_sums is not None:
            return
        if self.kernels:
            self._run_backward_kernels()
            return
        n = len(self.steps)
        back: list[dict[int, int]] = [dict() for _ in range(n + 1)]
        back[n] = {s: 1 for s in self.layers[n]}
        vt: list[list[int]] = []
        for i in range(n - 1, -1, -1):
            st = self.steps[i]
            self._charge(len(self.layers[i]) * len(st.moves))
            nb = back[i + 1]
            cur: dict[int, int] = {}
            s_t = [0] * len(st.moves)
            op, guard, thr, cb, keep, base = st.opening, st.guard, st.thr, st.closebits, st.keep, st.base
            moves = [(mv.delta, mv.nclear, mv.weight, x) for x, mv in enumerate(st.moves)]
            get = nb.get
            for s0, f in self.layers[i].items():
                s = s0 | op
                acc = 0
                for delta, nclear, w, x in moves:
                    ns = (s + delta) & nclear
                    if ns & guard:
                        continue
                    if thr and ((ns | guard) - thr) & guard != guard:
                        continue
                    if ns & cb:
                        continue
                    if keep != -1:
                        ns = (ns & keep) | base
                    b = get(ns)
                    if b:
                        acc += w * b
                        s_t[x] += f * b
                if acc:
                    cur[s0] = acc
            back[i] = cur
            vt.append(self._per_v(st, s_t))
        vt.reverse()
        self._backward = back
        self._class_sums = vt

    @staticmethod
    def _per_v(st: _Step, s_t: Sequence[int]) -> list[int]:
        per_v = [0] * len(st.vdom)
        for x, mv in enumerate(st.moves):
            if s_t[x]:
                for y in range(len(st.vdom)):
                    per_v[y] += s_t[x] * mv.wk[y]
        return per_v

    def _run_backward_kernels(self) -> None:
        assert _kernels.backward_layer is not None
        n = len(self.steps)
        arrays = self._arrays
        last = np.sort(arrays[n][0])
        back: list[tuple[np.ndarray, np.ndarray]] = [(last, np.ones(len(last), dtype=np.int64))] * (n + 1)
        vt: list[list[int]] = []
        for i in range(n - 1, -1, -1):
            st = self.steps[i]
            self._charge(len(arrays[i][0]) * len(st.moves))
            states, fcounts = arrays[i]
            d, nc, w = self._move_arrays(st)
            keys, vals = back[i + 1]
            bvals, per_move = _kernels.backward_layer(
                states, fcounts, keys, vals, d, nc, w, st.opening, st.guard, st.thr, st.closebits, st.keep, st.base
            )
            order = np.argsort(states)
            back[i] = (states[order], bvals[order])
            vt.append(self._per_v(st, [int(v) for v in per_move.tolist()]))
        vt.reverse()
        self._back_arrays = back
        self._class_sums = vt

    def _back_dicts(self) -> list[dict[int, int]]:
        """Completion counts per state, as dicts (sampling walks them)."""
        self._run_backward()
        if self._backward is None:
            self._backward = [
                {k: v for k, v in zip(s.tolist(), b.tolist(), strict=True) if v} for s, b in self._back_arrays
            ]
        return self._backward

    # -- queries ----------------------------------------------------------------------------------
    def tallies(self) -> list[list[int]]:
        """``cells[card][loc]``: how many consistent worlds put ``card`` at ``loc``."""
        if self._tallies is not None:
            return self._tallies
        nl = self.num_locations
        cells = [[0] * nl for _ in range(self.num_cards)]
        if self.total == 0:
            self._tallies = cells
            return cells
        total = self.total
        for k, z in enumerate(self.fixed):
            if z >= 0:
                cells[k][z] = total
        for k in self.inert:
            zs = _bits(self.dom[k])
            share = total // len(zs)
            for z in zs:
                cells[k][z] = share
        self._run_backward()
        for st, per_v in zip(self.steps, self._class_sums, strict=True):
            m = len(st.members)
            for v, amount in zip(st.vdom, per_v, strict=True):
                if not amount:
                    continue
                value = amount * self.factor // m  # worlds with one given member at v
                vl = self.vlocs[v]
                for idx, z in enumerate(vl.locs):
                    if vl.kind == "one":
                        share = value
                    elif vl.kind == "free":
                        share = value // len(vl.locs)
                    else:
                        share = value * vl.caps[idx] // sum(vl.caps)
                    for k in st.members:
                        cells[k][z] = share
        self._tallies = cells
        return cells

    def tracked_arrays(self) -> tuple[np.ndarray, np.ndarray] | tuple[list[int], list[int]]:
        """The final DP states summed by their tracking bits: ``(keys, counts)``, ``keys`` being
        the tracking bits shifted down (``Plan.track_layout`` says where each field sits).
        int64 arrays when the kernels ran (every sum fits: it is at most the total), else lists
        of Python ints."""
        t0 = self._tstart
        if self.kernels:
            states, cnts = self._arrays[-1]
            keys = states >> t0
            order = np.argsort(keys, kind="stable")
            keys = keys[order]
            if not len(keys):
                return keys, cnts[:0]
            starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
            return keys[starts], np.add.reduceat(cnts[order], starts)
        acc: dict[int, int] = {}
        for st_, c in self.layers[-1].items():
            acc[st_ >> t0] = acc.get(st_ >> t0, 0) + c
        return list(acc), list(acc.values())

    @property
    def track_layout(self) -> list[tuple[str, int, tuple[int, ...], int, int]]:
        """Tracking fields ``(kind, loc or card, class cards, shift, width)``; shifts are relative
        to the keys of :meth:`tracked_arrays`. Location fields come before card fields."""
        return [(k, z, c, sh - self._tstart, w) for k, z, c, sh, w in self._fields]

    def tracked(self) -> Tracked:
        """Counts of worlds by what the tracked locations and cards received (see :class:`Tracked`)."""
        fields = [f for f in self._fields if f[0] == "loc"]
        locs = [(z, cards) for _, z, cards, _, _ in fields]
        fixed_at = {z: tuple(k for k, f in enumerate(self.fixed) if f == z) for z in self.track_locs} if self.feasible else {}
        counts: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        if self.total == 0:
            return Tracked(tuple(locs), fixed_at, self.track_cards, counts)
        cfields = {f[1]: f for f in self._fields if f[0] == "card"}
        getters: list[tuple[int, int, int]] = []  # (constant or -1, shift, mask) per tracked card
        for k in self.track_cards:
            if k in cfields:
                _, _, _, sh, w = cfields[k]
                getters.append((-1, sh, (1 << w) - 1))
            else:
                getters.append((self.fixed[k], 0, 0))
        lgetters = [(sh, (1 << w) - 1) for _, _, _, sh, w in fields]
        t0 = self._tstart
        keys, sums = self.tracked_arrays()
        final = zip(np.asarray(keys).tolist() if self.kernels else keys,
                    np.asarray(sums).tolist() if self.kernels else sums, strict=True)
        for s, c in final:
            s <<= t0
            key = (
                tuple((s >> sh) & m for sh, m in lgetters),
                tuple(const if const >= 0 else (s >> sh) & m for const, sh, m in getters),
            )
            counts[key] = counts.get(key, 0) + c
        f = self.factor
        return Tracked(tuple(locs), fixed_at, self.track_cards, {k: v * f for k, v in counts.items()})

    def sample(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` exactly uniform consistent worlds (empty when there is none)."""
        if self.total == 0 or n <= 0:
            return []
        backward = self._back_dicts()
        out = []
        for _ in range(n):
            w = np.full(self.num_cards, -1, dtype=np.int64)
            for k, z in enumerate(self.fixed):
                if z >= 0:
                    w[k] = z
            for k in self.inert:
                zs = _bits(self.dom[k])
                w[k] = zs[int(rng.integers(0, len(zs)))]
            at_v: dict[int, list[int]] = {}
            s = self.init
            for i, st in enumerate(self.steps):
                key = (i, s)
                cached = self._sample_cache.get(key)
                if cached is None:
                    nb = backward[i + 1]
                    weights: list[int] = []
                    opts: list[tuple[int, _Move]] = []
                    for ns, mv in self._step_targets(i, s):
                        b = nb.get(ns)
                        if b:
                            weights.append(mv.weight * b)
                            opts.append((ns, mv))
                    cached = (weights, opts)
                    self._sample_cache[key] = cached
                weights, opts = cached
                ns, mv = opts[_pick(rng, weights)]
                comp = mv.comps[_pick(rng, [cw for _, cw in mv.comps])][0]
                members = [st.members[x] for x in rng.permutation(len(st.members))]
                pos = 0
                for v, kv in zip(st.vdom, comp, strict=True):
                    if kv:
                        at_v.setdefault(v, []).extend(members[pos : pos + kv])
                    pos += kv
                s = ns
            for v, cards in at_v.items():
                vl = self.vlocs[v]
                if vl.kind == "one":
                    w[cards] = vl.locs[0]
                elif vl.kind == "free":
                    for k in cards:
                        w[k] = vl.locs[int(rng.integers(0, len(vl.locs)))]
                else:
                    perm = [cards[x] for x in rng.permutation(len(cards))]
                    pos = 0
                    for z, cap in zip(vl.locs, vl.caps, strict=True):
                        w[perm[pos : pos + cap]] = z
                        pos += cap
            out.append(w)
        return out


def _pick(rng: np.random.Generator, weights: Sequence[int]) -> int:
    """Index ``i`` with probability ``weights[i] / sum(weights)`` (exact, big ints)."""
    r = randbelow(rng, sum(weights))
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")  # pragma: no cover


def compile_problem(p: Problem, limit: int = DEFAULT_LIMIT, use_kernels: bool = True) -> Plan:
    """Simplify and count ``p``; the plan answers tallies and samples afterwards."""
    return Plan(p, limit, use_kernels)


def solution_counts(
    p: Problem, loc: int, limit: int = DEFAULT_LIMIT, use_kernels: bool = True
) -> dict[tuple[int, ...], int]:
    """Exact number of worlds for each possible set of cards at ``loc`` (branch and count)."""
    out: dict[tuple[int, ...], int] = {}
    bit = 1 << loc
    spent = 0

    def rec(q: Problem) -> None:
        nonlocal spent
        r = simplify(q)
        if r is None:
            return
        open_ = [k for k, d in enumerate(r.dom) if d & bit and d != bit]
        if not open_:
            plan = Plan(r, limit - spent, use_kernels)
            spent += plan.work
            if plan.total:
                out[tuple(k for k, d in enumerate(r.dom) if d == bit)] = plan.total
            return
        k = open_[0]
        rec(r.with_domain(k, bit))
        rec(r.with_domain(k, ~bit))

    rec(p)
    return out
