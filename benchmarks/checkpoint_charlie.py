"""Checkpoint Charlie: time per knowledge update and per decision, and mean scores of the
``bayesian``, ``patient`` and ``random`` agents.

``python -m benchmarks.checkpoint_charlie`` plays, at 3, 4 and 5 players, a tournament of the
three agents per table size (:mod:`benchmarks._experiment`): they go round the table starting
with each in turn, every rotation, one duplicate deal per round, so every agent holds as many
seats as the others in every seat (at 4-5 players an agent holds two seats of some games).
The score table shows each agent's mean final score per seat (points, ``returns()``) with its
bootstrap 95% interval over deals, and bayesian's per-deal paired difference against each
other agent (bootstrap 95% over deals, sign test), all from
:mod:`deduce.apps.tournament.stats`; bayesian "beats" an agent when that difference's interval
lies above zero. It also times, over the poll states of random games, building a player's
knowledge base from its observation plus the exact posterior (one "knowledge update"), and
one decision of each agent. Options: ``--games`` per table (default 300, rounded up to whole
rounds), ``--players`` (default 3,4,5), ``--seed``, ``--timing-games`` (default 5), and where
the games run: ``--backend``, ``--workers``, ``--address``, ``--out DIR`` (resume).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import agents
from agents.checkpoint_charlie.posterior import posterior
from benchmarks import _experiment as ex
from deduce.apps.tournament import derive_seed, stats
from deduce.games.checkpoint_charlie.rules import (
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    CheckpointCharlieState,
)
from deduce.play import Step, play_game
from solvers.tokens import TokenSolver

__all__ = ["AGENT_NAMES", "ScoreRow", "TimingRow", "cell", "mean_scores", "score_rows", "timings", "main"]

AGENT_NAMES: tuple[str, ...] = ("bayesian", "patient", "random")
GAME = "checkpoint-charlie"


@dataclass(frozen=True)
class ScoreRow:
    """Mean score of one agent at one table size, with its 95% interval."""

    players: int
    agent: str
    games: int
    mean: float
    low: float
    high: float
    seats: int = 0
    deals: int = 0
    #: bayesian's score minus this agent's per deal (:func:`benchmarks._experiment.paired`)
    bayesian_minus: dict[str, Any] | None = None


@dataclass(frozen=True)
class TimingRow:
    """Median, 95th percentile and maximum seconds of one operation."""

    what: str
    players: int
    samples: int
    median: float
    p95: float
    worst: float


def seating(players: int, game_index: int) -> tuple[str, ...]:
    """The agent in each seat of game ``game_index`` (rotated so seats are balanced)."""
    return tuple(AGENT_NAMES[(game_index + i) % len(AGENT_NAMES)] for i in range(players))


def cell(players: int, games: int, seed: int) -> ex.Cell:
    """The score table at ``players`` seats: at least ``games`` games, whole rounds."""
    base = ex.Cell.create(f"{players}p", GAME, AGENT_NAMES, players, 0, derive_seed(seed, 7, players))
    return replace(base, games=-(-max(games, 1) // base.round_size()) * base.round_size())


def mean_scores(players: int, games: int, seed: int, options: ex.RunOptions = ex.SERIAL) -> list[ScoreRow]:
    """Play the table at ``players`` seats on ``options``' backend; one row per agent."""
    table = cell(players, games, seed)
    return score_rows(table, ex.run_cells([table], options)[table.name], seed)


def score_rows(table: ex.Cell, games: Any, seed: int) -> list[ScoreRow]:
    """Per agent: games and seats, mean score per seat with its interval over deals, and (for
    the others) bayesian minus it per deal."""
    summary = stats.agent_table(games, seed=seed).set_index("agent")
    rows = []
    for name in AGENT_NAMES:
        r = summary.loc[name]
        vs = None if name == "bayesian" else ex.paired(games, "bayesian", name, seed=seed)
        rows.append(ScoreRow(table.players, name, int(r.games), float(r.score), float(r.score_lo),
                             float(r.score_hi), int(r.seats), int(r.deals), vs))
    return rows


