"""Playing one game between agents: the one game loop every tournament backend, the audit, the
Speed Clue referee and the benchmarks run.

Agents are duck-typed (``reset``, ``act``, optional ``observe``) so the core never imports the
``agents`` package. An agent that raises or returns an illegal action forfeits: the game stops,
the failure is recorded with its traceback, and the caller decides what to do with it.

:func:`play_game` plays a game and returns its :class:`GameRecord`. It is built on
:class:`GameRun`, which plays the same loop one action at a time and yields a :class:`Step`
after each, for callers that watch a game as it goes (checks after every action, timings of
each knowledge update) or stop it early; both take the same hooks (``until``, ``before_act``,
``on_action``). A seat whose actions come from elsewhere (a remote client, a person) is a
player whose ``act`` asks there; it raises :class:`Forfeit` to forfeit a seat for a broken
rule. :class:`RandomPlayer` plays random legal actions from one seeded generator and
:class:`ScriptedPlayer` replays given actions.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

import numpy as np

from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import Action, Event, Game, LegalActions, Observation, State, sample_action

__all__ = [
    "play_game",
    "GameRun",
    "Step",
    "GameRecord",
    "Failure",
    "Forfeit",
    "PlayerLike",
    "RandomPlayer",
    "ScriptedPlayer",
    "seeds_for",
    "hard_limit",
    "AgentExit",
]


class PlayerLike(Protocol):
    """What the loop plays with: ``reset`` before the game, ``act`` at each decision, and
    optionally ``observe`` on other players' turns. A player whose actions come from elsewhere
    (a remote client) may set ``needs_observation = False``: its ``act`` is then passed ``None``
    instead of an observation nobody reads."""

    name: str

    def reset(self, game: Game, player: int, seed: Any = None) -> None: ...

    def act(self, observation: Observation) -> Action: ...


@dataclass(frozen=True)
class Failure:
    """An agent that crashed, timed out or broke the rules, and the game it forfeited."""

    seat: int
    agent: str
    kind: str  # "exception" | "illegal" | "timeout" | a Forfeit's kind
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


@dataclass(frozen=True)
class Step:
    """One action of a game in progress, as :class:`GameRun` yields it (and ``on_action`` gets it)."""

    #: the game's live state just after the action (it moves on as the game goes on)
    state: State
    #: the seat that acted
    seat: int
    #: what that seat saw when it chose (``None`` if its player declines observations)
    observation: Observation | None
    action: Action
    #: the events the action caused
    events: tuple[Event, ...]
    #: how long the seat took to choose
    seconds: float
    #: actions applied so far, this one included
    moves: int


class Forfeit(Exception):
    """Raised by a player (in ``reset`` or ``act``) or by a hook to forfeit a seat on purpose.

    ``kind`` names the failure (a referee's rule, say) and ``seat`` the seat that forfeits
    (``None``: the seat being reset or asked to act, or the one that just acted). The game
    stops with that :class:`Failure` whatever ``errors`` says: a forfeit is an outcome, not a bug.
    """

    def __init__(self, kind: str, message: str, seat: int | None = None, traceback: str = "") -> None:
        super().__init__(message)
        self.kind, self.message, self.seat, self.traceback = kind, message, seat, traceback


class RandomPlayer:
    """A uniformly random legal action, every choice from one generator seeded here.

    ``reset`` leaves the generator alone, so one instance seated everywhere
    (``[RandomPlayer(seed)] * n``) draws every seat's action from the same stream in turn
    order, like a hand-written loop over ``legal[int(rng.integers(len(legal)))]``; ``seed`` may
    be a ``numpy`` generator to share. ``exclude``: action types never chosen (``(Accuse,)``:
    play on without accusing). (The ``random`` agent of the ``agents`` package is seeded by the
    game instead: one stream per seat.)
    """

    def __init__(self, seed: Any = None, exclude: Iterable[type] = (), name: str = "random") -> None:
        self.rng = np.random.default_rng(seed)
        self.exclude = tuple(exclude)
        self.name = name

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        """Nothing to do: the generator was seeded when the player was made."""

    def act(self, observation: Observation) -> Action:
        actions: Sequence[Action] = observation.legal_actions
        if self.exclude:
            blocks = tuple(b for b in getattr(actions, "structured", ())
                           if b.size and not isinstance(b.unrank(0), self.exclude))
            actions = LegalActions([a for a in actions if not isinstance(a, self.exclude)], blocks)
        # uniform over every legal action, structured ones too (Alibi's hypothesis questions);
        # on a plain menu the same draw as ``actions[rng.integers(len(actions))]``
        return sample_action(actions, self.rng)


class ScriptedPlayer:
    """Plays ``actions`` in order, whichever seat is to act: a replay through the game loop
    (seat it everywhere, ``[ScriptedPlayer(actions)] * n``, and bound ``max_moves``)."""

    def __init__(self, actions: Iterable[Action], name: str = "script") -> None:
        self._actions = iter(actions)
        self.name = name

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        """Nothing to do: the script is fixed."""

    def act(self, observation: Observation) -> Action:
        try:
            return next(self._actions)
        except StopIteration:
            raise Forfeit("script", "the script has no more actions") from None


def seeds_for(seed: int, count: int) -> list[int]:
    """``count`` independent 63-bit seeds derived from ``seed`` (deal + one per seat)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64) >> 1]


