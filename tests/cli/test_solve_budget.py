"""``deduce solve --budget``: every backend and every query of the command counts against one
work budget (issue 22, item 3), tested with tiny budgets (counted steps), never by timing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import solvers
from deduce.cli import main
from deduce.errors import TooLarge
from deduce.logs import load_log
from solvers.budget import metered

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _kb(name: str):
    return load_log(json.loads((EXAMPLES / name).read_text()), check=None)


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], budget: int) -> None:
    assert main([*argv, "--budget", str(budget)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"work budget of {budget:,} counted steps" in err and "--budget" in err, err


@pytest.mark.parametrize("log, card", [("mafia-code-3p.json", "red A"), ("crime-hotel-4p.json", "101")])
def test_why_is_refused_past_the_budget_and_answered_within_it(capsys, log, card):
    argv = ["solve", str(EXAMPLES / log), "--why", card]
    _refused(capsys, argv, 100)
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith(card)


def test_csp_search_is_counted_between_two_worlds():
    """python-constraint's search runs without returning between two worlds: its constraint
    checks are counted, so even a search that finds no world is stopped by the budget."""
    kb = _kb("clue-3p.json")
    with metered(10**9) as meter:
        total = solvers.get("csp").tallies(kb).total
    assert total == solvers.get("exact").tallies(kb).total and meter.used > total
    with metered(meter.used - 1), pytest.raises(TooLarge):
        solvers.get("csp").tallies(kb)
    with metered(50), pytest.raises(TooLarge):
        solvers.get("csp").consistent(kb)  # refused before its first world


def test_tokens_counts_the_worlds_it_lists(capsys):
    kb = _kb("checkpoint-charlie-4p.json")
    with metered(10**9) as meter:
        solvers.get("tokens").tallies(kb)
    assert meter.used > 0
    _refused(capsys, ["solve", str(EXAMPLES / "checkpoint-charlie-4p.json"), "--solver", "tokens"], meter.used - 1)


def test_the_timeline_counter_is_metered():
    from deduce.apps.assist.alibi_adlung import Uncounted, face_posterior
    from deduce.games.alibi_adlung.log import parse

    data = json.loads((EXAMPLES / "alibi-adlung-3p.json").read_text())
    game, obs = parse(data)
    with metered(10**9) as meter:
        answer = face_posterior(game, data, obs)
    assert not isinstance(answer, Uncounted) and meter.used > 0
    with metered(meter.used - 1):
        refused = face_posterior(game, data, obs)
    assert isinstance(refused, Uncounted) and "steps of counting work" in refused.reason


def test_a_negative_budget_is_one_line(capsys):
    assert main(["solve", str(EXAMPLES / "clue-3p.json"), "--budget", "-5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--budget" in err
