"""Who plays whom, in which seat, on which deal: the schedule of a tournament.

A schedule is an endless, prefix-stable sequence of rounds. One round plays every agent subset
(round-robin when there are more agents than seats) in every seating arrangement (a balanced
rotation or every permutation). With duplicate deals, every game of a round uses the same deal,
so deal luck cancels between agents. Game ``i`` is fully determined by the root seed and ``i``,
so a game can be replayed alone and ``--games`` can grow on a later run without reshuffling.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from deduce.errors import DeduceError

__all__ = [
    "AgentSpec",
    "Arrangement",
    "GameSpec",
    "Schedule",
    "derive_seed",
    "labelled",
    "parse_agent",
    "parse_value",
]

_LABEL = re.compile(r"^[A-Za-z0-9_.#+-]+$")


class Arrangement(StrEnum):
    """How the agents of one game are seated within a round."""

    ROTATE = "rotate"  #: cyclic shifts: every agent in every seat once per round
    PERMUTATIONS = "permutations"  #: every distinct seat order
    #: with fewer agents than seats, the agents go round the table in order starting with each
    #: of them in turn (A B A and B A B), every rotation of each: every agent holds as many
    #: seats as any other (``rotate`` would give A two seats of every A B A game); with enough
    #: agents for every seat, the same as ``rotate``
    ALTERNATE = "alternate"


@dataclass(frozen=True)
class AgentSpec:
    """An agent as data (registered name + parameters), so any worker can rebuild it.

    ``label`` is the agent's name in the results; it tells apart two entries of the same agent
    with different parameters.
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)
        object.__setattr__(self, "params", tuple(sorted(dict(self.params).items())))
        if not _LABEL.match(self.label):
            raise DeduceError(f"agent label {self.label!r} may only use letters, digits and _.#+-")

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    def with_params(self, **params: Any) -> AgentSpec:
        return AgentSpec(self.name, tuple({**self.kwargs, **params}.items()), self.label)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "name": self.name, "params": self.kwargs}

    @classmethod
    def coerce(cls, value: AgentSpec | str | tuple[str, Mapping[str, Any]] | Mapping[str, Any]) -> AgentSpec:
        """Accept ``"name"``, ``"label=name"``, ``(name, params)`` or ``{"name":..., "params":...}``."""
        if isinstance(value, AgentSpec):
            return value
        if isinstance(value, str):
            return parse_agent(value)
        if isinstance(value, Mapping):
            return cls(value["name"], tuple(dict(value.get("params", {})).items()), value.get("label", ""))
        name, params = value
        return cls(name, tuple(dict(params).items()))


_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_value(text: str) -> Any:
    """A command-line value: a JSON literal when it is one (``3``, ``true``, ``0.5``), the words
    true/false/none in any case (``gamble=False`` is False, not the text "False"), else text."""
    if text.strip().casefold() in _WORDS:
        return _WORDS[text.strip().casefold()]
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_agent(token: str) -> AgentSpec:
    """``[LABEL=]NAME[:KEY=VALUE,...]``, the command line's agent grammar
    (:mod:`deduce.cli.options`): ``"deductive"``, ``"fast=deductive"`` (label ``fast``),
    ``"infogain:gamble=false"``. Values stay text until the tournament types them by the
    agent's constructor."""
    from deduce.cli.options import parse_agent_option

    option = parse_agent_option(token)
    return AgentSpec(option.name, option.params, option.label if option.label != option.name else "")


def derive_seed(root: int, stream: int, index: int) -> int:
    """A 63-bit seed for item ``index`` of ``stream``, from the root seed alone (order-free)."""
    seq = np.random.SeedSequence(entropy=root, spawn_key=(stream, index))
    return int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


_GAME_STREAM = 0
_DEAL_STREAM = 1


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its id, who sits where, and the seeds that make it replayable."""

    game_id: int
    round: int
    deal: int
    seats: tuple[str, ...]  # agent labels, seat 0 first
    seed: int
    deal_seed: int


@dataclass(frozen=True)
class Schedule:
    """The tournament's schedule: ``schedule[i]`` is game ``i``, for any ``i >= 0``."""

    labels: tuple[str, ...]
    players: int
    seed: int
    arrangement: Arrangement = Arrangement.ROTATE
    duplicate: bool = True
    _blocks: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(set(self.labels)) != len(self.labels):
            raise DeduceError(f"agent labels must be distinct: {', '.join(self.labels)}")
        if not self.labels:
            raise DeduceError("a tournament needs at least one agent")
        if self.players < 1:
            raise DeduceError(f"players must be positive, not {self.players}")
        object.__setattr__(self, "arrangement", Arrangement(self.arrangement))
        object.__setattr__(self, "_blocks", tuple(self._round()))

    def _round(self) -> Iterator[tuple[str, ...]]:
        """Seatings of one round: every subset, every arrangement."""
        k, n = len(self.labels), self.players
        if k >= n:
            groups: list[tuple[str, ...]] = list(itertools.combinations(self.labels, n))
        elif self.arrangement is Arrangement.ALTERNATE:  # every agent starts the cycle once
            groups = [tuple(self.labels[(start + i) % k] for i in range(n)) for start in range(k)]
        else:  # fewer agents than seats: agents take turns filling the extra seats
            groups = [tuple(self.labels[i % k] for i in range(n))]
        for group in groups:
            if self.arrangement is not Arrangement.PERMUTATIONS:
                yield from (group[s:] + group[:s] for s in range(n))
            else:
                yield from dict.fromkeys(itertools.permutations(group))  # distinct, in order

    @property
    def round_size(self) -> int:
        """Games per round; a multiple of it gives a perfectly balanced tournament."""
        return len(self._blocks)

    def __getitem__(self, game_id: int) -> GameSpec:
        if game_id < 0:
            raise IndexError(game_id)
        rnd, pos = divmod(game_id, self.round_size)
        deal = rnd if self.duplicate else game_id
        return GameSpec(
            game_id=game_id,
            round=rnd,
            deal=deal,
            seats=self._blocks[pos],
            seed=derive_seed(self.seed, _GAME_STREAM, game_id),
            deal_seed=derive_seed(self.seed, _DEAL_STREAM, deal),
        )

    def games(self, count: int) -> list[GameSpec]:
        """The first ``count`` games."""
        return [self[i] for i in range(count)]


def labelled(specs: Sequence[AgentSpec]) -> list[AgentSpec]:
    """Give repeated labels a ``#2``, ``#3`` suffix so every entry is told apart in results."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        seen[spec.label] = seen.get(spec.label, 0) + 1
        if seen[spec.label] > 1:
            spec = AgentSpec(spec.name, spec.params, f"{spec.label}#{seen[spec.label]}")
        out.append(spec)
    return out
