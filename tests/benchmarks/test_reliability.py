"""The reliability campaign's new parts (issue 22) at a small budget: hostile saved logs resumed
by ``deduce assist --log``, the tournament's misbehaving-agent zoo, and SIGKILLed process-backend
tournaments. Each asserts the real outcomes on a few cases (no crash, no hang, no changed file,
every misbehaviour a forfeit, no process left behind) and that a planted failure is counted as
one, so the counters cannot pass by counting nothing. The large run is
``python -m benchmarks.reliability`` (figures in docs/reliability.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest

from benchmarks import reliability as rel
from deduce.errors import LogError

pytest.importorskip("psutil")


# -- resume -----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", [
    pytest.param(g, marks=() if g in ("clue", "mafia-code") else pytest.mark.slow) for g in sorted(rel.EXAMPLE)
])
def test_hostile_saved_logs_resume_or_are_refused_in_one_line_and_change_nothing(game):
    tally = rel.resume_campaign(game, 8, random.Random(game), hang=120)
    assert tally.tried == 8 and tally.refused + tally.answered == 8, tally
    assert (tally.crashes, tally.hangs, tally.bad) == (0, 0, 0), tally.examples


def test_unicode_names_and_a_log_without_final_newline_resume_and_a_locked_log_is_refused(tmp_path):
    resumed = rel.resume_campaign("clue", 2, random.Random(1), 120, kinds=("no final newline",))
    assert resumed.answered == 2 and resumed.bad == 0, resumed.examples
    log = json.loads((rel.EXAMPLES / rel.EXAMPLE["clue"]).read_text())
    for name in ("李", "김민준", "é", "!!!"):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(rel._renamed(log, "bob", name)), encoding="utf-8")
        outcome, _, text = rel._run_cli(["assist", "clue", "--log", str(path)], 120, stdin="events\n")
        assert outcome == "answered", (name, text)
    locked = rel.resume_campaign("clue", 2, random.Random(1), 120, kinds=("locked",))
    assert locked.refused == 2 and locked.bad == 0, locked.examples


def test_a_planted_crash_hang_and_changed_file_are_counted(monkeypatch):
    import deduce.cli.assist as assist_cli
    import deduce.logs

    def crash(*args, **kwargs):
        raise RuntimeError("planted")

    monkeypatch.setattr(assist_cli, "GameAssistant", crash)
    crashed = rel.resume_campaign("clue", 2, random.Random(1), 120, kinds=("no final newline",))
    assert crashed.crashes == 2 and "planted" in crashed.examples[0]

    monkeypatch.setattr(assist_cli, "GameAssistant", lambda *a, **k: time.sleep(30))
    hung = rel.resume_campaign("clue", 1, random.Random(1), 0.3, kinds=("no final newline",))
    assert hung.hangs == 1

    real = deduce.logs.decode_log

    def touch_then_refuse(path):
        real(path)
        with open(path, "a") as f:
            f.write(" ")
        raise LogError("planted refusal")

    monkeypatch.setattr(deduce.logs, "decode_log", touch_then_refuse)
    changed = rel.resume_campaign("clue", 1, random.Random(1), 120, kinds=("no final newline",))
    assert changed.refused == 1 and changed.bad == 1


def test_the_campaign_prints_a_resume_row(capsys):
    rel.main(["--cases", "0", "--lines", "0", "--kills", "0", "--resumes", "3", "--zoo", "0", "--orphans", "0",
              "--games", "mafia-code"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("resume")]
    assert len(rows) == 1
    part, game, tried, refused, answered, crashes, hangs, bad, _ = rows[0]
    assert (game, tried, crashes, hangs, bad) == ("mafia-code", "3", "0", "0", "0")
    assert int(refused) + int(answered) == 3


# -- the agent zoo ----------------------------------------------------------------------------
@pytest.fixture
def zoo_registered(monkeypatch):
    """The campaign's ``zoo`` agent, registered in this process (the campaign's own runs
    register it in theirs)."""
    import agents.registry

    monkeypatch.setitem(agents.registry._GENERIC, "zoo", "benchmarks.reliability:ZooAgent")


@pytest.mark.parametrize("mode", ["raise", "observe", "bad-eq"])
def test_the_judge_accepts_a_recorded_forfeit_and_nothing_else(tmp_path, zoo_registered, mode):
    from deduce.apps.tournament import Tournament

    case = rel.ZooCase("checkpoint-charlie", "serial", mode, at=1, seat=1, games=3, seed=2)
    out = tmp_path / "out"
    Tournament(case.game, ["random", "r2=random", f"zoo:mode={mode},seat=1,at=1"], games=3, seed=2,
               backend="serial", out=out, progress=False).run()
    assert rel.judge_zoo(case, 0, "", out) == ("forfeit", "1 forfeits")
    assert rel.judge_zoo(case, 0, "", out, ("timeout", ("interrupted",)))[0] == "failure"  # another reason
    assert rel.judge_zoo(case, 0, "Traceback (most recent call last):\nBoom", out)[0] == "failure"
    assert rel.judge_zoo(case, 3, "", out)[0] == "failure"
    assert rel.judge_zoo(case, None, "", out)[0] == "hang"
    assert rel.judge_zoo(rel.ZooCase(case.game, "serial", mode, seat=2, games=3, seed=2), 0, "", out)[0] == "failure"


def test_the_command_records_the_zoo_and_a_planted_uncatchable_failure_is_counted():
    """Through ``deduce tournament`` in fresh processes: an agent raising in act is a forfeit;
    one SIGKILLing its own (serial) process cannot be caught, and is counted as a failure."""
    cases = [rel.ZooCase("checkpoint-charlie", "serial", "raise", 2, 1, 3, 5),
             rel.ZooCase("checkpoint-charlie", "serial", "sigkill", 1, 1, 3, 5)]
    tallies = rel.zoo_campaign(cases, move_limit=5, timeout=300)
    serial = tallies["serial"]
    assert (serial.tried, serial.answered, serial.crashes, serial.hangs) == (2, 1, 1, 0), serial.examples
    assert "sigkill" in serial.examples[0] and "exit -9" in serial.examples[0]


def test_os_exit_on_the_serial_backend_is_a_forfeit_of_that_seat_and_the_run_completes(tmp_path):
    """Through ``deduce tournament`` in a fresh process (issue 22): the zoo's ``os._exit(1)`` in
    seat 1 costs game 1 (the one it sits there), exit 0, the other games played."""
    from deduce.apps.tournament import TournamentResults

    case = rel.ZooCase("checkpoint-charlie", "serial", "os-exit", at=1, seat=1, games=3, seed=0)
    outcome, _, why = rel.run_zoo_case(case, tmp_path, rel._zoo_env(tmp_path), move_limit=None, timeout=300)
    assert outcome == "forfeit", why  # exit 0, no traceback, status complete, every game recorded
    games = TournamentResults.load(tmp_path / "checkpoint-charlie-serial-os-exit-1-0").games
    forfeits = games[games["forfeit"]]
    assert forfeits[["game_id", "agent", "seat", "failure", "failure_message"]].values.tolist() == [
        [1, "zoo", 1, "exception", "the agent called os._exit(1)"]]
    played = games[games["game_id"] != 1]
    assert sorted(set(played["game_id"])) == [0, 2] and (played["decisions"] > 0).all()
    assert rel.judge_zoo(case, 0, "", tmp_path / "checkpoint-charlie-serial-os-exit-1-0",
                         rel.ZOO["os-exit"])[0] == "failure"  # the processes backend's crash is not this


@pytest.mark.slow
def test_every_zoo_mode_on_both_backends_is_a_recorded_forfeit():
    cases = rel.zoo_cases(1, random.Random(3), games=("checkpoint-charlie", "clue"))
    assert {c.mode for c in cases} == set(rel.ZOO) and {c.backend for c in cases} == set(rel.BACKENDS)
    tallies = rel.zoo_campaign(cases, move_limit=0.5, timeout=300)
    for backend, tally in tallies.items():
        # 'refused': every game ended before the misbehaving call (a random Clue agent may accuse at once)
        assert tally.answered + tally.refused == tally.tried and (tally.crashes, tally.hangs) == (0, 0), (backend, tally.examples)
        assert tally.answered >= tally.tried // 2, tally


# -- orphans ----------------------------------------------------------------------------------
def test_a_process_left_running_is_counted_and_a_dead_one_is_not():
    import psutil

    planted = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        process = psutil.Process(planted.pid)
        assert rel.left_behind([process], 0.3) == [process]
    finally:
        planted.kill()
        planted.wait()
    assert rel.left_behind([process], 2.0) == []


@pytest.mark.slow
def test_a_sigkilled_processes_tournament_leaves_nothing_behind():
    tally = rel.orphan_campaign(2, random.Random(4))
    assert tally.tried == 2 and tally.answered == 2 and tally.bad == 0, tally.examples
