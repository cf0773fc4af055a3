"""Alibi (Mayfair 1992) benchmark: knowledge update + possible query at round 6 (4 players),
agent decision times, sampler error against exact enumeration on reduced decks, and win
rates with 95% Wilson intervals.

    python -m benchmarks.alibi [--games 20] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import agents
import solvers
from deduce.apps.tournament.stats import wilson
from deduce.games.alibi.rules import Accuse, AlibiGame, AlibiState
from deduce.play import RandomPlayer, play_game
from solvers.epoch import EpochSampler, EpochSolver

__all__ = ["main", "state_at_round", "wilson"]

SMALL = dict(
    suspects=("A", "B"),
    places=(("P", ("p1", "p2", "p3")),),
    weapons=(("W", ("w1", "w2", "w3")),),
    emotions=(("E", ("e1", "e2", "e3")), ("F", ("f1", "f2", "f3"))),
)


def state_at_round(game: AlibiGame, seed: int, round_: int, pos: int = 1) -> AlibiState:
    """A random game (no accusations) played up to the ``pos``-th question of ``round_``."""
    st = game.new_initial_state(seed)
    play_game(game, [RandomPlayer(seed, exclude=(Accuse,))] * game.num_players, seed, state=st,
              until=lambda s: s.round == round_ and s.phase == "ask" and s.pos == pos, errors="raise")
    if st.is_terminal():
        raise ValueError(f"game {seed} ended before question {pos} of round {round_}")
    return st


def bench_update(seeds: int) -> None:
    game = AlibiGame(num_players=4)
    es = EpochSolver()
    times, kb_times = [], []
    for seed in range(seeds):
        st = state_at_round(game, seed, 6)
        obs = st.observation(seed % 4)
        t = time.perf_counter()
        kb = game.knowledge(obs)
        kb_times.append(time.perf_counter() - t)
        es.possible(kb)
        times.append(time.perf_counter() - t)
    print(f"knowledge update (round 6, 4 players): median {statistics.median(kb_times) * 1e3:.1f} ms")
    print(f"update + exact possible (epoch solver): median {statistics.median(times):.2f} s, "
          f"min {min(times):.2f} s, max {max(times):.2f} s over {seeds} positions (epochs {kb.epochs})")
    st = state_at_round(game, 0, 6)
    kb = game.knowledge(st.observation(0))
    t = time.perf_counter()
    solvers.get("cpsat").possible(kb)
    print(f"same query with the full epoch-unrolled cpsat model: {time.perf_counter() - t:.2f} s (one position)")


def bench_decisions(seeds: int) -> None:
    game = AlibiGame(num_players=4)
    times = []
    for seed in range(seeds):
        st = state_at_round(game, seed, 6)
        agent = agents.get("sampling", game="alibi")
        agent.reset(game, st.current_player, seed)
        t = time.perf_counter()
        agent.act(st.observation(st.current_player))
        times.append(time.perf_counter() - t)
    print(f"sampling agent turn decision (round 6, 4 players): median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s over {seeds}")


def bench_sampler(seeds: int) -> None:
    game = AlibiGame(num_players=3, **SMALL)
    cp = solvers.get("cpsat", limit=500_000)
    errs, means, spreads, worlds = [], [], [], []
    for seed in range(seeds):
        st = state_at_round(game, seed, 2, pos=0)
        kb = game.knowledge(st.observation(seed % 3))
        exact = cp.marginals(kb)[:, game.box_loc]
        worlds.append(cp.count(kb))
        sm = EpochSampler(chains=4, burn_in=1000, thin=20, samples=400)
        approx = sm.marginals(kb)[:, game.box_loc]
        errs.append(float(np.abs(exact - approx).max()))
        means.append(float(np.abs(exact - approx).mean()))
        spreads.append(sm.diagnostics().spread)  # type: ignore[union-attr]
    print(f"sampler vs exact box marginals (reduced deck {game.num_cards} cards, 3 players, round 2, "
          f"{min(worlds)}-{max(worlds)} worlds): max abs error median {statistics.median(errs):.3f} "
          f"(worst {max(errs):.3f}), mean abs error {statistics.mean(means):.4f}, chain spread median "
          f"{statistics.median(spreads):.3f}")


def bench_wins(games: int) -> None:
    game = AlibiGame(num_players=4)
    for label, lineup in (
        ("sampling vs 3 random", ["sampling", "random", "random", "random"]),
        ("sampling-randq vs 3 random", ["sampling-randq", "random", "random", "random"]),
        ("sampling vs sampling-randq (2 v 2)", ["sampling", "sampling-randq", "sampling", "sampling-randq"]),
    ):
        wins: dict[str, float] = {}
        seats: dict[str, int] = {}
        t = time.perf_counter()
        for g in range(games):
            shift = g % 4
            names = lineup[shift:] + lineup[:shift]
            rec = play_game(game, [agents.get(nm, game="alibi") for nm in names], 1000 + g)
            assert rec.failure is None, rec.failure
            for i, nm in enumerate(names):
                seats[nm] = seats.get(nm, 0) + 1
                if i in rec.winners:
                    wins[nm] = wins.get(nm, 0) + 1 / len(rec.winners)
        parts = []
        for nm in dict.fromkeys(lineup):
            w, n = wins.get(nm, 0.0), seats[nm]
            lo, hi = wilson(w, n)
            parts.append(f"{nm} {w / n:.2f} [{lo:.2f}, {hi:.2f}] ({n} seats)")
        print(f"{label}, {games} games ({time.perf_counter() - t:.0f} s): per-seat win rate " + "; ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--positions", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer positions and games")
    ap.add_argument("--skip-wins", action="store_true")
    args = ap.parse_args()
    n = 3 if args.quick else args.positions
    bench_update(n)
    bench_decisions(n)
    bench_sampler(min(n, 5))  # exact enumeration: 6-150 s per position
    if not args.skip_wins:
        bench_wins(4 if args.quick else args.games)


if __name__ == "__main__":
    main()
