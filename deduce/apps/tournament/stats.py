"""Summary statistics of a results table, with intervals that respect the design.

Games of one deal are correlated (with duplicate deals every seating replays it), so the deal is
the independent unit: mean scores get a bootstrap interval that resamples deals (clusters), and
two agents are compared by their per-deal paired differences (bootstrap interval, sign test and
Wilcoxon signed-rank test). Win rates get exact-coverage binomial intervals (Wilson by default,
Clopper–Pearson on request) over seats. Every interval is 95% and from :mod:`scipy.stats`; the
bootstrap is seeded by the caller, so a report is the same every time it is printed.

Every function takes the tidy table (one row per game and seat) and returns plain data or a
small DataFrame; none prints. An agent's ``seats`` are its rows (an agent filling two seats of a
game has two), its ``games`` the distinct games it sat in.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from deduce.errors import DeduceError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "LEVEL",
    "Interval",
    "wilson",
    "clopper_pearson",
    "proportion_ci",
    "cluster_mean_ci",
    "mean_ci",
    "sign_test",
    "paired_difference",
    "paired_by_deal",
    "cluster_keys",
    "score_range",
    "agent_table",
    "pairwise",
    "seat_effect",
    "win_rates",
]

#: the confidence level of every interval
LEVEL = 0.95
#: bootstrap resamples (BCa); enough for stable 95% ends at the table sizes tournaments have
RESAMPLES = 4000


def _scipy_stats() -> Any:
    try:
        import scipy.stats
    except ImportError:
        raise DeduceError("tournament statistics need scipy: pip install 'deduce[tournament]'") from None
    return scipy.stats


@dataclass(frozen=True)
class Interval:
    """A point estimate with its interval, and what the interval is over: ``unit`` ("deals",
    "seats", "games") and ``n`` of them; ``method`` names how it was computed."""

    estimate: float
    lo: float
    hi: float
    unit: str
    n: int
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"estimate": self.estimate, "lo": self.lo, "hi": self.hi, "unit": self.unit, "n": self.n,
                "method": self.method}


# -- proportions -----------------------------------------------------------------------------

def proportion_ci(successes: int, n: int, method: str = "wilson") -> tuple[float, float]:
    """The 95% interval of a proportion, by ``scipy.stats.binomtest``: ``"wilson"`` (the score
    interval) or ``"exact"`` (Clopper–Pearson). ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    ci = _scipy_stats().binomtest(int(successes), int(n)).proportion_ci(confidence_level=LEVEL, method=method)
    return float(ci.low), float(ci.high)


