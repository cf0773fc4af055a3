"""The shared table-side session (``deduce.apps.assist.session``) for every adapted game, and the helpers
the per-game assistant tests drive it with."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

import solvers
from deduce.apps.assist.session import GameAssistant, adapter_for, assisted_games
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


def assert_lines_refused(tmp_path, game, path, before, bad):
    """One session on the lines of ``bad`` (a dict line -> expected message): each refused with
    its message, no traceback, and the saved log still ``before``."""
    code, out, _ = session(tmp_path, game, [*bad, "quit"])
    assert code == 0 and "Traceback" not in out
    assert path.read_text() == before
    assert_refused(out, bad)


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
@pytest.mark.slow
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


#: per game: the command's options, the typed lines, what the transcript must and must not say,
#: and the saved events' types. One event line of each game's grammar goes through the real
#: command (a subprocess reading its standard input) and into the saved log.
SCRIPTED = {
    "clue": ([], ["ann, bob, cy", "", "", "ann", "rope hall knife scarlet kitchen study",
                  "sug ann gr wrench lounge cy shown=lounge"],
             ["event 1: ann suggested Mr. Green, Wrench, Lounge: bob has none of them; cy showed ann Lounge"],
             [], ["hand", "suggestion"]),
    "mafia-code": (["--players", "ann,bob,cy", "--me", "an", "--hand",
                    "red a, red b, yel c, gre d, gre e, blu c, blue e, pur f, whi a, whi b"],
                   ["code ann red b 3 2 4", "miss cy bob blue a"],
                   ["event 2: cy guessed bob holds blue A: a miss, crossed off", "guess: ", "(exact)"], [], ["hand", "code", "guess"]),
    "checkpoint-charlie": (["--players", "ann,bob,cy,dee", "--me", "dee"], ["", "coat", "flip bob hgocn kept"],
                           ["who flips first in round 1 [ann]?", "your clue token", "event 2: bob flipped [hat, glasses, orange, coat, newspaper] and kept it (it fits the clue)",
                            "arrest: hgocn (hat, glasses, orange, coat, newspaper) in bob's row - the chief with "
                            "probability"], [], ["round", "side", "flip"]),
    "crime-hotel": (["--players", "ann,bob,cy", "--spectator"], ["", "301 302 303 304 305 306 307 308", "play ann 101"],
                    ["the 8 leftover cards lit on the board:", "event 1: ann led 101", "hidden room: 18 possible"],
                    ["deduce:"], ["game", "play"]),  # a spectator places no meeples
    "alibi": (["--players", "ann,bob,cy,dee", "--spectator"], ["ask bob cy held 19", "accuse dee"],
              ["event 0: bob asked cy: how many different cards have you ever held? answer 19", "event 1: dee accuses"], [],
              ["ask", "accuse"]),
    "alibi-adlung": (["--players", "ann,bob,cy", "--spectator"], ["s1 s2 s3 s4", "lay bob glasses", "exchange cy revolver"],
                     ["event 0: bob laid evidence: glasses", "event 1: cy exchanged revolver instead of playing"],
                     ["best play"], ["lay", "exchange"]),  # a spectator gets no advice
}


def test_every_game_has_a_scripted_session():
    assert set(SCRIPTED) == set(assisted_games())


@pytest.mark.parametrize("game", sorted(SCRIPTED))
@pytest.mark.slow
def test_a_scripted_session_through_the_real_command(tmp_path, game):
    options, lines, said, unsaid, types = SCRIPTED[game]
    path = tmp_path / "g.json"
    proc = subprocess.run(
        [sys.executable, "-m", "deduce", "assist", game, "--log", str(path), *options],
        input="\n".join([*lines, "quit"]) + "\n", capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "error" not in proc.stdout and "Traceback" not in proc.stderr
    for text in said:
        assert text in proc.stdout, text
    for text in unsaid:
        assert text not in proc.stdout, text
    assert [e["type"] for e in saved(path)["events"]] == types
    assert "the game is saved; resume it with --log" in proc.stdout


def test_an_adapters_own_grid_replaces_the_even_spread_with_its_own_label():
    """Where the deals cannot be counted, the session asks the adapter's ``grid`` first: its
    grid and label are shown; refused (its budget) or absent, the even spread and the adapter's
    label stay."""
    import dataclasses

    from deduce.errors import TooLarge
    from deduce.logs import export_log

    base = type(adapter_for("alibi"))
    game, state = played("alibi", 3, 0)
    log = export_log(game, state.observation(0))

    class Spread(base):
        def grid(self, kb, possible):
            return None

    class Sampled(base):
        def grid(self, kb, possible):
            p = np.where(possible() > 0, 0.5, 0.0)  # any grid: the session must show this one
            return dataclasses.replace(spread, p=p, label="sampled: a test's label")

    class Refused(base):
        def grid(self, kb, possible):
            raise TooLarge("the sampler's share of the budget")

    spread = GameAssistant(Spread(), solver_for("alibi"), log=log).marginals()
    rows = spread.p.sum(axis=1)
    assert spread.label is None and not spread.exact and np.allclose(rows[rows > 0], 1.0)
    got = GameAssistant(Sampled(), solver_for("alibi"), log=log)
    assert got.marginals().label == "sampled: a test's label" and not got.marginals().exact
    assert np.array_equal(got.marginals().p, np.where(spread.p > 0, 0.5, 0.0))
    assert "(sampled: a test's label)" in got.advice()
    refused = GameAssistant(Refused(), solver_for("alibi"), log=log)
    assert refused.marginals().label is None and np.array_equal(refused.marginals().p, spread.p)
    assert f"({base.approximate})" in refused.advice()
