"""Tournament throughput: games per second for Clue with deductive agents, per backend.

``python -m benchmarks.tournament`` plays the same seeded Clue tournament (three ``deductive``
agents by default) on the serial backend, a pool of local processes, and Ray started locally
(when installed), checks that all three give the same results table, and prints a README-ready
Markdown table. Times are wall-clock for the whole run, worker start-up included, because that
is what a user waits for; Ray's start-up (``ray.init``) is timed separately as its overhead.
CPU milliseconds per game (this process plus its pool workers; Ray's workers are not visible)
are shown too, since wall time is inflated whenever other work shares the machine.
``--games`` (default 60), ``--workers`` (default 2), ``--agents``, ``--no-ray``, ``--address``
(time Ray on that cluster instead of a local one), ``--json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from deduce.apps.tournament import TIMING_COLUMNS, Tournament

__all__ = ["Measurement", "measure", "main"]


@dataclass(frozen=True)
class Measurement:
    backend: str
    workers: int
    games: int
    seconds: float
    startup_seconds: float = 0.0  # Ray only: ray.init, not included in ``seconds``
    cpu_seconds: float | None = None  # this process and its pool workers (not Ray's workers)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def measure(backend: str, agents: Sequence[str], games: int, workers: int, seed: int, out: Path,
            address: str | None = None) -> tuple[Measurement, object]:
    """Run one tournament on ``backend`` into a fresh directory; time it; return its table too.
    With ``address`` the ray run uses that cluster (its connection is inside the timed run)."""
    startup = 0.0
    if backend == "ray" and address is None:
        import ray

        start = time.perf_counter()
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level="warning")
        startup = time.perf_counter() - start
    tournament = Tournament("clue", list(agents), games=games, seed=seed, backend=backend, workers=workers,
                            address=address if backend == "ray" else None, out=out / backend, progress=False)
    start, cpu = time.perf_counter(), _cpu()
    results = tournament.run()
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    if backend == "ray" and address is None:
        import ray

        ray.shutdown()
    used = 1 if backend == "serial" else workers
    cpu_seconds = None if backend == "ray" else cpu
    return Measurement(backend, used, games, seconds, startup, cpu_seconds), results.games.drop(columns=list(TIMING_COLUMNS))


def _cpu() -> float:
    """CPU seconds of this process and its finished children: unlike wall time, not inflated
    when other work shares the machine."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def markdown(rows: Sequence[Measurement]) -> str:
    serial = next((m for m in rows if m.backend == "serial"), None)
    lines = [
        "| backend | workers | games | seconds | games/s | speed-up vs serial | CPU ms/game | start-up (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in rows:
        speedup = f"{m.games_per_second / serial.games_per_second:.2f}x" if serial else "-"
        startup = f"{m.startup_seconds:.2f}" if m.backend == "ray" else "-"
        cpu = "-" if m.cpu_seconds is None else f"{1000 * m.cpu_seconds / m.games:.0f}"
        lines.append(f"| {m.backend} | {m.workers} | {m.games} | {m.seconds:.2f} | {m.games_per_second:.1f} "
                     f"| {speedup} | {cpu} | {startup} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tournament", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=["deductive", "deductive", "deductive"])
    parser.add_argument("--no-ray", action="store_true", help="skip Ray even if installed")
    parser.add_argument("--address", default=None, help="time Ray on this cluster (host:port) instead of a local one")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON instead")
    args = parser.parse_args(argv)
    backends = ["serial", "processes"] + (["ray"] if _ray_available() and not args.no_ray else [])
    rows: list[Measurement] = []
    tables = []
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            m, table = measure(backend, args.agents, args.games, args.workers, args.seed, Path(tmp), args.address)
            rows.append(m)
            tables.append(table)
            print(f"{backend}: {m.games_per_second:.1f} games/s", file=sys.stderr)
    same = all(t.equals(tables[0]) for t in tables[1:])
    if args.json:
        print(json.dumps({"identical_tables": same,
                          "runs": [asdict(m) | {"games_per_second": m.games_per_second} for m in rows]}, indent=2))
    else:
        print(f"Clue, {len(args.agents)} x agents {' '.join(args.agents)}, {args.games} games, seed {args.seed}, "
              f"{args.workers} workers")
        print()
        print(markdown(rows))
        print()
        print(f"identical results tables across backends: {'yes' if same else 'NO'}")
        if not _ray_available():
            print("(ray not installed: pip install 'deduce[ray]' to include it)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
