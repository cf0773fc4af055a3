"""OpenSpiel's ISMCTS, with deduce's exact resampling, against ``racer`` and ``infogain`` on Clue.

``python -m benchmarks.openspiel`` plays ``--runs`` seeded tournaments (``deduce.Tournament``,
serial backend, duplicate deals: every rotation of the seats replays each deal) of
``openspiel-ismcts:max_simulations=N`` against ``racer`` and ``infogain`` at ``--players``
Clue (3 by default; the third and later seats repeat the deduce agents), and prints per agent
its seats, wins, the win rate with its Wilson interval over seats, the mean score with its
bootstrap interval over deals, and seconds per decision, for each run, then the median over the
runs of the win rates and of the seconds per decision. ``--simulations`` (default 20),
``--games`` per run (default 6: two deals in three seatings), ``--runs`` (default 3), ``--seed``,
``--json``. Needs the ``openspiel`` and ``tournament`` extras. Seconds are wall clock on this
machine and only comparable within one run.

``--exploitability`` instead measures, with OpenSpiel's ``exploitability.nash_conv``, how far
each of ``--agents`` (default random, racer, infogain) is from equilibrium when it plays every
seat of a Clue small enough to traverse (:data:`SMALL`: two cards per category, one card per
hand, one turn; refutations are forced, so only the first seat decides and NashConv is what a
best response gains for it over the agent).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["SMALL", "measure", "nash_conv", "main"]

#: the Clue that OpenSpiel's exploitability tools can traverse (a few thousand states)
SMALL = {"suspects": '["Plum", "Green"]', "weapons": '["Rope", "Knife"]', "rooms": '["Hall", "Study"]', "max_turns": 1}


def nash_conv(agent: str, seed: int = 0) -> dict[str, Any]:
    """OpenSpiel's NashConv of ``agent`` in every seat of the :data:`SMALL` Clue."""
    from open_spiel.python.algorithms import exploitability

    import agents
    from deduce.apps.openspiel import load_game
    from deduce.apps.openspiel.bots import AgentPolicy

    game = load_game("clue", **SMALL)
    policy = AgentPolicy(game, lambda: agents.get(agent, game="clue"), seed=seed)
    got = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
    return {"agent": agent, "nash_conv": float(got.nash_conv),
            "improvements": [float(x) for x in got.player_improvements]}


def measure(players: int, simulations: int, games: int, seed: int) -> list[dict[str, Any]]:
    """One tournament: a row per agent (see the module docstring)."""
    from deduce.apps.openspiel import register_agents
    from deduce.apps.tournament import Tournament
    from deduce.apps.tournament.stats import agent_table

    register_agents()
    rivals = ["racer", "infogain"]
    entrants: list[Any] = [("openspiel-ismcts", {"max_simulations": simulations})]
    entrants += [rivals[i % 2] for i in range(players - 1)]
    results = Tournament("clue", entrants, games=games, seed=seed, players=players, backend="serial",
                         duplicate=True, progress=False).run()
    table = agent_table(results.games, seed=seed)
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in table.to_dict("records")]


def _line(row: dict[str, Any]) -> str:
    return (f"| {row['agent']} | {row['seats']} | {row['wins']} | {row['win_rate']:.2f} "
            f"[{row['win_lo']:.2f}, {row['win_hi']:.2f}] | {row['score']:.2f} [{row['score_lo']:.2f}, "
            f"{row['score_hi']:.2f}] ({row['deals']} deals) | {row['sec_per_move']:.3f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.openspiel", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--exploitability", action="store_true")
    parser.add_argument("--agents", nargs="+", default=["random", "racer", "infogain"])
    args = parser.parse_args(argv)
    if args.exploitability:
        rows = [nash_conv(a, args.seed) for a in args.agents]
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        print(f"NashConv on the small Clue {SMALL}\n")
        print("| agent | NashConv | best-response gain per seat |")
        print("|---|---|---|")
        for row in rows:
            print(f"| {row['agent']} | {row['nash_conv']:.3f} | {', '.join(f'{x:.3f}' for x in row['improvements'])} |")
        return 0
    runs = [measure(args.players, args.simulations, args.games, args.seed + r) for r in range(args.runs)]
    if args.json:
        print(json.dumps({"args": vars(args), "runs": runs}, indent=2))
        return 0
    print(f"Clue, {args.players} players, openspiel-ismcts:max_simulations={args.simulations}, "
          f"{args.games} games per run, duplicate deals")
    for r, rows in enumerate(runs):
        print(f"\nrun {r} (seed {args.seed + r})\n")
        print("| agent | seats | wins | win rate [95%] | mean score [95%, by deal] | s per decision |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            print(_line(row))
    print(f"\nmedian of {args.runs} runs\n")
    print("| agent | win rate | s per decision |")
    print("|---|---|---|")
    for agent in sorted({row["agent"] for rows in runs for row in rows}):
        mine = [row for rows in runs for row in rows if row["agent"] == agent]
        rate = statistics.median(row["win_rate"] for row in mine)
        sec = statistics.median(row["sec_per_move"] for row in mine)
        print(f"| {agent} | {rate:.2f} | {sec:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
