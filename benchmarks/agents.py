"""Clue agent ladder: win rates with 95% CIs, turns to solve and bits per suggestion.

``python -m benchmarks.agents`` plays seeded classic-deck Clue games at 3, 4 and 6 players
between ``random``, ``notebook``, ``deductive`` and ``infogain``.

- ``--mode pairs`` (default): each rung of the ladder head to head - (infogain, deductive),
  (deductive, notebook), (notebook, random) - the two agents alternating round the table
  (A B A ... and B A B ...), every rotation, so both sit in every seat equally often; the two
  lineups of a rotation play the same deal (duplicate deals), so the deal's luck cancels.
- ``--mode mixed``: lineups drawn from all four that give every agent the same opposition
  (3 players: every 3-subset; 4: all four; 6: all four plus every pair again), every rotation.

Per (matchup, players, agent) it prints:

- the win rate per seat played with its Wilson 95% interval;
- turns to solve: the agent's own turns up to its winning accusation, over its wins;
- bits per own suggestion: the realised fall of the envelope entropy in its own knowledge
  base (exact counts) from just before its suggestion to just after the answer;
- the median / max seconds ``infogain`` spent scoring all legal suggestions.

``--solo A,B --seats G`` instead measures speed alone: on G deals, agent A (then B) in seat 0
and ``deductive`` elsewhere, nobody accusing, the own suggestions each seat needs before its
knowledge base settles the envelope.

``--seats N`` (default 300) plays enough rounds that each agent fills about N seats per matchup
and player count; ``--players 3,4,6``, ``--workers`` (processes), ``--quick`` (about 30 seats),
``--pairs "A/B;C/D"`` other matchups (an agent may carry parameters: ``infogain:leak_weight=1``),
``--json`` prints the report as JSON, ``--log FILE`` appends each game as a JSON line as it
ends and ``--summarise FILE`` prints the table of such a file. Games end without a winner
after 300 turns.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import agents
from agents.clue.questions import entropy_bits, joint_sets
from deduce.apps.tournament.stats import wilson
from deduce.games.clue.rules import ENVELOPE, Accuse, ClueGame, EndTurn, Suggest, ViewExtra
from deduce.play import GameRun, Step, play_game

__all__ = ["AGENTS", "PAIRS", "lineups", "pair_lineups", "play_one", "run", "summarise", "format_table", "main"]

AGENTS = ("random", "notebook", "deductive", "infogain")
PAIRS = (("infogain", "deductive"), ("deductive", "notebook"), ("notebook", "random"))
MAX_TURNS = 300


def lineups(players: int, names: Sequence[str] = AGENTS) -> list[tuple[str, ...]]:
    """Seat lineups that give every agent the same opposition (before rotation)."""
    if players < len(names):
        return list(itertools.combinations(names, players))
    if players == len(names):
        return [tuple(names)]
    extra = players - len(names)
    return [tuple(names) + pair for pair in itertools.combinations(names, extra)]


def pair_lineups(players: int, a: str, b: str) -> list[tuple[str, ...]]:
    """A and B alternating round the table, starting with either."""
    return [tuple((x, y)[i % 2] for i in range(players)) for x, y in ((a, b), (b, a))]


def _agent(spec: str) -> Any:
    """``name`` or ``name:key=value,...`` (numbers as floats, other values as strings) -> a
    fresh agent."""
    name, _, rest = spec.partition(":")
    params = {k: _value(v) for k, v in (kv.split("=") for kv in rest.split(",") if kv)}
    return agents.get(name, game="clue", **params)


def _value(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def _envelope_entropy(game: ClueGame, obs: Any) -> float:
    kb = game.knowledge(obs)
    got = joint_sets(kb, [kb.loc(ENVELOPE)], max_items=10**7)
    assert got is not None
    return entropy_bits(got.values())


def play_one(players: int, seats: Sequence[str], seed: int) -> dict[str, Any]:
    """One game; per seat: won, own turns, realised bits per own suggestion, scoring times."""
    game = ClueGame(num_players=players, max_turns=MAX_TURNS)
    team = [_agent(name) for name in seats]
    turns = [0] * players
    bits: list[list[float]] = [[] for _ in range(players)]
    pending: list[tuple[int, float]] = []  # the suggestion awaiting its answer: (seat, entropy before)

    def answered(state: Any, seat: int, obs: Any) -> None:
        if pending and state.phase == "after" and seat == pending[0][0]:
            bits[seat].append(pending.pop()[1] - _envelope_entropy(game, obs))

    def suggested(step: Step) -> None:
        if isinstance(step.action, Suggest):
            turns[step.seat] += 1
            pending[:] = [(step.seat, _envelope_entropy(game, step.observation))]

    run = GameRun(game, team, seed, before_act=answered, on_action=suggested, errors="raise")
    for _ in run:
        pass
    state = run.state
    timings = [t for a in team for _, t, _ in getattr(a, "scoring_log", [])]
    return {
        "players": players,
        "seats": list(seats),
        "winner": state.winner,
        "turns": turns,
        "bits": bits,
        "scoring_seconds": timings,
        "game_turns": state.turns,
    }


class _NoAccusing:
    """An agent whose accusations (and looks at the pile) become ending the turn (or, where
    it may not end the turn, a suggestion), so it plays on."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.name = agent, agent.name

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        self.agent.reset(game, player, seed)

    def act(self, obs: Any) -> Any:
        action = self.agent.act(obs)
        if isinstance(action, (Accuse, ViewExtra)):
            legal = obs.legal_actions
            action = EndTurn() if EndTurn() in legal else next(a for a in legal if isinstance(a, Suggest))
        return action


