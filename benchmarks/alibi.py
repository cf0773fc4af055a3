"""Alibi (Mayfair 1992) benchmark: knowledge update + possible query at round 6 (4 players),
the update with marginals through round 10 (the previous Python sampler and the compiled one
with its stated error, in the same run), agent decision times, sampler error against exact
enumeration on reduced decks, and win rates with 95% Wilson intervals.

    python -m benchmarks.alibi [--games 20] [--quick] [--only update,grid,decisions,sampler,wins]
        [--backend serial|processes|ray|auto] [--workers N] [--address HOST:PORT] [--out DIR]

The win tables are tournaments (:mod:`benchmarks._experiment`): every rotation of the seats,
duplicate deals, on any backend, resumed from ``--out``; rates and intervals from
:mod:`deduce.apps.tournament.stats`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import agents
import solvers
from benchmarks import _experiment as ex
from deduce.apps.tournament import derive_seed
from deduce.apps.tournament.stats import wilson
from deduce.games.alibi.rules import Accuse, AlibiGame, AlibiState
from deduce.play import RandomPlayer, play_game
from solvers.epoch import Chains, EpochSampler, EpochSolver, pruned_model

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


def assistant_update(game: AlibiGame, obs: Any, solver: Any, adapter: Any) -> tuple[np.ndarray, str, float, float]:
    """One update as ``deduce assist alibi`` computes it, by the session itself: the log read
    into a :class:`~deduce.apps.assist.session.GameAssistant` (events parsed, the knowledge base
    built and checked consistent), then its grid (``frontier``'s exact count where it takes the
    view, ``epoch-gibbs`` on views of at most 2 epochs, else each card spread evenly over its
    exactly possible places). ``solver`` is kept across updates, as one session keeps it.
    Returns (grid, how, read s, grid s)."""
    from deduce.apps.assist.session import GameAssistant
    from deduce.logs import export_log

    log = export_log(game, obs)
    t0 = time.perf_counter()
    session = GameAssistant(adapter, solver, log=log)
    t1 = time.perf_counter()
    m = session.marginals()
    how = "exact" if m.exact else ("sampled" if (m.label or "").startswith("sampled") else "spread")
    return np.asarray(m.p, dtype=float), how, t1 - t0, time.perf_counter() - t1


def bench_updates(seeds: int, last_round: int = 10) -> list[tuple[int, int, str, float, float]]:
    """Every update of one seat's view (seat ``seed % 4``) of ``seeds`` seeded random 4-player
    games (no accusations) from the deal through round ``last_round``, each computed as
    :func:`assistant_update` with one solver per game (as one session keeps it). Prints the
    median, 95th percentile and max by round and over all; returns the rows (seed, round, how,
    knowledge s, grid s)."""
    from deduce.apps.assist.session import adapter_for

    game = AlibiGame(num_players=4)
    adapter = adapter_for("alibi")
    for warm_round in (2, 4):  # compile the kernels outside the figures (a round-3 view's first cost 12 s)
        warm = state_at_round(game, 0, warm_round)
        assistant_update(game, warm.observation(0), solvers.get("auto", order=adapter.backends), adapter)
    rows: list[tuple[int, int, str, float, float]] = []
    for seed in range(seeds):
        solver = solvers.get("auto", order=adapter.backends)
        seat = seed % 4
        st = game.new_initial_state(seed)

        def update(state: AlibiState, seed: int = seed, seat: int = seat, solver: Any = solver) -> bool:
            if state.round > last_round:
                return True
            _, how, t_kb, t_grid = assistant_update(game, state.observation(seat), solver, adapter)
            rows.append((seed, state.round, how, t_kb, t_grid))
            return False

        play_game(game, [RandomPlayer(seed, exclude=(Accuse,))] * 4, seed, state=st, until=update, errors="raise")
    print("| rounds | updates | how (count) | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|---|")
    groups = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)]
    for lo, hi in [g for g in groups if g[0] <= last_round] + [(1, last_round)]:
        sel = [r for r in rows if lo <= r[1] <= hi]
        if not sel:
            continue
        t = sorted(1e3 * (r[3] + r[4]) for r in sel)
        hows = ", ".join(f"{h} {sum(r[2] == h for r in sel)}" for h in dict.fromkeys(r[2] for r in sel))
        label = f"{lo}-{hi}" if (lo, hi) != (1, last_round) else f"all (1-{last_round})"
        print(f"| {label} | {len(sel)} | {hows} | {statistics.median(t):.0f} | {t[int(0.95 * (len(t) - 1))]:.0f} | "
              f"{t[-1]:.0f} |", flush=True)
    return rows


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


def previous_sampler_marginals(kb, chains: int = 4, burn_in: int = 1000, thin: int = 20, samples: int = 400) -> np.ndarray:
    """The grid as the code before issue 27 computed it (Python chains, 400 draws, no stopping
    rule), kept here so the old and new figures come from the same run."""
    rng = np.random.default_rng(0)
    model, possible = pruned_model(kb)
    out = np.zeros((kb.num_cards, kb.num_locations))
    if model is None:
        return out
    starts = EpochSampler(chains=chains).starts(kb, possible, model, rng)
    idx = np.arange(kb.num_cards)
    per = -(-samples // max(1, len(starts)))
    for w0 in starts:
        ch = Chains(kb, possible, w0, rng)
        ch.step(burn_in)
        for _ in range(per):
            ch.step(thin)
            out[idx, ch.world[-1]] += 1
    return out / max(1, out[0].sum())


def bench_sampler(seeds: int) -> None:
    """Both samplers against exact enumeration (cpsat) on reduced decks: every cell's error."""
    game = AlibiGame(num_players=3, **SMALL)
    cp = solvers.get("cpsat", limit=500_000)
    for seed in range(seeds):
        st = state_at_round(game, seed, 2, pos=0)
        kb = game.knowledge(st.observation(seed % 3))
        t = time.perf_counter()
        exact = cp.marginals(kb)
        t_exact = time.perf_counter() - t
        t = time.perf_counter()
        old = previous_sampler_marginals(kb)
        t_old = time.perf_counter() - t
        sm = EpochSampler(seed=seed)
        t = time.perf_counter()
        est = sm.estimate(kb)
        t_new = time.perf_counter() - t
        d = est.diagnostics
        print(f"reduced deck seed {seed} ({game.num_cards} cards, 3 players, round 2, {cp.count(kb)} worlds, exact "
              f"{t_exact:.1f} s): previous sampler max cell error {np.abs(old - exact).max():.3f} "
              f"({t_old:.1f} s); compiled sampler max cell error {np.abs(est.marginals - exact).max():.3f}, "
              f"stated {d.error:.3f}, split R-hat {d.rhat:.4f}, {d.samples} draws, converged {d.converged} "
              f"({t_new:.1f} s)", flush=True)


