"""Win-seeking Clue agents (``lookahead``, ``ismcts``) against the ladder, with ablations.

``python -m benchmarks.search_agents --vs infogain --players 3,4 --seats 100`` plays seeded
classic-deck Clue: ``--mode pairs`` (default) seats the agent under test and each ``--vs``
opponent alternately round the table, in both orders and every rotation; ``--mode mixed``
seats the agent and every ``--vs`` opponent together in every rotation. Duplicate deals: each
round's deal is played by every lineup in every rotation (so every agent holds every hand of
it), and the same rounds are dealt to every matchup of a player count. Agents are specs
``name`` or ``name:key=value,key=value`` (typed by the agent), e.g. ``lookahead:gamble=False``
for an ablation; ``--agent`` may be repeated.

Every table is a tournament (:mod:`benchmarks._experiment`): ``--backend serial|processes|ray``,
``--workers``, ``--address`` (a Ray cluster) and ``--out DIR`` (saved as it plays; a rerun
resumes and prints the same table; ``tournament.json`` records the versions that played).
Prints, per (matchup, players, agent spec): seats, wins, win rate with a Wilson 95% interval,
mean and worst per-game milliseconds per decision, and per two-agent matchup the per-deal
paired difference (mean, bootstrap 95% interval over deals, sign test), all from the
tournament's rows and :mod:`deduce.apps.tournament.stats`. Gambles (accusations made while
not certain) and how many were right are the agents' own logs, read on the first
``--probe-games`` games of each table replayed here. Search agents honour a deadline, so their
results depend on the machine's load (and a replay may play otherwise).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks import _experiment as ex
from deduce.apps.tournament import stats
from deduce.games.clue.rules import Accusation

__all__ = ["cells", "probe", "run", "report", "format_table", "main", "TIMING_FIELDS"]

MAX_TURNS = 300
#: games of each table replayed here to read the agents' gamble logs
PROBE_GAMES = 10
#: report fields measured by the clock (they differ between two runs of one seed)
TIMING_FIELDS = ("median_ms", "max_ms")


def cells(agent_specs: Sequence[str], vs: Sequence[str], players_list: Sequence[int], seats: int, seed: int = 0,
          mode: str = "pairs") -> list[ex.Cell]:
    """One table per matchup and player count, whole rounds giving every agent at least
    ``seats`` seats; the tables of one player count share their deals."""
    if mode == "pairs":
        matchups = [(f"{a} vs {b}", (a, b)) for a in agent_specs for b in vs]
    else:
        matchups = [(f"{a} mixed", (a, *vs)) for a in agent_specs]
    return ex.matchup_cells("clue", matchups, players_list, seats, seed, {"max_turns": MAX_TURNS},
                            name="{tag} @{players}p")


def probe(cell: ex.Cell, game_id: int) -> dict[str, Any]:
    """Game ``game_id`` replayed here: per seat the gambles its agent logged and whether one won."""
    last: list[Any] = []

    def hooks(game: Any, team: list[Any]) -> dict[str, Any]:
        return {"on_action": lambda step: last[:1].clear() or last.append(step.state)}

    record, team = ex.replay(cell, game_id, hooks)
    wrong = {e.by for e in last[0].views(None) if isinstance(e, Accusation) and not e.correct} if last else set()
    gambles = [len(getattr(a, "gambles", [])) for a in team]
    won = [int(g > 0 and i in record.winners and i not in wrong) for i, g in enumerate(gambles)]
    return {"game_id": game_id, "winners": list(record.winners), "gambles": gambles, "gamble_wins": won}


def run(table_cells: Sequence[ex.Cell], options: ex.RunOptions = ex.SERIAL, probe_games: int = PROBE_GAMES,
        progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Play every table on ``options``' backend (resuming ``options.out``), probe the first
    ``probe_games`` games of each here, and return :func:`report`."""
    return report(table_cells, *ex.run_probed(table_cells, options, probe, probe_games, progress))


