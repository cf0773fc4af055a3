"""Every game's example log (examples/, written by examples/generate.py) is read by ``deduce
solve``; ``solve --help`` and docs/games.md give each game's log format; a backend that cannot
count is refused in one line; ``deduce games`` says what really runs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from deduce.cli import main
from deduce.games.registry import game_names

ROOT = Path(__file__).resolve().parents[2]


def _example(name):
    return sorted(ROOT.glob(f"examples/{name}-*p*.json"))[0]


@pytest.mark.parametrize("name", game_names())
def test_every_games_example_log_is_solved(capsys, name):
    path = _example(name)
    assert json.loads(path.read_text())["game"] == name
    assert main(["solve", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["worlds"] > 1 and data["probabilities"]


def test_the_example_logs_are_what_the_generator_writes():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "generate.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_solve_help_documents_every_games_log_format(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = capsys.readouterr().out
    for name in game_names():
        assert f'{name} (e.g. examples/{name}-*.json' in text and f'{{"game": "{name}"' in text


def test_the_docs_describe_every_games_log():
    docs = (ROOT / "docs" / "games.md").read_text()
    assert "## Player-view logs" in docs
    for name in game_names():
        assert f"`examples/{_example(name).name}`" in docs


def test_a_backend_that_cannot_count_is_refused_in_one_line(capsys):
    code = main(["solve", str(_example("alibi")), "--solver", "epoch-sample"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "the epoch-sample backend samples deals but cannot count them" in err


def test_games_lists_the_player_counts_that_run_and_no_digest_references(capsys):
    import deduce

    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "RULES.md" not in out and "§" not in out
    line = next(row for row in out.splitlines() if row.startswith("alibi "))
    assert " 3-10 players " in line
    deduce.make("alibi", num_players=10)
    with pytest.raises(ValueError):
        deduce.make("alibi", num_players=11)
