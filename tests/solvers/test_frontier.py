"""``frontier``: exact counts of time-indexed knowledge bases equal brute force and cpsat's
enumeration, on random Alibi-shaped histories and on views of real (tiny) Alibi games."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solvers
from deduce.errors import TooLarge
from deduce.games.alibi.rules import Accuse, AlibiGame
from deduce.play import RandomPlayer, play_game
from solvers import frontier
from solvers.frontier import FrontierSolver
from tests.solvers.test_epoch_sampler import history_kb, history_kbs
from tests.solvers.test_epochs_agree import epoch_kbs

#: the smallest real Alibi: 10 cards (two 2-card suspect sets, one set of each other
#: category), 4 boxed and 6 dealt to 3 players; melds happen and the box is one card short of
#: known
TINY = dict(
    num_players=3,
    suspects=("A", "B"),
    times=("m", "n"),
    places=(("P", ("p1", "p2")),),
    weapons=(("W", ("w1", "w2")),),
    emotions=(("E", ("e1", "e2", "e3")),),
)


def alibi_view(seed: int, moves: int, seat: int | None):
    """A seat's (or the spectator's) knowledge after ``moves`` random actions of a tiny game."""
    game = AlibiGame(**TINY)
    st_ = game.new_initial_state(seed)
    count = [0]

    def until(_state) -> bool:
        count[0] += 1
        return count[0] > moves

    play_game(game, [RandomPlayer(seed, exclude=(Accuse,))] * 3, seed, state=st_, until=until, errors="raise")
    return game, game.knowledge(st_.observation(seat))


def agree_with(ref, kb) -> None:
    fr = FrontierSolver()
    t = fr.tallies(kb)
    assert t == ref.tallies(kb)
    assert fr.consistent(kb) == (t.total > 0)
    assert np.array_equal(fr.possible(kb), np.array(t.cells, dtype=np.int64) > 0)


@settings(max_examples=60, deadline=None)
@given(kb=epoch_kbs())
def test_counts_equal_brute_on_random_two_epoch_knowledge(kb):
    ref = solvers.get("brute")
    agree_with(ref, kb)
    fr = FrontierSolver()
    assert fr.solution_counts(kb, 0) == ref.solution_counts(kb, 0)
    for e in (0, 1):
        assert np.array_equal(fr.possible(kb, epoch=e), ref.possible(kb, epoch=e))


@settings(max_examples=40, deadline=None)
@given(kb=history_kbs())
def test_counts_equal_brute_on_history_questions(kb):
    agree_with(solvers.get("brute"), kb)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40), seat=st.sampled_from([0, 1, 2]))
def test_counts_equal_cpsat_enumeration_on_real_alibi_views(seed, moves, seat):
    _, kb = alibi_view(seed, moves, seat)
    agree_with(solvers.get("cpsat", limit=200_000), kb)


def test_spectator_counts_equal_cpsat_enumeration():
    _, kb = alibi_view(5, 12, None)  # 4,896 worlds over 3 epochs
    assert kb.epochs == 3
    agree_with(solvers.get("cpsat", limit=200_000), kb)


def test_a_real_view_with_passes_melds_and_history_answers():
    game, kb = alibi_view(5, 40, 1)
    kinds = Counter(type(c).__name__ for c in kb.constraints)
    assert kb.epochs >= 3 and kinds["Transfer"] >= 2 and kinds["CountEver"] + kinds["Count"] > 0
    agree_with(solvers.get("cpsat", limit=200_000), kb)


def test_samples_are_exactly_uniform():
    """Every consistent world of a small history is drawn about equally often (chi-square)."""
    kb = history_kb()
    worlds = list(solvers.get("brute").worlds(kb))
    draws = FrontierSolver().sample(kb, 3000, np.random.default_rng(4))
    assert all(kb.consistent_with(w) for w in draws[:50])
    freq = Counter(w.tobytes() for w in draws)
    assert set(freq) == {w.tobytes() for w in worlds}
    from scipy import stats

    observed = [freq[w.tobytes()] for w in worlds]
    assert stats.chisquare(observed).pvalue > 1e-3


def test_too_many_states_is_refused_not_guessed():
    _, kb = alibi_view(5, 40, None)
    from deduce.errors import TooLarge

    with pytest.raises(TooLarge, match="frontier: more than 1 states"):
        FrontierSolver(max_states=1).tallies(kb)
    with pytest.raises(TooLarge, match="frontier: more than 10 transitions"):
        FrontierSolver(max_work=10).tallies(kb)


def test_a_full_size_view_after_the_first_pass_is_counted_and_later_ones_refused_at_once():
    """78 cards over 2 epochs: exact (the sampler's benchmark positions start here); 3 epochs
    and more: refused before any work, so ``auto`` moves on to the time-indexed checker."""
    from benchmarks.alibi import state_at_round
    from deduce.errors import NotSupported

    game = AlibiGame(num_players=4)
    kb = game.knowledge(state_at_round(game, 1, 2).observation(1))
    assert kb.epochs == 2 and kb.num_cards == 78
    t = FrontierSolver().tallies(kb)
    assert t.total > 0 and all(sum(row) == t.total for row in t.cells)
    box = kb.loc("box")
    for cat in game.categories:  # one box card per category in every world
        assert sum(t.cells[c][box] for c in cat) == t.total
    later = game.knowledge(state_at_round(game, 1, 4).observation(1))
    with pytest.raises(NotSupported, match="cards over .* epochs"):
        FrontierSolver().check_supported(later)
    assert FrontierSolver(max_cells=None).supports(later)


def test_auto_answers_an_enumerable_benchmark_position_exactly():
    """benchmarks/alibi_exact.py's reduced deck at round 3: ``auto`` now counts it (frontier)
    and its grid equals cpsat's enumeration, where epoch-sample was off by 0.068 on one such
    view while stating 0.018 with its chains agreeing (R-hat 1.002)."""
    from benchmarks.alibi import SMALL, state_at_round

    game = AlibiGame(num_players=3, **SMALL)
    kb = game.knowledge(state_at_round(game, 1, 3, pos=0).observation(1))
    auto = solvers.get("auto")
    assert auto._pick(kb)[0].name == "frontier" and kb.epochs >= 3
    assert auto.tallies(kb) == solvers.get("cpsat", limit=500_000).tallies(kb)


def test_sums_repeated_across_a_meld_window_are_kept_once():
    """The hand sizes on both sides of a meld window (only public cards moved) are the same sums
    over the unseen cards: the counter keeps one copy (the view's count is checked against
    cpsat in test_a_real_view_with_passes_melds_and_history_answers)."""
    from solvers.frontier import _Problem

    _, kb = alibi_view(5, 40, 1)
    prob = _Problem(kb, 20_000)
    assert len(prob.sums) < len(prob.order_members)
    keys = {(s.op, s.n, tuple(sorted((c, f.tobytes()) for c, f in feats.items())))
            for s, feats in zip(prob.sums, prob.feature, strict=True)}
    assert len(keys) == len(prob.sums)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_histories_are_every_allowed_sequence_in_order(data):
    """``_histories`` (built epoch by epoch over arrays) lists exactly the location sequences
    a plain product over the epochs' domains allows, in lexicographic order, dead ends (a
    domain no allowed step reaches) included, and refuses past ``limit`` exactly."""
    import itertools

    from solvers.frontier import _histories

    E = data.draw(st.integers(1, 5))
    L = data.draw(st.integers(1, 4))
    possible = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=L, max_size=L), min_size=E, max_size=E)))
    pairs = [(a, b) for a in range(L) for b in range(L) if a != b]
    steps = [data.draw(st.one_of(st.none(), st.sets(st.sampled_from(pairs)) if pairs else st.just(set())))
             for _ in range(E - 1)]
    domains = [[z for z in range(L) if possible[e, z]] for e in range(E)]
    want = [h for h in itertools.product(*domains)
            if all(h[e] == h[e + 1] or (steps[e] is not None and (h[e], h[e + 1]) in steps[e]) for e in range(E - 1))]
    limit = data.draw(st.sampled_from([max(1, len(want) - 1), max(1, len(want)), len(want) + 1]))  # the edge
    if len(want) > limit:
        with pytest.raises(TooLarge, match="more than"):
            _histories(possible[:, None, :], 0, steps, limit)
    else:
        assert _histories(possible[:, None, :], 0, steps, limit) == want


@pytest.mark.parametrize("first", [1, 2])
def test_counts_kept_modulo_primes_are_read_back_exactly_past_the_first_primes(monkeypatch, first):
    """A full-size view has about 2**95 worlds: kept modulo only 1 or 2 primes (31 or 62 bits)
    at first, the counter sees from its float count that it needs more, recounts, and gives
    the same total and cells as with the default 4 (and the float count agrees with it)."""
    import solvers.frontier as frontier
    from benchmarks.alibi import state_at_round

    game = AlibiGame(num_players=4)
    kb = game.knowledge(state_at_round(game, 1, 2).observation(1))
    want = FrontierSolver().tallies(kb)
    assert want.total > 2**64
    monkeypatch.setattr(frontier, "_FIRST_PRIMES", first)
    layers = FrontierSolver()._layers(kb)
    assert len(layers.primes) >= 4 and layers.total == want.total
    assert abs(float(layers.approx[-1][0]) / want.total - 1) < 1e-9
    assert tuple(tuple(r) for r in layers.cells()) == want.cells


@pytest.mark.parametrize("limit", [0, 2**31])
def test_a_history_limit_the_modular_counts_cannot_hold_is_refused(limit):
    from deduce.errors import InvalidConfig

    with pytest.raises(InvalidConfig, match="history_limit"):
        FrontierSolver(history_limit=limit)


@pytest.mark.skipif(not frontier.USE_KERNELS, reason="numba (the fast extra) is not installed")
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40), seat=st.sampled_from([0, 1, None]))
def test_compiled_transitions_give_the_same_layers_as_the_array_code(seed, moves, seat):
    """The compiled step (solvers._frontier_kernels) and the array code build the same states,
    in the same order, with the same transitions (so counts, cells and seeded samples agree)."""
    _, kb = alibi_view(seed, moves, seat)
    built = []
    for flag in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(frontier, "USE_KERNELS", flag)
            try:
                built.append(FrontierSolver()._layers(kb))
            except TooLarge as e:
                built.append(str(e))
    compiled, arrays = built
    if not isinstance(compiled, frontier._Layers) or not isinstance(arrays, frontier._Layers):
        assert compiled == arrays  # both refused alike, or both found no world
        return
    assert len(compiled.states) == len(arrays.states)
    for x, y in zip(compiled.states, arrays.states, strict=True):
        assert np.array_equal(x, y)
    for x, y in zip(compiled.moves, arrays.moves, strict=True):
        assert all(np.array_equal(u, v) for u, v in zip(x, y, strict=True))
    assert compiled.total == arrays.total
