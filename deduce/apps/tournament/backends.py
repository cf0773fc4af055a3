"""Where games run: this process, a pool of local processes, or a Ray cluster.

Every backend plays the same :class:`~deduce.apps.tournament.schedule.GameSpec` list with the same
:class:`~deduce.apps.tournament.worker.Setup` and yields each game's rows as it finishes (in any
order); since a game depends on its spec alone, all backends produce the same table.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import math
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from enum import StrEnum
from pathlib import Path
from typing import Any

from deduce.apps.tournament.schedule import GameSpec
from deduce.apps.tournament.worker import (
    ChunkResult,
    Setup,
    crash_rows,
    fingerprint,
    play_chunk,
    play_scheduled,
    read_trace,
    warm,
)
from deduce.errors import DeduceError

__all__ = [
    "BackendName", "RayUnavailable", "run_games", "default_workers", "resolve_backend", "ray_address",
    "chunk_size", "CONNECT_TIMEOUT", "placements", "WarmPool", "ray_session",
]


class RayUnavailable(DeduceError, ConnectionError):
    """No usable Ray cluster at the address given (nothing there, refused, wrong token, other code)."""

Rows = list[dict[str, Any]]


class BackendName(StrEnum):
    """Where a tournament's games run (same results on every backend for the same seed)."""

    AUTO = "auto"  #: serial, moving to processes once the remaining games look long enough
    SERIAL = "serial"
    PROCESSES = "processes"
    RAY = "ray"


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


#: ``auto`` measures serial play this long before deciding whether a pool would pay off.
AUTO_PROBE_SECONDS = 1.0
#: ... and starts one only if the remaining games would take longer than this serially
#: (starting interpreters that import OR-Tools costs about a second per core).
AUTO_POOL_SECONDS = 5.0


def resolve_backend(name: str | BackendName) -> BackendName:
    """Check a backend name, with a message listing the choices."""
    try:
        return BackendName(name)
    except ValueError:
        raise DeduceError(f"unknown backend {name!r}; choose one of {', '.join(b.value for b in BackendName)}") from None


def run_games(
    backend: BackendName,
    setup: Setup,
    specs: Sequence[GameSpec],
    workers: int,
    address: str | None = None,
    connect_timeout: float | None = None,
    pool: WarmPool | None = None,
) -> Iterator[Rows]:
    """Yield the rows of each game of ``specs`` as it finishes.

    ``address`` (or ``RAY_ADDRESS``) is a Ray cluster for the ``ray`` backend; connecting gives
    up after ``connect_timeout`` seconds (default :data:`CONNECT_TIMEOUT`) with one line.
    ``pool`` (processes backend) is a :class:`WarmPool` started earlier; it is used and closed."""
    if pool is not None and backend is not BackendName.PROCESSES:
        pool.close()
        pool = None
    if not specs:
        if pool is not None:
            pool.close()
        return iter(())
    if backend is BackendName.SERIAL or (backend is BackendName.AUTO and workers <= 1):
        return (play_scheduled(setup, spec) for spec in specs)
    if backend is BackendName.AUTO:
        return _auto(setup, specs, workers)
    if backend is BackendName.PROCESSES:
        return _processes(setup, specs, workers, pool)
    if backend is BackendName.RAY:
        return _ray(setup, specs, workers, address, CONNECT_TIMEOUT if connect_timeout is None else connect_timeout)
    raise DeduceError(f"unknown backend {backend!r}")  # pragma: no cover


def _auto(setup: Setup, specs: Sequence[GameSpec], workers: int) -> Iterator[Rows]:
    """Play serially; once a probe shows the rest would take a while, hand it to a process pool.

    Short runs (the common case from the command line) never pay the pool's start-up cost; long
    ones use every core. Games do not depend on where they run, so the table is the same.
    """
    start = time.perf_counter()
    for done, spec in enumerate(specs, start=1):
        yield play_scheduled(setup, spec)
        elapsed = time.perf_counter() - start
        remaining = len(specs) - done
        if remaining and elapsed >= AUTO_PROBE_SECONDS and elapsed / done * remaining >= AUTO_POOL_SECONDS:
            yield from _processes(setup, specs[done:], workers)
            return



