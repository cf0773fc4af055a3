"""Calibrating the expected-information-gain selector on Mastermind (4 pegs, 6 colours).

The Clue ``infogain`` agent picks the question whose answer has the most expected
information about the hidden answer. Mastermind is the classic test bed with published
numbers for the same rule, so ``python -m benchmarks.mastermind`` plays all 1296 secrets with
each selector and prints the total number of guesses (the last, all-black guess counted)
and the worst case, next to the literature:

=================  =========================================  ======  =====
selector           picks the guess that ...                   total   max
=================  =========================================  ======  =====
``entropy``        maximises the feedback entropy (Neuwirth)   5722    —
``minimax``        minimises the largest part (Knuth)          5801    5
``expected_size``  minimises the expected part size (Irving)   5696    —
``most_parts``     maximises the number of parts (Kooi)        5668    —
=================  =========================================  ======  =====

(Koyama and Lai's optimum is 5625.) Every guess of all 1296 codes is considered, not only
the secrets still possible; since the feedback is a deterministic function of the secret,
the entropy of the feedback over the remaining secrets is exactly the expected information
gain. Ties are broken, as in Knuth's paper, by preferring a guess that could still be the
secret, then the lowest code in lexicographic order (1111 < 1112 < ...); ``--tie first``
takes the lowest code whether or not it could be the secret. Scores are compared exactly
(integer sums for minimax, parts and expected size; the entropy's ``sum n_i log n_i`` to
1e-9, far below the gap between distinct values).

``--json`` prints ``{selector: {"total": t, "max": m}}``; ``--quick`` plays 3 pegs and 4
colours instead (a smoke run); ``--pegs`` / ``--colours`` choose another size.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["PUBLISHED", "SELECTORS", "all_codes", "feedback", "feedback_table", "partition_counts", "solve_all", "main"]

#: published totals (max guesses where the paper states it) for 4 pegs, 6 colours
PUBLISHED: dict[str, dict[str, int | None]] = {
    "entropy": {"total": 5722, "max": None},
    "minimax": {"total": 5801, "max": 5},
    "expected_size": {"total": 5696, "max": None},
    "most_parts": {"total": 5668, "max": None},
}


def all_codes(pegs: int, colours: int) -> np.ndarray:
    """Every code as a row of colour indices, in lexicographic order."""
    return np.array(list(itertools.product(range(colours), repeat=pegs)), dtype=np.int64)


def feedback(guess: Sequence[int], secret: Sequence[int], colours: int) -> tuple[int, int]:
    """(black, white) pegs: right colour right place; right colour wrong place."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(list(guess).count(c), list(secret).count(c)) for c in range(colours))
    return black, common - black


def feedback_table(codes: np.ndarray, colours: int) -> np.ndarray:
    """``table[g, s]``: the feedback of guess ``g`` for secret ``s`` as ``black * (pegs+1) + white``."""
    pegs = codes.shape[1]
    black = (codes[:, None, :] == codes[None, :, :]).sum(axis=2)
    hist = np.stack([(codes == c).sum(axis=1) for c in range(colours)], axis=1)
    common = np.minimum(hist[:, None, :], hist[None, :, :]).sum(axis=2)
    return (black * (pegs + 1) + (common - black)).astype(np.int64)


def partition_counts(table: np.ndarray, secrets: np.ndarray, nfb: int) -> np.ndarray:
    """``counts[g, f]``: how many remaining secrets give feedback ``f`` to guess ``g``."""
    fb = table[:, secrets]
    rows = np.arange(table.shape[0])[:, None] * nfb
    return np.bincount((fb + rows).ravel(), minlength=table.shape[0] * nfb).reshape(table.shape[0], nfb)


def _xlogx(counts: np.ndarray) -> np.ndarray:
    c = counts.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 0, c * np.log2(np.where(c > 0, c, 1.0)), 0.0)


#: selector -> score per guess (lower is better), from partition counts
SELECTORS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    # H = log2 n - (1/n) sum n_i log2 n_i: maximising H is minimising sum n_i log2 n_i
    "entropy": lambda counts: np.round(_xlogx(counts).sum(axis=1), 9),
    "minimax": lambda counts: counts.max(axis=1),
    "expected_size": lambda counts: (counts * counts).sum(axis=1),
    "most_parts": lambda counts: -(counts > 0).sum(axis=1),
}


def solve_all(selector: str, pegs: int = 4, colours: int = 6, tie: str = "consistent") -> dict[str, Any]:
    """Play every secret with ``selector``; total guesses, worst case, and the first guess."""
    codes = all_codes(pegs, colours)
    table = feedback_table(codes, colours)
    nfb = (pegs + 1) * (pegs + 1)
    win = pegs * (pegs + 1)
    score_of = SELECTORS[selector]
    depth = np.zeros(len(codes), dtype=np.int64)
    first: list[int] = []

    def choose(secrets: np.ndarray) -> int:
        if len(secrets) == 1:
            return int(secrets[0])
        scores = score_of(partition_counts(table, secrets, nfb))
        best = np.flatnonzero(scores == scores.min())
        if tie == "consistent":
            inside = best[np.isin(best, secrets)]
            if len(inside):
                return int(inside[0])
        return int(best[0])

    def rec(secrets: np.ndarray, guesses: int) -> None:
        g = choose(secrets)
        if not first:
            first.append(g)
        fb = table[g, secrets]
        for f in np.unique(fb):
            part = secrets[fb == f]
            if f == win:
                depth[part] = guesses + 1
            else:
                rec(part, guesses + 1)

    rec(np.arange(len(codes)), 0)
    return {
        "total": int(depth.sum()),
        "max": int(depth.max()),
        "first_guess": "".join(str(c + 1) for c in codes[first[0]]),
    }


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mastermind", description=__doc__.split("\n")[0])
    parser.add_argument("--pegs", type=int, default=4)
    parser.add_argument("--colours", type=int, default=6)
    parser.add_argument("--tie", choices=("consistent", "first"), default="consistent")
    parser.add_argument("--selectors", default=",".join(SELECTORS))
    parser.add_argument("--quick", action="store_true", help="3 pegs, 4 colours")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    pegs, colours = (3, 4) if args.quick else (args.pegs, args.colours)
    report: dict[str, dict[str, Any]] = {}
    for name in [s for s in args.selectors.split(",") if s]:
        t0 = time.perf_counter()
        res = solve_all(name, pegs, colours, args.tie)
        res["seconds"] = time.perf_counter() - t0
        report[name] = res
    if args.json:
        out(json.dumps({k: {"total": v["total"], "max": v["max"]} for k, v in report.items()}))
        return 0
    standard = (pegs, colours) == (4, 6)
    out(f"Mastermind {pegs} pegs, {colours} colours: {colours ** pegs} secrets; ties: {args.tie}")
    head = f"{'selector':14} {'total':>6} {'mean':>6} {'max':>4} {'first':>6} {'published':>10} {'seconds':>8}"
    out(head)
    out("-" * len(head))
    for name, r in report.items():
        pub = PUBLISHED.get(name, {}).get("total") if standard else None
        out(f"{name:14} {r['total']:>6} {r['total'] / colours ** pegs:>6.3f} {r['max']:>4} {r['first_guess']:>6} "
            f"{pub if pub is not None else '—':>10} {r['seconds']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
