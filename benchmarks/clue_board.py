"""Clue on the board: movement-aware agents against board-blind ones, win rates with 95% CIs.

``python -m benchmarks.clue_board`` plays seeded 3-player games on the classic board
(``board_mode="board"``) between two agents alternating round the table (A B A and B A B, every
rotation; each round's deal is played by every lineup, duplicate-deal style) as a tournament
(:mod:`benchmarks._experiment`), and prints per agent the win rate per seat with its Wilson 95%
interval and the mean number of turns of the games it won, then A's win rate minus B's per
deal (bootstrap 95% over deals, sign test; :mod:`deduce.apps.tournament.stats`). ``--pair A/B``
(default ``infogain-planner-board/infogain-nearest-board``: the same ``infogain`` agent inside,
movement-aware against board-blind, the clean movement ablation), ``--games N`` (default 120,
rounded up to whole rounds), ``--players``, ``--edition intrigue`` for the intrigue edition,
``--param-a KEY=VALUE`` (repeatable) for agent A's parameters (e.g. ``discount=0.25``,
``drag=true``; A and B may then be the same agent), and where the games run: ``--backend``,
``--workers``, ``--address``, ``--out DIR`` (resume).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from benchmarks import _experiment as ex
from deduce.apps.tournament import AgentSpec, derive_seed, stats
from deduce.apps.tournament.schedule import parse_value

__all__ = ["cell", "run", "report", "main"]

MAX_TURNS = 400

_SECOND = "#B"  # marks agent B's seats when A and B are the same agent with other parameters


def cell(a: str, b: str, games: int, players: int = 3, seed: int = 0, edition: str = "classic",
         params_a: dict[str, Any] | None = None) -> ex.Cell:
    """The table: A (with ``params_a``) and B alternating round the board, at least ``games``
    games, whole rounds (B's label gets a ``#B`` suffix when it is A's agent)."""
    if a == b and not params_a:
        raise ValueError("A and B are the same agent: give A other parameters (--param-a)")
    first = AgentSpec(a, tuple((params_a or {}).items()), a)
    second = AgentSpec(b, (), b + _SECOND if a == b else b)
    base = ex.Cell.create(f"{a}-vs-{b}-{edition}-{players}p", "clue", [first, second], players, 0,
                          derive_seed(seed, 7, players),
                          {"board_mode": "board", "edition": edition, "max_turns": MAX_TURNS})
    return replace(base, games=-(-max(games, 1) // base.round_size()) * base.round_size())


def report(table: ex.Cell, games: Any, seed: int = 0) -> dict[str, Any]:
    """Per agent label: seats, wins, win rate per seat with its Wilson interval (the stats
    module's agent table), mean turns of the games it won; ``paired``: A minus B per deal."""
    table_rows = stats.agent_table(games, seed=seed)
    failures = games.loc[games["forfeit"], "failure_message"].tolist()
    out: dict[str, Any] = {"games": int(games["game_id"].nunique()), "failures": failures}
    for r in table_rows.itertuples():
        won = games[(games["agent"] == r.agent) & games["win"]]
        out[r.agent] = {"seats": int(r.seats), "wins": int(r.wins), "rate": float(r.win_rate),
                        "ci95": (float(r.win_lo), float(r.win_hi)),
                        "mean_turns_when_won": float(won["turns"].mean()) if len(won) else float("nan")}
    a, b = (s.label for s in table.agents)
    out["paired"] = ex.paired(games, a, b, seed=seed)
    return out


def run(a: str, b: str, games: int, players: int = 3, seed: int = 0, edition: str = "classic",
        params_a: dict[str, Any] | None = None, options: ex.RunOptions = ex.SERIAL) -> dict[str, Any]:
    """Play :func:`cell` on ``options``' backend (resuming ``options.out``); :func:`report`."""
    table = cell(a, b, games, players, seed, edition, params_a)
    return report(table, ex.run_cells([table], options)[table.name], seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="infogain-planner-board/infogain-nearest-board")
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edition", default="classic", choices=("classic", "intrigue"))
    parser.add_argument("--param-a", action="append", default=[], metavar="KEY=VALUE")
    ex.add_run_options(parser)
    args = parser.parse_args(argv)
    return ex.guarded(lambda: _main(args), "benchmarks.clue_board")


def _main(args: argparse.Namespace) -> int:
    a, b = args.pair.split("/")
    params = {k: parse_value(v) for k, _, v in (item.partition("=") for item in args.param_a)}
    report = run(a, b, args.games, args.players, args.seed, args.edition, params, ex.run_options(args))
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
    p = report["paired"]
    print(f"{a} minus {b} per deal: {p['mean']:+.3f} [{p['lo']:+.3f}, {p['hi']:+.3f}] over {p['n']} deals; "
          f"ahead on {p['ahead']}, behind on {p['behind']}; sign test p = {p['sign_p']:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
