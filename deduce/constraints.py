"""The constraint vocabulary shared by every game.

A world assigns every card one location per epoch: ``world[epoch][card] = location``. Each
constraint is a small frozen value that can say whether it holds in a world; solvers translate
the same values into their own models. Cards and locations are ints (indices into the
knowledge base's deck and location list); the knowledge base renders them with names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

__all__ = [
    "Constraint",
    "At",
    "NotAt",
    "AtLeastOne",
    "Count",
    "NotAll",
    "Op",
    "CONSTRAINT_KINDS",
]

World = Sequence[Sequence[int]]


class Op(str, Enum):
    """Comparison of a :class:`Count`."""

    EQ = "=="
    LE = "<="
    GE = ">="

    def compare(self, value: int, n: int) -> bool:
        if self is Op.EQ:
            return value == n
        if self is Op.LE:
            return value <= n
        return value >= n


def _card_set(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(int(c) for c in cards)))


@dataclass(frozen=True, slots=True)
class Constraint:
    """Base class: a fact about where cards are in one epoch."""

    kind: ClassVar[str] = "Constraint"

    def holds(self, world: World) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def cards_involved(self) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def locations_involved(self) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class At(Constraint):
    """``card`` is at ``loc``."""

    card: int
    loc: int
    epoch: int = 0
    kind: ClassVar[str] = "At"

    def holds(self, world: World) -> bool:
        return world[self.epoch][self.card] == self.loc

    def cards_involved(self) -> tuple[int, ...]:
        return (self.card,)

    def locations_involved(self) -> tuple[int, ...]:
        return (self.loc,)


@dataclass(frozen=True, slots=True)
class NotAt(Constraint):
    """``card`` is not at ``loc``."""

    card: int
    loc: int
    epoch: int = 0
    kind: ClassVar[str] = "NotAt"

    def holds(self, world: World) -> bool:
        return world[self.epoch][self.card] != self.loc

    def cards_involved(self) -> tuple[int, ...]:
        return (self.card,)

    def locations_involved(self) -> tuple[int, ...]:
        return (self.loc,)


@dataclass(frozen=True, slots=True, init=False)
class AtLeastOne(Constraint):
    """At least one of ``cards`` is at ``loc`` (a refutation seen by a third party)."""

    cards: tuple[int, ...]
    loc: int
    epoch: int = 0
    kind: ClassVar[str] = "AtLeastOne"

    def __init__(self, cards: Iterable[int], loc: int, epoch: int = 0) -> None:
        object.__setattr__(self, "cards", _card_set(cards))
        object.__setattr__(self, "loc", int(loc))
        object.__setattr__(self, "epoch", int(epoch))

    def holds(self, world: World) -> bool:
        row = world[self.epoch]
        return any(row[c] == self.loc for c in self.cards)

    def cards_involved(self) -> tuple[int, ...]:
        return self.cards

    def locations_involved(self) -> tuple[int, ...]:
        return (self.loc,)


@dataclass(frozen=True, slots=True, init=False)
class Count(Constraint):
    """The number of ``cards`` at ``loc`` compares to ``n`` by ``op`` (hand sizes, answers, voids)."""

    cards: tuple[int, ...]
    loc: int
    n: int
    op: Op = Op.EQ
    epoch: int = 0
    kind: ClassVar[str] = "Count"

    def __init__(
        self, cards: Iterable[int], loc: int, n: int, op: Op | str = Op.EQ, epoch: int = 0
    ) -> None:
        object.__setattr__(self, "cards", _card_set(cards))
        object.__setattr__(self, "loc", int(loc))
        object.__setattr__(self, "n", int(n))
        object.__setattr__(self, "op", Op(op))
        object.__setattr__(self, "epoch", int(epoch))

    def holds(self, world: World) -> bool:
        row = world[self.epoch]
        return self.op.compare(sum(1 for c in self.cards if row[c] == self.loc), self.n)

    def cards_involved(self) -> tuple[int, ...]:
        return self.cards

    def locations_involved(self) -> tuple[int, ...]:
        return (self.loc,)


@dataclass(frozen=True, slots=True, init=False)
class NotAll(Constraint):
    """Not every ``(card, loc)`` pair holds at once (a wrong accusation: not all three in the envelope)."""

    pairs: tuple[tuple[int, int], ...]
    epoch: int = 0
    kind: ClassVar[str] = "NotAll"

    def __init__(self, pairs: Iterable[tuple[int, int]], epoch: int = 0) -> None:
        object.__setattr__(self, "pairs", tuple(sorted(set((int(c), int(z)) for c, z in pairs))))
        object.__setattr__(self, "epoch", int(epoch))

    def holds(self, world: World) -> bool:
        row = world[self.epoch]
        return not all(row[c] == z for c, z in self.pairs)

    def cards_involved(self) -> tuple[int, ...]:
        return _card_set(c for c, _ in self.pairs)

    def locations_involved(self) -> tuple[int, ...]:
        return tuple(sorted({z for _, z in self.pairs}))


CONSTRAINT_KINDS: dict[str, type[Constraint]] = {
    cls.kind: cls for cls in (At, NotAt, AtLeastOne, Count, NotAll)
}
