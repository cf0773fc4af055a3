"""The fixed action numbering (deduce.actions): a bijection on its range, declared by every game
in its record, covering every action the engines offer. Core: runs without PettingZoo."""

import importlib
import itertools
import math

import numpy as np
import pytest

import deduce
from deduce import actions as core_actions
from deduce.actions import (
    ActionIndex,
    Block,
    Choice,
    Combos,
    Seq,
    action_index,
    register_action_index,
)
from deduce.errors import IllegalAction, NotSupported
from deduce.games.registry import game_info

GAMES = deduce.game_names()

#: N of each game's default configuration (docs/pettingzoo.md); a change renumbers the actions
#: of every learning-framework adapter, so it must come with a new environment version.
DEFAULT_SIZES = {
    "clue": 671,
    "alibi": 315_400,
    "alibi-adlung": 400_540,
    "mafia-code": 109,
    "checkpoint-charlie": 35,
    "crime-hotel": 3_188,
}


def test_combos_rank_every_subset_once_in_order():
    combos = Combos([10, 20, 30, 40, 50], sizes=[0, 2, 3])
    subsets = [s for k in (0, 2, 3) for s in itertools.combinations([10, 20, 30, 40, 50], k)]
    assert combos.size == len(subsets) == 1 + 10 + 10
    ranks = [combos.rank(s) for s in subsets]
    assert sorted(ranks) == list(range(combos.size))
    for s, r in zip(subsets, ranks, strict=True):
        assert combos.unrank(r) == s
    assert combos.rank((30, 10)) == combos.rank((10, 30))
    for bad in [(10,), (10, 10), (10, 99)]:
        with pytest.raises(KeyError):
            combos.rank(bad)


def test_combos_never_materialise_a_large_space():
    combos = Combos(range(60), range(1, 6))
    assert combos.size == sum(math.comb(60, k) for k in range(1, 6))
    last = combos.size - 1
    assert combos.unrank(last) == (55, 56, 57, 58, 59)
    assert combos.rank((55, 56, 57, 58, 59)) == last


def test_seq_is_mixed_radix():
    seq = Seq([Choice("ab"), Choice(range(3))])
    assert [seq.unrank(i) for i in range(seq.size)] == [(x, y) for x in "ab" for y in range(3)]
    assert seq.rank(("b", 2)) == 5


def test_block_checks_its_fields():
    from deduce.games.mafia_code import rules as mc

    with pytest.raises(ValueError, match="fields"):
        Block(mc.Guess, [Choice(range(3))])


@pytest.mark.parametrize("game_name", GAMES)
def test_every_game_declares_its_numbering(game_name):
    info = game_info(game_name)
    assert info.actions is not None
    module = importlib.import_module(f"deduce.games.{game_name.replace('-', '_')}.actions")
    assert info.actions is module.action_index
    game = deduce.make(game_name)
    index = action_index(game)
    assert isinstance(index, ActionIndex)
    assert index.size == len(index) == info.actions(game).size == DEFAULT_SIZES[game_name]


@pytest.mark.parametrize("game_name", GAMES)
def test_decode_encode_round_trip(game_name):
    index = action_index(deduce.make(game_name))
    rng = np.random.default_rng(0)
    picks = {0, index.size - 1, *map(int, rng.integers(index.size, size=300))}
    for lo in index.offsets[:-1]:
        picks.add(int(lo))
    for i in picks:
        assert index.encode(index.decode(i)) == i
    for outside in (-1, index.size):
        with pytest.raises(IllegalAction):
            index.decode(outside)


@pytest.mark.parametrize("game_name", GAMES)
def test_legal_actions_of_random_states_round_trip(game_name):
    game = deduce.make(game_name)
    index = game_info(game_name).actions(game)
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(30):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            numbers = [index.encode(a) for a in legal]
            assert len(set(numbers)) == len(set(legal))
            assert all(i in range(index.size) for i in numbers)
            for a, i in zip(legal, numbers, strict=True):
                assert index.decode(i) == a
            mask = index.mask(legal)
            assert mask.dtype == np.int8 and mask.shape == (index.size,)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(set(numbers))
            state.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("game_name", GAMES)
def test_every_offered_action_has_an_index(game_name):
    game = deduce.make(game_name)
    index = action_index(game)
    seen: set[int] = set()
    for seed in range(2):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(400):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            mask = index.mask(legal)
            assert mask.sum() == len(set(legal))
            for a in legal:
                i = index.encode(a)
                assert index.decode(i) == a
                seen.add(i)
            state.apply(legal[int(rng.integers(len(legal)))])
    assert len(seen) > 1


def test_listed_and_registered_enumerations():
    from deduce.games.checkpoint_charlie import rules as cc

    listed = ActionIndex.from_actions([cc.Pass(), cc.ChooseSide(0), cc.ChooseSide(1)])
    assert listed.size == 3 and listed.encode(cc.ChooseSide(1)) == 2
    assert set(listed.kinds) == {cc.Pass, cc.ChooseSide}
    with pytest.raises(NotSupported, match="outside"):
        listed.encode(cc.Arrest(3))
    game = deduce.make("checkpoint-charlie")
    register_action_index("checkpoint-charlie", lambda g: listed)
    try:
        assert action_index(game) is listed
    finally:
        core_actions._BUILDERS.pop("checkpoint-charlie")
    assert action_index(game).size == 35


def test_unregistered_games_fall_back_to_action_space():
    from deduce.games.checkpoint_charlie import rules as cc

    class Listed(cc.CheckpointCharlieGame):
        name = "listed-test-game"

        def action_space(self):
            return [cc.Pass(), cc.Arrest(0)]

    class Bare(cc.CheckpointCharlieGame):
        name = "bare-test-game"

    index = action_index(Listed())
    assert index.size == 2 and index.decode(1) == cc.Arrest(0)
    with pytest.raises(NotSupported, match="no action enumeration"):
        action_index(Bare())
