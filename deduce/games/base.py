"""The shape every game module shares (OpenSpiel-like, Pythonic).

A game module defines ``XConfig`` (frozen; every ``DEFAULT`` of RULES.md is a field), ``XGame``
(rules and the mapping from an observation to a knowledge base), ``XState`` (the truth, private
to the engine), and its ``Action`` and ``Event`` dataclasses. Events say who sees what: an event
is public, private to a set of players, or public that it happened with private content; each
event's :meth:`Event.view` returns what one player sees of it (or ``None``).
"""

from __future__ import annotations

import abc
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from deduce.constraints import Constraint
from deduce.errors import IllegalAction, InvalidConfig, NotSupported
from deduce.knowledge import KnowledgeBase

if TYPE_CHECKING:  # deduce.actions imports this module
    from deduce.actions import ActionIndex

__all__ = [
    "Action",
    "ActionSet",
    "LegalActions",
    "sample_action",
    "Event",
    "Dealt",
    "Observation",
    "Game",
    "State",
    "GameInfo",
    "LogFormat",
    "Wording",
    "PUBLIC",
    "own_observation",
    "placement_problem",
]

PUBLIC: frozenset[int] | None = None


@dataclass(frozen=True)
class Action:
    """Base class of every game's actions (small frozen values, hashable)."""


class ActionSet(Protocol):
    """A structured block of legal actions too large to list (Alibi's hypothesis questions:
    a target, a family and one card per category, about a million per turn): described by
    per-component choices, so a sampler draws from it and a learning wrapper offers it one
    component at a time, and nobody walks it action by action."""

    #: how many actions it enumerates (``unrank`` takes ``0 .. size-1``).
    size: int

    def __contains__(self, action: object) -> bool:
        """Whether ``action`` is legal by this block's rule (it may accept more than it enumerates)."""
        ...

    def unrank(self, index: int) -> Action:
        """The enumerated action number ``index``."""
        ...

    def components(self) -> tuple[tuple[str, int], ...]:
        """``(name, number of choices)`` of each component, in order."""
        ...

    def build(self, parts: Sequence[int]) -> Action | None:
        """The action of one choice per component (``None``: no legal action has these parts)."""
        ...


class LegalActions(tuple):  # type: ignore[type-arg]
    """The actions a player may take now: a tuple of the *listed* ones (every game's menu,
    walked, indexed and compared as before) plus ``structured`` blocks (:class:`ActionSet`)
    that are legal but never listed one by one.

    ``action in legal`` and :meth:`sample` cover both parts (``sample`` is uniform over all
    :attr:`total` actions); ``len``, iteration and indexing cover the listed part only, so code
    that walks a menu stays fast. Without structured blocks it is an ordinary tuple (equal to
    the list or tuple of the same actions).
    """

    structured: tuple[ActionSet, ...]

    def __new__(cls, listed: Sequence[Action] = (), structured: Sequence[ActionSet] = ()) -> LegalActions:
        self = super().__new__(cls, listed)
        self.structured = tuple(structured)
        return self

    def __getnewargs__(self) -> tuple[tuple[Action, ...]]:  # pickling: the listed part; ``structured`` is state
        return (tuple(self),)

    @property
    def listed(self) -> tuple[Action, ...]:
        """The explicitly listed actions (a plain tuple)."""
        return tuple(self)

    @property
    def total(self) -> int:
        """How many legal actions there are, listed and structured."""
        return len(self) + sum(s.size for s in self.structured)

    def __contains__(self, action: object) -> bool:
        return tuple.__contains__(self, action) or any(action in s for s in self.structured)

    def __bool__(self) -> bool:  # a decision with only structured actions is still a decision
        return len(self) > 0 or any(s.size for s in self.structured)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return tuple.__eq__(self, other) is True and self.structured == other.structured
        if isinstance(other, list | tuple):
            return not any(s.size for s in self.structured) and tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        if not self.structured:
            return f"LegalActions({tuple(self)!r})"
        return f"LegalActions({tuple(self)!r}, structured={self.structured!r})"

    def every(self) -> Iterator[Action]:
        """Every legal action, listed then structured (slow for a large structured part)."""
        yield from self
        for s in self.structured:
            for i in range(s.size):
                yield s.unrank(i)

    def sample(self, rng: np.random.Generator) -> Action:
        """One legal action drawn uniformly from all :attr:`total` (listed or structured); with
        no structured part the draw is ``self[rng.integers(len(self))]``, as agents always drew."""
        index = int(rng.integers(self.total))
        if index < len(self):
            return self[index]
        index -= len(self)
        for s in self.structured:
            if index < s.size:
                return s.unrank(index)
            index -= s.size
        raise IndexError("no legal action to sample")