def report(table_cells: Sequence[ex.Cell], tables: dict[str, Any], probes: dict[str, list[dict[str, Any]]],
           seed: int = 0) -> dict[str, Any]:
    """Per (matchup, players, spec): seats, wins, Wilson interval, milliseconds per decision,
    gambles; per two-agent matchup the per-deal paired difference, first agent minus second."""
    rows, paired, no_winner, differed = [], [], 0, 0
    for cell in table_cells:
        games = tables[cell.name]
        tag = cell.name.rsplit(" @", 1)[0]
        table = stats.agent_table(games, seed=seed).set_index("agent")
        per_game = games.assign(ms=1000 * games["decision_seconds"] / games["decisions"].clip(lower=1))
        schedule = cell.tournament().schedule
        gambled: dict[str, list[int]] = {}
        for g in probes.get(cell.name, []):
            differed += ex.replay_differs(games, g["game_id"], g["winners"])
            for seat, label in enumerate(schedule[g["game_id"]].seats):
                entry = gambled.setdefault(label, [0, 0])
                entry[0] += g["gambles"][seat]
                entry[1] += g["gamble_wins"][seat]
        for s in cell.agents:
            r = table.loc[s.label]
            mine = per_game[per_game["agent"] == s.label]["ms"]
            gambles, gamble_wins = gambled.get(s.label, [0, 0])
            rows.append({"matchup": tag, "players": cell.players, "agent": ex.spec_text(s), "seats": int(r.seats),
                         "wins": int(r.wins), "win_rate": float(r.win_rate),
                         "ci95": [float(r.win_lo), float(r.win_hi)], "forfeits": int(r.forfeits),
                         "gambles": gambles, "gamble_wins": gamble_wins,
                         "probed_games": len(probes.get(cell.name, [])),
                         "median_ms": float(mine.median()) if len(mine) else None,
                         "max_ms": float(mine.max()) if len(mine) else None})
        if len(cell.agents) == 2:
            a, b = cell.agents
            p = ex.paired(games, a.label, b.label, seed=seed)
            paired.append({"matchup": tag, "players": cell.players, "agents": [ex.spec_text(a), ex.spec_text(b)],
                           "deals": p["n"], "mean_diff": p["mean"],
                           "ci95": [p["lo"], p["hi"]] if p["n"] > 1 else None, "ahead": p["ahead"],
                           "behind": p["behind"], "sign_p": p["sign_p"], "wilcoxon_p": p["wilcoxon_p"]})
        no_winner += int((~games.groupby("game_id")["win"].any()).sum())
    total = sum(int(t["game_id"].nunique()) for t in tables.values())
    return {"games": total, "rows": rows, "no_winner": no_winner, "paired": paired, "probes_differing": differed}


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
    probed = sorted({r["probed_games"] for r in report["rows"]})
    lines.append(f"(ms: per-game mean ms per decision, median and worst over seats; gambles right/made on the "
                 f"first {', '.join(map(str, probed))} games of each table, replayed; {report['probes_differing']} "
                 "replays ended otherwise than in the tournament)")
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
    parser.add_argument("--vs", default="infogain", help="comma-separated opponent specs (';' when specs hold commas)")
    parser.add_argument("--mode", choices=("pairs", "mixed"), default="pairs")
    parser.add_argument("--players", default="3,4")
    parser.add_argument("--seats", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--probe-games", type=int, default=PROBE_GAMES,
                        help=f"games per table replayed for the gamble logs (default {PROBE_GAMES})")
    parser.add_argument("--json", action="store_true")
    ex.add_run_options(parser)
    args = parser.parse_args(argv)

    def go() -> int:
        vs = args.vs.split(";") if ";" in args.vs else args.vs.split(",")
        table_cells = cells(args.agent or ["lookahead"], vs, [int(p) for p in args.players.split(",") if p],
                            args.seats, args.seed, args.mode)
        result = run(table_cells, ex.run_options(args), args.probe_games, progress=lambda m: print(m, file=sys.stderr))
        out(json.dumps(result, indent=2) if args.json else format_table(result))
        return 0

    return ex.guarded(go, "benchmarks.search_agents")


if __name__ == "__main__":
    sys.exit(main())
