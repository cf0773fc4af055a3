"""Work budgets: one number of *steps* that bounds all the counting one command does.

Why: some accepted logs (small 3-player Mafia Code logs, spectator views late in a game) need
minutes of counting; a command should refuse them in one line, naming the limit and how to
raise it, instead of running for ever. The budget is counted work, never wall time, so the
same log is answered or refused the same way on an idle or a loaded machine.

``with metered(steps): ...`` installs a :class:`Meter` that every backend charges as it works:
a DP transition is a step (``exact``, ``split``, which also charges :data:`BRANCH_STEPS` per
branch it opens), so is a state or successor the ``chain`` counter builds, an assignment
``brute`` would search (charged before it starts) and a world an enumerating backend lists;
a state of ``timeline``'s passes and a world ``tokens`` lists or filters are steps too; a
constraint check of ``csp``'s search (python-constraint, which runs between two worlds without
returning) is :data:`CHECK_STEPS` steps;
a unit of CP-SAT's deterministic time (``cpsat``, ``epoch``, one worker, where that time is
reproducible) is :data:`STEPS_PER_DT` steps, and each solve is capped by what is left. Past
the budget the backend raises :class:`~deduce.errors.TooLarge`. The meter covers every query
of the command (the checks of each event while a log loads, the counts, the cores of
``--why``), so the command's total work is bounded, not only each query's (``deduce assist``
gives each typed line a meter of its own). Without a meter
nothing changes: each backend keeps its own limits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from deduce.errors import TooLarge

__all__ = ["DEFAULT_BUDGET", "STEPS_PER_DT", "BRANCH_STEPS", "CHECK_STEPS", "Work", "Meter", "metered", "allowance", "active", "charge", "refusal"]

#: the default of ``deduce solve --budget``: about 10 s of counting on an idle 2-core machine.
DEFAULT_BUDGET = 20_000_000
#: steps per unit of CP-SAT deterministic time (about one second of search; measured against
#: the DP's transitions per second on the same machine).
STEPS_PER_DT = 2_000_000
#: steps ``split`` charges for each branch it opens (propagating and compiling a branch costs
#: about as much as this many DP transitions; without the charge, branches refused as too wide
#: would cost nothing and their number would be unbounded).
BRANCH_STEPS = 2_000
#: steps one ``csp`` constraint check costs (measured in one run: the DP makes about 8 times as
#: many transitions per second as python-constraint makes checks).
CHECK_STEPS = 8


class Work:
    """CP-SAT deterministic time left for one query (``limit``, None: no own limit) and in the
    active meter: caps each solve and charges what it used."""

    def __init__(self, who: str, limit: float | None = None) -> None:
        self.who = who
        self.limit = float("inf") if limit is None else float(limit)
        self.left = self.limit

    @classmethod
    def needed(cls, who: str, limit: float | None) -> Work | None:
        """A counter when there is something to count against (an own limit or a meter)."""
        return None if limit is None and active() is None else cls(who, limit)

    def cap(self, solver: Any) -> None:
        """Give ``solver`` (a ``CpSolver``) at most the time left; refuse when none is."""
        meter = active()
        left = self.left if meter is None else min(self.left, meter.left / STEPS_PER_DT)
        if left <= 0:
            raise self.refused()
        if left != float("inf"):
            solver.parameters.max_deterministic_time = left

    def spend(self, solver: Any, status: Any, finished: tuple[Any, ...] | None = None) -> None:
        """Count the solve's deterministic time; a solve stopped undecided is a refusal."""
        from ortools.sat.python import cp_model

        used = float(solver.response_proto.deterministic_time)
        self.left -= used
        meter = active()
        if meter is not None:
            meter.add(int(used * STEPS_PER_DT))
        done = finished if finished is not None else (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE)
        if status not in done:
            raise self.refused()

    def refused(self) -> TooLarge:
        meter = active()
        if meter is not None and meter.left <= self.left * STEPS_PER_DT:
            meter.refused()  # the meter, not the query's own limit, stopped it
            return TooLarge(f"{self.who}: more than {meter.limit:,} steps of counting work")
        return TooLarge(f"{self.who}: more than {self.limit:g} units of CP-SAT deterministic time needed")


class Meter:
    """Steps spent by one command against its budget; an *allowance* (``parent`` set) is a
    share of an enclosing meter: what it is charged is charged to the parent too, and it has
    at most what the parent has left."""

    def __init__(self, limit: int, parent: Meter | None = None) -> None:
        if int(limit) < 1:
            raise ValueError(f"a work budget must be a positive number of steps, not {limit}")
        self.limit = int(limit)
        self.used = 0
        self.parent = parent
        #: whether work was refused because this meter ran out (not a backend's own limit)
        self.exhausted = False

    def add(self, steps: int | float) -> None:
        """Count ``steps`` (here and in the parent) without refusing."""
        self.used += int(steps)
        if self.parent is not None:
            self.parent.add(steps)

    def charge(self, steps: int | float) -> None:
        self.add(steps)
        if self.over():
            raise self.refused()

    def over(self) -> bool:
        """Whether more was used than this meter or an enclosing one allows."""
        return self.used > self.limit or (self.parent is not None and self.parent.over())

    def refused(self) -> TooLarge:
        """The refusal of work past this meter."""
        self.exhausted = True
        if self.parent is not None and (self.parent.left == 0 or self.parent.over()):
            return self.parent.refused()
        return TooLarge(f"more than {self.limit:,} steps of counting work")

    @property
    def left(self) -> int:
        own = max(0, self.limit - self.used)
        return own if self.parent is None else min(own, self.parent.left)


_ACTIVE: ContextVar[Meter | None] = ContextVar("deduce_work_meter", default=None)


@contextmanager
def metered(limit: int) -> Iterator[Meter]:
    """Charge every backend's work inside the block to one :class:`Meter` of ``limit`` steps."""
    meter = Meter(limit)
    token = _ACTIVE.set(meter)
    try:
        yield meter
    finally:
        _ACTIVE.reset(token)


@contextmanager
def allowance(steps: int) -> Iterator[Meter]:
    """A share of at most ``steps`` of the active meter's budget for the block (the whole of
    what is left when that is less); a backend that runs past it is refused as past a budget,
    and :attr:`Meter.exhausted` tells the caller so. Why: ``auto`` tries its backends in turn,
    and one that would spend the whole budget before refusing left none for the next."""
    parent = active()
    if parent is None:
        raise RuntimeError("an allowance is a share of an active meter")
    meter = Meter(max(1, min(int(steps), parent.left)), parent=parent)
    token = _ACTIVE.set(meter)
    try:
        yield meter
    finally:
        _ACTIVE.reset(token)


def active() -> Meter | None:
    """The meter of the enclosing :func:`metered` block, if any."""
    return _ACTIVE.get()


def charge(steps: int | float) -> None:
    """Charge ``steps`` to the active meter (nothing without one)."""
    meter = _ACTIVE.get()
    if meter is not None:
        meter.charge(steps)


def refusal(budget: int, exc: TooLarge, option: str = "--budget") -> TooLarge:
    """The one-line refusal a command prints: the limit and how to raise it (``exc``, the last
    backend's own refusal, is left out: under ``auto`` it names whichever backend gave up last)."""
    return TooLarge(
        f"too large: this log needs more than the work budget of {budget:,} counted steps "
        f"(raise it with {option} N, e.g. {option} {budget * 10}; {option} 0 turns it off)"
    )
