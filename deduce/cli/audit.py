"""``deduce audit GAME``: play games and check soundness, backend agreement, leaks, determinism."""

from __future__ import annotations

import argparse
import json

from deduce.apps.audit import CHECKS, audit
from deduce.games.registry import game_names

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="play games and check that knowledge, solvers and observations are sound")
    p.add_argument("game", help="a registered game, or 'all'")
    p.add_argument("--games", type=int, default=10, help="games per game (default 10)")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--agents", nargs="+", help="agents to seat in rotation (default: all for the game)")
    p.add_argument("--solvers", nargs="+", default=["exact", "cpsat", "csp", "brute"], help="backends compared")
    p.add_argument("--check-every", type=int, default=5, help="compare backends every K actions (default 5)")
    p.add_argument("--max-actions", type=int, default=3000, help="stop each game after this many actions")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names = list(game_names()) if args.game == "all" else [args.game]
    reports = [
        audit(name, games=args.games, seed=args.seed, agents=args.agents, solvers=args.solvers, check_every=args.check_every, max_actions=args.max_actions)
        for name in names
    ]
    if args.json:
        print(json.dumps({
            r.game: {
                "games": r.games, "actions": r.actions, "events": r.events,
                "passed": dict(r.passed), "failed": dict(r.failed()), "skipped": dict(r.skipped),
                "failures": [{"check": f.check, "reproducer": f.reproducer(r.game), "message": f.message} for f in r.failures],
            }
            for r in reports
        }))
    else:
        header = f"{'game':20s} {'games':>5s} {'actions':>7s} {'events':>7s}  " + "  ".join(f"{c:>22s}" for c in CHECKS)
        print(header)
        print("-" * len(header))
        for r in reports:
            cells = []
            for c in CHECKS:
                cells.append(f"{r.passed[c]} ok {r.failed()[c]} bad {r.skipped[c]} n/a".rjust(22))
            print(f"{r.game:20s} {r.games:5d} {r.actions:7d} {r.events:7d}  " + "  ".join(cells))
        for r in reports:
            for f in r.failures[:20]:
                print(f"FAIL {f.check}: {f.reproducer(r.game)}: {f.message}")
    return 0 if all(r.ok for r in reports) else 1
