"""Statistics and ratings on small hand-made tables whose answers are known."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from deduce.apps.tournament.ratings import rate
from deduce.apps.tournament.stats import (
    agent_table,
    clopper_pearson,
    cluster_mean_ci,
    mean_ci,
    paired_by_deal,
    paired_difference,
    pairwise,
    seat_effect,
    sign_test,
    wilson,
    win_rates,
)
from deduce.apps.tournament.store import rows_to_frame


def _rows(games, per_deal=1):
    """games: list of [(agent, score), ...] in seat order -> tidy frame (``per_deal`` games a deal)."""
    rows = []
    for gid, seats in enumerate(games):
        best = max(s for _, s in seats)
        for seat, (agent, score) in enumerate(seats):
            rows.append({
                "run_id": "r", "game": "clue", "game_id": gid, "round": gid // per_deal, "deal": gid // per_deal, "seat": seat, "agent": agent, "agent_name": agent,
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


def test_clopper_pearson_is_scipys_exact_interval_and_wider_than_wilson():
    assert clopper_pearson(12, 12) == (pytest.approx(0.7354, abs=1e-4), 1.0)
    lo, hi = clopper_pearson(3, 10)
    w_lo, w_hi = wilson(3, 10)
    assert lo < w_lo and hi > w_hi


def test_mean_ci_is_a_bootstrap_within_the_range_and_shrinks_with_n():
    m, lo, hi = mean_ci([0, 1] * 50)
    assert m == 0.5 and 0.38 < lo < 0.42 and 0.58 < hi < 0.62  # about ±1.96·0.05
    _, lo4, hi4 = mean_ci([0, 1] * 200)
    assert hi4 - lo4 < (hi - lo) * 0.6
    assert mean_ci([0, 1] * 50) == (m, lo, hi)  # seeded: the same every time
    _, lo1, hi1 = mean_ci([0.0, 0.0, 0.0, 1.0])
    assert 0.0 <= lo1 and hi1 <= 1.0  # never outside what a score can be


def test_a_perfect_record_has_an_honest_interval_over_deals():
    # 12 wins of 12 in 4 deals: not [1, 1]; the interval is Clopper-Pearson over the 4 deals
    ci = cluster_mean_ci([1.0] * 12, np.repeat(range(4), 3), bounds=(0.0, 1.0))
    assert ci.estimate == 1.0 and ci.hi == 1.0 and ci.lo == pytest.approx(scipy.stats.binomtest(4, 4).proportion_ci(method="exact").low)
    assert ci.unit == "deals" and ci.n == 4 and "Clopper-Pearson" in ci.method
    zero = cluster_mean_ci([0.0] * 300, np.repeat(range(100), 3), bounds=(0.0, 1.0))
    assert zero.lo == 0.0 and 0.0 < zero.hi < 0.05


def test_clusters_widen_the_interval_of_correlated_games():
    rng = np.random.default_rng(3)
    deal_effect = rng.normal(0, 1, 40)
    values = np.repeat(deal_effect, 6) + rng.normal(0, 0.1, 240)  # six near-copies of each deal
    by_deal = cluster_mean_ci(values, np.repeat(range(40), 6))
    naive = cluster_mean_ci(values, range(240))
    assert by_deal.n == 40 and naive.n == 240
    assert (by_deal.hi - by_deal.lo) > 2 * (naive.hi - naive.lo)  # about sqrt(6) wider


def test_sign_test_and_paired_differences():
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)
    assert sign_test(1, 9) == sign_test(9, 1) and sign_test(5, 5) == 1.0 and sign_test(0, 0) == 1.0
    d = paired_difference([0.5] * 15 + [-0.5] * 3 + [0.0] * 2)
    assert d["n"] == 20 and d["ahead"] == 15 and d["behind"] == 3 and d["mean"] == pytest.approx(0.3)
    assert d["lo"] < 0.3 < d["hi"] and d["sign_p"] == pytest.approx(sign_test(15, 3))
    assert d["wilcoxon_p"] == pytest.approx(scipy.stats.wilcoxon([0.5] * 15 + [-0.5] * 3).pvalue)
    assert paired_difference([0.0, 0.0])["sign_p"] == 1.0 == paired_difference([0.0, 0.0])["wilcoxon_p"]


def test_paired_by_deal_compares_agents_on_the_same_deals():
    # deal k: two rotations; a wins both on deals 0-5, b wins one each on deals 6-7
    games = []
    for deal in range(8):
        if deal < 6:
            games += [[("a", 1), ("b", 0)], [("b", 0), ("a", 1)]]
        else:
            games += [[("a", 1), ("b", 0)], [("b", 1), ("a", 0)]]
    (row,) = paired_by_deal(_rows(games, per_deal=2))
    assert (row["a"], row["b"], row["n"], row["unit"]) == ("a", "b", 8, "deals")
    assert row["mean"] == pytest.approx(6 / 8) and row["ahead"] == 6 and row["behind"] == 0
    assert row["sign_p"] == pytest.approx(2 / 64)


def test_agent_table_counts_games_and_seats_apart():
    frame = _rows([[("a", 1), ("b", 0), ("a", 0)]] * 4)
    table = agent_table(frame).set_index("agent")
    assert table.loc["a", "games"] == 4 and table.loc["a", "seats"] == 8 and table.loc["b", "seats"] == 4
    assert table.loc["a", "win_rate"] == 0.5 and table.loc["a", "deals"] == 4
    assert 0.0 <= table.loc["b", "score_lo"] <= table.loc["b", "score_hi"] <= 1.0


def test_win_rates_pairwise_and_seats():
    frame = _rows([[("a", 1), ("b", 0), ("c", 0)], [("b", 1), ("c", 0), ("a", 0)], [("c", 0), ("a", 1), ("b", 0)]])
    wr = win_rates(frame)
    assert wr["a"] == {"seats": 3, "wins": 2, "win_rate": 2 / 3, "ci95": list(wilson(2, 3))}
    assert wr["c"]["wins"] == 0
    pw = pairwise(frame)
    assert pw.loc["a", "b"] == pytest.approx(2 / 3)
    assert pw.loc["b", "a"] == pytest.approx(1 / 3)
    assert pw.loc["b", "c"] == pytest.approx((1 + 0.5 + 0.5) / 3)  # b ahead once, tied twice
    seats = seat_effect(frame).set_index(["seat", "agent"])
    assert seats.loc[(0, "all"), "win_rate"] == pytest.approx(2 / 3) and seats.loc[(2, "all"), "win_rate"] == 0
    assert seats.loc[(1, "a"), "win_rate"] == 1.0 and seats.loc[(1, "a"), "seats"] == 1
    assert seats.loc[(1, "a"), "win_lo"] == pytest.approx(wilson(1, 1)[0])


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
