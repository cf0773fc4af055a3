"""``deduce audit``: it passes on the real engines and catches planted faults."""

import dataclasses

import pytest

import deduce
from deduce import Count
from deduce.apps.audit import audit
from deduce.cli import main
from deduce.games.clue.rules import ClueGame, ClueState


@pytest.mark.slow
def test_clue_audit_passes_every_check():
    report = audit("clue", games=2, seed=3, agents=["deductive", "random"], check_every=4, max_actions=60)
    assert report.ok, report.failures
    for check in ("soundness", "agreement", "leak", "determinism"):
        assert report.passed[check] > 0, check


def test_audit_catches_an_unsound_knowledge_base(monkeypatch):
    original = ClueGame.knowledge

    def wrong(self, observation, check=False):
        kb = original(self, observation, check)
        kb.extend([Count(range(kb.num_cards), kb.loc("envelope"), 0)], check=False)  # an empty envelope
        return kb

    monkeypatch.setattr(ClueGame, "knowledge", wrong)
    report = audit("clue", games=3, seed=0, agents=["random"], check_every=50, max_actions=5)
    assert report.failed()["soundness"] > 0
    assert "game seed" in report.failures[0].reproducer("clue")


def test_audit_catches_a_leaking_observation(monkeypatch):
    original = ClueState.observation

    def leaky(self, player):
        obs = original(self, player)
        return dataclasses.replace(obs, turn=sum(self.hands[(player + 1) % len(self.hands)]) if player is not None else 0)

    monkeypatch.setattr(ClueState, "observation", leaky)
    report = audit("clue", games=1, seed=0, agents=["random"], check_every=1, max_actions=20)
    assert report.failed()["leak"] > 0


@pytest.mark.parametrize("name", deduce.game_names())
@pytest.mark.slow
def test_every_game_passes_a_short_audit(name):
    import agents

    quick = [a for a in agents.available(name) if a not in ("lookahead", "ismcts") and "board" not in a and "target" not in a]
    report = audit(name, games=1, seed=1, agents=quick, check_every=10, max_actions=80)
    assert report.ok, [f.message for f in report.failures[:3]]
    assert report.passed["soundness"] + report.skipped["soundness"] > 0


def test_cli_exit_status(capsys):
    assert main(["audit", "clue", "--games", "1", "--agents", "random", "--check-every", "20"]) == 0
    assert "soundness" in capsys.readouterr().out
