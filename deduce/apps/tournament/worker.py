"""Playing one scheduled game inside any worker, from plain data.

A worker (this process, a pool process or a Ray task) receives a :class:`Setup` and a
:class:`~deduce.apps.tournament.schedule.GameSpec`, rebuilds the game and the agents by name, plays,
and returns one tidy row per seat. Agents are looked up by name in
the ``agents`` registry.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agents as agent_registry
from deduce.apps.tournament.schedule import AgentSpec, GameSpec
from deduce.errors import DeduceError, NotSupported, UnknownName
from deduce.games import Game, make
from deduce.play import Failure, GameRecord, GameRun, RandomPlayer, play_game

__all__ = [
    "Setup", "play_scheduled", "play_chunk", "crash_rows", "record_rows", "build_agent", "check_agent",
    "fingerprint", "warm", "COLUMNS", "TIMING_COLUMNS",
]

#: The results table, one row per (game, seat), in this column order.
COLUMNS: tuple[str, ...] = (
    "run_id", "game", "game_id", "round", "deal", "seat", "agent", "agent_name", "players",
    "score", "rank", "win", "forfeit", "failure",
    "moves", "turns", "decisions", "decision_seconds", "wall_seconds",
    "seed", "deal_seed", "failure_message", "failure_traceback",
)
#: Columns measured in wall-clock time: the only ones that differ between two runs of a seed.
TIMING_COLUMNS: tuple[str, ...] = ("decision_seconds", "wall_seconds")


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


@dataclass(frozen=True)
class Setup:
    """What every game of a tournament shares; small and picklable, sent to each worker."""

    game: str
    config: tuple[tuple[str, Any], ...]  # game config fields, num_players included
    agents: tuple[AgentSpec, ...]
    move_time_limit: float | None = None
    #: the tournament's identifier (see :func:`~deduce.apps.tournament.store.run_id`), on every row
    run_id: str = ""

    @classmethod
    def create(
        cls, game: str, config: dict[str, Any], agents: tuple[AgentSpec, ...], move_time_limit: float | None,
        run_id: str = "",
    ) -> Setup:
        items = tuple(sorted((k, _hashable(v)) for k, v in config.items()))
        return cls(game, items, agents, move_time_limit, run_id)

    def agent(self, label: str) -> AgentSpec:
        for spec in self.agents:
            if spec.label == label:
                return spec
        raise UnknownName(f"no agent labelled {label!r} in this tournament")


@functools.lru_cache(maxsize=8)
def _game(name: str, config: tuple[tuple[str, Any], ...]) -> Game:
    """Games are immutable rules, so a worker builds each configuration once."""
    return make(name, **dict(config))


def load_extension_agents(names: Iterable[str]) -> None:
    """Register the application agents ``names`` ask for (``openspiel-*`` are the OpenSpiel
    adapter's), in this process: the CLI before it checks the agents, each worker before it
    builds one. Registration is idempotent; without the optional extra it is one line."""
    if any(n.startswith("openspiel-") for n in names):
        try:
            from deduce.apps.openspiel import register_agents
        except ImportError as exc:
            raise NotSupported(f"agents named openspiel-* need the 'openspiel' extra ({exc})") from None
        register_agents()


def build_agent(spec: AgentSpec, game: str, in_worker: bool = False) -> Any:
    """A fresh agent from its spec (fresh per game, so results never depend on game order)."""
    load_extension_agents([spec.name])
    try:
        return agent_registry.get(spec.name, game=game, **spec.kwargs)
    except UnknownName as exc:
        if not in_worker:
            raise
        raise UnknownName(
            f"{exc} (agents registered at run time exist only in the process that registered "
            "them: register them in an importable module or use the serial backend)"
        ) from None
    except TypeError as exc:
        raise DeduceError(f"agent {spec.label!r}: bad parameters {spec.kwargs}: {exc}") from None


#: a check gives up looking for an agent's first decision after this many actions
CHECK_MOVES = 500


def check_agent(spec: AgentSpec, name: str, game: Game, deal_seed: int, move_time_limit: float | None = None) -> None:
    """Seat a fresh ``spec`` in seat 0 (random players elsewhere) and play up to its first
    decision: an error there (an unknown solver, a parameter out of range, a game the agent
    cannot play) is raised as one line naming the agent, before any game of the run. A slow
    decision is no error here (the games judge speed); a hung one is cut at the hard limit."""
    agent = build_agent(spec, name)
    others = RandomPlayer(0)
    run = GameRun(game, [agent, *[others] * (game.num_players - 1)], 0, move_time_limit, deal_seed=deal_seed,
                  max_moves=CHECK_MOVES, errors="raise")
    try:
        for step in run:
            if step.seat == 0:
                break
    except DeduceError as exc:
        raise DeduceError(f"agent {spec.label!r}: {exc}") from None
    except Exception as exc:
        raise DeduceError(f"agent {spec.label!r} failed its first decision: {type(exc).__name__}: {exc}") from None
    if run.failure is not None and run.failure.kind != "timeout":  # a Forfeit raised on purpose
        raise DeduceError(f"agent {spec.label!r} forfeited its first decision: {run.failure.message}")


def warm(setup: Setup) -> None:
    """Play each agent's first decision once, to load what it uses (its modules, compiled
    kernels, solver caches): a pool worker started ahead of the run does this while the parent
    checks the agents, instead of on its first game. Nothing is reported from here: a failure
    is the games' to record, where it is charged to its seat."""
    game = _game(setup.game, setup.config)
    for spec in setup.agents:
        try:
            check_agent(spec, setup.game, game, 0, setup.move_time_limit)
        except BaseException:  # noqa: BLE001 - the games report it; an agent may raise anything
            pass


