"""Tournaments between agents: schedules, backends, resumable results, ratings and reports.

``Tournament(game, agents, games, seed).run()`` returns :class:`TournamentResults`;
``TournamentResults.load(dir)`` reads a results directory back. pandas, pyarrow, scipy,
openskill, tqdm, matplotlib and ray are imported only when needed
(``pip install 'deduce[tournament]'``).
"""

from deduce.apps.tournament.backends import BackendName, default_workers
from deduce.apps.tournament.results import TournamentResults
from deduce.apps.tournament.runner import AllForfeited, Interrupted, Tournament
from deduce.apps.tournament.schedule import (
    AgentSpec,
    Arrangement,
    GameSpec,
    Schedule,
    derive_seed,
    parse_agent,
)
from deduce.apps.tournament.stats import clopper_pearson, wilson
from deduce.apps.tournament.worker import COLUMNS, TIMING_COLUMNS

__all__ = [
    "Tournament",
    "AllForfeited",
    "Interrupted",
    "TournamentResults",
    "AgentSpec",
    "Arrangement",
    "BackendName",
    "GameSpec",
    "Schedule",
    "COLUMNS",
    "TIMING_COLUMNS",
    "derive_seed",
    "default_workers",
    "parse_agent",
    "wilson",
    "clopper_pearson",
]
