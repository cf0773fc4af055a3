"""Win-seeking Clue agents (``lookahead``, ``ismcts``) against the ladder, with ablations.

``python -m benchmarks.search_agents --vs infogain --players 3,4 --seats 100`` plays seeded
classic-deck Clue: ``--mode pairs`` (default) seats the agent under test and each ``--vs``
opponent alternately round the table, in both orders and every rotation; ``--mode mixed``
seats the agent and every ``--vs`` opponent (benchmarks.agents.lineups) in every rotation.
Duplicate deals: each round's deal is played by every lineup in every rotation (so every
agent holds every hand of it), and the same rounds are dealt to every matchup.
Agents are specs ``name`` or ``name:key=value,key=value`` (values parsed as Python literals),
e.g. ``lookahead:gamble=False`` for an ablation; ``--agent`` may be repeated.

Prints, per (matchup, players, agent spec): seats, wins, win rate with a Wilson 95% interval,
and per two-agent matchup the per-deal paired difference (mean, 95% interval over deals, sign test),
gambles (accusations made while not certain) and how many were right, and the median / max
seconds per decision of every search agent's seat. ``--log FILE`` appends one JSON line per
game (with a fingerprint of each agent's source file, since agents change while long runs go
on); ``--summarise FILE [--by-version]`` prints the table of such a log, split by those
fingerprints when asked. Search agents honour a deadline, so their results depend on the
machine's load.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import agents
from agents.base import Agent
from benchmarks.agents import lineups, pair_lineups
from deduce.apps.tournament.stats import paired_difference, sign_test, wilson
from deduce.games.clue.rules import Accusation, ClueGame
from deduce.play import GameRun

__all__ = ["parse_spec", "build", "play_one", "run", "summarise", "paired_by_deal", "sign_test", "format_table", "main"]

MAX_TURNS = 300


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"lookahead:gamble=False,rate=2"`` -> ``("lookahead", {"gamble": False, "rate": 2})``."""
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key.strip()] = value.strip()
    return name, params


def build(spec: str) -> Agent:
    """A fresh agent from a spec (search agents registered for Clue at run time)."""
    name, params = parse_spec(spec)
    return agents.get(name, game="clue", **params)


def play_one(players: int, seats: Sequence[str], seed: int) -> dict[str, Any]:
    """One game; per seat: gambles made and won, decision times of search agents."""
    game = ClueGame(num_players=players, max_turns=MAX_TURNS)
    team = [build(spec) for spec in seats]
    run = GameRun(game, team, seed, errors="raise")
    for _ in run:
        pass
    state = run.state
    wrong = {e.by for e in state.views(None) if isinstance(e, Accusation) and not e.correct}
    gambles = [len(getattr(a, "gambles", [])) for a in team]
    gamble_wins = [int(g > 0 and state.winner == i and i not in wrong) for i, g in enumerate(gambles)]
    return {
        "players": players,
        "seed": seed,
        "seats": list(seats),
        "winner": state.winner,
        "game_turns": state.turns,
        "gambles": gambles,
        "gamble_wins": gamble_wins,
        "times": [[t for _, _, t in getattr(a, "timing", [])] for a in team],
        # which version of each agent's source played: other engineers change agents while
        # long runs go on
        "versions": {spec: _defaults(a) for spec, a in zip(seats, team, strict=True)},
    }


def _defaults(agent: Agent) -> str:
    """A short fingerprint of the source file defining the agent's class."""
    with open(inspect.getfile(type(agent)), "rb") as fh:
        return hashlib.sha1(fh.read()).hexdigest()[:8]


def _deal_seed(seed: int, players: int, r: int) -> int:
    return seed * 1_000_003 + players * 10_007 + r * 101


def _job(args: tuple[int, tuple[str, ...], int]) -> dict[str, Any]:
    return play_one(*args)


