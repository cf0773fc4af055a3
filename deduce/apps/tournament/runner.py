"""``Tournament``: a schedule, a backend and a results directory put together.

``Tournament("clue", ["deductive", "notebook", "random"], games=60, seed=1).run()`` plays the
games (resuming whatever its results directory already holds) and returns
:class:`~deduce.apps.tournament.results.TournamentResults`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deduce.apps.tournament.backends import (
    BackendName,
    WarmPool,
    default_workers,
    resolve_backend,
    run_games,
)
from deduce.apps.tournament.results import TournamentResults
from deduce.apps.tournament.schedule import AgentSpec, Arrangement, GameSpec, Schedule, labelled
from deduce.apps.tournament.store import (
    IDENTITY_KEYS,
    ResultStore,
    _has_pyarrow,
    require_pandas,
    rows_to_frame,
    run_id,
)
from deduce.apps.tournament.worker import Setup, build_agent, check_agent
from deduce.errors import DeduceError, InvalidConfig
from deduce.games import game_class, make
from deduce.play import GameRecord, play_game

__all__ = [
    "Tournament", "AgentLike", "AllForfeited", "Interrupted", "IDENTITY_KEYS", "DEFAULT_MOVE_TIME_LIMIT",
    "check_move_time_limit",
]

#: The move time limit when none is given: a safety net, not a rule of play. It is generous so
#: that no sane move on a loaded machine comes near it (results do not depend on load), and it
#: exists so that one hung agent forfeits its game instead of stalling the run forever: a move
#: slower than this forfeits, and a move still running at ``hard_limit`` (2 x + 1 s) is
#: interrupted. Pass ``move_time_limit=None`` for no limit at all.
DEFAULT_MOVE_TIME_LIMIT = 60.0


def check_move_time_limit(seconds: Any, where: str = "move_time_limit") -> float:
    """``seconds`` as a move time limit: a positive, finite number (NaN, infinity, zero and
    negative numbers are refused: a limit that can never trip protects nothing)."""
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise InvalidConfig(where, seconds, "expected a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise InvalidConfig(where, seconds, "a move time limit is a positive, finite number of seconds")
    return value

AgentLike = AgentSpec | str | tuple[str, Mapping[str, Any]] | Mapping[str, Any]


class AllForfeited(DeduceError):
    """Every game an agent played so far forfeited for the same reason: the run stops."""


class Interrupted(DeduceError):
    """The run was interrupted (Ctrl-C); every finished game is saved and a rerun resumes."""

    def __init__(self, message: str, recorded: int, total: int) -> None:
        super().__init__(message)
        self.recorded, self.total = recorded, total


class Tournament:
    """Agents playing a schedule of games of one game, on a backend, saved to ``out``.

    ``agents`` are names (``"deductive"``), ``"label=name"`` strings, ``(name, params)`` pairs
    or :class:`AgentSpec`. ``players`` defaults to the number of agents, clamped to the game's
    range. ``games`` counts games, not rounds; a multiple of ``schedule.round_size`` seats
    every agent equally. With ``out`` the run is saved as it goes and resumes what is there;
    without it nothing touches the disk. ``progress=None`` shows a bar only on a terminal.

    ``backend`` is ``serial`` (the default here), ``processes`` (``workers`` local processes,
    default all cores), ``ray`` (``address`` of a cluster, default a local one) or ``auto``
    (serial, switching to processes when the rest of the run looks long; the command line's
    default). Process and Ray workers rebuild agents by registered name, so agents registered
    at run time need the serial backend, and a script starting them needs the
    ``if __name__ == "__main__":`` guard. Every backend gives the same table for a seed.

    ``move_time_limit`` (seconds, default :data:`DEFAULT_MOVE_TIME_LIMIT`): a slower move
    forfeits its game, and one still running at twice the limit plus a second is interrupted
    (on the serial backend and in each worker process, by ``SIGALRM`` on the main thread); an
    agent's crash, ``sys.exit``, own ``KeyboardInterrupt`` or unusable action forfeits too, and
    only a real Ctrl-C stops the run (which then resumes).

    Agent parameters may be text (``"infogain:gamble=false"``, from a command line): they are
    typed by the agent's constructor, and an unknown one is refused here. ``fmt`` is the rows'
    file format, ``"parquet"`` (default with pyarrow) or ``"csv"``. Before the first game,
    :meth:`run` plays each agent's first decision once (:meth:`check_agents`).
    """

    def __init__(
        self,
        game: str,
        agents: Sequence[AgentLike],
        games: int = 60,
        seed: int = 0,
        *,
        players: int | None = None,
        config: Mapping[str, Any] | None = None,
        arrangement: Arrangement | str = Arrangement.ROTATE,
        duplicate: bool = True,
        move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
        backend: BackendName | str = BackendName.SERIAL,
        workers: int | None = None,
        address: str | None = None,
        out: str | os.PathLike[str] | None = None,
        progress: bool | None = None,
        fmt: str | None = None,
    ) -> None:
        require_pandas()
        if games < 0:
            raise DeduceError(f"games must be at least 0, not {games}")
        if move_time_limit is not None:
            move_time_limit = check_move_time_limit(move_time_limit)
        self.game = game
        cls = game_class(game)
        self.specs = tuple(_typed(s, game) for s in labelled([AgentSpec.coerce(a) for a in agents]))
        config = dict(config or {})
        if "num_players" in config:
            if players is not None and players != config["num_players"]:
                raise DeduceError("give the number of players once (players or config num_players)")
            players = int(config.pop("num_players"))
        if players is None:
            players = min(max(len(self.specs), cls.min_players), cls.max_players)
        if not cls.min_players <= players <= cls.max_players:
            raise DeduceError(f"{game} is for {cls.min_players} to {cls.max_players} players, not {players}")
        self.players = players
        self.config = config
        try:
            make(game, num_players=players, **config)
        except (ValueError, TypeError) as exc:
            raise DeduceError(f"{game}: bad configuration: {exc}") from None
        for spec in self.specs:  # fail here, not in a worker, on an unknown agent or parameter
            build_agent(spec, game)
        self.games = games
        self.fmt = fmt
        self.seed = int(seed)
        self.schedule = Schedule(tuple(s.label for s in self.specs), players, self.seed, Arrangement(arrangement), duplicate)
        self.move_time_limit = move_time_limit
        self.workers = workers or default_workers()
        self.backend = resolve_backend(backend)
        self.address = address
        #: seconds the ray backend waits for a cluster (None: backends.CONNECT_TIMEOUT)
        self.connect_timeout: float | None = None
        self.out = Path(out) if out is not None else None
        self.progress = progress
        self.setup = Setup.create(game, {**config, "num_players": players}, self.specs, move_time_limit,
                                  run_id=self.run_id())
        self._checked = False

    # -- identity --------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        """What determines the games played (JSON types); equal identities give equal tables."""
        ident = {
            "game": self.game,
            "config": self.config,
            "players": self.players,
            "agents": [s.to_json() for s in self.specs],
            "seed": self.seed,
            "arrangement": str(self.schedule.arrangement),
            "duplicate": self.schedule.duplicate,
            "move_time_limit": self.move_time_limit,
        }
        return json.loads(json.dumps(ident, default=_json_default))

    def run_id(self) -> str:
        """This tournament's identifier, on every row: a hash of :meth:`identity`."""
        return run_id(self.identity())

    def default_out(self, root: str | os.PathLike[str] = "results") -> Path:
        """``results/<game>-seed<seed>-<run id>``: the same command always finds its own results
        (so rerunning it resumes), and a different tournament never mixes with them."""
        return Path(root) / f"{self.game}-seed{self.seed}-{self.run_id()}"

    def seating(self) -> dict[str, Any]:
        """Who sits where: the seat orders of one round, and how many seats of each game every
        agent holds (more than one when there are fewer agents than seats)."""
        blocks = [list(self.schedule[i].seats) for i in range(self.schedule.round_size)]
        per_game = {s.label: max(b.count(s.label) for b in blocks) for s in self.specs}
        return {"players": self.players, "round_size": self.schedule.round_size, "round": blocks,
                "seats_per_game": per_game}

    def check_agents(self) -> None:
        """Play each agent's first decision once, here, before any game of the run: a bad name,
        parameter or value (``deductive:solver=foo``) is one error now, not a forfeited game
        in every worker."""
        if self._checked:
            return
        game = make(self.game, num_players=self.players, **self.config)
        for spec in self.specs:
            try:
                check_agent(spec, self.game, game, self.schedule[0].deal_seed, self.move_time_limit)
            except DeduceError:
                raise
            except Exception as exc:  # raised by the agent's reset, before its first decision
                raise DeduceError(f"agent {spec.label!r} failed before its first decision: "
                                  f"{type(exc).__name__}: {exc}") from None
        self._checked = True

    # -- playing ---------------------------------------------------------------------------
    def game_specs(self) -> list[GameSpec]:
        return self.schedule.games(self.games)

    def replay(self, game_id: int) -> GameRecord:
        """Play game ``game_id`` alone, here: the same result it had in the tournament."""
        spec = self.schedule[game_id]
        game = make(self.game, num_players=self.players, **self.config)
        agents = [build_agent(self.setup.agent(label), self.game) for label in spec.seats]
        return play_game(game, agents, spec.seed, move_time_limit=self.move_time_limit, deal_seed=spec.deal_seed)

    def run(self) -> TournamentResults:
        """Play every game not yet in ``out`` and return all the results.

        Raises :class:`AllForfeited` when every seat an agent played in its first round
        forfeited for the same reason, and :class:`Interrupted` on Ctrl-C; either way every
        finished game is kept and ``tournament.json`` says how the run ended."""
        specs = self.game_specs()
        store = ResultStore(self.out, self.fmt) if self.out is not None else None
        existing = store.read_config() if store is not None else None
        finished = (existing is not None and existing.get("status") == "complete"
                    and int(existing.get("games_recorded", 0)) >= self.games)
        pool = None
        if specs and not finished:  # before the directory is touched
            if self.backend is BackendName.PROCESSES:  # workers start up while the agents are checked
                pool = WarmPool(self.setup, min(self.workers, len(specs)))
            try:
                self.check_agents()
            except BaseException:
                if pool is not None:
                    pool.close()
                raise
        try:
            with store.lock() if store is not None else nullcontext():
                done = self._prepare(store) if store is not None else set()
                todo = [s for s in specs if s.game_id not in done]
                recorded = len(done)
                backend = self.backend
                rows: list[dict[str, Any]] = []
                played = 0
                watch = _ForfeitWatch(self.schedule, [s.label for s in self.specs], len(specs))
                status = "complete"
                try:
                    games = run_games(backend, self.setup, todo, self.workers, self.address, self.connect_timeout, pool)
                    pool = None  # run_games owns it now
                    for game_rows in self._progress(games,
                                                    total=len(specs), initial=len(specs) - len(todo)):
                        played += 1
                        if store is not None:
                            store.append(game_rows)
                        else:
                            rows.extend(game_rows)
                        stop = watch.add(game_rows)
                        if stop:
                            status = "stopped"
                            raise AllForfeited(stop)
                except KeyboardInterrupt:
                    status = "interrupted"
                    raise Interrupted(
                        f"interrupted after {played} new games; {recorded + played} of {len(specs)} recorded",
                        recorded + played, len(specs),
                    ) from None
                except BaseException:
                    status = "stopped" if status == "stopped" else "failed"
                    raise
                finally:
                    if store is not None:
                        store.flush()  # an interrupted run keeps every finished game
                        if status != "complete":
                            self._finish(store, backend, status, compact=False)
                if store is None:
                    config = self._config(backend, "complete", games_recorded=played)
                    return TournamentResults(rows_to_frame(rows), config, None, played)
                frame = self._finish(store, backend, "complete", compact=True)
        finally:
            if pool is not None:  # the run stopped before run_games took the workers
                pool.close()
        frame = frame[frame["game_id"] < self.games].reset_index(drop=True)
        results = TournamentResults(frame, store.read_config() or {}, self.out, played)
        if played or not (self.out / "summary.json").exists():
            results.write_summary()
        return results

    def _finish(self, store: ResultStore, backend: Any, status: str, compact: bool) -> Any:
        """Write the final ``tournament.json``: how the run ended and what the directory holds."""
        frame = store.compact() if compact else store.load()
        recorded = int(frame["game_id"].nunique())
        store.write_config(self._config(backend, status, games_recorded=recorded))
        return frame

    def _prepare(self, store: ResultStore) -> set[int]:
        """Check the directory holds this tournament (or nothing) and list the games it has."""
        existing = store.read_config()
        if existing is not None:
            mine = self.identity()
            differ = [k for k in IDENTITY_KEYS if existing.get(k) != mine[k]]
            if differ:
                raise DeduceError(
                    f"{store.path} holds a different tournament ({', '.join(differ)} differ); "
                    "choose another --out directory"
                )
        done = store.done_ids()
        if existing is None and done:  # no readable configuration: the rows say whose they are
            theirs = set(store.load()["run_id"]) - {"", self.run_id()}
            if theirs:
                raise DeduceError(
                    f"{store.path} holds rows of another tournament (run {', '.join(sorted(theirs))}); "
                    "choose another --out directory"
                )
        store.write_config(self._config(self.backend, "running", games_recorded=len(done)))
        return done

    def _config(self, backend: Any, status: str, games_recorded: int | None = None) -> dict[str, Any]:
        """``tournament.json``: ``games`` is how many games the directory's schedule runs to (this
        run's request, or more when an earlier run recorded more, so a shorter rerun does not
        make it lie), ``games_requested`` what this run asked for."""
        from deduce import __version__

        config = self.identity()
        config.update({
            "run_id": self.run_id(),
            "games": max(self.games, games_recorded or 0),
            "games_requested": self.games,
            "round_size": self.schedule.round_size,
            "seating": self.seating(),
            "backend": str(backend),
            "workers": self.workers,
            "status": status,
            "deduce_version": __version__,
            "python": platform.python_version(),
            "versions": versions(),
            "format": self.fmt or ("parquet" if _has_pyarrow() else "csv"),
            "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        })
        if games_recorded is not None:
            config["games_recorded"] = games_recorded
        return config

    def _progress(self, items: Iterator[Any], total: int, initial: int) -> Iterator[Any]:
        show = self.progress if self.progress is not None else sys.stderr.isatty()
        if not show:
            return items
        try:
            from tqdm import tqdm
        except ImportError:
            return items
        return iter(tqdm(items, total=total, initial=initial, unit="game", desc=self.game, file=sys.stderr))


class _ForfeitWatch:
    """Notices an agent every seat of whose first round forfeited, all for one reason."""

    def __init__(self, schedule: Schedule, labels: list[str], total: int) -> None:
        first = [schedule[i] for i in range(min(schedule.round_size, total))]
        self.need = {lb: sum(g.seats.count(lb) for g in first) for lb in labels}
        #: per agent, its forfeits so far; None once it finished a seat without forfeiting
        self.seen: dict[str, list[dict[str, Any]] | None] = {lb: [] for lb in labels}

    def add(self, rows: list[dict[str, Any]]) -> str | None:
        """Record one game's rows; the reason to stop the run, if there is one now."""
        for row in rows:
            forfeits = self.seen.get(row["agent"])
            if forfeits is not None:
                if row["forfeit"]:
                    forfeits.append(row)
                else:
                    self.seen[row["agent"]] = None
        for label, forfeits in self.seen.items():
            if not forfeits or len(forfeits) < self.need.get(label, 0):
                continue
            if len({(r["failure"], _shape(r["failure_message"])) for r in forfeits}) == 1:
                first = min(forfeits, key=lambda r: (r["game_id"], r["seat"]))
                return (f"every game of agent {label!r} forfeited ({len(forfeits)} of {len(forfeits)} seats so far) "
                        f"for one reason: {first['failure']}: {first['failure_message']} "
                        f"(first in game {first['game_id']}, seat {first['seat']}); run stopped")
        return None


def _shape(message: str) -> str:
    """A failure message with its numbers masked: two timeouts of 1.2 s and 1.3 s are one reason."""
    return re.sub(r"\d+(\.\d+)?", "#", message)


def versions() -> dict[str, str]:
    """The versions of what made the numbers: deduce, Python and the libraries behind them."""
    from importlib.metadata import PackageNotFoundError, version

    from deduce import __version__

    out = {"deduce": __version__, "python": platform.python_version()}
    for name in ("numpy", "pandas", "pyarrow", "scipy", "openskill", "ortools"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def _typed(spec: AgentSpec, game: str) -> AgentSpec:
    """``spec`` with its parameters typed by the agent's constructor (text from a command line
    becomes ``False``, ``0.3``...); an unknown parameter or a value that does not fit is refused."""
    if not spec.params:
        return spec
    from deduce.cli.options import type_agent_params

    typed = type_agent_params(spec.name, game, spec.kwargs, spec.label)
    return AgentSpec(spec.name, tuple(typed.items()), spec.label)


def _json_default(value: Any) -> Any:
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)
