"""``tokens``: exact enumeration for knowledge bases made of two-faced tokens.

Built for Checkpoint Charlie (RULES.md §3E) but it reads only the knowledge base, never the
game or a location's name: cards are token faces grouped by the card attribute ``feature``; one
location (the face-down side) holds every face of each token but one (``Count(group, loc,
size - 1)`` for every group, which is how the solver finds it); every other location
has an exact capacity (``Count(all cards, loc, k)``) and the capacities add up to the number of
tokens. The worlds with that shape are few (at most 5! x 2^5 = 3840 for five tokens), so the
backend lists them once per shape as one integer array and filters it with every constraint,
vectorised. Answers are exact: counts, tallies, possible cells, the card set at one location
(in Checkpoint Charlie, ``solution_counts`` of the face-down location is the distribution of the
chief's complement).

A general backend could answer the same knowledge bases (they use only ``At``, ``NotAt``,
``AtLeastOne`` and ``Count``); this one exists because it is about a thousand times faster,
which the agents need for a decision after every flip.
"""

from __future__ import annotations

import itertools
from collections import Counter, OrderedDict
from collections.abc import Iterator

import numpy as np

from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt, Op
from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import EnumeratingSolver, Tally
from solvers.budget import charge

__all__ = ["TokenSolver", "token_shape", "holds_all"]

Shape = tuple[tuple[tuple[int, ...], ...], int, tuple[tuple[int, int], ...]]


def token_shape(kb: KnowledgeBase) -> Shape:
    """``(groups, down, capacities)`` of a token knowledge base, or :class:`NotSupported`.

    ``groups`` are the card ids of each token (by the ``feature`` attribute), ``down`` is the
    index of the location that holds all faces of each token but one, ``capacities`` are ``(location, k)`` for every other
    location, read from the exact ``Count`` constraints over all cards.
    """
    if kb.epochs != 1:
        raise NotSupported("tokens: only single-epoch knowledge bases")
    by_feature: dict[object, list[int]] = {}
    for card in kb.deck:
        feature = card.attribute("feature")
        if feature is None:
            raise NotSupported(f"tokens: card {card.name!r} has no 'feature' attribute")
        by_feature.setdefault(feature, []).append(card.id)
    groups = tuple(tuple(sorted(g)) for g in by_feature.values())
    everything = tuple(range(kb.num_cards))
    all_but_one: dict[int, set[tuple[int, ...]]] = {}
    exact = [c for c in kb.constraints if isinstance(c, Count) and c.op is Op.EQ]
    for c in exact:
        if c.cards in groups and c.n == len(c.cards) - 1:
            all_but_one.setdefault(c.loc, set()).add(c.cards)
    downs = [z for z, rules in all_but_one.items() if rules == set(groups)]
    if len(downs) != 1:
        raise NotSupported("tokens: no single location holds every face of each token but one "
                           "(Count(its faces, loc, size - 1) for every token)")
    down = downs[0]
    caps: dict[int, int] = {}
    for c in exact:
        if c.cards == everything and c.loc != down:
            if caps.get(c.loc, c.n) != c.n:
                raise NotSupported("tokens: two different capacities for one location")
            caps[c.loc] = c.n
    missing = [kb.locations[z] for z in range(kb.num_locations) if z != down and z not in caps]
    if missing:
        raise NotSupported(f"tokens: no exact capacity for location(s) {', '.join(missing)}")
    if sum(caps.values()) != len(groups):
        raise NotSupported("tokens: the capacities do not add up to the number of tokens")
    return groups, down, tuple(sorted(caps.items()))


def _universe(shape: Shape, num_cards: int) -> np.ndarray:
    """Every world with the token shape: one face of each token up, placed by capacity."""
    groups, down, caps = shape
    slots = [z for z, k in caps for _ in range(k)]
    placements = sorted(set(itertools.permutations(slots)))
    ups = list(itertools.product(*groups))
    out = np.full((len(placements) * len(ups), num_cards), down, dtype=np.int16)
    row = 0
    for place in placements:
        for up in ups:
            out[row, list(up)] = place
            row += 1
    return out


