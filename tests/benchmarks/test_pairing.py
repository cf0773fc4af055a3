"""The per-deal paired comparison of the agent benchmarks (benchmarks._experiment.paired): deals
are the independent unit, and the difference is the matchup's first agent minus its second."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks._experiment import paired
from deduce.apps.tournament.stats import sign_test


def test_sign_test_exact_values():
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)
    assert sign_test(1, 9) == sign_test(9, 1)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0


def _games(games: list[tuple[int, list[str], int]]) -> pd.DataFrame:
    rows = []
    for game_id, (deal, seats, winner) in enumerate(games):
        for seat, agent in enumerate(seats):
            rows.append({"game_id": game_id, "deal": deal, "seat": seat, "agent": agent,
                         "score": float(seat == winner)})
    return pd.DataFrame(rows)


def test_paired_groups_games_by_deal():
    ab, ba = ["a", "b", "a"], ["b", "a", "b"]
    games = _games([
        # deal 1: a wins 2 of its 5 seats, b 1 of 4
        (1, ab, 0), (1, ba, 1), (1, ab, 1),
        # deal 2: b wins everything
        (2, ab, 1), (2, ba, 0), (2, ba, 2),
        # deal 3: a wins all three
        (3, ab, 0), (3, ab, 2), (3, ba, 1),
    ])
    row = paired(games, "a", "b")
    assert row["n"] == 3
    want = [2 / 5 - 1 / 4, 0 / 4 - 3 / 5, 3 / 5 - 0 / 4]
    assert row["mean"] == pytest.approx(sum(want) / 3)
    assert (row["ahead"], row["behind"]) == (2, 1)
    assert row["lo"] < row["mean"] < row["hi"]
    assert row["sign_p"] == pytest.approx(1.0)


def test_the_difference_follows_the_matchup_not_the_names_order():
    games = _games([(1, ["b", "a", "b"], 0), (1, ["a", "b", "a"], 0), (2, ["b", "a", "b"], 1)])
    row = paired(games, "a", "b")
    # deal 1: a 1 win of 3 seats, b 1 of 3; deal 2 (one game): a 1 of 1, b 0 of 2
    assert row["mean"] == pytest.approx((0 + 1) / 2)
    back = paired(games, "b", "a")
    assert back["mean"] == pytest.approx(-row["mean"]) and (back["ahead"], back["behind"]) == (0, 1)
