"""The chain counter's work on a hard Crime Hotel state: the answer is pinned and the counted
steps (states, spreads and successors, never wall time) stay well below what the counter
spent before it pruned dead-end opening spreads and shared the movers' choices."""

from __future__ import annotations

import json
from pathlib import Path

from deduce.knowledge import KnowledgeBase
from solvers.chain import ChainSolver

HARD = Path(__file__).parents[2] / "benchmarks" / "hard_states" / "crime-hotel"


def _kb(name: str) -> KnowledgeBase:
    return KnowledgeBase.from_json(json.loads((HARD / f"{name}.json").read_text())["knowledge"])


def test_spectator_state_counted_with_less_work():
    chain = ChainSolver()
    tally = chain.tallies(_kb("4p-g1-d17-spec"))
    assert tally.total == 39_399_500_000  # the count before the change
    assert sum(tally.cells[0]) == tally.total  # every card is somewhere in every history
    assert chain.work < 200_000  # 397,165 steps before the pruning


def test_player_view_counted_with_less_work():
    chain = ChainSolver()
    tally = chain.tallies(_kb("4p-g1-d23-p3"))
    assert tally.total == 1_400_000
    assert chain.work < 35_000  # 50,803 steps before


EXAMPLE = Path(__file__).parents[2] / "examples" / "crime-hotel-4p.json"


def _repeated_log(event: int, copies: int) -> KnowledgeBase:
    """The knowledge base of the Crime Hotel example with its event ``event`` repeated
    ``copies`` times at the end (issue 22: accepted logs of under 1 MB within 10 s)."""
    from deduce.logs import read_log

    data = json.loads(EXAMPLE.read_text())
    data["events"] = data["events"] + [data["events"][event]] * copies
    game, obs = read_log(data)
    return game.knowledge(obs, check=False)


def _counting(monkeypatch, name: str) -> list[int]:
    """Count the calls of ``ChainSolver.<name>`` (or of the module's function ``name``)."""
    import solvers.chain as chain

    calls = [0]
    owner = chain.ChainSolver if hasattr(chain.ChainSolver, name) else chain
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, staticmethod(counted) if owner is chain.ChainSolver else counted)
    return calls


def test_a_repeated_exchange_is_worked_out_once_not_once_per_epoch(monkeypatch):
    """10,000 copies of one exchange (dee and cy swap two cards) give 10,005 epochs alike: the
    movers' choices are enumerated for a handful of cases and the states' successors built for
    a few epochs, then the epochs repeat one map on the weights (every one of them still
    charged: 571,243 steps, as when each epoch was built)."""
    kb = _repeated_log(9, 10_000)
    assert kb.epochs == 10_005
    allocations = _counting(monkeypatch, "_allocations")
    successors = _counting(monkeypatch, "_successors")
    chain = ChainSolver()
    tally = chain.tallies(kb)
    assert chain.work == 571_243  # the steps before the reuse, the budget meters the same work
    assert allocations[0] < 50  # 180,036 enumerations before (18 per epoch)
    assert successors[0] < 200  # one per state and epoch before: ~180,000
    # the count before the change (15,571 digits): its length and its residue pinned
    assert tally.total.bit_length() == 51_723 and tally.total % 1_000_003 == 669_442
    assert all(sum(row) == tally.total for row in tally.cells)  # every card somewhere


def test_reused_epochs_give_the_answer_and_steps_of_epochs_built_one_by_one(monkeypatch):
    """The same log with 300 copies, counted with and without the reuse: the same tallies and
    the same steps."""
    kb = _repeated_log(9, 300)
    reused = ChainSolver()
    expected = reused.tallies(kb)
    import solvers.chain as chain

    def filtered_then_moved(self, plan, states, groups, e, reuse, transfer, fated, maps):
        states = self._filter(plan, states, groups, e, reuse)
        return self._move(states, transfer, plan.L, fated, reuse), None

    monkeypatch.setattr(chain.ChainSolver, "_recorded", filtered_then_moved)
    monkeypatch.setattr(chain._Maps, "following", lambda self, sig, states: None)
    monkeypatch.setattr(chain._Reuse, "table", lambda self, kind, key: None)
    built = ChainSolver()
    assert built.tallies(kb) == expected
    assert built.work == reused.work


def test_a_log_with_no_history_stops_at_the_first_epoch_without_one(monkeypatch):
    """An early bad event (ann gives away 303 again, 10,000 times) leaves no history from
    epoch 5 on: the check stops there instead of filtering 10,000 empty epochs."""
    kb = _repeated_log(8, 10_000)
    filters = _counting(monkeypatch, "_filter")
    assert not ChainSolver().consistent(kb)
    assert filters[0] < 20, filters  # 10,005 before


def test_a_cycle_of_exchanges_is_worked_out_for_its_first_rounds_only(monkeypatch):
    """Three exchanges (dee-cy 2 cards, bob-cy 1, bob-dee 2) repeated 3,333 times: each
    epoch's map is recorded the second time its kind comes round, then the cycle runs on
    weights alone; the steps are those of every epoch built (2,217,317 before the change)."""
    from deduce.logs import read_log

    data = json.loads(EXAMPLE.read_text())
    cycle = [data["events"][9], {"type": "exchange", "actor": "bob", "target": "cy", "k": 1},
             {"type": "exchange", "actor": "bob", "target": "dee", "k": 2}]
    data["events"] = data["events"] + cycle * 3_333
    game, obs = read_log(data)
    kb = game.knowledge(obs, check=False)
    successors = _counting(monkeypatch, "_successors")
    chain = ChainSolver()
    tally = chain.tallies(kb)
    assert chain.work == 2_217_317
    assert successors[0] < 1_000  # 270,043 before (27 states at each of 10,003 transfers)
    assert tally.total.bit_length() == 47_819 and tally.total % 1_000_003 == 614_668  # as before
