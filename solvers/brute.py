"""``brute``: enumerate every world; the slow, obviously-correct reference the tests compare to."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from deduce.constraints import At, CountEver, NotAt
from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import EPOCH_KINDS, EnumeratingSolver
from solvers.budget import charge

__all__ = ["BruteSolver"]


class BruteSolver(EnumeratingSolver):
    """Lists all assignments of cards to locations allowed by the unit facts, keeps the
    ones that satisfy every constraint. Deliberately naive: only ``At``/``NotAt`` prune.

    Time-indexed knowledge bases are enumerated the same way, one variable per (epoch, card),
    so the reference does not share any reasoning about transfers with the backends it checks.
    """

    name = "brute"
    kinds = EPOCH_KINDS + (CountEver,)
    max_epochs = None

    def __init__(self, limit: int = 2_000_000, max_assignments: float = 5e7) -> None:
        super().__init__(limit)
        self.max_assignments = max_assignments

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        epochs, n = kb.epochs, kb.num_cards
        domains = [[set(range(kb.num_locations)) for _ in range(n)] for _ in range(epochs)]
        for c in kb.constraints:
            if isinstance(c, At):
                domains[c.epoch][c.card] &= {c.loc}
            elif isinstance(c, NotAt):
                domains[c.epoch][c.card].discard(c.loc)
        ordered = [sorted(d) for row in domains for d in row]
        if any(not d for d in ordered):
            return
        search = float(np.exp(sum(np.log(len(d)) for d in ordered)))
        if search > self.max_assignments:
            raise TooLarge(
                f"brute: {search:.3g} assignments to search, more than {self.max_assignments:.3g}; "
                "use the exact or cpsat backend"
            )
        charge(search)  # the command's work budget, if one is metered: the whole search up front
        constraints = kb.constraints
        world = np.zeros((epochs, n), dtype=np.int64)
        flat = world.reshape(-1)
        total = epochs * n

        def rec(i: int) -> Iterator[np.ndarray]:
            if i == total:
                if all(c.holds(world) for c in constraints):
                    yield world[0].copy() if epochs == 1 else world.copy()
                return
            for z in ordered[i]:
                flat[i] = z
                yield from rec(i + 1)

        yield from rec(0)
