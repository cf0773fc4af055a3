"""The refutation-order lattice (the default question scorer) leaves the Clue agents' play
unchanged: seeded games replay move for move with the former block scorer in its place."""

from __future__ import annotations

import pytest

import agents
import agents.clue.questions as questions
from deduce.games.clue.rules import ClueGame, Suggest
from deduce.play import GameRun


def _moves(name: str, players: int, moves: int, seed: int) -> list:
    game = ClueGame(num_players=players)
    seats = [agents.get(name, game="clue") for _ in range(players)]
    return [step.action for step in GameRun(game, seats, seed=seed, max_moves=moves, errors="raise")]


@pytest.mark.parametrize(("name", "players", "moves", "seed"), [("infogain", 4, 40, 3), ("racer", 3, 40, 5), ("infogain", 5, 30, 8)])
def test_same_moves_as_the_block_scorer(name, players, moves, seed, monkeypatch):
    lattice = _moves(name, players, moves, seed)
    monkeypatch.setattr(questions, "score_questions", questions.score_questions_by_blocks)
    blocks = _moves(name, players, moves, seed)
    assert lattice == blocks
    assert sum(isinstance(a, Suggest) for a in lattice) >= 3  # the scorer chose real questions
