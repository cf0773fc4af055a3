"""benchmarks.clue_questions: the new and the old scorer agree on corpus states, and the table
says so (the timings themselves are not tested)."""

from __future__ import annotations

from benchmarks.clue_questions import main, run


def test_new_and_old_scores_agree_on_corpus_states():
    rows = run(every=40, repeat=2)
    assert sum(r["states"] for r in rows) == 3
    assert all(r["max_difference"] < 1e-12 for r in rows)
    for r in rows:  # the order statistics are of the same states (not a timing assertion)
        assert r["new_median_ms"] <= r["new_p95_ms"] <= r["new_max_ms"]
        assert 0 <= r["new_over"] <= r["states"] and 0 <= r["old_over"] <= r["states"]


def test_over_the_limit_counts_every_state_when_the_limit_is_zero():
    rows = run(every=60, repeat=1, limit_ms=0.0)
    assert [r["new_over"] for r in rows] == [r["states"] for r in rows]


def test_table_and_load_are_printed():
    lines: list[str] = []
    assert main(["--every", "60", "--slowest", "1", "--repeat", "1", "--limit", "20"], out=lines.append) == 0
    text = "\n".join(lines)
    assert text.startswith("| players | states |")
    assert "new median / p95 / max ms" in text and "states over 20 ms" in text
    assert "load average" in text and " ms, old " in text
