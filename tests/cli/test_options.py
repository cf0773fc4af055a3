"""The one grammar of agents and game settings: parsing, typing by signature and by field."""

import pytest

from deduce.cli.options import (
    coerce,
    parse_agent_option,
    parse_agent_options,
    parse_config,
    split_top,
    type_agent_params,
)
from deduce.errors import DeduceError, InvalidConfig


def test_agent_specs_parse_label_name_and_parameters():
    assert parse_agent_option("deductive").label == "deductive"
    fast = parse_agent_option("fast=deductive:solver=csp")
    assert (fast.name, fast.label, fast.params) == ("deductive", "fast", (("solver", "csp"),))
    two = parse_agent_option("bayesian:prior_rate=[1,4],steal=none")
    assert two.params == (("prior_rate", "[1,4]"), ("steal", "none"))
    assert [o.name for o in parse_agent_options(["a b", "c:k=v"])] == ["a", "b", "c"]
    assert split_top("a=[1,2],b=(3,4),c='x,y'") == ["a=[1,2]", "b=(3,4)", "c='x,y'"]
    for bad in ("", "x:novalue", "x:k=1,k=2", "lab="):
        with pytest.raises(InvalidConfig):
            parse_agent_option(bad)


@pytest.mark.parametrize("text, value", [
    ("true", True), ("False", False), ("yes", True), ("NO", False), ("1", True), ("0", False),
])
def test_bool_words(text, value):
    assert coerce(text, bool, "x") is value


def test_values_are_typed_by_the_agents_constructor():
    typed = type_agent_params("infogain", "clue", {"gamble": "False", "min_gamble": "0.3", "accuse_threshold": "1"})
    assert typed == {"gamble": False, "min_gamble": 0.3, "accuse_threshold": 1.0}
    assert type(typed["accuse_threshold"]) is float
    assert type_agent_params("infogain", "clue", {"min_gamble": "none"}) == {"min_gamble": None}
    assert type_agent_params("bayesian", "checkpoint-charlie", {"prior_rate": "[1,4]"}) == {"prior_rate": (1.0, 4.0)}
    # a board agent takes its inner agent's parameters too
    assert type_agent_params("deductive-board", "clue", {"inner": "infogain", "gamble": "no"}) == \
        {"inner": "infogain", "gamble": False}


def test_what_does_not_fit_names_the_agent_and_the_parameter():
    with pytest.raises(InvalidConfig, match=r"agent 'infogain': parameter gamble='maybe': expected true or false"):
        type_agent_params("infogain", "clue", {"gamble": "maybe"})
    with pytest.raises(InvalidConfig, match=r"agent 'fast' \(deductive\): parameter nope='1': no such parameter; it takes: solver"):
        type_agent_params("deductive", "clue", {"nope": "1"}, label="fast")
    with pytest.raises(InvalidConfig, match="expected a number"):
        type_agent_params("infogain", "clue", {"leak_weight": "lots"})
    with pytest.raises(DeduceError, match="unknown agent"):
        type_agent_params("nosuch", "clue", {})


def test_config_values_are_typed_by_the_field():
    config = parse_config("clue", ["refute_all=yes", "suspects=A,B,C", "dice=3",
                                   "bonus_cards=any_room:4,decline:3", "edition=intrigue"])
    assert config == {"refute_all": True, "suspects": ("A", "B", "C"), "dice": 3,
                      "bonus_cards": (("any_room", 4), ("decline", 3)), "edition": "intrigue"}
    assert parse_config("clue", ["bonus_cards=[[\"any_room\", 2]]"])["bonus_cards"] == (("any_room", 2),)
    with pytest.raises(InvalidConfig, match=r"--config dice='two': expected a whole number"):
        parse_config("clue", ["dice=two"])
    with pytest.raises(InvalidConfig, match=r"--set refute_all='perhaps'"):
        parse_config("clue", ["refute_all=perhaps"], flag="--set")
    with pytest.raises(DeduceError, match="no such setting"):
        parse_config("clue", ["nosuch=1"])
    with pytest.raises(InvalidConfig, match="expected KEY=VALUE"):
        parse_config("clue", ["dice"])
