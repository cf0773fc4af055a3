"""Alibi (Adlung 2001): time per knowledge update and per decision, and counting vs random.

``python -m benchmarks.alibi_adlung`` plays, at 2, 3 and 5 players, games with one ``counting``
agent and ``random`` in the other seats (the counting seat rotates game by game), plus the same
number of all-``random`` games as a baseline, and prints each agent's mean score with a 95%
confidence interval (normal approximation over seats) and its win rate with a Wilson 95%
interval ("win" = the top score; a shared top counts for each tied player). Separately it
times, at every step of random games, building the acting player's knowledge base from its
observation and the exact marginals query the counting agent makes.
``--games`` per player count (default 60), ``--players`` (default 2,3,5), ``--seed``,
``--timing-games`` (default 3).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import agents
import deduce
import solvers
from benchmarks._timing import TimingRow, timing_row
from deduce.errors import NotSupported
from deduce.play import play_game
from deduce.tournament.stats import wilson

__all__ = ["ScoreRow", "TimingRow", "scores", "timings", "main"]


@dataclass(frozen=True)
class ScoreRow:
    players: int
    table: str
    agent: str
    values: tuple[float, ...]
    wins: int
    decision_ms: float

    @property
    def seats(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def ci(self) -> tuple[float, float]:
        """95% interval of the mean score (normal approximation)."""
        half = 1.96 * statistics.stdev(self.values) / math.sqrt(self.seats) if self.seats > 1 else math.inf
        return self.mean - half, self.mean + half

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def win_ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.seats)


def scores(players: int, games: int, seed: int) -> list[ScoreRow]:
    """``games`` games of counting + random (counting seat rotated), then ``games`` all-random."""
    game = deduce.make("alibi-adlung", num_players=players)
    rows: list[ScoreRow] = []
    for label, lead in (("counting v random", "counting"), ("all random", "random")):
        values: dict[str, list[float]] = defaultdict(list)
        wins: dict[str, int] = defaultdict(int)
        spent: dict[str, float] = defaultdict(float)
        moves: dict[str, int] = defaultdict(int)
        for i in range(games):
            names = ["random"] * players
            names[i % players] = lead
            seated = [agents.get(name, game="alibi-adlung") for name in names]
            record = play_game(game, seated, seed=seed + i)
            if record.failure is not None:
                raise RuntimeError(f"{record.failure.agent} failed: {record.failure.message}")
            for k, name in enumerate(names):
                values[name].append(record.returns[k])
                wins[name] += int(k in record.winners)
                spent[name] += record.decision_seconds[k]
                moves[name] += record.decisions[k]
        for name in sorted(values):
            ms = 1000 * spent[name] / moves[name] if moves[name] else 0.0
            rows.append(ScoreRow(players, label, name, tuple(values[name]), wins[name], ms))
    return rows


def timings(players: int, games: int, seed: int) -> list[TimingRow]:
    """Time ``game.knowledge(obs)`` and exact marginals for the acting player at every step of
    ``games`` random games, and the counting agent's decisions when it plays every seat."""
    game = deduce.make("alibi-adlung", num_players=players)
    exact = solvers.get("exact")
    build: list[float] = []
    marg: list[float] = []
    refused = 0
    for g in range(games):
        state = game.new_initial_state(seed + g)
        rng = np.random.default_rng(seed + g)
        while not state.is_terminal():
            obs = state.observation(state.current_player)
            t = time.perf_counter()
            kb = game.knowledge(obs)
            build.append(time.perf_counter() - t)
            exact.clear_cache()  # a fresh query, as after every new event
            t = time.perf_counter()
            try:
                exact.marginals(kb)
                marg.append(time.perf_counter() - t)
            except NotSupported:
                refused += 1
            legal = obs.legal_actions
            state.apply(legal[int(rng.integers(len(legal)))])
    decide: list[float] = []
    for g in range(games):
        seated = [agents.get("counting", game="alibi-adlung") for _ in range(players)]
        state = game.new_initial_state(seed + 1000 + g)
        for k, a in enumerate(seated):
            a.reset(game, k, seed + g * players + k)
        while not state.is_terminal():
            obs = state.observation(state.current_player)
            t = time.perf_counter()
            action = seated[state.current_player].act(obs)
            decide.append(time.perf_counter() - t)
            state.apply(action)
    return [
        timing_row(players, "knowledge update", build),
        timing_row(players, "exact marginals", marg, refused),
        timing_row(players, "counting decision", decide),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.alibi_adlung", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games per player count and table")
    parser.add_argument("--players", default="2,3,5", help="comma-separated player counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-games", type=int, default=3)
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.players.split(",") if x]

    print(f"Alibi (Adlung): time per step over {args.timing_games} games per player count")
    print("| players | what | samples | mean ms | p50 ms | p95 ms | max ms | refused |")
    print("|---|---|---|---|---|---|---|---|")
    for n in counts:
        for r in timings(n, args.timing_games, args.seed):
            print(f"| {r.players} | {r.what} | {r.samples} | {r.mean_ms:.2f} | {r.p50_ms:.2f} | "
                  f"{r.p95_ms:.2f} | {r.max_ms:.1f} | {r.refused} |", flush=True)

    print(f"\nScores, {args.games} games per table, counting seat rotated (95% CIs)")
    print("| players | table | agent | seats | mean score | 95% CI | win rate | Wilson 95% CI | ms/decision |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in counts:
        t0 = time.perf_counter()
        for r in scores(n, args.games, args.seed):
            lo, hi = r.ci
            wlo, whi = r.win_ci
            print(f"| {r.players} | {r.table} | {r.agent} | {r.seats} | {r.mean:.2f} | [{lo:.2f}, {hi:.2f}] | "
                  f"{r.win_rate:.3f} | [{wlo:.3f}, {whi:.3f}] | {r.decision_ms:.2f} |", flush=True)
        print(f"<!-- {n} players: {time.perf_counter() - t0:.1f} s -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
