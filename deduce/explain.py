"""Why a card must (or cannot) be somewhere: minimal chains of events, in plain words.

For a fact the knowledge base entails ("Hall is bob's"), its negation is added as one more
constraint and a solver names an unsatisfiable core; the core minus the negation is a minimal
set of constraints that forces the fact. Each constraint knows its ``source`` ("event 7",
"rules"), so the chain maps back to the events that caused it.

No I/O and no solver import: the solver is a parameter (anything with ``possible(kb)`` and
``core(kb)``, e.g. ``solvers.get("cpsat")`` or ``solvers.get("auto")``). Games may pass a
``phrase`` hook that words a constraint in terms of the event that produced it ("cy showed
ann one of {Plum, Rope, Hall}"); without one, constraints are worded generically.

Where cards move between epochs (passes, exchanges, tricks: ``Transfer`` constraints), the
fact explained is where the card is *now* (the last epoch, the one ``possible`` answers for),
and the chain says when each fact held ("after event 9", "at the start") and words each move
in plain terms, with its frame rule: "ann and bob swapped 1 card and no other card moved
(event 9)".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from deduce.constraints import (
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
    "plain_phraser",
    "Cite",
    "Phrasing",
    "event_citer",
]

#: locations that are places, not people: worded "in the envelope", not "envelope holds".
DEFAULT_PLACES: Mapping[str, str] = {"envelope": "the envelope", "extra": "the leftover pile"}

#: words a constraint from its event (``None``: use the generic wording).
Phrase = Callable[[Constraint, "str | None"], "str | None"]

#: an event a chain cites, in words: ``"event 7"`` -> ``("event 7", "cy showed ann a card")``
#: (a label a person can look up in the numbered events, and the event as the rule book says
#: it; ``""`` when the event is the clause itself, such as a logged "bob does not hold Rope");
#: ``None``: cite the source as it is tagged.
Cite = Callable[[str], "tuple[str, str] | None"]


class Phrasing:
    """A wording hook (:data:`Phrase`) that also cites the events of a chain in words, so a
    person reads "(event 7: ann suggested Plum, Rope, Hall: cy showed ann a card)" rather than
    "(event 7)". It is passed wherever a ``phrase`` is, so callers need no new parameter."""

    def __init__(self, phrase: Phrase | None = None, cite: Cite | None = None) -> None:
        self.phrase, self.cite = phrase, cite

    def __call__(self, constraint: Constraint, source: str | None) -> str | None:
        return self.phrase(constraint, source) if self.phrase is not None else None


def event_citer(
    events: Sequence[Any], words: Callable[[Any], str], facts: tuple[type, ...] = ()
) -> Cite:
    """Cites ``"event N"`` as ``events[N]`` in ``words`` (a game's ``event_text`` for a seat),
    labelled as the numbered event list shows it; an event of a ``facts`` type (one that states
    a location outright) by its label alone, since the clause already says it."""

    def cite(source: str) -> tuple[str, str] | None:
        number = _event_number(source)
        if number == float("inf") or not 0 <= number < len(events):
            return None
        event = events[int(number)]
        return source, "" if isinstance(event, facts) else words(event)

    return cite


def plain_phraser(game: Any, events: Sequence[Any], you: int | None = None) -> Phrase:
    """The wording hook of a game whose constraints read well in the generic words: it words
    none of them itself, and cites each event in the game's words when its wording module is
    known (a registered game's ``text.py``)."""
    try:
        from deduce.games.registry import game_info

        wording = game_info(game.name).wording
        text = wording(game) if wording is not None else None
    except Exception:  # an unregistered game: cite events by number only
        text = None
    if text is None:
        return Phrasing()
    from deduce.games.base import Dealt

    return Phrasing(None, event_citer(events, lambda event: text.event_text(game, event, you), (Dealt,)))


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
    """``card`` is certainly at ``loc`` (``certain``) or cannot be there in ``epoch`` (the last
    one, unless asked for another), because of ``steps``."""

    card: int
    loc: int
    certain: bool
    steps: tuple[Step, ...]
    epoch: int = 0


def _core(kb: KnowledgeBase, solver: Any) -> list[int]:
    core_fn = getattr(solver, "core", None)
    if core_fn is None:
        raise NotSupported(f"solver {getattr(solver, 'name', solver)!r} cannot explain (it has no core())")
    core = list(core_fn(kb))
    if len(core) > _MINIMISE_ABOVE and hasattr(solver, "consistent"):
        core = _minimise(kb, core, solver)
    return core


def _minimise(kb: KnowledgeBase, core: list[int], solver: Any) -> list[int]:
    """Deletion-based minimisation: drop each member whose absence keeps the set unsatisfiable.

    A member whose absence the solver cannot judge is kept (dropping a move leaves two epochs
    unlinked, which solvers refuse): the chain stays sufficient, if not always the shortest."""
    kept = list(core)
    for i in list(core):
        trial = [j for j in kept if j != i]
        sub = KnowledgeBase(kb.deck, kb.locations, kb.epochs)
        sub.extend([kb.constraints[j] for j in trial], check=False)
        try:
            if not solver.consistent(sub):
                kept = trial
        except NotSupported:
            continue
    return kept


def explain_fact(
    kb: KnowledgeBase, card: int, loc: int, certain: bool, solver: CoreSolver, epoch: int | None = None
) -> Explanation:
    """Why ``card`` is certainly at ``loc`` (``certain=True``) or cannot be there (``False``)
    in ``epoch`` (default the last: where the card is now, after every move).

    Raises :class:`DeduceError` when the knowledge base does not entail the fact.
    """
    e = kb.epochs - 1 if epoch is None else int(epoch)
    if not 0 <= e < kb.epochs:
        raise DeduceError(f"epoch {epoch} is out of range: the knowledge base has epochs 0 to {kb.epochs - 1}")
    trial = kb.copy()
    negation: Constraint = NotAt(card, loc, epoch=e) if certain else At(card, loc, epoch=e)
    trial.extend([negation], source=None, check=False)
    query = len(trial.constraints) - 1
    core = _core(trial, solver)
    if query not in core:
        what = "at" if certain else "away from"
        when = " now" if kb.epochs > 1 and e == kb.epochs - 1 else f" in epoch {e}" if kb.epochs > 1 else ""
        if not core:
            raise DeduceError(
                f"{kb.deck[card].name} is not known to be {what} {kb.locations[loc]}{when}: nothing to explain"
            )
        raise DeduceError("the knowledge base is contradictory: every fact follows from it")
    steps = tuple(Step(trial.constraints[i], trial.sources[i]) for i in sorted(core) if i != query)
    return Explanation(card, loc, certain, steps, e)


def explain_card(
    kb: KnowledgeBase, card: int, solver: CoreSolver, possible: np.ndarray | None = None
) -> list[Explanation]:
    """Everything known about ``card``'s location now (the last epoch, as ``possible`` answers):
    one chain for where it certainly is, or one per location it cannot be at (empty when
    nothing is known)."""
    if possible is None:
        possible = np.asarray(solver.possible(kb), dtype=bool)
    row = np.asarray(possible[card], dtype=bool)
    if not row.any():
        raise DeduceError("the events contradict each other: no deal fits them, so nothing can be explained")
    if row.sum() == 1:
        return [explain_fact(kb, card, int(np.flatnonzero(row)[0]), True, solver)]
    return [explain_fact(kb, card, z, False, solver) for z in range(kb.num_locations) if not row[z]]


# -- words ------------------------------------------------------------------------------------
def _tag(source: str | None, cite: Cite | None = None) -> str:
    """A clause's source in brackets: the event in words when ``cite`` knows it."""
    if not source or source == "rules":
        return ""
    cited = cite(source) if cite is not None else None
    if not cited or not cited[1]:
        return f" ({cited[0] if cited else source})"
    return f" ({cited[0]}: {cited[1]})"


def _join(parts: Sequence[str], word: str = "and") -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {word} " + parts[-1]


def _kept_by(explanation: Explanation, steps: Sequence[Step]) -> list[Step]:
    """The moves of a chain that only keep a card where it certainly is (two or more, none
    taking cards from that place, every one from a numbered event); empty otherwise."""
    moves = [s for s in steps if isinstance(s.constraint, Transfer)]
    if not explanation.certain or len(moves) < 2 or not all(_event_number(s.source) < float("inf") for s in moves):
        return []
    if any(src == explanation.loc for s in moves for src, _, _ in s.constraint.moves):  # type: ignore[attr-defined]
        return []
    return moves


def _ring(moves: Sequence[tuple[int, int, int]]) -> list[int] | None:
    """The locations in order when ``moves`` pass the same number of cards once round a circle
    of three or more (every location gives to the next, the last to the first); else ``None``."""
    nxt = {a: b for a, b, _ in moves}
    if len(moves) < 3 or len({k for _, _, k in moves}) != 1 or len(nxt) != len(moves):
        return None
    start = min(nxt)
    order = [start]
    while nxt.get(order[-1]) not in (None, start):
        order.append(nxt[order[-1]])
    return order if len(order) == len(moves) and nxt.get(order[-1]) == start else None


def _cards_word(k: int) -> str:
    return f"{k} card{'s' if k != 1 else ''}"


def _event_number(source: str | None) -> float:
    match = re.fullmatch(r"event (\d+)", source or "")
    return int(match.group(1)) if match else float("inf")


class _Words:
    """Generic wording of constraints for one knowledge base."""

    def __init__(self, kb: KnowledgeBase, places: Mapping[str, str], cite: Cite | None = None) -> None:
        self.kb = kb
        self.cite = cite
        self.places = {kb.locations.index(z): text for z, text in places.items() if z in kb.locations}
        #: the source of the move that starts each epoch ("event 9"), for "after event 9"
        self.moved_by: dict[int, str | None] = {
            c.epoch + 1: src for c, src in zip(kb.constraints, kb.sources, strict=True) if isinstance(c, Transfer)
        }

    def when(self, epoch: int) -> tuple[str, str | None]:
        """When a fact of ``epoch`` held, as a suffix (" after event 9", " at the start"; empty
        without epochs), and the source it names (a step with that source needs no tag)."""
        if self.kb.epochs == 1:
            return "", None
        if epoch == 0:
            return " at the start", None
        source = self.moved_by.get(epoch)
        if source and source.startswith("event "):
            return f" after {source}", source
        return f" after move {epoch}", None

    def who(self, z: int) -> str:
        """A location as the subject of a move: a person's name or a place's words."""
        return self.loc(z)

    def transfer(self, t: Transfer) -> str:
        """A move between epochs in words, frame rule included: "ann and bob swapped 1 card and
        no other card moved"; "ann, bob and cy each put 1 card in the open cards and ..."."""
        moves = t.pairs()
        done: set[tuple[int, int]] = set()
        parts: list[str] = []
        for (a, b), k in moves.items():
            if (a, b) not in done and a < b and moves.get((b, a)) == k:
                parts.append(f"{self.who(a)} and {self.who(b)} swapped {_cards_word(k)}")
                done |= {(a, b), (b, a)}
        to_place: dict[tuple[int, int], list[int]] = {}
        for (a, b), k in moves.items():
            if (a, b) not in done and self.is_place(b):
                to_place.setdefault((b, k), []).append(a)
                done.add((a, b))
        for (b, k), srcs in to_place.items():
            each = " each" if len(srcs) > 1 else ""
            parts.append(f"{_join([self.who(a) for a in srcs])}{each} put {_cards_word(k)} in {self.loc(b)}")
        passes = [(a, b, k) for (a, b), k in moves.items() if (a, b) not in done]
        ring = _ring(passes)
        if ring is not None:  # a pass round the table: "ann, bob and cy each passed 1 card to the next"
            names = [self.who(z) for z in ring]
            parts.append(f"{_join(names)} each passed {_cards_word(passes[0][2])} to the next "
                         f"({names[-1]} to {names[0]})")
            passes = []
        for i, (a, b, k) in enumerate(passes):
            amount = _cards_word(k) if i == 0 else str(k)
            parts.append(f"{self.who(a)} {'passed ' if i == 0 else ''}{amount} to {self.who(b)}")
        return _join(parts) + " and no other card moved"

    def count_ever(self, c: CountEver) -> str:
        """A history count ("bob had held 19 different cards so far")."""
        quantity = {Op.EQ: "", Op.LE: "at most ", Op.GE: "at least "}[c.op]
        people = [self.kb.locations[z] for z in c.locs if not self.is_place(z)]
        spots = [self.loc(z) for z in c.locs if self.is_place(z)]
        if len(c.cards) == self.kb.num_cards and len(people) == 1 and not spots:
            return f"{people[0]} had held {quantity}{c.n} different cards so far"
        where = ([f"with {_join(people, 'or')}"] if people else []) + ([f"in {_join(spots, 'or')}"] if spots else [])
        return f"{quantity}{c.n} of {self.cards(c.cards)} had been {' or '.join(where)} so far"

    def card(self, c: int) -> str:
        return self.kb.deck[c].name

    def tag(self, source: str | None) -> str:
        return _tag(source, self.cite)

    def cards(self, cards: Sequence[int]) -> str:
        return "{" + ", ".join(self.card(c) for c in cards) + "}"

    def is_place(self, z: int) -> bool:
        return z in self.places

    def loc(self, z: int) -> str:
        return self.places.get(z, self.kb.locations[z])

    def headline(self, e: Explanation) -> str:
        name, z = self.card(e.card), e.loc
        now = " now" if self.kb.epochs > 1 and e.epoch == self.kb.epochs - 1 else ""
        if self.is_place(z):
            return f"{name} is {'' if e.certain else 'not '}in {self.loc(z)}{now}"
        return f"{name} is {'' if e.certain else 'not '}{self.kb.locations[z]}'s{now}"

    def at(self, items: list[tuple[int, str | None]], z: int, epoch: int = 0) -> str:
        """``items``: (card, source) pairs at one location in one epoch, one clause."""
        items, when = self._timed(items, epoch)
        body = self._listed(items, "and")
        if self.is_place(z):
            verb = "is" if len(items) == 1 else "are"
            return f"{body} {verb} in {self.loc(z)}{when}"
        return f"{self.kb.locations[z]} holds {body}{when}"

    def not_at(self, items: list[tuple[int, str | None]], z: int, epoch: int = 0) -> str:
        items, when = self._timed(items, epoch)
        if self.is_place(z):
            if len(items) == 1:
                return f"{self._listed(items, 'and')} is not in {self.loc(z)}{when}"
            return f"neither {self._listed(items, 'nor')} is in {self.loc(z)}{when}"
        who = self.kb.locations[z]
        if len(items) == 1:
            return f"{who} does not hold {self._listed(items, 'and')}{when}"
        if len(items) == 2:
            return f"{who} holds neither {self._listed(items, 'nor')}{when}"
        return f"{who} holds none of {self._listed(items, 'and')}{when}"

    def _timed(
        self, items: list[tuple[int, str | None]], epoch: int
    ) -> tuple[list[tuple[int, str | None]], str]:
        """The clause's time suffix, with the source after it when every card shares one
        ("ann holds 101 at the start (event 1)"); a source the time already names is dropped."""
        when, named = self.when(epoch)
        sources = {source for _, source in items}
        if when and len(sources) == 1:
            source = sources.pop()
            return [(card, None) for card, _ in items], when + ("" if source == named else self.tag(source))
        return [(card, None if source == named else source) for card, source in items], when

    def _listed(self, items: list[tuple[int, str | None]], word: str) -> str:
        """Cards with their sources; a source shared by consecutive cards is said once, after
        the last of them: "Plum (event 3) nor Rope (event 9)", "Plum and Rope (event 3)"."""
        parts: list[str] = []
        for i, (card, source) in enumerate(items):
            last_of_run = i == len(items) - 1 or items[i + 1][1] != source
            parts.append(self.card(card) + (self.tag(source) if last_of_run else ""))
        return _join(parts, word)

    def constraint(self, c: Constraint) -> str:
        """One constraint in words, without its source."""
        kb = self.kb
        if isinstance(c, At):
            return self.at([(c.card, None)], c.loc, c.epoch)
        if isinstance(c, NotAt):
            return self.not_at([(c.card, None)], c.loc, c.epoch)
        if isinstance(c, Transfer):
            return self.transfer(c)
        if isinstance(c, CountEver):
            return self.count_ever(c)
        if isinstance(c, AtLeastOne):
            who, when = self.loc(c.loc), self.when(c.epoch)[0]
            if self.is_place(c.loc):
                return f"at least one of {self.cards(c.cards)} is in {who}{when}"
            return f"{who} holds at least one of {self.cards(c.cards)}{when}"
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
        return self._count(c) + self.when(c.epoch)[0]

    def _count(self, c: Count) -> str:
        kb = self.kb
        quantity = {Op.EQ: "", Op.LE: "at most ", Op.GE: "at least "}[c.op]
        holder = self.loc(c.loc)
        verb = "holds"
        if len(c.cards) == kb.num_cards:
            unit = "card" if c.n == 1 else "cards"
            if self.is_place(c.loc):  # "the melds holds 0 cards" reads wrong
                return f"{quantity}{c.n} {unit} {'is' if c.n == 1 and not quantity else 'are'} in {holder}"
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
    """One explanation as a sentence: "Hall is bob's: cy showed ann one of {...} (event 7: ann
    suggested ...); ..." (events cited in words when ``phrase`` is a :class:`Phrasing` that cites)."""
    words = _Words(kb, places, getattr(phrase, "cite", None))
    ordered = sorted(explanation.steps, key=lambda s: _event_number(s.source))
    clauses: list[tuple[float, str]] = []
    kept = _kept_by(explanation, ordered)
    if kept:  # moves that only keep the card where it is: one clause, not one per move
        ordered = [s for s in ordered if s not in kept]
        where = f"out of {words.loc(explanation.loc)}" if words.is_place(explanation.loc) else \
            f"from {kb.locations[explanation.loc]}"
        events = _join([s.source[len("event "):] for s in kept if s.source])
        clauses.append((_event_number(kept[0].source), f"no move took a card {where} (events {events})"))
    groups: dict[tuple[str, int, int], list[tuple[int, str | None]]] = {}
    group_pos: dict[tuple[str, int, int], float] = {}
    for step in ordered:
        c = step.constraint
        text = phrase(c, step.source) if phrase is not None else None
        if text is None and isinstance(c, At | NotAt):
            key = (type(c).__name__, c.loc, c.epoch)
            groups.setdefault(key, []).append((c.card, step.source))
            group_pos.setdefault(key, _event_number(step.source))
            continue
        if text is None:
            text = words.constraint(c)
        named = words.when(c.epoch)[1] if isinstance(c, Count | AtLeastOne) else None
        clauses.append((_event_number(step.source), text + ("" if step.source == named else words.tag(step.source))))
    for key, items in groups.items():
        kind, z, epoch = key
        text = words.at(items, z, epoch) if kind == "At" else words.not_at(items, z, epoch)
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
