"""The audit's second opinion on one-epoch Mayfair Alibi bases (many players, before the first
pass): the class DP takes no ``CountEver``, so the audit writes each as the ``Count`` it equals
where the base itself empties all but one of its locations (``exact:counts``). Before, with
8 players, ``frontier`` ran out of its budget and the check was n/a ("only epoch answered")."""

from __future__ import annotations

import numpy as np
import pytest

import deduce.apps.audit as audit_module
import solvers
from deduce import Count, Deck, KnowledgeBase, NotAt
from deduce.apps.audit import AS_COUNTS, DEFAULT_SOLVERS, _agreement, _as_counts, _backend
from deduce.constraints import At, CountEver, Op


def _small_base(extra):
    """Six cards, three hands of two and an empty fourth location ("melds"), plus ``extra``."""
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(6)]})
    kb = KnowledgeBase(deck, ["z0", "z1", "z2", "melds"])
    kb.extend([Count(range(6), z, 2) for z in range(3)] + [Count(range(6), 3, 0), At(0, 0)], check=False)
    kb.extend(extra, check=False)
    return kb


@pytest.mark.parametrize("extra", [
    [CountEver([1, 2, 3], [1, 3], [0], 1)],
    [CountEver([1, 2, 3], [1, 3], [0], 1, Op.GE), CountEver([2, 4, 5], [2, 3], [0], 1, Op.LE)],
    [CountEver([1, 2], [0, 3], [0], 0)],  # card 0 is in z0, not among the cards: still z0 is live
    [CountEver([0, 1], [1, 3], [0], 0)],  # At(0, 0) keeps card 0 out of z1, not card 1: z1 is live
    [NotAt(1, 2), NotAt(2, 2), CountEver([1, 2], [2, 1], [0], 1)],  # NotAt facts empty z2 for both
])
def test_the_rewritten_base_has_the_same_worlds(extra):
    kb = _small_base(extra)
    form = _as_counts(kb)
    assert form is not None and not any(isinstance(c, CountEver) for c in form.constraints)
    brute, exact = solvers.get("brute"), solvers.get("exact")
    assert not exact.supports(kb) and exact.supports(form)
    assert brute.tallies(kb) == exact.tallies(form) == brute.tallies(form)


def test_a_count_ever_over_two_live_locations_is_not_rewritten():
    assert _as_counts(_small_base([CountEver([1, 2, 3], [1, 2], [0], 1)])) is None
    assert _as_counts(_small_base([])) is None  # nothing to rewrite


def test_a_count_ever_with_no_live_location_is_dropped_or_not_rewritten():
    holds = _as_counts(_small_base([CountEver([1, 2], [3], [0], 0)]))
    assert holds is not None and len(holds.constraints) == len(_small_base([]).constraints)
    assert _as_counts(_small_base([CountEver([1, 2], [3], [0], 1)])) is None  # never holds: left to the others


def _alibi_first_pass_base():
    """Player 0's view of an 8-player Mayfair Alibi deal (seed 3) with one history answer:
    two of five cards were in p2's hand or the melds (empty before the first pass)."""
    from deduce.games.registry import make

    game = make("alibi", num_players=8)
    state = game.new_initial_state(3)
    kb = game.knowledge(state.observation(0))
    world = np.asarray(state.world())
    assert kb.epochs == 1 and kb.locations[9] == "melds"
    cards = [13, 28, 0, 3, 29]
    assert [int(world[0][c]) for c in cards] == [2, 2, 3, 3, 3]
    kb.add(CountEver(cards, [2, 9], [0], 2))
    return kb, world


@pytest.fixture
def backends():
    return [_backend(s) for s in DEFAULT_SOLVERS]


def test_an_eight_player_first_pass_base_is_compared_by_two_exact_methods(backends):
    kb, world = _alibi_first_pass_base()
    verdict = _agreement(kb, backends, seed=1)
    assert verdict == audit_module.Agreement("exact" + AS_COUNTS + "+epoch")
    form = _as_counts(kb)
    assert form.consistent_with(world) and kb.consistent_with(world)


def test_without_the_rewrite_only_the_sampler_backs_epoch(backends, monkeypatch):
    """Without the rewrite (the audit before it: n/a, "only epoch answered") frontier runs out
    of its budget and the second opinion is the one-sided sampler's, labelled."""
    kb, world = _alibi_first_pass_base()
    monkeypatch.setattr(audit_module, "_as_counts", lambda kb: None)
    assert _agreement(kb, backends, seed=1, truth=world) == audit_module.Agreement("epoch+sampler")


def test_a_wrong_rewrite_is_a_mismatch_not_a_pass(backends, monkeypatch):
    """The rewritten base goes to the class DP and the original to epoch: a rewrite that
    changed the worlds (here: none of the five cards in p2, where two are) is a disagreement."""
    kb, _ = _alibi_first_pass_base()
    original = audit_module._as_counts

    def wrong(base):
        form = original(base)
        out = KnowledgeBase(form.deck, form.locations, 1)
        out.extend([Count(c.cards, c.loc, 0, c.op, 0) if isinstance(c, Count) and c.loc == 2 and len(c.cards) == 5 else c
                    for c in form.constraints], check=False)
        return out

    monkeypatch.setattr(audit_module, "_as_counts", wrong)
    verdict = _agreement(kb, backends, seed=1)
    assert verdict.methods == "exact:counts+epoch" and "disagree on possible locations" in verdict.mismatch


class _OutOfBudget:
    """A stand-in CP-SAT method that runs out of the work budget, counting its calls."""

    can_count = False

    def __init__(self, name: str) -> None:
        self.name, self.calls = name, 0

    def supports(self, kb) -> bool:
        return True

    def possible(self, kb, **kwargs):
        from deduce.errors import TooLarge

        self.calls += 1
        raise TooLarge("stand-in: out of budget")


def test_on_a_time_indexed_base_cpsat_is_not_asked_after_epoch_ran_out_of_budget():
    from tests.apps.audit.test_audit import alibi_time_indexed_view

    kb = alibi_time_indexed_view()
    assert kb.epochs > 1
    epoch, cpsat = _OutOfBudget("epoch"), _OutOfBudget("cpsat")
    verdict = _agreement(kb, [epoch, cpsat])
    assert epoch.calls == 1 and cpsat.calls == 0
    assert verdict.skipped.startswith("no exact method answered")
    assert "cpsat: epoch (CP-SAT, the same algorithm) needed more than the work budget" in verdict.skipped


def test_where_only_epoch_answers_a_first_pass_base_the_sampler_is_the_labelled_second_opinion():
    """Mayfair Alibi with 9-10 players: before the first pass the class DP and frontier both
    need more than the budget; epoch's answer is then held to the sampler's worlds (started
    from the true world), labelled ``epoch+sampler``, instead of n/a."""
    kb, world = _alibi_first_pass_base()
    verdict = _agreement(kb, [_backend("epoch")], seed=1, truth=world)
    assert verdict == audit_module.Agreement("epoch+sampler")
    from solvers.epoch import EpochSolver

    wrong = EpochSolver().possible(kb)
    wrong[13, 2] = False  # card 13 is in p2: an answer without that cell is caught
    assert "calls impossible" in audit_module._sampled(kb, wrong, seed=1, truth=world)
