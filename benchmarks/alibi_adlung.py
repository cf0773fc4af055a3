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

The exact posterior (``exact_time``: the time-indexed knowledge of
:mod:`deduce.games.alibi_adlung.history` counted by ``solvers.timeline``) against the
static relaxation: ``--bias-games`` games (default 5) of ``counting`` agents in every seat; at
every decision of theirs both models' card marginals for the acting player are compared (the
largest error of P(card in an opponent's hand / in the deck), the largest error of an
opponent's expected number of cards of one type, the total-variation distance of an opponent's
hand and of the deck as type compositions), and the agent's choice is made under both
(same random state) to count changed decisions. Two relaxed models: ``static`` (the agent's
model before exact_time) and ``static+cohorts`` (plus the reshuffle facts of
:func:`~deduce.games.alibi_adlung.history.cohort_facts`, now the static default). The score
tables put ``counting`` (exact posterior, the default) and ``counting-static`` (the agent
before) against ``random``, and a head-to-head table seats ``counting`` in one rotating seat
against ``counting-static`` (``--h2h-games``, default ``--games``). The ``assist`` section checks
the table assistant (``deduce assist alibi-adlung``): how often its face posterior is exact on
seat 0's log, before and after the first reshuffle, and how long one answer takes
(``--assist-games``, default 6).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import agents
import deduce
import solvers
from benchmarks import _experiment as ex
from benchmarks._timing import TimingRow, timing_row
from deduce.apps.tournament import AgentSpec, derive_seed
from deduce.errors import NotSupported, TooLarge
from deduce.games.alibi_adlung.rules import AlibiAdlungGame
from deduce.play import RandomPlayer, Step, play_game

__all__ = ["ScoreRow", "TimingRow", "BiasRow", "score_cells", "score_rows", "scores", "timings", "bias", "head_to_head",
           "main"]

#: agent label -> (registry name, parameters)
LEADS: dict[str, tuple[str, dict[str, object]]] = {
    "counting": ("counting", {}),
    "counting-static": ("counting", {"exact_time": False, "cohorts": False}),
    "random": ("random", {}),
}


@dataclass(frozen=True)
class ScoreRow:
    """One agent of one score table: seats, mean score per seat with its bootstrap 95% interval
    over deals, wins (a shared top counts for each) with the Wilson interval over seats, and
    milliseconds per decision (:func:`deduce.apps.tournament.stats.agent_table`)."""

    players: int
    table: str
    agent: str
    seats: int
    mean: float
    ci: tuple[float, float]
    wins: int
    win_ci: tuple[float, float]
    decision_ms: float
    deals: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0


def _spec(label: str) -> AgentSpec:
    name, params = LEADS[label]
    return AgentSpec(name, tuple(params.items()), label)


