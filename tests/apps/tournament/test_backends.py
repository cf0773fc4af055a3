"""The process backend under failing parts: an agent that takes its worker down costs that game
(a recorded ``crash`` forfeit), not the run; a SIGKILLed tournament leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from deduce.apps.tournament.backends import BackendName, chunk_size, run_games
from deduce.apps.tournament.schedule import AgentSpec, Schedule
from deduce.apps.tournament.worker import Setup

EXITING = '''
import os
import agents
from agents.random_agent import RandomAgent

class ExitingAgent(RandomAgent):
    """Kills its own process on about one decision in eight (seeded: the same games every run)."""
    name = "exits"
    def act(self, observation):
        if self.rng.random() < 0.125:
            os._exit(7)
        return super().act(observation)

agents.register("exits", ExitingAgent, game="clue")
'''


@pytest.fixture
def exiting_agent(tmp_path, monkeypatch):
    """An ``exits`` agent registered in this process and in every spawned worker (through a
    ``sitecustomize`` on PYTHONPATH, which spawned interpreters inherit)."""
    (tmp_path / "sitecustomize.py").write_text(EXITING)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.syspath_prepend(str(tmp_path))
    import sitecustomize  # noqa: F401  (registers here too)


@pytest.mark.slow  # every crash replays its chunk one game per fresh process
def test_an_agent_that_kills_its_worker_forfeits_that_game_only(exiting_agent):
    specs = (AgentSpec("exits"), AgentSpec("random"), AgentSpec("random", label="random2"))
    setup = Setup.create("clue", {"num_players": 3}, specs, None, run_id="t")
    games = Schedule(tuple(s.label for s in specs), 3, 5).games(9)
    rows = [r for game in run_games(BackendName.PROCESSES, setup, games, 2) for r in game]
    assert sorted({r["game_id"] for r in rows}) == list(range(9))  # every game has its rows
    crashed = [r for r in rows if r["failure"] == "crash"]
    assert crashed and len(crashed) < len(rows)  # some games crashed, the run went on
    assert all(r["agent"] == "exits" for r in crashed if r["forfeit"])
    assert all(sum(r["forfeit"] for r in rows if r["game_id"] == g) == 1 for g in {r["game_id"] for r in crashed})


@pytest.mark.slow
def test_a_stale_note_from_a_broken_pool_is_never_charged(exiting_agent, tmp_path, monkeypatch):
    """A worker of a broken pool leaves a note on the game it was playing; when that game is
    replayed alone and its worker dies, only the replay's own note may name the seat."""
    import contextlib
    import tempfile

    specs = (AgentSpec("exits"), AgentSpec("random"), AgentSpec("random", label="random2"))
    setup = Setup.create("clue", {"num_players": 3}, specs, None, run_id="t")
    games = Schedule(tuple(s.label for s in specs), 3, 5).games(9)
    trace = tmp_path / "trace"
    trace.mkdir()
    for n, spec in enumerate(games):  # each note blames a seat the exiting agent does not hold
        innocent = next(i for i, label in enumerate(spec.seats) if label != "exits")
        (trace / str(10**6 + n)).write_text(f"{spec.game_id} {innocent} 3".ljust(40))
    monkeypatch.setattr(tempfile, "TemporaryDirectory", lambda **kw: contextlib.nullcontext(str(trace)))
    rows = [r for game in run_games(BackendName.PROCESSES, setup, games, 2) for r in game]
    crashed = [r for r in rows if r["failure"] == "crash" and r["forfeit"]]
    assert crashed and all(r["agent"] == "exits" for r in crashed)


def test_a_one_game_chunk_of_a_shared_pool_is_replayed_not_charged(tmp_path):
    """When a pool breaks, every worker goes down: a one-game chunk that was just starting
    (its note says setup) was a bystander, not the cause, so it is replayed."""
    from deduce.apps.tournament.backends import _lost

    specs = (AgentSpec("random"), AgentSpec("random", label="random2"))
    spec = Schedule(tuple(s.label for s in specs), 2, 1).games(1)[0]
    (tmp_path / "4242").write_text(f"{spec.game_id} -1 0".ljust(40))
    assert _lost([spec], str(tmp_path), solo=False) == [(spec, None)]
    (charged,) = _lost([spec], str(tmp_path), solo=True)
    assert charged[0] == spec and charged[1] is not None and charged[1][0] == -1


class _NotesTeardown:
    """Writes ``path`` when garbage-collected at interpreter teardown."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __del__(self) -> None:
        Path(self.path).write_text("torn down")


def _leave_garbage(path: str) -> int:
    sys.modules[__name__]._kept = _NotesTeardown(path)  # lives until the interpreter tears down
    return os.getpid()


@pytest.mark.parametrize("fast", [True, False])
def test_pool_workers_skip_the_interpreter_teardown(tmp_path, fast):
    """Tearing down numpy, scipy and OR-Tools cost 1-4 s per worker at every pool shutdown;
    a worker of ours exits as soon as its results are sent (the control: a plain worker)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from deduce.apps.tournament.backends import _die_with_parent

    marker = tmp_path / "marker"
    options = dict(initializer=_die_with_parent, initargs=(os.getpid(),)) if fast else {}
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), **options) as pool:
        assert pool.submit(_leave_garbage, str(marker)).result() != os.getpid()
    assert marker.exists() is not fast


