"""A real multi-node Ray cluster on this machine: a head and worker nodes as separate raylets
(``ray.cluster_utils.Cluster``), each with its own CPU count, driven through the command line
as a user would, with ``--address``. Bounded: the whole module takes well under three minutes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from deduce.apps.tournament import TIMING_COLUMNS, Tournament

pytestmark = pytest.mark.slow

AGENTS = ["deductive", "notebook", "random"]


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, connect=False,
                      head_node_args={"num_cpus": 1, "include_dashboard": False})
    worker = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster, worker
    finally:
        cluster.shutdown()


def _command(address: str, out: Path, games: int, *extra: str) -> list[str]:
    return [str(Path(sys.executable).with_name("deduce")), "tournament", "clue", "--agents", *AGENTS, "--games", str(games),
            "--seed", "4", "--backend", "ray", "--address", address, "--out", str(out), "--json", *extra]


def _serial(games: int) -> pd.DataFrame:
    return Tournament("clue", AGENTS, games=games, seed=4, backend="serial").run().games


def _table(out: Path) -> pd.DataFrame:
    from deduce.apps.tournament.store import ResultStore

    frame = ResultStore(out).load()
    return frame.drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)


def _nodes(stderr: str) -> dict[str, int]:
    line = next(ln for ln in stderr.splitlines() if "games per node" in ln)
    return {node: int(n) for node, n in re.findall(r"([0-9a-f]{12}) (\d+)", line)}


def test_two_nodes_play_the_serial_table(cluster, tmp_path):
    head, _ = cluster
    games = 24
    done = subprocess.run(_command(head.address, tmp_path / "ray", games), capture_output=True, text=True,
                          timeout=150, env={**os.environ, "RAY_ADDRESS": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    expected = _serial(games).drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)
    pd.testing.assert_frame_equal(_table(tmp_path / "ray"), expected)
    nodes = _nodes(done.stderr)
    assert len(nodes) == 2 and sum(nodes.values()) == games, done.stderr  # games ran on both raylets


def test_a_node_killed_mid_run_loses_no_game(cluster, tmp_path):
    head, _ = cluster
    doomed = head.add_node(num_cpus=1)
    head.wait_for_nodes()
    games, out = 90, tmp_path / "ray"
    run = subprocess.Popen(_command(head.address, out, games), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "RAY_ADDRESS": ""})
    deadline = time.monotonic() + 90
    while not list(out.glob("parts/part-*")) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)  # the first games are saved: the run is under way
    assert run.poll() is None, "the run ended before the node could be killed: make it longer"
    head.remove_node(doomed, allow_graceful=False)  # its raylet and workers die mid-run
    _, stderr = run.communicate(timeout=120)
    if run.returncode != 0:  # stopped with a message: a rerun resumes what is missing
        assert "Traceback" not in stderr, stderr[-2000:]
        again = subprocess.run(_command(head.address, out, games), capture_output=True, text=True, timeout=120,
                               env={**os.environ, "RAY_ADDRESS": ""})
        assert again.returncode == 0, again.stderr[-2000:]
    expected = _serial(games).drop(columns=list(TIMING_COLUMNS)).reset_index(drop=True)
    pd.testing.assert_frame_equal(_table(out), expected)


def test_no_cluster_at_the_address_is_one_line_and_exit_2(tmp_path):
    pytest.importorskip("ray")
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    start = time.monotonic()
    done = subprocess.run(_command(f"127.0.0.1:{port}", tmp_path / "none", 3, "--connect-timeout", "5"),
                          capture_output=True, text=True, timeout=60, env={**os.environ, "RAY_ADDRESS": ""})
    errors = [ln for ln in done.stderr.splitlines() if "error" in ln.lower()]
    assert done.returncode == 2 and len(errors) == 1 and "no Ray cluster at 127.0.0.1" in errors[0], done.stderr
    assert "Traceback" not in done.stderr and time.monotonic() - start < 60
