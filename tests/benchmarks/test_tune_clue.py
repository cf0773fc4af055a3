"""The Clue tuning script (benchmarks/tune_clue.py): a tiny budget runs, is reproducible for a
seed, and confirms on deals disjoint from the training deals."""

from __future__ import annotations

import pytest

from benchmarks import tune_clue
from deduce.errors import DeduceError


def test_confirmation_deals_are_disjoint_from_the_training_deals():
    train = tune_clue.deal_seeds(tune_clue.train_cells("racer-threat", 5, 0))
    confirm = tune_clue.deal_seeds(tune_clue.confirm_cells("racer-threat", 5, 0, (3, 4, 6)))
    assert len(train) == 10 and len(confirm) == 15  # 5 deals per opponent or player count (twins share them)
    assert not train & confirm
    # the training deals do not depend on the trial (same deals for every parameter set)
    assert train == tune_clue.deal_seeds(tune_clue.train_cells("racer:min_gamble=0.4", 5, 0, trial=3))


def test_tokens_name_the_parameters():
    assert tune_clue.token("racer", {"min_gamble": 0.45, "measure": "shannon"}) == "racer:measure=shannon,min_gamble=0.45"
    assert tune_clue.token("racer", {}) == "racer"


def test_an_agent_without_a_space_is_refused():
    with pytest.raises(DeduceError, match="no parameters"):
        tune_clue.tune("deductive", 1, 1, 0)
    assert tune_clue.main(["--deals", "0", "--trials", "0"]) == 2


@pytest.mark.slow
def test_a_tiny_study_runs_is_reproducible_and_confirms_on_fresh_deals():
    runs = [tune_clue.run("racer", trials=2, deals=1, seed=5, confirm_deals=1, players=(3,),
                          opponents=("aggressive-accuser",)) for _ in range(2)]
    first, second = runs
    assert [t["agent"] for t in first["study"]["trials"]] == [t["agent"] for t in second["study"]["trials"]]
    assert [t["mean"] for t in first["study"]["trials"]] == [t["mean"] for t in second["study"]["trials"]]
    assert first["best"] == second["best"] and first["best"].startswith("racer:")
    assert len({t["agent"] for t in first["study"]["trials"]}) == 2  # the sampler moved
    (table,) = first["confirmation"]["tables"]
    assert table["players"] == 3 and table["paired"]["n"] == 1
    assert table["rates"]["candidate"]["seats"] == 6 and table["rates"]["racer"]["seats"] == 6  # 3 rotations, twice
    assert not set(first["study"]["train_seeds"]) & tune_clue.deal_seeds(
        tune_clue.confirm_cells(first["best"], 1, 5, (3,)))
    assert "Confirmation on fresh deals" in tune_clue.format_report(first)


def test_confirming_on_a_training_deal_is_refused_before_playing():
    used = tune_clue.deal_seeds(tune_clue.confirm_cells("racer", 1, 9, (3,)))
    with pytest.raises(DeduceError, match="overlap"):
        tune_clue.confirm("racer", 1, 9, (3,), train_seeds=used)
