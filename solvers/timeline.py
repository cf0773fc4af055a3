"""``timeline``: the exact posterior of a hand history (:class:`deduce.histories.Timeline`),
counting the worlds of the equivalent time-indexed knowledge base without enumerating them.
Built for Alibi (Adlung) after exchanges; it reads only the timeline, never the game.

Why a dedicated counter: ``chain`` tracks every card the observer has named as a group of its
own, so after a reshuffle (forty named cards in a face-down deck) its states multiply; and the
static knowledge base only bounds the current hand after a void. Adlung's structure allows
much better:

* every card that leaves a hidden hand is shown (laid, exchanged, bribed), so a hand's draws
  are its shown cards plus its current hand;
* cards of one *class* (reshuffle cohort x type) are interchangeable to the observer.

So the count factorises. For each hidden hand, a small forward pass over its own history
(:func:`_slot_states`) keeps the multiset of its open *slots* (cards drawn and not yet shown),
each labelled with its cohort and the types it may not hold (the union of the voids proven
while it was held); a shown card is matched to one open slot of its cohort that may hold its
type. The hand's weight ``g(h)`` for a current hand of ``h[B]`` cards per *block* (classes that
no open-slot label tells apart) is the number of ways to fill the open slots. The hands share
one pool: the number of labelled worlds is ``sum over hands of prod_B (N_B)_{S_B} prod_q
g_q(h_q)`` (``S``: the cards the hands take from the pool, falling factorials ``(N)_S``),
summed seat by seat with ``S`` as the state (forward-backward for per-seat marginals). Old
cohorts must be entirely in hands (the deck holds only the newest cohort). A hand dealt
without the all-special redraw is counted as all hands minus those forced all special.

The integers are exact and equal the ``chain`` and ``cpsat`` counts of
:func:`deduce.games.alibi_adlung.history.timed_knowledge` (property tests; ``brute`` cannot
enumerate a knowledge base of many epochs). The counter reads a
:class:`~deduce.histories.Timeline` (the core's declared form of it; no game is imported).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import factorial
from typing import Any

import numpy as np

from deduce.errors import NotSupported, TooLarge
from deduce.histories import Timeline
from solvers.base import Tally
from solvers.budget import charge

__all__ = ["TimelineCounter", "TimelinePosterior"]

_Slot = tuple[int, int]  # (cohort, id of the forbidden type set)
_SlotState = tuple[_Slot, ...]  # sorted multiset of open slots


@dataclass(frozen=True)
class TimelinePosterior:
    """Exact answer for one timeline: ``total`` worlds and ``cells[card][loc]`` of them with
    the card there now; ``hands[i]``: for seat ``seats[i]``, the exact distribution of its hand
    as ``{block counts: worlds}``; ``blocks``: each block's ``(cohort, types)`` and cards."""

    total: int
    cells: tuple[tuple[int, ...], ...]
    seats: tuple[int, ...]
    blocks: tuple[tuple[int, frozenset[str], tuple[int, ...]], ...]
    hands: tuple[dict[tuple[int, ...], int], ...]

    def tally(self) -> Tally:
        """The counts as a :class:`~solvers.base.Tally` (comparable with other backends)."""
        return Tally(self.total, self.cells)

    def marginals(self) -> np.ndarray:
        """float[card, loc]: P(card is at loc now)."""
        return self.tally().marginals()


class _Sets:
    """Interned frozensets of types (slot labels compare as small ints)."""

    def __init__(self) -> None:
        self.sets: list[frozenset[str]] = [frozenset()]
        self.ids: dict[frozenset[str], int] = {frozenset(): 0}

    def union(self, i: int, extra: frozenset[str]) -> int:
        s = self.sets[i] | extra
        j = self.ids.get(s)
        if j is None:
            j = self.ids[s] = len(self.sets)
            self.sets.append(s)
        return j


