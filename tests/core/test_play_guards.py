"""The guards around an agent's call in the play loop (issue 22): ``os._exit`` in an agent's call
is its seat's forfeit, not the end of the process; time in numba's compiler is not the agent's
thinking time and is never interrupted by the move limit."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest

import deduce
import deduce.play as play
from deduce.play import GameRun, RandomPlayer, play_game


def _mafia(players: int = 2) -> Any:
    return deduce.make("mafia-code", num_players=players)


class _Exits(RandomPlayer):
    """Random play until its ``at``-th call of ``where`` (act, reset or observe), which calls ``os._exit``."""

    def __init__(self, where: str = "act", at: int = 1, status: int = 3) -> None:
        super().__init__(0, name="exits")
        self.where, self.at, self.status, self.calls = where, at, status, 0

    def _maybe_exit(self, where: str) -> None:
        if where == self.where:
            self.calls += 1
            if self.calls == self.at:
                os._exit(self.status)

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self._maybe_exit("reset")

    def act(self, observation: Any) -> Any:
        self._maybe_exit("act")
        return super().act(observation)

    def observe(self, observation: Any) -> None:
        self._maybe_exit("observe")


@pytest.mark.parametrize(("where", "at", "message"), [
    ("act", 2, "the agent called os._exit(3)"),
    ("reset", 1, "in reset: the agent called os._exit(3)"),
    ("observe", 1, "in observe: the agent called os._exit(3)"),
])
def test_os_exit_in_an_agents_call_forfeits_its_seat_and_is_restored(where: str, at: int, message: str) -> None:
    real = os._exit
    game = _mafia()
    record = play_game(game, [RandomPlayer(1), _Exits(where, at)], 5)
    assert os._exit is real  # restored after the forfeit
    assert record.failure is not None
    assert (record.failure.seat, record.failure.agent, record.failure.kind) == (1, "exits", "exception")
    assert record.failure.message == message and "os._exit" in record.failure.traceback
    assert record.returns[1] == -1.0
    if where == "act":
        assert record.decisions[1] == at - 1  # the failed call is not a decision


def test_os_exit_is_the_real_one_while_the_harness_runs_and_in_other_threads(monkeypatch) -> None:
    """The hooks are the harness's own code; an agent's thread, or a forked child, really exits."""
    exits: list[int] = []
    recorder = exits.append
    monkeypatch.setattr(os, "_exit", recorder)
    monkeypatch.setattr(play, "_real_exit", recorder)
    seen: list[object] = []

    class Threads(RandomPlayer):
        def act(self, observation: Any) -> Any:
            worker = threading.Thread(target=os._exit, args=(9,))
            worker.start()
            worker.join()
            seen.append(os._exit)
            os._exit(4)

    record = play_game(_mafia(), [RandomPlayer(1), Threads(2)], 5,
                       on_action=lambda step: seen.append(os._exit), before_act=lambda *_: seen.append(os._exit))
    assert exits == [9]  # the agent's thread exited for real (here: recorded), the main thread's call forfeited
    assert record.failure is not None and record.failure.message == "the agent called os._exit(4)"
    assert os._exit is recorder
    harness = [f for f in seen[:-1]]
    assert harness and all(f is recorder for f in harness)  # before_act and on_action: the real one
    assert seen[-1] is not recorder  # inside the agent's call: the guard


class _FakeTime:
    """A ``perf_counter`` that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> play._CompileClock:
    """A compile clock the tests drive by hand (numba's events, simulated)."""
    fake = play._CompileClock()
    monkeypatch.setattr(play, "_clock", fake)
    return fake


