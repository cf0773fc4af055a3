"""Clue question scoring: all 324 suggestions by exact expected information, old and new.

``python -m benchmarks.clue_questions`` scores every suggestion in every own view of the
solver corpus (:func:`benchmarks.solvers.generate_corpus`, 3-6 players, 0-60 suggestions)
with :func:`agents.clue.questions.score_questions` (one DP over the locations in refutation
order serves every question) and with :func:`agents.clue.questions.score_questions_by_blocks`
(tracked DP passes shared by blocks of card classes, the former code), in the same run and
alternating per state. A state's time is the median of ``--repeat`` runs (3 by default) of each
scorer; per player count it prints the median, 95th percentile and maximum over the states of
each, the ratio old/new of the medians and of the maxima, how many states take over
``--limit`` ms (50 by default: issue 27's aim for the maximum), the largest score difference
(exactness check), and the load average before and after (the machine may be shared).
``--every N`` keeps every N-th state (a quick look); ``--slowest N`` also lists the N slowest
states of the new code.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.clue.questions import score_questions, score_questions_by_blocks
from benchmarks.solvers import generate_corpus
from deduce.games.clue.rules import ClueGame
from deduce.knowledge import KnowledgeBase

__all__ = ["run", "format_table", "main"]

Scorer = Callable[..., dict[tuple[int, ...], float]]


def _score(scorer: Scorer, item: dict[str, Any]) -> tuple[float, dict[tuple[int, ...], float]]:
    """Seconds to score all suggestions of one own view, and the scores."""
    kb = KnowledgeBase.from_json(item["kb"])
    game = ClueGame(num_players=item["players"])
    asker = int(item["name"].rsplit("-p", 1)[1])
    n = game.num_players
    responders = [(asker + k) % n for k in range(1, n)]
    t0 = time.perf_counter()
    scores = scorer(kb, kb.loc("envelope"), list(game.triples()), responders, {})
    return time.perf_counter() - t0, scores


def run(every: int = 1, repeat: int = 3, limit_ms: float = 50.0) -> list[dict[str, Any]]:
    """One row per player count: states, median/p95/max ms of new and old (each state's time
    the median of ``repeat`` runs), ratios, states over ``limit_ms``, max difference."""
    items = [it for it in generate_corpus() if it["view"] == "own"][::every]
    for scorer in (score_questions, score_questions_by_blocks):  # compile the kernels first
        _score(scorer, items[0])
    per: dict[int, dict[str, list[Any]]] = {}
    for it in items:
        runs: dict[str, list[float]] = {"new": [], "old": []}
        for _ in range(repeat):
            t_new, new = _score(score_questions, it)
            t_old, old = _score(score_questions_by_blocks, it)
            runs["new"].append(t_new)
            runs["old"].append(t_old)
        assert len(new) == 324
        row = per.setdefault(it["players"], {"new": [], "old": [], "diff": [], "names": []})
        row["names"].append(it["name"])
        row["new"].append(statistics.median(runs["new"]))
        row["old"].append(statistics.median(runs["old"]))
        row["diff"].append(max(abs(new[q] - old[q]) for q in old))
    rows = []
    for p, r in sorted(per.items()):
        new_ms, old_ms = 1000 * np.array(r["new"]), 1000 * np.array(r["old"])
        rows.append({
            "players": p,
            "states": len(new_ms),
            "new_median_ms": float(np.median(new_ms)),
            "new_p95_ms": float(np.percentile(new_ms, 95)),
            "new_max_ms": float(new_ms.max()),
            "old_median_ms": float(np.median(old_ms)),
            "old_p95_ms": float(np.percentile(old_ms, 95)),
            "old_max_ms": float(old_ms.max()),
            "median_ratio": float(np.median(old_ms) / np.median(new_ms)),
            "max_ratio": float(old_ms.max() / new_ms.max()),
            "limit_ms": limit_ms,
            "new_over": int((new_ms > limit_ms).sum()),
            "old_over": int((old_ms > limit_ms).sum()),
            "max_difference": max(r["diff"]),
            "slowest": sorted(zip(r["new"], r["old"], r["names"], strict=True), reverse=True),
        })
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    limit = f"{rows[0]['limit_ms']:g}" if rows else "50"
    lines = [
        "| players | states | new median / p95 / max ms | old median / p95 / max ms | old/new median | old/new max "
        f"| states over {limit} ms new / old | max score difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['players']} | {r['states']} | {r['new_median_ms']:.1f} / {r['new_p95_ms']:.1f} / {r['new_max_ms']:.1f} "
            f"| {r['old_median_ms']:.1f} / {r['old_p95_ms']:.1f} / {r['old_max_ms']:.1f} | {r['median_ratio']:.2f} "
            f"| {r['max_ratio']:.2f} | {r['new_over']} / {r['old_over']} | {r['max_difference']:.1e} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.clue_questions", description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=1, help="keep every N-th state of the corpus")
    parser.add_argument("--slowest", type=int, default=0, help="also list the N slowest states (new code)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per state and scorer (the median is kept)")
    parser.add_argument("--limit", type=float, default=50.0, help="count the states slower than this many ms")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every {args.every}: must be at least 1")
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: must be at least 1")
    before = os.getloadavg()[0]
    rows = run(args.every, args.repeat, args.limit)
    out(format_table(rows))
    out(f"load average (1 min): {before:.1f} before, {os.getloadavg()[0]:.1f} after")
    if args.slowest:
        slow = sorted((s for r in rows for s in r["slowest"]), reverse=True)[: args.slowest]
        for t_new, t_old, name in slow:
            out(f"{name}: new {1000 * t_new:.1f} ms, old {1000 * t_old:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
