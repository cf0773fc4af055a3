"""Where games run: this process, a pool of local processes, or a Ray cluster.

Every backend plays the same :class:`~deduce.apps.tournament.schedule.GameSpec` list with the same
:class:`~deduce.apps.tournament.worker.Setup` and yields each game's rows as it finishes (in any
order); since a game depends on its spec alone, all backends produce the same table.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from enum import StrEnum
from typing import Any

from deduce.apps.tournament.schedule import GameSpec
from deduce.apps.tournament.worker import Setup, play_scheduled
from deduce.errors import DeduceError

__all__ = ["BackendName", "run_games", "default_workers", "resolve_backend"]

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
) -> Iterator[Rows]:
    """Yield the rows of each game of ``specs`` as it finishes."""
    if not specs:
        return iter(())
    if backend is BackendName.SERIAL or (backend is BackendName.AUTO and workers <= 1):
        return (play_scheduled(setup, spec) for spec in specs)
    if backend is BackendName.AUTO:
        return _auto(setup, specs, workers)
    if backend is BackendName.PROCESSES:
        return _processes(setup, specs, workers)
    if backend is BackendName.RAY:
        return _ray(setup, specs, workers, address)
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


def _processes(setup: Setup, specs: Sequence[GameSpec], workers: int) -> Iterator[Rows]:
    """A pool of fresh (spawned) interpreters: safe whatever threads the parent runs (BLAS,
    Arrow, Ray), at the price of the usual rule that a script must guard its entry point with
    ``if __name__ == "__main__":``."""
    workers = max(1, min(workers, len(specs)))
    context = multiprocessing.get_context("spawn")
    pending = iter(specs)
    in_flight: set[Future[Rows]] = set()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        try:
            for spec in pending:  # keep the queue short so an interrupt stops promptly
                in_flight.add(pool.submit(play_scheduled, setup, spec))
                if len(in_flight) >= 2 * workers:
                    break
            while in_flight:
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    spec = next(pending, None)
                    if spec is not None:
                        in_flight.add(pool.submit(play_scheduled, setup, spec))
        finally:
            for future in in_flight:
                future.cancel()


def _ray(setup: Setup, specs: Sequence[GameSpec], workers: int, address: str | None) -> Iterator[Rows]:
    """Ray tasks, on an existing cluster (``address``) or a local one started here."""
    try:
        import ray
    except ImportError:
        raise DeduceError("the ray backend needs Ray: pip install 'deduce[ray]'") from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "warning"}
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=workers, **options)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(play_scheduled)
        setup_ref = ray.put(setup)
        limit = max(2, 2 * int(ray.available_resources().get("CPU", workers)))
        pending = iter(specs)
        in_flight = [remote.remote(setup_ref, spec) for spec in _take(pending, limit)]
        while in_flight:
            done, in_flight = ray.wait(in_flight, num_returns=1)
            for ref in done:
                yield ray.get(ref)
                in_flight.extend(remote.remote(setup_ref, spec) for spec in _take(pending, 1))
    finally:
        if started:
            ray.shutdown()


def _take(items: Iterator[GameSpec], count: int) -> list[GameSpec]:
    out = []
    for item in items:
        out.append(item)
        if len(out) >= count:
            break
    return out
