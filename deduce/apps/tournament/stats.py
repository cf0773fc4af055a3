"""Summary statistics of a results table: win rates with Wilson intervals, mean scores,
head-to-head results, and the effect of the seat one plays from.

Every function takes the tidy table (one row per game and seat) and returns a small DataFrame;
none prints. "Games" for an agent counts seats played, so an agent filling two seats of one
game counts twice.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["wilson", "mean_ci", "agent_table", "pairwise", "seat_effect", "win_rates"]

Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``wins`` successes out of ``n`` (good even near 0 and 1)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)  # exact ends, no rounding residue
    hi = 1.0 if wins >= n else min(1.0, centre + half)
    return lo, hi


def mean_ci(values: Any, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval (the interval is the mean alone for n < 2)."""
    import numpy as np

    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(arr.mean())
    if arr.size < 2:
        return mean, mean, mean
    half = z * float(arr.std(ddof=1)) / math.sqrt(arr.size)
    return mean, mean - half, mean + half


def win_rates(games: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``{agent: {"games", "wins", "win_rate", "ci95": [lo, hi]}}``, the ``--json`` payload."""
    out: dict[str, dict[str, Any]] = {}
    for agent, rows in games.groupby("agent", sort=True):
        n, w = int(len(rows)), int(rows["win"].sum())
        lo, hi = wilson(w, n)
        out[str(agent)] = {"games": n, "wins": w, "win_rate": w / n if n else 0.0, "ci95": [lo, hi]}
    return out


def agent_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per agent: seats played, wins, win rate and its Wilson 95% interval, mean score and its
    95% interval, forfeits, mean game length in turns, and mean seconds per decision."""
    import pandas as pd

    rows = []
    for agent, g in games.groupby("agent", sort=True):
        n, w = int(len(g)), int(g["win"].sum())
        lo, hi = wilson(w, n)
        score, s_lo, s_hi = mean_ci(g["score"])
        decisions = int(g["decisions"].sum())
        rows.append({
            "agent": str(agent),
            "games": n,
            "wins": w,
            "win_rate": w / n if n else 0.0,
            "win_lo": lo,
            "win_hi": hi,
            "score": score,
            "score_lo": s_lo,
            "score_hi": s_hi,
            "forfeits": int(g["forfeit"].sum()),
            "mean_turns": float(g["turns"].mean()),
            "sec_per_move": float(g["decision_seconds"].sum()) / decisions if decisions else 0.0,
        })
    columns = ["agent", "games", "wins", "win_rate", "win_lo", "win_hi", "score", "score_lo", "score_hi",
               "forfeits", "mean_turns", "sec_per_move"]
    return pd.DataFrame(rows, columns=columns)


def pairwise(games: pd.DataFrame) -> pd.DataFrame:
    """Head to head: entry (A, B) is A's share of the games A and B played together in which A
    finished ahead of B (a tie counts half). Rows and columns are agents; NaN when they never met."""
    import pandas as pd

    left = games[["game_id", "seat", "agent", "score"]]
    both = left.merge(left, on="game_id", suffixes=("_a", "_b"))
    both = both[(both["seat_a"] != both["seat_b"]) & (both["agent_a"] != both["agent_b"])]
    agents = sorted(games["agent"].unique())
    if both.empty:
        return pd.DataFrame(index=pd.Index(agents, name="agent"), columns=agents, dtype=float)
    points = (both["score_a"] > both["score_b"]).astype(float) + 0.5 * (both["score_a"] == both["score_b"])
    both = both.assign(points=points)
    table = both.groupby(["agent_a", "agent_b"])["points"].mean().unstack()
    table = table.reindex(index=agents, columns=agents)
    table.index.name = "agent"
    table.columns.name = None
    return table


def seat_effect(games: pd.DataFrame) -> pd.DataFrame:
    """Win rate by seat (seat 0 moves first): over all agents with its Wilson interval, and per
    agent as extra columns, to show whether moving first matters and for whom."""
    import pandas as pd

    rows = []
    for seat, g in games.groupby("seat", sort=True):
        n, w = int(len(g)), int(g["win"].sum())
        lo, hi = wilson(w, n)
        row: dict[str, Any] = {"seat": int(seat), "games": n, "win_rate": w / n if n else 0.0, "win_lo": lo, "win_hi": hi}
        for agent, ga in g.groupby("agent", sort=True):
            row[str(agent)] = float(ga["win"].mean())
        rows.append(row)
    return pd.DataFrame(rows)
