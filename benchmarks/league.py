"""The Clue league: a candidate agent against a fixed, versioned mix of opponents of other
styles (issue 26), at 3, 4 and 6 players, so agents are no longer judged against their own
family only.

``python -m benchmarks.league --candidate racer --players 3 --deals 10`` plays, for every mix of
:data:`LEAGUE` at each player count, the candidate and the mix's opponents through
:class:`deduce.apps.tournament.Tournament` with duplicate deals (every deal in every rotation
of the seats, so each entry holds every hand of it), then the same games with ``--baseline``
(default ``racer``) in the candidate's place: the deals, seeds and opponents are the same, so
the two are compared deal by deal. Printed per mix: every entry's seats, win rate per seat
(Wilson 95% over seats) and mean score (Clue scores 1 for the winner, else 0, so it is the win
rate; bootstrap 95% over deals); then per player count, pooled over its mixes, the
candidate's score minus the baseline's per deal (mean, bootstrap 95% interval over deals,
deals ahead / behind, sign test). ``--spec`` prints the league and exits; ``--json`` prints
the figures as JSON. The statistics are :mod:`deduce.apps.tournament.stats`. Where the games
run: ``--backend``, ``--workers``, ``--address`` (a Ray cluster), ``--out DIR`` (each mix and
agent its own results directory; a rerun resumes), as in every agent benchmark.

Change :data:`LEAGUE` or :data:`CONFIG` only together with :data:`LEAGUE_VERSION`: figures are
comparable only within one version.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks import _experiment as ex
from deduce.apps.tournament import AgentSpec, derive_seed, parse_agent, stats
from deduce.errors import DeduceError

__all__ = ["LEAGUE_VERSION", "LEAGUE", "CONFIG", "Mix", "mixes", "mix_cell", "play_mix", "run", "format_report", "main"]

#: the league's version: bump it whenever a mix, an opponent's parameters or CONFIG change
LEAGUE_VERSION = "clue-league-1"

#: the game settings every league game uses (classic deck, no board); the turn cap keeps a
#: table of agents that never become certain from running on
CONFIG: dict[str, Any] = {"max_turns": 300}

#: player count -> the opponent mixes the candidate meets there (agent tokens, as on the
#: command line); one of each new style, with ``deductive`` (the plain solver) as an anchor
LEAGUE: dict[int, tuple[tuple[str, ...], ...]] = {
    3: (
        ("aggressive-accuser", "memory-notebook"),
        ("own-evidence", "own-card-prober"),
        ("aggressive-accuser", "deductive"),
    ),
    4: (
        ("aggressive-accuser", "memory-notebook", "own-card-prober"),
        ("own-evidence", "aggressive-accuser", "deductive"),
    ),
    6: (("aggressive-accuser", "memory-notebook", "own-card-prober", "own-evidence", "deductive"),),
}

#: the label of the seat under test in every mix, whichever agent fills it
CANDIDATE = "candidate"


@dataclass(frozen=True)
class Mix:
    """One table of the league: its player count, its index there, and its opponents."""

    players: int
    index: int
    opponents: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.players}p-{self.index + 1}"

    def seed(self, root: int) -> int:
        """This mix's tournament seed: from the root seed and the mix alone, so adding player
        counts to a run does not change another mix's deals."""
        return derive_seed(root, self.players, self.index)


def mixes(players: Sequence[int] = tuple(LEAGUE)) -> list[Mix]:
    """The league's mixes at these player counts, in order."""
    out = []
    for n in players:
        if n not in LEAGUE:
            raise DeduceError(f"the league has no tables of {n} players: {', '.join(map(str, LEAGUE))}")
        out += [Mix(n, i, opponents) for i, opponents in enumerate(LEAGUE[n])]
    return out


def _seat(token: str) -> AgentSpec:
    spec = parse_agent(token)
    return AgentSpec(spec.name, spec.params, CANDIDATE)


def mix_cell(mix: Mix, candidate: str, deals: int, seed: int) -> ex.Cell:
    """``candidate`` against ``mix`` on ``deals`` duplicate deals, every rotation of the seats,
    as a table of :mod:`benchmarks._experiment` (its results directory: ``<mix> <candidate>``)."""
    agents = [_seat(candidate), *(parse_agent(o) for o in mix.opponents)]
    return ex.Cell.create(f"{mix.name} {candidate}", "clue", agents, mix.players, deals * mix.players,
                          mix.seed(seed), CONFIG, arrangement="rotate")


def play_mix(mix: Mix, candidate: str, deals: int, seed: int, options: ex.RunOptions = ex.SERIAL) -> Any:
    """The results table (``TournamentResults.games``) of :func:`mix_cell`, played on
    ``options``' backend (resuming ``options.out``)."""
    table = mix_cell(mix, candidate, deals, seed)
    return ex.run_cells([table], options)[table.name]


def _per_deal(games: Any) -> Any:
    """The candidate's mean score per deal (a Series indexed by deal)."""
    own = games[games["agent"] == CANDIDATE]
    return own.groupby("deal")["score"].mean()