def sample_action(actions: Sequence[Action], rng: np.random.Generator) -> Action:
    """A uniformly random legal action: :meth:`LegalActions.sample` for a structured menu,
    else ``actions[rng.integers(len(actions))]`` (the draw every agent makes on a list)."""
    if isinstance(actions, LegalActions):
        return actions.sample(rng)
    return actions[int(rng.integers(len(actions)))]


@dataclass(frozen=True)
class Event:
    """Something that happened. Subclasses override :meth:`view` to hide private content."""

    kind: ClassVar[str] = "event"

    def view(self, player: int | None) -> Event | None:
        """What ``player`` sees of this event (``None``: nothing). ``None`` player = spectator."""
        return self

    def to_json(self, names: Sequence[str], deck: Any) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class Dealt(Event):
    """``player`` holds ``cards``: private to that player (every card game's deal)."""

    player: int
    cards: tuple[int, ...]
    kind: ClassVar[str] = "hand"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else None


@dataclass(frozen=True)
class Observation:
    """What one player has seen: immutable, and holding no reference to the state.

    ``events`` are the player's views of every event so far; ``legal_actions`` are the
    actions this player may take now (empty when it is not this player's decision): a tuple,
    or a :class:`LegalActions` when some of them are structured rather than listed.

    Every game fills ``names``, and every game played with a hand of cards fills ``hand`` and
    ``hand_sizes``; a game's own observation adds what else its players see. Defaults: ``names``
    empty (only an observation built by hand lacks them: seats are then ``p0``, ``p1``, ...);
    ``hand`` empty for a spectator (``player=None``) and in a game without hands (Checkpoint
    Charlie, whose players hold no cards: it leaves ``hand`` and ``hand_sizes`` empty).
    """

    game: str
    player: int | None
    num_players: int
    events: tuple[Event, ...]
    current_player: int
    legal_actions: tuple[Action, ...]
    terminal: bool
    #: seat names, by seat (the names in logs and in knowledge-base locations).
    names: tuple[str, ...] = ()
    #: the observer's own cards now (card ids, sorted).
    hand: tuple[int, ...] = ()
    #: how many cards each seat holds now (public), by seat.
    hand_sizes: tuple[int, ...] = ()

    @property
    def acting(self) -> bool:
        return bool(self.legal_actions)


ObservationT = TypeVar("ObservationT", bound=Observation)


def own_observation(observation: Observation, cls: type[ObservationT], where: str) -> ObservationT:
    """``observation`` if it is a ``cls`` (a game's own observation type); otherwise
    :class:`~deduce.errors.InvalidConfig` naming what ``where`` was given instead."""
    if not isinstance(observation, cls):
        given = type(observation).__name__
        raise InvalidConfig("observation", given, f"{where} takes a {cls.__name__}")
    return observation


def placement_problem(ids: Sequence[int], count: int, what: str = "card") -> str:
    """Why ``ids`` is not every id ``0..count-1`` exactly once, in words (``""`` when it is):
    the check of every deal given by a caller (``what``: "card", "suspect", ...)."""
    counts = Counter(int(c) for c in ids)
    parts = []
    strange = sorted(c for c in counts if not 0 <= c < count)
    if strange:
        parts.append(f"no {what} has id {', '.join(map(str, strange))}")
    twice = sorted(c for c, k in counts.items() if k > 1 and 0 <= c < count)
    if twice:
        parts.append(f"{what} {', '.join(map(str, twice))} placed more than once")
    missing = [c for c in range(count) if c not in counts]
    if missing:
        parts.append(f"{what} {', '.join(map(str, missing))} placed nowhere")
    return "; ".join(parts)


