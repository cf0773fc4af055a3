"""Solver backends that answer questions about a :class:`deduce.KnowledgeBase`.

``solvers.get(name)`` returns a backend: ``cpsat`` (OR-Tools CP-SAT), ``csp``
(python-constraint2), ``brute`` (the reference), and ``auto`` (the fastest exact backend).
"""

from __future__ import annotations

from solvers.base import EnumeratingSolver, Solver, Tally
from solvers.registry import available, get, register

__all__ = ["Solver", "EnumeratingSolver", "Tally", "get", "register", "available"]
