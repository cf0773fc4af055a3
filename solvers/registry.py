"""Backends by name. Modules load lazily so that importing ``solvers`` stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from deduce.errors import UnknownName
from solvers.base import Solver

__all__ = ["get", "register", "available"]

_FACTORIES: dict[str, str | Callable[..., Solver]] = {
    "cpsat": "solvers.cpsat:CpSatSolver",
    "csp": "solvers.csp:CspSolver",
    "brute": "solvers.brute:BruteSolver",
    "exact": "solvers.exact:ExactSolver",
    "split": "solvers.split:SplitSolver",
    "sample": "solvers.sample:SampleSolver",
    "tokens": "solvers.tokens:TokenSolver",
    "chain": "solvers.chain:ChainSolver",
    "epoch": "solvers.epoch:EpochSolver",
    "epoch-sample": "solvers.epoch:EpochSampler",
    "frontier": "solvers.frontier:FrontierSolver",
    "epoch-gibbs": "solvers.block_sampler:BlockGibbs",
    "auto": "solvers.auto:AutoSolver",
}


#: old names of backends that were renamed after their algorithm
RENAMED: dict[str, str] = {"checkpoint": "tokens"}


def register(name: str, factory: str | Callable[..., Solver]) -> None:
    """Make ``factory`` (a callable or ``"module:attr"``) available as ``solvers.get(name)``."""
    _FACTORIES[name] = factory


def available() -> tuple[str, ...]:
    """The names ``solvers.get`` accepts."""
    return tuple(_FACTORIES)


def get(name: str | Solver, **kwargs: object) -> Solver:
    """A new backend called ``name`` (a Solver instance is returned as it is)."""
    if isinstance(name, Solver):
        return name
    try:
        factory = _FACTORIES[name]
    except (KeyError, TypeError):
        if isinstance(name, str) and name in RENAMED:
            raise UnknownName(f"solver {name!r} is now called {RENAMED[name]!r}") from None
        raise UnknownName(f"unknown solver {name!r}; available: {', '.join(_FACTORIES)}") from None
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(**kwargs)
