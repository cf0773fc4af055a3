"""The ``auto`` solver's order for time-indexed knowledge bases: the ``chain`` counter goes last
where its opening states are far too many (Mayfair Alibi), and stays first where it counts
(Crime Hotel)."""

import dataclasses

import pytest

import solvers
from deduce.games.alibi.rules import Asked, Family, Melded
from deduce.logs import export_log, read_log, view_knowledge
from solvers.auto import chain_too_wide
from tests.apps.assist.test_session import played


def alibi_view_without_history_questions(seed, steps):
    """A simulated Alibi game's view with melds, passes and 'hand' questions only: no history
    count, so ``chain`` accepts its knowledge base (read back through the log format)."""
    game, state = played("alibi", seed, steps, num_players=4)
    obs = state.observation(0)
    events = tuple(e for e in obs.events if not (isinstance(e, Asked) and e.family is not Family.HAND))
    assert any(isinstance(e, Melded) for e in events)
    log_game, log_obs = read_log(export_log(game, dataclasses.replace(obs, events=events)))
    return view_knowledge(log_game, log_obs)


@pytest.mark.slow
def test_chain_goes_last_on_a_melded_alibi_view():
    kb = alibi_view_without_history_questions(3, 40)
    auto = solvers.get("auto")
    assert solvers.get("chain").supports(kb) and kb.epochs > 2
    assert chain_too_wide(kb)
    assert [b.name for b in auto._pick(kb)] == ["epoch", "cpsat", "brute", "chain"]
    cpsat = solvers.get("cpsat")
    assert auto.consistent(kb) is True
    assert (auto.possible(kb) == cpsat.possible(kb)).all()
    with pytest.raises(NotImplementedError):  # nothing counts it: callers fall back or refuse
        auto.tallies(kb)


def test_chain_stays_first_where_it_counts():
    game, state = played("crime-hotel", 2, 60, num_players=4)
    kb = game.knowledge(state.observation(0))
    auto = solvers.get("auto")
    assert not chain_too_wide(kb) and auto._pick(kb)[0].name == "chain"
    ours, chain = auto.tallies(kb), solvers.get("chain").tallies(kb)
    assert (ours.total, ours.cells) == (chain.total, chain.cells) and kb.epochs > 2 and ours.total > 1


def test_csp_is_tried_under_a_work_budget_and_keeps_it():
    """``csp``'s search is metered (its constraint checks are steps), so ``auto`` no longer
    skips it under a budget: as the only backend it answers within a budget that covers its
    work, and is refused by one that does not."""
    import json
    from pathlib import Path

    from deduce.errors import TooLarge
    from deduce.logs import load_log
    from solvers.budget import metered

    kb = load_log(json.loads((Path(__file__).resolve().parents[2] / "examples" / "clue-3p.json").read_text()), check=None)
    only_csp = solvers.get("auto", order=("csp",))
    with metered(10**9) as meter:
        assert [b.name for b in only_csp._pick(kb)] == ["csp"]
        tally = only_csp.tallies(kb)
    assert tally == solvers.get("exact").tallies(kb) and meter.used > 0
    with metered(meter.used) as again:
        assert solvers.get("auto", order=("csp",)).tallies(kb) == tally
    assert again.used == meter.used
    with metered(meter.used - 1), pytest.raises(TooLarge):
        solvers.get("auto", order=("csp",)).tallies(kb)
