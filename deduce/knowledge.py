"""Knowledge bases: card-location variables plus constraints, declarative, no solving inside.

``KnowledgeBase(deck, locations, epochs=1)`` holds variables ``x[card, location, epoch]`` (each
card is in exactly one location per epoch) and a list of constraints from
:mod:`deduce.constraints`. :meth:`KnowledgeBase.add` is transactional: a constraint that makes
the knowledge base unsatisfiable raises :class:`~deduce.errors.Contradiction` and leaves it as it
was. The core only runs cheap propagation itself; full satisfiability is checked by a solver
handed in (``check=``) or set as ``kb.checker``, so this module imports no solver.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any, Protocol

import numpy as np

from deduce.cards import Deck, normalise_name
from deduce.constraints import (
    CONSTRAINT_KINDS,
    At,
    AtLeastOne,
    Constraint,
    Count,
    CountEver,
    NotAll,
    NotAt,
    Op,
    Transfer,
)
from deduce.errors import Contradiction, InvalidConfig, InvalidConstraint, UnknownName

__all__ = ["KnowledgeBase", "Checker", "propagate"]


class Checker(Protocol):
    """Anything that can decide satisfiability (every solver backend qualifies)."""

    def consistent(self, kb: KnowledgeBase) -> bool: ...


class KnowledgeBase:
    """Variables ``x[card, location, epoch]`` and the constraints known about them."""

    def __init__(
        self,
        deck: Deck,
        locations: Sequence[str],
        epochs: int = 1,
        checker: Checker | None = None,
    ) -> None:
        if epochs < 1:
            raise InvalidConfig("epochs", epochs, "a knowledge base needs at least one epoch")
        locations = tuple(str(z) for z in locations)
        keys = [normalise_name(z) for z in locations]
        if not all(keys):
            raise InvalidConfig("locations", locations, "a location name is empty")
        first: dict[str, str] = {}
        for name, key in zip(locations, keys, strict=True):
            if key in first:
                raise InvalidConfig(
                    "locations", locations, f"{first[key]!r} and {name!r} are the same name once case, spaces and accents are ignored"
                )
            first[key] = name
        if not locations:
            raise InvalidConfig("locations", locations, "a knowledge base needs at least one location")
        self.deck = deck
        self.locations: tuple[str, ...] = locations
        self.epochs = int(epochs)
        self.checker = checker
        self._loc_by_key = {k: i for i, k in enumerate(keys)}
        self._constraints: list[Constraint] = []
        self._known: set[Constraint] = set()  # what _constraints holds: a repeated fact costs nothing
        self._sources: list[str | None] = []

    # -- names ------------------------------------------------------------------------------
    @property
    def num_cards(self) -> int:
        return len(self.deck)

    @property
    def num_locations(self) -> int:
        return len(self.locations)

    def card(self, name: str) -> int:
        """Index of the card called ``name``."""
        return self.deck.card(name).id

    def loc(self, name: str) -> int:
        """Index of the location called ``name``."""
        try:
            return self._loc_by_key[normalise_name(name)]
        except (KeyError, TypeError, AttributeError):
            raise UnknownName(f"unknown location {name!r}") from None

    # -- constraints ------------------------------------------------------------------------
    @property
    def constraints(self) -> tuple[Constraint, ...]:
        return tuple(self._constraints)

    @property
    def sources(self) -> tuple[str | None, ...]:
        """Where each constraint came from (an event description), parallel to ``constraints``."""
        return tuple(self._sources)

    def __len__(self) -> int:
        return len(self._constraints)

    def fingerprint(self) -> tuple:
        """A hashable value that is equal for knowledge bases with the same content (caching)."""
        return (self.deck.cards, self.locations, self.epochs, tuple(self._constraints))

    def copy(self) -> KnowledgeBase:
        kb = KnowledgeBase(self.deck, self.locations, self.epochs, self.checker)
        kb._constraints = list(self._constraints)
        kb._sources = list(self._sources)
        kb._known = set(self._known)
        return kb

    def add(
        self,
        constraint: Constraint,
        source: str | None = None,
        check: Checker | bool | None = None,
    ) -> None:
        """Add one constraint, or raise :class:`Contradiction` and change nothing."""
        self.extend([constraint], source=source, check=check)

    def extend(
        self,
        constraints: Iterable[Constraint],
        source: str | None = None,
        check: Checker | bool | None = None,
        *,
        sources: Sequence[str | None] | None = None,
    ) -> None:
        """Add several constraints at once: all are added, or none (on a contradiction).

        ``check``: a solver proves the result satisfiable; ``None`` uses ``self.checker`` (cheap
        propagation alone when there is none); ``False`` trusts the constraints and checks
        nothing beyond their shape (engine-made observations of a real game).
        ``sources``: one source per constraint instead of ``source`` for all (a game that
        builds its knowledge base in one batch and knows which event brought in each).
        """
        new = list(constraints)
        if sources is None:
            given = [source] * len(new)
        elif len(sources) != len(new) or source is not None:
            raise InvalidConfig("sources", f"{len(sources)} sources",
                                f"one per constraint ({len(new)}), and no 'source' beside them")
        else:
            given = list(sources)
        for c in new:
            self.validate(c)
        # A fact already known (a repeated event, a duplicated log line) adds nothing and
        # needs no check: the first source of it stays the one explanations cite.
        first: dict[Constraint, str | None] = {}
        for c, s in zip(new, given, strict=True):
            if c not in self._known:
                first.setdefault(c, s)
        if not first:
            return
        new, added = list(first), list(first.values())
        if check is False:
            self._constraints.extend(new)
            self._sources.extend(added)
            self._known.update(new)
            return
        trial = self.copy()
        trial._constraints.extend(new)
        trial._sources.extend(added)
        culprit = new[-1] if new else None
        reason = propagate(trial).contradiction
        if reason is None:
            checker = self.checker if check is None else check
            if checker is not None and checker is not True and not checker.consistent(trial):
                reason = "no consistent world remains"
        if reason is not None:
            conflicts = self._conflicts(trial, len(new), check)
            names = "; ".join(self.describe(c) for c in new)
            detail = ""
            if conflicts:
                detail = " (conflicts with " + "; ".join(
                    self.describe(c) + (f" from {s}" if s else "") for c, s in conflicts
                ) + ")"
            raise Contradiction(
                f"{names} contradicts the knowledge base: {reason}{detail}",
                constraint=culprit,
                conflicts=tuple(c for c, _ in conflicts),
                reason=reason,
                sources=tuple(s for _, s in conflicts),
            )
        self._constraints = trial._constraints
        self._sources = trial._sources
        self._known.update(new)

    def _conflicts(
        self, trial: KnowledgeBase, added: int, check: Checker | bool | None
    ) -> list[tuple[Constraint, str | None]]:
        checker = self.checker if check is None else check
        core_fn = getattr(checker, "core", None)
        if core_fn is None:
            return []
        try:
            core = core_fn(trial)
        except Exception:  # an explanation is a courtesy; the contradiction stands without it
            return []
        first_new = len(trial._constraints) - added
        return [(trial._constraints[i], trial._sources[i]) for i in core if i < first_new]

    def validate(self, c: Constraint) -> None:
        """Raise :class:`InvalidConstraint` if ``c`` does not fit this knowledge base."""
        if not isinstance(c, Constraint):
            raise InvalidConstraint(f"not a constraint: {c!r}")
        epoch = getattr(c, "epoch", 0)
        if not 0 <= epoch < self.epochs:
            raise InvalidConstraint(f"{c!r}: epoch {epoch} out of range 0..{self.epochs - 1}")
        cards = c.cards_involved()  # the range checked at the ends (a long log validates 70,000 counts of all cards)
        if cards and not (0 <= min(cards) and max(cards) < self.num_cards):
            card = next(card for card in cards if not 0 <= card < self.num_cards)
            raise InvalidConstraint(f"{c!r}: card index {card} out of range")
        for z in c.locations_involved():
            if not 0 <= z < self.num_locations:
                raise InvalidConstraint(f"{c!r}: location index {z} out of range")
        if isinstance(c, AtLeastOne) and not c.cards:
            raise InvalidConstraint("AtLeastOne needs at least one card")
        if isinstance(c, NotAll) and not c.pairs:
            raise InvalidConstraint("NotAll needs at least one (card, location) pair")
        if isinstance(c, Count) and c.n < 0:
            raise InvalidConstraint(f"{c!r}: a count cannot be negative")
        if isinstance(c, CountEver):
            if c.n < 0:
                raise InvalidConstraint(f"{c!r}: a count cannot be negative")
            if not c.epochs or c.epochs[0] < 0:
                raise InvalidConstraint(f"{c!r}: needs epochs in 0..{self.epochs - 1}")
            if not c.locs:
                raise InvalidConstraint(f"{c!r}: needs at least one location")
        if isinstance(c, Transfer):
            if c.epoch + 1 >= self.epochs:
                raise InvalidConstraint(
                    f"{c!r}: a transfer links epoch {c.epoch} to {c.epoch + 1}, "
                    f"but the knowledge base has epochs 0..{self.epochs - 1}"
                )
            pairs = [(s, d) for s, d, _ in c.moves]
            if len(set(pairs)) != len(pairs):
                raise InvalidConstraint(f"{c!r}: a (src, dst) pair is listed twice")
            for s, d, k in c.moves:
                if s == d:
                    raise InvalidConstraint(f"{c!r}: a move from a location to itself")
                if k < 0:
                    raise InvalidConstraint(f"{c!r}: a move count cannot be negative")

    # -- worlds -----------------------------------------------------------------------------
    def violated(self, world: Sequence) -> list[Constraint]:
        """The constraints that ``world`` breaks (a 1-D world is read as epoch 0)."""
        w = _as_epochs(world)
        return [c for c in self._constraints if not c.holds(w)]

    def consistent_with(self, world: Sequence) -> bool:
        w = _as_epochs(world)
        if len(w) != self.epochs or any(len(row) != self.num_cards for row in w):
            shape = (len(w), *sorted({len(row) for row in w}))
            raise InvalidConfig(
                "world.shape",
                shape,
                f"world has the wrong shape for this knowledge base: expected ({self.epochs}, {self.num_cards})",
            )
        for e, row in enumerate(w):
            for c, z in enumerate(row):
                if not 0 <= int(z) < self.num_locations:
                    raise InvalidConfig(
                        f"world[{e}][{c}]",
                        int(z),
                        f"world names location index {z}, out of range 0..{self.num_locations - 1}",
                    )
        return all(c.holds(w) for c in self._constraints)

    # -- text -------------------------------------------------------------------------------
    def describe(self, c: Constraint) -> str:
        """A readable rendering of a constraint with card and location names."""
        name = self.deck.names
        loc = self.locations
        ep = f"@{c.epoch}" if self.epochs > 1 else ""
        if isinstance(c, At):
            return f"At({name([c.card])[0]}, {loc[c.loc]}){ep}"
        if isinstance(c, NotAt):
            return f"NotAt({name([c.card])[0]}, {loc[c.loc]}){ep}"
        if isinstance(c, AtLeastOne):
            return f"AtLeastOne({{{', '.join(name(c.cards))}}}, {loc[c.loc]}){ep}"
        if isinstance(c, Count):
            cards = ", ".join(name(c.cards)) if len(c.cards) <= 8 else f"{len(c.cards)} cards"
            return f"Count({{{cards}}}, {loc[c.loc]}) {c.op.value} {c.n}{ep}"
        if isinstance(c, NotAll):
            inner = ", ".join(f"{name([k])[0]}@{loc[z]}" for k, z in c.pairs)
            return f"NotAll({inner}){ep}"
        if isinstance(c, Transfer):
            inner = ", ".join(f"{loc[s]}->{loc[d]}: {k}" for s, d, k in c.moves)
            return f"Transfer@{c.epoch}->{c.epoch + 1}({inner})"
        if isinstance(c, CountEver):
            cards = ", ".join(name(c.cards)) if len(c.cards) <= 8 else f"{len(c.cards)} cards"
            where = "|".join(loc[z] for z in c.locs)
            span = f"{c.epochs[0]}..{c.epochs[-1]}" if len(c.epochs) > 1 else f"{c.epochs[0]}"
            return f"CountEver({{{cards}}}, {where}, epochs {span}) {c.op.value} {c.n}"
        return repr(c)

    def __repr__(self) -> str:
        return (
            f"KnowledgeBase({len(self.deck)} cards, locations={list(self.locations)}, "
            f"epochs={self.epochs}, {len(self._constraints)} constraints)"
        )

    # -- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck.to_json(),
            "locations": list(self.locations),
            "epochs": self.epochs,
            "constraints": [
                _constraint_to_json(self, c, s) for c, s in zip(self._constraints, self._sources, strict=True)
            ],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> KnowledgeBase:
        if isinstance(data, str):
            data = json.loads(data)
        kb = cls(Deck.from_json(data["deck"]), data["locations"], int(data.get("epochs", 1)))
        for item in data.get("constraints", []):
            c, source = _constraint_from_json(kb, item)
            kb.validate(c)
            kb._constraints.append(c)
            kb._sources.append(source)
            kb._known.add(c)
        return kb

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KnowledgeBase):
            return NotImplemented
        return self.fingerprint() == other.fingerprint() and self._sources == other._sources

    __hash__ = None  # type: ignore[assignment]  # mutable


def _as_epochs(world: Sequence) -> Sequence[Sequence[int]]:
    arr = np.asarray(world)
    if arr.ndim == 1:
        return arr[None, :]
    return arr


def _constraint_to_json(kb: KnowledgeBase, c: Constraint, source: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": c.kind}
    for f in fields(c):
        value = getattr(c, f.name)
        if f.name == "card":
            value = kb.deck[value].name
        elif f.name == "cards":
            value = list(kb.deck.names(value))
        elif f.name == "loc":
            value = kb.locations[value]
        elif f.name == "pairs":
            value = [[kb.deck[k].name, kb.locations[z]] for k, z in value]
        elif f.name == "op":
            value = value.value
        elif f.name == "moves":
            value = [[kb.locations[s], kb.locations[d], k] for s, d, k in value]
        elif f.name == "locs":
            value = [kb.locations[z] for z in value]
        elif f.name == "epochs":
            value = list(value)
        out[f.name] = value
    if source is not None:
        out["source"] = source
    return out


def _constraint_from_json(kb: KnowledgeBase, item: Mapping[str, Any]) -> tuple[Constraint, str | None]:
    try:
        cls = CONSTRAINT_KINDS[item["kind"]]
    except KeyError:
        raise InvalidConstraint(f"unknown constraint kind in {item!r}") from None
    kwargs: dict[str, Any] = {}
    for key, value in item.items():
        if key in ("kind", "source"):
            continue
        if key == "card":
            value = kb.card(value)
        elif key == "cards":
            value = [kb.card(v) for v in value]
        elif key == "loc":
            value = kb.loc(value)
        elif key == "pairs":
            value = [(kb.card(k), kb.loc(z)) for k, z in value]
        elif key == "moves":
            value = [(kb.loc(s), kb.loc(d), int(k)) for s, d, k in value]
        elif key == "locs":
            value = [kb.loc(z) for z in value]
        kwargs[key] = value
    try:
        return cls(**kwargs), item.get("source")
    except TypeError as exc:
        raise InvalidConstraint(f"bad fields for {item.get('kind')}: {exc}") from None


# -- cheap propagation ------------------------------------------------------------------------
class Propagation:
    """Result of :func:`propagate`: ``possible[epoch, card, loc]`` and a contradiction, if found."""

    __slots__ = ("possible", "contradiction")

    def __init__(self, possible: np.ndarray, contradiction: str | None) -> None:
        self.possible = possible
        self.contradiction = contradiction

    def fixed(self, epoch: int = 0) -> np.ndarray:
        """Location of each card where only one remains, else -1."""
        p = self.possible[epoch]
        one = p.sum(axis=1) == 1
        return np.where(one, p.argmax(axis=1), -1)


def propagate(kb: KnowledgeBase, max_rounds: int = 1000) -> Propagation:
    """Unit propagation with counting (hand sizes, clauses, not-all) to a fixpoint.

    Sound but incomplete: every location it rules out is impossible; a location it keeps may
    still be impossible (a solver decides that). It finds the deductions a careful human makes
    with a checklist and hand sizes, and the cheap contradictions ``add`` rejects at once.
    """
    possible = np.ones((kb.epochs, kb.num_cards, kb.num_locations), dtype=bool)
    cons = kb.constraints
    for c in cons:
        if isinstance(c, At):
            keep = possible[c.epoch, c.card, c.loc]
            possible[c.epoch, c.card, :] = False
            possible[c.epoch, c.card, c.loc] = keep
        elif isinstance(c, NotAt):
            possible[c.epoch, c.card, c.loc] = False
    rest = [c for c in cons if isinstance(c, (Count, AtLeastOne, NotAll, Transfer, CountEver))]
    for _ in range(max_rounds):
        if not possible.any(axis=2).all():
            e, card = np.argwhere(~possible.any(axis=2))[0]
            return Propagation(possible, f"card {kb.deck[int(card)].name} has no possible location")
        changed = False
        for c in rest:
            if isinstance(c, Transfer):
                reason, moved = _propagate_transfer(kb, c, possible)
                if reason is not None:
                    return Propagation(possible, reason)
                changed |= moved
                continue
            if isinstance(c, CountEver):
                reason, moved = _propagate_count_ever(kb, c, possible)
                if reason is not None:
                    return Propagation(possible, reason)
                changed |= moved
                continue
            p = possible[c.epoch]
            if isinstance(c, Count):
                cards = np.asarray(c.cards, dtype=int)
                col = p[cards, c.loc] if len(cards) else np.zeros(0, bool)
                forced_mask = col & (p[cards].sum(axis=1) == 1)
                can, must = int(col.sum()), int(forced_mask.sum())
                if c.op in (Op.EQ, Op.LE) and must > c.n:
                    return Propagation(possible, f"{kb.describe(c)}: {must} cards are already there")
                if c.op in (Op.EQ, Op.GE) and can < c.n:
                    return Propagation(possible, f"{kb.describe(c)}: only {can} cards can be there")
                if c.op in (Op.EQ, Op.GE) and can == c.n and can > must:
                    for card in cards[col & ~forced_mask]:
                        p[card, :] = False
                        p[card, c.loc] = True
                    changed = True
                if c.op in (Op.EQ, Op.LE) and must == c.n and can > must:
                    p[cards[col & ~forced_mask], c.loc] = False
                    changed = True
            elif isinstance(c, AtLeastOne):
                cards = np.asarray(c.cards, dtype=int)
                col = p[cards, c.loc]
                if not col.any():
                    return Propagation(possible, f"{kb.describe(c)}: none of the cards can be there")
                if col.sum() == 1:
                    card = cards[col][0]
                    if p[card].sum() > 1:
                        p[card, :] = False
                        p[card, c.loc] = True
                        changed = True
            elif isinstance(c, NotAll):
                open_pairs = []
                failed = False
                for card, z in c.pairs:
                    if not p[card, z]:
                        failed = True
                        break
                    if p[card].sum() > 1:
                        open_pairs.append((card, z))
                if failed:
                    continue
                if not open_pairs:
                    return Propagation(possible, f"{kb.describe(c)}: all of them hold")
                if len(open_pairs) == 1:
                    card, z = open_pairs[0]
                    p[card, z] = False
                    changed = True
        if not changed:
            break
    if not possible.any(axis=2).all():
        e, card = np.argwhere(~possible.any(axis=2))[0]
        return Propagation(possible, f"card {kb.deck[int(card)].name} has no possible location")
    return Propagation(possible, None)


def _propagate_transfer(kb: KnowledgeBase, c: Transfer, possible: np.ndarray) -> tuple[str | None, bool]:
    """Carry what is known across one transfer, both ways (sound, incomplete).

    A card can be at ``z`` after the transfer only if it was at ``z`` before (it stayed) or
    at some ``src`` with a listed move ``src -> z`` (and symmetrically backwards); a move that
    fewer than ``k`` cards can make is a contradiction, and one that exactly ``k`` can make
    forces those cards to make it.
    """
    before, after = possible[c.epoch], possible[c.epoch + 1]
    moves = [(s, d, k) for s, d, k in c.moves]
    live = [(s, d) for s, d, k in moves if k > 0]
    reach_after = before.copy()
    reach_before = after.copy()
    for s, d in live:
        reach_after[:, d] |= before[:, s]
        reach_before[:, s] |= after[:, d]
    new_after = after & reach_after
    new_before = before & reach_before
    for s, d, k in moves:
        if k == 0:
            continue
        can = new_before[:, s] & new_after[:, d]
        n_can = int(can.sum())
        if n_can < k:
            return f"{kb.describe(c)}: only {n_can} cards can go from {kb.locations[s]} to {kb.locations[d]}", False
        if n_can == k:
            new_before[can] = False
            new_before[can, s] = True
            new_after[can] = False
            new_after[can, d] = True
    changed = not (np.array_equal(new_after, after) and np.array_equal(new_before, before))
    possible[c.epoch] = new_before
    possible[c.epoch + 1] = new_after
    return None, changed


def _propagate_count_ever(kb: KnowledgeBase, c: CountEver, possible: np.ndarray) -> tuple[str | None, bool]:
    """Bounds for a history count (sound, incomplete).

    A card *can* count if some listed epoch still allows one of ``locs``; it *must* count if
    some listed epoch allows nothing else. Too few possible or too many forced is a
    contradiction; when the forced ones already reach ``n`` (``==``/``<=``) the others are
    never there; when only ``n`` can count (``==``/``>=``) and a card has a single epoch and
    location left to count in, it is there.
    """
    if not c.cards:
        return (None if c.op.compare(0, c.n) else f"{kb.describe(c)}: no cards"), False
    cards = np.asarray(c.cards, dtype=int)
    epochs = np.asarray(c.epochs, dtype=int)
    locs = np.asarray(c.locs, dtype=int)
    sub = possible[np.ix_(epochs, cards)]  # [epoch, card, loc]
    at = sub[:, :, locs]
    can_cell = at.any(axis=2)  # [epoch, card]
    can = can_cell.any(axis=0)
    only_there = can_cell & (sub.sum(axis=2) == at.sum(axis=2))
    must = only_there.any(axis=0)
    n_can, n_must = int(can.sum()), int(must.sum())
    if c.op in (Op.EQ, Op.LE) and n_must > c.n:
        return f"{kb.describe(c)}: {n_must} cards were certainly there", False
    if c.op in (Op.EQ, Op.GE) and n_can < c.n:
        return f"{kb.describe(c)}: only {n_can} cards can have been there", False
    changed = False
    if c.op in (Op.EQ, Op.LE) and n_must == c.n and n_can > n_must:
        for card in cards[can & ~must]:
            for e in epochs:
                if possible[e, card, locs].any():
                    possible[e, card, locs] = False
                    changed = True
    if c.op in (Op.EQ, Op.GE) and n_can == c.n and n_can > n_must:
        for i in np.flatnonzero(can & ~must):
            cells = np.argwhere(at[:, i, :])
            if len(cells) == 1:
                e, z = int(epochs[cells[0][0]]), int(locs[cells[0][1]])
                card = int(cards[i])
                possible[e, card, :] = False
                possible[e, card, z] = True
                changed = True
    return None, changed
