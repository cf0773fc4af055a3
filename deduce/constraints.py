"""The constraint vocabulary shared by every game.

A world assigns every card one location per epoch: ``world[epoch][card] = location``. Each
constraint is a small frozen value that can say whether it holds in a world; solvers translate
the same values into their own models. Cards and locations are ints (indices into the
knowledge base's deck and location list); the knowledge base renders them with names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

__all__ = [
    "Constraint",
    "At",
    "NotAt",
    "AtLeastOne",
    "Count",
    "NotAll",
    "Transfer",
    "CountEver",
    "Op",
    "CONSTRAINT_KINDS",
]

World = Sequence[Sequence[int]]


class Op(StrEnum):
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
    return tuple(sorted(set(map(int, cards))))


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


@dataclass(frozen=True, slots=True, init=False)
class Transfer(Constraint):
    """Cards move between epoch ``epoch`` and ``epoch + 1``: for every ``(src, dst, k)`` in
    ``moves`` exactly ``k`` cards go from ``src`` to ``dst``, and every other card stays where
    it was.

    The frame rule is part of the constraint, so a time-indexed knowledge base never drifts:
    a card may change location only along a listed ``(src, dst)`` pair. Which cards moved, when
    an observer saw them, is said with ordinary facts at the right epochs (``At(card, src,
    epoch=e)``, ``At(card, dst, epoch=e + 1)``). A passed card (Mayfair Alibi) is
    ``Transfer(e, [(p, q, 1)])``; a hidden two-way exchange of k cards (Crime Hotel) is
    ``Transfer(e, [(a, b, k), (b, a, k)])``; cards played to the table are moves to a public
    location.
    """

    epoch: int
    moves: tuple[tuple[int, int, int], ...]
    kind: ClassVar[str] = "Transfer"

    def __init__(self, epoch: int, moves: Iterable[Sequence[int]]) -> None:
        object.__setattr__(self, "epoch", int(epoch))
        object.__setattr__(
            self, "moves", tuple(sorted((int(s), int(d), int(k)) for s, d, k in moves))
        )

    def holds(self, world: World) -> bool:
        before, after = world[self.epoch], world[self.epoch + 1]
        moved = {(s, d): 0 for s, d, _ in self.moves}
        for a, b in zip(before, after, strict=True):
            if a != b:
                key = (int(a), int(b))
                if key not in moved:
                    return False
                moved[key] += 1
        return all(moved[(s, d)] == k for s, d, k in self.moves)

    def cards_involved(self) -> tuple[int, ...]:
        return ()

    def locations_involved(self) -> tuple[int, ...]:
        return tuple(sorted({z for s, d, _ in self.moves for z in (s, d)}))

    def pairs(self) -> dict[tuple[int, int], int]:
        """``{(src, dst): k}``: the allowed moves and how many cards take each."""
        return {(s, d): k for s, d, k in self.moves}


@dataclass(frozen=True, slots=True, init=False)
class CountEver(Constraint):
    """The number of ``cards`` that were at one of ``locs`` in at least one of ``epochs``
    compares to ``n`` by ``op``: history questions ("how many Rage cards have you ever seen",
    "how many cards have you ever held", Mayfair Alibi). A card counts once however often it
    was there.
    """

    cards: tuple[int, ...]
    locs: tuple[int, ...]
    epochs: tuple[int, ...]
    n: int
    op: Op = Op.EQ
    kind: ClassVar[str] = "CountEver"

    def __init__(
        self,
        cards: Iterable[int],
        locs: Iterable[int],
        epochs: Iterable[int],
        n: int,
        op: Op | str = Op.EQ,
    ) -> None:
        object.__setattr__(self, "cards", _card_set(cards))
        object.__setattr__(self, "locs", tuple(sorted(set(int(z) for z in locs))))
        object.__setattr__(self, "epochs", tuple(sorted(set(int(e) for e in epochs))))
        object.__setattr__(self, "n", int(n))
        object.__setattr__(self, "op", Op(op))

    @property
    def epoch(self) -> int:
        """The latest epoch involved (what epoch-range validation checks)."""
        return self.epochs[-1] if self.epochs else 0

    def ever(self, world: World, card: int) -> bool:
        """Whether ``card`` was at one of ``locs`` in one of ``epochs``."""
        return any(int(world[e][card]) in self.locs for e in self.epochs)

    def holds(self, world: World) -> bool:
        return self.op.compare(sum(1 for c in self.cards if self.ever(world, c)), self.n)

    def cards_involved(self) -> tuple[int, ...]:
        return self.cards

    def locations_involved(self) -> tuple[int, ...]:
        return self.locs


CONSTRAINT_KINDS: dict[str, type[Constraint]] = {
    cls.kind: cls for cls in (At, NotAt, AtLeastOne, Count, NotAll, Transfer, CountEver)
}
