"""The agent benchmarks run through the tournament (benchmarks/_experiment.py): the same table on
the serial and processes backends, a stopped run resumed to the identical table, and figures
that are those of deduce.apps.tournament.stats."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from benchmarks import _experiment as ex
from benchmarks import agents as agents_bench
from benchmarks import search_agents
from deduce.apps.tournament import TIMING_COLUMNS, Schedule, stats


def strip(value: Any, fields: tuple[str, ...]) -> Any:
    """``value`` without the clock-measured ``fields`` (at any depth)."""
    if isinstance(value, dict):
        return {k: strip(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [strip(v, fields) for v in value]
    return value


def untimed(tables: dict[str, Any]) -> dict[str, Any]:
    return {k: t.drop(columns=list(TIMING_COLUMNS)) for k, t in tables.items()}


def same_tables(a: dict[str, Any], b: dict[str, Any]) -> bool:
    a, b = untimed(a), untimed(b)
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)


def test_alternate_gives_every_agent_as_many_seats():
    for labels, players in ((("a", "b"), 3), (("a", "b"), 4), (("a", "b", "c"), 4), (("a", "b", "c", "d"), 6)):
        s = Schedule(labels, players, 0, "alternate")
        held = Counter(label for i in range(s.round_size) for label in s[i].seats)
        assert len(set(held.values())) == 1, (labels, players, held)
        assert {s[i].deal for i in range(s.round_size)} == {0}  # one duplicate deal per round
    two = Schedule(("a", "b"), 3, 0, "alternate")
    assert {two[i].seats for i in range(two.round_size)} >= {("a", "b", "a"), ("b", "a", "b")}


def test_paired_is_first_minus_second_whatever_the_names_order():
    import pandas as pd

    rows = []
    for deal, (za, aa) in enumerate([(1.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 0.0)]):
        for seat, (agent, score) in enumerate((("zed", za), ("alf", aa), ("alf#2", aa))):
            rows.append({"game_id": deal, "deal": deal, "seat": seat, "agent": agent, "score": score})
    games = pd.DataFrame(rows)
    zed = ex.paired(games, "zed", "alf")
    alf = ex.paired(games, "alf", "zed")
    (raw,) = stats.paired_by_deal(games.assign(agent=games["agent"].map(ex.family)))
    assert raw["a"] == "alf" and alf["mean"] == raw["mean"] and (alf["lo"], alf["hi"]) == (raw["lo"], raw["hi"])
    assert zed["mean"] == pytest.approx(0.5) and (zed["lo"], zed["hi"]) == (-raw["hi"], -raw["lo"])
    assert (zed["ahead"], zed["behind"]) == (3, 1) == (alf["behind"], alf["ahead"])
    assert zed["sign_p"] == alf["sign_p"] == stats.sign_test(3, 1)


def _tiny_agents() -> list[ex.Cell]:
    return agents_bench.cells([3], seats=3, seed=5, pairs=[("deductive", "notebook")])


def test_agents_benchmark_same_table_on_serial_and_processes():
    cells = _tiny_agents()
    assert [c.games for c in cells] == [6]  # one round: A B A and B A B, every rotation
    serial = ex.run_cells(cells)
    procs = ex.run_cells(cells, ex.RunOptions("processes", workers=2))
    assert same_tables(serial, procs)
    games = serial[cells[0].name]
    assert Counter(games["agent"]) == {"deductive": 9, "notebook": 9} and games["deal"].nunique() == 1
    a = agents_bench.report(cells, serial, {})
    b = agents_bench.report(cells, procs, {})
    assert strip(a, agents_bench.TIMING_FIELDS) == strip(b, agents_bench.TIMING_FIELDS)


def test_agents_figures_are_the_stats_modules():
    cells = agents_bench.cells([3], seats=19, seed=2, pairs=[("deductive", "notebook")])
    tables = ex.run_cells(cells)
    games = tables[cells[0].name]
    probes = {cells[0].name: [agents_bench.probe(cells[0], g) for g in range(2)]}
    report = agents_bench.report(cells, tables, probes)
    for row in report["rows"]:
        mine = games[games["agent"] == row["agent"]]
        assert row["seats"] == len(mine) and row["wins"] == int(mine["win"].sum())
        assert row["ci95"] == list(stats.wilson(row["wins"], row["seats"]))
    (p,) = report["paired"]
    (want,) = stats.paired_by_deal(games)  # deductive < notebook: already first minus second
    assert p["deals"] == want["n"] == 3 and p["mean_diff"] == want["mean"]
    assert p["ci95"] == [want["lo"], want["hi"]] and p["sign_p"] == want["sign_p"]
    assert report["probes_differing"] == 0  # the replayed games ended as the tournament's did
    assert report["rows"][0]["bits_per_suggestion"] is not None


def test_agents_benchmark_stopped_halfway_resumes_to_the_same_table(tmp_path):
    cells = _tiny_agents()
    fresh = ex.run_cells(cells)
    options = ex.RunOptions(out=tmp_path)
    cells[0].tournament(options, games=2).run()  # a run stopped after two games
    said: list[str] = []
    resumed = ex.run_cells(cells, options, progress=said.append)
    assert "(4 played now" in said[0]
    assert same_tables(fresh, resumed)
    again: list[str] = []
    assert same_tables(fresh, ex.run_cells(cells, options, progress=again.append))
    assert "(0 played now" in again[0]


def test_agents_command_resumes_its_out_directory(tmp_path, capsys):
    argv = ["--players", "3", "--seats", "3", "--pairs", "deductive/notebook", "--probe-games", "1",
            "--seed", "3", "--json", "--out", str(tmp_path)]
    assert agents_bench.main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert agents_bench.main(argv) == 0
    captured = capsys.readouterr()
    assert "(0 played now" in captured.err
    assert strip(json.loads(captured.out), agents_bench.TIMING_FIELDS) == strip(first, agents_bench.TIMING_FIELDS)
    # another experiment in the same directory: one line, exit 2
    assert agents_bench.main([*argv[:-2], "--seed", "4", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "different tournament" in err


def test_search_agents_same_table_on_both_backends_and_resumed(tmp_path):
    cells = search_agents.cells(["racer"], ["notebook"], [3], seats=3, seed=1)
    serial = ex.run_cells(cells)
    options = ex.RunOptions("processes", workers=2, out=tmp_path)
    cells[0].tournament(ex.RunOptions(out=tmp_path), games=3).run()
    resumed = ex.run_cells(cells, options)
    assert same_tables(serial, resumed)
    probes = {cells[0].name: [search_agents.probe(cells[0], 0)]}
    a = search_agents.report(cells, serial, probes)
    b = search_agents.report(cells, resumed, probes)
    assert strip(a, search_agents.TIMING_FIELDS) == strip(b, search_agents.TIMING_FIELDS)
    (p,) = a["paired"]
    games = serial[cells[0].name]
    (want,) = stats.paired_by_deal(games)  # notebook < racer: the stats module's order is reversed
    assert want["a"] == "notebook" and p["agents"] == ["racer", "notebook"]
    assert p["mean_diff"] == -want["mean"] and (p["ahead"], p["behind"]) == (want["behind"], want["ahead"])


@pytest.mark.slow
def test_agents_command_killed_midway_resumes_to_the_same_table(tmp_path):
    """A real stop: the benchmark's process is SIGKILLed once its first games are on disk; the
    same command then plays only the rest and prints the table of an uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-m", "benchmarks.agents", "--players", "3", "--seats", "60", "--pairs",
            "deductive/notebook", "--probe-games", "1", "--seed", "8", "--backend", "serial", "--json"]
    parts = tmp_path / "killed" / "deductive-notebook-3p" / "parts"
    proc = subprocess.Popen([*argv, "--out", str(tmp_path / "killed")], cwd=root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not any(parts.glob("part-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    config = json.loads((parts.parent / "tournament.json").read_text())
    assert config["status"] == "running"  # really stopped mid-run
    resumed = subprocess.run([*argv, "--out", str(tmp_path / "killed")], cwd=root, capture_output=True, text=True,
                             check=True)
    played = int(resumed.stderr.split("(")[1].split(" played now")[0])
    assert 0 < played < 42  # only the missing games
    whole = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=True)
    fields = agents_bench.TIMING_FIELDS
    assert strip(json.loads(resumed.stdout), fields) == strip(json.loads(whole.stdout), fields)


def test_agents_command_with_no_cluster_at_the_address_is_one_line(capsys):
    pytest.importorskip("ray")
    code = agents_bench.main(["--players", "3", "--seats", "3", "--pairs", "deductive/notebook", "--backend", "ray",
                              "--address", "127.0.0.1:9", "--connect-timeout", "5"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "127.0.0.1:9" in err
