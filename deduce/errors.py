"""The library's exceptions: every error deduce raises subclasses :class:`DeduceError`."""

from __future__ import annotations

__all__ = [
    "DeduceError",
    "UnknownName",
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
