"""``deduce assist`` against hostile input and failing parts (issue 22, item 4): a line of only
commas, two sessions on one log, a save that fails, a deeply nested or over-long log, an input
that ends mid-line, and over-long values echoed in errors."""

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.reliability import EXAMPLE, EXAMPLES  # one table of example logs: the campaign's
from deduce.apps.assist.adapters import table_adapter
from deduce.apps.assist.session import GameAssistant, assisted_games
from deduce.apps.assist.text import ECHO_LIMIT, quiet_long_values, short
from deduce.cli import assist as assist_cli
from deduce.cli import build_parser
from deduce.errors import DeduceError, LogError
from deduce.logs import MAX_EVENTS
from tests.apps.assist.test_session import session, solver_for


def test_every_game_has_an_example_log():
    assert set(EXAMPLE) == set(assisted_games())
    for game, name in EXAMPLE.items():
        assert json.loads((EXAMPLES / name).read_text())["game"] == game


def resumed(game, saves=None):
    """A session resuming ``game``'s example log; ``saves`` collects what it saves."""
    data = json.loads((EXAMPLES / EXAMPLE[game]).read_text())
    return GameAssistant(table_adapter(game), solver_for(game), log=data, save=(saves or []).append)


def copy_example(tmp_path, game):
    path = tmp_path / f"{game}.json"
    shutil.copy(EXAMPLES / EXAMPLE[game], path)
    return path


