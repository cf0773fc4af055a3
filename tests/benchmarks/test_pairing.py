"""The per-deal paired comparison of benchmarks.search_agents (deals are the independent unit)."""

from __future__ import annotations

import pytest

from benchmarks.search_agents import paired_by_deal, sign_test


def test_sign_test_exact_values():
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)
    assert sign_test(1, 9) == sign_test(9, 1)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0


def _game(seed, seats, winner):
    return {"matchup": "a vs b", "players": 3, "seed": seed, "seats": seats, "winner": winner}


def test_paired_by_deal_groups_games_by_deal():
    ab, ba = ["a", "b", "a"], ["b", "a", "b"]
    games = [
        # deal 1: a wins 2 of its 3 seats (1 + 1 of 2), b 1 of 3
        _game(1, ab, 0), _game(1, ba, 1), _game(1, ab, 1),
        # deal 2: b wins everything
        _game(2, ab, 1), _game(2, ba, 0), _game(2, ba, 2),
        # deal 3: a wins all three
        _game(3, ab, 0), _game(3, ab, 2), _game(3, ba, 1),
    ]
    (row,) = paired_by_deal(games)
    assert row["agents"] == ["a", "b"] and row["deals"] == 3
    # seats per deal: deal 1 a 5, b 4; deal 2 a 4, b 5; deal 3 a 5, b 4
    want = [2 / 5 - 1 / 4, 0 / 4 - 3 / 5, 3 / 5 - 0 / 4]
    assert row["mean_diff"] == pytest.approx(sum(want) / 3)
    assert (row["ahead"], row["behind"]) == (2, 1)
    assert row["ci95"][0] < row["mean_diff"] < row["ci95"][1]
    assert row["sign_p"] == pytest.approx(1.0)


def test_the_difference_follows_the_matchup_not_the_first_seat():
    games = [_game(1, ["b", "a", "b"], 0), _game(1, ["a", "b", "a"], 0), _game(2, ["b", "a", "b"], 1)]
    (row,) = paired_by_deal(games)
    assert row["agents"] == ["a", "b"]
    # deal 1: a 1 win of 3 seats, b 1 of 3; deal 2 (one game): a 1 of 1, b 0 of 2
    assert row["mean_diff"] == pytest.approx((0 + 1) / 2)
    (single,) = paired_by_deal(games[:2])
    assert single["deals"] == 1 and single["ci95"] is None
