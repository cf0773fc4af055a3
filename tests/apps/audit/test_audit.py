"""``deduce audit``: it passes on the real engines and catches planted faults."""

import dataclasses

import pytest

import agents
import deduce
from agents.base import Agent
from deduce import Count
from deduce.apps.audit import CHECKS, audit
from deduce.cli import main
from deduce.errors import InvalidConfig
from deduce.games.base import Action
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
    quick = [a for a in agents.available(name) if a not in ("lookahead", "ismcts") and "board" not in a and "target" not in a]
    report = audit(name, games=1, seed=1, agents=quick, check_every=10, max_actions=80)
    assert report.ok, [f.message for f in report.failures[:3]]
    assert report.passed["soundness"] + report.skipped["soundness"] > 0


def test_cli_exit_status(capsys):
    assert main(["audit", "clue", "--games", "1", "--agents", "random", "--check-every", "20"]) == 0
    assert "soundness" in capsys.readouterr().out


@dataclasses.dataclass(frozen=True)
class Nonsense(Action):
    """An action no game allows."""


class IllegalOnThirdMove(Agent):
    """Plays legal actions, except its third decision."""

    name = "illegal-third"

    def reset(self, game, player, seed=None):
        super().reset(game, player, seed)
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        return Nonsense() if self.moves == 3 else observation.legal_actions[0]


def test_an_illegal_action_is_a_failure_with_a_reproducer_not_a_crash(monkeypatch):
    monkeypatch.setitem(agents.registry._EXTRA, ("illegal-third", "clue"), IllegalOnThirdMove)
    report = audit("clue", games=1, seed=2, agents=["illegal-third", "random"], check_every=50, max_actions=40)
    assert report.failed()["play"] == 1 and report.passed["play"] == 0
    failure = report.failures[0]
    assert "agent illegal-third chose Nonsense()" in failure.message and failure.player in (0, 2)
    assert f"game seed {failure.game_seed}" in failure.reproducer("clue")
    assert report.passed["determinism"] == 1  # the actions before it replay and rerun the same


def test_a_deadline_agent_is_reported_unchecked_and_the_rest_still_checked():
    report = audit("clue", games=1, seed=0, agents=[("ismcts", {"deadline": 0.05}), "random"],
                   check_every=50, max_actions=12)
    assert report.ok, report.failures
    assert "wall-clock deadline" in report.unchecked["ismcts:deadline=0.05"]
    assert report.passed["determinism"] == 1  # random's seats were rerun, ismcts's replayed
    everyone_timed = audit("clue", games=1, seed=0, agents=[("ismcts", {"deadline": 0.05})], check_every=50, max_actions=6)
    assert everyone_timed.skipped["determinism"] == 1 and everyone_timed.passed["determinism"] == 0


def test_only_agents_that_play_the_configuration_are_seated():
    board = {"board_mode": "board", "edition": "intrigue"}
    report = audit("clue", games=1, seed=1, agents=["ismcts", "lookahead", "deductive", "deductive-board", "random"],
                   config=board, check_every=100, max_actions=30)
    assert report.ok, report.failures
    assert set(report.unseated) == {"ismcts", "lookahead", "deductive"}
    assert "moves no token" in report.unseated["ismcts"]
    assert "moves no token" in report.unseated["deductive"]  # declared (agents.base: cannot_play)
    assert report.failures == [] and report.passed["play"] == 1
    plain = audit("clue", games=1, seed=1, agents=["deductive-board", "random"], check_every=100, max_actions=5)
    assert "refuses the game" in plain.unseated["deductive-board"]
    with pytest.raises(InvalidConfig, match="none of them plays"):
        audit("clue", games=1, agents=["ismcts"], config=board)


def test_progress_says_every_game_and_every_check():
    lines: list[str] = []
    audit("clue", games=2, seed=0, agents=["random"], check_every=50, max_actions=8, progress=lines.append)
    for g in (1, 2):
        for check in CHECKS:
            assert any(line.startswith(f"clue game {g}/2: {check} ") for line in lines), (g, check)
    assert lines[0].startswith("clue: 2 games from seed 0")


