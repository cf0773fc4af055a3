"""The outcome of a tournament: the tidy games table and the summaries computed from it."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deduce.apps.tournament import stats
from deduce.apps.tournament.ratings import rate
from deduce.apps.tournament.store import ResultStore, require_pandas
from deduce.errors import DeduceError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TournamentResults"]


@dataclass(eq=False)
class TournamentResults:
    """``games`` holds one row per (game, seat) (see ``deduce.apps.tournament.COLUMNS``);
    ``config`` the tournament's configuration; ``path`` its results directory, if any;
    ``played`` how many games this run played (the others were already on disk)."""

    games: pd.DataFrame
    config: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    played: int = 0

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TournamentResults:
        """Read a results directory written by a (possibly interrupted) tournament."""
        require_pandas()
        store = ResultStore(path)
        config = store.read_config()
        if config is None:
            raise DeduceError(f"{path}: no tournament results here (no {store.config_path.name})")
        return cls(store.load(), config, Path(path))

    @property
    def num_games(self) -> int:
        return int(self.games["game_id"].nunique())

    @functools.cached_property
    def _ratings(self) -> pd.DataFrame:
        return rate(self.games)

    def ratings(self) -> pd.DataFrame:
        """openskill Plackett–Luce ratings, best first (see :func:`deduce.apps.tournament.ratings.rate`)."""
        return self._ratings.copy()

    def summary(self) -> pd.DataFrame:
        """The leaderboard: one row per agent, win rates and mean scores with 95% intervals,
        ratings, forfeits, mean turns and seconds per decision; best win rate first."""
        table = stats.agent_table(self.games)
        ratings = self._ratings[["agent", "mu", "sigma", "ordinal"]]
        table = table.merge(ratings, on="agent", how="left")
        table = table.sort_values(["win_rate", "mu", "agent"], ascending=[False, False, True])
        return table.reset_index(drop=True)

    def win_rates(self) -> dict[str, dict[str, Any]]:
        """Per agent: games, wins, win rate and its Wilson 95% interval (plain JSON types)."""
        return stats.win_rates(self.games)

    def pairwise(self) -> pd.DataFrame:
        return stats.pairwise(self.games)

    def seat_effect(self) -> pd.DataFrame:
        return stats.seat_effect(self.games)

    def failures(self) -> pd.DataFrame:
        """The rows of agents that forfeited: kind, message and traceback."""
        cols = ["game_id", "seat", "agent", "failure", "failure_message", "failure_traceback"]
        return self.games.loc[self.games["forfeit"], cols].reset_index(drop=True)
