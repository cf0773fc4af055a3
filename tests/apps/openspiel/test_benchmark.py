"""The OpenSpiel benchmark runs end to end on a tiny budget (its figures come from real runs)."""

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pandas")


@pytest.mark.slow
def test_benchmark_plays_and_reports(capsys):
    from benchmarks.openspiel import main

    assert main(["--games", "3", "--runs", "1", "--simulations", "2"]) == 0
    out = capsys.readouterr().out
    assert "openspiel-ismcts" in out and "racer" in out and "infogain" in out and "median of 1 runs" in out
