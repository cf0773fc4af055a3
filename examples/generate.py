"""Writes one example player-view log per game (``examples/<game>-<n>p.json``) by playing a
seeded game of random legal moves and exporting one seat's view: the logs ``deduce solve``
reads, in the format a person writes at the table (docs/games.md describes each).

Run from the repository root: ``python examples/generate.py`` (``--check`` only compares).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

__all__ = ["EXAMPLES", "Example", "build", "main"]


@dataclass(frozen=True)
class Example:
    """A seeded game stopped after ``moves`` actions, seen from ``seat``."""

    game: str
    players: tuple[str, ...]
    seed: int
    moves: int
    seat: int = 0

    @property
    def path(self) -> Path:
        return HERE / f"{self.game}-{len(self.players)}p.json"


#: stopped where the default backend still counts every deal exactly (Alibi: questions about hands
#: now, before the first pass; "seen" questions and passes need the time-indexed counters)
EXAMPLES = (
    Example("alibi", ("ann", "bob", "cy", "dee"), seed=5, moves=8),
    Example("alibi-adlung", ("ann", "bob", "cy"), seed=1, moves=8),
    Example("mafia-code", ("ann", "bob", "cy"), seed=1, moves=8),
    Example("checkpoint-charlie", ("ann", "bob", "cy", "dee"), seed=1, moves=12),
    Example("crime-hotel", ("ann", "bob", "cy", "dee"), seed=1, moves=12),
)


def build(example: Example) -> dict:
    """The log of ``example``: the same JSON every time (seeded)."""
    import deduce
    from deduce.logs import export_log
    from deduce.play import RandomPlayer, play_game

    game = deduce.make(example.game, num_players=len(example.players), player_names=example.players)
    state = game.new_initial_state(example.seed)
    player = RandomPlayer(example.seed)
    play_game(game, [player] * game.num_players, example.seed, state=state, max_moves=example.moves)
    return export_log(game, state.observation(example.seat))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the files are up to date")
    args = parser.parse_args(argv)
    stale = []
    for example in EXAMPLES:
        text = json.dumps(build(example), indent=1) + "\n"
        if args.check:
            if not example.path.is_file() or example.path.read_text() != text:
                stale.append(example.path.name)
        else:
            example.path.write_text(text)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
