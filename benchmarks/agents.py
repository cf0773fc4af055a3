"""Clue agent ladder: win rates with 95% CIs, turns to solve and bits per suggestion.

``python -m benchmarks.agents`` plays seeded classic-deck Clue games at 3, 4 and 6 players
between ``random``, ``notebook``, ``deductive`` and ``infogain``.

- ``--mode pairs`` (default): each rung of the ladder head to head - (infogain, deductive),
  (deductive, notebook), (notebook, random) - the two agents alternating round the table
  (A B A ... and B A B ...), every rotation, so both sit in every seat equally often; every
  game of a round plays the same deal (duplicate deals), so the deal's luck cancels.
- ``--mode mixed``: lineups drawn from all four that give every agent the same opposition
  (3 players: every 3-subset; 4: all four; 6: the four round the table starting with each),
  every rotation.

Per (matchup, players, agent) it prints:

- the win rate per seat played with its Wilson 95% interval;
- turns to solve: the agent's own turns up to its winning accusation, over its wins;
- bits per own suggestion: the realised fall of the envelope entropy in its own knowledge
  base (exact counts) from just before its suggestion to just after the answer;
- milliseconds per decision;
- per pair matchup, the first agent's win rate minus the second's per deal;
- the median / max seconds ``infogain`` spent scoring all legal suggestions.

``--solo A,B --seats G`` instead measures speed alone: on G deals, agent A (then B) in seat 0
and ``deductive`` elsewhere, nobody accusing, the own suggestions each seat needs before its
knowledge base settles the envelope (serially here: its agents are wrapped so that they never
accuse, which a worker cannot rebuild by name).

``--seats N`` (default 300) plays enough rounds that each agent fills about N seats per matchup
and player count; ``--players 3,4,6``, ``--quick`` (about 30 seats), ``--pairs "A/B;C/D"`` other
matchups (an agent may carry parameters: ``infogain:leak_weight=1``), ``--json`` prints the
report as JSON. Games end without a winner after 300 turns.

Every table is a tournament (:mod:`benchmarks._experiment`): ``--backend serial|processes|ray``,
``--workers``, ``--address`` (a Ray cluster) and ``--out DIR`` (saved as it plays; a rerun
resumes and prints the same table). Win rates and their Wilson intervals, seconds per decision
and, per pair matchup, the per-deal paired difference (bootstrap over deals, sign test) come
from the tournament's rows and :mod:`deduce.apps.tournament.stats`. Turns to solve, bits per
suggestion and infogain's scoring times are measured inside the game: on the first
``--probe-games`` games of each table (default 30), replayed here from their seeds, checked to
end as they did in the tournament.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any

import agents
from agents.clue.questions import entropy_bits, joint_sets
from benchmarks import _experiment as ex
from deduce.apps.tournament import stats
from deduce.games.clue.rules import ENVELOPE, Accuse, ClueGame, EndTurn, Suggest, ViewExtra
from deduce.play import Step, play_game

__all__ = ["AGENTS", "PAIRS", "cells", "probe", "run", "report", "format_table", "main"]

AGENTS = ("random", "notebook", "deductive", "infogain")
PAIRS = (("infogain", "deductive"), ("deductive", "notebook"), ("notebook", "random"))
MAX_TURNS = 300
#: games of each table replayed here to measure what a row cannot carry
PROBE_GAMES = 30


def cells(players_list: Sequence[int], seats: int, seed: int = 0, mode: str = "pairs",
          pairs: Sequence[tuple[str, str]] = PAIRS) -> list[ex.Cell]:
    """The tables: per matchup (a pair, or all of :data:`AGENTS` mixed) and player count, whole
    rounds (every lineup, every rotation, one duplicate deal per round) giving every agent at
    least ``seats`` seats. A player count's tables share their deals (the seed is the root's
    and the player count's)."""
    matchups = [(f"{a}-{b}", (a, b)) for a, b in pairs] if mode == "pairs" else [("mixed", AGENTS)]
    return ex.matchup_cells("clue", matchups, players_list, seats, seed, {"max_turns": MAX_TURNS})


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