def _entries(games: Any, candidate: str, seed: int) -> list[dict[str, Any]]:
    table = stats.agent_table(games, seed=seed)
    rows = []
    for r in table.itertuples():
        rows.append({"agent": candidate if r.agent == CANDIDATE else r.agent, "seats": r.seats, "wins": r.wins,
                     "win_rate": r.win_rate, "win_ci": [r.win_lo, r.win_hi], "score": r.score,
                     "score_ci": [r.score_lo, r.score_hi], "deals": r.deals, "forfeits": r.forfeits,
                     "candidate": r.agent == CANDIDATE})
    return rows


def run(candidate: str, players: Sequence[int] = (3,), deals: int = 10, seed: int = 0, baseline: str = "racer",
        options: ex.RunOptions = ex.SERIAL) -> dict[str, Any]:
    """Play the league for ``candidate`` (and ``baseline`` on the same games) and return the
    figures as plain data: per mix every entry's row, per player count the paired per-deal
    difference candidate - baseline (``None`` when they are the same agent)."""
    if deals < 1:
        raise DeduceError(f"deals must be at least 1, not {deals}")
    same = parse_agent(candidate) == parse_agent(baseline)
    out: dict[str, Any] = {"version": LEAGUE_VERSION, "config": CONFIG, "candidate": candidate, "baseline": baseline,
                           "deals": deals, "seed": seed, "mixes": [], "paired": {}}
    diffs: dict[int, list[float]] = {}
    for mix in mixes(players):
        games = play_mix(mix, candidate, deals, seed, options)
        entry: dict[str, Any] = {"mix": mix.name, "players": mix.players, "opponents": list(mix.opponents),
                                 "games": int(games["game_id"].nunique()), "rows": _entries(games, candidate, seed)}
        if not same:
            base = play_mix(mix, baseline, deals, seed, options)
            entry["baseline_rows"] = _entries(base, baseline, seed)
            a, b = _per_deal(games), _per_deal(base)
            diffs.setdefault(mix.players, []).extend((a - b.reindex(a.index)).dropna().tolist())
        out["mixes"].append(entry)
    for n in players:
        out["paired"][str(n)] = stats.paired_difference(diffs[n], seed=seed) if not same else None
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def format_report(report: dict[str, Any]) -> str:
    """The figures of :func:`run` as Markdown tables."""
    lines = [f"League {report['version']}: candidate {report['candidate']}, baseline {report['baseline']}, "
             f"{report['deals']} duplicate deals per mix (every seat rotation), seed {report['seed']}", ""]
    lines += ["| mix | entry | seats | win % per seat [Wilson 95%] | score [95% over deals] |",
              "|---|---|---:|---|---|"]
    for mix in report["mixes"]:
        for key in ("rows", "baseline_rows"):
            for r in mix.get(key, []):
                if key == "baseline_rows" and not r["candidate"]:
                    continue  # the opponents again, on the same games
                who = f"**{r['agent']}**" if r["candidate"] else r["agent"]
                if key == "baseline_rows":
                    who = f"{r['agent']} (baseline)"
                lines.append(f"| {mix['mix']} | {who} | {r['seats']} | {_pct(r['win_rate'])} "
                             f"[{_pct(r['win_ci'][0])}, {_pct(r['win_ci'][1])}] | {r['score']:.3f} "
                             f"[{r['score_ci'][0]:.3f}, {r['score_ci'][1]:.3f}] |")
    paired = {n: p for n, p in report["paired"].items() if p is not None}
    if paired:
        lines += ["", f"| players | {report['candidate']} - {report['baseline']} per seat, points [95% over deals] "
                      "| deals | ahead / behind | sign test p |", "|---|---|---:|---|---:|"]
        for n, p in paired.items():
            lines.append(f"| {n} | {100 * p['mean']:+.1f} [{100 * p['lo']:+.1f}, {100 * p['hi']:+.1f}] | {p['n']} "
                         f"| {p['ahead']} / {p['behind']} | {p['sign_p']:.3f} |")
    return "\n".join(lines)


def format_spec() -> str:
    """The league as text: version, settings, the mixes at each player count."""
    lines = [f"{LEAGUE_VERSION} (settings {json.dumps(CONFIG)})"]
    lines += [f"  {m.name}: candidate vs {', '.join(m.opponents)}" for m in mixes()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.league", description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", default="racer", help="agent under test, NAME[:KEY=VALUE,...] (default racer)")
    parser.add_argument("--baseline", default="racer", help="agent compared deal by deal (default racer)")
    parser.add_argument("--players", type=int, nargs="+", default=[3], choices=sorted(LEAGUE))
    parser.add_argument("--deals", type=int, default=10, help="duplicate deals per mix (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    ex.add_run_options(parser, backend="serial")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--spec", action="store_true", help="print the league and exit")
    args = parser.parse_args(argv)
    if args.spec:
        print(format_spec())
        return 0
    try:
        report = run(args.candidate, args.players, args.deals, args.seed, args.baseline, ex.run_options(args))
    except DeduceError as exc:
        print(f"league: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