def cli(*args, stdin="", timeout=120):
    """The real command, in its own process: (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "deduce", *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )
    return proc.returncode, proc.stdout, proc.stderr


# -- a line of only commas ---------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(EXAMPLE))
def test_a_line_of_only_commas_is_refused_in_one_line(game):
    saves = []
    assistant = resumed(game, saves)
    before = assistant.log()
    for line in (",", ",,,", " , , ", ",\t,"):
        answer = assistant.handle(line)
        assert answer.startswith("error: ") and "\n" not in answer, answer
        assert "only commas" in answer
    assert assistant.log() == before and saves == []


def test_a_line_of_only_commas_through_the_real_command(tmp_path):
    path = copy_example(tmp_path, "mafia-code")
    before = path.read_text()
    code, out, err = cli("assist", "mafia-code", "--log", str(path), stdin=",,,\nquit\n")
    assert code == 0 and "Traceback" not in err and "internal error" not in out
    assert "error: a line of only commas says nothing" in out
    assert path.read_text() == before


# -- one session per log -----------------------------------------------------------------------
@pytest.mark.slow
def test_a_second_session_on_one_log_is_refused_naming_the_log_and_the_holder(tmp_path):
    path = copy_example(tmp_path, "mafia-code")
    first = subprocess.Popen(
        [sys.executable, "-m", "deduce", "assist", "mafia-code", "--log", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lock = tmp_path / ".mafia-code.json.lock"
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert time.monotonic() < deadline, "the first session never took the lock"
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.05)
        code, out, err = cli("assist", "mafia-code", "--log", str(path), stdin="miss cy bob blue a\nquit\n")
        assert code == 2 and "Traceback" not in err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and f"process {first.pid}" in lines[0], err
        assert "miss" not in out  # nothing was read, nothing written
    finally:
        out, err = first.communicate("quit\n", timeout=60)
    assert first.returncode == 0, err
    # the lock ended with the first session: a new one may write the log
    code, out, err = cli("assist", "mafia-code", "--log", str(path), stdin="quit\n")
    assert code == 0, err


def test_the_lock_is_held_only_while_the_session_runs(tmp_path):
    path = tmp_path / "g.json"
    with assist_cli.log_lock(path):
        with pytest.raises(assist_cli.LogInUse, match=f"process {os.getpid()}") as caught:
            with assist_cli.log_lock(path):
                pass  # pragma: no cover - never entered
        assert isinstance(caught.value, DeduceError) and isinstance(caught.value, OSError)
    with assist_cli.log_lock(path):  # released: taken again
        pass


# -- a save that fails ------------------------------------------------------------------------
def _failing_saves(monkeypatch, path, rescue_fails=False):
    """Saving ``path`` fails as a full disk would (and, with ``rescue_fails``, every save)."""
    real = assist_cli.save_atomically

    def save(target, data):
        if Path(target) == path or rescue_fails:
            raise OSError(28, "No space left on device")
        real(target, data)

    monkeypatch.setattr(assist_cli, "save_atomically", save)


def _run(tmp_path, game, path, lines):
    args = build_parser().parse_args(["assist", game, "--log", str(path)])
    out = io.StringIO()
    code = assist_cli.run(args, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    return code, out.getvalue()


def test_a_failed_save_is_never_called_saved_and_the_events_are_kept(tmp_path, monkeypatch):
    path = copy_example(tmp_path, "mafia-code")
    before = path.read_text()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    _failing_saves(monkeypatch, path)
    code, out = _run(tmp_path, "mafia-code", path, ["miss cy bob blue a", "quit"])
    assert code == 0
    assert "warning: could not save the game" in out
    assert "the game is saved" not in out
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"the game was NOT saved in {path} (OSError")
    assert path.read_text() == before
    rescued = list((tmp_path / "tmp").glob("deduce-unsaved-*-mafia-code.json"))
    assert len(rescued) == 1 and str(rescued[0]) in last
    events = json.loads(rescued[0].read_text())["events"]
    assert len(events) == len(json.loads(before)["events"]) + 1 and events[-1]["type"] == "guess"


def test_when_no_file_can_be_written_the_log_is_printed(tmp_path, monkeypatch):
    path = copy_example(tmp_path, "mafia-code")
    _failing_saves(monkeypatch, path, rescue_fails=True)
    code, out = _run(tmp_path, "mafia-code", path, ["miss cy bob blue a", "quit"])
    assert code == 0 and "the game was NOT saved" in out and "the game is saved" not in out
    printed = json.loads(out.strip().splitlines()[-1])
    assert printed["events"][-1]["type"] == "guess"


def test_a_save_that_recovers_is_saved_again(tmp_path, monkeypatch):
    path = copy_example(tmp_path, "mafia-code")
    real = assist_cli.save_atomically
    calls = []

    def flaky(target, data):  # the first save fails, the next ones work
        calls.append(target)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        real(target, data)

    monkeypatch.setattr(assist_cli, "save_atomically", flaky)
    code, out = _run(tmp_path, "mafia-code", path, ["miss cy bob blue a", "undo", "redo", "quit"])
    assert "warning: could not save" in out and out.strip().splitlines()[-1].startswith("the game is saved")
    assert len(calls) == 3 and json.loads(path.read_text())["events"][-1]["type"] == "guess"


# -- logs that cannot be resumed --------------------------------------------------------------
def test_resuming_a_deeply_nested_log_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "deep.json"
    depth = 200_000
    path.write_text('{"game": "clue", "players": ["a", "b", "c"], "events": [' + "[" * depth + "]" * depth + "]}")
    before = path.read_text()
    code, out, err = cli("assist", "clue", "--log", str(path), stdin="quit\n")
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and str(path) in err and "nested too deeply" in err
    assert path.read_text() == before


def test_assist_applies_the_event_limit_of_solve(tmp_path):
    path = tmp_path / "long.json"
    event = {"type": "card_not_at", "card": "Rope", "at": "b"}
    path.write_text(json.dumps({"game": "clue", "players": ["a", "b", "c"], "events": [event] * (MAX_EVENTS + 1)}))
    code, out, err = cli("assist", "clue", "--log", str(path), stdin="quit\n")
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and f"more than the limit of {MAX_EVENTS}" in err


def test_a_session_refuses_an_event_past_the_limit(monkeypatch):
    import deduce.apps.assist.session as session_module

    assistant = resumed("mafia-code")
    monkeypatch.setattr(session_module, "MAX_EVENTS", len(assistant.events))
    before = assistant.log()
    answer = assistant.handle("miss cy bob blue a")
    assert answer.startswith("error: not added: the log would pass the limit of")
    assert assistant.log() == before


def test_the_library_refuses_an_over_long_log_by_name():
    data = json.loads((EXAMPLES / EXAMPLE["clue"]).read_text())
    data["events"] = data["events"] * (MAX_EVENTS // len(data["events"]) + 1)
    with pytest.raises(LogError, match="more than the limit"):
        GameAssistant(table_adapter("clue"), solver_for("clue"), log=data)


# -- input that ends mid-line -----------------------------------------------------------------
def test_a_last_line_without_its_newline_is_not_logged(tmp_path):
    path = copy_example(tmp_path, "mafia-code")
    before = path.read_text()
    args = build_parser().parse_args(["assist", "mafia-code", "--log", str(path)])
    out = io.StringIO()
    code = assist_cli.run(args, stdin=io.StringIO("grid\nmiss cy bob blue a"), stdout=out)
    assert code == 0
    assert "the input ended in the middle of a line; it was not read: 'miss cy bob blue a'" in out.getvalue()
    assert path.read_text() == before
    # the same line with its newline is an event
    code, text, _ = session(tmp_path, "mafia-code", ["miss cy bob blue a"], name="mafia-code.json")
    assert json.loads(path.read_text())["events"][-1]["type"] == "guess"


# -- over-long values in errors ---------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(EXAMPLE))
def test_errors_echo_at_most_a_short_piece_of_an_over_long_value(game):
    saves = []
    assistant = resumed(game, saves)
    before = assistant.log()
    long = "q" * 44_000
    shared = {"grid", "show", "events", "log", "list", "help", "quit", "exit", "redo", "status", "notebook"}
    words = [w for w in assistant.adapter.help.split() if w.isalpha() and w.lower() not in shared][:6]
    lines = [long, f"why {long}", f"undo {long}", *(f"{w} {long}" for w in words), *(f"{w} me {long}" for w in words)]
    for line in lines:
        answer = assistant.handle(line)
        assert answer.startswith("error: "), (line[:40], answer[:200])
        assert len(answer) < 20 * ECHO_LIMIT, (line[:40], answer[:300])
        if "q" * ECHO_LIMIT in answer:
            assert "q" * (ECHO_LIMIT + 1) not in answer and "(44000 characters)" in answer
    assert assistant.log() == before and saves == []


def test_short_and_quiet_long_values():
    assert short("abc") == "abc"
    assert short("x" * 100) == "x" * ECHO_LIMIT + "... (100 characters)"
    line = "sug " + "y" * 500
    assert quiet_long_values(f"error: unknown card {'y' * 500!r}", line) == f"error: unknown card '{short('y' * 500)}'"
    escaped = "\\x00" * 400  # quoted with escapes: not found in the line, cut all the same
    assert len(quiet_long_values("error: " + escaped, "\x00" * 400)) < 20 * ECHO_LIMIT