def score_cells(players: int, games: int, seed: int, leads: Sequence[str] = ("counting",), rest: str = "random",
                baseline: bool = True) -> list[ex.Cell]:
    """One table per lead (it and ``players - 1`` seats of ``rest``, the lead in every seat once a
    round), and with ``baseline`` one of ``rest`` alone; at least ``games`` games each, whole
    rounds, one duplicate deal per round, the same deals for every table of a player count."""
    tables = [(f"{lead} v {rest}", lead) for lead in leads] + ([(f"all {rest}", rest)] if baseline else [])
    rounds = -(-max(games, 1) // players)
    return [ex.Cell.create(f"{label} {players}p", "alibi-adlung", [_spec(lead)] + [_spec(rest)] * (players - 1),
                           players, rounds * players, derive_seed(seed, 7, players), arrangement="rotate")
            for label, lead in tables]


def score_rows(cell: ex.Cell, games: Any, seed: int) -> list[ScoreRow]:
    """The rows of one score table (copies of an agent counted as one)."""
    label = cell.name.rsplit(" ", 1)[0]
    return [ScoreRow(cell.players, label, r.agent, int(r.seats), float(r.score), (float(r.score_lo), float(r.score_hi)),
                     int(r.wins), (float(r.win_lo), float(r.win_hi)), 1000 * float(r.sec_per_move), int(r.deals))
            for r in ex.family_table(games, seed=seed).itertuples()]


def scores(players: int, games: int, seed: int, leads: Sequence[str] = ("counting",),
           rest: str = "random", baseline: bool = True, options: ex.RunOptions = ex.SERIAL) -> list[ScoreRow]:
    """For each of ``leads``: a table of it + ``rest`` (its seat rotated); then, with
    ``baseline``, ``rest`` alone (:func:`score_cells`), played on ``options``' backend. Agents
    are labels of :data:`LEADS`."""
    cells = score_cells(players, games, seed, leads, rest, baseline)
    tables = ex.run_cells(cells, options)
    return [row for c in cells for row in score_rows(c, tables[c.name], seed)]


def head_to_head(players: int, games: int, seed: int, options: ex.RunOptions = ex.SERIAL
                 ) -> tuple[list[ScoreRow], dict[str, Any]]:
    """``counting`` (exact posterior) in one rotating seat, ``counting-static`` in the rest: the
    rows, and counting's score minus counting-static's per deal (:func:`benchmarks._experiment.paired`)."""
    (cell,) = score_cells(players, games, seed, leads=("counting",), rest="counting-static", baseline=False)
    games_table = ex.run_cells([cell], options)[cell.name]
    return score_rows(cell, games_table, seed), ex.paired(games_table, "counting", "counting-static", seed=seed)


@dataclass(frozen=True)
class BiasRow:
    """One relaxed ``model``'s error against the exact posterior over ``decisions`` decisions
    (module docstring); ``differ``: decisions where some marginal differs by more than 1e-9;
    ``changed``: decisions the counting agent makes differently; ``*_ms``: median time to build
    and count the model and the exact posterior."""

    players: int
    model: str
    decisions: int
    differ: int
    changed: int
    card_max: float
    card_mean_max: float
    type_max: float
    hand_tv_max: float
    hand_tv_mean: float
    deck_tv_max: float
    relaxed_ms: float
    exact_ms: float


def _type_matrix(game: AlibiAdlungGame, m: np.ndarray, n: int) -> np.ndarray:
    """[location (hands then deck), type] expected counts from card marginals."""
    keys = [f if f is not None else str(game.special_of[c]) for c, f in enumerate(game.feature_of)]
    types = sorted(set(keys))
    out = np.zeros((n + 1, len(types)))
    for i, t in enumerate(types):
        cards = [c for c, k in enumerate(keys) if k == t]
        out[:, i] = m[cards, : n + 1].sum(axis=0)
    return out


#: the relaxed models compared with the exact posterior: label -> knowledge(cohorts=...)
RELAXED = {"static": False, "static+cohorts": True}


def bias(players: int, games: int, seed: int) -> list[BiasRow]:
    """Each relaxed model's marginals vs the exact posterior at every decision of counting
    agents on the ``static`` model (every seat: the agent before ``exact_time``)."""
    from deduce.games.alibi_adlung.history import timeline
    from solvers.timeline import TimelineCounter

    game = deduce.make("alibi-adlung", num_players=players)
    assert isinstance(game, AlibiAdlungGame)
    exact_solver = solvers.get("exact")
    counter = TimelineCounter()
    n = players
    decisions = 0
    stats: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in RELAXED}
    t_exact: list[float] = []
    before: dict[str, Any] = {}  # the exact posterior and the static agent's generator before its decision

    def exact_first(state: Any, p: int, obs: Any) -> None:
        t = time.perf_counter()
        before["m_e"] = counter.marginals(timeline(game, obs))
        t_exact.append(time.perf_counter() - t)
        before["rng"] = copy.deepcopy(seated["static"][p].rng)

    def compare(step: Step) -> None:
        p, obs, action = step.seat, step.observation, step.action
        m_e = before["m_e"]
        opps = [q for q in range(n) if q != p]
        E_e = _type_matrix(game, m_e, n)
        for label in ("static+cohorts", "exact"):
            seated[label][p].rng = copy.deepcopy(before["rng"])
        choice_exact = seated["exact"][p].act(obs)
        for model, cohorts in RELAXED.items():
            st = stats[model]
            t = time.perf_counter()
            exact_solver.clear_cache()
            m_r = np.asarray(exact_solver.marginals(game.knowledge(obs, cohorts=cohorts)), dtype=float)
            st["ms"].append(time.perf_counter() - t)
            diff = np.abs(m_r[:, opps + [n]] - m_e[:, opps + [n]])
            st["card"].append(float(diff.max()))
            E_r = _type_matrix(game, m_r, n)
            st["type"].append(float(np.abs(E_r[opps] - E_e[opps]).max()))
            for q in opps:
                if obs.hand_sizes[q]:
                    st["hand_tv"].append(0.5 * float(np.abs(E_r[q] - E_e[q]).sum()) / obs.hand_sizes[q])
            if obs.deck_size:
                st["deck_tv"].append(0.5 * float(np.abs(E_r[n] - E_e[n]).sum()) / obs.deck_size)
            st["differ"].append(float(diff.max() > 1e-9))
            mine = action if model == "static" else seated[model][p].act(obs)
            st["changed"].append(float(mine != choice_exact))

    for g in range(games):
        seated = {m: [agents.get("counting", game="alibi-adlung", exact_time=False, cohorts=c) for _ in range(n)]
                  for m, c in RELAXED.items()}
        seated["exact"] = [agents.get("counting", game="alibi-adlung") for _ in range(n)]
        agent_seeds = [seed + 100 * g + k for k in range(n)]
        for label in ("static+cohorts", "exact"):  # consulted at every decision; the static ones play
            for k, a in enumerate(seated[label]):
                a.reset(game, k, agent_seeds[k])
        record = play_game(game, seated["static"], seed + g, deal_seed=seed + g, agent_seeds=agent_seeds,
                           before_act=exact_first, on_action=compare, errors="raise")
        decisions += record.moves
    rows = []
    for model, st in stats.items():
        rows.append(BiasRow(
            players, model, decisions, int(sum(st["differ"])), int(sum(st["changed"])),
            max(st["card"], default=0.0), statistics.fmean(st["card"]) if st["card"] else 0.0,
            max(st["type"], default=0.0), max(st["hand_tv"], default=0.0),
            statistics.fmean(st["hand_tv"]) if st["hand_tv"] else 0.0, max(st["deck_tv"], default=0.0),
            1000 * statistics.median(st["ms"]) if st["ms"] else 0.0,
            1000 * statistics.median(t_exact) if t_exact else 0.0,
        ))
    return rows


