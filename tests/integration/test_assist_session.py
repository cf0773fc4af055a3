"""The shared table-side session (``deduce.assist_game``) for every adapted game, and the helpers
the per-game assistant tests drive it with."""

import io
import json

import numpy as np
import pytest

import solvers
from deduce.assist_game import GameAssistant, adapter_for, assisted_games
from deduce.cli import build_parser
from deduce.cli.assist import run
from deduce.errors import UnknownName
from deduce.games.registry import make


def solver_for(game):
    """The solver ``deduce assist GAME`` uses by default (``auto``, in the adapter's order)."""
    backends = adapter_for(game).backends
    return solvers.get("auto", **({"order": backends} if backends else {}))


def played(name, seed, steps, **config):
    """A seeded game of ``name`` after ``steps`` seeded random legal actions (fewer if it ends)."""
    game = make(name, **config)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    return game, state


def session(tmp_path, game, lines, *extra, name="game.json"):
    """Run ``deduce assist GAME --log`` on ``lines``; returns (exit code, transcript, log path)."""
    path = tmp_path / name
    args = build_parser().parse_args(["assist", game, "--log", str(path), *extra])
    out = io.StringIO()
    code = run(args, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return code, out.getvalue(), path


def saved(path):
    """The saved game log."""
    return json.loads(path.read_text())


def last_status(text, header, last):
    """The last grid and answer in a transcript: from its ``header`` row to the line starting
    with ``last``."""
    start = text.rindex(header)
    return text[start : text.index("\n", text.index(last, start))]


def assert_refused(out, bad):
    """Every line of ``bad`` got exactly one error line containing its expected message."""
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == len(bad), errors
    for line, message in bad.items():
        assert any(message in e for e in errors), (line, errors)


def test_every_registered_game_has_an_assistant():
    from deduce.games.registry import game_names

    assert set(assisted_games()) == set(game_names()) == {
        "clue", "mafia-code", "checkpoint-charlie", "crime-hotel", "alibi", "alibi-adlung"}
    with pytest.raises(UnknownName, match="no table assistant for 'monopoly'; games with one: clue, "):
        adapter_for("monopoly")


@pytest.mark.parametrize("game", ["clue", "mafia-code", "checkpoint-charlie", "crime-hotel", "alibi", "alibi-adlung"])
def test_setup_refuses_a_wrong_table_and_quitting_saves_nothing(game):
    a = GameAssistant(adapter_for(game), solver_for(game))
    low, high = adapter_for(game).seats
    reply = a.handle(" ".join(f"p{i}" for i in range(high + 1)))
    assert reply == f"error: {game} takes {low} to {high} players; got {high + 1}"
    assert a.prompt.startswith("players in seat order") and a.header is None
    assert a.handle("quit") == "setup abandoned; nothing saved" and a.done


@pytest.mark.parametrize("game", ["clue", "mafia-code", "checkpoint-charlie", "crime-hotel", "alibi", "alibi-adlung"])
def test_a_failed_save_keeps_the_game_in_memory(game):
    from deduce.logs import export_log

    _, state = played(game, 3, 4)
    log = export_log(state.game, state.observation(0))
    a = GameAssistant(adapter_for(game), solver_for(game), log=log)

    def broken(data):
        raise OSError("disk full")

    a.save_fn = broken
    assert "warning: could not save the game (OSError: disk full); it is kept in memory" in a.handle("undo")
    assert a.log()["events"] == log["events"][:-1]
    assert a.handle("redo").startswith(f"event {len(log['events']) - 1}: ")
    assert a.log()["events"] == log["events"]
