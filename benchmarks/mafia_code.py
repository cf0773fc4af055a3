"""Mafia Code: time per knowledge update and per decision, and win rates of guess-chain/facts/random.

``python -m benchmarks.mafia_code`` plays, at 2, 3 and 4 players, seat-rotated games between the
``guess-chain``, ``facts`` and ``random`` agents (2 players: every pairing; 3: one of each; 4: guess-chain,
facts and two random; plus the ``greedy`` ablation, same marginals without the chain value) and prints win rates with Wilson 95% intervals. "Win" = finishing with the
top score (a shared top counts for each tied player). Separately it times, over the states of
random games, a knowledge update (building a player's knowledge base from its observation,
then exact marginals) by the ``split`` backend the guess-chain agent uses and by the old plain
``exact`` path, in the same run, with refusals counted and the ratio old/new, so a slow path
shows before users see it.
``--games`` per table (default 60), ``--players`` (default 2,3,4), ``--expert``, ``--seed``,
``--timing-games`` (default 5), ``--no-old`` (skip the old path), ``--old`` (the old path: a backend,
``split-branching``, or ``split@REV``: ``solvers/split.py`` at git revision REV), ``--no-games`` (timings only),
``--hard-states`` (only the hard-state corpus, new against ``--old``), ``--slowest N`` (name the N
slowest updates: view, game seed, turn, seat) and ``--save-slowest DIR`` (keep them as hard states).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import agents
import deduce
import solvers
from benchmarks._timing import TimingRow, timing_row
from deduce.apps.tournament.stats import wilson
from deduce.errors import NotSupported
from deduce.play import RandomPlayer, play_game

__all__ = ["TABLES", "WinRow", "TimingRow", "StateTime", "win_rates", "timings", "slowest", "main"]

TABLES: dict[int, list[tuple[str, ...]]] = {
    2: [("guess-chain", "facts"), ("guess-chain", "random"), ("facts", "random"), ("guess-chain", "greedy")],
    3: [("guess-chain", "facts", "random"), ("guess-chain", "greedy", "facts")],
    4: [("guess-chain", "facts", "random", "random")],
}


@dataclass(frozen=True)
class WinRow:
    players: int
    table: str
    agent: str
    seats: int
    wins: int
    mean_score: float
    decision_ms: float
    #: marginal queries the agent made, and how many fell back to an approximation (guess-chain agents).
    queries: int = 0
    fallbacks: int = 0

    @property
    def rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.seats)


def win_rates(players: int, games: int, seed: int, expert: bool) -> list[WinRow]:
    """Play ``games`` games per table of ``TABLES[players]``, rotating seats game by game."""
    game = deduce.make("mafia-code", num_players=players, expert=expert)
    rows: list[WinRow] = []
    for table in TABLES[players]:
        seats: dict[str, int] = defaultdict(int)
        wins: dict[str, int] = defaultdict(int)
        score: dict[str, float] = defaultdict(float)
        spent: dict[str, float] = defaultdict(float)
        moves: dict[str, int] = defaultdict(int)
        queries: dict[str, int] = defaultdict(int)
        fallbacks: dict[str, int] = defaultdict(int)
        for i in range(games):
            names = [table[(k + i) % players] for k in range(players)]
            players_ = [agents.get(name, game="mafia-code") for name in names]
            record = play_game(game, players_, seed=seed + i)
            if record.failure is not None:
                raise RuntimeError(f"{record.failure.agent} failed: {record.failure.message}")
            for k, name in enumerate(names):
                seats[name] += 1
                wins[name] += int(k in record.winners)
                score[name] += record.returns[k]
                spent[name] += record.decision_seconds[k]
                moves[name] += record.decisions[k]
                queries[name] += getattr(players_[k], "queries", 0)
                fallbacks[name] += getattr(players_[k], "fallbacks", 0)
        label = " v ".join(table)
        for name in sorted(seats):
            ms = 1000 * spent[name] / moves[name] if moves[name] else 0.0
            rows.append(WinRow(players, label, name, seats[name], wins[name], score[name] / seats[name], ms,
                               queries[name], fallbacks[name]))
    return rows


def split_at(rev: str) -> solvers.Solver:
    """``split`` as it was at git revision ``rev`` of this checkout (its ``solvers/split.py``
    loaded under another module name; the rest of the package is today's), so old and new
    code run on the same states in the same process."""
    import importlib.util
    import subprocess
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "show", f"{rev}:solvers/split.py"], cwd=root, check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="split-old-")) / "split_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("split_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SplitSolver()


@dataclass(frozen=True)
class StateTime:
    """One timed update: which view it was (``view``: its index in the run, ``game``: the
    game's seed, the turn and the acting seat), its worlds and each path's seconds (None:
    refused), so the slowest states can be named and kept."""

    players: int
    view: int
    game: int
    turn: int
    seat: int
    worlds: int
    seconds: dict[str, float | None]
    kb: Any


def timings(players: int, games: int, seed: int, expert: bool, old: bool = True, old_backend: str = "exact",
            states: list[StateTime] | None = None) -> list[TimingRow]:
    """Time, for the acting player at every step of ``games`` random games (the states an agent
    actually meets, early ones included): building the knowledge base from the observation, and
    a knowledge update = that build plus exact marginals, by the ``split`` backend the solver
    agent uses and (``old``) by the plain ``exact`` counter it used before. Both paths run on
    the same states in the same run; refusals are counted, and the two answers are checked
    equal wherever both answer. ``old_backend="split-branching"``: the old path is ``split``
    without its count by locations (what it was before issue 27's join). ``states``: where
    each update's :class:`StateTime` is appended."""
    game = deduce.make("mafia-code", num_players=players, expert=expert)
    new = solvers.get("split")
    if old_backend == "split-branching":
        from solvers.split import SplitSolver

        exact: solvers.Solver = SplitSolver(join=False)
    elif old_backend.startswith("split@"):
        exact = split_at(old_backend.removeprefix("split@"))
    else:
        exact = solvers.get(old_backend)
    build: list[float] = []
    times: dict[str, list[float]] = {"split": [], "exact": []}
    refused = {"split": 0, "exact": 0}
    warm = game.knowledge(game.new_initial_state(seed + games).observation(0))  # not a timed game
    for backend in (new, exact):  # load the numba kernels before the clock runs
        backend.tallies(warm)
    paths = [("split", new), ("exact", exact)] if old else [("split", new)]
    warming = [new, exact] if old and old_backend.startswith("split") else [new]

    def warm_up(st: Any, seat: int, obs: Any) -> None:
        if st.turns > 4:
            for backend in warming:
                backend.tallies(game.knowledge(obs))

    play_game(game, [RandomPlayer(seed)] * players, seed + games + 1, deal_seed=seed + games + 1,
              before_act=warm_up)  # compiles the join too
    playing = [seed]  # the game being played

    def update_timed(state: Any, seat: int, obs: Any) -> None:
        t = time.perf_counter()
        kb = game.knowledge(obs)
        built = time.perf_counter() - t
        build.append(built)
        answers = {}
        took: dict[str, float | None] = {name: None for name, _b in paths}
        # alternate which path goes first (cold caches cost the first one)
        for name, backend in (paths[::-1] if len(build) % 2 else paths):
            t = time.perf_counter()
            try:
                answers[name] = backend.tallies(kb)
                backend.marginals(kb)  # cached tallies: the division an agent pays for
                times[name].append(built + time.perf_counter() - t)
                took[name] = times[name][-1]
            except NotSupported:  # TooLarge is a NotSupported
                refused[name] += 1
        if len(answers) == 2 and answers["split"] != answers["exact"]:
            raise AssertionError(f"split and exact disagree at game {playing[0]}, turn {state.turns}")
        if states is not None:
            worlds = next(iter(answers.values())).total if answers else -1
            states.append(StateTime(players, len(build) - 1, playing[0], state.turns, seat, worlds, took, kb))

    for g in range(games):
        playing[0] = seed + g
        play_game(game, [RandomPlayer(seed + g)] * players, seed + g, deal_seed=seed + g,
                  before_act=update_timed, errors="raise")
    rows = [
        timing_row(players, "knowledge base build", build),
        timing_row(players, "update: build + split marginals", times["split"], refused["split"]),
    ]
    if old:
        rows.append(timing_row(players, f"update: build + {old_backend} marginals (old)", times["exact"], refused["exact"]))
    return rows


def hard_states(old_backend: str) -> list[tuple[str, int, float, float]]:
    """``(state, worlds, old s, new s)`` over the Mafia Code hard-state corpus
    (``benchmarks/hard_states/mafia-code``): ``tallies`` by today's ``split`` and by the old
    path in the same process, new first on each state, the answers checked equal."""
    from pathlib import Path

    from deduce.cli.bench import load_states
    from solvers.split import SplitSolver

    new = SplitSolver()
    old = split_at(old_backend.removeprefix("split@")) if old_backend.startswith("split@") else solvers.get(old_backend)
    states = load_states(Path(__file__).parent / "hard_states" / "mafia-code")
    warm = next((st for st in states if st.name == "3p-g2-d17-spec"), states[0])  # joined by both
    for backend in (new, old):  # compile the kernels (the join's too) before the clock runs
        backend.tallies(warm.kb)
    rows = []
    for st in states:
        seconds = []
        answers = []
        for backend in (new, old):
            getattr(backend, "_cache", {}).clear()
            t = time.perf_counter()
            answers.append(backend.tallies(st.kb))
            seconds.append(time.perf_counter() - t)
        if answers[0] != answers[1]:
            raise AssertionError(f"split and {old_backend} disagree on {st.name}")
        rows.append((st.name, answers[0].total, seconds[1], seconds[0]))
    return rows


def slowest(states: list[StateTime], n: int, old_backend: str, seed: int, save: str | None) -> None:
    """Print the ``n`` slowest updates by the new path (``save``: also write them, named
    ``<players>p-bench-s<seed>-v<view>``, as hard-state JSON into that folder)."""
    from pathlib import Path

    from deduce.cli.bench import save_state

    def ms(st: StateTime, path: str) -> str:
        if path not in st.seconds:
            return "-"
        x = st.seconds[path]
        return "refused" if x is None else f"{1000 * x:.0f}"

    ranked = sorted(states, key=lambda st: -(st.seconds.get("split") or float("inf")))[:n]
    print(f"\nSlowest {len(ranked)} updates (new split; old {old_backend}), benchmark seed {seed}")
    print("| players | view | game seed | turn | seat | worlds | new ms | old ms |")
    print("|---|---|---|---|---|---|---|---|")
    for st in ranked:
        print(f"| {st.players} | {st.view} | {st.game} | {st.turn} | {st.seat} | {st.worlds} | "
              f"{ms(st, 'split')} | {ms(st, 'exact')} |", flush=True)
        if save is not None:
            meta = {"config": {"num_players": st.players}, "seed": st.game, "turn": st.turn, "view": st.seat,
                    "benchmark": f"python -m benchmarks.mafia_code --no-games --players {st.players} --seed {seed}",
                    "benchmark_view": st.view, "query": "tallies", "seconds": st.seconds.get("split"),
                    "worlds": st.worlds}
            save_state(Path(save), f"{st.players}p-bench-s{seed}-v{st.view}", "mafia-code", st.kb, meta)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mafia_code", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games per table")
    parser.add_argument("--players", default="2,3,4", help="comma-separated player counts")
    parser.add_argument("--expert", action="store_true", help="play with the expert rule")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-games", type=int, default=5)
    parser.add_argument("--no-old", action="store_true",
                        help="skip the old exact path in the timings (it spends ~15 s on each state it refuses)")
    parser.add_argument("--no-games", action="store_true", help="timings only, no win-rate tables")
    parser.add_argument("--old", default="exact",
                        help="the old path: a backend name, split-branching (split without its join) or split@REV (split.py at git revision REV)")
    parser.add_argument("--slowest", type=int, default=0, metavar="N",
                        help="also list the N slowest updates (by the new path): view, game seed, turn, seat, worlds")
    parser.add_argument("--save-slowest", metavar="DIR", default=None,
                        help="write those N states as hard-state JSON into DIR (e.g. benchmarks/hard_states/mafia-code)")
    parser.add_argument("--hard-states", action="store_true",
                        help="only time the hard-state corpus (spectator views), new against --old")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.players.split(",") if x]
    if args.hard_states:
        print(f"| state | worlds | old ({args.old}) s | new (split) s | old/new |")
        print("|---|---|---|---|---|")
        for name, worlds, old_s, new_s in hard_states(args.old):
            print(f"| {name} | {worlds} | {old_s:.3f} | {new_s:.3f} | {old_s / new_s:.1f} |", flush=True)
        return 0

    print(f"Mafia Code{' (expert rule)' if args.expert else ''}: time per step over "
          f"{args.timing_games} random games per player count")
    print("| players | what | samples | mean ms | p50 ms | p95 ms | max ms | refused |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    states: list[StateTime] = []
    for n in counts:
        rows = timings(n, args.timing_games, args.seed, args.expert, old=not args.no_old, old_backend=args.old,
                       states=states)
        for r in rows:
            print(f"| {r.players} | {r.what} | {r.samples} | {r.mean_ms:.2f} | {r.p50_ms:.2f} | "
                  f"{r.p95_ms:.2f} | {r.max_ms:.1f} | {r.refused} |", flush=True)
        if len(rows) == 3:
            ratios.append((n, rows[1], rows[2]))
    if ratios:
        print(f"\nOld ({args.old}) / new (split) time per update, same run (old times exclude the states it refused)")
        print("| players | mean ratio | median ratio | p95 ratio | max ratio | refused old -> new |")
        print("|---|---|---|---|---|---|")
        for n, new, old in ratios:
            print(f"| {n} | {old.mean_ms / new.mean_ms:.2f} | {old.p50_ms / new.p50_ms:.2f} | "
                  f"{old.p95_ms / new.p95_ms:.2f} | {old.max_ms / new.max_ms:.2f} | {old.refused} -> {new.refused} |")
    if args.slowest:
        slowest(states, args.slowest, args.old, args.seed, args.save_slowest)
    if args.no_games:
        return 0

    print(f"\nWin rates, {args.games} games per table, seats rotated (Wilson 95% CI)")
    print("| players | table | agent | seats | wins | win rate | 95% CI | mean score | ms/decision | fallbacks / queries |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in counts:
        t0 = time.perf_counter()
        for r in win_rates(n, args.games, args.seed, args.expert):
            lo, hi = r.ci
            print(f"| {r.players} | {r.table} | {r.agent} | {r.seats} | {r.wins} | {r.rate:.3f} | "
                  f"[{lo:.3f}, {hi:.3f}] | {r.mean_score:.2f} | {r.decision_ms:.2f} | "
                  f"{f'{r.fallbacks} / {r.queries}' if r.queries else '-'} |", flush=True)
        print(f"<!-- {n} players: {time.perf_counter() - t0:.1f} s -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
