"""The library's exceptions: every error deduce raises subclasses :class:`DeduceError`."""

from __future__ import annotations

import reprlib

__all__ = [
    "DeduceError",
    "UnknownName",
    "InvalidConfig",
    "InvalidConstraint",
    "Contradiction",
    "IllegalAction",
    "LogError",
    "NotSupported",
    "TooLarge",
]


class DeduceError(Exception):
    """Base class of every error raised by deduce."""


class UnknownName(DeduceError, KeyError):
    """A card, player, location, game, solver or agent name that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxtuple = _SHORT.maxlist = _SHORT.maxset = _SHORT.maxfrozenset = _SHORT.maxdict = 8


class InvalidConfig(DeduceError, ValueError):
    """A configuration value (or another setting given by the caller: a deal, a deck, a board
    map, an argument) that the rules or the library do not allow.

    ``field`` names the setting, ``value`` is what was given and ``reason`` says what is wrong;
    the message reads ``field=value: reason`` (a long value is abbreviated)::

        >>> str(InvalidConfig("num_players", 7, "Clue takes 3 to 6 players"))
        'num_players=7: Clue takes 3 to 6 players'

    It is a :class:`ValueError`, so ``except ValueError`` still catches it.
    """

    def __init__(self, field: str, value: object, reason: str) -> None:
        super().__init__(field, value, reason)
        self.field = field
        self.value = value
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.field}={_SHORT.repr(self.value)}: {self.reason}"


class InvalidConstraint(DeduceError, ValueError):
    """A constraint that is malformed for its knowledge base (bad index, empty set, ...)."""


class Contradiction(DeduceError):
    """Adding a constraint would leave no consistent world.

    ``constraint`` is the rejected constraint; ``conflicts`` lists earlier constraints that,
    together with it, are unsatisfiable (empty when the checker could not say which).
    """

    def __init__(
        self,
        message: str,
        constraint: object = None,
        conflicts: tuple = (),
        reason: str = "",
        sources: tuple = (),
    ) -> None:
        super().__init__(message)
        self.constraint = constraint
        self.conflicts = tuple(conflicts)
        #: why it is impossible, in words; ``sources[i]`` is where ``conflicts[i]`` came from
        self.reason = reason
        self.sources = tuple(sources)


class IllegalAction(DeduceError, ValueError):
    """An action that the rules do not allow in the current state."""


class LogError(DeduceError, ValueError):
    """A game log that cannot be read: malformed, unknown names, or contradictory.

    ``index`` is the position of the offending event in the log's event list (None when the
    problem is in the header).
    """

    def __init__(self, message: str, index: int | None = None, event: object = None) -> None:
        super().__init__(message)
        self.index = index
        self.event = event


class NotSupported(DeduceError):
    """A solver backend was asked about a knowledge base it cannot handle."""


class TooLarge(NotSupported):
    """A backend refused because the answer needs more work than its configured limit."""
