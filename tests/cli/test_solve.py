"""``deduce solve``: the notebook, its JSON form, and one-line errors with exit status 2."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from deduce.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clue-3p.json"


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("solver", ["cpsat", "auto"])
def test_json_output_is_exact_and_complete(capsys, solver):
    code, out, err = run_cli(capsys, "solve", str(EXAMPLE), "--json", "--solver", solver)
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data["worlds"], int) and data["worlds"] > 0
    probs = data["probabilities"]
    assert len(probs) == 21
    for _card, row in probs.items():
        assert set(row) == {"ann", "bob", "cy", "envelope"}
        assert abs(sum(row.values()) - 1) < 1e-9
    assert probs["Lounge"]["cy"] == 1.0 and probs["Rope"]["ann"] == 1.0


def test_fractions_sum_to_one(capsys):
    code, out, _ = run_cli(capsys, "solve", str(EXAMPLE), "--json", "--fractions", "--solver", "cpsat")
    assert code == 0
    row = json.loads(out)["probabilities"]["Wrench"]
    assert sum(Fraction(v) for v in row.values()) == 1


def test_text_notebook(capsys):
    code, out, _ = run_cli(capsys, "solve", str(EXAMPLE), "--solver", "cpsat")
    assert code == 0
    assert "consistent deals" in out and "envelope:" in out
    lounge = next(line for line in out.splitlines() if line.startswith("Lounge"))
    assert lounge.split()[-2] == "YES"


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"game": "clue", "players": [', "malformed JSON"),
        ('{"game": "clue", "players": ["a", "b", "c"], "events": [{"type": "card_at", "card": "Nope", "at": "a"}]}', "event 0"),
    ],
)
@pytest.mark.slow
def test_bad_logs_exit_2_with_one_line_and_no_traceback(tmp_path, content, message):
    log = tmp_path / "log.json"
    log.write_text(content)
    proc = subprocess.run(
        [sys.executable, "-m", "deduce", "solve", str(log)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("deduce solve: error:")
    assert proc.stdout == ""


def test_unknown_solver(capsys):
    code, _, err = run_cli(capsys, "solve", str(EXAMPLE), "--solver", "nope")
    assert code == 2 and "unknown solver 'nope'" in err


@pytest.mark.parametrize("name,seat,steps,where", [
    ("mafia-code", 2, 6, "box"), ("checkpoint-charlie", 1, 10, "down"), ("crime-hotel", 0, 12, "hidden"),
])
def test_the_other_games_logs_are_solved_too(capsys, tmp_path, name, seat, steps, where):
    import numpy as np

    import solvers
    from deduce.games.registry import make
    from deduce.logs import export_log

    game = make(name)
    state = game.new_initial_state(4)
    rng = np.random.default_rng(4)
    for _ in range(steps):
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    obs = state.observation(seat)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(export_log(game, obs)))
    code, out, err = run_cli(capsys, "solve", str(path), "--json", "--fractions")
    assert code == 0, err
    data = json.loads(out)
    truth = solvers.get("auto").tallies(game.knowledge(obs))
    assert data["worlds"] == truth.total > 1
    first = game.deck[0].name
    kb = game.knowledge(obs)
    assert data["probabilities"][first] == {
        loc: str(Fraction(truth.cells[0][z], truth.total)) for z, loc in enumerate(kb.locations)
    }
    code, out, _ = run_cli(capsys, "solve", str(path))
    assert code == 0 and f"{truth.total} consistent deals" in out and where in out


def test_an_alibi_log_that_cannot_be_counted_is_refused_in_one_line(capsys, tmp_path):
    import numpy as np

    from deduce.games.alibi.rules import AlibiGame
    from deduce.logs import export_log

    game = AlibiGame(num_players=4)
    state = game.new_initial_state(9)
    rng = np.random.default_rng(9)
    for _ in range(30):
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    path = tmp_path / "alibi.json"
    path.write_text(json.dumps(export_log(game, state.observation(2))))
    code, out, err = run_cli(capsys, "solve", str(path))
    assert code == 2 and out == "" and "Traceback" not in err
    assert "cannot count the deals of this log exactly (its cards move between epochs)" in err
    assert len(err.strip().splitlines()) == 1
