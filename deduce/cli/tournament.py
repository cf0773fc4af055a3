"""``deduce tournament GAME --agents A B C``: play a tournament, save it, print the leaderboard.

Without ``--out``, results go to ``results/<game>-seed<S>-<hash>`` (the hash covers every
setting that changes which games are played), so rerunning the same command resumes an
interrupted run, or just prints the leaderboard of a finished one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from deduce.errors import DeduceError

__all__ = ["register", "parse_config", "parse_agent_params"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tournament",
        help="play agents against each other and print a leaderboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="a registered game (see `deduce games`)")
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                   help="agent names (see `deduce agents GAME`); LABEL=NAME to enter one agent twice")
    p.add_argument("--games", type=int, default=60, help="number of games (default 60)")
    p.add_argument("--seed", type=int, default=0, help="root seed every game's seed derives from (default 0)")
    p.add_argument("--players", type=int, help="seats per game (default: number of agents, within the game's range)")
    p.add_argument("--out", help="results directory (default results/<game>-seed<S>-<hash>)")
    p.add_argument("--backend", default="auto", choices=["auto", "serial", "processes", "ray"],
                   help="where games run (default auto: processes when worthwhile)")
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument("--address", help="Ray cluster address (--backend ray); default: start a local one")
    p.add_argument("--move-time-limit", type=float, metavar="SECONDS",
                   help="a slower move forfeits the game")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game configuration field (repeatable); lists as a,b,c")
    p.add_argument("--agent-param", action="append", default=[], metavar="AGENT:KEY=VALUE",
                   help="parameter for one agent, by label (repeatable), e.g. deductive:solver=csp")
    p.add_argument("--schedule", default="rotate", choices=["rotate", "permutations"],
                   help="seat orders per round: cyclic rotation or every permutation (default rotate)")
    p.add_argument("--no-duplicate", action="store_true",
                   help="a fresh deal for every game (default: each round replays one deal in every seating)")
    p.add_argument("--json", action="store_true", help="print only the win rates as JSON")
    p.add_argument("--plots", action="store_true", help="also write PNG plots into the results directory")
    p.set_defaults(func=run)


def parse_config(game: str, items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings as config fields, typed by the game's config class."""
    from deduce.apps.tournament.schedule import parse_value
    from deduce.games import game_class

    fields = {f.name: f for f in dataclasses.fields(game_class(game).config_class)}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise DeduceError(f"--config {item!r}: expected KEY=VALUE")
        if key not in fields:
            raise DeduceError(f"--config {key}: {game} has no such field; known: {', '.join(sorted(fields))}")
        default = fields[key].default
        if isinstance(default, tuple):
            out[key] = tuple(v.strip() for v in text.split(",") if v.strip())
        else:
            out[key] = parse_value(text)
    return out


def parse_agent_params(items: list[str], labels: list[str]) -> dict[str, dict[str, Any]]:
    """``LABEL:KEY=VALUE`` strings grouped by agent label."""
    from deduce.apps.tournament.schedule import parse_value

    out: dict[str, dict[str, Any]] = {}
    for item in items:
        label, sep, rest = item.partition(":")
        key, eq, text = rest.partition("=")
        if not sep or not eq or not key:
            raise DeduceError(f"--agent-param {item!r}: expected AGENT:KEY=VALUE")
        if label not in labels:
            raise DeduceError(f"--agent-param {item!r}: no agent labelled {label!r}; agents: {', '.join(labels)}")
        out.setdefault(label, {})[key.strip()] = parse_value(text)
    return out


def run(args: argparse.Namespace) -> int:
    from deduce.apps.tournament import Tournament
    from deduce.apps.tournament.schedule import labelled, parse_agent

    if args.games < 1:
        raise DeduceError(f"--games must be at least 1, not {args.games}")
    if args.workers is not None and args.workers < 1:
        raise DeduceError(f"--workers must be at least 1, not {args.workers}")
    specs = labelled([parse_agent(a) for a in args.agents])
    params = parse_agent_params(args.agent_param, [s.label for s in specs])
    specs = [s.with_params(**params.get(s.label, {})) for s in specs]
    tournament = Tournament(
        args.game,
        specs,
        games=args.games,
        seed=args.seed,
        players=args.players,
        config=parse_config(args.game, args.config),
        arrangement=args.schedule,
        duplicate=not args.no_duplicate,
        move_time_limit=args.move_time_limit,
        backend=args.backend,
        workers=args.workers,
        address=args.address,
        out=None,
    )
    tournament.out = tournament.default_out() if args.out is None else _path(args.out)
    size = tournament.schedule.round_size
    if args.games % size:
        print(f"deduce tournament: note: {args.games} games is not a multiple of the round size {size}, "
              "so seats are not perfectly balanced", file=sys.stderr)
    results = tournament.run()
    if args.json:
        print(json.dumps({"agents": results.win_rates()}))
        return 0
    from deduce.apps.tournament.report import header, leaderboard

    print(header(results))
    print()
    print(leaderboard(results))
    if args.plots:
        from deduce.apps.tournament.plots import write_plots

        for path in write_plots(results, tournament.out):
            print(f"wrote {path}")
    print(f"\nmore: deduce report {tournament.out}")
    return 0


def _path(text: str) -> Any:
    from pathlib import Path

    return Path(text)
