"""The query protocol every backend answers, and the shared enumeration-based implementation.

A backend answers questions about a :class:`~deduce.knowledge.KnowledgeBase`:
``consistent``, ``possible`` (bool[card, loc]), ``count`` (exact number of worlds),
``marginals`` (float[card, loc]), ``tallies`` (exact integer counts per cell),
``solution_distribution`` (the distribution of the card set at one location, e.g. the
envelope), and ``sample``. A backend that cannot handle a knowledge base raises
:class:`~deduce.errors.NotSupported` naming what it lacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt, Transfer
from deduce.errors import NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.budget import charge

__all__ = ["Solver", "EnumeratingSolver", "Tally", "STATIC_KINDS", "EPOCH_KINDS", "last_epoch", "check_linked"]

STATIC_KINDS: tuple[type[Constraint], ...] = (At, NotAt, AtLeastOne, Count, NotAll)
EPOCH_KINDS: tuple[type[Constraint], ...] = STATIC_KINDS + (Transfer,)


def last_epoch(world: np.ndarray) -> np.ndarray:
    """The ``[card]`` row of the last epoch of a world (a 1-D world is its own last epoch)."""
    return world if world.ndim == 1 else world[-1]


def check_linked(kb: KnowledgeBase, name: str) -> None:
    """Refuse a multi-epoch knowledge base whose consecutive epochs no :class:`Transfer` links.

    Unlinked epochs would be independent worlds (unconstrained drift): almost certainly a
    knowledge base someone forgot to finish, so it is refused rather than answered.
    """
    if kb.epochs <= 1:
        return
    linked = {c.epoch for c in kb.constraints if isinstance(c, Transfer)}
    missing = [e for e in range(kb.epochs - 1) if e not in linked]
    if missing:
        raise NotSupported(
            f"{name}: epochs {missing[0]} and {missing[0] + 1} are not linked by a Transfer "
            "(a time-indexed knowledge base needs one between every pair of epochs)"
        )


@dataclass(frozen=True)
class Tally:
    """Exact counts: ``total`` consistent worlds, ``cells[card][loc]`` of them with card at loc."""

    total: int
    cells: tuple[tuple[int, ...], ...]

    def marginals(self) -> np.ndarray:
        if self.total == 0:
            return np.zeros((len(self.cells), len(self.cells[0]) if self.cells else 0))
        return np.array([[int(v) / self.total for v in row] for row in self.cells], dtype=float)

    def fractions(self) -> list[list[Fraction]]:
        return [[Fraction(v, self.total) if self.total else Fraction(0) for v in row] for row in self.cells]


class Solver:
    """Base class of every backend. Subclasses set ``name``, declare what they can answer and
    implement those queries.

    Capabilities (class attributes, read instead of probing for methods): ``exact`` (answers are
    exact, not estimates), ``can_count`` (``tallies``, ``count``, ``marginals``,
    ``solution_counts``), ``can_sample`` (``sample``), ``can_explain`` (``core``: an
    unsatisfiable core, for explanations);
    ``kinds`` and ``max_epochs`` say which knowledge bases it takes (``supports``).
    """

    name: str = "base"
    exact: bool = True
    can_count: bool = True
    can_sample: bool = False
    can_explain: bool = False
    kinds: tuple[type[Constraint], ...] = STATIC_KINDS
    max_epochs: int | None = 1

    def supports(self, kb: KnowledgeBase) -> bool:
        try:
            self.check_supported(kb)
        except NotSupported:
            return False
        return True

    def check_supported(self, kb: KnowledgeBase) -> None:
        if self.max_epochs is not None and kb.epochs > self.max_epochs:
            raise NotSupported(f"{self.name}: knowledge bases with {kb.epochs} epochs are not supported")
        for c in kb.constraints:
            if not isinstance(c, self.kinds):
                raise NotSupported(f"{self.name}: constraint kind {c.kind} is not supported")
        check_linked(kb, self.name)

    # -- queries (subclasses override) ----------------------------------------------------------
    def consistent(self, kb: KnowledgeBase) -> bool:
        raise NotImplementedError

    def possible(self, kb: KnowledgeBase) -> np.ndarray:
        raise NotImplementedError

    def tallies(self, kb: KnowledgeBase) -> Tally:
        raise NotImplementedError

    def count(self, kb: KnowledgeBase) -> int:
        return self.tallies(kb).total

    def marginals(self, kb: KnowledgeBase) -> np.ndarray:
        return self.tallies(kb).marginals()

    def solution_distribution(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], float]:
        counts = self.solution_counts(kb, loc)
        total = sum(counts.values())
        return {k: v / total for k, v in counts.items()} if total else {}

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        raise NotImplementedError

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        raise NotSupported(f"{self.name}: sampling is not supported")

    def core(self, kb: KnowledgeBase) -> list[int]:
        """Indices of constraints that cannot all hold (for an inconsistent ``kb``)."""
        raise NotSupported(f"{self.name}: explanations (unsatisfiable cores) are not supported")

    def __repr__(self) -> str:
        return f"<solver {self.name}>"


class EnumeratingSolver(Solver):
    """A backend that answers counting queries by listing every consistent world.

    Subclasses implement :meth:`worlds`; ``limit`` bounds how many worlds are listed before
    the backend refuses with :class:`~deduce.errors.TooLarge` (an exact answer or none).
    """

    can_sample = True

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = int(limit)

    def worlds(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        """Every consistent world as an int array ``[card] -> loc`` (single epoch), or
        ``[epoch, card] -> loc`` for a knowledge base with several epochs. Counting queries
        (``possible``, ``tallies``, ``solution_counts``) speak about the last epoch."""
        raise NotImplementedError

    def _bounded(self, kb: KnowledgeBase) -> Iterator[np.ndarray]:
        self.check_supported(kb)
        for i, w in enumerate(self.worlds(kb)):
            charge(1)  # the command's work budget, if one is metered
            if i >= self.limit:
                raise TooLarge(
                    f"{self.name}: more than {self.limit} consistent worlds; "
                    "use an exact counting backend (exact) or raise the limit"
                )
            yield w

    def consistent(self, kb: KnowledgeBase) -> bool:
        self.check_supported(kb)
        return next(iter(self.worlds(kb)), None) is not None

    def possible(self, kb: KnowledgeBase, epoch: int | None = None) -> np.ndarray:
        """bool[card, loc] of the last epoch (or of ``epoch``)."""
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        e = kb.epochs - 1 if epoch is None else int(epoch)
        for w in self._bounded(kb):
            row = w if w.ndim == 1 else w[e]
            out[np.arange(kb.num_cards), row] = True
        return out

    def tallies(self, kb: KnowledgeBase) -> Tally:
        cells = np.zeros((kb.num_cards, kb.num_locations), dtype=np.int64)
        total = 0
        idx = np.arange(kb.num_cards)
        for w in self._bounded(kb):
            cells[idx, last_epoch(w)] += 1
            total += 1
        return Tally(total, tuple(tuple(int(v) for v in row) for row in cells))

    def solution_counts(self, kb: KnowledgeBase, loc: int | str) -> dict[tuple[int, ...], int]:
        z = kb.loc(loc) if isinstance(loc, str) else int(loc)
        counts: Counter[tuple[int, ...]] = Counter()
        for w in self._bounded(kb):
            counts[tuple(int(c) for c in np.flatnonzero(last_epoch(w) == z))] += 1
        return dict(counts)

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Exactly uniform samples, drawn from the full list of worlds (small instances only)."""
        all_worlds = list(self._bounded(kb))
        if not all_worlds:
            return []
        picks = rng.integers(0, len(all_worlds), size=n)
        return [all_worlds[i].copy() for i in picks]
