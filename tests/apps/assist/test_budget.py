"""``deduce assist --budget``: the work budget of ``deduce solve`` applied to each update or
query of the assistant (issue 22, item 3), tested by counting steps with tiny budgets, never by
timing. The example Mafia Code log needs 18,761 steps for the counting DP to decide whether its
events fit, and CP-SAT a few hundred (its deterministic time), so a budget of 10,000 refuses the
counter and leaves room for the checker."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import solvers
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.cli import assist as assist_cli
from deduce.cli import build_parser
from solvers.budget import metered

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
LOG = json.loads((EXAMPLES / "mafia-code-3p.json").read_text())
BETWEEN = 10_000  # more than CP-SAT needs for this log, less than the counting DP


def assistant(budget, checker=None, log=LOG):
    return GameAssistant(adapter_for("mafia-code"), solvers.get("auto"), log=log, budget=budget, checker=checker)


def test_the_budget_sits_between_the_counter_and_the_checker():
    kb = assistant(None).kb
    used = {}
    for name in ("exact", "cpsat"):
        with metered(10**12) as meter:
            assert solvers.get(name).consistent(kb)
        used[name] = meter.used
    assert used["cpsat"] < BETWEEN < used["exact"], used


def test_a_line_past_the_budget_is_refused_in_one_line_and_changes_nothing():
    saved = []
    a = GameAssistant(adapter_for("mafia-code"), solvers.get("auto"), log=LOG, save=saved.append, budget=1_000)
    assert "not checked for contradictions: too large" in a.start()
    for line in ("why red A", "code bob red A 1"):
        answer = a.handle(line)
        assert answer.count("\n") == 0, answer
        assert "too large: this log needs more than the work budget of 1,000 counted steps" in answer
        assert "--budget" in answer and "the log is unchanged" in answer
    assert a.events == LOG["events"] and saved == []


def test_without_a_budget_the_same_lines_are_answered():
    a = assistant(None)
    assert a.conflict is None and "(approximate" not in a.start()
    assert "red A is cy's" in a.handle("why red A")


def test_the_checker_logs_an_event_the_counter_cannot_check_within_the_budget():
    refused = assistant(BETWEEN)
    assert "the line was not acted on" in refused.handle("code bob red A 1")
    assert len(refused.events) == len(LOG["events"])
    a = assistant(BETWEEN, checker=solvers.get("cpsat"))
    text = a.start()
    assert a.conflict is None and "(approximate: too many deals to count" in text
    answer = a.handle("code bob red A 1")
    assert answer.startswith(f"event {len(LOG['events'])}: bob rolled red/A; written: bob 1"), answer
    assert len(a.events) == len(LOG["events"]) + 1


def test_each_line_has_a_budget_of_its_own():
    a = assistant(None)  # the resume's check (unmetered) leaves the counter's plan cached
    with metered(10**12) as meter:
        assert a.handle("why red A").startswith("red A is cy's")
    one = meter.used
    assert one > 0
    b = assistant(None)
    b.budget = one + one // 2  # one why fits, two would not
    for _ in range(3):
        assert b.handle("why red A").startswith("red A is cy's")
    b.budget = one - 1
    assert "too large" in b.handle("why red A")


def test_a_budget_is_steps_zero_or_more():
    with pytest.raises(ValueError, match="0 or more"):
        assistant(-1)
    assert assistant(0).budget is None


def test_the_command_takes_the_solve_flag(tmp_path):
    path = tmp_path / "mafia.json"
    path.write_text(json.dumps(LOG))
    args = build_parser().parse_args(["assist", "mafia-code", "--log", str(path), "--budget", "1000"])
    out = io.StringIO()
    assert assist_cli.run(args, stdin=io.StringIO("grid\nquit\n"), stdout=out) == 0
    text = out.getvalue()
    assert "work budget of 1,000 counted steps" in text and "the game is saved" in text
    assert json.loads(path.read_text()) == LOG
    run = subprocess.run([sys.executable, "-m", "deduce", "assist", "mafia-code", "--log", str(path), "--budget", "-1"],
                         capture_output=True, text=True, input="quit\n", timeout=120)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and "--budget" in run.stderr, run.stderr