def test_compile_time_inside_a_move_is_not_charged(monkeypatch, clock) -> None:
    fake = _FakeTime()
    monkeypatch.setattr(time, "perf_counter", fake)

    class Compiles(RandomPlayer):
        def act(self, observation: Any) -> Any:
            fake.now += 0.25  # thinking
            clock.on_start(None)
            clock.on_start(None)  # a nested compile (a kernel calling another) counts once
            fake.now += 50.0
            clock.on_end(None)
            fake.now += 20.0
            clock.on_end(None)
            fake.now += 0.5  # thinking
            return super().act(observation)

    record = play_game(_mafia(), [RandomPlayer(1), Compiles(2)], 5, move_time_limit=1.0)
    assert record.failure is None and record.decisions[1] >= 1  # each move 70.75 s of the clock, 0.75 s thinking
    assert record.decision_seconds[1] == pytest.approx(0.75 * record.decisions[1])
    assert record.decision_seconds[0] == 0.0
    assert clock.seconds() == pytest.approx(70.0 * record.decisions[1]) and not clock.compiling()


def test_a_move_over_the_limit_without_compiling_still_forfeits(monkeypatch, clock) -> None:
    fake = _FakeTime()
    monkeypatch.setattr(time, "perf_counter", fake)

    class Slow(RandomPlayer):
        def act(self, observation: Any) -> Any:
            clock.on_start(None)
            fake.now += 50.0
            clock.on_end(None)
            fake.now += 1.5
            return super().act(observation)

    record = play_game(_mafia(), [RandomPlayer(1), Slow(2)], 5, move_time_limit=1.0)
    assert record.failure is not None and (record.failure.seat, record.failure.kind) == (1, "timeout")
    assert record.failure.message == "move took 1.500s > 1.0s"


@pytest.mark.skipif(not hasattr(play.signal, "setitimer"), reason="the move limit's interrupt needs SIGALRM")
def test_the_interrupt_waits_for_a_compile_and_then_still_cuts_a_hang(clock) -> None:
    """The hard limit (2 x 0.5 + 1 = 2 s) passes during a simulated 2.4 s compile: no interrupt
    there; after it, a move that hangs is still interrupted, its compile not charged."""
    limit = 0.5
    simulated = play.hard_limit(limit) + 0.4

    class CompilesThen(RandomPlayer):
        def __init__(self, hang: bool) -> None:
            super().__init__(2, name="compiles")
            self.hang = hang

        def act(self, observation: Any) -> Any:
            clock.on_start(None)
            try:
                end = time.perf_counter() + simulated
                while time.perf_counter() < end:  # the alarm rings in here
                    time.sleep(0.05)
            finally:
                clock.on_end(None)
            if self.hang:
                time.sleep(30)
            return super().act(observation)

    run = GameRun(_mafia(), [RandomPlayer(1), CompilesThen(hang=False)], 5, move_time_limit=limit)
    start = time.perf_counter()
    mine = next((step for step in run if step.seat == 1), None)  # up to its first move
    total = time.perf_counter() - start
    assert run.failure is None and mine is not None, run.failure
    assert mine.seconds <= total - simulated  # the compile was not charged

    start = time.perf_counter()
    record = play_game(_mafia(), [RandomPlayer(1), CompilesThen(hang=True)], 5, move_time_limit=limit)
    total = time.perf_counter() - start
    assert record.failure is not None and (record.failure.seat, record.failure.kind) == (1, "timeout")
    assert "interrupted after" in record.failure.message
    charged = float(record.failure.message.split("after ")[1].split("s")[0])
    assert charged <= total - simulated + 1e-3  # interrupted for its thinking, the compile left out


def test_the_clock_hears_a_real_numba_compile_once_numba_is_loaded(monkeypatch) -> None:
    numba = pytest.importorskip("numba")
    monkeypatch.setattr(play, "_clock", None)
    clock = play._compile_clock()
    assert clock is not None and play._compile_clock() is clock  # registered once
    try:
        @numba.njit
        def fresh(x: int) -> int:  # no cache: compiled on its first call, here
            return x + 1

        before = clock.seconds()
        assert fresh(1) == 2
        assert clock.seconds() > before and not clock.compiling()
    finally:
        import numba.core.event as event

        for kind in ("numba:compile", "numba:compiler_lock"):
            event.unregister(kind, clock)
