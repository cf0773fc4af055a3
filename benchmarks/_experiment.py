"""The one runner of the agent benchmarks: every table of games is a tournament.

An agent benchmark describes its experiment as :class:`Cell` s (one game, its agents, how many
games, a seed) and hands them to :func:`run_cells`, which plays each through
:class:`deduce.apps.tournament.Tournament`: the tournament's schedule (duplicate deals, every
seat rotation), its backends (``serial``, ``processes``, ``ray`` on a cluster at ``--address``)
and, with ``--out DIR``, its results directories, so a stopped benchmark resumes where it
stopped (``DIR/<cell>`` per table) and a rerun prints the same table without playing. Every
backend gives the same table for a seed. Win rates, score intervals and per-deal paired
differences come from :mod:`deduce.apps.tournament.stats`; :func:`add_run_options` gives every
benchmark the same options.

What a tournament row cannot carry (an agent's own log, a figure measured inside the game)
comes from :func:`replay`: a scheduled game played again here, with hooks, from the same seeds.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deduce.apps.tournament import AgentSpec, Tournament, derive_seed, stats
from deduce.apps.tournament.backends import ray_session
from deduce.apps.tournament.worker import build_agent
from deduce.errors import DeduceError
from deduce.games import Game, make
from deduce.play import GameRecord, play_game

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RunOptions", "SERIAL", "Cell", "add_run_options", "run_options", "run_cells", "family", "family_table",
    "paired", "replay", "safe_name", "guarded", "agent", "rounds_for",
    "matchup_cells", "spec_text", "replay_differs", "run_probed",
]

BACKENDS = ("serial", "processes", "ray", "auto")


@dataclass(frozen=True)
class RunOptions:
    """Where and how the games run: a backend, its workers, a Ray address, a results root."""

    backend: str = "serial"
    workers: int | None = None
    address: str | None = None
    out: Path | None = None
    connect_timeout: float | None = None


#: the serial backend, nothing saved: the default of every runner
SERIAL = RunOptions()


def add_run_options(parser: argparse.ArgumentParser, backend: str = "auto", workers: int | None = None) -> None:
    """``--backend``, ``--workers``, ``--address``, ``--connect-timeout`` and ``--out``, the same
    in every agent benchmark."""
    group = parser.add_argument_group("where the games run (the tournament's backends)")
    group.add_argument("--backend", choices=BACKENDS, default=backend,
                       help=f"serial, processes, ray or auto (default {backend}: serial, moving to processes once the "
                            "rest looks long); every backend gives the same table")
    group.add_argument("--workers", type=int, default=workers,
                       help="processes (or local Ray CPUs); default all cores")
    group.add_argument("--address", default=None,
                       help="a Ray cluster's head (host:port) for --backend ray; default RAY_ADDRESS, else a local Ray")
    group.add_argument("--connect-timeout", type=float, default=None,
                       help="seconds to wait for the Ray cluster (default 30)")
    group.add_argument("--out", type=Path, default=None,
                       help="results directory: every table is saved as it plays (DIR/<table>), and a rerun "
                            "resumes what is missing")


def run_options(args: argparse.Namespace) -> RunOptions:
    """The :class:`RunOptions` of parsed :func:`add_run_options` arguments."""
    if args.workers is not None and args.workers < 1:
        raise DeduceError(f"--workers must be at least 1, not {args.workers}")
    return RunOptions(args.backend, args.workers, args.address, args.out, args.connect_timeout)


def safe_name(text: str) -> str:
    """``text`` as a directory name (letters, digits and ``_.+-`` only)."""
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "table"


@dataclass(frozen=True)
class Cell:
    """One table of an experiment: ``games`` scheduled games of ``game`` between ``agents``.

    ``name`` tells the table apart in the output and names its results directory; ``arrangement``
    is the schedule's (``alternate`` by default: two agents at three seats play A B A and B A B,
    every rotation); deals are duplicated within each round, so deal luck cancels."""

    name: str
    game: str
    agents: tuple[AgentSpec, ...]
    players: int
    games: int
    seed: int
    config: tuple[tuple[str, Any], ...] = ()
    arrangement: str = "alternate"
    duplicate: bool = True

    @classmethod
    def create(cls, name: str, game: str, agents: Sequence[AgentSpec | str], players: int, games: int, seed: int,
               config: Mapping[str, Any] | None = None, arrangement: str = "alternate") -> Cell:
        specs = tuple(AgentSpec.coerce(a) for a in agents)
        return cls(name, game, specs, players, games, seed, tuple(sorted((config or {}).items())), arrangement)

    def tournament(self, options: RunOptions = SERIAL, games: int | None = None) -> Tournament:
        """This table as a tournament (``games`` overrides its count: a shorter run of the same
        games, resumed later by the full one)."""
        out = options.out / safe_name(self.name) if options.out is not None else None
        t = Tournament(self.game, list(self.agents), games=self.games if games is None else games, seed=self.seed,
                       players=self.players, config=dict(self.config), arrangement=self.arrangement,
                       duplicate=self.duplicate, backend=options.backend, workers=options.workers,
                       address=options.address, out=out, progress=False)
        t.connect_timeout = options.connect_timeout
        return t

    def round_size(self) -> int:
        return self.tournament().schedule.round_size


def run_cells(cells: Sequence[Cell], options: RunOptions = SERIAL,
              progress: Callable[[str], Any] | None = None) -> dict[str, pd.DataFrame]:
    """Play every cell on ``options``' backend (resuming what ``options.out`` holds) and return
    each cell's games table (one row per game and seat, :data:`deduce.apps.tournament.COLUMNS`)."""
    names = [c.name for c in cells]
    if len(set(map(safe_name, names))) != len(names):
        raise DeduceError(f"the tables of an experiment need distinct names: {', '.join(names)}")
    out = {}
    session = (ray_session(options.address, options.workers or 2, options.connect_timeout)
               if options.backend == "ray" else contextlib.nullcontext())
    with session:  # every table on one Ray connection
        for i, cell in enumerate(cells, start=1):
            results = cell.tournament(options).run()
            if progress is not None:
                progress(f"table {i}/{len(cells)} {cell.name}: {results.num_games} games "
                         f"({results.played} played now, on {options.backend})")
            out[cell.name] = results.games
    return out