def holds_all(worlds: np.ndarray, constraints: tuple[Constraint, ...]) -> np.ndarray:
    """bool[world]: which rows of ``worlds`` (``[world, card] -> loc``) satisfy every constraint."""
    ok = np.ones(len(worlds), dtype=bool)
    for c in constraints:
        if isinstance(c, At):
            ok &= worlds[:, c.card] == c.loc
        elif isinstance(c, NotAt):
            ok &= worlds[:, c.card] != c.loc
        elif isinstance(c, AtLeastOne):
            ok &= (worlds[:, list(c.cards)] == c.loc).any(axis=1)
        elif isinstance(c, Count):
            n = (worlds[:, list(c.cards)] == c.loc).sum(axis=1) if c.cards else np.zeros(len(worlds), int)
            ok &= n == c.n if c.op is Op.EQ else n <= c.n if c.op is Op.LE else n >= c.n
        elif isinstance(c, NotAll):
            both = np.ones(len(worlds), dtype=bool)
            for card, z in c.pairs:
                both &= worlds[:, card] == z
            ok &= ~both
        else:  # check_supported prevents this
            raise NotSupported(f"tokens: constraint kind {c.kind} is not supported")
    return ok


class TokenSolver(EnumeratingSolver):
    """Exact answers for token knowledge bases by filtering the (small) list of shaped worlds."""

    name = "tokens"
    can_sample = True

    def __init__(self, limit: int = 200_000, cache_size: int = 64) -> None:
        super().__init__(limit)
        self.cache_size = int(cache_size)
        self._universes: dict[tuple, np.ndarray] = {}
        self._worlds: OrderedDict[tuple, np.ndarray] = OrderedDict()

    def check_supported(self, kb: KnowledgeBase) -> None:
        super().check_supported(kb)
        token_shape(kb)

    def clear_cache(self, universes: bool = False) -> None:
        """Forget cached answers (and, with ``universes``, the per-shape world lists)."""
        self._worlds.clear()
        if universes:
            self._universes.clear()

    def world_array(self, kb: KnowledgeBase) -> np.ndarray:
        """Every consistent world as rows of one array ``[world, card] -> loc`` (cached)."""
        key = kb.fingerprint()
        hit = self._worlds.get(key)
        if hit is not None:
            self._worlds.move_to_end(key)
            return hit
        super().check_supported(kb)
        shape = token_shape(kb)
        universe = self._universes.get(shape)
        if universe is None:
            groups, _, caps = shape
            slots = [k for _, k in caps]
            size = int(np.prod([len(g) for g in groups])) * _multinomial(slots)
            if size > self.limit:
                raise TooLarge(f"tokens: {size} shaped worlds exceed the limit {self.limit}")
            charge(size)  # the command's work budget, if one is metered: the worlds it lists
            universe = _universe(shape, kb.num_cards)
            self._universes[shape] = universe
        charge(len(universe))  # ... and filters
        worlds = universe[holds_all(universe, kb.constraints)]
        worlds.setflags(write=False)
        self._worlds[key] = worlds
        if len(self._worlds) > self.cache_size:
            self._worlds.popitem(last=False)
        return worlds

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        for w in self.world_array(kb):
            yield w.astype(np.int64)

    def consistent(self, kb: KnowledgeBase) -> bool:
        return len(self.world_array(kb)) > 0

    def count(self, kb: KnowledgeBase) -> int:
        return len(self.world_array(kb))

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        return self._cells(kb) > 0

    def tallies(self, kb: KnowledgeBase) -> Tally:
        cells = self._cells(kb)
        return Tally(len(self.world_array(kb)), tuple(tuple(int(v) for v in row) for row in cells))

    def _cells(self, kb: KnowledgeBase) -> np.ndarray:
        worlds = self.world_array(kb)
        cells = np.zeros((kb.num_cards, kb.num_locations), dtype=np.int64)
        for card in range(kb.num_cards):
            cells[card] = np.bincount(worlds[:, card], minlength=kb.num_locations)
        return cells

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        worlds = self.world_array(kb)
        counts: Counter[tuple[int, ...]] = Counter()
        for row in worlds == z:
            counts[tuple(int(c) for c in np.flatnonzero(row))] += 1
        return dict(counts)

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Exactly uniform samples of consistent worlds."""
        worlds = self.world_array(kb)
        if not len(worlds):
            return []
        return [worlds[i].astype(np.int64) for i in rng.integers(0, len(worlds), size=n)]


def _multinomial(parts: list[int]) -> int:
    total, out = 0, 1
    for k in parts:
        for i in range(1, k + 1):
            total += 1
            out = out * total // i
    return out