class _MoveInterrupted(BaseException):
    """Raised inside a hung agent's move; a BaseException so ``except Exception`` cannot eat it."""


def hard_limit(move_time_limit: float) -> float:
    """When a move that overran ``move_time_limit`` is interrupted rather than waited for."""
    return 2.0 * move_time_limit + 1.0


#: an agent that swallows the interrupt is interrupted again this often until it gives up
_REINTERRUPT_SECONDS = 1.0


class _CompileClock:
    """Seconds each thread has spent in numba's compiler (a numba event listener, see
    :func:`_compile_clock`): compiling a kernel on its first call is not the agent's thinking,
    and an interrupt landing inside the compiler breaks numba's own state (``SystemError:
    CPUDispatcher(...) returned a result with an exception set``) instead of stopping the move.

    Counts nested events once (a compile inside a compile, the compiler lock inside both)."""

    def __init__(self) -> None:
        #: thread id -> [depth, start of the outermost event, seconds of finished ones]
        self._threads: dict[int, list[float]] = {}

    def on_start(self, event: object) -> None:
        entry = self._threads.setdefault(threading.get_ident(), [0, 0.0, 0.0])
        if entry[0] == 0:
            entry[1] = time.perf_counter()
        entry[0] += 1

    def on_end(self, event: object) -> None:
        entry = self._threads.get(threading.get_ident())
        if entry is None or entry[0] == 0:  # began before the listener was installed
            return
        entry[0] -= 1
        if entry[0] == 0:
            entry[2] += time.perf_counter() - entry[1]

    def notify(self, event: Any) -> None:
        if event.is_start:
            self.on_start(event)
        elif event.is_end:
            self.on_end(event)

    def seconds(self) -> float:
        """This thread's compile seconds so far, the one in progress included."""
        entry = self._threads.get(threading.get_ident())
        if entry is None:
            return 0.0
        return entry[2] + (time.perf_counter() - entry[1] if entry[0] else 0.0)

    def compiling(self) -> bool:
        entry = self._threads.get(threading.get_ident())
        return entry is not None and entry[0] > 0


_clock: _CompileClock | None = None


def _compile_clock() -> _CompileClock | None:
    """The process's compile clock, registered with numba the first time it is asked for after
    numba was imported (by an agent or solver); ``None`` before: play never imports numba."""
    global _clock
    if _clock is None:
        event = sys.modules.get("numba.core.event")
        if event is None:
            return None
        listener = type("_NumbaCompileClock", (_CompileClock, event.Listener), {})()
        # "numba:compile" is a real compile; the compiler lock also covers a kernel loaded
        # from numba's cache and the wait for another thread's compile
        for kind in ("numba:compile", "numba:compiler_lock"):
            event.register(kind, listener)
        _clock = listener
    return _clock


def _compile_seconds() -> float:
    clock = _compile_clock()
    return 0.0 if clock is None else clock.seconds()


def _compiling() -> bool:
    """Whether this thread is inside numba's compiler (even one entered before the clock was)."""
    clock = _compile_clock()
    if clock is not None and clock.compiling():
        return True
    lock = sys.modules.get("numba.core.compiler_lock")
    try:
        return bool(lock is not None and lock.global_compiler_lock.is_locked())
    except Exception:  # another numba's internals: the clock alone decides
        return False


