"""The outcome of a tournament: the tidy games table and the summaries computed from it."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deduce.apps.tournament import stats
from deduce.apps.tournament.ratings import rate, rating_history
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
        if not Path(path).exists():
            raise DeduceError(f"{path}: no tournament results here (no such directory)")
        store = ResultStore(path)
        config = store.read_config()
        if config is None and not any(store.path.glob("games.*")) and not (store.path / "parts").is_dir():
            raise DeduceError(f"{path}: no tournament results here (no {store.config_path.name})")
        games = store.load()  # without a readable tournament.json (quarantined) the rows still report
        if config is None and games.empty:
            raise DeduceError(f"{path}: no readable tournament results here (no {store.config_path.name})")
        return cls(games, config or {}, Path(path))

    @property
    def num_games(self) -> int:
        return int(self.games["game_id"].nunique())

    @functools.cached_property
    def _ratings(self) -> pd.DataFrame:
        return rate(self.games)

    def ratings(self) -> pd.DataFrame:
        """openskill Plackett–Luce ratings, best first (see :func:`deduce.apps.tournament.ratings.rate`)."""
        return self._ratings.copy()

    @property
    def seed(self) -> int:
        """The seed every bootstrap of the report uses: the tournament's, so a report is the
        same each time it is printed."""
        try:
            return int(self.config.get("seed", 0))
        except (TypeError, ValueError):
            return 0

    def rating_history(self) -> pd.DataFrame:
        """Each agent's rating after every game it played (see
        :func:`deduce.apps.tournament.ratings.rating_history`)."""
        return rating_history(self.games)

    def summary(self) -> pd.DataFrame:
        """The leaderboard: one row per agent: games and seats played, the win rate per seat
        with its Wilson interval, the mean score with its bootstrap interval over deals, the
        rating, forfeits, mean turns and seconds per decision; best win rate first."""
        table = stats.agent_table(self.games, seed=self.seed)
        ratings = self._ratings[["agent", "mu", "sigma", "ordinal"]]
        table = table.merge(ratings, on="agent", how="left")
        table = table.sort_values(["win_rate", "mu", "agent"], ascending=[False, False, True])
        return table.reset_index(drop=True)

    def win_rates(self) -> dict[str, dict[str, Any]]:
        """Per agent: seats, wins, win rate per seat and its Wilson 95% interval (plain JSON)."""
        return stats.win_rates(self.games)

    def pairwise(self) -> pd.DataFrame:
        """Head to head: A's share of the games A and B played together that A finished ahead."""
        return stats.pairwise(self.games)

    def paired(self) -> list[dict[str, Any]]:
        """Every two agents compared deal by deal (mean score difference, interval over deals,
        sign and Wilcoxon tests): see :func:`deduce.apps.tournament.stats.paired_by_deal`."""
        return stats.paired_by_deal(self.games, seed=self.seed)

    def seat_effect(self) -> pd.DataFrame:
        """Win rate by seat, over every agent and per agent, with Wilson intervals."""
        return stats.seat_effect(self.games)

    def failures(self) -> pd.DataFrame:
        """The rows of agents that forfeited: kind, message and traceback."""
        cols = ["game_id", "seat", "agent", "failure", "failure_message", "failure_traceback"]
        return self.games.loc[self.games["forfeit"], cols].reset_index(drop=True)

    def report(self) -> dict[str, Any]:
        """Every figure of ``deduce report``, as plain JSON data (``--json``, ``summary.json``);
        the text report is drawn from this alone (see :func:`deduce.apps.tournament.report.render`)."""
        from deduce.apps.tournament.report import payload

        return payload(self)

    def write_summary(self, out: str | os.PathLike[str] | None = None) -> list[Path]:
        """Write ``summary.csv`` (the leaderboard) and ``summary.json`` (:meth:`report`) into
        ``out`` (default: the results directory); return their paths."""
        where = out if out is not None else self.path
        if where is None:
            raise DeduceError("these results have no directory: pass one to write the summary into")
        if self.games.empty:
            return []
        return ResultStore(where).write_summary(self.summary(), self.report())
