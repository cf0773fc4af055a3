"""``deduce tournament`` and ``deduce report`` end to end: fail-fast input, seats in the
header, the JSON that holds every figure of the text, resuming after ``kill -9`` and Ctrl-C."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from deduce.apps.tournament import TIMING_COLUMNS, TournamentResults
from deduce.apps.tournament.report import render
from deduce.cli import main

ROOT = Path(__file__).resolve().parents[2]
PLOTS = ("win_rate.png", "scores.png", "pairwise.png", "seat_winrate.png", "rating_history.png")


def test_json_output_holds_every_figure_and_the_rerun_plays_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = main(["tournament", "clue", "--agents", "deductive", "notebook", "random", "--games", "6",
                 "--seed", "1", "--json", "--backend", "serial"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {"run", "intervals", "seating", "agents", "ratings", "head_to_head", "paired", "seats", "forfeits"} <= set(out)
    assert {a["agent"] for a in out["agents"]} == {"deductive", "notebook", "random"}
    for entry in out["agents"]:
        assert entry["games"] == 6 and entry["seats"] == 6 and entry["win_rate"] == entry["wins"] / 6
        lo, hi = entry["win_ci"]
        assert 0 <= lo <= entry["win_rate"] <= hi <= 1
        s_lo, s_hi = entry["score_ci"]
        assert -1 <= s_lo <= entry["score"] <= s_hi <= 1 and entry["deals"] == 2
        assert {"mu", "sigma", "ordinal"} == set(entry["rating"])
    assert sum(e["wins"] for e in out["agents"]) <= 6
    assert out["intervals"]["unit"] == "deals" and len(out["paired"]) == 3
    assert out["run"]["versions"]["scipy"] and out["run"]["seed"] == 1 and out["forfeits"]["total"] == 0
    (results_dir,) = (tmp_path / "results").iterdir()  # the documented default location
    assert results_dir.name == f"clue-seed1-{out['run']['run_id']}" and (results_dir / "tournament.json").exists()
    assert (results_dir / "summary.csv").exists() and (results_dir / "summary.json").exists()
    # the same command again plays nothing and prints the same numbers
    assert main(["tournament", "clue", "--agents", "deductive", "notebook", "random", "--games", "6",
                 "--seed", "1", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["agents"] == out["agents"] and again["paired"] == out["paired"]


def test_report_json_round_trips_every_figure_of_the_text(tmp_path, capsys):
    out_dir = tmp_path / "run"
    assert main(["tournament", "clue", "--agents", "notebook", "random", "r2=random", "--games", "6",
                 "--seed", "2", "--out", str(out_dir), "--backend", "serial"]) == 0
    capsys.readouterr()
    assert main(["report", str(out_dir)]) == 0
    text = capsys.readouterr().out.rstrip("\n")
    assert main(["report", str(out_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert render(data) == text  # the text is drawn from the JSON alone
    for title in ("Head to head", "Per deal", "Win rate by seat", "Forfeits", "over deals", "seats:"):
        assert title in text
    numbers = set(re.findall(r"-?\d+\.\d+", text))
    printed = json.dumps(data)
    for token in numbers:  # spot check: each printed figure comes from a JSON value
        value = abs(float(token.rstrip("%")))
        assert any(abs(value - abs(float(v))) < 0.051 or abs(value - 100 * abs(float(v))) < 0.051
                   for v in re.findall(r"-?\d+\.?\d*(?:e-?\d+)?", printed)), token


def test_fewer_agents_than_seats_is_said_in_the_header(tmp_path, capsys):
    out_dir = tmp_path / "run"
    assert main(["tournament", "clue", "--agents", "notebook", "random", "--games", "3", "--out", str(out_dir),
                 "--backend", "serial"]) == 0
    captured = capsys.readouterr()
    assert "notebook holds 2 seats" in captured.err
    assert "seats: 3 per game, notebook holds 2 seats, random holds 1 seat of each game" in captured.out
    header = captured.out.splitlines()[3]
    assert header.split()[:5] == ["agent", "games", "seats", "wins", "win"]
    rows = {line.split()[0]: line.split() for line in captured.out.splitlines()[5:7]}
    assert rows["notebook"][1:3] == ["3", "6"] and rows["random"][1:3] == ["3", "3"]


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
    for name in PLOTS:
        assert (out_dir / name).stat().st_size > 1000


def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, capsys):
    base = ["tournament", "clue", "--games", "3", "--out", str(tmp_path / "x")]
    cases = [
        (["--agents", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["--agents", "random", "--config", "nosuchfield=1"], "nosuchfield"),
        (["--agents", "random", "--config", "dice=two"], "--config dice='two': expected a whole number"),
        (["--agents", "random", "--agent-param", "other:k=1"], "no agent labelled 'other'"),
        (["--agents", "random", "--players", "9"], "3 to 6 players"),
        (["--agents", "deductive", "notebook", "--agent-param", "deductive:solver=foo"], "unknown solver 'foo'"),
        (["--agents", "deductive:solver=foo", "notebook"], "agent 'deductive': unknown solver 'foo'"),
        (["--agents", "deductive:nosuch=1", "notebook"], "parameter nosuch='1': no such parameter"),
        (["--agents", "infogain:gamble=perhaps", "notebook"], "agent 'infogain': parameter gamble='perhaps'"),
    ]
    for flags, message in cases:
        assert main([*base, *flags]) == 2, flags
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if "error:" in line]
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in err, (flags, err)
    assert not (tmp_path / "x").exists()  # no game was played, nothing was written
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_agent_grammar_types_values_and_the_old_flag_still_works(tmp_path, capsys):
    out_dir = tmp_path / "run"
    assert main(["tournament", "clue", "--agents", "infogain:gamble=False,min_gamble=0.3", "notebook", "random",
                 "--games", "3", "--out", str(out_dir), "--backend", "serial", "--agent-param", "notebook:x=1"]) == 2
    assert "agent 'notebook': parameter x='1'" in capsys.readouterr().err
    assert main(["tournament", "clue", "--agents", "infogain:gamble=False,min_gamble=0.3", "notebook", "random",
                 "--games", "3", "--out", str(out_dir), "--backend", "serial"]) == 0
    config = json.loads((out_dir / "tournament.json").read_text())
    assert {"label": "infogain", "name": "infogain", "params": {"gamble": False, "min_gamble": 0.3}} in config["agents"]


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
    assert {a["agent"]: a["seats"] for a in json.loads(rerun.stdout)["agents"]}["random"] == games
    whole, resumed = TournamentResults.load(reference).games, TournamentResults.load(broken).games
    drop = list(TIMING_COLUMNS)
    pd.testing.assert_frame_equal(whole.drop(columns=drop), resumed.drop(columns=drop))
    assert len(resumed) == 3 * games


def test_ctrl_c_marks_the_run_interrupted_and_prints_the_resume_command(tmp_path, monkeypatch, capsys):
    import shlex

    from deduce.apps.tournament import runner
    from tests.apps.tournament.test_run import interrupt_after

    real = interrupt_after(monkeypatch, 1)
    monkeypatch.chdir(tmp_path)
    argv = ["tournament", "clue", "--agents", "notebook", "random", "r2=random", "--games", "3", "--seed", "4",
            "--config", "max_turns=60", "--backend", "serial"]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "interrupted after 1 new games; 1 of 3 recorded" in err
    command = err.split("resume with:")[1].strip()
    (out_dir,) = (tmp_path / "results").iterdir()
    config = json.loads((out_dir / "tournament.json").read_text())
    assert config["status"] == "interrupted" and config["games_recorded"] == 1
    words = shlex.split(command)
    assert words[:3] == ["deduce", "tournament", "clue"]
    assert Path(words[words.index("--out") + 1]).resolve() == out_dir.resolve()
    monkeypatch.setattr(runner, "run_games", real)
    assert main(words[1:]) == 0  # the printed command carries on where it stopped
    config = json.loads((out_dir / "tournament.json").read_text())
    assert config["status"] == "complete" and config["games_recorded"] == 3


def test_no_arguments_plays_the_default_clue_tournament(tmp_path, monkeypatch, capsys):
    from deduce.cli.tournament import DEFAULT_AGENTS

    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--games", "3", "--json"]) == 0  # `deduce tournament` with a shorter run
    data = json.loads(capsys.readouterr().out)
    assert data["run"]["game"] == "clue" and data["run"]["seed"] == 0
    assert [a["label"] for a in data["run"]["agents"]] == list(DEFAULT_AGENTS["clue"])
    parser_defaults = __import__("deduce.cli", fromlist=["build_parser"]).build_parser().parse_args(["tournament"])
    assert (parser_defaults.game, parser_defaults.games, parser_defaults.agents) == ("clue", 60, None)