#: a chunk of games (one task: one round trip, agents built once) aims at this many seconds
CHUNK_SECONDS = 2.0


def chunk_size(mean_game_seconds: float | None, remaining: int, slots: int) -> int:
    """How many games the next task plays: about :data:`CHUNK_SECONDS` of play (so a 40 ms game
    is not one round trip each), yet never so many that the last tasks leave slots idle (at most
    a quarter of each slot's share of what is left). One game until a game has been timed."""
    if mean_game_seconds is None or remaining <= 0:
        return 1
    by_time = CHUNK_SECONDS / max(mean_game_seconds, 1e-4)
    by_share = remaining / (4 * max(slots, 1))
    return max(1, min(int(by_time), math.ceil(by_share)))


class _Chunker:
    """Hands out chunks of the remaining games, sized from the games timed so far."""

    def __init__(self, specs: Sequence[GameSpec], slots: int) -> None:
        self.pending = list(reversed(specs))
        self.slots = slots
        self.seconds = 0.0
        self.timed = 0

    def __bool__(self) -> bool:
        return bool(self.pending)

    def take(self) -> list[GameSpec]:
        mean = self.seconds / self.timed if self.timed else None
        size = chunk_size(mean, len(self.pending), self.slots)
        return [self.pending.pop() for _ in range(min(size, len(self.pending)))]

    def put_back(self, specs: Sequence[GameSpec]) -> None:
        self.pending.extend(reversed(specs))

    def timed_rows(self, rows: Rows) -> None:
        if rows:
            self.seconds += float(rows[0].get("wall_seconds", 0.0))
            self.timed += 1


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Pool initializer: this worker gets SIGKILL when its parent dies (Linux ``prctl``), and a
    watchdog thread covers other systems, so a killed tournament leaves no worker behind."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no libc
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="deduce-parent-watch", daemon=True).start()
    atexit.register(_exit_at_once)


def _exit_at_once() -> None:
    """A worker's last act: its results are sent by now (the pool's queues are flushed before
    interpreter shutdown starts), so skip tearing down numpy, scipy, OR-Tools and the rest,
    which took 1-4 s per worker at every pool shutdown, the whole overhead of a short run."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


class WarmPool:
    """Pool workers started, and warmed (:func:`~deduce.apps.tournament.worker.warm`), before
    the run needs them: a spawned worker spends seconds importing and loading compiled kernels,
    which ``Tournament.run`` overlaps with its own check of the agents instead of paying after.
    Used (and closed) by the first pool of :func:`run_games`; :meth:`close` it if the run stops
    before."""

    def __init__(self, setup: Setup, workers: int) -> None:
        self.workers = max(1, workers)
        self.executor = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_warm_worker, initargs=(os.getpid(), setup),
        )
        for _ in range(self.workers):  # a pool spawns a worker per submit while none is idle
            self.executor.submit(_ready)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def _ready() -> bool:
    return True


def _start_warm_worker(parent: int, setup: Setup) -> None:
    """Initializer of a :class:`WarmPool` worker: die with the parent, then warm up. Only the
    first pool of a run warms: an agent that kills its process while warming breaks that pool,
    and the replays (plain workers, one game each) charge the death to its seat."""
    _die_with_parent(parent)
    warm(setup)


def _processes(setup: Setup, specs: Sequence[GameSpec], workers: int,
               pool: WarmPool | None = None) -> Iterator[Rows]:
    """A pool of fresh (spawned) interpreters: safe whatever threads the parent runs (BLAS,
    Arrow, Ray), at the price of the usual rule that a script must guard its entry point with
    ``if __name__ == "__main__":``.

    Games go in chunks (:func:`chunk_size`); workers die with this process. A worker that dies
    (an agent calling ``os._exit``) breaks the pool: the games of the lost chunks are replayed one
    per task in a new pool, and the one that kills its worker again is that seat's forfeit."""
    chunks = _Chunker(specs, max(1, min(workers, len(specs))))
    alone: list[GameSpec] = []  # games of a broken chunk, replayed one per task
    with tempfile.TemporaryDirectory(prefix="deduce-trace-") as trace:
        while chunks or alone:
            lost = yield from _pool_run(setup, chunks, alone, workers, trace, pool)
            pool = None
            for spec, died in lost:
                if died is not None:
                    yield crash_rows(setup, spec, died[0], died[1])
                else:
                    alone.append(spec)


