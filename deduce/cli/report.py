"""``deduce report DIR``: the full report of a (possibly still running or interrupted)
tournament: leaderboard, head-to-head results, per-deal paired differences, seat effect and
forfeits; ``--json`` prints every one of those figures as JSON; ``--plots`` writes PNGs."""

from __future__ import annotations

import argparse
import json

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="print the leaderboard and statistics of a results directory",
                       description=__doc__)
    p.add_argument("dir", help="a results directory written by `deduce tournament`")
    p.add_argument("--plots", action="store_true",
                   help="write win-rate, score, head-to-head, seat and rating PNGs into DIR")
    p.add_argument("--json", action="store_true", help="print every figure of the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from deduce.apps.tournament import TournamentResults
    from deduce.apps.tournament.report import render
    from deduce.errors import InvalidConfig

    if Path(args.dir).exists() and not Path(args.dir).is_dir():
        raise InvalidConfig("DIR", args.dir, "is a file; deduce report reads a results directory")
    results = TournamentResults.load(args.dir)
    results.played = results.num_games
    data = results.report()
    if args.json:
        print(json.dumps(data, allow_nan=False))
        return 0
    print(render(data))
    if args.plots:
        from deduce.apps.tournament.plots import write_plots

        for path in write_plots(results, args.dir):
            print(f"wrote {path}")
    return 0
