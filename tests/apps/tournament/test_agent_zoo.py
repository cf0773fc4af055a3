"""A zoo of misbehaving agents on the serial backend (issue 22, item 5): whatever an agent does
(raises, calls ``sys.exit``, raises its own ``KeyboardInterrupt``, returns an action that cannot
even be compared, crashes in ``reset`` or ``observe``, hangs) costs its game as a forfeit with
the reason, never the run; and a real Ctrl-C still stops the run, which then resumes.

The property test draws a few (mode, decision, seat) cases with hypothesis (bounded: few
examples, no deadline); the regression tests go through the real command (``deduce.cli.main``)
with its exit code.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents
from agents.base import Agent
from deduce.apps.tournament import Tournament
from deduce.apps.tournament.runner import Interrupted
from deduce.cli import main
from deduce.errors import DeduceError
from deduce.games.base import Action, Game, Observation

pytest.importorskip("pandas")

GAME = "checkpoint-charlie"  # random play is quick here (about 30 moves a game)


class BadEq:
    """An action whose ``==`` raises."""

    def __eq__(self, other: object) -> bool:
        raise TypeError("BadEq cannot be compared")

    __hash__ = object.__hash__


class Zoo(Agent):
    """Plays random legal actions until its ``at``-th call (of ``act``; of ``observe`` in mode
    ``observe``) in a game where it sits in ``seat``, then misbehaves as ``mode`` says."""

    name = "zoo"

    def __init__(self, mode: str = "raise", at: int = 1, seat: int = 1) -> None:
        super().__init__(mode=mode, at=at, seat=seat)
        self.mode, self.at, self.seat = mode, at, seat
        self.calls = 0
        self.observed = 0

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        if self.mode == "reset" and player == self.seat:
            raise RuntimeError("zoo reset crash")

    def observe(self, observation: Observation) -> None:
        self.observed += 1
        if self.mode == "observe" and self.player == self.seat and self.observed == self.at:
            raise ValueError("zoo observe crash")

    def act(self, observation: Observation) -> Action:
        self.calls += 1
        legal = observation.legal_actions
        if self.player != self.seat or self.calls != self.at or self.mode in ("reset", "observe"):
            return legal[int(self.rng.integers(len(legal)))]
        return MISBEHAVE[self.mode]()


def _hang() -> Action:
    time.sleep(3600)
    raise AssertionError("not interrupted")


def _swallow() -> Action:
    """Catches the first interrupt and hangs again: it is interrupted again."""
    try:
        time.sleep(3600)
    except BaseException:
        pass
    time.sleep(3600)
    raise AssertionError("not interrupted")


def _raise_keyboard() -> Action:
    raise KeyboardInterrupt


def _raise_runtime() -> Action:
    raise RuntimeError("zoo act crash")


MISBEHAVE: dict[str, Any] = {
    "raise": _raise_runtime,
    "exit": lambda: sys.exit(3),
    "keyboard": _raise_keyboard,
    "bad-eq": BadEq,
    "numpy": lambda: np.array([1, 2]),
    "none": lambda: None,
    "hang": _hang,
    "swallow": _swallow,
}

#: mode -> (failure kind, text its message holds, whether the failed call counts as a decision)
EXPECTED: dict[str, tuple[str, str, bool]] = {
    "raise": ("exception", "RuntimeError: zoo act crash", False),
    "exit": ("exception", "sys.exit(3)", False),
    "keyboard": ("exception", "KeyboardInterrupt raised by the agent", False),
    "bad-eq": ("illegal", "BadEq cannot be compared", True),
    "numpy": ("illegal", "is not a legal action", True),
    "none": ("illegal", "", True),
    "observe": ("exception", "in observe: ValueError: zoo observe crash", False),
    "reset": ("exception", "in reset: RuntimeError: zoo reset crash", False),
}


@pytest.fixture(autouse=True, scope="module")
def zoo_registered():
    """``zoo`` is an agent of every game while these tests run."""
    agents.register("zoo", Zoo)
    agents.register("sigint-once", SigintOnce)
    yield
    agents.registry._GENERIC.pop("zoo", None)
    agents.registry._GENERIC.pop("sigint-once", None)


def _zoo(mode: str, at: int = 1, seat: int = 1) -> str:
    return f"zoo:mode={mode},at={at},seat={seat}"


@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(sorted(EXPECTED)), at=st.integers(1, 4), seat=st.integers(0, 2))
def test_every_misbehaviour_is_a_forfeit_with_its_reason(mode: str, at: int, seat: int) -> None:
    kind, text, counted = EXPECTED[mode]
    t = Tournament(GAME, ["random", "r2=random", _zoo(mode, at, seat)], games=3, seed=at + 10 * seat,
                   backend="serial", progress=False)
    try:
        results = t.run()
    except DeduceError as exc:  # the pre-run check seats the agent in seat 0 up to its first decision
        assert seat == 0 and (mode == "reset" or (at == 1 and mode != "observe")), (mode, at, seat, exc)
        assert "'zoo'" in str(exc) and "\n" not in str(exc)
        return
    games = results.games
    assert sorted(games["game_id"].unique()) == [0, 1, 2] and len(games) == 9  # no game lost
    others = games[games["agent"] != "zoo"]
    assert not others["forfeit"].any()
    for row in games[games["agent"] == "zoo"].itertuples():
        if row.seat != seat:
            assert not row.forfeit, row
            continue
        if mode == "reset":
            assert row.forfeit and row.decisions == 0
        elif row.forfeit:
            done = at if counted else at - 1
            assert mode == "observe" or row.decisions == done, row
        else:  # the game ended before the agent's at-th call
            assert row.decisions < at or mode == "observe", row
        if row.forfeit:
            assert row.failure == kind and text in row.failure_message, row
    if mode == "reset" or at == 1 and mode != "observe":  # this call always happens
        assert games[(games["agent"] == "zoo") & (games["seat"] == seat)]["forfeit"].all()


@pytest.mark.parametrize("mode", ["hang", "swallow"])
def test_a_hung_agent_is_interrupted_and_forfeits(mode: str) -> None:
    """Serial backend, SIGALRM on the main thread: cut at twice the limit plus a second, and
    again a second later if the agent swallowed the first interrupt."""
    start = time.monotonic()
    results = Tournament(GAME, ["random", "r2=random", _zoo(mode, 1, 2)], games=3, seed=2, backend="serial",
                         move_time_limit=0.05, progress=False).run()
    elapsed = time.monotonic() - start
    games = results.games
    zoo = games[(games["agent"] == "zoo") & (games["seat"] == 2)].iloc[0]
    assert games["forfeit"].sum() == 1 and len(games) == 9
    assert zoo["forfeit"] and zoo["failure"] == "timeout" and "interrupted" in zoo["failure_message"]
    assert elapsed < 30


class SigintOnce(Agent):
    """Random play; the first time any instance acts in seat 1 it sends this process a real
    SIGINT (a user's Ctrl-C arriving during an agent's move)."""

    name = "sigint-once"
    sent = False

    def act(self, observation: Observation) -> Action:
        if self.player == 1 and not SigintOnce.sent:
            SigintOnce.sent = True
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the signal arrives here, inside the agent's call
        legal = observation.legal_actions
        return legal[int(self.rng.integers(len(legal)))]


def _interrupt_then_resume(out) -> dict[str, Any]:
    """Run with ``sigint-once`` until its real SIGINT stops the run, then resume it; compare
    with an uninterrupted run. Needs the main thread of a process that owns its SIGINT."""
    SigintOnce.sent = True  # not during the pre-run check
    names = ["random", "r2=random", "sigint-once"]
    t = Tournament(GAME, names, games=3, seed=5, backend="serial", out=out, progress=False)
    t.check_agents()
    SigintOnce.sent = False
    try:
        t.run()
        raised = None
    except Interrupted as exc:
        raised = str(exc)
    status = json.loads((out / "tournament.json").read_text())["status"]
    resumed = Tournament(GAME, names, games=3, seed=5, backend="serial", out=out, progress=False).run()
    whole = Tournament(GAME, names, games=3, seed=5, backend="serial", progress=False).run()
    cols = ["game_id", "seat", "agent", "score", "forfeit", "moves", "decisions"]
    return {"raised": raised, "status": status, "same": bool(resumed.games[cols].equals(whole.games[cols])),
            "forfeits": int(resumed.games["forfeit"].sum()), "games": int(len(resumed.games))}


def test_a_real_ctrl_c_inside_an_agent_stops_the_run_and_it_resumes(tmp_path) -> None:
    """In a child process of its own: a pytest-xdist worker's signals belong to the worker's
    channel, and a real SIGINT there can kill the worker instead of reaching the run."""
    import subprocess

    done = subprocess.run([sys.executable, __file__, str(tmp_path / "a")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["raised"] is not None and "interrupted after" in report["raised"], report
    assert report["status"] == "interrupted"
    assert report["same"] and report["forfeits"] == 0 and report["games"] == 9, report


# -- through the real command ----------------------------------------------------------------

def _command(tmp_path, zoo: str, *extra: str) -> list[str]:
    return ["tournament", GAME, "--agents", "random", "r2=random", zoo, "--games", "3", "--seed", "1",
            "--backend", "serial", "--out", str(tmp_path / "out"), "--json", *extra]


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_the_command_records_each_reproducer_as_a_forfeit(tmp_path, capsys, mode: str) -> None:
    kind, text, _ = EXPECTED[mode]
    assert main(_command(tmp_path, _zoo(mode, 1, 1))) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    data = json.loads(captured.out)
    assert data["run"]["games_recorded"] == 3
    rows = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert rows["status"] == "complete"
    from deduce.apps.tournament import TournamentResults

    games = TournamentResults.load(tmp_path / "out").games
    forfeits = games[games["forfeit"]]
    assert list(forfeits["agent"]) == ["zoo"] and forfeits.iloc[0]["seat"] == 1
    assert forfeits.iloc[0]["failure"] == kind and text in forfeits.iloc[0]["failure_message"]


def test_the_default_move_limit_is_printed_and_enforced_on_the_serial_backend(tmp_path, capsys, monkeypatch) -> None:
    """No --move-time-limit: the default applies (shrunk here so a hang costs a second)."""
    from deduce.apps.tournament import runner

    assert main(_command(tmp_path / "plain", "r3=random")) == 0
    assert "move time limit 60 s (the default safety net" in capsys.readouterr().err
    monkeypatch.setattr(runner, "DEFAULT_MOVE_TIME_LIMIT", 0.05)
    assert main(_command(tmp_path, _zoo("hang", 1, 1))) == 0
    captured = capsys.readouterr()
    assert "move time limit 0.05 s" in captured.err
    config = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert config["move_time_limit"] == 0.05 and config["status"] == "complete"
    data = json.loads(captured.out)
    assert "timeout" in json.dumps(data["forfeits"])


if __name__ == "__main__":  # the child process of the Ctrl-C test
    from pathlib import Path

    agents.register("sigint-once", SigintOnce)
    print(json.dumps(_interrupt_then_resume(Path(sys.argv[1]))))
