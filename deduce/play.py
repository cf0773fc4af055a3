"""Playing one game between agents: the loop every tournament backend runs.

Agents are duck-typed (``reset``, ``act``, optional ``observe``) so the core never imports the
``agents`` package. An agent that raises or returns an illegal action forfeits: the game stops,
the failure is recorded with its traceback, and the caller decides what to do with it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import Action, Game, Observation

__all__ = ["play_game", "GameRecord", "Failure", "PlayerLike", "seeds_for", "hard_limit"]


class PlayerLike(Protocol):
    name: str

    def reset(self, game: Game, player: int, seed: Any = None) -> None: ...

    def act(self, observation: Observation) -> Action: ...


@dataclass(frozen=True)
class Failure:
    """An agent that crashed, timed out or broke the rules, and the game it forfeited."""

    seat: int
    agent: str
    kind: str  # "exception" | "illegal" | "timeout"
    message: str
    traceback: str = ""


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game: who sat where, the scores, and what went wrong, if anything."""

    seed: int
    agents: tuple[str, ...]
    returns: tuple[float, ...]
    winners: tuple[int, ...]
    moves: int
    turns: int
    decision_seconds: tuple[float, ...]
    decisions: tuple[int, ...]
    failure: Failure | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def seeds_for(seed: int, count: int) -> list[int]:
    """``count`` independent 63-bit seeds derived from ``seed`` (deal + one per seat)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64) >> 1]


class _MoveInterrupted(BaseException):
    """Raised inside a hung agent's move; a BaseException so ``except Exception`` cannot eat it."""


def hard_limit(move_time_limit: float) -> float:
    """When a move that overran ``move_time_limit`` is interrupted rather than waited for."""
    return 2.0 * move_time_limit + 1.0


@contextlib.contextmanager
def _interrupt_after(seconds: float | None) -> Iterator[None]:
    """Interrupt a move that hangs (SIGALRM), so one stuck agent cannot stall a tournament.

    Only possible on the main thread of a POSIX process; elsewhere the move is simply timed.
    """
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def _raise(signum: int, frame: object) -> None:
        raise _MoveInterrupted

    previous = signal.signal(signal.SIGALRM, _raise)
    start = time.monotonic()
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if old_delay > 0:  # give back a timer the caller had armed, minus the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - start), 1e-3), old_interval)


def play_game(
    game: Game,
    agents: Sequence[PlayerLike],
    seed: int,
    move_time_limit: float | None = None,
    max_moves: int = 1_000_000,
    deal_seed: int | None = None,
) -> GameRecord:
    """Play one game; ``agents[i]`` sits in seat ``i``. Deterministic for a given ``seed``.

    A crash, an illegal action, or (with ``move_time_limit``) a move slower than the limit
    forfeits: the offender scores the minimum, everyone else keeps playing no further, and
    the record carries the failure. The time limit is checked after the move returns; a move
    still running after :func:`hard_limit` seconds is interrupted (main thread, POSIX only).
    ``deal_seed`` overrides the deal alone, so duplicate deals can replay one deal with the
    agents swapped while each seat's own random stream still comes from ``seed``.
    """
    n = game.num_players
    if len(agents) != n:
        raise InvalidConfig("agents", len(agents), f"{game.name} with {n} players needs {n} agents, got {len(agents)}")
    own_deal_seed, *agent_seeds = seeds_for(seed, n + 1)
    if deal_seed is None:
        deal_seed = own_deal_seed
    interrupt_at = None if move_time_limit is None else hard_limit(move_time_limit)
    state = game.new_initial_state(deal_seed)
    names = tuple(getattr(a, "name", type(a).__name__) for a in agents)
    spent = [0.0] * n
    counts = [0] * n
    failure: Failure | None = None
    for i, agent in enumerate(agents):
        try:
            agent.reset(game, i, agent_seeds[i])
        except Exception as exc:  # a broken agent forfeits before the first move
            failure = Failure(i, names[i], "exception", f"{type(exc).__name__}: {exc}", traceback.format_exc())
            break
    moves = 0
    while failure is None and not state.is_terminal() and moves < max_moves:
        seat = state.current_player
        obs = state.observation(seat)
        start = time.perf_counter()
        try:
            with _interrupt_after(interrupt_at):
                action = agents[seat].act(obs)
        except _MoveInterrupted:
            elapsed = time.perf_counter() - start
            spent[seat] += elapsed
            counts[seat] += 1
            failure = Failure(
                seat, names[seat], "timeout",
                f"move interrupted after {elapsed:.3f}s > {move_time_limit}s", traceback.format_exc(),
            )
            break
        except Exception as exc:  # an agent's bug must not end the tournament
            failure = Failure(seat, names[seat], "exception", f"{type(exc).__name__}: {exc}", traceback.format_exc())
            break
        elapsed = time.perf_counter() - start
        spent[seat] += elapsed
        counts[seat] += 1
        if move_time_limit is not None and elapsed > move_time_limit:
            failure = Failure(seat, names[seat], "timeout", f"move took {elapsed:.3f}s > {move_time_limit}s")
            break
        try:
            state.apply(action)
        except IllegalAction as exc:
            failure = Failure(seat, names[seat], "illegal", str(exc))
            break
        moves += 1
        for other, agent in enumerate(agents):
            if other != seat and _wants_observe(agent):
                agent.observe(state.observation(other))
    if failure is not None:
        returns = [0.0] * n
        returns[failure.seat] = -1.0
        winners: tuple[int, ...] = ()
    else:
        returns = list(state.returns())
        winners = tuple(state.winners()) if state.is_terminal() else ()
    return GameRecord(
        seed=seed,
        agents=names,
        returns=tuple(float(r) for r in returns),
        winners=winners,
        moves=moves,
        turns=int(getattr(state, "turns", moves)),
        decision_seconds=tuple(spent),
        decisions=tuple(counts),
        failure=failure,
    )


def _wants_observe(agent: object) -> bool:
    """Skip the per-move observation for agents that do not override ``observe`` (it is costly)."""
    method = getattr(type(agent), "observe", None)
    return method is not None and getattr(method, "__qualname__", "").split(".")[0] != "Agent"
