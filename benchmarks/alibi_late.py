"""Late Mayfair Alibi views the audit could not check: ``epoch`` with its cell model alone
against ``epoch`` handing its last queries to the history model, in the same run.

    python -m benchmarks.alibi_late [--budget 2000000] [--runs 3] [--needed]

The views (``benchmarks/alibi_late_views.json.gz``) are seat views from 5-, 6- and 7-player
games of ``deduce audit alibi --games 10 --seed 1`` whose agreement check was skipped because no
exact backend answered within the audit's 2M work steps. For each, both ways answer
``possible`` (the true world passed as a start, as the audit does) under a meter of
``--budget`` steps; the table gives whether each answered, the steps it counted and the median
wall time over ``--runs``. Where both answer, the answers are asserted equal. ``--needed`` also
runs the history way without a budget (up to 200M steps) and prints the steps each view needs.
The last column is the median time of reading the view into the history model (its cards'
histories, their options and the bounds propagation, before any CP-SAT model), which the
budget does not count.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.budget import metered
from solvers.epoch import EpochSolver

__all__ = ["VIEWS", "LateView", "load_views", "main"]

VIEWS = Path(__file__).with_name("alibi_late_views.json.gz")


class LateView(NamedTuple):
    """One saved view: its true world and, where it was checked once (see the file's
    ``checked`` field), its possible cells of the last epoch."""

    name: str
    kb: KnowledgeBase
    truth: np.ndarray
    possible: np.ndarray | None


def load_views() -> list[LateView]:
    """Every saved view, in the file's order."""
    data = json.loads(gzip.open(VIEWS).read())
    return [LateView(v["name"], KnowledgeBase.from_json(v["knowledge"]), np.array(v["truth"]),
                     np.array(v["possible"], dtype=bool) if "possible" in v else None) for v in data]


def _run(kb: KnowledgeBase, truth: np.ndarray, history_after: float | None, budget: int,
         runs: int) -> tuple[np.ndarray | None, int, float]:
    """(answer or None when refused, steps counted, median seconds)."""
    times, answer, used = [], None, 0
    for _ in range(runs):
        start = time.perf_counter()
        try:
            with metered(budget) as meter:
                answer = EpochSolver(history_after=history_after).possible(kb, starts=[truth])
        except TooLarge:
            answer = None
        times.append(time.perf_counter() - start)
        used = meter.used
    return answer, used, statistics.median(times)


def _read_seconds(kb: KnowledgeBase, runs: int) -> float:
    """Median seconds of :class:`~solvers.history_model.HistoryModel`'s construction on ``kb``."""
    from solvers.history_model import HistoryModel

    times = []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        HistoryModel(kb)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--needed", action="store_true")
    args = ap.parse_args(argv)
    print(f"{'view':<18} {'epochs':>6} | {'cell model':>22} | {'+ history model':>22}" + (" | needed" if args.needed else "")
          + " | read s")
    answered = [0, 0]
    views = load_views()
    for name, kb, truth, _ in views:
        cells = []
        got = []
        for i, after in enumerate((None, EpochSolver().history_after)):
            answer, used, secs = _run(kb, truth, after, args.budget, args.runs)
            got.append(answer)
            answered[i] += answer is not None
            cells.append(f"{'yes' if answer is not None else 'refused'} {used / 1e6:5.2f}M {secs:5.2f} s")
        if got[0] is not None and got[1] is not None:
            assert np.array_equal(got[0], got[1]), name
        row = f"{name:<18} {kb.epochs:>6} | {cells[0]:>22} | {cells[1]:>22}"
        if args.needed:
            _, used, secs = _run(kb, truth, EpochSolver().history_after, 200_000_000, 1)
            row += f" | {used / 1e6:.1f}M {secs:.1f} s"
        print(row + f" | {_read_seconds(kb, args.runs):.2f}", flush=True)
    print(f"answered within {args.budget:,} steps: cell model {answered[0]}, with the history model {answered[1]} "
          f"of {len(views)}")


if __name__ == "__main__":
    main()
