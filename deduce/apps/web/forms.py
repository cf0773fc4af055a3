"""Event forms for the page, read from an adapter's own line grammar (its ``help``).

The terminal assistant documents each event as a line such as ``sug BY SUSPECT WEAPON ROOM
REFUTER|none [shown=CARD]``. Reading that grammar gives the page one form per event without
per-game HTML: a placeholder naming a player (``WHO``, ``BY``) becomes player buttons, a card
(``CARD``, ``SUSPECT`` when the deck has suspects) card buttons, ``N`` a number, ``a|b`` a
choice, ``[...]`` an optional part, a plural (``CARDS``) several picks; anything else is a short
text field offering the game's words. The page builds the very line the terminal would read
and hands it to the same session, so every check stays the adapter's.

:data:`HINTS` adds what the grammar cannot say about which picks are legal now (a refuter is
not the suggester; the card shown to you is one of the three asked, and only when you asked).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from deduce.cards import normalise_name

__all__ = ["Slot", "EventForm", "HINTS", "event_forms", "grammar_lines", "card_token", "PLAYER_WORDS"]

#: placeholders that name a player.
PLAYER_WORDS = frozenset({"WHO", "BY", "TARGET", "ASKER", "ACTOR", "REFUTER", "LEADER", "VICTIM"})
#: placeholders that name a card of the deck (a category's name, e.g. SUSPECT, counts too when
#: the deck has that category).
CARD_WORDS = frozenset({"CARD", "CARDS"})
NUMBER_WORDS = frozenset({"N", "K"})
#: other placeholders that are a card of the deck, by game (Checkpoint Charlie's clue-token faces).
GAME_CARD_WORDS: Mapping[str, frozenset[str]] = {"checkpoint-charlie": frozenset({"FACE"})}

_PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")

#: Per (game, event word, placeholder): what makes a pick legal now, beyond the grammar.
#: ``exclude``: not the value picked in that slot; ``pick_from``: one of the values picked in
#: those slots; ``only_if_me``: offered only when that slot is you (and, with ``unless``, the
#: named slot is not that value); ``extra``: more choices than the players; ``card_word``: a
#: choice of the words at that place in the cards' names.
HINTS: Mapping[tuple[str, str, str], Mapping[str, Any]] = {
    ("clue", "sug", "REFUTER"): {"exclude": "BY"},
    ("clue", "sug", "CARD"): {"pick_from": ["SUSPECT", "WEAPON", "ROOM"], "only_if_me": "BY",
                              "unless": ["REFUTER", "none"]},
    ("clue", "has", "WHO"): {"extra": ["envelope"]},
    ("clue", "not", "WHO"): {"extra": ["envelope"]},
    ("mafia-code", "hit", "TARGET"): {"exclude": "BY"},
    ("mafia-code", "miss", "TARGET"): {"exclude": "BY"},
    ("crime-hotel", "exchange", "TARGET"): {"exclude": "ACTOR"},
    ("crime-hotel", "check", "TARGET"): {"exclude": "ACTOR"},
    ("alibi", "ask", "TARGET"): {"exclude": "ASKER"},
    ("alibi-adlung", "bribe", "VICTIM"): {"exclude": "WHO"},
    ("alibi-adlung", "lay", "FACES"): {"only_if_me": "WHO"},
    ("alibi-adlung", "alibi", "FACES"): {"only_if_me": "WHO"},
    ("alibi-adlung", "bribe", "FACES"): {"only_if_me": "WHO"},
    ("alibi-adlung", "stop", "FACES"): {"only_if_me": "WHO"},
    ("checkpoint-charlie", "side", "FACE"): {"only_if_me": "WHO"},
    # a word of the cards' names: Mafia Code's roll is a colour and a letter
    ("mafia-code", "code", "COLOUR"): {"card_word": 0},
    ("mafia-code", "code", "LETTER"): {"card_word": 1},
}


@dataclass(frozen=True)
class Slot:
    """One part of an event line: fixed text, or something to pick or type.

    ``kind``: ``word`` (fixed ``text``), ``player``, ``card`` (of ``category``, or any),
    ``number``, ``choice`` (one of ``options``) or ``text``. ``name`` is the placeholder as
    the grammar writes it; ``many``: several picks; ``count``: exactly that many numbers, one
    per player (``-1``); ``group``: slots of one optional ``[...]`` share a group number
    (0: required); ``prefix``: written before the value (``shown=``); ``options`` also extends
    a player or card pick (``none``).
    """

    kind: str
    name: str = ""
    text: str = ""
    category: str | None = None
    many: bool = False
    count: int = 1
    group: int = 0
    prefix: str = ""
    options: tuple[str, ...] = ()
    hint: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EventForm:
    """One event as the page offers it: its word, the terminal's syntax, what it means, its slots."""

    word: str
    syntax: str
    description: str
    slots: tuple[Slot, ...]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def grammar_lines(help_text: str, words: Sequence[str]) -> list[tuple[str, str]]:
    """``(syntax, description)`` for each event line of a help text.

    A help line is indented and lists one or two syntaxes then a description, each two or more
    spaces apart; a syntax also appears quoted in a description (``'stop WHO [got FACES]'``).
    """
    known = {w.lower() for w in words}
    out: list[tuple[str, str]] = []
    quoted: list[tuple[list[str], str]] = []
    for raw in help_text.splitlines():
        if not raw.startswith("  "):
            continue
        chunks = [c for c in re.split(r"\s{2,}", raw.strip()) if c]
        syntaxes = [c for c in chunks if _is_syntax(c, known)]
        description = " ".join(c for c in chunks if c not in syntaxes)
        out += [(s, description) for s in syntaxes]
        quoted.append(([q for q in re.findall(r"(?<!\w)'([^']+)'(?!\w)", description) if _is_syntax(q, known)], description))
    # a quoted syntax is another event ('stop WHO [got FACES]') or an event's bare form ('pass'),
    # not a word of an argument ('envelope') nor another spelling of a listed event ('hand me CARDS')
    events = {s.split()[0] for s, _ in out}
    for found, description in quoted:
        for q in found:
            single = len(q.split()) == 1
            if (q.split()[0] in events) == single and all(q != s for s, _ in out):
                out.append((q, description))
    return out


