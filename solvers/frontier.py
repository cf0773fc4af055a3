"""``frontier``: exact counting of time-indexed knowledge bases (Mayfair Alibi) by a DP over
cards whose state is the running sums of the constraints still open.

Why: every constraint of a time-indexed knowledge base is a count over cards of a property
of one card's history (``Count``: at a location in an epoch; ``CountEver``: ever at one of
some locations; a ``Transfer``'s ``(src, dst, k)``: moved from src to dst at that pass;
``AtLeastOne`` and ``NotAll`` likewise), so the number of consistent worlds is a sum over
each card's own *histories*. The counter takes the cards one at a time; a state is the
partial sum of every constraint that has some of its cards behind and some ahead (the
*frontier*), with the exact number of labelled partial worlds behind it. A constraint is
checked as soon as its last card is taken, so the state keeps only what the cards ahead can
still change; a sum that can no longer reach its target is dropped at once.

* **Histories.** A card's histories are the location sequences that propagation
  (:func:`~deduce.knowledge.propagate`) allows at every epoch and that change only along the
  pairs every ``Transfer`` of that epoch lists (the frame rule). A constraint whose value is
  the same on every history of a card takes that card's share off its target instead of
  widening the state (the observer's own hand, pinned cards, box cards that never move).
* **Order.** Cards are taken so that constraints open late and close early (greedy: the
  card that leaves the fewest constraints open next).
* **Step.** Where numba (the ``fast`` extra) is installed, a layer's (state, option) pairs are
  checked in a compiled loop (:mod:`solvers._frontier_kernels`); else over whole arrays. Both
  give the same layers.
* **Cells.** A backward pass over the stored layers gives, for every card and location, the
  exact number of worlds with the card there (forward count times backward count summed over
  the card's histories ending there), all in exact integers (kept modulo a few primes below 2**31 in int64 arrays, as many as the float count of the worlds says the total needs, and read back by the Chinese remainder theorem). The same tables draw exactly
  uniform worlds (:meth:`FrontierSolver.sample`).

The state space is the number of distinct partial sums, which grows with the number of
players and passes; past ``max_states`` states in one layer or ``max_work`` transitions the
counter refuses with :class:`~deduce.errors.TooLarge` (an exact answer or none), and a
knowledge base of more than ``max_cells`` cards times epochs is refused before any work (a
full 4-player Alibi counts through its first pass, 78 cards over 2 epochs, in about 0.5 s;
later rounds are left to the sampler). Answers agree with ``brute``
(``tests/solvers/test_frontier.py``).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from deduce.constraints import At, AtLeastOne, Count, CountEver, NotAll, NotAt, Op, Transfer
from deduce.errors import InvalidConfig, NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase, propagate
from solvers.base import EPOCH_KINDS, Solver, Tally
from solvers.budget import charge

__all__ = ["FrontierSolver"]

History = tuple[int, ...]


@dataclass(frozen=True)
class _Sum:
    """One linear constraint over cards: ``sum over cards of feature(card's history) op n``."""

    cards: frozenset[int]
    op: Op
    n: int
    label: str


def _histories(possible: np.ndarray, card: int, steps: list[set[tuple[int, int]] | None], limit: int) -> list[History]:
    """Every location sequence of ``card`` allowed by ``possible[epoch, card]`` whose changes
    are all along the pairs ``steps[epoch]`` allows (None: no transfer names that step, the
    card stays), in lexicographic order.

    Built epoch by epoch over whole arrays (a recursion in Python cost most of the time of
    reading a late 7-player Alibi view): the locations that still reach the last epoch are
    found backwards first, so no prefix is a dead end and no layer is larger than the answer;
    more than ``limit`` sequences is refused."""
    E, L = possible.shape[0], possible.shape[2]
    move = np.zeros((max(E - 1, 0), L, L), dtype=bool)  # move[e, a, b]: a at e, b at e + 1 allowed
    for e in range(E - 1):
        move[e] |= np.eye(L, dtype=bool)
        for a, b in steps[e] or ():
            move[e, a, b] = True
    reach = np.zeros((E, L), dtype=bool)  # locations at e from which some allowed sequence ends
    reach[E - 1] = possible[E - 1, card]
    for e in range(E - 2, -1, -1):
        reach[e] = possible[e, card] & (move[e] & reach[e + 1][None, :]).any(axis=1)
    seqs = np.flatnonzero(reach[0]).astype(np.int64)[:, None]
    for e in range(E - 1):
        if len(seqs) > limit:
            break
        rows, nxt = np.nonzero(move[e][seqs[:, -1]] & reach[e + 1][None, :])  # row-major: lexicographic
        seqs = np.concatenate([seqs[rows], nxt[:, None].astype(np.int64)], axis=1)
    if len(seqs) > limit:
        raise TooLarge(f"frontier: card {card} has more than {limit} possible histories")
    return [tuple(h) for h in seqs.tolist()]


class _Problem:
    """A knowledge base as cards' histories and linear sums over them (see module doc)."""

    def __init__(self, kb: KnowledgeBase, history_limit: int) -> None:
        self.kb = kb
        E, C = kb.epochs, kb.num_cards
        prop = propagate(kb)
        self.contradiction = prop.contradiction
        self.hist: list[list[History]] = [[] for _ in range(C)]
        self.sums: list[_Sum] = []
        self.feature: list[dict[int, np.ndarray]] = []  # per sum: card -> 0/1.. per history
        self._seen: set[tuple] = set()  # sums already kept (a repeated one adds nothing)
        #: the cards of every sum, repeats included: the card order weighs them (measured: the
        #: order from the distinct sums alone ran past the work cap on a view it counts)
        self.order_members: list[frozenset[int]] = []
        if self.contradiction is not None:
            return
        pairs: list[set[tuple[int, int]] | None] = [None] * max(E - 1, 0)
        transfers: list[Transfer] = []
        for c in kb.constraints:
            if isinstance(c, Transfer):
                transfers.append(c)
                allowed = {(s, d) for s, d, _ in c.moves}
                pairs[c.epoch] = allowed if pairs[c.epoch] is None else pairs[c.epoch] & allowed
        for card in range(C):
            self.hist[card] = _histories(prop.possible, card, pairs, history_limit)
            if not self.hist[card]:
                self.contradiction = f"card {kb.deck[card].name} has no possible history"
                return
        arrays = [np.array(h, dtype=np.int64).reshape(len(h), E) for h in self.hist]
        # every card's histories in one array: each constraint's feature is computed once over
        # all of them, and each card's share (a view) and its range come from its segment
        every = np.concatenate(arrays)
        ptr = np.cumsum([0] + [len(a) for a in arrays])
        everyone = list(range(C))

        def post(s: _Sum, full: np.ndarray, cards: Sequence[int]) -> None:
            lo, hi = np.minimum.reduceat(full, ptr[:-1]), np.maximum.reduceat(full, ptr[:-1])
            self._add(s, {card: full[ptr[card]:ptr[card + 1]] for card in cards}, lo, hi)

        for c in kb.constraints:
            if isinstance(c, (At, NotAt)):
                continue  # propagation's domains hold them exactly
            if isinstance(c, Transfer):
                for s, d, k in c.moves:
                    full = ((every[:, c.epoch] == s) & (every[:, c.epoch + 1] == d)).astype(np.int64)
                    post(_Sum(frozenset(everyone), Op.EQ, k, f"{k} moved {s}->{d} at {c.epoch}"), full, everyone)
            elif isinstance(c, Count):
                post(_Sum(frozenset(c.cards), c.op, c.n, repr(c)), (every[:, c.epoch] == c.loc).astype(np.int64), c.cards)
            elif isinstance(c, AtLeastOne):
                post(_Sum(frozenset(c.cards), Op.GE, 1, repr(c)), (every[:, c.epoch] == c.loc).astype(np.int64), c.cards)
            elif isinstance(c, CountEver):
                full = np.isin(every[:, list(c.epochs)], list(c.locs)).any(axis=1).astype(np.int64)
                post(_Sum(frozenset(c.cards), c.op, c.n, repr(c)), full, c.cards)
            elif isinstance(c, NotAll):
                feats: dict[int, np.ndarray] = {}
                for card, z in c.pairs:
                    f = (arrays[card][:, c.epoch] == z).astype(np.int64)
                    feats[card] = feats[card] + f if card in feats else f
                self._add(_Sum(frozenset(feats), Op.LE, len(c.pairs) - 1, repr(c)), feats)
            else:  # pragma: no cover - check_supported prevents this
                raise NotSupported(f"frontier: cannot count {c!r}")

    def _add(self, s: _Sum, feats: dict[int, np.ndarray], low: np.ndarray | None = None,
             high: np.ndarray | None = None) -> None:
        """Keep the cards whose feature varies over their histories; the others' fixed share
        comes off the target (and a sum no card varies in is checked here). ``low``/``high``:
        each card's least and greatest feature, where the caller has them."""
        if low is None or high is None:
            low = {card: int(f.min()) for card, f in feats.items()}
            high = {card: int(f.max()) for card, f in feats.items()}
        fixed = 0
        varying: dict[int, np.ndarray] = {}
        lo = hi = 0
        for card, f in feats.items():
            a, b = int(low[card]), int(high[card])
            if a == b:
                fixed += a
            else:
                varying[card] = f
                lo += a
                hi += b
        n = s.n - fixed
        if not varying:
            if not s.op.compare(0, n):
                self.contradiction = f"{s.label} cannot hold"
            return
        if (s.op is Op.EQ and not lo <= n <= hi) or (s.op is Op.LE and lo > n) or (s.op is Op.GE and hi < n):
            self.contradiction = f"{s.label} cannot hold"
            return
        if (s.op is Op.LE and hi <= n) or (s.op is Op.GE and lo >= n):
            return  # holds in every world
        # the same sum again (a hand size on both sides of a meld window, where only known
        # cards moved): one copy constrains the same worlds and keeps the state narrower
        key = (s.op, n, tuple(sorted((card, f.tobytes()) for card, f in varying.items())))
        self.order_members.append(frozenset(varying))
        if key in self._seen:
            return
        self._seen.add(key)
        self.sums.append(_Sum(frozenset(varying), s.op, n, s.label))
        self.feature.append(varying)


def _order(prob: _Problem) -> list[int]:
    """Cards in the order the DP takes them: greedily the one that leaves the fewest sums open
    (ties: the one opening fewest new sums, then the lowest card)."""
    C = prob.kb.num_cards
    members = prob.order_members
    by_card: list[list[int]] = [[] for _ in range(C)]
    for j, m in enumerate(members):
        for card in m:
            by_card[card].append(j)
    left = [len(m) for m in members]
    started = [False] * len(members)
    open_now = 0
    remaining = set(range(C))
    order: list[int] = []
    while remaining:
        best, key = -1, None
        for card in remaining:
            opened = sum(1 for j in by_card[card] if not started[j] and left[j] > 1)
            closed = sum(1 for j in by_card[card] if started[j] and left[j] == 1)
            k = (open_now + opened - closed, opened, card)
            if key is None or k < key:
                best, key = card, k
        assert key is not None
        order.append(best)
        remaining.discard(best)
        for j in by_card[best]:
            if not started[j] and left[j] > 1:
                open_now += 1
            elif started[j] and left[j] == 1:
                open_now -= 1
            started[j] = True
            left[j] -= 1
    return order


#: the layers' transitions come from the compiled loop where numba (the ``fast`` extra) is
#: installed; tests set it False to check the array code gives the same layers
USE_KERNELS = importlib.util.find_spec("numba") is not None
_CHUNK = 4_000_000  # candidate (state, option, sum) entries built at once
_FIRST_PRIMES = 4  # moduli the first pass keeps counts in (up to 124 bits; more are added if needed)


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer matrix and, per row, the index of its distinct row.

    Rows are packed into one int64 key each (mixed radix over the columns' ranges) where the
    ranges allow, which sorts several times faster than comparing rows as bytes."""
    if rows.shape[1] == 0:
        return rows[:1], np.zeros(len(rows), dtype=np.int64)
    if len(rows):
        low = rows.min(axis=0).astype(np.int64)
        stride = _radix(rows.max(axis=0).astype(np.int64) - low + 1)
        if stride is not None:
            key = (rows.astype(np.int64) - low) @ stride
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            return rows[first], inverse.ravel()
    rows = np.ascontiguousarray(rows)
    view = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
    return rows[first], inverse.ravel()


def _radix(span: np.ndarray) -> np.ndarray | None:
    """Mixed-radix strides packing rows whose columns take ``span`` values each into one int64
    in their lexicographic order, or None where the product of the spans does not fit."""
    if float(np.prod(span.astype(float))) >= 2.0**62:
        return None
    return np.concatenate([np.cumprod(span[::-1])[::-1][1:], [1]]).astype(np.int64)


def _primes(k: int) -> np.ndarray:
    """The ``k`` largest primes below 2**31 (as a column), the moduli counts are kept in."""
    while len(_PRIMES) < k:
        q = (_PRIMES[-1] if _PRIMES else 2**31) - 1
        while any(q % d == 0 for d in range(2, int(q**0.5) + 1)):
            q -= 1
        _PRIMES.append(q)
    return np.array(_PRIMES[:k], dtype=np.int64)[:, None]


_PRIMES: list[int] = []


def _group_mod(values: np.ndarray, groups: np.ndarray, n: int, primes: np.ndarray) -> np.ndarray:
    """``out[:, g] = sum of values[:, k] with groups[k] == g``, modulo each row's prime
    (``values`` already reduced, so below 2**31). Summed as floats where every partial sum
    stays below 2**53 (fewer than 2**22 terms), so exactly; else sorted and summed in int64."""
    out = np.zeros((len(primes), n), dtype=np.int64)
    if not len(groups):
        return out
    if len(groups) < 2**22:
        for j in range(len(primes)):
            out[j] = np.bincount(groups, weights=values[j], minlength=n).astype(np.int64)
    else:
        order = np.argsort(groups, kind="stable")
        g = groups[order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        out[:, g[starts]] = np.add.reduceat(values[:, order], starts, axis=1)
    return out % primes


def _crt(residues: np.ndarray, primes: np.ndarray) -> np.ndarray:
    """The integers (an object array) below the product of ``primes`` with these residues
    (``residues[j]`` modulo ``primes[j]``): the Chinese remainder theorem."""
    ps = [int(q) for q in primes[:, 0]]
    modulus = 1
    for q in ps:
        modulus *= q
    out = np.zeros(residues.shape[1], dtype=object)
    for j, q in enumerate(ps):
        rest = modulus // q
        out = out + residues[j].astype(object) * (rest * pow(rest, -1, q))
    return out % modulus


class _Layers:
    """The forward DP over cards in ``order``: per layer, the states (rows of open sums), their
    counts, and the transitions ``(state, option, next state)`` the backward pass reuses."""

    def __init__(self, prob: _Problem, max_states: int, epoch: int | None, max_work: int | None = None) -> None:
        self.prob = prob
        self.max_work = max_work
        #: candidate transitions (state, option) examined so far
        self.work = 0
        kb = prob.kb
        order = _order(prob)
        self.order = order
        C = len(order)
        pos = {card: i for i, card in enumerate(order)}
        J = len(prob.sums)
        first = [min(pos[c] for c in s.cards) for s in prob.sums]
        last = [max(pos[c] for c in s.cards) for s in prob.sums]
        #: the sums open in layer i (after i cards): started before i, finishing at i or later
        self.active: list[tuple[int, ...]] = [tuple(j for j in range(J) if first[j] < i <= last[j]) for i in range(C + 1)]
        by_card: list[list[int]] = [[] for _ in range(kb.num_cards)]
        for j, f in enumerate(prob.feature):
            for card in f:
                by_card[card].append(j)
        # what the cards from position i on can still add to each sum, at least and at most
        rem_lo = np.zeros((C + 1, J), dtype=np.int64)
        rem_hi = np.zeros((C + 1, J), dtype=np.int64)
        for i in range(C - 1, -1, -1):
            rem_lo[i], rem_hi[i] = rem_lo[i + 1], rem_hi[i + 1]
            for j in by_card[order[i]]:
                f = prob.feature[j][order[i]]
                rem_lo[i, j] += int(f.min())
                rem_hi[i, j] += int(f.max())
        e = kb.epochs - 1 if epoch is None else int(epoch)
        L = kb.num_locations
        big = 1 << 20
        #: per card position: option keys [option, next sums + closed sums], ways, ways per location
        self.keys: list[np.ndarray] = []
        self.mult: list[np.ndarray] = []
        self.per_loc: list[np.ndarray] = []
        #: per card position: option -> indices of the card's histories that take it
        self.histories: list[list[np.ndarray]] = []
        self._plans: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for i, card in enumerate(order):
            nxt = self.active[i + 1]
            cur_idx = {j: k for k, j in enumerate(self.active[i])}
            checks = [j for j in by_card[card] if last[j] == i]
            cols = list(nxt) + checks
            hist = np.array(prob.hist[card], dtype=np.int64).reshape(len(prob.hist[card]), kb.epochs)
            feat = np.zeros((len(hist), len(cols)), dtype=np.int64)
            for k, j in enumerate(cols):
                if card in prob.feature[j]:
                    feat[:, k] = prob.feature[j][card]
            uniq, inverse = _unique_rows(feat.astype(np.int16)) if len(cols) else (feat[:1].astype(np.int16), np.zeros(len(hist), dtype=np.int64))
            t = len(uniq)
            per_loc = np.zeros((t, L), dtype=np.int64)
            np.add.at(per_loc, (inverse, hist[:, e]), 1)
            self.keys.append(uniq.astype(np.int32))
            self.per_loc.append(per_loc)
            self.mult.append(per_loc.sum(axis=1))  # at most history_limit ways, far below 2**31
            self.histories.append([np.flatnonzero(inverse == o) for o in range(t)])
            # the next state's sums: the old value (column of the current state, -1: starts at 0)
            # plus the option's key; then every sum must stay reachable, closed ones must hold
            src = np.array([cur_idx.get(j, -1) for j in cols], dtype=np.int64)
            lower = np.full(len(cols), -big, dtype=np.int64)
            upper = np.full(len(cols), big, dtype=np.int64)
            for k, j in enumerate(cols):
                sm = prob.sums[j]
                lo, hi = (int(rem_lo[i + 1, j]), int(rem_hi[i + 1, j])) if k < len(nxt) else (0, 0)
                if sm.op in (Op.EQ, Op.LE):
                    upper[k] = sm.n - lo
                if sm.op in (Op.EQ, Op.GE):
                    lower[k] = sm.n - hi
            self._plans.append((src, lower, upper, np.array([len(nxt)])))
        self.states: list[np.ndarray] = [np.zeros((1, 0), dtype=np.int16)]
        #: the moduli the counts are kept in (a column): enough that their product exceeds
        #: the number of worlds, which bounds every count read back (see :meth:`_moduli`)
        self.primes = _primes(_FIRST_PRIMES)
        #: per layer: each state's number of partial worlds modulo each prime (rows), and as a
        #: float (only to bound the number of worlds, see :meth:`_moduli`)
        self.counts: list[np.ndarray] = [np.ones((len(self.primes), 1), dtype=np.int64)]
        self.approx: list[np.ndarray] = [np.ones(1)]
        #: per card position: the transitions (state index, option index, next state index)
        self.moves: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for i in range(C):
            if not len(self.states[-1]):
                break
            self._step(i, max_states)
        need = self._moduli()
        if need > len(self.primes):  # more worlds than the first primes can tell apart
            self.primes = _primes(need)
            self.counts = [np.ones((need, 1), dtype=np.int64)]
            for i, (a, o, b) in enumerate(self.moves):
                self.counts.append(self._forward(i, a, o, b))

    def _moduli(self) -> int:
        """How many primes the counts need: their product must exceed the number of worlds
        (every count read back, the total, a cell, a state's completions, is at most that).
        The float count bounds it: each of its sums of n nonnegative terms is off by at most
        n * 2**-53 relatively, so over one layer per card it is within far less than the 8x
        margin below; where it overflowed, the product of the cards' history counts does."""
        if len(self.states) != len(self.order) + 1 or not len(self.states[-1]):
            return 1  # no world: every count read back is 0
        est = float(self.approx[-1][0])
        if math.isfinite(est):
            bits = math.log2(max(est, 1.0)) + 3
        else:
            bits = sum(math.log2(len(h)) for h in self.prob.hist) + 1
        k, have = 0, 0.0
        while have <= bits:
            have += math.log2(int(_primes(k + 1)[k, 0]))
            k += 1
        return k

    def _forward(self, i: int, a: np.ndarray, o: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Layer ``i + 1``'s counts modulo each prime from layer ``i``'s over the transitions."""
        vals = self.counts[i][:, a] * self.mult[i][o] % self.primes
        return _group_mod(vals, b, len(self.states[i + 1]), self.primes)

    def _step(self, i: int, max_states: int) -> None:
        states = self.states[i]
        keys = self.keys[i]
        src, lower, upper, width = self._plans[i]
        w = int(width[0])
        m, t = len(states), len(keys)
        charge(m * t)
        self.work += m * t
        if self.max_work is not None and self.work > self.max_work:
            raise TooLarge(f"frontier: more than {self.max_work} transitions after {i} of {len(self.order)} cards; "
                           "use the sampler (epoch-sample)")
        base = np.zeros((m, len(src)), dtype=np.int32)
        has = src >= 0
        base[:, has] = states[:, src[has]]
        packed = self._packing(base, keys, lower, upper, w) if USE_KERNELS else None
        if packed is not None:
            self._record(i, max_states, *self._compiled_moves(base, keys, lower, upper, w, *packed))
            return
        per = max(1, _CHUNK // max(1, t * max(1, len(src))))
        a_parts, o_parts, rows = [], [], []
        for lo in range(0, m, per):
            cand = base[lo:lo + per, None, :] + keys[None, :, :]
            ok = ((cand >= lower) & (cand <= upper)).all(axis=2)
            a, o = np.nonzero(ok)
            a_parts.append(a + lo)
            o_parts.append(o)
            rows.append(cand[a, o, :w].astype(np.int16))
        a = np.concatenate(a_parts) if a_parts else np.zeros(0, dtype=np.int64)
        o = np.concatenate(o_parts) if o_parts else np.zeros(0, dtype=np.int64)
        allrows = np.concatenate(rows) if rows else np.zeros((0, w), dtype=np.int16)
        if len(allrows):
            nxt, b = _unique_rows(allrows)
        else:
            nxt, b = np.zeros((0, w), dtype=np.int16), np.zeros(0, dtype=np.int64)
        self._record(i, max_states, a, o, nxt, b)

    @staticmethod
    def _packing(base: np.ndarray, keys: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                 w: int) -> tuple[np.ndarray, np.ndarray] | None:
        """``(low, stride)`` packing every next state the bounds let through into one int64
        (each kept sum lies within its bounds and within what the states plus the options can
        reach), or None where the ranges are too wide (the array code then runs)."""
        if not w or not len(base):
            return None
        lo = np.maximum(lower[:w], base[:, :w].min(axis=0).astype(np.int64) + keys[:, :w].min(axis=0))
        hi = np.minimum(upper[:w], base[:, :w].max(axis=0).astype(np.int64) + keys[:, :w].max(axis=0))
        stride = _radix(np.maximum(hi - lo + 1, 1))
        return None if stride is None else (lo.astype(np.int64), stride)

    @staticmethod
    def _compiled_moves(base: np.ndarray, keys: np.ndarray, lower: np.ndarray, upper: np.ndarray, w: int,
                        low: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The layer's transitions by the compiled loop (:mod:`solvers._frontier_kernels`), in
        chunks of states; the same (a, o, next states, b) as the array code."""
        from solvers._frontier_kernels import transitions

        m, t = len(base), len(keys)
        per = max(1, _CHUNK // max(1, t))
        parts = [transitions(base[lo:lo + per], keys, lower, upper, w, low, stride) for lo in range(0, m, per)]
        a = np.concatenate([p[0] + lo for p, lo in zip(parts, range(0, m, per), strict=True)])
        o = np.concatenate([p[1] for p in parts])
        packed = np.concatenate([p[2] for p in parts])
        _, first, b = np.unique(packed, return_index=True, return_inverse=True)
        nxt = (base[a[first], :w] + keys[o[first], :w]).astype(np.int16)
        return a, o, nxt, b.ravel()

    def _record(self, i: int, max_states: int, a: np.ndarray, o: np.ndarray, nxt: np.ndarray, b: np.ndarray) -> None:
        """Keep layer ``i + 1``: its states, the transitions into them, and their counts."""
        if len(nxt) > max_states:
            raise TooLarge(f"frontier: more than {max_states} states after {i + 1} of {len(self.order)} cards; "
                           "use the sampler (epoch-sample)")
        self.moves.append((a, o, b))
        self.states.append(nxt)
        self.counts.append(self._forward(i, a, o, b))
        self.approx.append(np.bincount(b, weights=self.approx[i][a] * self.mult[i][o], minlength=len(nxt)))

    @property
    def total(self) -> int:
        if len(self.states) != len(self.order) + 1 or not len(self.states[-1]):
            return 0
        return int(_crt(self.counts[-1][:, :1], self.primes)[0])

    def backward(self) -> list[np.ndarray]:
        """``back[i][:, state]``: the completions of layer ``i``'s state by the cards from ``i``
        on, modulo each prime."""
        C, P = len(self.order), len(self.primes)
        back: list[np.ndarray] = [np.zeros((P, 0), dtype=np.int64) for _ in range(C + 1)]
        if not self.total:
            return back
        back[C] = np.ones((P, 1), dtype=np.int64)
        for i in range(C - 1, -1, -1):
            a, o, b = self.moves[i]
            vals = back[i + 1][:, b] * self.mult[i][o] % self.primes
            back[i] = _group_mod(vals, a, len(self.states[i]), self.primes)
        return back

    def cells(self) -> list[list[int]]:
        """``cells[card][loc]``: worlds with the card at loc (in the layers' epoch)."""
        kb = self.prob.kb
        L = kb.num_locations
        out = [[0] * L for _ in range(kb.num_cards)]
        if not self.total:
            return out
        back = self.backward()
        for i, card in enumerate(self.order):
            a, o, b = self.moves[i]
            through = _group_mod(self.counts[i][:, a] * back[i + 1][:, b] % self.primes, o, len(self.keys[i]),
                                 self.primes)
            # per location: sum over options of through * histories ending there (below history_limit)
            cell = np.zeros((len(self.primes), L), dtype=np.int64)
            for k in range(len(self.keys[i])):
                cell = (cell + through[:, k:k + 1] * self.per_loc[i][k]) % self.primes
            out[card] = [int(v) for v in _crt(cell, self.primes)]
        return out


class FrontierSolver(Solver):
    """Exact counts, cells and uniform samples of time-indexed knowledge bases (module doc)."""

    name = "frontier"
    exact = True
    can_count = True
    can_sample = True
    can_explain = False
    kinds = EPOCH_KINDS + (CountEver,)
    max_epochs = None

    def __init__(self, max_states: int = 200_000, max_work: int | None = 1_000_000, history_limit: int = 20_000,
                 max_cells: int | None = 160) -> None:
        self.max_states = int(max_states)
        #: cards times epochs past which the knowledge base is refused before any work (None: no
        #: bound); measured on 4-player Alibi: 78 cards over 2 epochs count in 0.5 s, over 3-4
        #: epochs in 4-6 s, later rounds not within minutes
        self.max_cells = None if max_cells is None else int(max_cells)
        #: candidate transitions one query may examine (None: no cap): refuses in about a second
        self.max_work = None if max_work is None else int(max_work)
        self.history_limit = int(history_limit)
        if not 1 <= self.history_limit < 2**31:  # a card's ways times a count modulo a prime must fit in int64
            raise InvalidConfig("history_limit", history_limit, "must be a number of histories from 1 below 2**31")

    def check_supported(self, kb: KnowledgeBase) -> None:
        super().check_supported(kb)
        # all epochs count, meld windows too: counted by moving epochs only, the audit's bigger
        # ceiling let 4-player round-3 views in that run 3.4-3.9 s (load 13) to the work cap
        if self.max_cells is not None and kb.num_cards * kb.epochs > self.max_cells:
            raise NotSupported(
                f"{self.name}: {kb.num_cards} cards over {kb.epochs} epochs is past what it counts quickly "
                f"(max_cells={self.max_cells}); use epoch-sample, or FrontierSolver(max_cells=None)"
            )

    def _layers(self, kb: KnowledgeBase, epoch: int | None = None) -> _Layers | None:
        self.check_supported(kb)
        prob = _Problem(kb, self.history_limit)
        if prob.contradiction is not None:
            return None
        return _Layers(prob, self.max_states, epoch, self.max_work)

    def consistent(self, kb: KnowledgeBase) -> bool:
        return self.count(kb) > 0

    def count(self, kb: KnowledgeBase) -> int:
        layers = self._layers(kb)
        return 0 if layers is None else layers.total

    def tallies(self, kb: KnowledgeBase, epoch: int | None = None) -> Tally:
        """Exact counts of the last epoch (or of ``epoch``)."""
        layers = self._layers(kb, epoch)
        if layers is None:
            zero = tuple(tuple(0 for _ in range(kb.num_locations)) for _ in range(kb.num_cards))
            return Tally(0, zero)
        cells = layers.cells()
        return Tally(layers.total, tuple(tuple(row) for row in cells))

    def possible(self, kb: KnowledgeBase, epoch: int | None = None) -> np.ndarray:
        """bool[card, loc] of the last epoch (or ``epoch``)."""
        t = self.tallies(kb, epoch)
        return np.array([[v > 0 for v in row] for row in t.cells], dtype=bool).reshape(kb.num_cards, kb.num_locations)

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        """Worlds per set of cards at ``loc`` in the last epoch: cards are fixed there or not
        one at a time (an ``At``/``NotAt`` each), following only branches with worlds."""
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        e = kb.epochs - 1
        out: dict[tuple[int, ...], int] = {}

        def rec(k: KnowledgeBase) -> None:
            t = self.tallies(k)
            if not t.total:
                return
            open_cards = [c for c in range(kb.num_cards) if 0 < t.cells[c][z] < t.total]
            if not open_cards:
                out[tuple(c for c in range(kb.num_cards) if t.cells[c][z] == t.total)] = t.total
                return
            card = open_cards[0]
            for fact in (At(card, z, epoch=e), NotAt(card, z, epoch=e)):
                branch = k.copy()
                branch.extend([fact], check=False)
                rec(branch)

        rec(kb)
        return out

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` exactly uniform worlds ``[epoch, card]`` (empty when inconsistent): each card
        takes an option with probability proportional to its completions, then one of that
        option's histories uniformly."""
        layers = self._layers(kb)
        if layers is None or not layers.total:
            return []
        back = layers.backward()
        prob = layers.prob
        E = kb.epochs
        # per card position: the transitions sorted by their state, with pointers
        by_state = []
        for i in range(len(layers.order)):
            a, o, b = layers.moves[i]
            srt = np.argsort(a, kind="stable")
            ptr = np.searchsorted(a[srt], np.arange(len(layers.states[i]) + 1))
            weight = layers.mult[i][o].astype(object) * _crt(back[i + 1], layers.primes)[b]
            by_state.append((srt, ptr, o, b, weight))
        out = []
        for _ in range(int(n)):
            world = np.empty((E, kb.num_cards), dtype=np.int64)
            state = 0
            for i, card in enumerate(layers.order):
                srt, ptr, o, b, weight = by_state[i]
                idx = srt[ptr[state]:ptr[state + 1]]
                ws = [int(v) for v in weight[idx]]
                r = _below(rng, sum(ws))
                pick = 0
                while r >= ws[pick]:
                    r -= ws[pick]
                    pick += 1
                k = idx[pick]
                hs = layers.histories[i][int(o[k])]
                world[:, card] = prob.hist[card][int(hs[int(rng.integers(len(hs)))])]
                state = int(b[k])
            out.append(world)
        return out


def _below(rng: np.random.Generator, n: int) -> int:
    """An exactly uniform integer in ``[0, n)`` from ``rng`` (counts exceed 64 bits)."""
    bits = max(1, int(n - 1).bit_length())
    nbytes = (bits + 7) // 8
    while True:
        r = int.from_bytes(rng.bytes(nbytes), "little") >> (8 * nbytes - bits)
        if r < n:
            return r