def probe(cell: ex.Cell, game_id: int) -> dict[str, Any]:
    """Game ``game_id`` of ``cell`` replayed here with hooks: per seat its own suggestions,
    the realised bits of each (the fall of the envelope entropy in its own knowledge base from
    just before it to just after the answer), and infogain's scoring times; ``winners`` to check
    it ended as in the tournament."""
    seen: dict[str, Any] = {}

    def hooks(game: Any, team: list[Any]) -> dict[str, Any]:
        n = len(team)
        turns, bits = [0] * n, [[] for _ in range(n)]
        pending: list[tuple[int, float]] = []  # the suggestion awaiting its answer: (seat, entropy before)
        seen.update(turns=turns, bits=bits)

        def answered(state: Any, seat: int, obs: Any) -> None:
            if pending and state.phase == "after" and seat == pending[0][0]:
                bits[seat].append(pending.pop()[1] - _envelope_entropy(game, obs))

        def suggested(step: Step) -> None:
            if isinstance(step.action, Suggest):
                turns[step.seat] += 1
                pending[:] = [(step.seat, _envelope_entropy(game, step.observation))]

        return {"before_act": answered, "on_action": suggested}

    record, team = ex.replay(cell, game_id, hooks)
    scoring = [t for a in team for _, t, _ in getattr(a, "scoring_log", [])]
    return {"game_id": game_id, "winners": list(record.winners), "turns": seen["turns"], "bits": seen["bits"],
            "scoring_seconds": scoring}