def bench_grid(seeds: int, rounds: tuple[int, ...] = (2, 4, 6, 8, 10), max_samples: int = 2000) -> None:
    """Knowledge + grid of marginals at 4 players through round 10: the previous sampler and
    the compiled one (budget ``max_samples`` draws per chain), same positions, same run."""
    game = AlibiGame(num_players=4)
    old_t, new_t, rows = [], [], []
    for seed in range(seeds):
        for r in rounds:
            st = state_at_round(game, seed, r)
            obs = st.observation(seed % 4)
            t = time.perf_counter()
            previous_sampler_marginals(game.knowledge(obs))
            old_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            est = EpochSampler(seed=seed, max_samples=max_samples).estimate(game.knowledge(obs))
            new_t.append(time.perf_counter() - t)
            d = est.diagnostics
            rows.append((r, d.rhat, d.error, d.converged))
            print(f"  seed {seed} round {r}: previous {old_t[-1]:.2f} s, compiled {new_t[-1]:.2f} s "
                  f"(R-hat {d.rhat:.3f}, stated error {d.error:.3f}, converged {d.converged})", flush=True)
    ratios = [n / o for n, o in zip(new_t, old_t, strict=True)]
    print(f"update + grid (4 players, rounds {rounds[0]}-{rounds[-1]}, {len(new_t)} positions): previous sampler "
          f"median {statistics.median(old_t):.2f} s max {max(old_t):.2f} s; compiled sampler median "
          f"{statistics.median(new_t):.2f} s max {max(new_t):.2f} s; median ratio compiled/previous "
          f"{statistics.median(ratios):.2f}; converged {sum(c for *_, c in rows)}/{len(rows)}")


