"""Every deduce game as an OpenSpiel game (``pip install 'deduce[openspiel]'``).

Importing this package registers the games with pyspiel, as OpenSpiel's own Python games do::

    import pyspiel
    import deduce.apps.openspiel  # registers python_deduce_clue, ...

    game = pyspiel.load_game("python_deduce_clue", {"players": 4})
    state = game.new_initial_state()

Names: ``python_deduce_<game>`` with ``-`` as ``_`` (:func:`game_names`); ``python_deduce_clue``
is Clue without the board, ``python_deduce_clue_board`` and ``python_deduce_clue_intrigue`` play
it on the board (classic and intrigue edition). Parameters are the game's config fields
(:mod:`deduce.apps.openspiel.params`). The modules: ``game`` (GameType, GameInfo, states),
``chance`` (the deal), ``numbering`` (the board's action numbering), ``observer`` (strings and
tensors), ``resample`` (resampling of hidden worlds, what OpenSpiel's ISMCTS asks of a game:
exact for Clue, Clue on the board, Mafia Code, Checkpoint Charlie and Crime Hotel), ``bots`` (a deduce agent
as a ``pyspiel.Bot``) and ``agents`` (OpenSpiel's bots as deduce agents, registered by
:func:`register_agents`).
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("deduce.apps.openspiel needs OpenSpiel: pip install 'deduce[openspiel]'") from exc

from deduce.apps.openspiel.game import (
    REGISTRATIONS,
    DeduceGame,
    DeduceState,
    register_all,
    short_name,
)

__all__ = ["DeduceGame", "DeduceState", "REGISTRATIONS", "game_names", "load_game", "register_agents", "short_name"]

register_all()


def register_agents() -> None:
    """Make OpenSpiel's bots deduce agents for Clue: ``agents.get("openspiel-ismcts",
    game="clue")``, and ``deduce tournament`` in this process. Not done at import, so that
    importing the adapter does not change which agents every other caller sees."""
    import agents
    from deduce.apps.openspiel.agents import AGENTS

    for name, cls in AGENTS.items():
        agents.register(name, cls, game="clue")


def game_names() -> tuple[str, ...]:
    """The OpenSpiel names of every registered deduce game."""
    return tuple(r.short_name for r in REGISTRATIONS)


def load_game(name: str, **params: object) -> DeduceGame:
    """``pyspiel.load_game(name, params)``, typed; ``name`` may be a deduce game name too."""
    if not name.startswith("python_deduce_"):
        name = short_name(name)
    return pyspiel.load_game(name, dict(params))