@contextlib.contextmanager
def _interrupt_after(seconds: float | None) -> Iterator[None]:
    """Interrupt a call that hangs (SIGALRM), so one stuck agent cannot stall a tournament.

    Only possible on the main thread of a POSIX process; elsewhere the call is simply timed.
    The alarm repeats, so an agent that catches the interrupt and carries on is interrupted
    again; code stuck inside a C extension that never returns to Python cannot be interrupted.
    Time in numba's compiler does not count, and an alarm during a compile waits for its end.
    """
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert seconds is not None
    start, compiled = time.perf_counter(), _compile_seconds()

    def _raise(signum: int, frame: object) -> None:
        if _compiling():
            return  # the repeating alarm asks again
        charged = time.perf_counter() - start - (_compile_seconds() - compiled)
        if charged < seconds:  # compiles took part of the time: re-arm for the rest
            signal.setitimer(signal.ITIMER_REAL, max(seconds - charged, 1e-3), _REINTERRUPT_SECONDS)
            return
        raise _MoveInterrupted

    previous = signal.signal(signal.SIGALRM, _raise)
    began = time.monotonic()
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds, _REINTERRUPT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if old_delay > 0:  # give back a timer the caller had armed, minus the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - began), 1e-3), old_interval)


class AgentExit(BaseException):
    """What ``os._exit`` raises while an agent's call runs in this process: its seat forfeits
    instead of the process (a serial tournament, its results) ending with it."""

    def __init__(self, status: object) -> None:
        super().__init__(status)
        self.status = status


_real_exit = os._exit


@contextlib.contextmanager
def _exit_guard() -> Iterator[None]:
    """``os._exit`` raises :class:`AgentExit` during an agent's call on the main thread.

    Left alone in a multiprocessing worker (the processes backend): there the parent charges a
    dead worker's game to the seat that was moving (a ``crash`` forfeit). Other threads and
    forked children still exit for real (a forked child's ``os._exit`` is how it ends), and so
    does anyone once the call returns."""
    if (threading.current_thread() is not threading.main_thread() or os._exit is not _real_exit
            or multiprocessing.parent_process() is not None):
        yield
        return
    pid = os.getpid()

    def _exit(status: int) -> NoReturn:
        if os.getpid() == pid and threading.current_thread() is threading.main_thread():
            raise AgentExit(status)
        _real_exit(status)

    os._exit = _exit
    try:
        yield
    finally:
        if os._exit is _exit:
            os._exit = _real_exit


class _SigintWatch:
    """Tells a Ctrl-C from a ``KeyboardInterrupt`` an agent raises itself.

    While a game's step runs on the main thread, SIGINT goes through :meth:`_handler`, which
    counts it and then raises ``KeyboardInterrupt`` as Python's default handler does. An agent
    call that ends in ``KeyboardInterrupt`` with no new count was the agent's own doing and
    forfeits; with a new count it is the user's and stops the run (which resumes). Where the
    watch cannot be installed (another thread, a custom handler), SIGINT is either impossible
    there (another thread, an ignored signal: the agent raised it) or not ours to judge (a
    custom handler: treated as the user's).
    """

    count = 0

    @staticmethod
    def _handler(signum: int, frame: object) -> None:
        _SigintWatch.count += 1
        raise KeyboardInterrupt

    @staticmethod
    @contextlib.contextmanager
    def watching() -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:
            yield
            return
        signal.signal(signal.SIGINT, _SigintWatch._handler)
        try:
            yield
        finally:
            if signal.getsignal(signal.SIGINT) is _SigintWatch._handler:
                signal.signal(signal.SIGINT, previous)

    @staticmethod
    def from_user(before: int) -> bool:
        """Whether a ``KeyboardInterrupt`` caught now came from a real SIGINT since ``before``."""
        if _SigintWatch.count != before:
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        handler = signal.getsignal(signal.SIGINT)
        return handler not in (_SigintWatch._handler, signal.SIG_IGN)


