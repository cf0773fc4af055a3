"""The chain counter's work on a hard Crime Hotel state: the answer is pinned and the counted
steps (states, spreads and successors, never wall time) stay well below what the counter
spent before it pruned dead-end opening spreads and shared the movers' choices."""

from __future__ import annotations

import json
from pathlib import Path

from deduce.knowledge import KnowledgeBase
from solvers.chain import ChainSolver

HARD = Path(__file__).parents[2] / "benchmarks" / "hard_states" / "crime-hotel"


def _kb(name: str) -> KnowledgeBase:
    return KnowledgeBase.from_json(json.loads((HARD / f"{name}.json").read_text())["knowledge"])


def test_spectator_state_counted_with_less_work():
    chain = ChainSolver()
    tally = chain.tallies(_kb("4p-g1-d17-spec"))
    assert tally.total == 39_399_500_000  # the count before the change
    assert sum(tally.cells[0]) == tally.total  # every card is somewhere in every history
    assert chain.work < 200_000  # 397,165 steps before the pruning


def test_player_view_counted_with_less_work():
    chain = ChainSolver()
    tally = chain.tallies(_kb("4p-g1-d23-p3"))
    assert tally.total == 1_400_000
    assert chain.work < 35_000  # 50,803 steps before