def _summary(what: str, players: int, samples: Sequence[float]) -> TimingRow:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return TimingRow(what, players, len(ordered), statistics.median(ordered), p95, ordered[-1])


def timings(players: int, games: int, seed: int) -> list[TimingRow]:
    """Time knowledge updates and decisions at every poll of ``games`` seat-rotated games."""
    game = CheckpointCharlieGame(num_players=players)
    build: list[float] = []
    update: list[float] = []
    decide: dict[str, list[float]] = {name: [] for name in AGENT_NAMES}
    solver = TokenSolver()

    def update_timed(state: CheckpointCharlieState, seat: int, obs: CheckpointCharlieObservation) -> None:
        if obs.phase == "poll":
            solver.clear_cache()  # keep the per-shape world lists, forget answers
            start = time.perf_counter()
            game.knowledge(obs)
            build.append(time.perf_counter() - start)
            posterior(game, obs, solver)
            update.append(time.perf_counter() - start)

    for g in range(games):
        seats = seating(players, g)

        def decision_timed(step: Step, seats: tuple[str, ...] = seats) -> None:
            if step.observation.phase == "poll":
                decide[seats[step.seat]].append(step.seconds)

        play_game(game, [agents.get(name, game=GAME) for name in seats], seed + g, deal_seed=seed + g,
                  agent_seeds=[seed + 1000 * g + i for i in range(players)],
                  before_act=update_timed, on_action=decision_timed, errors="raise")
    rows = [_summary("knowledge base from observation", players, build),
            _summary("knowledge update (kb + exact posterior)", players, update)]
    rows += [_summary(f"decision: {name}", players, decide[name]) for name in AGENT_NAMES if decide[name]]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.checkpoint_charlie", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", default="3,4,5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-games", type=int, default=5)
    ex.add_run_options(parser)
    args = parser.parse_args(argv)
    return ex.guarded(lambda: _main(args), "benchmarks.checkpoint_charlie")


def _main(args: argparse.Namespace) -> int:
    sizes = [int(p) for p in args.players.split(",")]
    options = ex.run_options(args)
    if args.timing_games > 0:
        print("time per operation (ms): median / p95 / max over poll states")
        for n in sizes:
            for row in timings(n, args.timing_games, args.seed):
                print(f"  {n}p  {row.what:<42} n={row.samples:<5} {1e3 * row.median:7.2f} "
                      f"{1e3 * row.p95:7.2f} {1e3 * row.worst:7.2f}")

    print(f"\nmean final score per seat, 95% interval over deals (at least {args.games} games per table)")
    verdicts = []
    for n in sizes:
        start = time.perf_counter()
        rows = mean_scores(n, args.games, args.seed, options)
        spent = time.perf_counter() - start
        for r in rows:
            line = (f"  {n}p  {r.agent:<9} games={r.games:<4} seats={r.seats:<4} deals={r.deals:<4} "
                    f"mean={r.mean:6.2f}  [{r.low:6.2f}, {r.high:6.2f}]")
            if r.bayesian_minus is not None:
                p = r.bayesian_minus
                line += (f"  bayesian - {r.agent} per deal {p['mean']:+.2f} [{p['lo']:+.2f}, {p['hi']:+.2f}], "
                         f"ahead {p['ahead']} / behind {p['behind']}, sign p {p['sign_p']:.2g}")
            print(line)
        print(f"      ({spent:.1f} s, {args.backend})", flush=True)
        beats = all(r.bayesian_minus["n"] >= 2 and r.bayesian_minus["lo"] > 0  # one deal proves nothing
                    for r in rows if r.bayesian_minus is not None)
        verdicts.append((n, beats))
    for n, beats in verdicts:
        word = "beats" if beats else "does NOT clearly beat"
        print(f"{n} players: bayesian {word} patient and random (per-deal difference, 95% interval above 0)")
    return 0 if all(b for _, b in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