def _is_syntax(chunk: str, known: set[str]) -> bool:
    """Whether a help chunk is an event's syntax: a known or plain lowercase word, then only
    placeholders, choices, brackets and the game's own words."""
    tokens = chunk.split()
    if not tokens or not re.fullmatch(r"[a-z]+", tokens[0]):
        return False
    if len(tokens) == 1:
        return tokens[0] in known
    for t in tokens[1:]:
        bare = t.strip("[]").removesuffix("...")
        if t == "|" or _PLACEHOLDER.match(bare) or (bare.lower() in known and bare == bare.lower()):
            continue
        if "|" in bare and all(p and (p.lower() in known or _PLACEHOLDER.match(p) or p.isalpha()) for p in bare.split("|")):
            continue
        if "=" in bare and _PLACEHOLDER.match(bare.split("=", 1)[1]):
            continue
        if bare == "me":
            continue
        return False
    return True


def event_forms(game: str, help_text: str, words: Sequence[str], categories: Sequence[str],
                cards: Sequence[str] = ()) -> list[EventForm]:
    """The forms of one game's events, from its adapter's help text (see the module's doc);
    ``cards``: the deck's names, for choices among their words."""
    forms: list[EventForm] = []
    for syntax, description in grammar_lines(help_text, words):
        for variant in _variants(syntax.split()):
            word, rest = variant[0], variant[1:]
            slots = [_card_words(s, cards) for s in _slots(game, word, rest, categories)]
            forms.append(EventForm(word, " ".join(variant), description, tuple(slots)))
    return forms