def _pool_run(
    setup: Setup, chunks: _Chunker, alone: list[GameSpec], workers: int, trace: str,
    warm_pool: WarmPool | None = None,
) -> Iterator[Rows]:
    """Run chunks in one pool until done or broken; returns the games a broken pool lost, each
    with ``(seat, message)`` when it is known to have killed its worker playing alone."""
    context = multiprocessing.get_context("spawn")
    # each pool notes into a directory of its own: a worker of an earlier, broken pool may have
    # left (or still be writing) a note on a game that is replayed here
    trace = tempfile.mkdtemp(prefix="pool-", dir=trace)
    solo = bool(alone)  # replaying a broken chunk: one game at a time, so a death has one suspect
    workers = 1 if solo else max(1, min(workers, len(chunks.pending)))
    in_flight: dict[Future[ChunkResult], list[GameSpec]] = {}
    lost: list[tuple[GameSpec, tuple[int, str] | None]] = []
    if warm_pool is not None and not solo:
        pool, workers = warm_pool.executor, warm_pool.workers
    else:
        if warm_pool is not None:
            warm_pool.close()
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_die_with_parent,
                                   initargs=(os.getpid(),))
    broken = False

    def submit() -> None:
        while len(in_flight) < (1 if solo else 2 * workers) and (alone if solo else chunks):
            batch = [alone.pop(0)] if solo else chunks.take()
            in_flight[pool.submit(play_chunk, setup, batch, trace)] = batch

    try:
        submit()
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                batch = in_flight.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    lost.extend(_lost(batch, trace, solo))
                    continue
                for rows in result.rows:
                    chunks.timed_rows(rows)
                    yield rows
            if broken:
                for future, batch in in_flight.items():
                    future.cancel()
                    lost.extend(_lost(batch, trace, solo))
                in_flight.clear()
                break
            submit()
    finally:
        for future in in_flight:
            future.cancel()
        pool.shutdown(wait=not broken, cancel_futures=True)
    return lost


def _lost(batch: list[GameSpec], trace: str, solo: bool) -> list[tuple[GameSpec, tuple[int, str] | None]]:
    """The games of a chunk whose worker died: a game played alone (``solo``: the only game in
    flight, so the only suspect) whose trace shows it was being played is charged to the seat
    moving then; the others are replayed. A one-game chunk of a shared pool is not alone: its
    worker may have been taken down by another worker's death."""
    if solo and len(batch) == 1:
        for path in Path(trace).iterdir():
            noted = read_trace(path)
            if noted is not None and noted[0] == batch[0].game_id:
                path.unlink(missing_ok=True)
                seat = noted[1]
                return [(batch[0], (seat, f"the worker process died during seat {max(seat, 0)}'s "
                                          f"{'decision' if seat >= 0 else 'setup'} (os._exit or a crash)"))]
    return [(spec, None) for spec in batch]


#: how long the ray backend waits for a cluster to answer before giving up with one line
CONNECT_TIMEOUT = 30.0
#: Ray's default head port, when an address gives none
RAY_PORT = 6379

#: where each game of the last Ray run of this process ran: game id -> node id
placements: dict[int, str] = {}


def ray_address(address: str | None) -> str | None:
    """The cluster to use: ``address``, else ``RAY_ADDRESS``, else none (start a local one)."""
    return address or os.environ.get("RAY_ADDRESS") or None