def _slot_states(steps: Sequence[tuple[Any, ...]], sets: _Sets, types: frozenset[str],
                 forced: bool) -> dict[_SlotState, int]:
    """Forward pass over one hand's history: open-slot multisets and the number of ways (slots
    told apart) to match every shown card to a slot. ``forced``: the ``notall`` step instead
    requires every slot open then to hold one of its types."""
    states: dict[_SlotState, int] = {(): 1}
    for step in steps:
        kind = step[0]
        charge(len(states))  # the command's work budget, if one is metered: a state per step
        nxt: dict[_SlotState, int] = defaultdict(int)
        if kind == "draw":
            add = ((int(step[2]), 0),) * int(step[1])
            for st, w in states.items():
                nxt[tuple(sorted(st + add))] += w
        elif kind in ("void", "notall"):
            if kind == "notall" and not forced:
                continue
            banned = frozenset(step[1]) if kind == "void" else types - frozenset(step[1])
            for st, w in states.items():
                nxt[tuple(sorted((c, sets.union(f, banned)) for c, f in st))] += w
        elif kind == "reveal":
            t, cohort = step[1], int(step[2])
            for st, w in states.items():
                for slot in set(st):
                    if slot[0] == cohort and t not in sets.sets[slot[1]]:
                        i = st.index(slot)
                        nxt[st[:i] + st[i + 1:]] += w * st.count(slot)
        else:
            raise ValueError(f"unknown timeline step {step!r}")
        states = dict(nxt)
    return states