def _describe(exc: BaseException) -> str:
    """``Type: message`` of an agent's exception, even when its ``str`` itself raises."""
    try:
        text = str(exc)
    except Exception:
        text = "<unprintable>"
    name = type(exc).__name__
    if isinstance(exc, AgentExit):
        return f"the agent called os._exit({_safe_repr(exc.status)})"
    if isinstance(exc, SystemExit):
        return f"SystemExit: the agent called sys.exit({text})" if text else "SystemExit: the agent called sys.exit()"
    if isinstance(exc, KeyboardInterrupt):
        return "KeyboardInterrupt raised by the agent (not a Ctrl-C)"
    return f"{name}: {text}" if text else name


def _safe_repr(value: object, limit: int = 120) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} with a broken repr>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Failed(Exception):
    """An agent's call failed; :attr:`GameRun.failure` says how (internal control flow)."""


class GameRun:
    """One game played one action at a time: iterating plays it, yielding a :class:`Step` per action.

    Takes :func:`play_game`'s arguments. Iteration ends when the game does, when a seat forfeits
    (:attr:`failure`), after ``max_moves`` actions, when ``until(state)`` holds before a decision,
    or where the caller breaks out (iterating again carries on from there). :meth:`forfeit`
    forfeits a seat from outside; :meth:`record` is the game's :class:`GameRecord` so far.
    The agents are reset here, when the run is made.

    Every call into an agent (``reset``, ``act``, ``observe``) is guarded: whatever it raises
    (an exception, ``sys.exit``, ``os._exit`` on the main thread, its own ``KeyboardInterrupt``) or returns (an action that is
    not a legal action, whose ``==`` raises, a numpy array) forfeits its seat with the reason,
    and with a time limit a call that hangs is interrupted at :func:`hard_limit` (time in numba's
    compiler is not charged to the agent, nor interrupted: see :class:`_CompileClock`). A real Ctrl-C
    is not an agent's failure: it propagates (see :class:`_SigintWatch`).
    """

    def __init__(
        self,
        game: Game,
        agents: Sequence[PlayerLike],
        seed: int,
        move_time_limit: float | None = None,
        max_moves: int = 1_000_000,
        deal_seed: int | None = None,
        *,
        agent_seeds: Sequence[Any] | None = None,
        state: State | None = None,
        until: Callable[[State], bool] | None = None,
        before_act: Callable[[State, int, Observation], None] | None = None,
        on_action: Callable[[Step], None] | None = None,
        errors: str = "forfeit",
    ) -> None:
        n = game.num_players
        if len(agents) != n:
            raise InvalidConfig("agents", len(agents), f"{game.name} with {n} players needs {n} agents, got {len(agents)}")
        if errors not in ("forfeit", "raise"):
            raise InvalidConfig("errors", errors, "errors must be 'forfeit' or 'raise'")
        if agent_seeds is not None and len(agent_seeds) != n:
            raise InvalidConfig("agent_seeds", len(agent_seeds), f"one seed per seat: {n}, got {len(agent_seeds)}")
        if move_time_limit is not None and not (move_time_limit > 0 and math.isfinite(move_time_limit)):
            raise InvalidConfig("move_time_limit", move_time_limit, "a move time limit is a positive number of seconds")
        own_deal_seed, *seat_seeds = seeds_for(seed, n + 1)
        if agent_seeds is not None:
            seat_seeds = list(agent_seeds)
        if deal_seed is None:
            deal_seed = own_deal_seed
        self.game, self.agents, self.seed = game, list(agents), seed
        self.move_time_limit, self.max_moves = move_time_limit, max_moves
        self.until, self.before_act, self.on_action, self.errors = until, before_act, on_action, errors
        self._interrupt_at = None if move_time_limit is None else hard_limit(move_time_limit)
        #: the game's live state (the one passed in, if any, played on in place)
        self.state: State = state if state is not None else game.new_initial_state(deal_seed)
        self.names = tuple(_agent_name(a) for a in agents)
        self.spent = [0.0] * n
        self.counts = [0] * n
        #: actions applied so far
        self.moves = 0
        #: why the game stopped early, if a seat forfeited
        self.failure: Failure | None = None
        self._observers = [i for i, a in enumerate(self.agents) if _wants_observe(a)]
        with _SigintWatch.watching():
            for i, agent in enumerate(agents):
                try:
                    self._call(i, "reset", agent.reset, game, i, seat_seeds[i])
                except _Failed:
                    break

    def forfeit(self, seat: int, kind: str, message: str, traceback: str = "") -> None:
        """Forfeit ``seat`` (the first failure stands); the game goes no further."""
        if self.failure is None:
            self.failure = Failure(seat, self.names[seat], kind, message, traceback)

    def _forfeited(self, exc: Forfeit, seat: int) -> None:
        self.forfeit(seat if exc.seat is None else exc.seat, exc.kind, exc.message, exc.traceback)

    def _call(self, seat: int, what: str, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` for ``seat``'s agent; any failure is its forfeit (raises :class:`_Failed`)."""
        before = _SigintWatch.count
        start, compiled = time.perf_counter(), _compile_seconds()
        try:
            with _exit_guard():
                if self._interrupt_at is None:
                    return call(*args)
                with _interrupt_after(self._interrupt_at):
                    return call(*args)
        except _MoveInterrupted:
            elapsed = time.perf_counter() - start - (_compile_seconds() - compiled)
            if what == "act":
                self.spent[seat] += elapsed
                self.counts[seat] += 1
            self.forfeit(seat, "timeout", f"{'move' if what == 'act' else what} interrupted after {elapsed:.3f}s > {self.move_time_limit}s",
                         traceback.format_exc())
        except Forfeit as exc:
            self._forfeited(exc, seat)
        except KeyboardInterrupt:
            if _SigintWatch.from_user(before):
                raise
            self.forfeit(seat, "exception", f"in {what}: {_describe(KeyboardInterrupt())}", traceback.format_exc())
        except Exception as exc:  # an agent's bug must not end the tournament
            if self.errors == "raise":
                raise
            self.forfeit(seat, "exception", _where(what, _describe(exc)), traceback.format_exc())
        except BaseException as exc:  # sys.exit, os._exit and the like: still only this agent's failure
            self.forfeit(seat, "exception", _where(what, _describe(exc)), traceback.format_exc())
        raise _Failed

    def __iter__(self) -> Iterator[Step]:
        state = self.state
        while self.failure is None and not state.is_terminal() and self.moves < self.max_moves:
            if self.until is not None and self.until(state):
                return
            with _SigintWatch.watching():
                step = self._step()
            if step is None:
                return
            yield step

    def _step(self) -> Step | None:
        """Play one decision; ``None`` when the game stopped (a forfeit)."""
        state, agents = self.state, self.agents
        move_time_limit = self.move_time_limit
        seat = state.current_player
        # a seat that answers from elsewhere may decline the observation (it is costly)
        wanted = self.before_act is not None or getattr(agents[seat], "needs_observation", True)
        obs = state.observation(seat) if wanted else None
        if self.before_act is not None:
            try:
                self.before_act(state, seat, obs)
            except Forfeit as exc:
                self._forfeited(exc, seat)
                return None
        start, compiled = time.perf_counter(), _compile_seconds()
        try:
            action = self._call(seat, "act", agents[seat].act, obs)
        except _Failed:
            return None
        elapsed = time.perf_counter() - start - (_compile_seconds() - compiled)  # compiling is not thinking
        self.spent[seat] += elapsed
        self.counts[seat] += 1
        if move_time_limit is not None and elapsed > move_time_limit:
            self.forfeit(seat, "timeout", f"move took {elapsed:.3f}s > {move_time_limit}s")
            return None
        events = self._apply(seat, action)
        if events is None:
            return None
        self.moves += 1
        for other in self._observers:
            if other != seat:
                try:
                    self._call(other, "observe", agents[other].observe, state.observation(other))
                except _Failed:
                    return None
        step = Step(state, seat, obs, action, tuple(events or ()), elapsed, self.moves)
        if self.on_action is not None:
            try:
                self.on_action(step)
            except Forfeit as exc:
                self._forfeited(exc, seat)
        return step

    def _apply(self, seat: int, action: Action) -> list[Event] | None:
        """Apply ``seat``'s action; ``None`` when it forfeited for it. An action the game cannot
        even compare (its ``==`` raises, a numpy array) is the agent's failure; an error raised
        for a genuinely legal action is the game's bug and propagates."""
        state = self.state
        before = _SigintWatch.count
        try:
            return state.apply(action)
        except IllegalAction as exc:
            if self.errors == "raise":
                raise
            self.forfeit(seat, "illegal", str(exc))
            return None
        except KeyboardInterrupt:
            if _SigintWatch.from_user(before):
                raise
            exc_text = _describe(KeyboardInterrupt())
        except BaseException as exc:
            if self.errors == "raise" and isinstance(exc, Exception):
                raise
            if _is_legal(state, action):
                raise
            exc_text = _describe(exc)
        self.forfeit(seat, "illegal", f"{_safe_repr(action)} ({type(action).__name__}) is not a legal action: "
                                      f"comparing it failed with {exc_text}", traceback.format_exc())
        return None

    def record(self) -> GameRecord:
        """The game's record: scores, winners (once it is over) and any failure."""
        state, n = self.state, self.game.num_players
        if self.failure is not None:
            returns = [0.0] * n
            returns[self.failure.seat] = -1.0
            winners: tuple[int, ...] = ()
        else:
            returns = list(state.returns())
            winners = tuple(state.winners()) if state.is_terminal() else ()
        return GameRecord(
            seed=self.seed,
            agents=self.names,
            returns=tuple(float(r) for r in returns),
            winners=winners,
            moves=self.moves,
            turns=int(getattr(state, "turns", self.moves)),
            decision_seconds=tuple(self.spent),
            decisions=tuple(self.counts),
            failure=self.failure,
        )


def play_game(
    game: Game,
    agents: Sequence[PlayerLike],
    seed: int,
    move_time_limit: float | None = None,
    max_moves: int = 1_000_000,
    deal_seed: int | None = None,
    *,
    agent_seeds: Sequence[Any] | None = None,
    state: State | None = None,
    until: Callable[[State], bool] | None = None,
    before_act: Callable[[State, int, Observation], None] | None = None,
    on_action: Callable[[Step], None] | None = None,
    errors: str = "forfeit",
) -> GameRecord:
    """Play one game; ``agents[i]`` sits in seat ``i``. Deterministic for a given ``seed``.

    A crash, an illegal action, or (with ``move_time_limit``) a move slower than the limit
    forfeits: the offender scores the minimum, everyone else keeps playing no further, and
    the record carries the failure. The time limit is checked after the move returns; a move
    still running after :func:`hard_limit` seconds is interrupted (main thread, POSIX only).
    ``deal_seed`` overrides the deal alone, so duplicate deals can replay one deal with the
    agents swapped while each seat's own random stream still comes from ``seed``.

    The rest is for callers that do more than play (see :class:`GameRun` to drive the loop
    step by step):

    * ``agent_seeds``: the seeds the seats are reset with (default: from ``seed``);
    * ``state``: play on this state (a prepared deal, a position mid-game) instead of dealing;
      it is played in place, so the caller sees the final state;
    * ``max_moves``: stop after so many actions; ``until(state)``: stop before a decision
      when it holds (the record then has no winners);
    * ``before_act(state, seat, observation)``: called before each decision (not timed);
    * ``on_action(step)``: called after each action with its :class:`Step`;
    * ``errors="raise"``: an agent's exception or illegal action propagates instead of
      forfeiting (for callers that treat it as a bug). A :class:`Forfeit` raised by a player or
      a hook forfeits in either case.
    """
    run = GameRun(
        game, agents, seed, move_time_limit, max_moves, deal_seed, agent_seeds=agent_seeds, state=state,
        until=until, before_act=before_act, on_action=on_action, errors=errors,
    )
    for _ in run:
        pass
    return run.record()


def _agent_name(agent: object) -> str:
    """An agent's name for the records, its class name when ``name`` is missing or not text."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name else type(agent).__name__


def _where(what: str, text: str) -> str:
    return text if what == "act" else f"in {what}: {text}"


def _is_legal(state: State, action: object) -> bool:
    """Whether ``action`` is one of the legal actions by type and value (never raising)."""
    try:
        legal = state.legal_actions()
        if any(type(a) is type(action) and bool(a == action) for a in legal):
            return True
        return any(action in block for block in getattr(legal, "structured", ()))
    except Exception:
        return False


def _wants_observe(agent: object) -> bool:
    """Skip the per-move observation for agents that do not override ``observe`` (it is costly)."""
    method = getattr(type(agent), "observe", None)
    return method is not None and getattr(method, "__qualname__", "").split(".")[0] != "Agent"
