"""Event forms read from the adapters' own grammar: every game's events, the slots they get,
and that the lines the page builds are the ones its session reads."""

from __future__ import annotations

import pytest

from deduce.apps.assist.session import adapter_for, assisted_games
from deduce.apps.web.forms import card_token, event_forms, grammar_lines

CLUE_CATEGORIES = ["suspect", "weapon", "room"]


def forms_of(game: str, categories: list[str] = ()) -> dict[str, list]:  # type: ignore[assignment]
    adapter = adapter_for(game)
    out: dict[str, list] = {}
    for form in event_forms(game, adapter.help, adapter.words, list(categories)):
        out.setdefault(form.word, []).append(form)
    return out


@pytest.mark.parametrize(
    ("game", "words"),
    [
        ("clue", ["sug", "acc", "has", "not", "hand"]),
        ("mafia-code", ["code", "hit", "miss", "hand"]),
        ("checkpoint-charlie", ["round", "side", "flip", "hound", "arrest"]),
        ("crime-hotel", ["play", "deduce", "move", "exchange", "check", "final", "hidden", "game", "hand"]),
        ("alibi", ["ask", "pass", "meld", "accuse", "reveal", "hand"]),
        ("alibi-adlung", ["lay", "alibi", "bribe", "eye", "exchange", "swap", "opening", "convict", "stop"]),
    ],
)
def test_every_event_of_the_grammar_gets_a_form_and_no_argument_word_does(game: str, words: list[str]) -> None:
    assert list(forms_of(game)) == words


def test_all_adapted_games_are_covered() -> None:
    assert set(assisted_games()) == {"clue", "mafia-code", "checkpoint-charlie", "crime-hotel", "alibi", "alibi-adlung"}


def test_clue_suggestion_slots_and_what_is_legal_now() -> None:
    (sug,) = forms_of("clue", CLUE_CATEGORIES)["sug"]
    kinds = [(s.kind, s.name, s.category, s.group) for s in sug.slots]
    assert kinds == [("player", "BY", None, 0), ("card", "SUSPECT", "suspect", 0), ("card", "WEAPON", "weapon", 0),
                     ("card", "ROOM", "room", 0), ("player", "REFUTER", None, 0), ("card", "CARD", None, 1)]
    refuter, shown = sug.slots[4], sug.slots[5]
    assert refuter.options == ("none",) and refuter.hint == {"exclude": "BY"}
    assert shown.prefix == "shown=" and shown.hint["pick_from"] == ["SUSPECT", "WEAPON", "ROOM"]
    assert shown.hint["only_if_me"] == "BY"


def test_has_may_name_the_envelope_and_several_cards() -> None:
    (has,) = forms_of("clue", CLUE_CATEGORIES)["has"]
    who, cards = has.slots
    assert who.options == ("envelope",) and cards.kind == "card" and cards.many


def test_alternatives_split_into_variants_and_repeated_numbers_are_one_per_player() -> None:
    checks = forms_of("crime-hotel")["check"]
    assert [f.syntax for f in checks] == ["check ACTOR TARGET K", "check ACTOR TARGET CARDS"]
    assert [s.kind for s in checks[0].slots] == ["player", "player", "number"]
    codes = forms_of("mafia-code")["code"]
    assert [s.count for s in codes[1].slots if s.kind == "number"] == [-1]


def test_quoted_forms_in_descriptions() -> None:
    assert [f.syntax for f in forms_of("alibi")["pass"]] == ["pass gave CARDS got CARDS", "pass"]
    (stop,) = forms_of("alibi-adlung")["stop"]
    assert [(s.kind, s.group) for s in stop.slots] == [("player", 0), ("word", 1), ("text", 1)]


def test_grammar_lines_skip_descriptions_and_headers() -> None:
    text = """events (a header):
  go WHO CARD      WHO goes, 'nowhere' is not an event
  wait             a rest
                   a continuation line"""
    assert grammar_lines(text, ["go", "wait"]) == [("go WHO CARD", "WHO goes, 'nowhere' is not an event"),
                                                   ("wait", "a rest")]


def test_card_tokens_read_back_as_the_card() -> None:
    assert card_token("Mr. Green", "clue") == "mrgreen"
    assert card_token("Slim Slant / Morning", "alibi") == "slimslantmorning"  # one card, not a set and a time
    assert card_token("red A", "mafia-code") == "red A"


def test_a_roll_is_a_choice_of_the_cards_colours_and_letters() -> None:
    adapter = adapter_for("mafia-code")
    cards = ["red A", "red B", "blue A"]
    code = event_forms("mafia-code", adapter.help, adapter.words, ["mafia"], cards)[0]
    assert [(s.kind, s.options) for s in code.slots[1:3]] == [("choice", ("red", "blue")), ("choice", ("A", "B"))]
