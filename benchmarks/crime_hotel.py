"""Crime Hotel benchmark: knowledge-update and decision times, and expected-points vs random.

``python -m benchmarks.crime_hotel`` plays ``--matches`` three-game matches per setting
(3 and 4 players, full and beginner rules), one ``expected-points`` seat against ``random`` seats, the
expected-points seat rotating, and reports per setting:

* the solver's match win rate with a Wilson 95% interval, next to the win rate of one random
  seat (all random seats pooled) with its interval, and whether the intervals are disjoint;
* mean match points (three games) of the expected-points agent and of a random seat, with normal 95% CIs;
* time per knowledge update (building the player's time-indexed knowledge base and its
  exact hidden-room marginals with the chain counter: median and max) and per solver decision.

``--quick`` runs a few matches per setting; ``--json FILE`` writes the table as JSON;
``--leftover box`` plays the variant whose leftover cards go face down into the box.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass

import agents
from deduce.apps.tournament.stats import wilson
from deduce.games.crime_hotel.rules import CrimeHotelGame
from deduce.play import GameRun, Step
from solvers.chain import ChainSolver

__all__ = ["Result", "run_setting", "wilson", "mean_ci", "main"]


@dataclass
class Result:
    """One setting's figures."""

    players: int
    beginner: bool
    matches: int
    solver_win: float
    solver_win_ci: tuple[float, float]
    random_win: float
    random_win_ci: tuple[float, float]
    disjoint: bool
    solver_points: float
    solver_points_ci: tuple[float, float]
    random_points: float
    random_points_ci: tuple[float, float]
    update_ms_median: float
    update_ms_max: float
    decision_ms_mean: float
    decision_ms_max: float


def mean_ci(xs: list[float], z: float = 1.96) -> tuple[float, tuple[float, float]]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, (m, m)
    half = z * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, (m - half, m + half)


def run_setting(players: int, beginner: bool, matches: int, seed: int = 0, leftover: str = "reveal") -> Result:
    """Play ``matches`` matches of one setting and measure them (``leftover="box"``: the
    variant whose leftover cards go face down into the box, the slowest to count)."""
    game = CrimeHotelGame(num_players=players, beginner=beginner, leftover=leftover)
    solver_wins, random_wins = 0, 0
    solver_pts: list[float] = []
    random_pts: list[float] = []
    updates: list[float] = []
    decisions: list[float] = []
    chain = ChainSolver()
    for m in range(matches):
        seat = m % players
        seats = [agents.get("random", game=game.name) for _ in range(players)]
        seats[seat] = agents.get("expected-points", game=game.name)

        def timed(step: Step, seat: int = seat, sample: bool = m < 4) -> None:
            if step.seat == seat:
                decisions.append(step.seconds)
            if sample and step.moves % 5 == 0 and not step.state.is_terminal():  # knowledge-update timing sample
                o = step.state.observation(seat)
                start = time.perf_counter()
                kb = game.knowledge(o)
                chain.marginals(kb)
                updates.append(time.perf_counter() - start)

        run = GameRun(game, seats, seed * 100_003 + m, on_action=timed, errors="raise")
        for _ in run:
            pass
        state = run.state
        winners = set(run.record().winners)
        solver_wins += seat in winners
        random_wins += sum(1 for q in range(players) if q != seat and q in winners)
        solver_pts.append(float(state.totals[seat]))
        random_pts.extend(float(state.totals[q]) for q in range(players) if q != seat)
    n_random = matches * (players - 1)
    s_ci = wilson(solver_wins, matches)
    r_ci = wilson(random_wins, n_random)
    sp, sp_ci = mean_ci(solver_pts)
    rp, rp_ci = mean_ci(random_pts)
    return Result(
        players=players,
        beginner=beginner,
        matches=matches,
        solver_win=solver_wins / matches,
        solver_win_ci=s_ci,
        random_win=random_wins / n_random,
        random_win_ci=r_ci,
        disjoint=s_ci[0] > r_ci[1],
        solver_points=sp,
        solver_points_ci=sp_ci,
        random_points=rp,
        random_points_ci=rp_ci,
        update_ms_median=1000 * statistics.median(updates) if updates else float("nan"),
        update_ms_max=1000 * max(updates) if updates else float("nan"),
        decision_ms_mean=1000 * statistics.fmean(decisions),
        decision_ms_max=1000 * max(decisions),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=120)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--leftover", choices=("reveal", "box"), default="reveal",
                        help="leftover cards after the deal: lit on the board (default) or face down in the box")
    args = parser.parse_args(argv)
    matches = 12 if args.quick else args.matches
    rows = []
    header = (
        f"{'setting':<14} {'n':>4} {'expected-points win [95% CI]':>22} {'random seat win':>22} {'sep':>4} "
        f"{'expected-points pts':>18} {'random pts':>18} {'upd ms med/max':>15} {'dec ms mean/max':>16}"
    )
    print(header)
    for players in (3, 4):
        for beginner in (False, True):
            r = run_setting(players, beginner, matches, args.seed, args.leftover)
            rows.append(r)
            name = f"{players}p {'beginner' if beginner else 'full'}{' box' if args.leftover == 'box' else ''}"
            print(
                f"{name:<14} {r.matches:>4} "
                f"{r.solver_win:>6.2f} [{r.solver_win_ci[0]:.2f},{r.solver_win_ci[1]:.2f}]      "
                f"{r.random_win:>6.2f} [{r.random_win_ci[0]:.2f},{r.random_win_ci[1]:.2f}]      "
                f"{'yes' if r.disjoint else 'NO':>4} "
                f"{r.solver_points:>5.1f} [{r.solver_points_ci[0]:.1f},{r.solver_points_ci[1]:.1f}] "
                f"{r.random_points:>5.1f} [{r.random_points_ci[0]:.1f},{r.random_points_ci[1]:.1f}] "
                f"{r.update_ms_median:>6.1f}/{r.update_ms_max:<7.1f} {r.decision_ms_mean:>6.1f}/{r.decision_ms_max:<8.1f}",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([asdict(r) for r in rows], fh, indent=2)
    return 0 if all(r.disjoint for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