def play_scheduled(setup: Setup, spec: GameSpec) -> list[dict[str, Any]]:
    """Play game ``spec`` and return its rows (one per seat)."""
    game = _game(setup.game, setup.config)
    agents = [build_agent(setup.agent(label), setup.game, in_worker=True) for label in spec.seats]
    start = time.perf_counter()
    record = play_game(game, agents, spec.seed, move_time_limit=setup.move_time_limit, deal_seed=spec.deal_seed)
    wall = time.perf_counter() - start
    return record_rows(setup, spec, record, wall)


#: a worker's agents, built once per (tournament, label, copy) and reset by every game
_AGENTS: dict[tuple[str, str, int], Any] = {}


def _seated(setup: Setup, spec: GameSpec) -> list[Any]:
    """The agents of ``spec``'s seats, built on first use in this worker and reused after: each
    game resets them (:class:`~deduce.play.GameRun`), so reuse saves the build (a solver, an
    OR-Tools model) without changing a result. A label seated twice gets two instances."""
    if len(_AGENTS) > 64:  # a long-lived worker serving many tournaments
        _AGENTS.clear()
    out = []
    for seat, label in enumerate(spec.seats):
        key = (setup.run_id or repr(setup), label, spec.seats[:seat].count(label))
        agent = _AGENTS.get(key)
        if agent is None:
            agent = _AGENTS[key] = build_agent(setup.agent(label), setup.game, in_worker=True)
        out.append(agent)
    return out


@dataclass(frozen=True)
class ChunkResult:
    """What one worker task sends back: each game's rows, and where and with what code it ran."""

    rows: list[list[dict[str, Any]]]
    node: str
    fingerprint: str


def play_chunk(setup: Setup, specs: Sequence[GameSpec], trace: str | None = None, node: str = "") -> ChunkResult:
    """Play several games in one task (one round trip, agents built once per worker).

    With ``trace`` (a directory), the worker notes in ``trace/<pid>`` the game and seat about to
    move before every decision, so if an agent takes the process down (``os._exit``) the parent
    can charge that game to that seat instead of losing the run."""
    game = _game(setup.game, setup.config)
    out = []
    fd = None
    if trace is not None:
        fd = os.open(Path(trace) / str(os.getpid()), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for spec in specs:
            before_act = None
            if fd is not None:
                before_act = _tracer(fd, spec.game_id)
                _note(fd, f"{spec.game_id} -1 0")
            agents = _seated(setup, spec)
            start = time.perf_counter()
            record = play_game(game, agents, spec.seed, move_time_limit=setup.move_time_limit,
                               deal_seed=spec.deal_seed, before_act=before_act)
            out.append(record_rows(setup, spec, record, time.perf_counter() - start))
    finally:
        if fd is not None:
            os.close(fd)
    return ChunkResult(out, node, fingerprint())


def _note(fd: int, text: str) -> None:
    os.pwrite(fd, text.encode().ljust(40), 0)


def _tracer(fd: int, game_id: int) -> Any:
    moves = [0]

    def before_act(state: Any, seat: int, obs: Any) -> None:
        _note(fd, f"{game_id} {seat} {moves[0]}")
        moves[0] += 1

    return before_act


def read_trace(path: str | os.PathLike[str]) -> tuple[int, int, int] | None:
    """``(game_id, seat, decisions)`` a worker last noted (seat -1: before the first decision)."""
    try:
        game_id, seat, moves = Path(path).read_text().split()
        return int(game_id), int(seat), int(moves)
    except (OSError, ValueError):
        return None


def crash_rows(setup: Setup, spec: GameSpec, seat: int, message: str) -> list[dict[str, Any]]:
    """The rows of a game whose worker process died while ``seat`` was moving (an agent calling
    ``os._exit``, a segfault in an extension): that seat forfeits, as for any other failure
    (seat -1, the process died outside any move, charges seat 0's agent)."""
    seat = max(seat, 0)
    failure = Failure(seat, setup.agent(spec.seats[seat]).name, "crash", message)
    n = len(spec.seats)
    returns = [0.0] * n
    returns[seat] = -1.0
    record = GameRecord(seed=spec.seed, agents=tuple(spec.seats), returns=tuple(returns), winners=(), moves=0,
                        turns=0, decision_seconds=(0.0,) * n, decisions=(0,) * n, failure=failure)
    return record_rows(setup, spec, record, 0.0)


@functools.cache
def fingerprint() -> str:
    """This deduce: its version and a hash of its source files. Every node of a Ray cluster
    must give the same, or a game could be played by other rules than the driver's."""
    from deduce import __version__

    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def record_rows(setup: Setup, spec: GameSpec, record: GameRecord, wall: float) -> list[dict[str, Any]]:
    """The tidy rows of one finished game."""
    failure = record.failure
    rows = []
    for seat, label in enumerate(spec.seats):
        score = record.returns[seat]
        own = failure is not None and failure.seat == seat
        rows.append({
            "run_id": setup.run_id,
            "game": setup.game,
            "game_id": spec.game_id,
            "round": spec.round,
            "deal": spec.deal,
            "seat": seat,
            "agent": label,
            "agent_name": setup.agent(label).name,
            "players": len(spec.seats),
            "score": float(score),
            "rank": 1 + sum(1 for other in record.returns if other > score),
            "win": seat in record.winners,
            "forfeit": own,
            "failure": failure.kind if failure is not None else "",
            "moves": record.moves,
            "turns": record.turns,
            "decisions": record.decisions[seat],
            "decision_seconds": float(record.decision_seconds[seat]),
            "wall_seconds": float(wall),
            "seed": spec.seed,
            "deal_seed": spec.deal_seed,
            "failure_message": failure.message if own and failure is not None else "",
            "failure_traceback": failure.traceback if own and failure is not None else "",
        })
    return rows
