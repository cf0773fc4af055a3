"""Do the backends pay off? Serial against processes for the heavy experiments, and games per
second on a local multi-node Ray cluster, each ratio printed with the machine's load beside it.

``python -m benchmarks.backends`` plays, on the serial and the processes backend, (a) 60 Clue
games of ``racer`` against ``deductive`` and ``notebook`` and (b) a 60-game ``ismcts`` table, checks
both backends give the same table, and prints wall seconds, the processes/serial speed-up and the
1-minute load average before and after each run (a ratio measured on a loaded machine says
little: rerun it idle). ``--ray-nodes 1,2`` also starts ``ray.cluster_utils.Cluster`` with that
many one-CPU worker raylets and prints games/s per node count (one machine: the nodes share its
cores, so this checks the cluster path and its overhead, not a real cluster's scaling).
``--games``, ``--ismcts-games``, ``--workers``, ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deduce.apps.tournament import TIMING_COLUMNS, Tournament

__all__ = ["main", "timed", "ratio_table"]

EXPERIMENTS: dict[str, tuple[str, ...]] = {
    "racer": ("racer", "deductive", "notebook"),
    "ismcts": ("ismcts", "deductive", "notebook"),
}


def _load() -> float:
    return os.getloadavg()[0]


def timed(agents: Sequence[str], games: int, seed: int, backend: str, workers: int,
          address: str | None = None) -> dict[str, Any]:
    """One run on a fresh results directory: wall seconds (worker start-up included), the load
    average around it, and the table without its timing columns."""
    with tempfile.TemporaryDirectory() as out:
        load = _load()
        start = time.perf_counter()
        results = Tournament("clue", list(agents), games=games, seed=seed, backend=backend, workers=workers,
                             address=address, out=Path(out) / "t").run()
        seconds = time.perf_counter() - start
    return {"backend": backend, "games": games, "seconds": seconds, "load_before": load, "load_after": _load(),
            "table": results.games.drop(columns=list(TIMING_COLUMNS))}


def ratio_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| experiment | games | serial s | processes s | speed-up | load (1 min) before/after |",
             "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['experiment']} | {r['games']} | {r['serial']:.1f} | {r['processes']:.1f} | "
                     f"{r['serial'] / r['processes']:.2f}x | {r['load_before']:.2f} / {r['load_after']:.2f} |")
    return "\n".join(lines)


def _ray_scaling(nodes: list[int], games: int, seed: int) -> list[dict[str, Any]]:
    from ray.cluster_utils import Cluster

    out = []
    for count in nodes:
        cluster = Cluster(initialize_head=True, connect=False, head_node_args={"num_cpus": 0})
        try:
            for _ in range(count):
                cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            run = timed(EXPERIMENTS["racer"], games, seed, "ray", count, address=cluster.address)
            out.append({"nodes": count, "cpus": count, "games": games, "seconds": run["seconds"],
                        "games_per_second": games / run["seconds"], "load_before": run["load_before"],
                        "load_after": run["load_after"]})
        finally:
            cluster.shutdown()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=60, help="racer games (default 60)")
    p.add_argument("--ismcts-games", type=int, default=60, help="ismcts games (default 60: 12 were too short to pay)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ray-nodes", default="", help="comma-separated worker-node counts, e.g. 1,2")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    rows = []
    for name, games in (("racer", args.games), ("ismcts", args.ismcts_games)):
        if games <= 0:
            continue
        serial = timed(EXPERIMENTS[name], games, args.seed, "serial", 1)
        procs = timed(EXPERIMENTS[name], games, args.seed, "processes", args.workers)
        if not serial["table"].equals(procs["table"]):
            print(f"{name}: the processes table differs from the serial one", file=sys.stderr)
            return 1
        rows.append({"experiment": f"{name} vs deductive, notebook", "games": games, "serial": serial["seconds"],
                     "processes": procs["seconds"], "load_before": serial["load_before"],
                     "load_after": procs["load_after"]})
    scaling = _ray_scaling([int(n) for n in args.ray_nodes.split(",") if n], args.games, args.seed)
    if args.json:
        print(json.dumps({"ratios": rows, "ray": scaling, "cpus": os.cpu_count()}))
        return 0
    print(ratio_table(rows))
    if scaling:
        print("\n| worker nodes | CPUs | games | seconds | games/s | load before/after |\n|---:|---:|---:|---:|---:|---|")
        for s in scaling:
            print(f"| {s['nodes']} | {s['cpus']} | {s['games']} | {s['seconds']:.1f} | {s['games_per_second']:.2f} | "
                  f"{s['load_before']:.2f} / {s['load_after']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
