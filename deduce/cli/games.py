"""``deduce games`` and ``deduce agents``: what is registered."""

from __future__ import annotations

import argparse

from deduce.games import game_class, game_names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the registered games")
    p.set_defaults(func=_games)
    p = sub.add_parser("agents", help="list the agents available for a game")
    p.add_argument("game", nargs="?", help="only agents that can play this game")
    p.set_defaults(func=_agents)


def _games(args: argparse.Namespace) -> int:
    for name in game_names():
        cls = game_class(name)
        print(f"{name:20s} {cls.min_players}-{cls.max_players} players  {(cls.__doc__ or '').strip().splitlines()[0]}")
    return 0


def _agents(args: argparse.Namespace) -> int:
    import agents as registry  # lazy: 'deduce games' starts without loading the agents
    if args.game:
        game_class(args.game)  # unknown game -> clear error
    for name in registry.available(args.game):
        print(name)
    return 0