def _probe(address: str, timeout: float) -> None:
    """Fail fast, with one line, when nothing listens at ``address`` (Ray itself retries
    without end); ``auto`` and ``ray://`` client addresses are left to Ray."""
    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":") if ":" in address else (address, "", str(RAY_PORT))
    try:
        number = int(port)
    except ValueError:
        raise RayUnavailable(f"Ray address {address!r}: the port {port!r} is not a number") from None
    try:
        with socket.create_connection((host.strip("[]"), number), timeout=timeout):
            pass
    except socket.gaierror:
        raise RayUnavailable(f"Ray address {address!r}: unknown host {host!r}") from None
    except TimeoutError:
        raise RayUnavailable(f"no answer from a Ray cluster at {address} within {timeout:g}s "
                             "(--connect-timeout); is the address right and the port open?") from None
    except OSError as exc:
        raise RayUnavailable(f"no Ray cluster at {address} ({exc.strerror or exc}); start one with "
                             "`ray start --head` (see docs/cluster.md) or leave out --address for a local one") from None


def _connect(ray: Any, address: str | None, workers: int, timeout: float) -> None:
    """``ray.init``, bounded: a cluster that accepts the connection but never completes it (a
    token mismatch, not a Ray port) ends in one line after ``timeout`` seconds."""
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "error"}
    if address:
        _probe(address, min(timeout, 10.0))
        options["address"] = address
    else:  # starting a local Ray is slow on a loaded machine but cannot hang on a peer: no bound
        ray.init(address="local", num_cpus=workers, **options)  # never a cluster `ray start` left here
        return
    outcome: list[BaseException | None] = []

    def init() -> None:
        try:
            ray.init(**options)
            outcome.append(None)
        except BaseException as exc:  # handed to the caller's thread
            outcome.append(exc)

    thread = threading.Thread(target=init, name="deduce-ray-connect", daemon=True)
    with _quiet_stderr(keep=lambda: bool(outcome)):
        thread.start()
        thread.join(timeout)
    where = address or "a local Ray"
    if not outcome:
        raise RayUnavailable(
            f"the Ray cluster at {where} did not complete the connection within {timeout:g}s (--connect-timeout); "
            "if it uses token authentication, give its token (RAY_AUTH_MODE=token and RAY_AUTH_TOKEN, "
            "or ~/.ray/auth_token; `ray get-auth-token` on the head prints it)")
    exc = outcome[0]
    if exc is None:
        return
    if type(exc).__name__ == "AuthenticationError" or "token" in str(exc).lower():
        raise RayUnavailable(
            f"the Ray cluster at {where} refused this client's authentication: set RAY_AUTH_MODE=token and "
            "RAY_AUTH_TOKEN to the head's token (`ray get-auth-token` on the head), or start the "
            "cluster with RAY_AUTH_MODE=disabled on every node") from None
    if isinstance(exc, ConnectionError | TimeoutError | RuntimeError):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnavailable(f"cannot use the Ray cluster at {where}: {first}") from None
    raise exc


@contextlib.contextmanager
def ray_session(address: str | None = None, workers: int = 2, connect_timeout: float | None = None) -> Iterator[None]:
    """One Ray connection for several runs (an experiment's tables): inside it, every ``ray``
    run reuses the connection instead of connecting and shutting Ray down once per table. A
    connection that already exists is kept as it is."""
    try:
        import ray
    except ImportError:
        raise DeduceError("the ray backend needs Ray: pip install 'deduce[ray]'") from None
    started = not ray.is_initialized()
    if started:
        _connect(ray, ray_address(address), workers, CONNECT_TIMEOUT if connect_timeout is None else connect_timeout)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