def chain_check(players: int, steps: int, seed: int, limit: int = 200_000) -> tuple[int, float, float, str]:
    """After ``steps`` random moves: (epochs, counter ms, chain ms, "equal" / "DIFFERENT" / the
    error chain raised) for seat 0's time-indexed knowledge on the full deck."""
    from deduce.games.alibi_adlung.history import timeline
    from solvers.timeline import TimelineCounter

    game = deduce.make("alibi-adlung", num_players=players)
    state = game.new_initial_state(seed)
    play_game(game, [RandomPlayer(seed)] * players, seed, state=state, max_moves=steps, errors="raise")
    obs = state.observation(0)
    t = time.perf_counter()
    ours = TimelineCounter().tallies(timeline(game, obs))
    ours_ms = 1000 * (time.perf_counter() - t)
    kb = game.knowledge(obs, exact_time=True)
    chain = solvers.get("chain")
    chain.limit = limit
    t = time.perf_counter()
    try:
        verdict = "equal" if chain.tallies(kb) == ours else "DIFFERENT"
    except (TooLarge, NotSupported) as e:
        verdict = type(e).__name__
    return kb.epochs, ours_ms, 1000 * (time.perf_counter() - t), verdict


def timings(players: int, games: int, seed: int) -> list[TimingRow]:
    """Time ``game.knowledge(obs)`` and exact marginals for the acting player at every step of
    ``games`` random games, and the counting agent's decisions when it plays every seat."""
    from deduce.games.alibi_adlung.history import timeline
    from solvers.timeline import TimelineCounter

    game = deduce.make("alibi-adlung", num_players=players)
    exact = solvers.get("exact")
    counter = TimelineCounter()
    build: list[float] = []
    marg: list[float] = []
    timed: list[float] = []
    refused = [0]

    def update_timed(state: Any, seat: int, obs: Any) -> None:
        t = time.perf_counter()
        kb = game.knowledge(obs)
        build.append(time.perf_counter() - t)
        exact.clear_cache()  # a fresh query, as after every new event
        t = time.perf_counter()
        try:
            exact.marginals(kb)
            marg.append(time.perf_counter() - t)
        except NotSupported:
            refused[0] += 1
        t = time.perf_counter()
        counter.marginals(timeline(game, obs))
        timed.append(time.perf_counter() - t)

    for g in range(games):
        play_game(game, [RandomPlayer(seed + g)] * players, seed + g, deal_seed=seed + g,
                  before_act=update_timed, errors="raise")
    decide: list[float] = []
    for g in range(games):
        play_game(game, [agents.get("counting", game="alibi-adlung") for _ in range(players)], seed + 1000 + g,
                  deal_seed=seed + 1000 + g, agent_seeds=[seed + g * players + k for k in range(players)],
                  on_action=lambda step: decide.append(step.seconds), errors="raise")
    return [
        timing_row(players, "knowledge update", build),
        timing_row(players, "exact marginals", marg, refused[0]),
        timing_row(players, "exact-time timeline + marginals", timed),
        timing_row(players, "counting decision", decide),
    ]


