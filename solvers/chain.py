"""``chain``: exact model counting for time-indexed knowledge bases (Crime Hotel, Mayfair Alibi).

Why a separate counter: a Crime Hotel knowledge base early in a game has ~10^8 consistent
histories, too many to enumerate with cpsat, yet its structure is simple. The counter runs
forward through the epochs keeping, per *state*, how many cards of each group are at each
location, and the exact number of labelled histories that lead to it:

* **Groups.** Cards that no constraint names individually and that belong to the same
  ``Count``/``AtLeastOne`` card sets (in Crime Hotel: the same floor) are interchangeable, so
  only their counts per location matter (a *pool*). A card named by a unit fact (``At``,
  ``NotAt``, ``NotAll``) is *pinned* at the first epoch that names it and from then on is a
  group of its own.
* **Pinning.** Until it is named, a card is exchangeable with its pool, so among the
  histories behind a state the fraction with that card at ``z`` is ``a(z) / N`` (``a(z)`` pool
  cards at ``z``, ``N`` in the pool). The counter multiplies by ``a(z)`` and keeps the common
  factor ``N`` aside (it is the same for every state), dividing it out at the end, so all
  arithmetic stays in exact integers.
* **Transfers.** Between epochs, the cards that move along each ``(src, dst, k)`` are chosen
  per group: the number of labelled choices is a product of multinomial coefficients.
* **Constraints** of an epoch are checked on each state once every card they name is pinned.
* **Repeats.** An epoch whose checks and transfer have been seen before (a log repeating one
  exchange, or a cycle of a few) is recorded as a map from its states' weights to its
  successors'; later epochs alike run on the weights alone. The weights' common factor is
  kept aside (the counts of such logs have 15,000 digits). Reused work is charged as if
  built again, so the budget meters the same steps.

Counts per cell of the last epoch follow from the states: a pool card is at ``z`` in
``a(z) / N`` of the histories behind a state. Requirements: exactly one ``Transfer`` between
each pair of consecutive epochs (the frame rule needs it), every other kind of the shared
vocabulary is supported. Answers agree with ``brute`` and ``cpsat`` (see the property tests).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import product
from math import factorial, gcd
from typing import Any

import numpy as np

from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt, Transfer
from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import EPOCH_KINDS, Solver, Tally
from solvers.budget import charge

__all__ = ["ChainSolver"]

State = tuple[tuple[int, ...], ...]  # per group, the number of its cards at each location


class _Plan:
    """The groups of a knowledge base and its constraints sorted by epoch."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        n, self.L, self.E = kb.num_cards, kb.num_locations, kb.epochs
        first = [self.E] * n
        self.by_epoch: list[list[Constraint]] = [[] for _ in range(self.E)]
        self.transfer: list[Transfer | None] = [None] * max(self.E - 1, 0)
        # distinct card sets only: a long log repeats its size counts every epoch (10,000
        # epochs of one set of all cards), and a card's pool depends on which sets hold it
        set_members: dict[tuple[int, ...], None] = {}  # card sets are sorted and distinct (_card_set)
        for c in kb.constraints:
            if isinstance(c, Transfer):
                if self.transfer[c.epoch] is not None:
                    raise NotSupported("chain: two transfers between the same epochs")
                self.transfer[c.epoch] = c
                continue
            self.by_epoch[c.epoch].append(c)
            if isinstance(c, (At, NotAt)):
                first[c.card] = min(first[c.card], c.epoch)
            elif isinstance(c, NotAll):
                for card, _ in c.pairs:
                    first[card] = min(first[card], c.epoch)
            else:  # Count / AtLeastOne: card sets define the pools
                set_members.setdefault(c.cards)
        if any(t is None for t in self.transfer):
            raise NotSupported("chain: every pair of consecutive epochs needs a Transfer")
        self.first = first
        #: the cards first named at each epoch (pinned there)
        self.pins: list[list[int]] = [[] for _ in range(self.E)]
        for card, e in enumerate(first):
            if 0 < e < self.E:
                self.pins[e].append(card)
        card_sets = [frozenset(cards) for cards in set_members]
        signature = [tuple(i for i, s in enumerate(card_sets) if card in s) for card in range(n)]
        pools: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for card in range(n):
            if first[card] > 0:
                pools[signature[card]].append(card)
        #: groups: lists of cards; pools first (they shrink when a card is pinned), then singles
        self.groups: list[list[int]] = [list(v) for v in pools.values()]
        self.pool_of = {card: g for g, members in enumerate(self.groups) for card in members}
        self.pinned0 = [card for card in range(n) if first[card] == 0]

    def shape(self, e: int) -> tuple:
        """The constraints of epoch ``e`` but for their epoch (see :func:`_shape`)."""
        return tuple(_shape(c) for c in self.by_epoch[e])