@contextlib.contextmanager
def _quiet_stderr(keep: Any) -> Iterator[None]:
    """Silence file descriptor 2 while Ray connects (its C++ client logs every retry, and our
    one line says what went wrong). If ``keep()`` is false afterwards, the connection is still
    retrying in a thread: descriptor 2 stays silenced and ``sys.stderr`` moves to a copy of it."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no usable descriptor 2 (a test's capture, a closed stderr)
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    try:
        yield
    finally:
        if keep():
            os.dup2(saved, 2)
            os.close(saved)
        else:
            sys.stderr = os.fdopen(saved, "w", buffering=1)


def _ray_chunk(setup: Setup, specs: Sequence[GameSpec]) -> ChunkResult:
    """A Ray task: several games, tagged with the node that played them."""
    import ray

    return play_chunk(setup, specs, node=ray.get_runtime_context().get_node_id())


def _node_fingerprint() -> tuple[str, str]:
    import ray

    return ray.get_runtime_context().get_node_id(), fingerprint()


def check_fingerprints(found: dict[str, str], mine: str) -> None:
    """Refuse, in one line, a cluster whose nodes run another deduce than this driver."""
    other = {node: fp for node, fp in found.items() if fp != mine}
    if other:
        node, fp = next(iter(other.items()))
        raise RayUnavailable(
            f"Ray node {node[:12]} runs deduce {fp}, this driver {mine} ({len(other)} of {len(found)} nodes differ): "
            "install the same deduce on every node (see docs/cluster.md)")


def _check_nodes(ray: Any, timeout: float) -> dict[str, float]:
    """Every live node with CPUs, and its CPU count, after checking it runs this deduce (one task
    pinned to each node): the rules of every game must be the driver's."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = {n["NodeID"]: float(n["Resources"].get("CPU", 0)) for n in ray.nodes()
             if n.get("Alive") and n["Resources"].get("CPU", 0) > 0}
    probe = ray.remote(num_cpus=0.01, max_retries=0)(_node_fingerprint)
    refs = {node: probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote()
            for node in nodes}
    found: dict[str, str] = {}
    for node, ref in refs.items():
        try:
            found[node] = ray.get(ref, timeout=max(timeout, 60.0))[1]
        except Exception as exc:  # noqa: BLE001 - the node's own import error, in one line
            text = str(exc).strip().splitlines()
            raise RayUnavailable(
                f"Ray node {node[:12]} cannot run deduce's games ({text[-1] if text else type(exc).__name__}): "
                "install the same deduce on every node (see docs/cluster.md)") from None
    check_fingerprints(found, fingerprint())
    return nodes


def _ray(setup: Setup, specs: Sequence[GameSpec], workers: int, address: str | None,
         timeout: float) -> Iterator[Rows]:
    """Chunks of games as Ray tasks, on an existing cluster (``address`` or ``RAY_ADDRESS``) or a
    local one started here. A task lost with its node is retried elsewhere by Ray; a chunk that
    still fails is replayed game by game, and a game that kills its worker is replayed in a local
    process, where the seat that killed it is found and forfeits."""
    try:
        import ray
        from ray.exceptions import RayError, RayTaskError
    except ImportError:
        raise DeduceError("the ray backend needs Ray: pip install 'deduce[ray]'") from None
    placements.clear()
    with ray_session(address, workers, timeout):  # connects unless a connection exists
        nodes = _check_nodes(ray, timeout)
        slots = max(1, int(sum(nodes.values())) or workers)
        remote = ray.remote(num_cpus=1, max_retries=3)(_ray_chunk)
        setup_ref = ray.put(setup)
        chunks = _Chunker(specs, slots)
        alone: list[GameSpec] = []
        in_flight: dict[Any, list[GameSpec]] = {}
        mine = fingerprint()
        while chunks or alone or in_flight:
            while len(in_flight) < 2 * slots and (alone or chunks):
                batch = [alone.pop(0)] if alone else chunks.take()
                in_flight[remote.remote(setup_ref, batch)] = batch
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                batch = in_flight.pop(ref)
                try:
                    result: ChunkResult = ray.get(ref)
                except RayTaskError as exc:  # deduce's own error inside a task: the run's error
                    cause = exc.cause if isinstance(getattr(exc, "cause", None), DeduceError) else None
                    if cause is not None:
                        raise cause from None
                    raise
                except RayError:  # the worker or its node died, beyond Ray's retries
                    if len(batch) > 1:
                        alone.extend(batch)
                    else:
                        yield from _processes(setup, batch, 1)
                    continue
                check_fingerprints({result.node: result.fingerprint}, mine)
                for rows in result.rows:
                    chunks.timed_rows(rows)
                    placements[int(rows[0]["game_id"])] = result.node
                    yield rows
        if placements:
            counts = Counter(placements.values())
            shares = ", ".join(f"{node[:12]} {n}" for node, n in counts.most_common())
            print(f"deduce: ray: games per node: {shares}", file=sys.stderr)
