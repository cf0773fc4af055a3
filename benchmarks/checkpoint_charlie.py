"""Checkpoint Charlie: time per knowledge update and per decision, and mean scores of the
``bayesian``, ``patient`` and ``random`` agents.

``python -m benchmarks.checkpoint_charlie`` plays, at 3, 4 and 5 players, games where seat
``i`` of game ``g`` holds agent ``(g + i) mod 3`` of (bayesian, patient, random), so over every
three games each agent sits in every seat equally often (at 4-5 players some agent holds two
seats of a game). An agent's score in a game is the mean final score (points, ``returns()``)
of its seats in that game, and the table shows the mean over games with a normal 95%
interval. It also times, over the poll states of random games, building a player's
knowledge base from its observation plus the exact posterior (one "knowledge update"), and
one decision of each agent. Options: ``--games`` per table (default 300), ``--players``
(default 3,4,5), ``--seed``, ``--timing-games`` (default 5), ``--jobs`` (default: all cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

import agents
from agents.checkpoint_charlie.posterior import posterior
from deduce.games.checkpoint_charlie.rules import (
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    CheckpointCharlieState,
)
from deduce.play import Step, play_game
from solvers.tokens import TokenSolver

__all__ = ["AGENT_NAMES", "ScoreRow", "TimingRow", "play_one", "mean_scores", "timings", "main"]

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


def play_one(players: int, game_index: int, seed: int) -> dict[str, float]:
    """Play one game; return each agent's mean score over its seats."""
    game = CheckpointCharlieGame(num_players=players)
    seats = seating(players, game_index)
    record = play_game(game, [agents.get(name, game=GAME) for name in seats], seed=seed + game_index)
    if record.failure is not None:
        raise RuntimeError(f"{record.failure.agent} failed: {record.failure.message}")
    out: dict[str, list[float]] = {}
    for name, score in zip(seats, record.returns, strict=True):
        out.setdefault(name, []).append(score)
    return {name: float(np.mean(v)) for name, v in out.items()}


def _play_args(args: tuple[int, int, int]) -> dict[str, float]:
    return play_one(*args)


def mean_scores(players: int, games: int, seed: int, jobs: int) -> list[ScoreRow]:
    """Play ``games`` games at ``players`` seats; one row per agent."""
    tasks = [(players, g, seed) for g in range(games)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_play_args, tasks, chunksize=max(1, games // (4 * jobs))))
    else:
        results = [_play_args(t) for t in tasks]
    rows = []
    for name in AGENT_NAMES:
        scores = np.array([r[name] for r in results if name in r])
        half = 1.96 * scores.std(ddof=1) / np.sqrt(len(scores)) if len(scores) > 1 else float("nan")
        rows.append(ScoreRow(players, name, len(scores), float(scores.mean()),
                             float(scores.mean() - half), float(scores.mean() + half)))
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
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    sizes = [int(p) for p in args.players.split(",")]

    print("time per operation (ms): median / p95 / max over poll states")
    for n in sizes:
        for row in timings(n, args.timing_games, args.seed):
            print(f"  {n}p  {row.what:<42} n={row.samples:<5} {1e3 * row.median:7.2f} "
                  f"{1e3 * row.p95:7.2f} {1e3 * row.worst:7.2f}")

    print(f"\nmean final score per game, 95% interval ({args.games} games per table)")
    verdicts = []
    for n in sizes:
        start = time.perf_counter()
        rows = mean_scores(n, args.games, args.seed, args.jobs)
        spent = time.perf_counter() - start
        for r in rows:
            print(f"  {n}p  {r.agent:<9} games={r.games:<4} mean={r.mean:6.2f}  [{r.low:6.2f}, {r.high:6.2f}]")
        print(f"      ({spent:.1f} s)")
        by = {r.agent: r for r in rows}
        beats = all(by["bayesian"].low > by[o].high for o in ("patient", "random"))
        verdicts.append((n, beats))
    for n, beats in verdicts:
        word = "beats" if beats else "does NOT clearly beat"
        print(f"{n} players: bayesian {word} patient and random (non-overlapping 95% intervals)")
    return 0 if all(b for _, b in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
