"""Mayfair Alibi's grid, exact (``frontier``) against the sampler (``epoch-sample``) in the same run.

    python -m benchmarks.alibi_exact [--seeds 5] [--rounds 2,3,4] [--full-seeds 2] [--no-cpsat]
    python -m benchmarks.alibi_exact --gibbs [--seeds 5] [--full-seeds 2] [--gibbs-rounds 4,6,8,10]

Three parts, every position a seat's view of a seeded random game (no accusations):

* reduced deck (18 cards, 3 players), rounds ``--rounds``: exact tallies by ``frontier``, the same
  by cpsat's enumeration (round 2 only, the reference the previous benchmark used), the previous
  Python sampler and ``epoch-sample``, each sampler's largest cell error against the exact grid,
  its stated bound, split R-hat and time;
* full deck, 4 players, round 2 (78 cards over 2 epochs: exact since ``frontier``): the exact
  update (knowledge + grid) and ``epoch-sample``'s error against it (``--full-samples`` draws per
  chain at most);
* ``--gibbs``: ``epoch-gibbs`` (block Gibbs with exact conditionals) in place of the samplers: on
  the reduced deck and at full size round 2 its largest cell error against ``frontier``, and at
  full size rounds ``--gibbs-rounds`` (no exact count there) its stated bound, split R-hat,
  sweeps and seconds;
* full deck, 4 players, rounds ``--possible-rounds``: the exact possible locations as the audit
  and the assistant ask them (``epoch``: chains' witnesses, the rest asked together) against the
  previous way (Python chains, then one CP-SAT solve per cell no world had shown), same
  positions, same run, equal answers asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import solvers
from benchmarks.alibi import SMALL, previous_sampler_marginals, state_at_round
from deduce.games.alibi.rules import AlibiGame
from solvers.block_sampler import BlockGibbs
from solvers.epoch import Chains, EpochSampler, EpochSolver, pruned_model
from solvers.frontier import FrontierSolver

__all__ = ["main"]


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def reduced(seeds: int, rounds: tuple[int, ...], cpsat: bool) -> None:
    game = AlibiGame(num_players=3, **SMALL)
    fr = FrontierSolver(max_cells=None)
    print("| round | seed | epochs | worlds | frontier ms | cpsat s | previous sampler error (s) | "
          "epoch-sample error | stated | split R-hat | draws | epoch-sample s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    wrong = 0
    worst = 0.0
    for r in rounds:
        for seed in range(seeds):
            try:
                st = state_at_round(game, seed, r, pos=0)
            except ValueError:
                continue
            kb = game.knowledge(st.observation(seed % 3))
            tally, t_fr = _timed(fr.tallies, kb)
            exact = tally.marginals()
            t_cp = "-"
            if cpsat and r == 2:
                cp_tally, t = _timed(solvers.get("cpsat", limit=500_000).tallies, kb)
                assert cp_tally == tally, f"cpsat and frontier disagree (seed {seed})"
                t_cp = f"{t:.1f}"
            old, t_old = _timed(previous_sampler_marginals, kb)
            est, t_new = _timed(EpochSampler(seed=seed).estimate, kb)
            d = est.diagnostics
            err = float(np.abs(est.marginals - exact).max())
            worst = max(worst, err)
            wrong += err > d.error
            print(f"| {r} | {seed} | {kb.epochs} | {tally.total:,} | {t_fr * 1e3:.0f} | {t_cp} | "
                  f"{np.abs(old - exact).max():.3f} ({t_old:.1f}) | {err:.3f} | {d.error:.3f} | {d.rhat:.4f} | "
                  f"{d.samples:,} | {t_new:.1f} |", flush=True)
    print(f"largest epoch-sample cell error over these positions: {worst:.3f}; past its stated bound at {wrong}")


def full(seeds: int, max_samples: int) -> None:
    game = AlibiGame(num_players=4)
    fr = FrontierSolver()
    times = []
    print("| seed | worlds | exact update s | epoch-sample error | stated | split R-hat | epoch-sample s |")
    print("|---|---|---|---|---|---|---|")
    for seed in range(seeds):
        obs = state_at_round(game, seed, 2).observation(seed % 4)
        t = time.perf_counter()
        kb = game.knowledge(obs)
        if not fr.supports(kb):  # a meld window before the pass adds epochs
            print(f"| {seed} | - | refused: {kb.epochs} epochs | - | - | - | - |")
            continue
        tally = fr.tallies(kb)
        times.append(time.perf_counter() - t)
        exact = tally.marginals()
        est, t_new = _timed(EpochSampler(seed=seed, max_samples=max_samples).estimate, kb)
        d = est.diagnostics
        print(f"| {seed} | {float(tally.total):.3g} | {times[-1]:.2f} | {np.abs(est.marginals - exact).max():.3f} | "
              f"{d.error:.3f} | {d.rhat:.3f} | {t_new:.1f} |", flush=True)
    if times:
        print(f"exact update at 4 players, round 2: median {statistics.median(times):.2f} s, max {max(times):.2f} s")


def _gibbs_row(kb, seed: int, exact, **kw) -> tuple[str, float, bool]:
    """One ``epoch-gibbs`` run: its table cells (error vs exact or '-', stated, R-hat, sweeps,
    block, s), its seconds and whether its error was inside its stated bound."""
    g = BlockGibbs(seed=seed, **kw)
    est, t = _timed(g.estimate, kb)
    d = est.diagnostics
    err = None if exact is None else float(np.abs(est.marginals - exact).max())
    cells = (f"{'-' if err is None else f'{err:.3f}'} | {d.error:.3f} | {d.rhat:.4f} | {d.samples:,} | "
             f"{g.block_used} | {'yes' if d.converged else 'no'} | {t:.1f}")
    return cells, t, err is None or err <= d.error + 1e-9


def gibbs(seeds: int, rounds: tuple[int, ...], full_seeds: int, full_rounds: tuple[int, ...], **kw) -> None:
    """``epoch-gibbs`` against ``frontier`` where it counts (reduced deck; full deck round 2),
    and alone at full size later on."""
    BlockGibbs(samples=4, max_samples=4, burn_in=1).estimate(  # compile the kernel outside the timings
        AlibiGame(num_players=3, **SMALL).knowledge(state_at_round(AlibiGame(num_players=3, **SMALL), 0, 2, pos=0)
                                                    .observation(0)))
    fr = FrontierSolver(max_cells=None)
    head = "error | stated | split R-hat | sweeps (all chains) | block | converged | gibbs s"
    print(f"| deck | round | seed | epochs | worlds | exact s | {head} |")
    print("|---|---|---|---|---|---|" + "---|" * 7)
    inside = total = 0
    worst = 0.0
    times = []
    positions = []
    if seeds:
        small = AlibiGame(num_players=3, **SMALL)
        for r in rounds:
            for seed in range(seeds):
                try:
                    st = state_at_round(small, seed, r, pos=0)
                except ValueError:
                    continue
                positions.append(("reduced", r, seed, small.knowledge(st.observation(seed % 3))))
    big = AlibiGame(num_players=4)
    for r in (2, *full_rounds):
        for seed in range(full_seeds):
            try:
                positions.append(("full", r, seed, big.knowledge(state_at_round(big, seed, r).observation(seed % 4))))
            except ValueError:
                continue
    for deck, r, seed, kb in positions:
        exact, t_ex, worlds = None, None, "-"
        if deck == "reduced" or (r == 2 and FrontierSolver().supports(kb)):
            tally, t_ex = _timed((fr if deck == "reduced" else FrontierSolver()).tallies, kb)
            exact, worlds = tally.marginals(), f"{float(tally.total):.3g}"
        cells, t, ok = _gibbs_row(kb, seed, exact, **kw)
        times.append(t)
        if exact is not None:
            total += 1
            inside += ok
            worst = max(worst, float(cells.split(" | ")[0]))
        print(f"| {deck} | {r} | {seed} | {kb.epochs} | {worlds} | {'-' if t_ex is None else f'{t_ex:.2f}'} | "
              f"{cells} |", flush=True)
    if times:
        print(f"epoch-gibbs: largest error vs exact {worst:.3f}, inside its stated bound at {inside} of {total}; "
              f"seconds median {statistics.median(times):.1f}, max {max(times):.1f}")


def previous_possible(kb, moves: int = 6000) -> np.ndarray:
    """The exact possible locations as ``epoch`` found them before: 6,000 Python chain moves
    from one CP-SAT world, then one CP-SAT solve per cell still unwitnessed."""
    e = kb.epochs - 1
    out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
    model, possible = pruned_model(kb)
    world = None if model is None else model.solve()
    if world is None:
        return out
    idx = np.arange(kb.num_cards)
    out[idx, world[e]] = True
    chains = Chains(kb, possible, world, np.random.default_rng(0))
    for _ in range(max(1, moves // 500)):
        chains.step(500)
        out[idx, chains.world[e]] = True
    for card, z in np.argwhere(possible[e] & ~out):
        if not out[card, z] and (w := model.solve([model.x[e][card][z]])) is not None:
            out[idx, w[e]] = True
    return out


def possible_checks(seeds: int, rounds: tuple[int, ...]) -> None:
    game = AlibiGame(num_players=4)
    EpochSolver().possible(game.knowledge(state_at_round(game, 0, 2).observation(0)))  # compile the chains
    print("| round | seed | epochs | previous s | epoch s | ratio |")
    print("|---|---|---|---|---|---|")
    old_t, new_t = [], []
    for r in rounds:
        for seed in range(seeds):
            try:
                kb = game.knowledge(state_at_round(game, seed, r).observation(seed % 4))
            except ValueError:
                continue
            old, t_old = _timed(previous_possible, kb)
            new, t_new = _timed(EpochSolver().possible, kb)
            assert np.array_equal(old, new), f"previous and epoch possible disagree (round {r}, seed {seed})"
            old_t.append(t_old)
            new_t.append(t_new)
            print(f"| {r} | {seed} | {kb.epochs} | {t_old:.2f} | {t_new:.2f} | {t_old / t_new:.1f} |", flush=True)
    if new_t:
        print(f"exact possible, 4 players: previous median {statistics.median(old_t):.2f} s max {max(old_t):.2f} s; "
              f"epoch median {statistics.median(new_t):.2f} s max {max(new_t):.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--rounds", default="2,3,4")
    ap.add_argument("--full-seeds", type=int, default=2)
    ap.add_argument("--full-samples", type=int, default=1000)
    ap.add_argument("--possible-rounds", default="", help="e.g. 2,4,6,8,10: exact possible, previous vs epoch")
    ap.add_argument("--possible-seeds", type=int, default=2)
    ap.add_argument("--no-cpsat", action="store_true", help="skip cpsat's enumeration (12 s a position)")
    ap.add_argument("--gibbs", action="store_true", help="epoch-gibbs against frontier (and alone at full size)")
    ap.add_argument("--gibbs-rounds", default="4,6,8,10", help="full-deck rounds past 2 for --gibbs (no exact)")
    ap.add_argument("--gibbs-block", type=int, default=None, help="epoch-gibbs block size, fixed (default: tuned to its work target)")
    ap.add_argument("--gibbs-max-samples", type=int, default=None, help="epoch-gibbs sweeps per chain at most")
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load average at start: {f.read().split()[0]}")
    if args.gibbs:
        kw = {k: v for k, v in (("block", args.gibbs_block), ("max_samples", args.gibbs_max_samples)) if v is not None}
        if args.gibbs_block is not None:
            kw["work_target"] = None
        gibbs(args.seeds, tuple(int(r) for r in args.rounds.split(",")), args.full_seeds,
              tuple(int(r) for r in args.gibbs_rounds.split(",") if r), **kw)
    elif args.seeds:
        reduced(args.seeds, tuple(int(r) for r in args.rounds.split(",")), not args.no_cpsat)
    if args.full_seeds and not args.gibbs:
        full(args.full_seeds, args.full_samples)
    if args.possible_rounds:
        possible_checks(args.possible_seeds, tuple(int(r) for r in args.possible_rounds.split(",")))
    with open("/proc/loadavg") as f:
        print(f"load average at end: {f.read().split()[0]}")


if __name__ == "__main__":
    main()
