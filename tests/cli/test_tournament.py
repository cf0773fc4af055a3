"""``deduce tournament`` and ``deduce report`` end to end, and resuming after ``kill -9``."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from deduce.apps.tournament import TIMING_COLUMNS, TournamentResults
from deduce.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_json_output_is_exactly_the_win_rates(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = main(["tournament", "clue", "--agents", "deductive", "notebook", "random", "--games", "6",
                 "--seed", "1", "--json", "--backend", "serial"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["agents"] and set(out["agents"]) == {"deductive", "notebook", "random"}
    for entry in out["agents"].values():
        assert set(entry) == {"games", "wins", "win_rate", "ci95"}
        assert entry["games"] == 6 and entry["win_rate"] == entry["wins"] / 6
        lo, hi = entry["ci95"]
        assert 0 <= lo <= entry["win_rate"] <= hi <= 1
    assert sum(e["wins"] for e in out["agents"].values()) <= 6
    (results_dir,) = (tmp_path / "results").iterdir()  # the documented default location
    assert results_dir.name.startswith("clue-seed1-") and (results_dir / "tournament.json").exists()
    # the same command again plays nothing and prints the same numbers
    assert main(["tournament", "clue", "--agents", "deductive", "notebook", "random", "--games", "6",
                 "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == out


@pytest.mark.slow
def test_leaderboard_params_config_and_report(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main(["tournament", "clue", "--agents", "deductive", "slow=deductive", "random", "--games", "3",
                 "--agent-param", "slow:solver=csp", "--config", "max_turns=40", "--out", str(out_dir),
                 "--backend", "serial"])
    assert code == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "slow" in text and "95% CI" in text
    config = json.loads((out_dir / "tournament.json").read_text())
    assert config["config"] == {"max_turns": 40} and config["status"] == "complete"
    assert {"label": "slow", "name": "deductive", "params": {"solver": "csp"}} in config["agents"]
    assert "deduce_version" in config
    assert main(["report", str(out_dir), "--plots"]) == 0
    report = capsys.readouterr().out
    assert "Head to head" in report and "Win rate by seat" in report and "Forfeits" in report
    for name in ("ratings.png", "pairwise.png", "seat_winrate.png"):
        assert (out_dir / name).stat().st_size > 1000


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    base = ["tournament", "clue", "--games", "3", "--out", str(tmp_path / "x")]
    assert main([*base, "--agents", "nosuchagent"]) == 2
    assert main([*base, "--agents", "random", "--config", "nosuchfield=1"]) == 2
    assert main([*base, "--agents", "random", "--agent-param", "other:k=1"]) == 2
    assert main([*base, "--agents", "random", "--players", "9"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 4 and "Traceback" not in err
    assert main(["report", str(tmp_path / "nothing")]) == 2


def _command(out: Path, games: int) -> list[str]:
    return [sys.executable, "-m", "deduce", "tournament", "clue", "--agents", "deductive", "notebook", "random",
            "--games", str(games), "--seed", "3", "--backend", "serial", "--out", str(out), "--json"]


@pytest.mark.slow
def test_killed_run_resumes_to_the_same_table(tmp_path):
    games = 30
    reference = tmp_path / "whole"
    subprocess.run(_command(reference, games), check=True, capture_output=True, cwd=ROOT)

    broken = tmp_path / "killed"
    proc = subprocess.Popen(_command(broken, games), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        parts = broken / "parts"
        if parts.is_dir() and any(p.name.startswith("part-") for p in parts.iterdir()):
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    partial = TournamentResults.load(broken).num_games
    assert 0 < partial < games  # killed mid-way, with some games on disk

    rerun = subprocess.run(_command(broken, games), check=True, capture_output=True, cwd=ROOT, text=True)
    assert json.loads(rerun.stdout)["agents"]["random"]["games"] == games
    whole, resumed = TournamentResults.load(reference).games, TournamentResults.load(broken).games
    drop = list(TIMING_COLUMNS)
    pd.testing.assert_frame_equal(whole.drop(columns=drop), resumed.drop(columns=drop))
    assert len(resumed) == 3 * games