def wilson(wins: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval for ``wins`` successes out of ``n`` (good near 0 and 1)."""
    return proportion_ci(wins, n, "wilson")


def clopper_pearson(wins: int, n: int) -> tuple[float, float]:
    """The exact (Clopper–Pearson) 95% interval for ``wins`` successes out of ``n``."""
    return proportion_ci(wins, n, "exact")


# -- means over clusters ---------------------------------------------------------------------

def _ratio(sums: np.ndarray, counts: np.ndarray, axis: int = -1) -> np.ndarray:
    return sums.sum(axis=axis) / counts.sum(axis=axis)


def cluster_mean_ci(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray,
    bounds: tuple[float, float] | None = None,
    seed: int = 0,
    unit: str = "deals",
) -> Interval:
    """The mean of ``values`` with a 95% interval that resamples whole clusters (deals): a
    BCa bootstrap (``scipy.stats.bootstrap``, seeded) of the pooled mean, so correlated values
    of one deal move together. When every cluster has the same mean the bootstrap has nothing to
    resample; the interval is then the Clopper–Pearson interval of the mean rescaled to
    ``bounds`` with one trial per cluster (the widest a variable in ``bounds`` allows). Ends
    are clipped to ``bounds`` (default: the values' own range)."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Interval(math.nan, math.nan, math.nan, unit, 0, "none")
    keys, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    sums = np.bincount(inverse, weights=x, minlength=len(keys))
    counts = np.bincount(inverse, minlength=len(keys)).astype(float)
    mean = float(x.mean())
    lo_b, hi_b = bounds if bounds is not None else (float(x.min()), float(x.max()))
    k = len(keys)
    means = sums / counts
    if k < 2 or np.ptp(means) == 0:
        return _degenerate_ci(mean, k, lo_b, hi_b, unit)
    method = "BCa"
    lo, hi = _bootstrap(sums, counts, method, seed)
    if not (math.isfinite(lo) and math.isfinite(hi)):  # BCa undefined (too few distinct deals)
        method = "percentile"
        lo, hi = _bootstrap(sums, counts, method, seed)
    method = f"bootstrap {method}"
    lo, hi = max(lo_b, min(lo, mean)), min(hi_b, max(hi, mean))
    return Interval(mean, lo, hi, unit, k, f"{method} over {unit}")


def _bootstrap(sums: np.ndarray, counts: np.ndarray, method: str, seed: int) -> tuple[float, float]:
    """The bootstrap interval of the pooled mean, resampling clusters (their sums and counts)."""
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _scipy_stats().bootstrap((sums, counts), _ratio, paired=True, vectorized=True, n_resamples=RESAMPLES,
                                       confidence_level=LEVEL, method=method, rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _degenerate_ci(mean: float, k: int, lo_b: float, hi_b: float, unit: str) -> Interval:
    if hi_b <= lo_b or k == 0:
        return Interval(mean, mean, mean, unit, k, "constant")
    share = (mean - lo_b) / (hi_b - lo_b)
    p_lo, p_hi = clopper_pearson(round(share * k), k)
    return Interval(mean, lo_b + p_lo * (hi_b - lo_b), lo_b + p_hi * (hi_b - lo_b), unit, k,
                    f"Clopper-Pearson over {unit} (no spread to bootstrap)")


def mean_ci(values: Sequence[float] | np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """Mean and 95% bootstrap interval of independent values (each its own cluster)."""
    ci = cluster_mean_ci(values, range(len(values)), seed=seed, unit="values")
    return ci.estimate, ci.lo, ci.hi


# -- paired comparisons ----------------------------------------------------------------------

def sign_test(ahead: int, behind: int) -> float:
    """Two-sided exact sign-test p-value (ties dropped): ``scipy.stats.binomtest``."""
    n = ahead + behind
    if not n:
        return 1.0
    return float(_scipy_stats().binomtest(int(ahead), n, 0.5).pvalue)


def paired_difference(differences: Sequence[float] | np.ndarray, seed: int = 0, unit: str = "deals") -> dict[str, Any]:
    """The mean of per-unit paired ``differences`` (first minus second) with a bootstrap 95%
    interval over units, how many units each side was ahead on, and two-sided sign-test and
    Wilcoxon signed-rank p-values (1.0 when no unit differs)."""
    import numpy as np

    d = np.asarray(differences, dtype=float)
    n = int(d.size)
    ahead, behind = int((d > 0).sum()), int((d < 0).sum())
    if n == 0:
        return {"n": 0, "unit": unit, "mean": math.nan, "lo": math.nan, "hi": math.nan, "ahead": 0, "behind": 0,
                "sign_p": 1.0, "wilcoxon_p": 1.0, "method": "none"}
    span = float(np.abs(d).max()) or 1.0
    ci = cluster_mean_ci(d, np.arange(n), bounds=(-span, span) if np.ptp(d) else (float(d[0]), float(d[0])),
                         seed=seed, unit=unit)
    wilcoxon_p = 1.0
    if ahead + behind:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wilcoxon_p = float(_scipy_stats().wilcoxon(d, zero_method="wilcox").pvalue)
    return {"n": n, "unit": unit, "mean": ci.estimate, "lo": ci.lo, "hi": ci.hi, "ahead": ahead, "behind": behind,
            "sign_p": sign_test(ahead, behind), "wilcoxon_p": wilcoxon_p, "method": ci.method}


def cluster_keys(games: pd.DataFrame) -> pd.Series:
    """The independent unit of each row: its deal (within its run, when runs are stacked)."""
    if "run_id" in games.columns and games["run_id"].nunique() > 1:
        return games["run_id"].astype(str) + ":" + games["deal"].astype(str)
    return games["deal"].astype(str)


def paired_by_deal(games: pd.DataFrame, column: str = "score", seed: int = 0) -> list[dict[str, Any]]:
    """For every two agents that played a common deal: per deal, the first's mean ``column``
    minus the second's (over all their seats of that deal), summarised by
    :func:`paired_difference`. Deals, not seats, are the independent unit."""
    frame = games.assign(_deal=cluster_keys(games))
    per = frame.groupby(["agent", "_deal"])[column].mean().unstack("agent")
    agents = sorted(per.columns)
    out = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            both = per[[a, b]].dropna()
            result = paired_difference((both[a] - both[b]).to_numpy(), seed=seed)
            out.append({"a": a, "b": b, "measure": column, **result})
    return out


# -- tables ----------------------------------------------------------------------------------

def score_range(games: pd.DataFrame) -> tuple[float, float]:
    """The scores' range in this table (a forfeit's −1 included): where score intervals clip."""
    if games.empty:
        return 0.0, 0.0
    return float(games["score"].min()), float(games["score"].max())


def win_rates(games: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``{agent: {"seats", "wins", "win_rate", "ci95": [lo, hi]}}``: Wilson over seats."""
    out: dict[str, dict[str, Any]] = {}
    for agent, rows in games.groupby("agent", sort=True):
        n, w = int(len(rows)), int(rows["win"].sum())
        lo, hi = wilson(w, n)
        out[str(agent)] = {"seats": n, "wins": w, "win_rate": w / n if n else 0.0, "ci95": [lo, hi]}
    return out


#: the columns of :func:`agent_table`
AGENT_COLUMNS = ["agent", "games", "seats", "wins", "win_rate", "win_lo", "win_hi", "score", "score_lo",
                 "score_hi", "deals", "forfeits", "mean_turns", "sec_per_move"]


def agent_table(games: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per agent: games and seats played, seats won, the win rate per seat with its Wilson
    interval (over seats), the mean score with its bootstrap interval over deals (``deals`` of
    them, clipped to the table's score range), forfeits, mean game length in turns, and mean
    seconds per decision."""
    import pandas as pd

    bounds = score_range(games)
    keys = cluster_keys(games)
    game_key = ["run_id", "game_id"] if "run_id" in games.columns else ["game_id"]
    rows = []
    for agent, g in games.groupby("agent", sort=True):
        n, w = int(len(g)), int(g["win"].sum())
        lo, hi = wilson(w, n)
        score = cluster_mean_ci(g["score"].to_numpy(), keys.loc[g.index].to_numpy(), bounds, seed)
        decisions = int(g["decisions"].sum())
        rows.append({
            "agent": str(agent),
            "games": int(len(g[game_key].drop_duplicates())),
            "seats": n,
            "wins": w,
            "win_rate": w / n if n else 0.0,
            "win_lo": lo,
            "win_hi": hi,
            "score": score.estimate,
            "score_lo": score.lo,
            "score_hi": score.hi,
            "deals": score.n,
            "forfeits": int(g["forfeit"].sum()),
            "mean_turns": float(g["turns"].mean()),
            "sec_per_move": float(g["decision_seconds"].sum()) / decisions if decisions else 0.0,
        })
    return pd.DataFrame(rows, columns=AGENT_COLUMNS)


def pairwise(games: pd.DataFrame) -> pd.DataFrame:
    """Head to head: entry (A, B) is A's share of the games A and B played together in which A
    finished ahead of B (a tie counts half). Rows and columns are agents; NaN when they never met."""
    import pandas as pd

    key = ["run_id", "game_id"] if "run_id" in games.columns else ["game_id"]
    left = games[[*key, "seat", "agent", "score"]]
    both = left.merge(left, on=key, suffixes=("_a", "_b"))
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
    """Win rate by seat (seat 0 moves first), long format: one row for every agent together
    (``agent`` = ``"all"``) and one per agent, each with its seats, wins and Wilson interval
    over seats, to show whether moving first matters and for whom."""
    import pandas as pd

    rows = []
    for seat, g in games.groupby("seat", sort=True):
        groups = [("all", g), *((str(a), ga) for a, ga in g.groupby("agent", sort=True))]
        for agent, ga in groups:
            n, w = int(len(ga)), int(ga["win"].sum())
            lo, hi = wilson(w, n)
            rows.append({"seat": int(seat), "agent": agent, "seats": n, "wins": w, "win_rate": w / n if n else 0.0,
                         "win_lo": lo, "win_hi": hi})
    return pd.DataFrame(rows, columns=["seat", "agent", "seats", "wins", "win_rate", "win_lo", "win_hi"])
