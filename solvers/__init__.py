"""Solver backends that answer questions about a :class:`deduce.KnowledgeBase`.

``solvers.get(name)`` returns a backend, each named after its algorithm: ``exact`` (model
counting by dynamic programming, :mod:`solvers.exact_dp`), ``sample`` (exactly uniform samples
from those counts), ``split`` (the DP split into independent parts), ``chain`` (counting along the
epochs of a time-indexed knowledge base), ``epoch`` / ``epoch-sample`` (exact possible
locations / a compiled Markov-chain sampler over epochs that states its error and split R-hat), ``tokens`` (enumeration of two-faced tokens),
``cpsat`` (OR-Tools CP-SAT), ``csp`` (python-constraint2), ``brute`` (the reference), and ``auto``
(the fastest exact backend that supports the knowledge base). :mod:`solvers.timeline` counts a
draw-and-show history of hands. Each declares what it answers (:class:`Solver` capabilities).
"""

from __future__ import annotations

from solvers.base import EnumeratingSolver, Solver, Tally
from solvers.registry import available, get, register

__all__ = ["Solver", "EnumeratingSolver", "Tally", "get", "register", "available"]
