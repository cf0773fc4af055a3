"""``deduce report DIR``: the full report of a (possibly still running or interrupted)
tournament: leaderboard, head-to-head results, seat effect and forfeits; ``--plots`` writes PNGs."""

from __future__ import annotations

import argparse
import json

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="print the leaderboard and statistics of a results directory",
                       description=__doc__)
    p.add_argument("dir", help="a results directory written by `deduce tournament`")
    p.add_argument("--plots", action="store_true", help="write ratings, head-to-head and seat PNGs into DIR")
    p.add_argument("--json", action="store_true", help="print only the win rates as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from deduce.apps.tournament import TournamentResults
    from deduce.apps.tournament.report import full_report

    results = TournamentResults.load(args.dir)
    results.played = results.num_games
    if args.json:
        print(json.dumps({"agents": results.win_rates()}))
        return 0
    print(full_report(results))
    if args.plots:
        from deduce.apps.tournament.plots import write_plots

        for path in write_plots(results, args.dir):
            print(f"wrote {path}")
    return 0