def _allocations(avail: list[int], ks: list[int]) -> Iterator[list[list[int]]]:
    """Every way to pick ``ks[j]`` cards for move ``j`` from groups holding ``avail[g]`` cards
    (as count vectors ``alloc[j][g]``)."""
    G = len(avail)
    left = list(avail)

    def vectors(g: int, k: int, vec: list[int]) -> Iterator[list[int]]:
        if g == G:
            if k == 0:
                yield list(vec)
            return
        for v in range(min(k, left[g]) + 1):
            vec[g] = v
            yield from vectors(g + 1, k - v, vec)
        vec[g] = 0

    def rec(j: int, acc: list[list[int]]) -> Iterator[list[list[int]]]:
        if j == len(ks):
            yield acc
            return
        for vec in vectors(0, ks[j], [0] * G):
            for g in range(G):
                left[g] -= vec[g]
            yield from rec(j + 1, acc + [vec])
            for g in range(G):
                left[g] += vec[g]

    yield from rec(0, [])


def _factored(states: dict[State, int]) -> tuple[dict[State, int], int]:
    """``states`` with the weights' greatest common divisor taken out, and that divisor.

    Why: the weights grow by the movers' choices of every transfer (a log of 10,000
    exchanges counts histories of 15,000 digits) while their ratios stay small; multiplying
    such integers for every successor made the arithmetic, not the states, the cost. Kept
    aside, the common factor is one multiplication per epoch."""
    if not states:
        return states, 1
    g = gcd(*states.values())
    if g <= 1:
        return states, 1
    return {state: w // g for state, w in states.items()}, g


class _Repeat:
    """One epoch's checks and transfer as a map from the weights of a fixed list of states
    (``keys``) to those of its successors (``out``), for epochs that repeat it exactly (the
    same constraints but for their epoch, the same transfer, no card pinned) on the same
    states: each is then a few multiplications per successor, no state built or hashed.
    ``steps``: what the epoch charged for its transfer, charged again for each epoch the map
    stands for. The lists are the query's one list per set of states (:class:`_Maps`), so a
    map applies after another when its ``keys`` is the other's ``out``."""

    def __init__(self, keys: list[State], out: list[State], edges: list[tuple[int, int, int]], steps: int) -> None:
        self.keys = keys
        self.out = out
        self.edges = edges  # (from, to, weight): indices into keys and into out
        self.steps = steps

    def apply(self, weights: list[int]) -> list[int]:
        out = [0] * len(self.out)
        for i, j, w in self.edges:
            out[j] += weights[i] * w
        return out


class _Maps:
    """The maps of the epochs seen twice (by the shape of their checks and transfer), and one
    list per set of states they join: a log repeating one exchange, or a cycle of a few, is
    worked out state by state for its first epochs only. Cleared when a card is pinned (the
    groups change); at most :attr:`MAX` maps are kept."""

    MAX = 64

    def __init__(self) -> None:
        self.maps: dict[tuple, _Repeat] = {}
        self.seen: set[tuple] = set()
        self._lists: dict[frozenset[State], list[State]] = {}

    def clear(self) -> None:
        self.maps.clear()
        self.seen.clear()
        self._lists.clear()

    def listed(self, states: list[State]) -> tuple[list[State], dict[State, int]]:
        """The one list of this set of states, and each state's place in it."""
        key = frozenset(states)
        kept = self._lists.get(key)
        if kept is None:
            kept = self._lists[key] = list(states)
        return kept, {state: i for i, state in enumerate(kept)}

    def add(self, sig: tuple, found: _Repeat) -> None:
        if len(self.maps) >= self.MAX:
            self.clear()
        self.maps[sig] = found

    def following(self, sig: tuple, states: dict[State, int]) -> _Repeat | None:
        """The map recorded for ``sig`` if it starts from exactly these states."""
        found = self.maps.get(sig)
        if found is None or len(found.keys) != len(states):
            return None
        if self._lists.get(frozenset(states)) is not found.keys:
            return None
        return found


def _signature(plan: _Plan, e: int, single_of: dict[int, int]) -> tuple:
    """What epoch ``e``'s checks and transfer do to a state (see :class:`_Repeat`): the shapes
    of its constraints, its transfer's moves and the groups the next epoch fixes
    (``single_of``: the group of each pinned card)."""
    t = plan.transfer[e]
    assert t is not None
    fated = tuple(sorted((single_of[c.card], c.loc) for c in plan.by_epoch[e + 1]
                         if isinstance(c, At) and c.card in single_of))
    return (plan.shape(e), t.moves, fated)


def _factored_weights(weights: list[int]) -> tuple[list[int], int]:
    """:func:`_factored` on a list of weights."""
    g = gcd(*weights) if weights else 1
    if g <= 1:
        return weights, 1
    return [w // g for w in weights], g


def _shape(c: Constraint) -> tuple:
    """A constraint but for its epoch: epochs whose constraints have the same shapes check the
    same thing of their states."""
    if isinstance(c, (At, NotAt)):
        return (c.kind, c.card, c.loc)
    if isinstance(c, Count):
        return (c.kind, c.cards, c.loc, c.n, c.op)
    if isinstance(c, AtLeastOne):
        return (c.kind, c.cards, c.loc)
    if isinstance(c, NotAll):
        return (c.kind, c.pairs)
    return (c.kind, id(c))  # another kind: never alike


class _Reuse:
    """What the epochs of one query share: the movers' choices of each case, and the outcome
    per state of the last transfer and of the last epoch's checks while the next epoch
    repeats them (a log of one exchange 10,000 times has 10,000 identical epochs).

    A table of outcomes is kept only from the second epoch in a row with the same key on, so
    the varied epochs of a real game hold no more in memory than before."""

    def __init__(self) -> None:
        self.cases: dict[tuple, list[tuple[int, list[tuple[int, int, int, int]]]]] = {}
        #: the groups each card set covers, while the groups stay as they are (cleared at a pin)
        self.members: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._keys: dict[str, Any] = {}
        self._tables: dict[str, dict[State, Any] | None] = {}

    def table(self, kind: str, key: Any) -> dict[State, Any] | None:
        """The outcomes per state kept for ``key`` (``kind``: "move" or "filter"); ``None``
        when the key differs from the last one asked for (nothing is kept then)."""
        if self._keys.get(kind, _UNSET) != key:
            self._keys[kind] = key
            self._tables[kind] = None
            return None
        table = self._tables.get(kind)
        if table is None:
            table = self._tables[kind] = {}
        return table


_UNSET = object()

#: the one choice of a source none of whose movers is left to choose
_NOTHING: list[tuple[int, list[tuple[int, int, int, int]]]] = [(1, [])]


def _multinomial(total: int, parts: list[int]) -> int:
    out = factorial(total)
    rest = total
    for p in parts:
        out //= factorial(p)
        rest -= p
    return out // factorial(rest)


class ChainSolver(Solver):
    """Exact counts, tallies, marginals and possible locations of the last epoch (or any
    epoch for ``possible``) of a time-indexed knowledge base; see the module docstring.

    ``limit`` bounds the number of states kept per epoch (:class:`TooLarge` past it);
    ``work_limit`` (None: none) bounds the states and successors one query builds in all (the
    steps of :mod:`solvers.budget`).
    """

    name = "chain"
    kinds = EPOCH_KINDS
    max_epochs = None

    def __init__(self, limit: int = 2_000_000, work_limit: int | None = None) -> None:
        self.limit = int(limit)
        self.work_limit = work_limit
        #: states and successors built by the last uncached query
        self.work = 0
        self._cache: dict[tuple, tuple[int, list[list[int]]]] = {}

    def _charge(self, amount: int) -> None:
        self.work += amount
        charge(amount)  # the command's work budget, if one is metered
        if self.work_limit is not None and self.work > self.work_limit:
            raise TooLarge(f"chain: more than {self.work_limit} states and successors needed")

    def check_supported(self, kb: KnowledgeBase) -> None:
        super().check_supported(kb)
        seen: set[int] = set()
        for c in kb.constraints:
            if isinstance(c, Transfer):
                if c.epoch in seen:
                    raise NotSupported("chain: two transfers between the same epochs")
                seen.add(c.epoch)

    # -- the forward pass -------------------------------------------------------------------------
    def _run(self, kb: KnowledgeBase) -> tuple[int, list[list[int]]]:
        """(number of worlds, cells[card][loc] of the last epoch), exact integers."""
        key = kb.fingerprint()
        hit = self._cache.get(key)
        if hit is not None:
            return hit[0], hit[1]
        self.check_supported(kb)
        self.work = 0
        plan = _Plan(kb)
        L = plan.L
        groups = [list(g) for g in plan.groups]
        pool_count = len(groups)
        scale = 1
        common = 1  # a factor of every state's weight, kept aside (see _factored)
        # epoch 0: cards pinned from the start are singles; pools spread over the locations
        for card in plan.pinned0:
            groups.append([card])
        states = self._initial(plan, groups, pool_count)
        # shared by the epochs: a log repeating one exchange 10,000 times enumerates its
        # movers' choices once, not once per epoch, and the steps charged for what is reused
        # are those of building it again, so the budget meters the same work
        reuse = _Reuse()
        maps = _Maps()
        e = 0
        while e < plan.E:
            if e > 0 and plan.pins[e]:
                maps.clear()  # the groups change: nothing recorded applies
                for card in plan.pins[e]:
                    g = plan.pool_of[card]
                    size = len(groups[g])
                    scale *= size
                    groups[g] = [x for x in groups[g] if x != card]
                    groups.append([card])
                    reuse.members.clear()
                    states = self._pin(states, g, self._allowed(plan, card, e))
                    self._charge(len(states))
            if e == plan.E - 1:  # the last epoch: its checks, no transfer
                self._charge(len(states))
                states = self._filter(plan, states, groups, e, reuse)
                if len(states) > self.limit:
                    raise TooLarge(f"chain: more than {self.limit} states at epoch {e}")
                break
            transfer = plan.transfer[e]
            assert transfer is not None
            single_of = {groups[i][0]: i for i in range(pool_count, len(groups))}
            sig = _signature(plan, e, single_of)
            found = maps.following(sig, states) if sig in maps.maps else None
            if found is not None:
                # epochs whose maps are recorded, on the states they start from: weights alone,
                # epoch after epoch (the same steps charged as when they were built)
                weights = [states[k] for k in found.keys]
                while True:
                    self._charge(len(weights))
                    self._charge(found.steps)
                    weights, factor = _factored_weights(found.apply(weights))
                    common *= factor
                    keys = found.out
                    e += 1
                    if not weights or e >= plan.E - 1 or plan.pins[e]:
                        break
                    nxt = maps.maps.get(_signature(plan, e, single_of))
                    if nxt is None or nxt.keys is not keys:
                        break
                    found = nxt
                states = dict(zip(keys, weights, strict=True))
                if not states:
                    break
                continue
            fated = dict(sig[2])
            self._charge(len(states))
            if sig in maps.seen:  # a second epoch alike: record its map for the next ones
                states, found = self._recorded(plan, states, groups, e, reuse, transfer, fated, maps)
                maps.add(sig, found)
            else:
                maps.seen.add(sig)
                states = self._filter(plan, states, groups, e, reuse)
                states = self._move(states, transfer, L, fated, reuse)
            states, factor = _factored(states)
            common *= factor
            if len(states) > self.limit:
                raise TooLarge(f"chain: more than {self.limit} states at epoch {e}")
            if not states:  # no history fits: the later epochs would charge nothing and find none
                break
            e += 1
        total = sum(states.values()) * common
        cells = [[0] * L for _ in range(kb.num_cards)]
        for g, members in enumerate(groups):
            if not members:
                continue
            per_loc = [0] * L
            for state, w in states.items():
                for z in range(L):
                    if state[g][z]:
                        per_loc[z] += w * state[g][z]
            div = len(members) * scale  # a pool card is at z in a(z)/N of the histories
            per_loc = [v * common for v in per_loc]
            for card in members:
                for z in range(L):
                    cells[card][z] = per_loc[z] // div
        total //= scale
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = (total, cells)
        return total, cells

    def _allowed(self, plan: _Plan, card: int, e: int) -> set[int]:
        allowed = set(range(plan.L))
        for c in plan.by_epoch[e]:
            if isinstance(c, At) and c.card == card:
                allowed &= {c.loc}
            elif isinstance(c, NotAt) and c.card == card:
                allowed.discard(c.loc)
        return allowed

    def _initial(self, plan: _Plan, groups: list[list[int]], pool_count: int) -> dict[State, int]:
        """Every spread of the groups over the locations at epoch 0 that the size-like counts
        of epoch 0 allow, weighted by the labelled ways to realise it."""
        L = plan.L
        caps: list[tuple[frozenset[int], int, int]] = []  # (groups in the set, loc, max count)
        sets = [frozenset(g) for g in groups]
        for c in plan.by_epoch[0]:
            if isinstance(c, Count) and c.op.value in ("==", "<="):
                members = frozenset(i for i, s in enumerate(sets) if s and s <= set(c.cards))
                caps.append((members, c.loc, c.n))
        allowed0 = [set(range(L)) for _ in groups]
        for i in range(pool_count, len(groups)):
            allowed0[i] = self._allowed(plan, groups[i][0], 0)
        out: dict[State, int] = {}
        used = [0] * len(caps)
        # fixed singles first, so the pools see how much room is left
        order = list(range(pool_count, len(groups))) + list(range(pool_count))
        chosen: list[tuple[int, ...]] = [()] * len(groups)

        touch = [[[j for j, (members, loc, _) in enumerate(caps) if loc == z and i in members] for z in range(L)]
                 for i in range(len(groups))]
        room_after: list[list[int]] = [[0] * (L + 1) for _ in groups]  # per group: room at z+1.. (set on entry)
        nodes = [0]  # spread nodes not charged yet

        def spread(pos: int, z: int, left: int, vec: list[int], weight: int) -> None:
            i = order[pos]
            if z == L:
                chosen[i] = tuple(vec)
                rec(pos + 1, weight * _multinomial(len(groups[i]), vec))
                return
            if z == 0:  # what the later locations can still take of this group (caps of other locations do not move while it spreads)
                room = room_after[i]
                for y in range(L - 1, -1, -1):
                    r = len(groups[i]) if y in allowed0[i] else 0
                    for j in touch[i][y]:
                        r = min(r, caps[j][2] - used[j])
                    room[y] = room[y + 1] + max(r, 0)
            hi = left if z in allowed0[i] else 0
            lo = max(left - room_after[i][z + 1], 0)  # the rest must fit further on
            touching = touch[i][z]
            for j in touching:
                hi = min(hi, caps[j][2] - used[j])
            nodes[0] += 1  # one step per spread node, charged in batches
            if nodes[0] >= 1024:
                self._charge(nodes[0])
                nodes[0] = 0
            for v in range(lo, hi + 1):
                vec[z] = v
                for j in touching:
                    used[j] += v
                spread(pos, z + 1, left - v, vec, weight)
                for j in touching:
                    used[j] -= v
            vec[z] = 0

        def rec(pos: int, weight: int) -> None:
            if pos == len(order):
                state = tuple(chosen)
                out[state] = out.get(state, 0) + weight
                self._charge(1)
                if len(out) > self.limit:
                    raise TooLarge(f"chain: more than {self.limit} states at epoch 0")
                return
            spread(pos, 0, len(groups[order[pos]]), [0] * L, weight)

        rec(0, 1)
        self._charge(nodes[0])
        return out

    @staticmethod
    def _pin(states: dict[State, int], g: int, allowed: set[int]) -> dict[State, int]:
        out: dict[State, int] = defaultdict(int)
        for state, w in states.items():
            vec = state[g]
            for z in allowed:
                a = vec[z]
                if a == 0:
                    continue
                new_vec = list(vec)
                new_vec[z] -= 1
                single = [0] * len(vec)
                single[z] = 1
                new = state[:g] + (tuple(new_vec),) + state[g + 1 :] + (tuple(single),)
                out[new] += w * a
        return out

    @staticmethod
    def _filter(
        plan: _Plan, states: dict[State, int], groups: list[list[int]], e: int, reuse: _Reuse | None = None,
    ) -> dict[State, int]:
        """The states of epoch ``e`` that its constraints allow (``reuse``: verdicts per state
        kept while the epochs repeat the same checks)."""
        cons = plan.by_epoch[e]
        if not cons:
            return states
        if reuse is None:
            reuse = _Reuse()
        single_of = {g[0]: i for i, g in enumerate(groups) if i >= len(plan.groups)}
        # which groups each card set covers (every group is wholly in or out of a set)
        everything = tuple(i for i, g in enumerate(groups) if g)
        checks: list[tuple] = []
        for c in cons:
            if isinstance(c, At):
                checks.append(("at", single_of[c.card], c.loc, True))
            elif isinstance(c, NotAt):
                checks.append(("at", single_of[c.card], c.loc, False))
            elif isinstance(c, NotAll):
                checks.append(("notall", tuple((single_of[k], z) for k, z in c.pairs)))
            else:
                members = reuse.members.get(c.cards)
                if members is None:
                    cards = set(c.cards)
                    members = reuse.members[c.cards] = tuple(i for i, g in enumerate(groups) if g and g[0] in cards)
                kind = "total" if members == everything else "count"  # every card there: the state's column sum
                if isinstance(c, AtLeastOne):
                    checks.append((kind, members, c.loc, 1, ">="))
                else:
                    checks.append((kind, members, c.loc, c.n, c.op.value))
        table = reuse.table("filter", tuple(checks))
        out: dict[State, int] = {}
        for state, w in states.items():
            if table is not None:
                verdict = table.get(state)
                if verdict is not None:
                    if verdict:
                        out[state] = w
                    continue
            ok = True
            totals: list[int] | None = None
            for chk in checks:
                if chk[0] == "total":
                    _, _, z, n, op = chk
                    if totals is None:
                        totals = [sum(col) for col in zip(*state, strict=True)]
                    total = totals[z]
                    if (op == "==" and total != n) or (op == "<=" and total > n) or (op == ">=" and total < n):
                        ok = False
                        break
                    continue
                if chk[0] == "at":
                    _, g, z, want = chk
                    if (state[g][z] == 1) != want:
                        ok = False
                        break
                elif chk[0] == "notall":
                    if all(state[g][z] == 1 for g, z in chk[1]):
                        ok = False
                        break
                else:
                    _, members, z, n, op = chk
                    total = sum(state[g][z] for g in members)
                    if (op == "==" and total != n) or (op == "<=" and total > n) or (op == ">=" and total < n):
                        ok = False
                        break
            if table is not None:
                table[state] = ok
            if ok:
                out[state] = w
        return out

    def _recorded(
        self, plan: _Plan, states: dict[State, int], groups: list[list[int]], e: int, reuse: _Reuse,
        transfer: Transfer, fated: dict[int, int], maps: _Maps,
    ) -> tuple[dict[State, int], _Repeat]:
        """Epoch ``e``'s checks and transfer (as :meth:`_filter` then :meth:`_move`: the same
        successors, weights and steps), and its map from states to successors, for the next
        epochs alike."""
        keys, position = maps.listed(list(states))
        kept = self._filter(plan, states, groups, e, reuse)
        by_src: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for s, d, k in transfer.moves:
            if k > 0:
                by_src[s].append((d, k))
        pairs = transfer.pairs()
        index: dict[State, int] = {}
        found: list[tuple[int, int, int]] = []  # (input state, successor, weight)
        steps = 0
        for state in kept:
            n, successors = self._successors(state, by_src, pairs, fated, reuse.cases)
            steps += n
            for new, weight in successors:
                found.append((position[state], index.setdefault(new, len(index)), weight))
        self._charge(steps)
        ordered = list(index)
        totals = [0] * len(ordered)
        for i, j, weight in found:
            totals[j] += kept[keys[i]] * weight
        out = dict(zip(ordered, totals, strict=True))
        listed, at = maps.listed(ordered)
        return out, _Repeat(keys, listed, [(i, at[ordered[j]], w) for i, j, w in found], steps)

    def _move(
        self, states: dict[State, int], t: Transfer, L: int, fated: dict[int, int], reuse: _Reuse | None = None,
    ) -> dict[State, int]:
        """Successor states through one transfer, weighted by the labelled choices of movers.

        ``fated[g] = z``: single group ``g`` is at ``z`` after the transfer (an ``At`` fact of the
        next epoch), so its move is decided by where it is now, and only the rest of each
        move's ``k`` is chosen among the other cards. This keeps the trick transfers (whose
        movers are all named) from branching at all.

        ``reuse`` (the query's): the movers' choices of each case, and a state's successors
        when the transfer and the fated groups are those of the epoch before (a log repeating
        one exchange); what is reused is charged as if it were built again.
        """
        if reuse is None:
            reuse = _Reuse()
        by_src: dict[int, list[tuple[int, int]]] = defaultdict(list)
        pairs = t.pairs()
        for s, d, k in t.moves:
            if k > 0:  # a listed move of 0 cards only forbids that move
                by_src[s].append((d, k))
        table = reuse.table("move", (t.moves, tuple(sorted(fated.items()))))
        out: dict[State, int] = defaultdict(int)
        pending = 0  # steps not charged yet (charged in batches: same total)
        for state, w in states.items():
            if pending >= 1024:
                self._charge(pending)
                pending = 0
            known = table.get(state) if table is not None else None
            if known is None:
                known = self._successors(state, by_src, pairs, fated, reuse.cases)
                if table is not None:
                    table[state] = known
            steps, successors = known
            pending += steps
            for new, weight in successors:
                out[new] += w * weight
        self._charge(pending)
        return out

    @staticmethod
    def _successors(
        state: State, by_src: dict[int, list[tuple[int, int]]], pairs: dict[tuple[int, int], int],
        fated: dict[int, int], cases: dict[tuple, list[tuple[int, list[tuple[int, int, int, int]]]]],
    ) -> tuple[int, list[tuple[State, int]]]:
        """(steps, [(successor, labelled choices leading to it)]) of one state through a transfer.

        The choices of movers from one source depend only on where they go, what is there and
        how many move: states and epochs share them in ``cases``, so each distinct case is
        enumerated once (and charged, its options and one step per successor, every time)."""
        G = len(state)
        need = dict(pairs)
        forced: list[tuple[int, int, int, int]] = []
        for g, z in fated.items():
            cur = state[g].index(1)
            if cur == z:
                continue
            if need.get((cur, z), 0) <= 0:
                return 0, []
            need[(cur, z)] -= 1
            forced.append((g, cur, z, 1))
        steps = 0
        per_src: list[list[tuple[int, list[tuple[int, int, int, int]]]]] = []
        for s, moves in by_src.items():
            ks = [need[(s, d)] for d, _ in moves]
            if not any(ks):  # every mover from here is named (fated): nothing to choose
                steps += 1
                per_src.append(_NOTHING)
                continue
            avail = [0 if g in fated else state[g][s] for g in range(G)]
            case = (s, tuple(d for d, _ in moves), tuple(avail), tuple(ks))
            opts = cases.get(case)
            if opts is None:
                opts = []
                for alloc in _allocations(avail, ks):
                    weight = 1
                    delta = []
                    for g in range(G):
                        parts = [alloc[j][g] for j in range(len(moves))]
                        if any(parts):
                            weight *= _multinomial(avail[g], parts)
                            delta += [(g, s, moves[j][0], m) for j, m in enumerate(parts) if m]
                    opts.append((weight, delta))
                cases[case] = opts
            steps += len(opts)
            per_src.append(opts)
        combos = 1
        for opts in per_src:
            combos *= len(opts)
        steps += combos  # one step per successor
        base = list(state)
        for g, s, d, m in forced:
            vec = list(base[g])
            vec[s] -= m
            vec[d] += m
            base[g] = tuple(vec)
        if combos == 1 and all(opts is _NOTHING for opts in per_src):  # nothing chosen: one successor
            return steps, [(tuple(base), 1)]
        successors: list[tuple[State, int]] = []
        for combo in product(*per_src):
            new = base.copy()
            changed: dict[int, list[int]] = {}
            weight = 1
            for wt, delta in combo:
                weight *= wt
                for g, s, d, m in delta:
                    vec = changed.get(g)
                    if vec is None:
                        vec = changed[g] = list(new[g])
                    vec[s] -= m
                    vec[d] += m
            for g, vec in changed.items():
                new[g] = tuple(vec)
            successors.append((tuple(new), weight))
        return steps, successors

    # -- queries ----------------------------------------------------------------------------------
    def tallies(self, kb: KnowledgeBase) -> Tally:
        total, cells = self._run(kb)
        return Tally(total, tuple(tuple(row) for row in cells))

    def consistent(self, kb: KnowledgeBase) -> bool:
        return self._run(kb)[0] > 0

    def possible(self, kb: KnowledgeBase, epoch: int | None = None) -> np.ndarray:
        """bool[card, loc] of the last epoch (other epochs: ask cpsat)."""
        if epoch is not None and epoch != kb.epochs - 1:
            raise NotSupported("chain: possible locations are computed for the last epoch only")
        _, cells = self._run(kb)
        return np.array([[v > 0 for v in row] for row in cells], dtype=bool).reshape(kb.num_cards, kb.num_locations)

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        """Counts per card set at ``loc`` for a location that holds exactly one card (the hidden
        room); other locations need joint counts this counter does not keep."""
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        total, cells = self._run(kb)
        column = {card: cells[card][z] for card in range(kb.num_cards) if cells[card][z]}
        if total and sum(column.values()) != total:
            raise NotSupported("chain: solution_counts needs a location that holds exactly one card")
        return {(card,): v for card, v in column.items()}
