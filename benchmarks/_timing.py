"""Timing rows shared by the game benchmarks: mean, median, 95th percentile and max in ms."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["TimingRow", "timing_row"]


@dataclass(frozen=True)
class TimingRow:
    """One operation's times over ``samples`` runs (``refused``: answers a solver declined)."""

    players: int
    what: str
    samples: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    max_ms: float
    refused: int = 0


def timing_row(players: int, what: str, values: Sequence[float], refused: int = 0) -> TimingRow:
    """Summarise ``values`` (seconds) as a :class:`TimingRow` in milliseconds."""
    ms = sorted(1000 * v for v in values) or [0.0]
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return TimingRow(players, what, len(values), statistics.fmean(ms), statistics.median(ms), p95, ms[-1], refused)