def solo_speed(players: int, spec: str, games: int, seed: int = 0, max_turns: int = 300) -> dict[str, Any]:
    """Own suggestions until certainty, nobody accusing: ``spec`` in seat 0, ``deductive`` in
    the others, the same deals for every ``spec``. Accusations (and looks at the pile) are
    replaced by ending the turn, so every seat plays on until its own knowledge base settles
    the envelope; reports seat 0's mean and the opponents' (whom seat 0's questions help too)."""
    from solvers.exact import ExactSolver

    exact = ExactSolver()
    mine: list[int] = []
    theirs: list[int] = []
    for g in range(games):
        done = _own_turns_to_certainty(players, spec, seed * 1_000_003 + g, max_turns, exact)
        if done[0] is not None:
            mine.append(done[0])
        theirs.extend(d for d in done[1:] if d is not None)
    return {"players": players, "agent": spec, "games": games, "own_turns": statistics.mean(mine) if mine else None,
            "opponents_turns": statistics.mean(theirs) if theirs else None,
            "unsettled": games * players - len(mine) - len(theirs)}


def _own_turns_to_certainty(players: int, spec: str, seed: int, max_turns: int, exact: Any) -> list[int | None]:
    """One game of :func:`solo_speed`: per seat, the own suggestions it made before its
    knowledge base settled the envelope (``None``: never)."""
    game = ClueGame(num_players=players, max_turns=max_turns)
    team = [_NoAccusing(_agent(spec))] + [_NoAccusing(_agent("deductive")) for _ in range(players - 1)]
    own = [0] * players
    done: list[int | None] = [None] * players

    def settled(state: Any, seat: int, obs: Any) -> None:
        if state.phase == "start" and done[seat] is None:
            kb = game.knowledge(obs)
            possible = exact.possible(kb)
            if all(possible[list(cat), kb.loc(ENVELOPE)].sum() == 1 for cat in game.categories):
                done[seat] = own[seat]

    def counted(step: Step) -> None:
        own[step.seat] += isinstance(step.action, Suggest)

    play_game(game, team, seed, until=lambda _: None not in done, before_act=settled, on_action=counted, errors="raise")
    return done


def _job(args: tuple[int, tuple[str, ...], int]) -> dict[str, Any]:
    return play_one(*args)


