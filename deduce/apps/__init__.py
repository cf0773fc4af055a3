"""Applications built on the core, the solvers and the agents.

The core (``deduce`` minus this package and ``deduce.cli``) never imports these; they import
``solvers`` and ``agents`` plainly. ``assist`` is the table-side notebook, ``audit`` checks every
game's promises, ``tournament`` runs and reports matches, ``speedclue`` speaks the Speed Clue
protocol, ``pettingzoo`` adapts every game to that framework (an optional extra).
"""

__all__: list[str] = []
