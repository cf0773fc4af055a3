"""Bad options of ``deduce tournament`` and ``deduce report`` (issue 22, item 8): one line naming
the input, exit 2, before any game is played or any directory is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deduce.cli import main

pytest.importorskip("pandas")

ROOT = Path(__file__).resolve().parents[2]
GAME = "checkpoint-charlie"


def _refused(capsys, argv: list[str], *needles: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _tournament(tmp_path: Path, *extra: str) -> list[str]:
    return ["tournament", GAME, "--agents", "random", "r2=random", "--games", "2", "--backend", "serial",
            "--out", str(tmp_path / "out"), *extra]


@pytest.mark.parametrize("value", ["nan", "NaN", "-1", "0", "inf", "-inf", "abc", ""])
def test_a_move_time_limit_that_cannot_trip_is_refused(tmp_path, capsys, value: str) -> None:
    _refused(capsys, _tournament(tmp_path, f"--move-time-limit={value}"), "--move-time-limit")
    assert not (tmp_path / "out").exists()


def test_a_move_time_limit_is_taken_and_printed(tmp_path, capsys) -> None:
    assert main(_tournament(tmp_path, "--move-time-limit", "2.5", "--json")) == 0
    err = capsys.readouterr().err
    assert "move time limit 2.5 s" in err and "default" not in err


def test_a_config_value_of_the_wrong_type_is_one_line(tmp_path, capsys) -> None:
    _refused(capsys, _tournament(tmp_path, "--config", "num_players=abc"), "num_players", "whole number")


@pytest.mark.parametrize("agent, param, known", [
    ("random", "r2:depth=3", "agent 'r2' (random): parameter depth"),
    ("random", "random:depth=3", "agent 'random': parameter depth"),
    ("patient", "patient:depth=3", "last_chance"),
])
def test_an_unknown_agent_parameter_names_the_agent_and_what_it_takes(tmp_path, capsys, agent, param, known) -> None:
    argv = ["tournament", GAME, "--agents", agent, "random" if agent != "random" else "r2=random", "--games", "2",
            "--backend", "serial", "--out", str(tmp_path / "out"), "--agent-param", param]
    line = _refused(capsys, argv, known, "no such parameter")
    assert "it takes" in line


def test_an_unknown_inline_agent_parameter_is_refused(tmp_path, capsys) -> None:
    argv = ["tournament", GAME, "--agents", "random:depth=3", "r2=random", "--games", "2", "--backend", "serial",
            "--out", str(tmp_path / "out")]
    _refused(capsys, argv, "agent 'random'", "depth", "no such parameter")


def test_out_naming_a_file_is_one_line_and_the_file_is_untouched(tmp_path, capsys) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("mine\n")
    argv = ["tournament", GAME, "--games", "1", "--backend", "serial", "--out", str(path)]
    _refused(capsys, argv, "--out", "is a file")
    assert path.read_text() == "mine\n"


def test_report_of_a_file_is_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("mine\n")
    _refused(capsys, ["report", str(path)], "is a file")
    _refused(capsys, ["report", str(tmp_path / "missing")], "no tournament results here")


def test_the_installed_command_refuses_a_nan_limit_with_exit_2(tmp_path) -> None:
    """The same through a real process: one line on stderr, exit status 2."""
    proc = subprocess.run([sys.executable, "-m", "deduce", *_tournament(tmp_path, "--move-time-limit", "nan")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "--move-time-limit" in proc.stderr
