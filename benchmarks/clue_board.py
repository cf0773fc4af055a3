"""Clue on the board: movement-aware agents against board-blind ones, win rates with 95% CIs.

``python -m benchmarks.clue_board`` plays seeded 3-player games on the classic board
(``board_mode="board"``) between two agents alternating round the table (A B A and B A B, every
rotation; each deal is played by every lineup, duplicate-deal style), and prints per agent the
win rate per seat with its Wilson 95% interval and the mean number of turns of the games it
won. ``--pair A/B`` (default ``infogain-planner-board/infogain-nearest-board``: the same
``infogain`` agent inside, movement-aware against board-blind, the clean movement ablation),
``--games N`` (default 120, rounded up to whole rotations), ``--players``, ``--workers``,
``--edition intrigue`` for the intrigue edition, ``--param-a KEY=VALUE`` (repeatable) for agent
A's parameters (e.g. ``discount=0.25``, ``drag=true``; A and B may then be the same agent).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import agents
from deduce.apps.tournament.stats import wilson
from deduce.games.clue.rules import ClueGame
from deduce.play import play_game, seeds_for

__all__ = ["lineups", "play_one", "run", "main"]

MAX_TURNS = 400


def _agent(name: str, params: dict[str, Any] | None = None) -> agents.Agent:
    """A Clue agent by registry name."""
    return agents.get(name, game="clue", **(params or {}))


_SECOND = "#B"  # marks agent B's seats when A and B are the same agent with other parameters


def _spec(label: str, params: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return label.removesuffix(_SECOND), params.get(label, {})


def lineups(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """A and B alternating round the table, starting with each, in every rotation."""
    out = []
    for first, second in ((a, b), (b, a)):
        base = tuple(first if i % 2 == 0 else second for i in range(players))
        out += [base[k:] + base[:k] for k in range(players)]
    return out


def play_one(job: tuple[Any, ...]) -> dict[str, Any]:
    """One game: (lineup of agent names, seed[, edition[, parameters per name]]); returns the
    seated names, winners and turns."""
    seated, seed = job[0], job[1]
    edition = job[2] if len(job) > 2 else "classic"
    params: dict[str, dict[str, Any]] = job[3] if len(job) > 3 else {}
    game = ClueGame(num_players=len(seated), board_mode="board", edition=edition, max_turns=MAX_TURNS)
    record = play_game(game, [_agent(*_spec(name, params)) for name in seated], seed)
    return {"seated": seated, "winners": record.winners, "turns": record.turns,
            "failure": None if record.failure is None else record.failure.message}


def run(
    a: str,
    b: str,
    games: int,
    players: int = 3,
    workers: int = 1,
    seed: int = 0,
    edition: str = "classic",
    params_a: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games rounded up to whole rotations, every lineup on each deal; per agent
    (B's key gets a ``#B`` suffix if it is A's agent): seats, wins, Wilson interval, mean
    winning turns."""
    if a == b:
        if not params_a:
            raise ValueError("A and B are the same agent: give A other parameters (--param-a)")
        b = b + _SECOND
    ups = lineups(a, b, players)
    deals = seeds_for(seed, -(-games // len(ups)))
    jobs = [(up, s, edition, {a: dict(params_a or {})}) for s in deals for up in ups]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(play_one, jobs))
    else:
        results = [play_one(j) for j in jobs]
    report: dict[str, Any] = {"games": len(results), "failures": [r["failure"] for r in results if r["failure"]]}
    for name in (a, b):
        seats = sum(r["seated"].count(name) for r in results)
        won = [r for r in results if any(r["seated"][w] == name for w in r["winners"])]
        lo, hi = wilson(len(won), seats)
        turns = sum(r["turns"] for r in won) / len(won) if won else float("nan")
        report[name] = {"seats": seats, "wins": len(won), "rate": len(won) / max(seats, 1),
                        "ci95": (lo, hi), "mean_turns_when_won": turns}
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="infogain-planner-board/infogain-nearest-board")
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edition", default="classic", choices=("classic", "intrigue"))
    parser.add_argument("--param-a", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    a, b = args.pair.split("/")
    params = {k: _value(v) for k, _, v in (item.partition("=") for item in args.param_a)}
    report = run(a, b, args.games, args.players, args.workers, args.seed, args.edition, params)
    if a == b:
        b = b + _SECOND
    if params:
        print(f"{a} with {params}")
    print(f"{report['games']} games ({args.edition} edition), {args.players} players, "
          f"failures: {len(report['failures'])}")
    for name in (a, b):
        r = report[name]
        lo, hi = r["ci95"]
        print(f"{name:20s} seats {r['seats']:4d}  win/seat {r['rate']:.3f}  95% CI [{lo:.3f}, {hi:.3f}]"
              f"  turns when won {r['mean_turns_when_won']:.1f}")
    return 0


def _value(raw: str) -> Any:
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    try:
        return float(raw) if "." in raw else int(raw)
    except ValueError:
        return raw


if __name__ == "__main__":
    raise SystemExit(main())