def _card_words(slot: Slot, cards: Sequence[str]) -> Slot:
    """A text slot whose hint names a word of the cards' names, as a choice of those words."""
    place = slot.hint.get("card_word")
    if place is None or not cards:
        return slot
    options = tuple(dict.fromkeys(n.split()[place] for n in cards if len(n.split()) > place))
    return Slot("choice", name=slot.name, options=options, group=slot.group)


def _variants(tokens: list[str]) -> list[list[str]]:
    """A syntax with a spaced ``A | B`` is two syntaxes (``check ACTOR TARGET K | CARDS``)."""
    if "|" not in tokens:
        return [tokens]
    i = tokens.index("|")
    return [tokens[:i], tokens[: i - 1] + tokens[i + 1 :]]


def _slots(game: str, word: str, tokens: list[str], categories: Sequence[str]) -> list[Slot]:
    cats: dict[str, str | None] = {c.lower(): c for c in categories}
    cats.update({w.lower(): None for w in GAME_CARD_WORDS.get(game, ())})
    slots: list[Slot] = []
    group, depth = 0, 0
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.startswith("["):
            if depth == 0:
                group += 1
            depth += t.count("[")
        this_group = group if depth else 0
        depth -= t.count("]")
        bare = t.strip("[]")
        many = bare.endswith("...")
        bare = bare.removesuffix("...")
        # repeated numbers ("N N N"): one per player, in seat order
        run = 1
        while bare in NUMBER_WORDS and i + run < len(tokens) and tokens[i + run] == bare:
            run += 1
        i += run
        prefix = ""
        if "=" in bare:
            prefix, bare = bare.split("=", 1)
            prefix += "="
        hint = dict(HINTS.get((game, word, bare), {}))
        if "|" in bare:
            parts = bare.split("|")
            upper = [p for p in parts if _PLACEHOLDER.match(p)]
            lower = tuple(p for p in parts if not _PLACEHOLDER.match(p))
            if upper:
                base = _placeholder(upper[0], many, cats)
                hint = dict(HINTS.get((game, word, upper[0]), {}))
                slots.append(Slot(**{**base, "options": lower, "group": this_group, "hint": hint}))
            else:
                slots.append(Slot("choice", name=bare, options=lower, group=this_group, hint=hint))
            continue
        if not _PLACEHOLDER.match(bare):
            slots.append(Slot("word", text=bare, group=this_group))
            continue
        base = _placeholder(bare, many, cats)
        if run > 1:
            base["count"] = -1
        slots.append(Slot(**{**base, "prefix": prefix, "group": this_group, "hint": hint,
                             "options": tuple(hint.get("extra", ()))}))
    return slots


def _placeholder(name: str, many: bool, cats: Mapping[str, str | None]) -> dict[str, Any]:
    """The pick a placeholder stands for: a player, a card (of a category), a number or text."""
    plural = name.endswith("S") and name[:-1] in CARD_WORDS | PLAYER_WORDS | {"FACE", "NAME"}
    single = name[:-1] if plural else name
    if single in PLAYER_WORDS:
        return {"kind": "player", "name": name, "many": many or plural}
    if single in CARD_WORDS:
        return {"kind": "card", "name": name, "many": many or plural}
    if single.lower() in cats:
        return {"kind": "card", "name": name, "category": cats[single.lower()], "many": many or plural}
    if single in NUMBER_WORDS:
        return {"kind": "number", "name": name}
    return {"kind": "text", "name": name, "many": many or plural}


#: games whose lines read a card as its words ("red A": a colour and a letter), not one token.
CARDS_AS_WORDS = frozenset({"mafia-code"})


def card_token(name: str, game: str) -> str:
    """A card name as the adapter's lines read it back exactly: one folded token ("Mr. Green" ->
    "mrgreen", so Alibi's "Slim Slant / Morning" is not read as a set and a time), or its words."""
    if game in CARDS_AS_WORDS:
        return name
    return normalise_name(name) or name
