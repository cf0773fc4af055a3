"""A fixed numbering of every action a game configuration can offer.

Learning frameworks (PettingZoo, OpenSpiel) want a fixed action space: an integer ``0 .. N-1``
per action, meaning the same action in every state of one game configuration. Each game
declares its numbering in its record (``GameInfo.actions``, built in
``deduce/games/<game>/actions.py``), so every adapter shares it. An :class:`ActionIndex` is a
sequence of blocks, one per action kind, each indexed by the action's fields in mixed radix;
fields that are sets of cards are ranked by the combinatorial number system (:class:`Combos`),
so a block of hundreds of thousands of subsets is never materialised: an index is computed
from an action and an action from an index. Indices that no state offers are simply never
legal.

:func:`action_index` finds a game's numbering: one registered with
:func:`register_action_index`, else its record's, else one listed by its Game class's
``action_space()`` method.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import pairwise
from typing import Any, Protocol

import numpy as np

from deduce.errors import IllegalAction, NotSupported, UnknownName
from deduce.games.base import Action, Game
from deduce.games.registry import game_info

__all__ = [
    "ActionIndex",
    "Block",
    "Choice",
    "Combos",
    "Dimension",
    "IndexBuilder",
    "Seq",
    "action_index",
    "register_action_index",
]


class Dimension(Protocol):
    """One field of an action: ``size`` values, ranked ``0 .. size-1``."""

    size: int

    def rank(self, value: Any) -> int:
        """The index of ``value``; ``KeyError`` if it is not in this dimension."""
        ...

    def unrank(self, index: int) -> Any:
        """The value at ``index``."""
        ...


class Choice:
    """A field taking one of ``values`` (hashable), in that order."""

    def __init__(self, values: Iterable[Hashable]) -> None:
        self.values: tuple[Hashable, ...] = tuple(values)
        self._rank = {v: i for i, v in enumerate(self.values)}
        if len(self._rank) != len(self.values):
            raise ValueError("a Choice needs distinct values")
        self.size = len(self.values)

    def rank(self, value: Any) -> int:
        """The position of ``value`` in ``values``."""
        return self._rank[value]

    def unrank(self, index: int) -> Any:
        """The value at position ``index``."""
        return self.values[index]


class Combos:
    """A field holding an ascending tuple of distinct elements of ``universe``, of a length in
    ``sizes``. Ranked by length, then colexicographically (the combinatorial number system), so
    no subset is ever listed."""

    def __init__(self, universe: Iterable[int], sizes: Iterable[int]) -> None:
        self.universe: tuple[int, ...] = tuple(sorted(universe))
        self._pos = {v: i for i, v in enumerate(self.universe)}
        m = len(self.universe)
        self.sizes: tuple[int, ...] = tuple(sorted({k for k in sizes if 0 <= k <= m}))
        self._offset: dict[int, int] = {}
        total = 0
        for k in self.sizes:
            self._offset[k] = total
            total += math.comb(m, k)
        self.size = total

    def rank(self, value: Any) -> int:
        """The index of the subset ``value`` (any order; elements must be distinct)."""
        positions = sorted(self._pos[v] for v in value)
        k = len(positions)
        if k not in self._offset or len(set(positions)) != k:
            raise KeyError(value)
        return self._offset[k] + sum(math.comb(c, i + 1) for i, c in enumerate(positions))

    def unrank(self, index: int) -> tuple[int, ...]:
        """The ascending subset at ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(index)
        k = max(s for s in self.sizes if self._offset[s] <= index)
        r = index - self._offset[k]
        positions: list[int] = []
        c = len(self.universe)
        for j in range(k, 0, -1):
            c -= 1
            while math.comb(c, j) > r:
                c -= 1
            positions.append(c)
            r -= math.comb(c, j)
        return tuple(self.universe[p] for p in reversed(positions))


class Seq:
    """A tuple-valued field whose items are ranked by ``dims`` (mixed radix, first item slowest)."""

    def __init__(self, dims: Sequence[Dimension]) -> None:
        self.dims = tuple(dims)
        self.size = math.prod(d.size for d in self.dims)

    def rank(self, value: Any) -> int:
        """The mixed-radix index of the tuple ``value``."""
        value = tuple(value)
        if len(value) != len(self.dims):
            raise KeyError(value)
        index = 0
        for d, v in zip(self.dims, value, strict=True):
            index = index * d.size + d.rank(v)
        return index

    def unrank(self, index: int) -> tuple[Any, ...]:
        """The tuple at ``index``."""
        out = []
        for d in reversed(self.dims):
            index, r = divmod(index, d.size)
            out.append(d.unrank(r))
        return tuple(reversed(out))


class Block:
    """Every action of class ``cls`` whose init fields (in declaration order) range over ``dims``."""

    def __init__(self, cls: type[Action], dims: Sequence[Dimension] = ()) -> None:
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        if len(names) != len(dims):
            raise ValueError(f"{cls.__name__} has fields {names}; got {len(dims)} dimensions")
        self.cls = cls
        self.fields = tuple(names)
        self.seq = Seq(dims)
        self.size = self.seq.size

    def rank(self, action: Action) -> int:
        """The index of ``action`` within this block (``KeyError`` if outside it)."""
        return self.seq.rank(tuple(getattr(action, f) for f in self.fields))

    def unrank(self, index: int) -> Action:
        """The action at ``index`` within this block."""
        return self.cls(*self.seq.unrank(index))