def run(agent_specs: Sequence[str], vs: Sequence[str], players_list: Sequence[int], seats_wanted: int,
        seed: int = 0, workers: int = 2, mode: str = "pairs", log: str | None = None,
        progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Play every matchup in every rotation, enough rounds for ``seats_wanted`` seats each."""
    jobs: list[tuple[int, tuple[str, ...], int]] = []
    tags: list[str] = []
    if mode == "pairs":
        matchups = [(f"{a} vs {b}", (a, b)) for a in agent_specs for b in vs]
    else:
        matchups = [(f"{a} mixed", (a, *vs)) for a in agent_specs]
    for tag, names in matchups:
        for players in players_list:
            ups = pair_lineups(players, *names) if mode == "pairs" else lineups(players, names)
            per_round = min(sum(lu.count(n) for lu in ups) * players for n in set(names))
            rounds = max(1, -(-seats_wanted // per_round))
            for r in range(rounds):
                for lineup in ups:
                    for shift in range(players):
                        # duplicate deals: round r's deal is played by every lineup in every
                        # rotation, and by every matchup (paired comparisons across ablations)
                        jobs.append((players, lineup[shift:] + lineup[:shift], _deal_seed(seed, players, r)))
                        tags.append(tag)
    results = []
    sink = open(log, "a") if log else None  # noqa: SIM115 - one line per game as it ends
    try:
        games = ProcessPoolExecutor(workers).map(_job, jobs, chunksize=1) if workers > 1 else map(_job, jobs)
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


def summarise(results: Sequence[dict[str, Any]], by_version: bool = False) -> dict[str, Any]:
    """Per (matchup, players, spec): seats, wins, Wilson CI, gambles, decision times; with
    ``by_version``, per version of the agents' sources too (the matchup gets a suffix)."""
    if by_version:
        results = [{**r, "matchup": r["matchup"] + " @" + ",".join(sorted(set(r.get("versions", {}).values())))}
                   for r in results]
    rows = []
    for tag, players in sorted({(r["matchup"], r["players"]) for r in results}, key=lambda x: (x[1], x[0])):
        games = [r for r in results if r["players"] == players and r["matchup"] == tag]
        for spec in dict.fromkeys(s for g in games for s in g["seats"]):
            seats = wins = gambles = gamble_wins = 0
            times: list[float] = []
            for g in games:
                for i, s in enumerate(g["seats"]):
                    if s == spec:
                        seats += 1
                        wins += int(g["winner"] == i)
                        gambles += g["gambles"][i]
                        gamble_wins += g["gamble_wins"][i]
                        times += g["times"][i]
            lo, hi = wilson(wins, seats)
            rows.append({
                "matchup": tag, "players": players, "agent": spec, "seats": seats, "wins": wins,
                "win_rate": wins / seats, "ci95": [lo, hi], "gambles": gambles, "gamble_wins": gamble_wins,
                "median_ms": 1000 * statistics.median(times) if times else None,
                "max_ms": 1000 * max(times) if times else None,
            })
    no_winner = sum(1 for r in results if r["winner"] is None)
    return {"games": len(results), "rows": rows, "no_winner": no_winner, "paired": paired_by_deal(results)}


def paired_by_deal(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per two-agent (matchup, players): the per-deal difference in win rate per seat (first
    agent minus second), its mean with a bootstrap 95% interval over deals, how many deals each
    agent won more games on, and the two-sided sign-test p-value (the tournament's
    ``paired_difference``). Games of one deal are correlated (every seating plays it), so the
    deal, not the seat, is the independent unit."""
    out = []
    for tag, players in sorted({(r["matchup"], r["players"]) for r in results if "seed" in r}, key=lambda x: (x[1], x[0])):
        games = [r for r in results if r["players"] == players and r["matchup"] == tag and "seed" in r]
        specs = list(dict.fromkeys(s for g in games for s in g["seats"]))
        if len(specs) != 2:
            continue
        named = tag.split(" vs ")
        if sorted(named) == sorted(specs):
            specs = named  # the difference is the matchup's first agent minus its second
        by_deal: dict[int, list[dict[str, Any]]] = {}
        for g in games:
            by_deal.setdefault(g["seed"], []).append(g)
        diffs = []
        for deal in by_deal.values():
            rate = []
            for spec in specs:
                seats = sum(g["seats"].count(spec) for g in deal)
                wins = sum(1 for g in deal if g["winner"] is not None and g["seats"][g["winner"]] == spec)
                rate.append(wins / seats if seats else 0.0)
            diffs.append(rate[0] - rate[1])
        paired = paired_difference(diffs, seed=0)
        out.append({
            "matchup": tag, "players": players, "agents": specs, "deals": paired["n"], "mean_diff": paired["mean"],
            "ci95": [paired["lo"], paired["hi"]] if paired["n"] > 1 else None,
            "ahead": paired["ahead"], "behind": paired["behind"], "sign_p": paired["sign_p"],
        })
    return out


def format_table(report: dict[str, Any]) -> str:
    head = (f"{'matchup':40} {'n':>2} {'agent':28} {'seats':>5} {'wins':>4} {'rate':>6} {'95% CI':>15} "
            f"{'gambles':>9} {'med ms':>7} {'max ms':>7}")
    lines = [f"{report['games']} games ({report['no_winner']} without a winner)", head, "-" * len(head)]
    for r in report["rows"]:
        ci = f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        med = "—" if r["median_ms"] is None else f"{r['median_ms']:.0f}"
        mx = "—" if r["max_ms"] is None else f"{r['max_ms']:.0f}"
        gam = f"{r['gamble_wins']}/{r['gambles']}" if r["gambles"] else "—"
        lines.append(f"{r['matchup'][:40]:40} {r['players']:>2} {r['agent'][:28]:28} {r['seats']:>5} {r['wins']:>4} "
                     f"{r['win_rate']:>6.3f} {ci:>15} {gam:>9} {med:>7} {mx:>7}")
    if report.get("paired"):
        lines += ["", "per deal (first agent minus second, win rate per seat; deals are the independent unit):"]
        for p in report["paired"]:
            ci = "[—]" if p["ci95"] is None else f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}]"
            lines.append(
                f"{p['agents'][0]} minus {p['agents'][1]}, {p['players']} players: {p['deals']} deals, difference "
                f"{p['mean_diff']:+.3f} {ci}; ahead on {p['ahead']}, behind on {p['behind']}; "
                f"sign test p = {p['sign_p']:.2g}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.search_agents", description=__doc__.split("\n")[0])
    parser.add_argument("--agent", action="append", help="agent spec under test (repeatable; default lookahead)")
    parser.add_argument("--vs", default="infogain", help="comma-separated opponent names")
    parser.add_argument("--mode", choices=("pairs", "mixed"), default="pairs")
    parser.add_argument("--players", default="3,4")
    parser.add_argument("--seats", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log", metavar="FILE")
    parser.add_argument("--summarise", metavar="FILE", help="only print the table of a --log file")
    parser.add_argument("--by-version", action="store_true", help="with --summarise: split rows by agent source version")
    args = parser.parse_args(argv)
    if args.summarise:
        with open(args.summarise) as fh:
            report = summarise([json.loads(line) for line in fh if line.strip()], args.by_version)
    else:
        report = run(args.agent or ["lookahead"], args.vs.split(";") if ";" in args.vs else args.vs.split(","),
                     [int(p) for p in args.players.split(",") if p], args.seats, args.seed, args.workers,
                     args.mode, args.log, progress=lambda m: print(m, file=sys.stderr))
    out(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
