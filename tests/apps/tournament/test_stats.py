"""Statistics and ratings on small hand-made tables whose answers are known."""

import pandas as pd
import pytest

from deduce.apps.tournament.ratings import rate
from deduce.apps.tournament.stats import mean_ci, pairwise, seat_effect, wilson, win_rates
from deduce.apps.tournament.store import rows_to_frame


def _rows(games):
    """games: list of [(agent, score), ...] in seat order -> tidy frame."""
    rows = []
    for gid, seats in enumerate(games):
        best = max(s for _, s in seats)
        for seat, (agent, score) in enumerate(seats):
            rows.append({
                "game_id": gid, "round": gid, "deal": gid, "seat": seat, "agent": agent, "agent_name": agent,
                "players": len(seats), "score": score, "rank": 1 + sum(o > score for _, o in seats),
                "win": score == best and best > 0, "forfeit": False, "failure": "", "moves": 10, "turns": 4,
                "decisions": 5, "decision_seconds": 0.5, "wall_seconds": 1.0, "seed": gid, "deal_seed": gid,
                "failure_message": "", "failure_traceback": "",
            })
    return rows_to_frame(rows)


def test_wilson_matches_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_ci_shrinks_with_n():
    m, lo, hi = mean_ci([0, 1] * 50)
    assert m == 0.5 and lo == pytest.approx(0.5 - 1.96 * 0.5025 / 10, abs=1e-3) and hi > m
    assert mean_ci([3.0]) == (3.0, 3.0, 3.0)


def test_win_rates_pairwise_and_seats():
    frame = _rows([[("a", 1), ("b", 0), ("c", 0)], [("b", 1), ("c", 0), ("a", 0)], [("c", 0), ("a", 1), ("b", 0)]])
    wr = win_rates(frame)
    assert wr["a"] == {"games": 3, "wins": 2, "win_rate": 2 / 3, "ci95": list(wilson(2, 3))}
    assert wr["c"]["wins"] == 0
    pw = pairwise(frame)
    assert pw.loc["a", "b"] == pytest.approx(2 / 3)
    assert pw.loc["b", "a"] == pytest.approx(1 / 3)
    assert pw.loc["b", "c"] == pytest.approx((1 + 0.5 + 0.5) / 3)  # b ahead once, tied twice
    seats = seat_effect(frame).set_index("seat")
    assert seats.loc[0, "win_rate"] == pytest.approx(2 / 3) and seats.loc[2, "win_rate"] == 0


def test_ratings_order_follows_results_and_are_order_free():
    games = [[("strong", 1), ("mid", 0.5), ("weak", 0)], [("weak", 0), ("strong", 1), ("mid", 0.5)]] * 5
    frame = _rows(games)
    r = rate(frame)
    assert list(r["agent"]) == ["strong", "mid", "weak"]
    assert (r["lo"] < r["mu"]).all() and (r["games"] == 10).all()
    shuffled = frame.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(rate(shuffled), r)


def test_ratings_with_an_agent_in_two_seats():
    frame = _rows([[("a", 1), ("b", 0), ("a", 0)]] * 4)
    r = rate(frame).set_index("agent")
    assert set(r.index) == {"a", "b"} and r.loc["a", "games"] == 4
