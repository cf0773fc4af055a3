"""``deduce speedclue`` (a bot for the Speed Clue protocol) and ``deduce speedclue-server``
(host games between such bots and our agents; results as a tournament's).

    deduce speedclue --agent deductive:solver=csp --log bot.log IDENTIFIER PORT
    deduce speedclue-server --players 4 --games 40 "deduce speedclue --agent deductive" \\
        builtin:notebook fast=builtin:deductive:solver=csp "python my_bot.py"

The server appends ``IDENTIFIER PORT`` to every bot command; a bot ``builtin:NAME`` is one of
our agents without a process, ``thread:NAME`` our client in a thread; ``LABEL=...`` names an
entrant in the results. An agent is written as everywhere on the command line,
``NAME[:KEY=VALUE,...]`` (deduce.cli.options), its values typed by the agent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from deduce.errors import DeduceError, InvalidConfig

__all__ = ["register", "agent_of"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "speedclue",
        help="play Clue as a bot of the Speed Clue protocol (started by a server)",
        description="Connect to localhost:PORT as IDENTIFIER and play Speed Clue games with one of "
                    "our Clue agents until the server says done.",
    )
    p.add_argument("identifier", metavar="IDENTIFIER", help="the identifier the server gave this bot")
    p.add_argument("port", metavar="PORT", type=int, help="the server's port on 127.0.0.1")
    p.add_argument("--agent", default="deductive", metavar="NAME[:KEY=VALUE,...]",
                   help="a Clue agent and its parameters, e.g. deductive:solver=csp "
                        "(see `deduce agents clue`; default deductive)")
    p.add_argument("--agent-param", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE...]",
                   help="more parameters of --agent, in the same grammar (repeatable)")
    p.add_argument("--log", metavar="FILE", help="append every message, both ways, to FILE")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS",
                   help="the server's reply limit (default 10, the contest's)")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="thinking time per decision before a fallback answers (default half the limit)")
    p.add_argument("--fallback-agent", default="notebook",
                   help="cheap agent that answers when the agent is late or fails (default notebook; none: "
                        "a random allowed answer)")
    p.add_argument("--seed", type=int, default=0, help="agent seed (default: derived from IDENTIFIER)")
    p.add_argument("--idle-timeout", type=float, default=3600.0, metavar="SECONDS",
                   help="give up after this long without a message (default 3600)")
    p.set_defaults(func=run_client)

    s = sub.add_parser(
        "speedclue-server",
        help="host Speed Clue games between bot processes and built-in agents",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("bots", nargs="+", metavar="BOT_COMMAND",
                   help="a command (quoted; IDENTIFIER PORT are appended), builtin:NAME or thread:NAME; "
                        "LABEL=... to name it")
    s.add_argument("--players", type=int, required=True, help="seats per game (3-6)")
    s.add_argument("--games", type=int, required=True, help="number of games")
    s.add_argument("--seed", type=int, default=0, help="root seed of the deals and seatings (default 0)")
    s.add_argument("--out", help="results directory (default results/speedclue-seed<S>-<hash>)")
    s.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS",
                   help="reply limit; a later reply disqualifies (default 10)")
    s.add_argument("--connect-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="how long bots have to connect (default 30)")
    s.add_argument("--log", metavar="FILE", help="append every message, both ways, to FILE")
    s.add_argument("--json", action="store_true", help="print only the win rates and timings as JSON")
    s.set_defaults(func=run_server)


def agent_of(spec: str, extra: list[str]) -> tuple[str, dict[str, Any]]:
    """``--agent NAME[:KEY=VALUE,...]`` and ``--agent-param KEY=VALUE,...`` as the agent's name
    and its parameters typed by its constructor; a parameter given twice is an error."""
    from deduce.cli.options import parse_agent_option, type_agent_params

    option = parse_agent_option(spec)
    if option.label != option.name:
        raise InvalidConfig("--agent", spec, "a bot has no label here; the server names it")
    params = dict(option.params)
    for item in extra:
        for key, value in parse_agent_option(f"{option.name}:{item}").params:
            if key in params:
                raise InvalidConfig(f"--agent-param {key}", value, "given twice")
            params[key] = value
    return option.name, type_agent_params(option.name, "clue", params)


def run_client(args: argparse.Namespace) -> int:
    from deduce.apps.speedclue.client import SpeedClueBot
    from deduce.apps.speedclue.client import run_client as connect
    from deduce.apps.speedclue.protocol import MessageLog

    name, params = agent_of(args.agent, args.agent_param)
    if not 0 < args.port < 65536:
        raise DeduceError(f"port {args.port} is not a TCP port")
    fallback = None if args.fallback_agent == "none" else args.fallback_agent
    bot = SpeedClueBot(name, params, time_limit=args.time_limit, budget=args.budget, seed=args.seed,
                       fallback_agent=fallback)
    bot.on_note = lambda line: print(f"deduce speedclue: {line}", file=sys.stderr, flush=True)
    log = MessageLog(args.log) if args.log else None
    try:
        code = connect(args.identifier, args.port, bot, log=log.peer(args.identifier) if log else None,
                       idle_timeout=args.idle_timeout)
    finally:
        if log is not None:
            log.close()
        print(f"deduce speedclue: {bot.summary()}", file=sys.stderr, flush=True)
    if code:
        print(f"deduce speedclue: the server went away after {bot.games} games", file=sys.stderr)
    return code


def run_server(args: argparse.Namespace) -> int:
    from deduce.apps.speedclue.server import SpeedClueServer

    if args.games < 1:
        raise DeduceError(f"--games must be at least 1, not {args.games}")
    server = SpeedClueServer(args.bots, args.players, args.games, seed=args.seed, time_limit=args.time_limit,
                             log=args.log, connect_timeout=args.connect_timeout)
    if args.out is None:
        digest = hashlib.sha256(json.dumps(server.identity(), sort_keys=True).encode()).hexdigest()[:8]
        server.out = Path("results") / f"speedclue-seed{args.seed}-{digest}"
    else:
        server.out = Path(args.out)
    session = server.run()
    results = session.results
    if args.json:
        print(json.dumps({"agents": results.win_rates(), "timing": session.timing,
                          "games_per_second": session.games_per_second, "disqualified": session.disqualified}))
        return 0
    from deduce.apps.tournament.report import header, leaderboard

    print(header(results))
    print()
    if not results.games.empty:
        print(leaderboard(results))
    for label, reason in session.disqualified.items():
        print(f"disqualified: {label}: {reason}")
    ok = session.timing.get("socket_ok_ms")
    rtt = f"; round trip (ok over a socket) median {ok['median']:.3f} ms, p95 {ok['p95']:.3f} ms" if ok else ""
    print(f"\n{session.games_played} games in {session.game_seconds:.2f}s "
          f"({session.games_per_second:.2f} games/s){rtt}")
    print(f"more: deduce report {server.out}")
    return 0