ConfigT = TypeVar("ConfigT")


class Game(abc.ABC, Generic[ConfigT]):
    """The rules of one game with one configuration."""

    name: ClassVar[str]
    config_class: ClassVar[type]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: ``None`` when :meth:`knowledge` is exactly what the observer knows; otherwise why its
    #: worlds are only a sound relaxation (counts over it are then not the true posterior).
    knowledge_relaxed: ClassVar[str | None] = None

    def __init__(self, config: ConfigT | None = None, **fields: Any) -> None:
        """Build from a config value, or from its fields (``XGame(num_players=4)``)."""
        if config is None:
            config = self.config_class(**fields)
        elif fields:
            raise TypeError(f"pass either a {self.config_class.__name__} or keyword fields, not both")
        self.config: ConfigT = config

    @property
    def num_players(self) -> int:
        return self.config.num_players  # type: ignore[attr-defined]

    @abc.abstractmethod
    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> State:
        """A new game, dealt with a generator seeded by the caller."""

    @abc.abstractmethod
    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The knowledge base of what the observing player has seen (constraints, no solving)."""

    def event_constraints(self, kb: KnowledgeBase, event: Event) -> list[Constraint]:
        """The constraints one viewed event adds to ``kb``: only for games whose record declares
        ``incremental`` knowledge (the others build theirs from the whole history)."""
        raise NotSupported(f"{self.name}: knowledge is built from the whole history, not event by event")

    def covered_events(self, events: Sequence[Event]) -> tuple[Event, ...]:
        """The events :meth:`knowledge` is built from: all of them, unless a game's knowledge
        restarts (a new round, a new game of a match) and covers only the latest part."""
        return tuple(events)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"


class State(abc.ABC):
    """The truth of one game in progress. Agents never see this; they get observations."""

    TERMINAL: ClassVar[int] = -1

    def __init__(self, game: Game) -> None:
        self.game = game
        self._events: list[Event] = []

    @property
    @abc.abstractmethod
    def current_player(self) -> int:
        """The seat that must act now, or ``State.TERMINAL``."""

    @abc.abstractmethod
    def legal_actions(self, player: int | None = None) -> Sequence[Action]:
        """Actions the current player (or ``player``) may take now: a list, or a
        :class:`LegalActions` whose structured part is legal without being listed."""

    @abc.abstractmethod
    def _apply(self, action: Action) -> list[Event]:
        """Carry out a legal action; return the events it caused."""

    @abc.abstractmethod
    def is_terminal(self) -> bool: ...

    @abc.abstractmethod
    def returns(self) -> list[float]:
        """Final score per seat (1 for a winner, 0 otherwise, unless a game scores points)."""

    def winners(self) -> tuple[int, ...]:
        """The winning seats of a finished game: by default those with the highest return, a
        tie shared, whatever its sign (a points game such as Alibi can end with every score at
        or below 0). Games with tie-breaks (more gold, police car, ...) or where nobody may win
        (Clue, when every accuser was wrong) override this."""
        returns = self.returns()
        best = max(returns)
        return tuple(i for i, r in enumerate(returns) if r == best)

    @abc.abstractmethod
    def observation(self, player: int | None) -> Observation:
        """Everything ``player`` has seen (``None``: a spectator), as an immutable value."""

    @abc.abstractmethod
    def clone(self) -> State: ...

    def world(self) -> np.ndarray:
        """The true hidden world in the coordinates of ``game.knowledge``'s knowledge bases
        (``[card] -> location``, or ``[epoch, card]`` for games whose cards move). Tests use it
        to check that every player's knowledge base is sound."""
        raise NotImplementedError(f"{type(self).__name__} does not expose its world")

    def hidden_variant(self, player: int, actions: Sequence[Action], rng: np.random.Generator) -> State | None:
        """A state reached by replaying ``actions`` from a different deal that differs from this
        one only in what ``player`` has not seen, or ``None`` if none is found. The audit compares
        the two observations of ``player``: any difference is an information leak. Games that
        do not implement it are reported as not leak-audited."""
        return None

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` for the current player, or raise :class:`IllegalAction` saying why."""
        if self.is_terminal():
            raise IllegalAction(f"{action!r}: the game is over")
        legal = self.legal_actions()
        if action not in legal:
            try:
                reason = self.explain_illegal(action)
            except Exception:  # a malformed action (wrong field types) still gets a clear error
                reason = f"{action!r} is not a legal action for {self.seat_name(self.current_player)} now"
            raise IllegalAction(reason)
        events = self._apply(action)
        self._events.extend(events)
        return events

    def explain_illegal(self, action: Action) -> str:
        return f"{action!r} is not legal for {self.seat_name(self.current_player)} now"

    def seat_name(self, seat: int | None) -> str:
        """A seat as people call it (the config's player name), for the refusals a person reads
        in ``deduce play`` and ``deduce assist``; research code keeps the seat number itself."""
        names = getattr(getattr(self.game, "config", None), "names", ())
        if seat is None:
            return "nobody"
        return str(names[seat]) if 0 <= seat < len(names) else f"p{seat}"

    def views(self, player: int | None) -> tuple[Event, ...]:
        out = []
        for e in self._events:
            v = e.view(player)
            if v is not None:
                out.append(v)
        return tuple(out)


class LogFormat(Protocol):
    """A game's player-view log: JSON a person can write at the table (``deduce solve`` reads it)."""

    def parse(self, data: Mapping[str, Any]) -> tuple[Game, Observation]:
        """The game a log describes and the logging player's observation."""

    def export(self, game: Any, observation: Any) -> dict[str, Any]:
        """A player's view as a log that :meth:`parse` reads back."""


class Wording(Protocol):
    """A game's words for people (its ``text.py``): events, actions, the table and constraints as
    the rule book says them. ``deduce play``, ``solve``, ``assist``, ``why`` and the learning
    wrappers speak through it, so a person reads names, never indices. Every registered game's
    wording module provides each member (tests/games/test_conformance.py checks it)."""

    def event_text(self, game: Any, event: Any, you: int | None = None) -> str:
        """One viewed event (``you``: the reader's seat, said as "you")."""

    def action_text(self, game: Any, action: Any, observation: Observation | None = None) -> str:
        """One action, as a person types it (``observation``: the actor's, for what an action's
        words depend on, such as the sub-icons of a set already written on a sheet)."""

    def phraser(self, game: Any, events: Sequence[Event]) -> Callable[..., str | None]:
        """Words for the constraints of a knowledge base built from ``events``."""

    def status_text(self, game: Any, observation: Observation) -> str:
        """The seat's private information and the public table now ("" for nothing to show)."""

    def final_scores(self, game: Any, observation: Observation) -> Sequence[float] | None:
        """Each seat's score as the rule book counts it, read at the end of the game (``None``: a
        game won without points, such as Clue)."""

    def actions_help(self, game: Any) -> str:
        """The game's actions, each with an example a person can type."""


@dataclass(frozen=True)
class GameInfo:
    """What one game provides, declared once in its folder's ``__init__`` and read by the
    registry (OpenSpiel's GameType/GameInfo): nothing finds a capability by a module name.

    ``incremental``: knowledge grows one event at a time through
    :meth:`Game.event_constraints` (otherwise a game rebuilds it from the whole history, as games
    whose cards move do). ``wording`` gives the wording module for a configured game (``None``:
    generic wording). ``actions`` builds the game's fixed action numbering for a configured game
    (a :class:`~deduce.actions.ActionIndex`, shared by the learning-framework adapters; ``None``:
    see :func:`deduce.actions.action_index` for the fallbacks).
    """

    name: str
    game: type[Game]
    log: LogFormat | None = None
    wording: Callable[[Game], Wording] | None = None
    incremental: bool = False
    actions: Callable[[Game], ActionIndex] | None = None
