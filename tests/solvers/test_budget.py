"""The work budget (solvers.budget): counted steps, so a refusal is the same on any machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import solvers
from deduce.cli import main
from deduce.errors import TooLarge
from deduce.logs import load_log
from solvers.budget import Meter, metered

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _kb(name: str):
    return load_log(json.loads((EXAMPLES / name).read_text()), check=None)


def test_meter_refuses_past_its_limit() -> None:
    m = Meter(10)
    m.charge(10)
    with pytest.raises(TooLarge, match="more than 10 steps"):
        m.charge(1)
    with pytest.raises(ValueError):
        Meter(0)


def test_exact_counts_the_same_steps_every_time_and_refuses_below_them() -> None:
    kb = _kb("mafia-code-3p.json")
    used = []
    for _ in range(2):
        with metered(10**9) as m:
            total = solvers.get("exact").tallies(kb).total
        used.append(m.used)
    assert total == 15896 and used[0] == used[1] > 0
    with metered(used[0] - 1), pytest.raises(TooLarge):
        solvers.get("exact").tallies(kb)
    with metered(used[0]):
        assert solvers.get("exact").tallies(kb).total == 15896


def test_cpsat_and_chain_are_metered() -> None:
    kb = _kb("crime-hotel-4p.json")
    with metered(10**9) as m:
        solvers.get("chain").tallies(kb)
    assert m.used > 0
    with metered(1), pytest.raises(TooLarge):
        solvers.get("chain").tallies(kb)
    with metered(1), pytest.raises(TooLarge):
        solvers.get("cpsat").possible(kb)


def test_solve_refuses_in_one_line_naming_the_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(EXAMPLES / "mafia-code-3p.json"), "--budget", "1000"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "1,000 counted steps" in err and "--budget" in err
    assert main(["solve", str(EXAMPLES / "mafia-code-3p.json")]) == 0
    assert "15896 consistent deals" in capsys.readouterr().out