#: the win tables at 4 players: label -> the agents of its seats (the first in every seat once a round)
WIN_TABLES: dict[str, tuple[str, ...]] = {
    "sampling vs 3 random": ("sampling", "random", "random", "random"),
    "sampling-randq vs 3 random": ("sampling-randq", "random", "random", "random"),
    "sampling vs sampling-randq (2 v 2)": ("sampling", "sampling-randq", "sampling", "sampling-randq"),
}


def win_cells(games: int, seed: int = 1000) -> list[ex.Cell]:
    """The win tables as tournaments: every rotation of the seats, one duplicate deal per round,
    at least ``games`` games (whole rounds) each, the same deals for every table."""
    rounds = -(-max(games, 1) // 4)
    return [ex.Cell.create(label, "alibi", list(lineup), 4, 4 * rounds, derive_seed(seed, 7, 4), arrangement="rotate")
            for label, lineup in WIN_TABLES.items()]


def win_lines(table: ex.Cell, games: Any) -> str:
    """One table's line: per agent the win rate per seat (a shared win counts for each winner)
    with its Wilson 95% interval over seats, and the per-deal paired difference of the first
    two agents (:mod:`deduce.apps.tournament.stats`)."""
    rows = ex.family_table(games)
    order = list(dict.fromkeys(ex.family(s.label) for s in table.agents))
    rows = rows.set_index("agent").loc[order]
    parts = [f"{name} {r.win_rate:.2f} [{r.win_lo:.2f}, {r.win_hi:.2f}] ({int(r.seats)} seats)" for name, r in rows.iterrows()]
    p = ex.paired(games, order[0], order[1], column="win")
    return (f"{table.name}, {table.games} games: per-seat win rate " + "; ".join(parts)
            + f"; {order[0]} minus {order[1]} per deal {p['mean']:+.2f} [{p['lo']:+.2f}, {p['hi']:+.2f}] "
              f"over {p['n']} deals")


def bench_wins(games: int, options: ex.RunOptions = ex.SERIAL) -> None:
    cells = win_cells(games)
    for table in cells:
        t = time.perf_counter()
        played = ex.run_cells([table], options)[table.name]
        print(win_lines(table, played) + f" ({time.perf_counter() - t:.0f} s)", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--positions", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer positions and games")
    ap.add_argument("--skip-wins", action="store_true")
    ap.add_argument("--only", default="update,grid,decisions,sampler,wins",
                    help="which parts to run (also: updates, every update of a seat's view through round 10)")
    ap.add_argument("--update-games", type=int, default=4, help="games of the 'updates' part")
    ex.add_run_options(ap)
    args = ap.parse_args(argv)
    return ex.guarded(lambda: _main(args), "benchmarks.alibi")


def _main(args: argparse.Namespace) -> int:
    n = 3 if args.quick else args.positions
    parts = set(args.only.split(","))
    if "update" in parts:
        bench_update(n)
    if "updates" in parts:
        bench_updates(args.update_games)
    if "grid" in parts:
        bench_grid(2 if args.quick else 3)
    if "decisions" in parts:
        bench_decisions(n)
    if "sampler" in parts:
        bench_sampler(min(n, 5))  # exact enumeration: 4-450 s per position
    if "wins" in parts and not args.skip_wins:
        bench_wins(4 if args.quick else args.games, ex.run_options(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