def assist_exactness(players: int, games: int, seed: int, every: int = 10) -> dict[str, tuple[int, int, list[float]]]:
    """The table assistant's face posterior on seat 0's log every ``every`` random moves:
    per phase ("before reshuffle" / "after"), how many views it counted exactly, of how many,
    and the seconds each answer took."""
    from deduce.apps.assist.alibi_adlung import Uncounted, face_posterior
    from deduce.games.alibi_adlung.log import export, parse
    from deduce.games.alibi_adlung.rules import Reshuffled

    game = deduce.make("alibi-adlung", num_players=players)
    out: dict[str, tuple[int, int, list[float]]] = {}

    def ask(step: Step) -> None:
        if step.moves % every:
            return
        state = step.state
        log = export(game, state.observation(0))
        table, view = parse(log)
        t = time.perf_counter()
        got = face_posterior(table, log, view)
        took = time.perf_counter() - t
        phase = "after" if any(isinstance(e, Reshuffled) for e in state.events) else "before reshuffle"
        exact, total, times = out.get(phase, (0, 0, []))
        out[phase] = (exact + (not isinstance(got, Uncounted)), total + 1, times + [took])

    for g in range(games):
        play_game(game, [RandomPlayer(seed + g)] * players, seed + g, deal_seed=seed + g, on_action=ask, errors="raise")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.alibi_adlung", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60, help="games per player count and table")
    parser.add_argument("--players", default="2,3,5", help="comma-separated player counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timing-games", type=int, default=3)
    parser.add_argument("--bias-games", type=int, default=5, help="games of the relaxed-vs-exact comparison")
    parser.add_argument("--h2h-games", type=int, default=None, help="head-to-head games (default: --games)")
    parser.add_argument("--skip", default="", help="comma-separated sections to skip: timing,bias,scores,h2h,assist")
    parser.add_argument("--assist-games", type=int, default=6, help="games of the table assistant's exactness check")
    parser.add_argument("--chain-steps", default="", help="e.g. 10,40,120: also count with chain after so many "
                        "random moves (full deck; slow: minutes at 120)")
    ex.add_run_options(parser)
    args = parser.parse_args(argv)
    return ex.guarded(lambda: _main(args), "benchmarks.alibi_adlung")


