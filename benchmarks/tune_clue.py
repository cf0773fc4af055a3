"""Tune a Clue agent's parameters against ``racer`` on training deals, then confirm the best on
fresh deals (issue 26 item 4).

``python -m benchmarks.tune_clue --candidate racer-threat --trials 20 --deals 40 --seed 0``
runs Bayesian optimisation (optuna's TPE sampler, seeded by ``--seed``, so a run is
reproducible: the agents play without deadlines) over the candidate's :data:`SPACES`. Each
trial plays the candidate with the trial's parameters, ``racer`` and one opponent of
``--opponents`` on ``--deals`` duplicate deals at three players (every rotation of the seats;
one table per opponent and its twin with the candidate and racer swapped, so neither gains
from the order of play; the same deals in every trial), and scores the trial by the mean
per-deal paired difference, candidate minus racer, pooled over the tables. Then the best
parameters are confirmed on fresh deals (``--confirm-deals`` per player count, seeds from
another stream of the root seed, checked disjoint from the training deals) at each of
``--confirm-players``, against ``racer`` and the :data:`FIELD` of that table size, with per-deal
intervals from :mod:`deduce.apps.tournament.stats`; ``--league`` also plays the
:mod:`benchmarks.league` (clue-league) at those player counts on fresh seeds.
``--trials 0`` confirms the candidate's default parameters. ``--json`` prints the figures as
JSON; ``--backend``, ``--workers``, ``--out`` as in every agent benchmark.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks import _experiment as ex
from deduce.apps.tournament import AgentSpec, derive_seed, parse_agent
from deduce.errors import DeduceError

__all__ = ["Param", "SPACES", "FIELD", "CONFIG", "train_cells", "confirm_cells", "deal_seeds", "objective_value",
           "tune", "confirm", "run", "format_report", "main"]

#: the game settings of every tuning and confirmation game (the league's: classic deck, no board)
CONFIG: dict[str, Any] = {"max_turns": 300}

#: seed streams of the root seed: training deals and confirmation deals never share one
TRAIN_STREAM, CONFIRM_STREAM, LEAGUE_STREAM = 26_001, 26_002, 26_003

#: the seat labels of the tuning tables
CANDIDATE, BASELINE = "candidate", "racer"


@dataclass(frozen=True)
class Param:
    """One tuned parameter: a float in [low, high] (rounded to ``step``) or one of ``choices``."""

    name: str
    low: float = 0.0
    high: float = 1.0
    step: float = 0.01
    choices: tuple[str, ...] = ()

    def suggest(self, trial: Any) -> Any:
        if self.choices:
            return trial.suggest_categorical(self.name, list(self.choices))
        return trial.suggest_float(self.name, self.low, self.high, step=self.step)


_RACER = (Param("min_gamble", 0.3, 0.7), Param("leak_weight", 0.0, 1.0),
          Param("measure", choices=("accuracy", "shannon", "hartley")))

#: per agent, the parameters tuned (racer's gamble floor, leak weight and question measure, and
#: each candidate's own)
SPACES: dict[str, tuple[Param, ...]] = {
    "racer": _RACER,
    "racer-lap": (*_RACER, Param("lap", choices=("expected", "mirror"))),
    "racer-threat": (*_RACER, Param("opponent_gamble", 0.3, 0.8), Param("watch_from", 0.05, 0.4)),
    "racer-two-step": (Param("min_gamble", 0.3, 0.7), Param("leak_weight", 0.0, 1.0), Param("width", 2, 12, 1),
                       Param("broad", 0, 4, 1)),
}

#: the other seats of a confirmation table (with the candidate and racer), per player count
FIELD: dict[int, tuple[str, ...]] = {
    3: ("certain=infogain:gamble=false",),
    4: ("certain=infogain:gamble=false", "aggressive-accuser"),
    6: ("certain=infogain:gamble=false", "aggressive-accuser", "memory-notebook", "deductive"),
}

#: the third seat of the training tables, one table each
OPPONENTS = ("certain=infogain:gamble=false", "aggressive-accuser")


def _labelled(token: str, label: str) -> AgentSpec:
    spec = parse_agent(token)
    return AgentSpec(spec.name, spec.params, label)


def token(candidate: str, params: dict[str, Any]) -> str:
    """The candidate with ``params`` as a command-line agent token."""
    if not params:
        return candidate
    return candidate + ":" + ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in sorted(params.items()))


def _tables(name: str, candidate: str, others: Sequence[str], deals: int, seed: int) -> list[ex.Cell]:
    """Two tables on the same deals, every rotation: ``candidate, racer, *others`` and the two
    swapped, ``racer, candidate, *others``; over both, each of the two has the other and the
    same opponents on either side equally often, so neither gains from the order of play."""
    field = [parse_agent(o) for o in others]
    me, racer = _labelled(candidate, CANDIDATE), AgentSpec("racer", (), BASELINE)
    n = len(field) + 2
    return [ex.Cell.create(f"{name}{suffix}", "clue", [*pair, *field], n, deals * n, seed, CONFIG,
                           arrangement="rotate") for suffix, pair in (("", (me, racer)), (" swapped", (racer, me)))]


def pooled(tables: dict[str, Any], names: Sequence[str]) -> Any:
    """The games of tables played on the same deals as one table (one run, so a deal is one
    unit across them)."""
    import pandas as pd

    return pd.concat([tables[n] for n in names], ignore_index=True).assign(run_id="pooled")


def train_cells(candidate: str, deals: int, seed: int, opponents: Sequence[str] = OPPONENTS,
                trial: int = 0) -> list[ex.Cell]:
    """The training tables of one trial: three players, ``candidate`` (a token), racer and each
    opponent in turn, on the same deals for every trial (only the name carries the trial)."""
    return [cell for k, o in enumerate(opponents)
            for cell in _tables(f"train t{trial} {parse_agent(o).label or parse_agent(o).name}", candidate, [o], deals,
                                derive_seed(seed, TRAIN_STREAM, k))]


def confirm_cells(candidate: str, deals: int, seed: int, players: Sequence[int] = (3, 4, 6)) -> list[ex.Cell]:
    """The confirmation tables: per player count, ``candidate``, racer and :data:`FIELD`, on
    deals from the confirmation stream (never the training one)."""
    for n in players:
        if n not in FIELD:
            raise DeduceError(f"no confirmation table of {n} players: {', '.join(map(str, FIELD))}")
    return [cell for n in players
            for cell in _tables(f"confirm {n}p", candidate, FIELD[n], deals, derive_seed(seed, CONFIRM_STREAM, n))]


def deal_seeds(cells: Sequence[ex.Cell]) -> set[int]:
    """Every deal seed the tables play."""
    out = set()
    for cell in cells:
        schedule = cell.tournament().schedule
        out |= {schedule[i].deal_seed for i in range(cell.games)}
    return out


def objective_value(tables: dict[str, Any], seed: int = 0) -> dict[str, Any]:
    """Candidate minus racer per deal, pooled over the tables (a table and its swapped twin
    share their deals; different opponents' tables do not)."""
    from deduce.apps.tournament import stats

    diffs: list[float] = []
    for name in tables:
        if name.endswith(" swapped"):
            continue
        games = pooled(tables, [name, name + " swapped"])
        frame = games[games["agent"].isin([CANDIDATE, BASELINE])]
        per = frame.groupby(["deal", "agent"])["score"].mean().unstack("agent")
        diffs += (per[CANDIDATE] - per[BASELINE]).dropna().tolist()
    return stats.paired_difference(diffs, seed=seed)


def tune(candidate: str, trials: int, deals: int, seed: int, opponents: Sequence[str] = OPPONENTS,
         options: ex.RunOptions = ex.SERIAL, space: Sequence[Param] | None = None) -> dict[str, Any]:
    """The optuna study: every trial's parameters and paired difference, and the best."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    params = tuple(SPACES.get(candidate, ()) if space is None else space)
    if trials and not params:
        raise DeduceError(f"no parameters to tune for {candidate!r}: one of {', '.join(SPACES)}")
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    rows: list[dict[str, Any]] = []

    def objective(trial: Any) -> float:
        chosen = {p.name: p.suggest(trial) for p in params}
        agent = token(candidate, chosen)
        cells = train_cells(agent, deals, seed, opponents, trial.number)
        result = objective_value(ex.run_cells(cells, options), seed)
        rows.append({"trial": trial.number, "agent": agent, "params": chosen, **_brief(result)})
        return float(result["mean"])

    if trials:
        study.optimize(objective, n_trials=trials)
    best = max(rows, key=lambda r: (r["mean"], -r["trial"])) if rows else None
    return {"candidate": candidate, "trials": rows, "best": best, "deals": deals, "seed": seed,
            "opponents": list(opponents), "train_seeds": sorted(deal_seeds(train_cells(candidate, deals, seed,
                                                                                        opponents)))}


def _brief(result: dict[str, Any]) -> dict[str, Any]:
    return {k: result[k] for k in ("n", "mean", "lo", "hi", "ahead", "behind", "sign_p")}


def confirm(agent: str, deals: int, seed: int, players: Sequence[int] = (3, 4, 6), league: bool = False,
            league_deals: int | None = None, options: ex.RunOptions = ex.SERIAL,
            train_seeds: set[int] | None = None) -> dict[str, Any]:
    """``agent`` (a token) against racer at each player count on fresh deals, per-deal paired
    differences; with ``league``, the league paired with racer too. Refuses to confirm on a
    training deal."""
    cells = confirm_cells(agent, deals, seed, players)
    if train_seeds and deal_seeds(cells) & train_seeds:
        raise DeduceError("the confirmation deals overlap the training deals: choose another seed")
    tables = ex.run_cells(cells, options)
    out: dict[str, Any] = {"agent": agent, "deals": deals, "seed": seed, "tables": []}
    for n, cell in zip(players, cells[::2], strict=True):
        games = pooled(tables, [cell.name, cell.name + " swapped"])
        family = ex.family_table(games, seed=seed)
        rates = {r.agent: {"seats": int(r.seats), "win_rate": float(r.win_rate), "ci": [float(r.win_lo),
                                                                                           float(r.win_hi)]}
                 for r in family.itertuples()}
        out["tables"].append({"players": n, "field": list(FIELD[n]), "rates": rates,
                              "paired": _brief(ex.paired(games, CANDIDATE, BASELINE, seed=seed))})
    if league:
        from benchmarks import league as lg

        root = derive_seed(seed, LEAGUE_STREAM, 0)
        report = lg.run(agent, players, league_deals or deals, root, "racer", options)
        out["league"] = {"seed": root, "deals": league_deals or deals, "paired": report["paired"],
                         "tops": {m["mix"]: _tops(m["rows"]) for m in report["mixes"]}, "mixes": report["mixes"]}
    return out


def _tops(rows: list[dict[str, Any]]) -> bool:
    """Whether the candidate has the highest win rate of its table."""
    mine = next(r["win_rate"] for r in rows if r["candidate"])
    return all(mine >= r["win_rate"] for r in rows if not r["candidate"])


def run(candidate: str, trials: int, deals: int, seed: int, confirm_deals: int, players: Sequence[int] = (3, 4, 6),
        opponents: Sequence[str] = OPPONENTS, league: bool = False, league_deals: int | None = None,
        options: ex.RunOptions = ex.SERIAL) -> dict[str, Any]:
    """Tune, then confirm the best (or the defaults, with no trials) on fresh deals."""
    if deals < 1 or confirm_deals < 0:
        raise DeduceError(f"deals must be at least 1 and confirmation deals at least 0, not {deals} / {confirm_deals}")
    study = tune(candidate, trials, deals, seed, opponents, options)
    best = study["best"]["agent"] if study["best"] else candidate
    out = {"study": study, "best": best}
    if confirm_deals:
        out["confirmation"] = confirm(best, confirm_deals, seed, players, league, league_deals, options,
                                      set(study["train_seeds"]))
    return out


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _row(label: str, p: dict[str, Any]) -> str:
    return (f"| {label} | {_pts(p['mean'])} [{_pts(p['lo'])}, {_pts(p['hi'])}] | {p['n']} | {p['ahead']} / "
            f"{p['behind']} | {p['sign_p']:.3f} |")


def format_report(report: dict[str, Any]) -> str:
    """The study and the confirmation as Markdown tables (points per seat)."""
    study = report["study"]
    head = "| {} | candidate - racer per deal, points [95%] | deals | ahead / behind | sign p |"
    rule = "|---|---|---:|---|---:|"
    lines = [f"Tuning {study['candidate']}: {len(study['trials'])} trials, {study['deals']} deals per table "
             f"against racer and each of {', '.join(study['opponents'])}, seed {study['seed']}", "",
             head.format("trial"), rule]
    lines += [_row(f"{r['trial']}: `{r['agent']}`", r) for r in study["trials"]]
    lines += ["", f"Best: `{report['best']}`"]
    conf = report.get("confirmation")
    if conf:
        lines += ["", f"Confirmation on fresh deals ({conf['deals']} per table, seed {conf['seed']}):", "",
                  head.format("players (field)"), rule]
        for t in conf["tables"]:
            lines.append(_row(f"{t['players']} ({', '.join(t['field'])})", t["paired"]))
        for t in conf["tables"]:
            rates = ", ".join(f"{a} {100 * r['win_rate']:.1f}% [{100 * r['ci'][0]:.1f}, {100 * r['ci'][1]:.1f}]"
                              for a, r in t["rates"].items())
            lines.append(f"- {t['players']} players, win rate per seat: {rates}")
        if "league" in conf:
            lg = conf["league"]
            lines += ["", f"League on fresh deals ({lg['deals']} per mix, seed {lg['seed']}):", "",
                      head.format("league players"), rule]
            lines += [_row(n, p) for n, p in lg["paired"].items() if p is not None]
            lines.append("- tops its table: " + ", ".join(f"{m} {'yes' if t else 'no'}" for m, t in lg["tops"].items()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tune_clue", description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", default="racer-threat",
                        help=f"agent tuned ({', '.join(SPACES)}); with --trials 0 any agent token, confirmed as it is")
    parser.add_argument("--trials", type=int, default=20, help="optuna trials (0: confirm the defaults)")
    parser.add_argument("--deals", type=int, default=40, help="training deals per table and trial (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="root seed: sampler, training and confirmation deals")
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS), help="third seat of each training table")
    parser.add_argument("--confirm-deals", type=int, default=100, help="fresh deals per confirmation table (0: none)")
    parser.add_argument("--confirm-players", type=int, nargs="+", default=[3, 4, 6], choices=sorted(FIELD))
    parser.add_argument("--league", action="store_true", help="also play the league on fresh seeds")
    parser.add_argument("--league-deals", type=int, default=None, help="deals per league mix (default --confirm-deals)")
    ex.add_run_options(parser, backend="serial")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    def go() -> int:
        report = run(args.candidate, args.trials, args.deals, args.seed, args.confirm_deals, args.confirm_players,
                     args.opponents, args.league, args.league_deals, ex.run_options(args))
        print(json.dumps(report, indent=2, default=str) if args.json else format_report(report))
        return 0

    return ex.guarded(go, "tune_clue")


if __name__ == "__main__":
    raise SystemExit(main())