def run(players_list: Sequence[int], seats_wanted: int, seed: int = 0, workers: int = 2, mode: str = "pairs",
        progress: Callable[[str], Any] | None = None, log: str | None = None,
        pairs: Sequence[tuple[str, str]] = PAIRS) -> dict[str, Any]:
    """Play every lineup of every matchup in every rotation, enough rounds for ``seats_wanted``."""
    jobs = []
    tags = []
    matchups = [(f"{a}-{b}", pair_lineups) for a, b in pairs] if mode == "pairs" else [("mixed", None)]
    for mi, (tag, _) in enumerate(matchups):
        for players in players_list:
            if mode == "pairs":
                a, b = pairs[mi]
                ups = pair_lineups(players, a, b)
            else:
                ups = lineups(players)
            per_round = min(sum(lu.count(n) for lu in ups) * players for n in set(ups[0]))
            rounds = max(1, -(-seats_wanted // per_round))
            for r in range(rounds):
                for lineup in ups:
                    for shift in range(players):
                        seats = lineup[shift:] + lineup[:shift]
                        jobs.append((players, seats, seed * 1_000_003 + mi * 7_919 + players * 10_007 + r * 101 + shift))
                        tags.append(tag)
    results = []
    sink = open(log, "a") if log else None  # noqa: SIM115 - one line per game as it ends
    try:
        games = (
            ProcessPoolExecutor(workers).map(_job, jobs, chunksize=1) if workers > 1 else map(_job, jobs)
        )
        for i, (res, tag) in enumerate(zip(games, tags, strict=True)):
            res["matchup"] = tag
            results.append(res)
            if sink:
                sink.write(json.dumps(res) + "\n")
                sink.flush()
            if progress and i % 20 == 0:
                progress(f"{i + 1}/{len(jobs)} games")
    finally:
        if sink:
            sink.close()
    return summarise(results)


def summarise(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per (matchup, players, agent): seats, wins, Wilson CI, turns to solve, bits per suggestion."""
    rows = []
    timing: dict[int, list[float]] = {}
    for players in sorted({r["players"] for r in results}):
        timing[players] = [t for g in results if g["players"] == players for t in g["scoring_seconds"]]
    for tag, players in sorted({(r.get("matchup", "mixed"), r["players"]) for r in results}, key=lambda x: (x[1], x[0])):
        games = [r for r in results if r["players"] == players and r.get("matchup", "mixed") == tag]
        names = list(AGENTS) + sorted({s for g in games for s in g["seats"]} - set(AGENTS))
        for name in names:
            seats = wins = 0
            solve: list[int] = []
            bits: list[float] = []
            for g in games:
                for i, s in enumerate(g["seats"]):
                    if s != name:
                        continue
                    seats += 1
                    bits.extend(g["bits"][i])
                    if g["winner"] == i:
                        wins += 1
                        solve.append(g["turns"][i])
            if not seats:
                continue
            lo, hi = wilson(wins, seats)
            rows.append({
                "matchup": tag,
                "players": players,
                "agent": name,
                "seats": seats,
                "wins": wins,
                "win_rate": wins / seats,
                "ci95": [lo, hi],
                "turns_to_solve": statistics.mean(solve) if solve else None,
                "bits_per_suggestion": statistics.mean(bits) if bits else None,
                "suggestions": len(bits),
            })
    no_winner = {p: sum(1 for r in results if r["players"] == p and r["winner"] is None) for p in timing}
    scoring = {
        p: {"moves": len(ts), "median_ms": 1000 * statistics.median(ts) if ts else None,
            "max_ms": 1000 * max(ts) if ts else None}
        for p, ts in timing.items()
    }
    return {"games": len(results), "rows": rows, "no_winner": no_winner, "infogain_scoring": scoring}


def _f(v: float | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def format_table(report: dict[str, Any]) -> str:
    head = f"{'matchup':20} {'players':>7} {'agent':10} {'seats':>6} {'wins':>5} {'win rate':>8} {'95% CI':>15} {'turns to solve':>14} {'bits/sugg':>9}"
    lines = [f"{report['games']} games", head, "-" * len(head)]
    for r in report["rows"]:
        ci = f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        lines.append(
            f"{r['matchup']:20} {r['players']:>7} {r['agent']:10} {r['seats']:>6} {r['wins']:>5} {r['win_rate']:>8.3f} {ci:>15} "
            f"{_f(r['turns_to_solve'], '.1f'):>14} {_f(r['bits_per_suggestion'], '.3f'):>9}"
        )
    lines.append("")
    for p, s in report["infogain_scoring"].items():
        lines.append(
            f"{p} players: infogain scored all suggestions {s['moves']} times: median {_f(s['median_ms'], '.1f')} ms, "
            f"max {_f(s['max_ms'], '.1f')} ms; games without a winner: {report['no_winner'][p]}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agents", description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=300, help="seats per agent, matchup and player count")
    parser.add_argument("--mode", choices=("pairs", "mixed"), default="pairs")
    parser.add_argument("--pairs", default="", help="matchups A/B;C/D (agents as name or name:key=value,...)")
    parser.add_argument("--players", default="3,4,6")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="one round per lineup")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log", metavar="FILE", help="append every game as a JSON line as it ends")
    parser.add_argument("--summarise", metavar="FILE", help="only print the table of a --log file")
    parser.add_argument("--solo", metavar="AGENTS", help="comma-separated agents: own suggestions to certainty "
                        "(nobody accuses), --seats games each")
    args = parser.parse_args(argv)
    if args.solo:
        rows = [solo_speed(int(p), spec, args.seats, args.seed)
                for p in args.players.split(",") if p for spec in args.solo.split(",")]
        for r in rows:
            out(json.dumps(r) if args.json else
                f"{r['players']} players {r['agent']:28} own suggestions to certainty {_f(r['own_turns'], '.2f')}, "
                f"deductive opponents {_f(r['opponents_turns'], '.2f')} ({r['games']} deals, {r['unsettled']} unsettled)")
        return 0
    if args.summarise:
        with open(args.summarise) as fh:
            report = summarise([json.loads(line) for line in fh if line.strip()])
        out(json.dumps(report, indent=2) if args.json else format_table(report))
        return 0
    seats = 30 if args.quick else args.seats
    players = [int(p) for p in args.players.split(",") if p]
    pairs = [tuple(m.split("/")) for m in args.pairs.split(";") if m] or PAIRS
    report = run(players, seats, args.seed, args.workers, args.mode, progress=lambda m: print(m, file=sys.stderr),
                 log=args.log, pairs=pairs)  # type: ignore[arg-type]
    out(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