def run(table_cells: Sequence[ex.Cell], options: ex.RunOptions = ex.SERIAL, probe_games: int = PROBE_GAMES,
        progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """Play every table on ``options``' backend (resuming ``options.out``), probe the first
    ``probe_games`` games of each here, and return :func:`report`."""
    return report(table_cells, *ex.run_probed(table_cells, options, probe, probe_games, progress))


def _label_names(cell: ex.Cell) -> dict[str, str]:
    return {s.label: ex.spec_text(s) for s in cell.agents}


def report(table_cells: Sequence[ex.Cell], tables: dict[str, Any], probes: dict[str, list[dict[str, Any]]],
           seed: int = 0) -> dict[str, Any]:
    """Per (table, agent): seats, wins, win rate with its Wilson interval and seconds per
    decision (the tournament's rows, :func:`deduce.apps.tournament.stats.agent_table`); turns to
    solve and bits per suggestion (the probed games); per pair table the per-deal paired
    difference of scores (1 for the winner, else 0), first agent minus second."""
    rows, paired, scoring, no_winner, differed = [], [], {}, {}, 0
    for cell in table_cells:
        games = tables[cell.name]
        names = _label_names(cell)
        tag = cell.name.rsplit("-", 1)[0]
        table = stats.agent_table(games, seed=seed).set_index("agent")
        seats_of = {}
        for g in probes.get(cell.name, []):
            spec = cell.tournament().schedule[g["game_id"]]
            differed += ex.replay_differs(games, g["game_id"], g["winners"])
            for seat, label in enumerate(spec.seats):
                entry = seats_of.setdefault(label, {"solve": [], "bits": []})
                entry["bits"].extend(g["bits"][seat])
                if seat in g["winners"]:
                    entry["solve"].append(g["turns"][seat])
            scoring.setdefault(cell.players, []).extend(g["scoring_seconds"])
        for s in cell.agents:
            r = table.loc[s.label]
            probe_rows = seats_of.get(s.label, {"solve": [], "bits": []})
            rows.append({
                "matchup": tag, "players": cell.players, "agent": names[s.label], "seats": int(r.seats),
                "wins": int(r.wins), "win_rate": float(r.win_rate), "ci95": [float(r.win_lo), float(r.win_hi)],
                "ms_per_decision": 1000 * float(r.sec_per_move), "forfeits": int(r.forfeits),
                "turns_to_solve": statistics.mean(probe_rows["solve"]) if probe_rows["solve"] else None,
                "bits_per_suggestion": statistics.mean(probe_rows["bits"]) if probe_rows["bits"] else None,
                "suggestions": len(probe_rows["bits"]), "probed_games": len(probes.get(cell.name, [])),
            })
        if len(cell.agents) == 2:
            a, b = (s.label for s in cell.agents)
            p = ex.paired(games, a, b, seed=seed)
            paired.append({"matchup": tag, "players": cell.players, "agents": [names[a], names[b]], "deals": p["n"],
                           "mean_diff": p["mean"], "ci95": [p["lo"], p["hi"]], "ahead": p["ahead"],
                           "behind": p["behind"], "sign_p": p["sign_p"], "wilcoxon_p": p["wilcoxon_p"]})
        gamewin = games.groupby("game_id")["win"].any()
        no_winner[cell.players] = no_winner.get(cell.players, 0) + int((~gamewin).sum())
    infogain = {p: {"moves": len(ts), "median_ms": 1000 * statistics.median(ts) if ts else None,
                    "max_ms": 1000 * max(ts) if ts else None} for p, ts in sorted(scoring.items())}
    total = sum(int(t["game_id"].nunique()) for t in tables.values())
    return {"games": total, "rows": rows, "paired": paired, "no_winner": no_winner, "infogain_scoring": infogain,
            "probes_differing": differed}


#: report fields measured by the clock (they differ between two runs of one seed)
TIMING_FIELDS = ("ms_per_decision", "infogain_scoring")


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


def _f(v: float | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def format_table(report: dict[str, Any]) -> str:
    head = (f"{'matchup':20} {'players':>7} {'agent':10} {'seats':>6} {'wins':>5} {'win rate':>8} {'95% CI':>15} "
            f"{'turns to solve':>14} {'bits/sugg':>9} {'ms/move':>8}")
    lines = [f"{report['games']} games", head, "-" * len(head)]
    for r in report["rows"]:
        ci = f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
        lines.append(
            f"{r['matchup']:20} {r['players']:>7} {r['agent']:10} {r['seats']:>6} {r['wins']:>5} {r['win_rate']:>8.3f} "
            f"{ci:>15} {_f(r['turns_to_solve'], '.1f'):>14} {_f(r['bits_per_suggestion'], '.3f'):>9} "
            f"{_f(r.get('ms_per_decision'), '.1f'):>8}"
        )
    probed = sorted({r["probed_games"] for r in report["rows"]})
    lines.append(f"(turns to solve and bits/sugg: from the first {', '.join(map(str, probed))} games of each table, "
                 f"replayed; {report['probes_differing']} replays ended otherwise than in the tournament)")
    if report["paired"]:
        lines += ["", "per deal (first agent minus second, win rate per seat; deals are the independent unit):"]
        for p in report["paired"]:
            ci = "[—]" if p["deals"] < 2 else f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}]"
            lines.append(f"{p['agents'][0]} minus {p['agents'][1]}, {p['players']} players: {p['deals']} deals, "
                         f"difference {p['mean_diff']:+.3f} {ci}; ahead on {p['ahead']}, behind on {p['behind']}; "
                         f"sign test p = {p['sign_p']:.2g}")
    lines.append("")
    for p, s in report.get("infogain_scoring", {}).items():
        lines.append(
            f"{p} players: infogain scored all suggestions {s['moves']} times: median {_f(s['median_ms'], '.1f')} ms, "
            f"max {_f(s['max_ms'], '.1f')} ms; games without a winner: {report['no_winner'].get(p, 0)}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agents", description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=300, help="seats per agent, matchup and player count")
    parser.add_argument("--mode", choices=("pairs", "mixed"), default="pairs")
    parser.add_argument("--pairs", default="", help="matchups A/B;C/D (agents as name or name:key=value,...)")
    parser.add_argument("--players", default="3,4,6")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="about 30 seats per agent and table")
    parser.add_argument("--probe-games", type=int, default=PROBE_GAMES,
                        help=f"games per table replayed for turns to solve and bits (default {PROBE_GAMES})")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--solo", metavar="AGENTS", help="comma-separated agents: own suggestions to certainty "
                        "(nobody accuses), --seats games each")
    ex.add_run_options(parser)
    args = parser.parse_args(argv)

    def go() -> int:
        if args.solo:
            rows = [solo_speed(int(p), spec, args.seats, args.seed)
                    for p in args.players.split(",") if p for spec in args.solo.split(",")]
            for r in rows:
                out(json.dumps(r) if args.json else
                    f"{r['players']} players {r['agent']:28} own suggestions to certainty {_f(r['own_turns'], '.2f')}, "
                    f"deductive opponents {_f(r['opponents_turns'], '.2f')} ({r['games']} deals, {r['unsettled']} unsettled)")
            return 0
        seats = 30 if args.quick else args.seats
        players = [int(p) for p in args.players.split(",") if p]
        pairs = [tuple(m.split("/")) for m in args.pairs.split(";") if m] or PAIRS
        table_cells = cells(players, seats, args.seed, args.mode, pairs)  # type: ignore[arg-type]
        result = run(table_cells, ex.run_options(args), args.probe_games, progress=lambda m: print(m, file=sys.stderr))
        out(json.dumps(result, indent=2) if args.json else format_table(result))
        return 0

    return ex.guarded(go, "benchmarks.agents")


if __name__ == "__main__":
    sys.exit(main())
