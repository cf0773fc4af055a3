"""``deduce audit GAME``: play games and check legal play, soundness, backend agreement, leaks
and determinism, saying on stderr what it does as it goes."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from deduce.apps.audit import CHECKS, DEFAULT_SOLVERS, AgentEntry, AuditReport, audit
from deduce.cli.options import parse_agent_options, parse_config, type_agent_params
from deduce.errors import InvalidConfig
from deduce.games.registry import game_names

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="play games and check that knowledge, solvers and observations are sound")
    p.add_argument("game", help="a registered game, or 'all'")
    p.add_argument("--games", type=int, default=10, help="games per game (default 10)")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--agents", nargs="+", metavar="NAME[:KEY=VALUE,...]",
                   help="agents to seat in rotation (default: every agent of the game that plays its configuration)")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game configuration field, typed by the field (repeatable; one game, not 'all'); lists as a,b,c")
    p.add_argument("--solvers", nargs="+", default=list(DEFAULT_SOLVERS),
                   help="exact backends asked in order; the first two of different algorithms that answer within "
                        "the work budget are compared (default: %(default)s)")
    p.add_argument("--check-every", type=int, default=5, help="compare backends every K actions (default 5)")
    p.add_argument("--max-actions", type=int, default=3000, help="stop each game after this many actions")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def _agents(game: str, tokens: list[str] | None) -> list[AgentEntry] | None:
    """``--agents`` as (name, typed parameters) for ``game``."""
    if not tokens:
        return None
    return [(o.name, type_agent_params(o.name, game, dict(o.params), o.label)) for o in parse_agent_options(tokens)]


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _as_json(r: AuditReport) -> dict[str, Any]:
    return {
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in r.config.items()},
        "games": r.games, "actions": r.actions, "events": r.events,
        "passed": dict(r.passed), "failed": dict(r.failed()), "skipped": dict(r.skipped),
        "agreement_methods": dict(r.methods), "agreement_skipped_because": dict(r.why_skipped),
        "agreement_reused": r.reused,
        "seconds": {k: round(v, 2) for k, v in r.seconds.items()},
        "not_seated": dict(r.unseated), "determinism_not_checked": dict(r.unchecked),
        "failures": [{"check": f.check, "reproducer": f.reproducer(r.game), "message": f.message} for f in r.failures],
    }


def run(args: argparse.Namespace) -> int:
    names = list(game_names()) if args.game == "all" else [args.game]
    if args.config and len(names) > 1:
        raise InvalidConfig("--config", args.config, "configures one game: name it instead of 'all'")
    for k in ("games", "check_every", "max_actions"):
        if getattr(args, k) < 1:
            raise InvalidConfig(f"--{k.replace('_', '-')}", getattr(args, k), "must be at least 1")
    say = None if args.quiet else _progress
    reports = [
        audit(name, games=args.games, seed=args.seed, agents=_agents(name, args.agents), solvers=args.solvers,
              check_every=args.check_every, max_actions=args.max_actions,
              config=parse_config(name, args.config), progress=say)
        for name in names
    ]
    if args.json:
        print(json.dumps({r.game: _as_json(r) for r in reports}))
        return 0 if all(r.ok for r in reports) else 1
    header = f"{'game':20s} {'games':>5s} {'actions':>7s} {'events':>7s}  " + "  ".join(f"{c:>22s}" for c in CHECKS)
    print(header)
    print("-" * len(header))
    for r in reports:
        cells = [f"{r.passed[c]} ok {r.failed()[c]} bad {r.skipped[c]} n/a".rjust(22) for c in CHECKS]
        print(f"{r.game:20s} {r.games:5d} {r.actions:7d} {r.events:7d}  " + "  ".join(cells))
    for r in reports:
        if r.methods:
            print(f"{r.game}: agreement compared " + ", ".join(f"{m} {k}x" for m, k in r.methods.most_common())
                  + (f" ({r.reused} of them a knowledge base equal to an earlier one, its verdict reused)" if r.reused else ""))
        for why, k in r.why_skipped.most_common(5):
            print(f"{r.game}: agreement skipped {k}x: {why}")
        for label, why in r.unseated.items():
            print(f"{r.game}: {label} not seated: {why}")
        for label, why in r.unchecked.items():
            print(f"{r.game}: determinism of {label}'s own choices not checked: {why}")
        for f in r.failures[:20]:
            print(f"FAIL {f.check}: {f.reproducer(r.game)}: {f.message}")
    return 0 if all(r.ok for r in reports) else 1
