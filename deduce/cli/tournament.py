"""``deduce tournament [GAME] --agents A B C``: play a tournament, save it, print the leaderboard.

Agents are ``[LABEL=]NAME[:KEY=VALUE,...]`` (``infogain:gamble=false``, ``fast=deductive:solver=csp``),
game settings ``--config KEY=VALUE``, both typed by what they configure (see
:mod:`deduce.cli.options`). With no arguments: Clue, ``deductive notebook random``, 60 games.
Without ``--out``, results go to ``results/<game>-seed<S>-<run id>`` (the run id is a hash of
every setting that changes which games are played), so rerunning the same command resumes an
interrupted run, or just prints the leaderboard of a finished one.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from deduce.errors import DeduceError

__all__ = ["register", "parse_agent_params", "DEFAULT_AGENTS", "resume_command"]

#: the agents of ``deduce tournament GAME`` without ``--agents`` (other games: every agent of the game)
DEFAULT_AGENTS: dict[str, tuple[str, ...]] = {"clue": ("deductive", "notebook", "random")}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tournament",
        help="play agents against each other and print a leaderboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", nargs="?", default="clue", help="a registered game (see `deduce games`; default clue)")
    p.add_argument("--agents", nargs="+", metavar="AGENT",
                   help="[LABEL=]NAME[:KEY=VALUE,...] (see `deduce games`); LABEL=NAME enters one agent twice "
                        "(default for clue: deductive notebook random; other games: all of the game's agents)")
    p.add_argument("--games", type=int, default=60, help="number of games (default 60)")
    p.add_argument("--seed", type=int, default=0, help="root seed every game's seed derives from (default 0)")
    p.add_argument("--players", type=int, help="seats per game (default: number of agents, within the game's range)")
    p.add_argument("--out", help="results directory (default results/<game>-seed<S>-<hash>)")
    p.add_argument("--backend", default="auto", choices=["auto", "serial", "processes", "ray"],
                   help="where games run (default auto: processes when worthwhile)")
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument("--address", help="Ray cluster address (--backend ray; default RAY_ADDRESS, else start a local one)")
    p.add_argument("--connect-timeout", type=float, metavar="SECONDS",
                   help="give up on a Ray cluster that does not answer within this (default 30)")
    p.add_argument("--move-time-limit", metavar="SECONDS",
                   help="a slower move forfeits the game, and one still running at twice the limit plus 1 s "
                        "is interrupted (default 60: a generous safety net so one hung agent forfeits "
                        "instead of stalling the run, not a rule of play)")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="game configuration field, typed by the field (repeatable); lists as a,b,c")
    p.add_argument("--agent-param", action="append", default=[], metavar="LABEL:KEY=VALUE",
                   help="parameter for one agent, by label (repeatable; the same as --agents LABEL:KEY=VALUE)")
    p.add_argument("--format", dest="fmt", choices=["parquet", "csv"],
                   help="results file format (default parquet, csv without pyarrow)")
    p.add_argument("--schedule", default="rotate", choices=["rotate", "permutations"],
                   help="seat orders per round: cyclic rotation or every permutation (default rotate)")
    p.add_argument("--no-duplicate", action="store_true",
                   help="a fresh deal for every game (default: each round replays one deal in every seating)")
    p.add_argument("--json", action="store_true",
                   help="print every figure of the report as JSON (scores with intervals, ratings, forfeits, "
                        "pairwise results, seat effects, run config and versions)")
    p.add_argument("--plots", action="store_true", help="also write PNG plots into the results directory")
    p.set_defaults(func=run)


def parse_agent_params(items: list[str], labels: list[str]) -> dict[str, dict[str, str]]:
    """``--agent-param LABEL:KEY=VALUE`` strings grouped by agent label (values still text)."""
    out: dict[str, dict[str, str]] = {}
    for item in items:
        label, sep, rest = item.partition(":")
        key, eq, text = rest.partition("=")
        if not sep or not eq or not key.strip():
            raise DeduceError(f"--agent-param {item!r}: expected LABEL:KEY=VALUE")
        if label not in labels:
            raise DeduceError(f"--agent-param {item!r}: no agent labelled {label!r}; agents: {', '.join(labels)}")
        out.setdefault(label, {})[key.strip()] = text.strip()
    return out


def resume_command(args: argparse.Namespace, out: Path) -> str:
    """The command that carries on this run where it stopped (the same settings, its directory)."""
    words = ["deduce", "tournament", args.game, "--agents", *(args.agents or ()), "--games", str(args.games),
             "--seed", str(args.seed)]
    for flag, value in (("--players", args.players), ("--move-time-limit", args.move_time_limit),
                        ("--schedule", None if args.schedule == "rotate" else args.schedule),
                        ("--format", args.fmt)):
        if value is not None:
            words += [flag, str(value)]
    for item in args.config:
        words += ["--config", item]
    for item in args.agent_param:
        words += ["--agent-param", item]
    if args.no_duplicate:
        words.append("--no-duplicate")
    words += ["--out", str(out)]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    from deduce.apps.tournament import Tournament
    from deduce.apps.tournament.runner import (
        DEFAULT_MOVE_TIME_LIMIT,
        Interrupted,
        check_move_time_limit,
    )
    from deduce.apps.tournament.schedule import labelled, parse_agent
    from deduce.cli.options import parse_config
    from deduce.errors import InvalidConfig

    limit = (DEFAULT_MOVE_TIME_LIMIT if args.move_time_limit is None
             else check_move_time_limit(args.move_time_limit, "--move-time-limit"))
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        raise InvalidConfig("--out", args.out, "is a file; --out names a results directory")
    if args.games < 1:
        raise DeduceError(f"--games must be at least 1, not {args.games}")
    if args.workers is not None and args.workers < 1:
        raise DeduceError(f"--workers must be at least 1, not {args.workers}")
    if not args.agents:
        import agents

        args.agents = list(DEFAULT_AGENTS.get(args.game) or agents.available(args.game))
    specs = labelled([parse_agent(t) for token in args.agents for t in token.split()])
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
        move_time_limit=limit,
        backend=args.backend,
        workers=args.workers,
        address=args.address,
        out=None,
        fmt=args.fmt,
    )
    tournament.out = tournament.default_out() if args.out is None else Path(args.out)
    if args.connect_timeout is not None:
        if not args.connect_timeout > 0:
            raise DeduceError(f"--connect-timeout must be a positive number of seconds, not {args.connect_timeout}")
        tournament.connect_timeout = args.connect_timeout
    size = tournament.schedule.round_size
    if args.games % size:
        print(f"deduce tournament: note: {args.games} games is not a multiple of the round size {size}, "
              "so seats are not perfectly balanced", file=sys.stderr)
    several = {a: n for a, n in tournament.seating()["seats_per_game"].items() if n > 1}
    if several:
        held = ", ".join(f"{a} holds {n} seats" for a, n in several.items())
        print(f"deduce tournament: note: {tournament.players} seats, {len(specs)} agents: {held} of every game",
              file=sys.stderr)
    default = " (the default safety net; --move-time-limit to change)" if args.move_time_limit is None else ""
    print(f"deduce tournament: {args.games} games of {args.game}, move time limit {limit:g} s{default}",
          file=sys.stderr)
    try:
        results = tournament.run()
    except Interrupted as exc:
        print(f"deduce tournament: {exc}; resume with:\n  {resume_command(args, tournament.out)}", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(results.report(), allow_nan=False))
        return 0
    from deduce.apps.tournament.report import render

    print(render(results.report(), sections=("leaderboard",)))
    if args.plots:
        from deduce.apps.tournament.plots import write_plots

        for path in write_plots(results, tournament.out):
            print(f"wrote {path}")
    print(f"\nmore: deduce report {tournament.out}")
    return 0