class _Listed:
    """Every action in an explicit list (the fallback for a game with ``action_space()``)."""

    def __init__(self, actions: Iterable[Action]) -> None:
        self.choice = Choice(actions)
        self.size = self.choice.size

    def rank(self, action: Action) -> int:
        return self.choice.rank(action)

    def unrank(self, index: int) -> Action:
        return self.choice.unrank(index)  # type: ignore[return-value]


class ActionIndex:
    """A fixed numbering ``0 .. size-1`` of every action a game configuration can offer:
    :meth:`encode` numbers an action, :meth:`decode` gives the action of a number."""

    def __init__(self, blocks: Sequence[Block | _Listed]) -> None:
        self.blocks = tuple(blocks)
        self.offsets = tuple(np.cumsum([0] + [b.size for b in self.blocks]).tolist())
        self.size = int(self.offsets[-1])
        if self.size == 0:
            raise ValueError("an action index needs at least one action")
        self._by_type: dict[type, list[int]] = {}
        kinds: list[type] = []
        for i, b in enumerate(self.blocks):
            types = [b.cls] if isinstance(b, Block) else [type(a) for a in b.choice.values]
            for t in types:
                if i not in self._by_type.setdefault(t, []):
                    self._by_type[t].append(i)
                if t not in kinds:
                    kinds.append(t)
        #: the action classes, in block order (the PettingZoo observation's phase multi-hot follows it).
        self.kinds: tuple[type, ...] = tuple(kinds)

    @classmethod
    def from_actions(cls, actions: Iterable[Action]) -> ActionIndex:
        """An index over an explicit list of actions."""
        return cls([_Listed(actions)])

    def __len__(self) -> int:
        return self.size

    def encode(self, action: Action) -> int:
        """The index of ``action``; :class:`~deduce.errors.NotSupported` if the enumeration lacks it."""
        for i in self._by_type.get(type(action), ()):
            try:
                return self.offsets[i] + self.blocks[i].rank(action)
            except (KeyError, IndexError, TypeError):
                continue
        raise NotSupported(f"{action!r} is outside this game's action enumeration")

    def blocks_of(self, cls: type) -> tuple[int, ...]:
        """The numbers of the blocks that may hold actions of class ``cls``."""
        return tuple(self._by_type.get(cls, ()))

    def locate(self, action: Action) -> tuple[int, int]:
        """``(block number, index within the block)`` of ``action`` (see :meth:`encode`)."""
        for i in self._by_type.get(type(action), ()):
            try:
                return i, self.blocks[i].rank(action)
            except (KeyError, IndexError, TypeError):
                continue
        raise NotSupported(f"{action!r} is outside this game's action enumeration")

    def decode(self, index: int) -> Action:
        """The action numbered ``index`` (:class:`~deduce.errors.IllegalAction` outside ``0 .. size-1``)."""
        index = int(index)
        if not 0 <= index < self.size:
            raise IllegalAction(f"action index {index} is outside 0..{self.size - 1}")
        for i, (lo, hi) in enumerate(pairwise(self.offsets)):
            if lo <= index < hi:
                return self.blocks[i].unrank(index - lo)
        raise AssertionError("unreachable")  # pragma: no cover

    def mask(self, actions: Iterable[Action]) -> np.ndarray:
        """An ``int8`` vector of length ``size``: 1 at the index of every action in ``actions``."""
        out = np.zeros(self.size, dtype=np.int8)
        idx = [self.encode(a) for a in actions]
        if idx:
            out[idx] = 1
        return out


#: what builds a game's numbering: ``builder(game) -> ActionIndex`` (a game record's ``actions``).
IndexBuilder = Callable[[Game], ActionIndex]
_BUILDERS: dict[str, IndexBuilder] = {}


def register_action_index(game: str, builder: IndexBuilder) -> None:
    """Use ``builder(game) -> ActionIndex`` for the game registered as ``game`` (before the
    numbering its record declares, if any)."""
    _BUILDERS[game] = builder


def action_index(game: Game) -> ActionIndex:
    """The fixed action numbering of ``game``: the builder registered for its name, else the one
    its record declares (``GameInfo.actions``), else the list of its Game class's
    ``action_space()`` method; :class:`~deduce.errors.NotSupported` if it has none."""
    builder = _BUILDERS.get(game.name)
    if builder is None:
        try:
            builder = game_info(game.name).actions
        except UnknownName:
            builder = None
    if builder is not None:
        return builder(game)
    listing = getattr(game, "action_space", None)
    if callable(listing):
        return ActionIndex.from_actions(listing())
    raise NotSupported(
        f"game {game.name!r} has no action enumeration: declare one in its GameInfo (actions=...), "
        "give its Game class an action_space() method, or call deduce.actions.register_action_index"
    )
