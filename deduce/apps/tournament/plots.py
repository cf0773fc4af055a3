"""PNG plots of tournament results (matplotlib, headless).

Ratings with 95% error bars, the head-to-head heatmap and win rate by seat. A plot of remaining
worlds or entropy per turn would need per-turn knowledge, which the results table does not
record, so it is not drawn.
"""

from __future__ import annotations

import os
from pathlib import Path

from deduce.apps.tournament.results import TournamentResults
from deduce.errors import DeduceError

__all__ = ["write_plots"]


def _pyplot():  # type: ignore[no-untyped-def]
    try:
        import matplotlib
    except ImportError:
        raise DeduceError("plots need matplotlib: pip install 'deduce[tournament]'") from None
    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def write_plots(results: TournamentResults, out: str | os.PathLike[str]) -> list[Path]:
    """Write ``ratings.png``, ``pairwise.png`` and ``seat_winrate.png`` into ``out``; return their paths."""
    if results.games.empty:
        raise DeduceError("no games recorded yet: nothing to plot")
    plt = _pyplot()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []

    ratings = results.ratings().iloc[::-1]  # best at the top
    fig, ax = plt.subplots(figsize=(6, 0.5 * len(ratings) + 1.5))
    ax.errorbar(ratings["mu"], range(len(ratings)), xerr=ratings["mu"] - ratings["lo"], fmt="o", capsize=4)
    ax.set_yticks(range(len(ratings)), list(ratings["agent"]))
    ax.set_xlabel("openskill Plackett-Luce rating (mu, 95% interval)")
    ax.set_title(f"{results.config.get('game', '')}: ratings over {results.num_games} games")
    paths.append(_save(fig, out / "ratings.png", plt))

    pair = results.pairwise()
    agents = list(pair.index)
    fig, ax = plt.subplots(figsize=(1.1 * len(agents) + 2.5, 1.0 * len(agents) + 1.5))
    image = ax.imshow(pair.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(agents)), agents, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), agents)
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            value = pair.loc[a, b]
            if i != j and value == value:  # skip the diagonal and NaN
                colour = "white" if abs(value - 0.5) > 0.3 else "black"  # legible on dark cells
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=9, color=colour)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("share of meetings finished ahead")
    fig.colorbar(image, ax=ax)
    paths.append(_save(fig, out / "pairwise.png", plt))

    seats = results.seat_effect()
    names = [c for c in seats.columns if c not in ("seat", "games", "win_rate", "win_lo", "win_hi")]
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / (len(names) + 1)
    for k, name in enumerate(["all", *names]):
        values = seats["win_rate"] if name == "all" else seats[name]
        ax.bar(seats["seat"] + (k - len(names) / 2) * width, values, width, label=name)
    ax.set_xticks(list(seats["seat"]), [f"seat {s}" for s in seats["seat"]])
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title("win rate by seat (seat 0 moves first)")
    ax.legend()
    paths.append(_save(fig, out / "seat_winrate.png", plt))
    return paths


def _save(fig, path: Path, plt) -> Path:  # type: ignore[no-untyped-def]
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
