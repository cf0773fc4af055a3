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


def _python_path_problem():
    """The Mafia Code example's problem, counted on Python ints (as a DP whose counts may pass
    2**62 is: the slow pass the prediction spares); its states fit 62 bits."""
    from solvers import exact_dp

    problem = exact_dp.problem_from_kb(_kb("mafia-code-3p.json"))
    plan = exact_dp.Plan(problem, exact_dp.DEFAULT_LIMIT, False)
    assert not plan.kernels and plan.state_bits <= 62 and plan.total == 15896
    return problem, plan.work


@pytest.fixture
def counting_passes(monkeypatch):
    """Every run of the exact DP's Python counting pass, recorded (``pay``: whether it charged)."""
    from solvers import exact_dp

    runs: list[bool] = []
    real = exact_dp.Plan._count_python

    def counted(self, pay):
        runs.append(pay)
        return real(self, pay)

    monkeypatch.setattr(exact_dp.Plan, "_count_python", counted)
    return runs


@pytest.mark.parametrize("short", [1, 1000])
def test_a_dp_past_the_budget_is_refused_before_any_counting(monkeypatch, counting_passes, short):
    """The prediction refuses with the counting pass's message and the same steps on the meter
    (so auto's other backends see the same budget left), and no counting pass runs."""
    from solvers import exact_dp

    problem, need = _python_path_problem()
    outcomes = []
    for predict in (False, True):
        with monkeypatch.context() as m:
            if not predict:
                m.setattr(exact_dp.Plan, "_predict", lambda self: None)
            counting_passes.clear()
            with metered(need - short) as meter, pytest.raises(TooLarge) as refused:
                exact_dp.Plan(problem, exact_dp.DEFAULT_LIMIT, False)
            outcomes.append((str(refused.value), meter.used, list(counting_passes)))
            with pytest.raises(TooLarge) as limited:  # the plan's own limit: the same
                exact_dp.Plan(problem, need - short, False)
            outcomes.append((str(limited.value), None, None))
    (old, old_limit, new, new_limit) = outcomes
    assert new[0] == old[0] and "steps of counting work" in new[0] and new[1] == old[1] > need - short
    assert old[2] == [True] and new[2] == []  # the old way counted until it passed; now nothing is counted
    assert new_limit[0] == old_limit[0] and "DP transitions" in new_limit[0]


def test_within_the_budget_the_prediction_charges_what_counting_does(monkeypatch, counting_passes):
    from solvers import exact_dp

    problem, need = _python_path_problem()
    counting_passes.clear()
    with metered(need) as meter:
        plan = exact_dp.Plan(problem, exact_dp.DEFAULT_LIMIT, False)
        assert plan.feasible and counting_passes == []  # a consistency check stops here
        assert plan.total == 15896 and counting_passes == [False]  # counted on first use, not charged again
    assert meter.used == need
    kb = _kb("mafia-code-3p.json")
    counting_passes.clear()
    assert solvers.get("exact", kernels=False).consistent(kb) and counting_passes == []


# -- auto under a meter: iterative deepening over its backends -------------------------------
class _Fake(solvers.Solver):
    """A backend that needs ``need`` steps to answer (None: never answers; ``own``: refuses by
    its own limit at that many steps), charging them one by one like a counter does."""

    can_count = True

    def __init__(self, name: str, need: int | None, own: int | None = None) -> None:
        self.name, self.need, self.own, self.calls = name, need, own, 0

    def supports(self, kb) -> bool:
        return True

    def consistent(self, kb) -> bool:
        from solvers.budget import charge

        self.calls += 1
        for step in range(1, 10**9):
            if self.own is not None and step > self.own:
                raise TooLarge(f"{self.name}: over its own limit")
            if self.need is not None and step > self.need:
                return True
            charge(1_000)


def _auto(*backends: _Fake):
    from solvers.auto import AutoSolver

    auto = AutoSolver(order=())
    auto._backends = list(backends)
    return auto


def test_a_backend_that_would_spend_the_whole_budget_leaves_some_for_the_next(monkeypatch) -> None:
    import solvers.auto as auto_module

    monkeypatch.setattr(auto_module, "_FIRST_ALLOWANCE", 10_000)
    kb = _kb("mafia-code-3p.json")
    hog, quick = _Fake("hog", None), _Fake("quick", 5)
    with metered(1_000_000) as m:
        assert _auto(hog, quick).consistent(kb)
    # round 0: hog's share of 10 steps, then quick's (it needs 5 and answers)
    assert (hog.calls, quick.calls) == (1, 1) and m.used == 10_000 + 1_000 + 5_000
    used = m.used
    with metered(1_000_000) as m:  # the same work every time: counted, not timed
        _auto(_Fake("hog", None), _Fake("quick", 5)).consistent(kb)
    assert m.used == used
    # in plain order (no meter) the hog would have run past any budget first
    with metered(used - 1), pytest.raises(TooLarge):
        _auto(_Fake("hog", None), _Fake("quick", 5)).consistent(kb)


def test_deepening_retries_a_share_refusal_and_drops_an_own_refusal(monkeypatch) -> None:
    import solvers.auto as auto_module

    monkeypatch.setattr(auto_module, "_FIRST_ALLOWANCE", 10_000)
    kb = _kb("mafia-code-3p.json")
    # slow needs 30 steps: refused by its share of 10, answers in round 1 (share 40);
    # limited refuses by its own limit in round 0 and is never asked again
    slow, limited, never = _Fake("slow", 30), _Fake("limited", None, own=3), _Fake("never", None)
    with metered(10_000_000):
        assert _auto(slow, limited, never).consistent(kb)
    assert (slow.calls, limited.calls) == (2, 1)
    assert never.calls == 0  # third in order: brought in from round 1, after slow answered
    with metered(50_000), pytest.raises(TooLarge, match="50,000 steps"):
        _auto(_Fake("a", None), _Fake("b", None)).consistent(kb)


def test_a_log_that_fits_is_checked_once_not_once_per_event() -> None:
    data = json.loads((EXAMPLES / "mafia-code-3p.json").read_text())
    calls = []

    class Counting:
        def consistent(self, kb) -> bool:
            calls.append(len(kb.constraints))
            return True

    kb = load_log(data, check=Counting())
    assert len(data["events"]) > 5 and calls == [len(kb.constraints)]


def test_a_contradiction_only_a_solver_sees_is_found_by_bisection() -> None:
    """Events only add constraints, so the first event whose prefix has no world is found by
    bisection: a handful of checks for a log of 25 events, and the same one-line error."""
    from deduce.errors import LogError

    data = json.loads((EXAMPLES / "mafia-code-3p.json").read_text())
    n = len(data["events"])
    calls = []

    class Refuting:  # a stand-in solver: no world once the knowledge holds event 7
        def consistent(self, kb) -> bool:
            calls.append(1)
            return "event 7" not in kb.sources

    with pytest.raises(LogError, match=r"^event 7 \(.*\) contradicts the events before it: no consistent world"):
        load_log(data, check=Refuting())
    assert n >= 16 and len(calls) <= 2 + n.bit_length(), (n, len(calls))