def _warmed() -> tuple[bool, bool]:
    """In a worker: is racer's module loaded, and has a compiled kernel of the exact counter
    been loaded (where numba is installed; else True)?"""
    kernels = sys.modules.get("solvers._exact_kernels")
    forward = getattr(kernels, "_forward", None)
    compiled = forward is None and kernels is not None or bool(getattr(forward, "signatures", ()))
    return "agents.clue.deduction" in sys.modules, compiled


@pytest.mark.parametrize("warm", [True, False])
def test_a_warm_pool_has_loaded_the_agents_before_its_first_game(warm):
    """A WarmPool's worker plays each agent's first decision while the parent checks the agents,
    so its first game does not pay the imports and kernel loading (the control: a plain worker)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from deduce.apps.tournament.backends import WarmPool, _die_with_parent

    specs = (AgentSpec("racer"), AgentSpec("random"), AgentSpec("random", label="random2"))
    setup = Setup.create("clue", {"num_players": 3}, specs, None, run_id="t")
    if warm:
        executor = WarmPool(setup, 1).executor
    else:
        executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_die_with_parent, initargs=(os.getpid(),))
    try:
        assert executor.submit(_warmed).result(timeout=300) == (warm, warm)
    finally:
        executor.shutdown()


def test_chunks_follow_game_time():
    assert chunk_size(None, 100, 2) == 1  # nothing timed yet
    assert chunk_size(0.04, 1000, 2) == 50  # 2 s of 40 ms games
    assert chunk_size(0.04, 40, 2) == 5  # the tail is shared out
    assert chunk_size(30.0, 1000, 2) == 1  # a long game is a task of its own


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkilled_tournament_leaves_no_worker(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        from deduce.apps.tournament import Tournament
        if __name__ == "__main__":
            Tournament("clue", ["deductive", "notebook", "random"], games=3000, seed=1, backend="processes",
                       workers=2, out={str(tmp_path / "out")!r}).run()
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        workers = {c for c in _children(parent.pid) if "multiprocessing" in _cmdline(c)}
        if len(workers) >= 2 and list((tmp_path / "out").glob("parts/part-*")):
            break
        time.sleep(0.2)
    assert len(workers) >= 2, "the pool never started"
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_node_with_other_code_is_refused_in_one_line():
    from deduce.apps.tournament.backends import RayUnavailable, check_fingerprints

    check_fingerprints({"a" * 16: "0.1.0+abc"}, "0.1.0+abc")
    with pytest.raises(RayUnavailable) as info:
        check_fingerprints({"a" * 16: "0.1.0+abc", "b" * 16: "0.1.0+def"}, "0.1.0+abc")
    message = str(info.value)
    assert "\n" not in message and "bbbbbbbbbbbb runs deduce 0.1.0+def" in message and isinstance(info.value, ConnectionError)


class _Refusing:
    """A stand-in for the ``ray`` module whose ``init`` fails as Ray does on a wrong token."""

    class AuthenticationError(Exception):
        pass

    def init(self, **options):
        raise self.AuthenticationError("Token authentication is enabled but no authentication token was found")


class _Silent:
    """... and one whose ``init`` never returns (a cluster that accepts but never answers)."""

    def init(self, **options):
        time.sleep(60)


def test_token_refusal_and_silent_cluster_are_one_line(monkeypatch):
    import deduce.apps.tournament.backends as backends

    monkeypatch.setattr(backends, "_probe", lambda address, timeout: None)
    with pytest.raises(backends.RayUnavailable, match="RAY_AUTH_TOKEN"):
        backends._connect(_Refusing(), "10.0.0.1:6379", 1, 5.0)
    monkeypatch.setattr(sys, "stderr", sys.stderr)  # the silent case leaves Ray's retries muted:
    saved = os.dup(2)  # give descriptor 2 back afterwards
    try:
        start = time.monotonic()
        with pytest.raises(backends.RayUnavailable, match="within 0.5s"):
            backends._connect(_Silent(), "10.0.0.1:6379", 1, 0.5)
        assert time.monotonic() - start < 5
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def test_ray_address_comes_from_the_environment(monkeypatch):
    from deduce.apps.tournament.backends import ray_address

    monkeypatch.setenv("RAY_ADDRESS", "head:6379")
    assert ray_address(None) == "head:6379" and ray_address("other:1") == "other:1"
    monkeypatch.delenv("RAY_ADDRESS")
    assert ray_address(None) is None
