"""benchmarks.clue_questions: the new and the old scorer agree on corpus states, and the table
says so (the timings themselves are not tested)."""

from __future__ import annotations

from benchmarks.clue_questions import main, run


def test_new_and_old_scores_agree_on_corpus_states():
    rows = run(every=40)
    assert sum(r["states"] for r in rows) == 3
    assert all(r["max_difference"] < 1e-12 for r in rows)


def test_table_and_load_are_printed():
    lines: list[str] = []
    assert main(["--every", "60", "--slowest", "1"], out=lines.append) == 0
    text = "\n".join(lines)
    assert text.startswith("| players | states |")
    assert "load average" in text and " ms, old " in text