def _main(args: argparse.Namespace) -> int:
    options = ex.run_options(args)
    counts = [int(x) for x in args.players.split(",") if x]
    skip = {x for x in args.skip.split(",") if x}
    if args.chain_steps:
        print("Exact counter vs chain on the time-indexed knowledge base (seat 0, full deck)")
        print("| players | random moves | epochs | counter ms | chain ms | chain says |")
        print("|---|---|---|---|---|---|")
        for n in counts:
            for k in (int(x) for x in args.chain_steps.split(",") if x):
                epochs, ours, theirs, verdict = chain_check(n, k, args.seed)
                print(f"| {n} | {k} | {epochs} | {ours:.1f} | {theirs:.0f} | {verdict} |", flush=True)
    if "assist" not in skip:
        print(f"\nTable assistant (deduce assist alibi-adlung): seat 0's log every 10 random moves, "
              f"{args.assist_games} games per player count; face posterior counted exactly, and its time")
        print("| players | phase | exact / views | median ms | max ms |")
        print("|---|---|---|---|---|")
        for n in counts:
            for phase, (exact, total, times) in sorted(assist_exactness(n, args.assist_games, args.seed).items(),
                                                       key=lambda kv: kv[0] != "before reshuffle"):
                print(f"| {n} | {phase} | {exact} / {total} | {1000 * statistics.median(times):.1f} | "
                      f"{1000 * max(times):.0f} |", flush=True)
    if "timing" not in skip:
        _print_timings(counts, args.timing_games, args.seed)
    if "bias" not in skip:
        _print_bias(counts, args.bias_games, args.seed)
    if "scores" not in skip:
        print(f"\nScores, at least {args.games} games per table, lead seat rotated, one duplicate deal per round "
              "(score: 95% over deals; win rate: Wilson 95% over seats)")
        _print_scores(counts, lambda n: scores(n, args.games, args.seed, leads=("counting", "counting-static"),
                                               options=options))
    if "h2h" not in skip:
        h2h = args.h2h_games if args.h2h_games is not None else args.games
        print(f"\nHead to head, {h2h} games per player count: counting (exact posterior) in one rotating seat, "
              "counting-static in the rest")
        paired: dict[int, dict[str, Any]] = {}

        def h2h_rows(n: int) -> list[ScoreRow]:
            rows, paired[n] = head_to_head(n, h2h, args.seed, options)
            return rows

        _print_scores(counts, h2h_rows)
        print("\n| players | counting - counting-static per deal [95% over deals] | deals | ahead / behind | sign p |")
        print("|---|---|---:|---|---:|")
        for n, p in paired.items():
            print(f"| {n} | {p['mean']:+.2f} [{p['lo']:+.2f}, {p['hi']:+.2f}] | {p['n']} | {p['ahead']} / {p['behind']} "
                  f"| {p['sign_p']:.3f} |")
    return 0


def _print_bias(counts: Sequence[int], games: int, seed: int) -> None:
    print(f"\nStatic relaxation vs exact posterior at every decision of counting agents, {games} games "
          "per player count")
    print("| players | relaxed model | decisions | differ | choice changed | max card err | mean max card err | "
          "max type-count err | max hand TV | mean hand TV | max deck TV | relaxed ms (p50) | exact ms (p50) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in counts:
        for r in bias(n, games, seed):
            print(f"| {r.players} | {r.model} | {r.decisions} | {r.differ} | {r.changed} | {r.card_max:.4f} | "
                  f"{r.card_mean_max:.4f} | {r.type_max:.4f} | {r.hand_tv_max:.4f} | {r.hand_tv_mean:.5f} | "
                  f"{r.deck_tv_max:.4f} | {r.relaxed_ms:.2f} | {r.exact_ms:.2f} |", flush=True)


def _print_timings(counts: Sequence[int], games: int, seed: int) -> None:

    print(f"Alibi (Adlung): time per step over {games} games per player count")
    print("| players | what | samples | mean ms | p50 ms | p95 ms | max ms | refused |")
    print("|---|---|---|---|---|---|---|---|")
    for n in counts:
        for r in timings(n, games, seed):
            print(f"| {r.players} | {r.what} | {r.samples} | {r.mean_ms:.2f} | {r.p50_ms:.2f} | "
                  f"{r.p95_ms:.2f} | {r.max_ms:.1f} | {r.refused} |", flush=True)


def _print_scores(counts: Sequence[int], run: Callable[[int], list[ScoreRow]]) -> None:
    print("| players | table | agent | seats | deals | mean score | 95% CI | win rate | Wilson 95% CI | ms/decision |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in counts:
        t0 = time.perf_counter()
        for r in run(n):
            lo, hi = r.ci
            wlo, whi = r.win_ci
            print(f"| {r.players} | {r.table} | {r.agent} | {r.seats} | {r.deals} | {r.mean:.2f} | [{lo:.2f}, {hi:.2f}] | "
                  f"{r.win_rate:.3f} | [{wlo:.3f}, {whi:.3f}] | {r.decision_ms:.2f} |", flush=True)
        print(f"<!-- {n} players: {time.perf_counter() - t0:.1f} s -->", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
