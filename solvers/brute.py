"""``brute``: enumerate every world; the slow, obviously-correct reference the tests compare to."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from deduce.constraints import At, NotAt
from deduce.knowledge import KnowledgeBase
from solvers.base import EnumeratingSolver

__all__ = ["BruteSolver"]


class BruteSolver(EnumeratingSolver):
    """Lists all assignments of cards to locations allowed by the unit facts, keeps the
    ones that satisfy every constraint. Deliberately naive: only ``At``/``NotAt`` prune."""

    name = "brute"

    def __init__(self, limit: int = 2_000_000) -> None:
        super().__init__(limit)

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        domains = [set(range(kb.num_locations)) for _ in range(kb.num_cards)]
        for c in kb.constraints:
            if isinstance(c, At):
                domains[c.card] &= {c.loc}
            elif isinstance(c, NotAt):
                domains[c.card].discard(c.loc)
        ordered = [sorted(d) for d in domains]
        if any(not d for d in ordered):
            return
        constraints = kb.constraints
        world = np.zeros(kb.num_cards, dtype=np.int64)
        view = world[None, :]
        n = kb.num_cards

        def rec(i: int) -> Iterator[np.ndarray]:
            if i == n:
                if all(c.holds(view) for c in constraints):
                    yield world.copy()
                return
            for z in ordered[i]:
                world[i] = z
                yield from rec(i + 1)

        yield from rec(0)
