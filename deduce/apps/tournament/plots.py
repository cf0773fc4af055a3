"""Plots of tournament results (matplotlib, imported only here and only when drawing).

Each ``plot_*`` function draws one figure onto ``ax`` (a new figure when ``ax`` is None) and
returns the axes, so a notebook and ``deduce report --plots`` draw the very same pictures;
:func:`write_plots` saves all five as PNGs. Every interval drawn is the report's 95% interval.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deduce.errors import DeduceError

if TYPE_CHECKING:
    from deduce.apps.tournament.results import TournamentResults

__all__ = [
    "PLOTS",
    "plot_win_rates",
    "plot_scores",
    "plot_pairwise",
    "plot_seat_effect",
    "plot_rating_history",
    "write_plots",
]

#: scores with at most this many distinct values are drawn as shares per value, not violins
_DISCRETE = 8


def _pyplot(headless: bool = False) -> Any:
    try:
        import matplotlib
    except ImportError:
        raise DeduceError("plots need matplotlib: pip install 'deduce[tournament]'") from None
    if headless:
        matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots(figsize=size)
    return ax


def _title(results: TournamentResults, what: str) -> str:
    return f"{results.config.get('game', '')}: {what}, {results.num_games} games".lstrip(": ")


def plot_win_rates(results: TournamentResults, ax: Any = None) -> Any:
    """Win rate per seat of each agent, best first, with its 95% Wilson interval over seats."""
    table = results.summary()
    ax = _axes(ax, (6, 0.5 * len(table) + 1.8))
    y = range(len(table))[::-1]
    rate = table["win_rate"]
    ax.errorbar(rate, list(y), xerr=[rate - table["win_lo"], table["win_hi"] - rate], fmt="o", capsize=4)
    ax.set_yticks(list(y), [f"{a} (n={n})" for a, n in zip(table["agent"], table["seats"], strict=True)])
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate per seat (95% Wilson interval over seats)")
    ax.set_title(_title(results, "win rates"))
    return ax


def plot_scores(results: TournamentResults, ax: Any = None) -> Any:
    """The distribution of each agent's scores (shares per value when there are few values,
    violins otherwise), with the mean and its 95% bootstrap interval over deals."""
    table = results.summary()
    agents = list(table["agent"])
    games = results.games
    ax = _axes(ax, (1.6 * len(agents) + 3, 4))
    values = sorted(games["score"].unique())
    x = range(len(agents))
    if len(values) <= _DISCRETE:
        width = 0.8 / len(values)
        for k, v in enumerate(values):
            shares = [float((games.loc[games["agent"] == a, "score"] == v).mean()) for a in agents]
            ax.bar([i + (k - (len(values) - 1) / 2) * width for i in x], shares, width, alpha=0.5,
                   label=f"score {v:g}")
        ax.set_ylabel("share of seats; mean score")
    else:
        ax.violinplot([games.loc[games["agent"] == a, "score"] for a in agents], positions=list(x), showextrema=True)
        ax.set_ylabel("score per seat")
    means = table["score"]
    ax.errorbar(list(x), means, yerr=[means - table["score_lo"], table["score_hi"] - means], fmt="D", color="black",
                capsize=5, label="mean (95% CI over deals)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_xticks(list(x), agents, rotation=20, ha="right")
    ax.set_title(_title(results, "scores"))
    return ax


def plot_pairwise(results: TournamentResults, ax: Any = None) -> Any:
    """Head-to-head heat map: row agent's share of meetings finished ahead of the column agent;
    the diagonal (an agent against itself) is grey and unlabelled, a pair that never met blank."""
    import numpy as np

    plt = _pyplot()
    pair = results.pairwise()
    agents = list(pair.index)
    ax = _axes(ax, (1.1 * len(agents) + 3, 1.0 * len(agents) + 1.8))
    values = pair.to_numpy(dtype=float)
    diagonal = np.eye(len(agents), dtype=bool)
    image = ax.imshow(np.ma.masked_array(values, diagonal | np.isnan(values)), vmin=0, vmax=1, cmap="RdBu")
    ax.imshow(np.ma.masked_array(np.ones_like(values), ~diagonal), cmap="Greys", vmin=0, vmax=4)
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            value = pair.loc[a, b]
            if i != j and value == value:
                colour = "white" if abs(value - 0.5) > 0.3 else "black"  # legible on dark cells
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=9, color=colour)
            elif i == j:
                ax.text(j, i, "—", ha="center", va="center", fontsize=9, color="dimgrey")
    ax.set_xticks(range(len(agents)), agents, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), agents)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(_title(results, "head to head"))
    bar = plt.colorbar(image, ax=ax)
    bar.set_label("share of meetings the row agent finished ahead (ties half)")
    return ax


def plot_seat_effect(results: TournamentResults, ax: Any = None) -> Any:
    """Win rate by seat, over every agent and per agent, with 95% Wilson intervals; the legend
    sits outside the bars."""
    seats = results.seat_effect()
    names = list(dict.fromkeys(seats["agent"]))  # "all" first
    positions = sorted(seats["seat"].unique())
    ax = _axes(ax, (1.2 * len(positions) * len(names) / 2 + 4, 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        rows = seats[seats["agent"] == name].set_index("seat").reindex(positions)
        rate = rows["win_rate"]
        x = [p + (k - (len(names) - 1) / 2) * width for p in positions]
        ax.bar(x, rate, width, yerr=[rate - rows["win_lo"], rows["win_hi"] - rate], capsize=3,
               label=name, color="grey" if name == "all" else None)
    ax.set_xticks(positions, [f"seat {s}" for s in positions])
    ax.set_ylabel("win rate (95% Wilson interval over seats)")
    ax.set_ylim(0, 1)
    ax.set_title(_title(results, "win rate by seat (seat 0 moves first)"))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return ax


def plot_rating_history(results: TournamentResults, ax: Any = None) -> Any:
    """Each agent's openskill rating after every game it played, with its 95% band."""
    history = results.rating_history()
    ax = _axes(ax, (7, 4))
    for agent, rows in history.groupby("agent", sort=True):
        line = ax.plot(rows["game_id"] + 1, rows["mu"], label=str(agent))[0]
        ax.fill_between(rows["game_id"] + 1, rows["lo"], rows["hi"], alpha=0.15, color=line.get_color())
    ax.set_xlabel("game number (games are rated in game-id order)")
    ax.set_ylabel("openskill mu (95% band: ± 1.96 sigma)")
    ax.set_title(_title(results, "rating over games"))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return ax


#: file name -> the function that draws it
PLOTS: dict[str, Callable[..., Any]] = {
    "win_rate.png": plot_win_rates,
    "scores.png": plot_scores,
    "pairwise.png": plot_pairwise,
    "seat_winrate.png": plot_seat_effect,
    "rating_history.png": plot_rating_history,
}


def write_plots(results: TournamentResults, out: str | os.PathLike[str]) -> list[Path]:
    """Draw every plot of :data:`PLOTS` into ``out`` as PNG; return their paths."""
    if results.games.empty:
        raise DeduceError("no games recorded yet: nothing to plot")
    plt = _pyplot(headless=True)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in PLOTS.items():
        ax = draw(results)
        fig = ax.figure
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        paths.append(out / name)
    return paths
