"""Why a card must (or cannot) be somewhere: minimal chains of events, in plain words.

For a fact the knowledge base entails ("Hall is bob's"), its negation is added as one more
constraint and a solver names an unsatisfiable core; the core minus the negation is a minimal
set of constraints that forces the fact. Each constraint knows its ``source`` ("event 7",
"rules"), so the chain maps back to the events that caused it.

No I/O and no solver import: the solver is a parameter (anything with ``possible(kb)`` and
``core(kb)``, e.g. ``solvers.get("cpsat")`` or ``solvers.get("auto")``). Games may pass a
``phrase`` hook that words a constraint in terms of the event that produced it ("cy showed
ann one of {Plum, Rope, Hall}"); without one, constraints are worded generically.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt, Op
from deduce.errors import DeduceError, NotSupported
from deduce.knowledge import KnowledgeBase

__all__ = [
    "Step",
    "Explanation",
    "CoreSolver",
    "Phrase",
    "explain_fact",
    "explain_card",
    "render",
    "why",
    "DEFAULT_PLACES",
]

#: locations that are places, not people: worded "in the envelope", not "envelope holds".
DEFAULT_PLACES: Mapping[str, str] = {"envelope": "the envelope", "extra": "the leftover pile"}

#: words a constraint from its event (``None``: use the generic wording).
Phrase = Callable[[Constraint, "str | None"], "str | None"]

#: above this many members a core is minimised here (CP-SAT minimises smaller ones itself).
_MINIMISE_ABOVE = 60


class CoreSolver(Protocol):
    """What explanations need from a solver."""

    def possible(self, kb: KnowledgeBase) -> np.ndarray: ...

    def core(self, kb: KnowledgeBase) -> list[int]: ...


@dataclass(frozen=True)
class Step:
    """One constraint of a chain and where it came from ("event 7", "rules", None)."""

    constraint: Constraint
    source: str | None


@dataclass(frozen=True)
class Explanation:
    """``card`` is certainly at ``loc`` (``certain``) or cannot be there, because of ``steps``."""

    card: int
    loc: int
    certain: bool
    steps: tuple[Step, ...]


def _core(kb: KnowledgeBase, solver: Any) -> list[int]:
    core_fn = getattr(solver, "core", None)
    if core_fn is None:
        raise NotSupported(f"solver {getattr(solver, 'name', solver)!r} cannot explain (it has no core())")
    core = list(core_fn(kb))
    if len(core) > _MINIMISE_ABOVE and hasattr(solver, "consistent"):
        core = _minimise(kb, core, solver)
    return core


def _minimise(kb: KnowledgeBase, core: list[int], solver: Any) -> list[int]:
    """Deletion-based minimisation: drop each member whose absence keeps the set unsatisfiable."""
    kept = list(core)
    for i in list(core):
        trial = [j for j in kept if j != i]
        sub = KnowledgeBase(kb.deck, kb.locations, kb.epochs)
        sub.extend([kb.constraints[j] for j in trial], check=False)
        if not solver.consistent(sub):
            kept = trial
    return kept


def explain_fact(kb: KnowledgeBase, card: int, loc: int, certain: bool, solver: CoreSolver) -> Explanation:
    """Why ``card`` is certainly at ``loc`` (``certain=True``) or cannot be there (``False``).

    Raises :class:`DeduceError` when the knowledge base does not entail the fact.
    """
    trial = kb.copy()
    negation: Constraint = NotAt(card, loc) if certain else At(card, loc)
    trial.extend([negation], source=None, check=False)
    query = len(trial.constraints) - 1
    core = _core(trial, solver)
    if query not in core:
        what = "at" if certain else "away from"
        if not core:
            raise DeduceError(
                f"{kb.deck[card].name} is not known to be {what} {kb.locations[loc]}: nothing to explain"
            )
        raise DeduceError("the knowledge base is contradictory: every fact follows from it")
    steps = tuple(Step(trial.constraints[i], trial.sources[i]) for i in sorted(core) if i != query)
    return Explanation(card, loc, certain, steps)


def explain_card(
    kb: KnowledgeBase, card: int, solver: CoreSolver, possible: np.ndarray | None = None
) -> list[Explanation]:
    """Everything known about ``card``'s location: one chain for where it certainly is, or one
    per location it cannot be at (empty when nothing is known)."""
    if possible is None:
        possible = np.asarray(solver.possible(kb), dtype=bool)
    row = np.asarray(possible[card], dtype=bool)
    if not row.any():
        raise DeduceError("the events contradict each other: no deal fits them, so nothing can be explained")
    if row.sum() == 1:
        return [explain_fact(kb, card, int(np.flatnonzero(row)[0]), True, solver)]
    return [explain_fact(kb, card, z, False, solver) for z in range(kb.num_locations) if not row[z]]


# -- words ------------------------------------------------------------------------------------
def _tag(source: str | None) -> str:
    return f" ({source})" if source and source != "rules" else ""


def _join(parts: Sequence[str], word: str = "and") -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {word} " + parts[-1]


def _event_number(source: str | None) -> float:
    match = re.fullmatch(r"event (\d+)", source or "")
    return int(match.group(1)) if match else float("inf")


class _Words:
    """Generic wording of constraints for one knowledge base."""

    def __init__(self, kb: KnowledgeBase, places: Mapping[str, str]) -> None:
        self.kb = kb
        self.places = {kb.locations.index(z): text for z, text in places.items() if z in kb.locations}

    def card(self, c: int) -> str:
        return self.kb.deck[c].name

    def cards(self, cards: Sequence[int]) -> str:
        return "{" + ", ".join(self.card(c) for c in cards) + "}"

    def is_place(self, z: int) -> bool:
        return z in self.places

    def loc(self, z: int) -> str:
        return self.places.get(z, self.kb.locations[z])

    def headline(self, e: Explanation) -> str:
        name, z = self.card(e.card), e.loc
        if self.is_place(z):
            return f"{name} is {'' if e.certain else 'not '}in {self.loc(z)}"
        return f"{name} is {'' if e.certain else 'not '}{self.kb.locations[z]}'s"

    def at(self, items: list[tuple[int, str | None]], z: int) -> str:
        """``items``: (card, source) pairs at one location, one clause."""
        body = self._listed(items, "and")
        if self.is_place(z):
            verb = "is" if len(items) == 1 else "are"
            return f"{body} {verb} in {self.loc(z)}"
        return f"{self.kb.locations[z]} holds {body}"

    def not_at(self, items: list[tuple[int, str | None]], z: int) -> str:
        if self.is_place(z):
            if len(items) == 1:
                return f"{self._listed(items, 'and')} is not in {self.loc(z)}"
            return f"neither {self._listed(items, 'nor')} is in {self.loc(z)}"
        who = self.kb.locations[z]
        if len(items) == 1:
            return f"{who} does not hold {self._listed(items, 'and')}"
        if len(items) == 2:
            return f"{who} holds neither {self._listed(items, 'nor')}"
        return f"{who} holds none of {self._listed(items, 'and')}"

    def _listed(self, items: list[tuple[int, str | None]], word: str) -> str:
        """Cards with their sources; a source shared by consecutive cards is said once, after
        the last of them: "Plum (event 3) nor Rope (event 9)", "Plum and Rope (event 3)"."""
        parts: list[str] = []
        for i, (card, source) in enumerate(items):
            last_of_run = i == len(items) - 1 or items[i + 1][1] != source
            parts.append(self.card(card) + (_tag(source) if last_of_run else ""))
        return _join(parts, word)

    def constraint(self, c: Constraint) -> str:
        """One constraint in words, without its source."""
        kb = self.kb
        if isinstance(c, At):
            return self.at([(c.card, None)], c.loc)
        if isinstance(c, NotAt):
            return self.not_at([(c.card, None)], c.loc)
        if isinstance(c, AtLeastOne):
            who = self.loc(c.loc)
            if self.is_place(c.loc):
                return f"at least one of {self.cards(c.cards)} is in {who}"
            return f"{who} holds at least one of {self.cards(c.cards)}"
        if isinstance(c, Count):
            return self.count(c)
        if isinstance(c, NotAll):
            locs = {z for _, z in c.pairs}
            if len(locs) == 1:
                z = next(iter(locs))
                names = self.cards([k for k, _ in c.pairs])
                if self.is_place(z):
                    return f"not all of {names} are in {self.loc(z)}"
                return f"{kb.locations[z]} does not hold all of {names}"
            inner = ", ".join(f"{self.card(k)} at {self.loc(z)}" for k, z in c.pairs)
            return f"not all of these hold: {inner}"
        return kb.describe(c)

    def count(self, c: Count) -> str:
        kb = self.kb
        quantity = {Op.EQ: "", Op.LE: "at most ", Op.GE: "at least "}[c.op]
        holder = self.loc(c.loc)
        verb = "holds"
        if len(c.cards) == kb.num_cards:
            unit = "card" if c.n == 1 else "cards"
            return f"{holder} {verb} {quantity}{c.n} {unit}"
        for category in kb.deck.categories:
            members = tuple(card.id for card in kb.deck.in_category(category))
            if members == c.cards:
                amount = "one" if c.n == 1 and not quantity else f"{quantity}{c.n}"
                noun = category if c.n == 1 else f"{category}s"
                return f"{holder} {verb} {amount} {noun}"
        if c.n == 0 and c.op in (Op.EQ, Op.LE):
            return f"{holder} {verb} none of {self.cards(c.cards)}"
        return f"{holder} {verb} {quantity or 'exactly '}{c.n} of {self.cards(c.cards)}"


def render(
    kb: KnowledgeBase,
    explanation: Explanation,
    phrase: Phrase | None = None,
    places: Mapping[str, str] = DEFAULT_PLACES,
) -> str:
    """One explanation as a sentence: "Hall is bob's: cy showed ann one of {...} (event 7); ..."."""
    words = _Words(kb, places)
    ordered = sorted(explanation.steps, key=lambda s: _event_number(s.source))
    clauses: list[tuple[float, str]] = []
    groups: dict[tuple[str, int], list[tuple[int, str | None]]] = {}
    group_pos: dict[tuple[str, int], float] = {}
    for step in ordered:
        c = step.constraint
        text = phrase(c, step.source) if phrase is not None else None
        if text is None and isinstance(c, At | NotAt) and c.epoch == 0:
            key = (type(c).__name__, c.loc)
            groups.setdefault(key, []).append((c.card, step.source))
            group_pos.setdefault(key, _event_number(step.source))
            continue
        if text is None:
            text = words.constraint(c)
        clauses.append((_event_number(step.source), text + _tag(step.source)))
    for key, items in groups.items():
        kind, z = key
        text = words.at(items, z) if kind == "At" else words.not_at(items, z)
        clauses.append((group_pos[key], text))
    clauses.sort(key=lambda item: item[0])
    head = words.headline(explanation)
    if not clauses:
        return head + "."
    return head + ": " + "; ".join(text for _, text in clauses) + "."


def why(
    kb: KnowledgeBase,
    card: int,
    solver: CoreSolver,
    phrase: Phrase | None = None,
    places: Mapping[str, str] = DEFAULT_PLACES,
) -> str:
    """Everything known about one card's location, explained; several lines when the card is
    only ruled out of some places."""
    possible = np.asarray(solver.possible(kb), dtype=bool)
    explanations = explain_card(kb, card, solver, possible)
    words = _Words(kb, places)
    name = kb.deck[card].name
    lines: list[str] = []
    if not explanations or not explanations[0].certain:
        zs = [int(z) for z in np.flatnonzero(possible[card])]
        people = [kb.locations[z] for z in zs if not words.is_place(z)]
        spots = [words.loc(z) for z in zs if words.is_place(z)]
        where = ([f"with {_join(people, 'or')}"] if people else []) + ([f"in {_join(spots, 'or')}"] if spots else [])
        lines.append(f"{name} may still be {', or '.join(where)}" if where else f"{name} can be nowhere")
        if not explanations:
            lines[-1] += "; nothing rules any of these out yet."
        else:
            lines[-1] += "."
    lines += [render(kb, e, phrase, places) for e in explanations]
    return "\n".join(lines)
