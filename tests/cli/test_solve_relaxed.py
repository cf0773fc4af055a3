"""``deduce solve`` labels counts over a game's relaxed knowledge base approximate, not exact."""

from __future__ import annotations

import json

import numpy as np

from deduce.cli import main
from deduce.games.alibi_adlung.log import export
from deduce.games.alibi_adlung.rules import AlibiAdlungGame
from deduce.games.clue.rules import ClueGame


def test_only_relaxed_games_say_so():
    assert ClueGame.knowledge_relaxed is None
    assert "relaxation" in (AlibiAdlungGame.knowledge_relaxed or "")


def test_an_alibi_adlung_log_is_labelled_approximate(capsys, tmp_path):
    game = AlibiAdlungGame(num_players=3)
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for _ in range(12):
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    path = tmp_path / "adlung.json"
    path.write_text(json.dumps(export(game, state.observation(0))))
    code = main(["solve", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "approximate: the static model forgets when cards moved" in out and ", exact)" not in out
    code = main(["solve", str(path), "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["exact"] is False and "relaxation" in data["approximate"]
