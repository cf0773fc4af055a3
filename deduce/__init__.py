"""deduce: AI opponents for hidden-information deduction board games.

``deduce.make("clue", num_players=4)`` builds a game; ``game.knowledge(observation)`` turns what
a player saw into a :class:`KnowledgeBase`; the ``solvers`` package answers questions about it;
the ``agents`` package plays.
"""

from deduce.cards import Card, Deck
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
from deduce.errors import (
    Contradiction,
    DeduceError,
    IllegalAction,
    InvalidConfig,
    InvalidConstraint,
    LogError,
    NotSupported,
    TooLarge,
    UnknownName,
)
from deduce.games import Action, Event, Game, Observation, State, game_names, make
from deduce.knowledge import KnowledgeBase, propagate

#: the library version, also recorded in every tournament's results
__version__ = "0.1.0"

__all__ = [
    "Card",
    "Deck",
    "KnowledgeBase",
    "propagate",
    "Constraint",
    "At",
    "NotAt",
    "AtLeastOne",
    "Count",
    "NotAll",
    "Transfer",
    "CountEver",
    "Op",
    "DeduceError",
    "Contradiction",
    "IllegalAction",
    "InvalidConfig",
    "InvalidConstraint",
    "LogError",
    "NotSupported",
    "TooLarge",
    "UnknownName",
    "Action",
    "Event",
    "Game",
    "Observation",
    "State",
    "make",
    "game_names",
    "Tournament",
    "TournamentResults",
    "__version__",
]

_LAZY = {"Tournament": "deduce.apps.tournament", "TournamentResults": "deduce.apps.tournament"}


def __getattr__(name: str) -> object:
    """The tournament harness loads on first use, keeping ``import deduce`` light."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'deduce' has no attribute {name!r}")