_COPY = re.compile(r"#\d+$")


def family(label: str) -> str:
    """The agent a label stands for: ``random#2`` (the second random seat of a table) is ``random``."""
    return _COPY.sub("", label)


def family_table(games: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """:func:`deduce.apps.tournament.stats.agent_table` with the copies of an agent (``random``,
    ``random#2``...) counted as one agent: seats, wins, Wilson interval over seats, mean score
    with its bootstrap interval over deals, forfeits, turns and seconds per decision."""
    return stats.agent_table(games.assign(agent=games["agent"].map(family)), seed=seed)


def paired(games: pd.DataFrame, first: str, second: str, column: str = "score", seed: int = 0) -> dict[str, Any]:
    """``first``'s mean ``column`` minus ``second``'s, per deal (the deal is the independent
    unit), by :func:`deduce.apps.tournament.stats.paired_by_deal`: mean, bootstrap 95% interval
    over deals, deals ahead / behind, sign and Wilcoxon tests. Copies of an agent count as one."""
    frame = games.assign(agent=games["agent"].map(family))
    frame = frame[frame["agent"].isin([first, second])]
    rows = stats.paired_by_deal(frame, column=column, seed=seed)
    if not rows:
        return {**stats.paired_difference([], seed=seed), "a": first, "b": second, "measure": column}
    (row,) = rows
    if row["a"] == first:
        return row
    flipped = {**row, "a": first, "b": second, "mean": -row["mean"], "lo": -row["hi"], "hi": -row["lo"],
               "ahead": row["behind"], "behind": row["ahead"]}
    return flipped


Hooks = dict[str, Callable[..., Any]]


def replay(cell: Cell, game_id: int, probe: Callable[[Game, list[Any]], Hooks] | None = None
           ) -> tuple[GameRecord, list[Any]]:
    """Play scheduled game ``game_id`` of ``cell`` again, here, from its seeds, with the hooks
    ``probe(game, agents)`` returns (``before_act``, ``on_action``); returns the record and the
    seated agents (whose own logs the caller reads). An agent that decides by the clock (a
    search deadline) may play differently than it did in the tournament."""
    t = cell.tournament()
    spec = t.schedule[game_id]
    game = make(cell.game, num_players=cell.players, **dict(cell.config))
    seated = [build_agent(t.setup.agent(label), cell.game) for label in spec.seats]
    hooks = probe(game, seated) if probe is not None else {}
    record = play_game(game, seated, spec.seed, move_time_limit=t.move_time_limit, deal_seed=spec.deal_seed, **hooks)
    return record, seated


def guarded(main: Callable[[], int], prog: str) -> int:
    """Run a benchmark's ``main``: a library error (an unknown agent, a results directory of
    another experiment, no Ray cluster at the address) is one line and exit 2."""
    try:
        return main()
    except DeduceError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2


def agent(token: str) -> AgentSpec:
    """An agent token of the command line (``NAME[:KEY=VALUE,...]``) as a spec labelled by the
    whole token (``infogain:leak_weight=1`` is ``infogain_leak_weight_1``), so two settings of
    one agent stay two entries of a table."""
    from deduce.apps.tournament import parse_agent

    spec = parse_agent(token)
    return AgentSpec(spec.name, spec.params, safe_name(token) if spec.params else spec.label)


def rounds_for(cell: Cell, seats: int) -> int:
    """How many games of ``cell`` give every agent (copies counted as one) at least ``seats``
    seats: whole rounds of its schedule."""
    schedule = cell.tournament().schedule
    held: dict[str, int] = {}
    for i in range(schedule.round_size):
        for label in schedule[i].seats:
            held[family(label)] = held.get(family(label), 0) + 1
    per_round = min(held.values())
    return max(1, -(-seats // per_round)) * schedule.round_size


def matchup_cells(game: str, matchups: Sequence[tuple[str, Sequence[str]]], players_list: Sequence[int], seats: int,
                  seed: int, config: Mapping[str, Any] | None = None, name: str = "{tag}-{players}p") -> list[Cell]:
    """One table per (tag, agent tokens) matchup and player count, whole rounds giving every
    agent at least ``seats`` seats; the tables of one player count share their deals (their seed
    comes from the root's and the player count alone), so matchups compare on the same deals."""
    out = []
    for tag, names in matchups:
        for players in players_list:
            cell = Cell.create(name.format(tag=tag, players=players), game, [agent(n) for n in names], players, 0,
                               derive_seed(seed, 7, players), config)
            out.append(dataclasses.replace(cell, games=rounds_for(cell, seats)))
    return out


def spec_text(spec: AgentSpec) -> str:
    """An agent spec as its command-line token (``lookahead:gamble=False``), for tables."""
    return spec.name if not spec.params else spec.name + ":" + ",".join(f"{k}={v}" for k, v in spec.params)


def replay_differs(games: pd.DataFrame, game_id: int, winners: Sequence[int]) -> bool:
    """Whether a replayed game's winners differ from game ``game_id``'s in the tournament table."""
    won = games[(games["game_id"] == game_id) & games["win"]]["seat"].tolist()
    return sorted(won) != sorted(winners)


def run_probed(cells: Sequence[Cell], options: RunOptions, probe: Callable[[Cell, int], dict[str, Any]],
               probe_games: int, progress: Callable[[str], Any] | None = None
               ) -> tuple[dict[str, pd.DataFrame], dict[str, list[dict[str, Any]]]]:
    """:func:`run_cells`, then ``probe(cell, game_id)`` on the first ``probe_games`` games of
    each table, here: the tables and, per table, the probes."""
    tables = run_cells(cells, options, progress)
    return tables, {c.name: [probe(c, g) for g in range(min(probe_games, c.games))] for c in cells}
