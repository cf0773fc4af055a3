"""``deduce games`` and ``deduce agents``: what is registered."""

from __future__ import annotations

import argparse
import re

from deduce.games import game_class, game_names

__all__ = ["register", "player_counts", "description"]

#: what each built-in game is, in a line a player understands (no reference to a rules digest)
DESCRIPTIONS = {
    "clue": "Clue / Cluedo: find the suspect, weapon and room in the envelope (board-less, the classic board, or the intrigue edition)",
    "alibi": "Alibi (Mayfair 1992): ask how many cards others hold or have seen, pass cards, fill the accusation sheet",
    "alibi-adlung": "Alibi (Adlung 2001): lay evidence matching the suspects' features and name the culprits",
    "mafia-code": "Mafia Code (Gameology 2019): roll colour-letter codes, read the public sheets, guess exact cards",
    "checkpoint-charlie": "Checkpoint Charlie: flip cats and arrest the chief, the one cat that fits every clue token",
    "crime-hotel": "Crime Hotel: win tricks to place meeples on the criminal's floor, room digit and room",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the registered games")
    p.set_defaults(func=_games)
    p = sub.add_parser("agents", help="list the agents available for a game")
    p.add_argument("game", nargs="?", help="only agents that can play this game")
    p.set_defaults(func=_agents)


def player_counts(name: str, most: int = 16) -> tuple[int, ...]:
    """The player counts the game's config accepts (what really runs), probed from 1 to ``most``."""
    config = game_class(name).config_class
    counts = []
    for n in range(1, most + 1):
        try:
            config(num_players=n)
        except (ValueError, TypeError):
            continue
        counts.append(n)
    return tuple(counts)


def description(name: str) -> str:
    """One line on the game: the built-in table, else its class docstring without references to
    the rules digest."""
    if name in DESCRIPTIONS:
        return DESCRIPTIONS[name]
    line = ((game_class(name).__doc__ or "").strip().splitlines() or [""])[0]
    return re.sub(r"\s*(\(\s*)?(per )?RULES\.md §\S+(\s*\))?", "", line).strip()


def _span(counts: tuple[int, ...]) -> str:
    if not counts:
        return "?"
    if counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else str(counts[0])
    return ",".join(map(str, counts))


def _games(args: argparse.Namespace) -> int:
    for name in game_names():
        print(f"{name:20s} {_span(player_counts(name)):>5} players  {description(name)}")
    return 0


def _agents(args: argparse.Namespace) -> int:
    import agents as registry  # lazy: 'deduce games' starts without loading the agents
    if args.game:
        from deduce.apps.assist.text import match_name

        match_name(args.game, game_names(), "game", exact=True)  # unknown game -> did you mean
    for name in registry.available(args.game):
        print(name)
    return 0