def test_cli_config_is_typed_by_the_field_and_progress_goes_to_stderr(capsys):
    argv = ["audit", "clue", "--games", "1", "--agents", "random", "--check-every", "50", "--max-actions", "10",
            "--config", "num_players=5", "--config", "refute_all=yes"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "clue game 1/1: 5 players" in err and "refute_all=True" in err
    assert "soundness" in out and "clue game" not in out
    assert main(["audit", "clue", "--config", "dice=two"]) == 2
    assert "dice" in capsys.readouterr().err
    assert main(["audit", "all", "--config", "dice=2"]) == 2


class _Backend:
    """A stand-in backend that counts its solves."""

    def __init__(self, name: str, supports: bool, answer: int = 0) -> None:
        self.name, self._supports, self.answer, self.solves = name, supports, answer, 0

    def supports(self, kb) -> bool:
        return self._supports

    def possible(self, kb):
        self.solves += 1
        import numpy as np

        return np.full((kb.num_cards, kb.num_locations), self.answer, dtype=bool)

    def count(self, kb) -> int:
        return 1


def test_agreement_solves_only_when_two_backends_can_be_compared():
    from deduce.apps.audit import _agreement

    kb = ClueGame().knowledge(ClueGame().new_initial_state(0).observation(0))
    alone, unsupported = _Backend("cpsat", True), _Backend("exact", False)
    verdict = _agreement(kb, [alone, unsupported])
    assert verdict.skipped and "only cpsat answered" in verdict.skipped and "exact: does not support" in verdict.skipped
    assert unsupported.solves == 0
    a, b = _Backend("cpsat", True, 0), _Backend("exact", True, 1)
    verdict = _agreement(kb, [a, b])
    assert verdict.methods == "cpsat+exact" and "disagree" in verdict.mismatch and a.solves == b.solves == 1


def test_agreement_takes_its_two_answers_from_different_algorithms():
    from deduce.apps.audit import _agreement

    kb = ClueGame().knowledge(ClueGame().new_initial_state(0).observation(0))
    exact, split, cpsat = _Backend("exact", True, 1), _Backend("split", True, 0), _Backend("cpsat", True, 1)
    verdict = _agreement(kb, [exact, split, cpsat])
    assert verdict.methods == "exact+cpsat" and verdict.mismatch is None
    assert split.solves == 0  # the same class DP as exact: a second opinion it is not


def _plant_a_wrong_cell(monkeypatch, backend_class):
    """``backend_class.tallies`` with one open cell emptied: a wrong answer that looks right."""
    from solvers.base import Tally

    original = backend_class.tallies
    planted = []

    def wrong(self, kb, *args, **kwargs):
        t = original(self, kb, *args, **kwargs)
        cells = [list(row) for row in t.cells]
        for c, row in enumerate(cells):
            open_ = [z for z, v in enumerate(row) if 0 < v < t.total]
            if open_:
                cells[c][open_[0]] = 0
                planted.append((c, open_[0]))
                break
        return Tally(t.total, tuple(tuple(row) for row in cells))

    monkeypatch.setattr(backend_class, "tallies", wrong)
    return planted


def test_the_audit_fails_a_planted_wrong_answer_of_the_second_method(monkeypatch):
    from solvers.frontier import FrontierSolver

    planted = _plant_a_wrong_cell(monkeypatch, FrontierSolver)
    report = audit("clue", games=1, seed=0, agents=["random"], check_every=5, max_actions=10)
    assert planted and report.failed()["agreement"] > 0
    failure = next(f for f in report.failures if f.check == "agreement")
    assert "exact and frontier disagree on possible locations" in failure.message
    assert f"game seed {failure.game_seed}" in failure.reproducer("clue")


def test_the_audit_fails_a_planted_wrong_answer_on_a_time_indexed_game(monkeypatch):
    from solvers.chain import ChainSolver

    planted = _plant_a_wrong_cell(monkeypatch, ChainSolver)
    report = audit("crime-hotel", games=1, seed=0, agents=["random"], check_every=10, max_actions=30)
    assert planted and report.failed()["agreement"] > 0
    assert any("chain and frontier disagree" in f.message for f in report.failures)


def alibi_time_indexed_view(moves: int = 12):  # noqa: ANN201
    """Seat 0's knowledge base after ``moves`` random moves of a 3-player Mayfair Alibi game
    (seed 7): past its first passes, so time-indexed."""
    from deduce.games.registry import make
    from deduce.play import GameRun, RandomPlayer

    game = make("alibi", num_players=3)
    run = GameRun(game, [RandomPlayer(seed=i) for i in range(3)], 7, max_moves=moves)
    for _ in run:
        pass
    return game.knowledge(run.state.observation(0))


def test_the_sampler_second_opinion_catches_an_exact_answer_that_misses_worlds():
    """Where only one exact method answers (Mayfair Alibi after its first pass), the sampler's
    worlds must fall inside its answer: an answer with a possible cell removed fails."""
    import numpy as np

    from deduce.apps.audit import _sampled
    from solvers.epoch import EpochSolver

    kb = alibi_time_indexed_view()
    assert kb.epochs > 2
    possible = EpochSolver().possible(kb)
    assert _sampled(kb, possible, seed=1) is None
    open_cards = [c for c in range(kb.num_cards) if possible[c].sum() > 1]
    wrong = possible.copy()
    wrong[open_cards, :] = False  # every open card pinned nowhere: the sampler's worlds disagree
    for c in open_cards:
        wrong[c, np.flatnonzero(possible[c])[0]] = True
    assert "calls impossible" in _sampled(kb, wrong, seed=1)


def test_the_sampler_started_from_the_true_world_leaves_it_unchanged_and_holds_it_to_the_answer():
    """The audit's sampler opinion starts from the true world (no CP-SAT model): the world the
    next player's soundness check reads must come back unchanged (the chain moves its start in
    place, which an earlier attempt let through: "the true world breaks At(...)@0"), the worlds
    drawn are consistent, and a true world outside the exact answer is a mismatch."""
    import numpy as np

    from deduce.apps.audit import _sampled
    from deduce.games.registry import make
    from deduce.play import GameRun, RandomPlayer
    from solvers.epoch import EpochSolver

    game = make("alibi", num_players=3)
    run = GameRun(game, [RandomPlayer(seed=i) for i in range(3)], 7, max_moves=12)
    for _ in run:
        pass
    world = run.state.world()
    kept = world.copy()
    kbs = [game.knowledge(run.state.observation(p)) for p in range(3)]
    assert kbs[0].epochs > 2
    for kb in kbs:
        assert kb.consistent_with(world)
        possible = EpochSolver().possible(kb)
        assert _sampled(kb, possible, seed=1, truth=world) is None
        assert np.array_equal(world, kept)
    possible = EpochSolver().possible(kbs[0])
    wrong = possible.copy()
    wrong[0, world[-1, 0]] = False
    assert "the true world has (card, loc)" in _sampled(kbs[0], wrong, seed=1, truth=world)


def test_an_alibi_audit_with_the_sampler_from_the_true_world_is_sound_for_every_player():
    """A short 3-player Mayfair Alibi audit past its first pass, agreement every action: every
    player's soundness check passes after the other players' sampler opinions started from the
    same true world, and the agreement ran (epoch+sampler) on every check."""
    report = audit("alibi", games=1, seed=1, agents=["random"], check_every=1, max_actions=40)
    assert report.ok, [f.message for f in report.failures[:3]]
    assert report.passed["soundness"] == 3 * report.actions
    assert report.methods["epoch+sampler"] > 0 and report.skipped["agreement"] == 0


def _random_worlds_and_base():
    from hypothesis import strategies as st

    from tests.solvers.test_epochs_agree import epoch_kbs

    @st.composite
    def case(draw):
        kb = draw(epoch_kbs(max_constraints=8))
        cells = st.integers(0, kb.num_locations - 1)
        worlds = draw(st.lists(st.lists(cells, min_size=kb.epochs * kb.num_cards, max_size=kb.epochs * kb.num_cards),
                               min_size=1, max_size=12))
        return kb, [np.array(w).reshape(kb.epochs, kb.num_cards) for w in worlds]

    import numpy as np

    return case()


@pytest.mark.parametrize("extra", [False, True])
def test_the_sampled_worlds_are_checked_as_consistent_with_checks_them(extra):
    """The audit checks the sampler's worlds together (facts and one-epoch counts over all the
    worlds at once): the same verdict as ``kb.consistent_with`` world by world, on random
    bases and worlds (and on every world of a base, from brute force)."""
    import numpy as np
    from hypothesis import given, settings

    import solvers
    from deduce.apps.audit import _consistent

    @settings(max_examples=80, deadline=None)
    @given(case=_random_worlds_and_base())
    def check(case):
        kb, worlds = case
        if extra:
            worlds = worlds + list(solvers.get("brute").worlds(kb))[:20]
        assert np.array_equal(_consistent(kb, worlds), np.array([kb.consistent_with(w) for w in worlds], dtype=bool))

    check()
