"""Schedules: balanced seating, round-robin subsets, duplicate deals, seeds from the root alone."""

from collections import Counter

import pytest

from deduce.apps.tournament.schedule import AgentSpec, Schedule, derive_seed, labelled, parse_agent
from deduce.errors import DeduceError


def test_rotation_puts_every_agent_in_every_seat_once_per_round():
    s = Schedule(("a", "b", "c"), 3, seed=7)
    assert s.round_size == 3
    games = s.games(6)
    for rnd in (games[:3], games[3:]):
        for seat in range(3):
            assert sorted(g.seats[seat] for g in rnd) == ["a", "b", "c"]


def test_permutations_are_every_distinct_order():
    s = Schedule(("a", "b", "c"), 3, seed=0, arrangement="permutations")
    assert s.round_size == 6
    assert len({g.seats for g in s.games(6)}) == 6


def test_round_robin_over_subsets_meets_every_pair_equally():
    s = Schedule(("a", "b", "c", "d"), 3, seed=0)
    assert s.round_size == 4 * 3  # C(4,3) subsets x 3 rotations
    games = s.games(s.round_size)
    seats = Counter(label for g in games for label in g.seats)
    assert set(seats.values()) == {9}
    pairs = Counter(frozenset(p) for g in games for p in ((g.seats[0], g.seats[1]), (g.seats[0], g.seats[2]), (g.seats[1], g.seats[2])))
    assert len(pairs) == 6 and set(pairs.values()) == {6}
    per_seat = Counter((label, seat) for g in games for seat, label in enumerate(g.seats))
    assert set(per_seat.values()) == {3}


def test_fewer_agents_than_seats_take_turns():
    s = Schedule(("a", "b"), 3, seed=0)
    games = s.games(s.round_size)
    assert all(len(g.seats) == 3 for g in games)
    assert Counter(label for g in games for label in g.seats) == {"a": 6, "b": 3}


def test_duplicate_deals_share_a_deal_within_a_round_only():
    s = Schedule(("a", "b", "c"), 3, seed=3)
    games = s.games(6)
    assert len({g.deal_seed for g in games[:3]}) == 1
    assert games[0].deal_seed != games[3].deal_seed
    assert len({g.seed for g in games}) == 6  # each seat's own randomness still differs
    fresh = Schedule(("a", "b", "c"), 3, seed=3, duplicate=False).games(6)
    assert len({g.deal_seed for g in fresh}) == 6


def test_game_seeds_depend_on_root_seed_and_id_only():
    a = Schedule(("x", "y", "z"), 3, seed=11)
    b = Schedule(("x", "y", "z"), 3, seed=11)
    assert a.games(10)[:5] == b.games(5)
    assert a[1234] == b[1234]
    assert a[4].seed == derive_seed(11, 0, 4)
    assert Schedule(("x", "y", "z"), 3, seed=12)[4].seed != a[4].seed
    assert all(0 <= g.seed < 2**63 for g in a.games(20))


def test_agent_specs_parse_and_label():
    assert parse_agent("fast=deductive") == AgentSpec("deductive", (), "fast")
    spec = parse_agent("deductive").with_params(solver="csp")
    assert spec.kwargs == {"solver": "csp"} and spec.label == "deductive"
    assert [s.label for s in labelled([parse_agent("random"), parse_agent("random")])] == ["random", "random#2"]
    assert AgentSpec.coerce(("deductive", {"solver": "csp"})).kwargs == {"solver": "csp"}
    with pytest.raises(DeduceError):
        parse_agent("bad label=random")
    with pytest.raises(DeduceError):
        Schedule(("a", "a"), 2, seed=0)


@pytest.mark.parametrize(("text", "value"), [("False", False), ("false", False), ("TRUE", True), ("None", None),
                                             ("null", None), ("0.5", 0.5), ("3", 3), ("csp", "csp")])
def test_command_line_values_read_python_and_json_words(text, value):
    """``--agent-param infogain:gamble=False`` turns gambling off (the text "False" is truthy)."""
    from deduce.apps.tournament.schedule import parse_value

    assert parse_value(text) == value and type(parse_value(text)) is type(value)
