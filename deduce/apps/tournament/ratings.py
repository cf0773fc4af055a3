"""Skill ratings from finishing orders: openskill's Plackett–Luce model.

Games are rated in game-id order (not finishing order), so ratings are the same whatever the
backend or however often a run was resumed. Each seat is a one-player team ranked by its score;
equal scores tie. An agent holding several seats in one game (more seats than agents) gets the
mean of its per-seat updates.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from deduce.errors import DeduceError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["rate", "rating_history", "Z95"]

Z95 = 1.959963984540054


def _model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise DeduceError("ratings need openskill: pip install 'deduce[tournament]'") from None
    return PlackettLuce()


def _rated(games: pd.DataFrame) -> Iterator[tuple[int, dict[str, Any], dict[str, int], set[str]]]:
    """Rate the games in game-id order; after each, yield its id, every rating so far, games
    rated per agent, and the agents it rated."""
    model = _model()
    ratings: dict[str, Any] = {}
    played: dict[str, int] = {}
    for game_id, game in games.sort_values(["game_id", "seat"]).groupby("game_id", sort=True):
        labels = list(game["agent"])
        scores = [float(s) for s in game["score"]]
        if len(labels) < 2:
            continue
        for label in labels:
            ratings.setdefault(label, model.rating(name=label))
        teams = [[ratings[label]] for label in labels]
        if len(set(labels)) == len(labels):
            updated = model.rate(teams, scores=scores)
            for label, team in zip(labels, updated, strict=True):
                ratings[label] = team[0]
        else:  # the same agent in several seats: copies, then average its updates
            copies = [[model.rating(mu=ratings[lb].mu, sigma=ratings[lb].sigma, name=lb)] for lb in labels]
            updated = model.rate(copies, scores=scores)
            for label in set(labels):
                mine = [team[0] for lb, team in zip(labels, updated, strict=True) if lb == label]
                ratings[label] = model.rating(
                    mu=sum(r.mu for r in mine) / len(mine),
                    sigma=sum(r.sigma for r in mine) / len(mine),
                    name=label,
                )
        for label in set(labels):
            played[label] = played.get(label, 0) + 1
        yield int(game_id), ratings, played, set(labels)


def rating_history(games: pd.DataFrame) -> pd.DataFrame:
    """The rating of each agent after every game it played: ``game_id``, ``agent``, ``games``
    (rated so far), ``mu``, ``sigma``, ``lo``, ``hi`` (mu ± 1.96 sigma), in game-id order."""
    import pandas as pd

    rows = [
        {"game_id": game_id, "agent": label, "games": played[label], "mu": ratings[label].mu,
         "sigma": ratings[label].sigma, "lo": ratings[label].mu - Z95 * ratings[label].sigma,
         "hi": ratings[label].mu + Z95 * ratings[label].sigma}
        for game_id, ratings, played, labels in _rated(games) for label in sorted(labels)
    ]
    return pd.DataFrame(rows, columns=["game_id", "agent", "games", "mu", "sigma", "lo", "hi"])


def rate(games: pd.DataFrame) -> pd.DataFrame:
    """One row per agent: ``mu``, ``sigma``, ``ordinal`` (mu - 3 sigma, a conservative skill),
    the 95% interval ``lo``/``hi`` (mu ± 1.96 sigma), and the number of ``games`` rated,
    sorted best first."""
    import pandas as pd

    ratings: dict[str, Any] = {}
    played: dict[str, int] = {}
    for _, after, counts, _ in _rated(games):  # the ratings after the last game
        ratings, played = after, counts
    rows = [
        {
            "agent": label,
            "mu": r.mu,
            "sigma": r.sigma,
            "ordinal": r.mu - 3 * r.sigma,
            "lo": r.mu - Z95 * r.sigma,
            "hi": r.mu + Z95 * r.sigma,
            "games": played[label],
        }
        for label, r in ratings.items()
    ]
    frame = pd.DataFrame(rows, columns=["agent", "mu", "sigma", "ordinal", "lo", "hi", "games"])
    return frame.sort_values(["ordinal", "agent"], ascending=[False, True]).reset_index(drop=True)