def _multisets(blocks: Sequence[int], m: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every way to give ``m`` slots counts over ``blocks``: tuples of (block, count)."""
    if not blocks:
        if m == 0:
            yield ()
        return
    first, rest = blocks[0], blocks[1:]
    for k in range(m + 1):
        for tail in _multisets(rest, m - k):
            yield (((first, k),) + tail) if k else tail


def _fillings(options: Sequence[tuple[int, Sequence[int]]], B: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """For slot groups ``(multiplicity, allowed blocks)``: every hand ``h`` (cards per block)
    that fills them, with the number of ways (slots told apart, cards of a block not)."""
    h = [0] * B

    def rec(i: int, coef: int) -> Iterator[tuple[tuple[int, ...], int]]:
        if i == len(options):
            yield tuple(h), coef
            return
        m, ok = options[i]
        for parts in _multisets(ok, m):
            for b, k in parts:
                h[b] += k
            yield from rec(i + 1, coef * _multinomial(m, [k for _, k in parts]))
            for b, k in parts:
                h[b] -= k

    yield from rec(0, 1)


def _multinomial(m: int, parts: Sequence[int]) -> int:
    out = factorial(m)
    for p in parts:
        out //= factorial(p)
    return out


class TimelineCounter:
    """Exact counts and marginals of the current epoch from a timeline (module docstring).

    ``limit`` bounds the pooled states of the seat-by-seat pass (:class:`TooLarge` past it).
    """

    name = "timeline"
    exact = True

    def __init__(self, limit: int = 2_000_000) -> None:
        self.limit = int(limit)

    def tallies(self, timeline: Timeline) -> Tally:
        """Exact integer counts per (card, location) now, as ``chain`` gives for the same game."""
        return self.posterior(timeline).tally()

    def count(self, timeline: Timeline) -> int:
        """The number of worlds of the time-indexed knowledge base."""
        return self.posterior(timeline).total

    def marginals(self, timeline: Timeline) -> np.ndarray:
        """float[card, loc]: P(card is at loc now) under the exact posterior."""
        return self.posterior(timeline).marginals()

    def posterior(self, timeline: Timeline) -> TimelinePosterior:
        """Every answer of one count (see the module docstring for the method)."""
        if not isinstance(timeline, Timeline):
            raise NotSupported(f"timeline: counts a deduce.histories.Timeline, not a {type(timeline).__name__}")
        tl = timeline
        sets = _Sets()
        seat_states: list[list[tuple[int, dict[_SlotState, int]]]] = []
        for steps in tl.steps:
            variants = [(1, _slot_states(steps, sets, tl.types, forced=False))]
            if any(s[0] == "notall" for s in steps):
                variants.append((-1, _slot_states(steps, sets, tl.types, forced=True)))
            seat_states.append(variants)
        blocks, _ = self._blocks(tl, sets, seat_states)
        sizes = [sum(len(tl.class_cards[k]) for k in members) for _, _, members in blocks]
        old = [b for b, (cohort, _, _) in enumerate(blocks) if cohort != tl.current_cohort]
        g = [self._hand_weights(variants, blocks, sets) for variants in seat_states]
        B = len(blocks)
        # seats with the fewest hands first keeps the pooled states few for longest
        order = sorted(range(len(g)), key=lambda i: len(g[i]))
        sparse = [[(h, [(b, k) for b, k in enumerate(h) if k], gw) for h, gw in g[i].items()] for i in order]
        top = max(sizes, default=0)
        kmax = max((k for hands_i in sparse for _, parts, _ in hands_i for _, k in parts), default=0)
        # falling[left][k] = left (left - 1) ... (left - k + 1), zero for k > left
        falling = [[1] * (kmax + 1) for _ in range(top + 1)]
        for left in range(top + 1):
            for k in range(1, kmax + 1):
                falling[left][k] = falling[left][k - 1] * (left - k + 1) if k <= left else 0

        # forward: alpha[i][S] = weight of the first i seats (in ``order``) taking S from the pool;
        # trans[i]: (S, hand index, S', local weight) for seat i
        alpha: list[dict[tuple[int, ...], int]] = [{(0,) * B: 1}]
        trans: list[list[tuple[tuple[int, ...], int, tuple[int, ...], int]]] = []
        for hands_i in sparse:
            nxt: dict[tuple[int, ...], int] = defaultdict(int)
            moves = []
            charge(len(alpha[-1]) * len(hands_i))  # ... and a pool state per hand it may take
            for S, a in alpha[-1].items():
                for j, (_, parts, gw) in enumerate(hands_i):
                    w = gw
                    out = list(S)
                    for b, k in parts:
                        w *= falling[sizes[b] - S[b]][k]
                        out[b] += k
                    if w:
                        S2 = tuple(out)
                        nxt[S2] += a * w
                        moves.append((S, j, S2, w))
            if len(nxt) > self.limit:
                raise TooLarge(f"{self.name}: more than {self.limit} pool states")
            alpha.append(dict(nxt))
            trans.append(moves)
        # backward: beta[i][S] = weight of the seats from i on, given S taken before them
        m = len(sparse)
        beta: list[dict[tuple[int, ...], int]] = [dict() for _ in range(m + 1)]
        beta[m] = {S: 1 for S in alpha[m] if all(S[b] == sizes[b] for b in old)}
        for i in range(m - 1, -1, -1):
            bi: dict[tuple[int, ...], int] = defaultdict(int)
            nb = beta[i + 1]
            for S, _, S2, w in trans[i]:
                v = nb.get(S2)
                if v:
                    bi[S] += w * v
            beta[i] = dict(bi)
        total = sum(a * beta[m].get(S, 0) for S, a in alpha[m].items())
        hands: list[dict[tuple[int, ...], int]] = [dict() for _ in range(m)]
        per_seat: list[list[int]] = [[] for _ in range(m)]
        for i in range(m):
            dist: dict[int, int] = defaultdict(int)
            nb, ai = beta[i + 1], alpha[i]
            for S, j, S2, w in trans[i]:
                v = nb.get(S2)
                if v:
                    dist[j] += ai[S] * w * v
            seat = order[i]
            hands[seat] = {sparse[i][j][0]: v for j, v in dist.items() if v}
            per_seat[seat] = [sum(v * h[b] for h, v in hands[seat].items()) for b in range(B)]
        in_deck = [sum(a * (sizes[b] - S[b]) for S, a in alpha[m].items() if S in beta[m]) for b in range(B)]
        return self._answer(tl, blocks, sizes, total, per_seat, in_deck, hands)

    # -- pieces -------------------------------------------------------------------------------
    @staticmethod
    def _blocks(tl: Any, sets: _Sets, seat_states: list[list[tuple[int, dict[_SlotState, int]]]]
                ) -> tuple[list[tuple[int, frozenset[str], tuple[int, ...]]], dict[int, int]]:
        """Group the hidden classes into blocks: same cohort, and inside or outside every
        forbidden set some open slot carries (so the hands' weights cannot tell them apart)."""
        labels: dict[int, set[int]] = defaultdict(set)  # cohort -> forbidden sets on its slots
        for variants in seat_states:
            for _, states in variants:
                for st in states:
                    for cohort, f in st:
                        labels[cohort].add(f)
        by_key: dict[tuple[int, tuple[bool, ...]], list[int]] = defaultdict(list)
        for k, (cohort, t) in enumerate(tl.classes):
            if tl.class_cards[k]:
                by_key[(cohort, tuple(t in sets.sets[f] for f in sorted(labels[cohort])))].append(k)
        blocks = []
        block_of: dict[int, int] = {}
        for (cohort, _), members in sorted(by_key.items()):
            for k in members:
                block_of[k] = len(blocks)
            blocks.append((cohort, frozenset(tl.classes[k][1] for k in members), tuple(members)))
        return blocks, block_of

    @staticmethod
    def _hand_weights(variants: list[tuple[int, dict[_SlotState, int]]],
                      blocks: list[tuple[int, frozenset[str], tuple[int, ...]]], sets: _Sets
                      ) -> dict[tuple[int, ...], int]:
        """``g(h)``: ways to fill the open slots with a hand of ``h[B]`` cards per block, labelled
        cards within a block not told apart (the pool's falling factorials tell them)."""
        B = len(blocks)
        out: dict[tuple[int, ...], int] = defaultdict(int)
        for sign, states in variants:
            for st, w in states.items():
                distinct = sorted(set(st))
                options = []
                for slot in distinct:
                    cohort, f = slot
                    ok = [b for b, (bc, types, _) in enumerate(blocks)
                          if bc == cohort and not (types & sets.sets[f])]
                    options.append((st.count(slot), ok))

                for h, coef in _fillings(options, B):
                    out[h] += sign * w * coef
        return {h: v for h, v in out.items() if v}

    @staticmethod
    def _answer(tl: Any, blocks: list[tuple[int, frozenset[str], tuple[int, ...]]], sizes: list[int], total: int,
                per_seat: list[list[int]], in_deck: list[int], hands: list[dict[tuple[int, ...], int]]
                ) -> TimelinePosterior:
        div = tl.order_factor
        cells = [[0] * tl.num_locations for _ in range(tl.num_cards)]
        for c, z in tl.known:
            cells[c][z] = total
        for b, (_, _, members) in enumerate(blocks):
            for k in members:
                for c in tl.class_cards[k]:
                    for i, q in enumerate(tl.seats):
                        cells[c][q] = _exact_div(per_seat[i][b], sizes[b])
                    cells[c][tl.deck_loc] = _exact_div(in_deck[b], sizes[b])
        cells = [[_exact_div(v, div) for v in row] for row in cells]
        return TimelinePosterior(
            total=_exact_div(total, div),
            cells=tuple(tuple(row) for row in cells),
            seats=tuple(tl.seats),
            blocks=tuple((cohort, types, tuple(c for k in members for c in tl.class_cards[k]))
                         for cohort, types, members in blocks),
            hands=tuple({h: _exact_div(v, div) for h, v in d.items()} for d in hands),
        )


def _exact_div(a: int, b: int) -> int:
    q, r = divmod(a, b)
    if r:
        raise ArithmeticError(f"adlung-time: {a} is not a multiple of {b} (a counting bug)")
    return q
