"""Alibi (Mayfair) in the words of the rule book: cards are "Slim Slant / Morning", sets by their
printed name ("Rage"), question card sets as unions of named sets, blanks of the accusation
sheet by name, seats by name.

``event_text`` words one viewed event, ``action_text`` one legal action (what a player types a
prefix of to choose it: "ask bob holds Rage", "meld Poison", "pass Boat / Deck",
"fill suspect Slim Slant"), ``status_text`` the hand, what to pass, the sheet, melds and scores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deduce.cards import normalise_name
from deduce.errors import DeduceError, UnknownName
from deduce.explain import plain_phraser as phraser
from deduce.games.alibi.log import set_name
from deduce.games.alibi.rules import (
    BLANKS,
    Accuse,
    Accused,
    AlibiGame,
    AlibiObservation,
    Ask,
    Asked,
    Done,
    Family,
    Fill,
    Meld,
    Melded,
    PassCard,
    Passed,
    Revealed,
)
from deduce.games.base import Action, Dealt, Event, Observation
from deduce.games.words import cards_text as _cards
from deduce.games.words import who as _who

__all__ = [
    "event_text",
    "action_text",
    "phraser",
    "status_text",
    "final_scores",
    "actions_help",
    "card_set_text",
    "parse_action",
    "question_hint",
    "match_name",
]

_FAMILY = {Family.HAND: "holds", Family.SEEN: "has seen"}


def card_set_text(game: AlibiGame, cards: Sequence[int]) -> str:
    """A question's card set as the named sets it is the union of ("Rage + Morning + Gun / Rifle"):
    categories first, then whole sets, sub-icon classes and single cards."""
    left = set(cards)
    parts = []
    for label, ids in game.canonical_sets():
        if ids and set(ids) <= left:
            parts.append(label)
            left -= set(ids)
        if not left:
            break
    return " + ".join(parts) or "nothing"


def _blank_value(game: AlibiGame, blank: int, value: int, sheet: dict[int, int]) -> str:
    """The word written in ``blank``: a set's name, or a sub-icon of the parent's set."""
    category = blank // 2
    sets = game.category_sets[category]
    if blank % 2 == 0:
        return set_name(game, sets[value])
    parent = sheet.get(2 * category)
    set_id = sets[parent] if parent is not None else sets[0]
    if parent is None and category != 0:
        return f"sub-icon {value + 1} of the set"
    return str(game.deck[game.set_cards[set_id][value]].attribute("sub"))


def event_text(game: AlibiGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    names = game.config.names
    if isinstance(event, Dealt):
        owner = "your" if event.player == you else f"{names[event.player]}'s"
        return f"{owner} hand: {_cards(game, event.cards)}"
    if isinstance(event, Melded):
        return f"{who(event.player)} melded {set_name(game, event.set_id)} ({_cards(game, event.cards)}) for {event.points} points"
    if isinstance(event, Asked):
        if event.family is Family.HELD:
            question = "how many different cards have you ever held?"
        else:
            verb = "do you hold" if event.family is Family.HAND else "have you ever seen"
            question = f"how many of {card_set_text(game, event.cards)} {verb}?"
        return f"{who(event.asker)} asked {who(event.target)}: {question} answer {event.answer}"
    if isinstance(event, Passed):
        n = len(event.counts)
        counts = sorted(set(event.counts))
        text = f"everyone passed {counts[0] if len(counts) == 1 else 'their'} card{'s' if counts != [1] else ''} to the left"
        mine = []
        for p, cards in enumerate(event.cards):
            if cards is None:
                continue
            if you is None:  # a view read without a seat to call "you" (a logged game)
                mine.append(f"{names[p]} gave {names[(p + 1) % n]} {_cards(game, cards)}")
            elif p == you:
                mine.append(f"you gave {names[(p + 1) % n]} {_cards(game, cards)}")
            elif (p + 1) % n == you:
                mine.append(f"you got {_cards(game, cards)} from {names[p]}")
        return text + ("; " + "; ".join(mine) if mine else "")
    if isinstance(event, Accused):
        return f"{who(event.player)} accuse{'s' if event.player != you else ''}: every player fills an accusation sheet"
    if isinstance(event, Revealed):
        sheets = []
        for p, sheet in enumerate(event.sheets):
            filled = dict(sheet)
            words = ", ".join(f"{BLANKS[b]} {_blank_value(game, b, v, filled)}" for b, v in sheet) or "nothing"
            sheets.append(f"{who(p)} wrote {words} ({event.sheet_points[p]:+d})")
        scores = ", ".join(f"{who(p)} {s}" for p, s in enumerate(event.scores))
        return f"the box held {_cards(game, event.box)}; " + "; ".join(sheets) + f"; scores: {scores}"
    return repr(event)


def action_text(game: AlibiGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words; ``observation`` (the actor's sheet) names a sub-blank's sub-icon."""
    names = game.config.names
    if isinstance(action, Ask):
        if action.family is Family.HELD:
            return f"ask {names[action.target]} how many different cards held"
        return f"ask {names[action.target]} {_FAMILY[action.family]} {card_set_text(game, action.cards)}"
    if isinstance(action, Meld):
        if not action.sets:
            return "meld nothing"
        return "meld " + ", ".join(set_name(game, s) for s in action.sets)
    if isinstance(action, Accuse):
        return "accuse"
    if isinstance(action, PassCard):
        return f"pass {game.deck[action.card].name}"
    if isinstance(action, Fill):
        sheet = dict(getattr(observation, "sheet", ()))
        return f"fill {BLANKS[action.blank]} {_blank_value(game, action.blank, action.value, sheet)}"
    if isinstance(action, Done):
        return "done: hand in the sheet"
    return repr(action)



def status_text(game: AlibiGame, observation: Observation) -> str:
    """Your hand, what you must do now, your sheet, the melds and the scores."""
    obs = observation
    if not isinstance(obs, AlibiObservation):
        return ""
    you = obs.player
    lines = [f"round {obs.round}; hand sizes: " + ", ".join(f"{_who(game, p, you)} {k}" for p, k in enumerate(obs.hand_sizes))]
    if you is not None:
        lines.append(f"your hand: {_cards(game, obs.hand)}")
    if obs.phase == "pass" and obs.to_pass:
        chosen = f" (chosen so far: {_cards(game, obs.passing)})" if obs.passing else ""
        left = game.config.names[(you + 1) % obs.num_players] if you is not None else "the left"
        lines.append(f"pass {obs.to_pass} card{'s' if obs.to_pass != 1 else ''} face down to {left}, one at a time{chosen}")
    if obs.sheet:
        filled = dict(obs.sheet)
        lines.append("your sheet: " + ", ".join(f"{BLANKS[b]} {_blank_value(game, b, v, filled)}" for b, v in obs.sheet))
    if obs.melds:
        lines.append("melds: " + ", ".join(f"{_who(game, p, you)} {set_name(game, s)}" for p, s in obs.melds))
    if obs.accuser is not None:
        lines.append(f"{_who(game, obs.accuser, you)} accused first")
    if obs.scores:
        lines.append("scores: " + ", ".join(f"{_who(game, p, you)} {s}" for p, s in enumerate(obs.scores)))
    return "\n".join(lines)


def final_scores(game: AlibiGame, observation: Observation) -> tuple[int, ...] | None:
    """Melds plus the accusation sheets."""
    return tuple(getattr(observation, "scores", ())) or None


def actions_help(game: AlibiGame) -> str:
    """The game's actions with an example of each."""
    return (
        "Alibi actions:\n"
        "  meld SETS / meld nothing     lay down complete sets (e.g. 'meld Poison')\n"
        "  ask P holds SET              how many cards of SET does P hold now (e.g. 'ask bob holds Rage')\n"
        "  ask P has seen SET           ... has P ever seen (e.g. 'ask bob has seen Morning')\n"
        "  ask P how many ... held      how many different cards has P ever held\n"
        "      SET: a category (suspect, place, weapon, emotion), a set (Gun), a time (Noon) or a card\n"
        "      or several joined by '+' or ',': a hypothesis names a suspect card and at most one card\n"
        "      of each other category ('ask bob has seen Slim Slant, Morning, Front Seat, Pillow')\n"
        "  accuse                       end the game: every player fills a sheet\n"
        "  pass CARD                    choose a card to pass to the left (e.g. 'pass Boat / Deck')\n"
        "  fill BLANK VALUE             write on your sheet (e.g. 'fill suspect Slim Slant', 'fill time Noon')\n"
        "      blanks: " + ", ".join(BLANKS) + "\n"
        "  done                         hand in your sheet"
    )


def _vocabulary(game: AlibiGame) -> dict[str, tuple[int, ...]]:
    """Every name a question's cards can be given by: the named sets (categories, sets, the
    times, cards) and a card's own sub-icon where only one card bears it ("Front Seat")."""
    out = {label: ids for label, ids in game.canonical_sets()}
    subs: dict[str, list[int]] = {}
    for card in game.deck:
        subs.setdefault(str(card.attribute("sub")), []).append(card.id)
    for sub, ids in subs.items():
        if len(ids) == 1:
            out.setdefault(sub, tuple(ids))
    return out


def _words_of(text: str) -> list[str]:
    return [normalise_name(w) for w in re.split(r"[\s/]+", text) if normalise_name(w)]


def match_name(text: str, names: Sequence[str], what: str) -> str:
    """The one of ``names`` that ``text`` names: the name itself (case, spaces and punctuation
    aside), else the only name each of whose typed words begins a word of ("sli sl mor");
    an error naming the input otherwise ("did you mean" for a near miss)."""
    import difflib

    key = normalise_name(text)
    exact = [n for n in names if normalise_name(n) == key]
    if len(exact) == 1:
        return exact[0]
    typed = _words_of(text)
    found = [n for n in names if typed and all(any(w.startswith(t) for w in _words_of(n)) for t in typed)]
    if len(found) == 1:
        return found[0]
    if found:
        raise DeduceError(f"{what} {text!r} is ambiguous: it could be {', '.join(found[:6])}{', ...' if len(found) > 6 else ''}")
    close = difflib.get_close_matches(text, list(names), n=3, cutoff=0.6)
    raise UnknownName(f"unknown {what} {text!r}" + (f"; did you mean {' or '.join(close)}?" if close else ""))


def _question_cards(game: AlibiGame, text: str) -> tuple[int, ...]:
    """The cards of a question's parts joined by "+" or ","; a suspect followed by a time
    ("Slim Slant, Morning") is that one card, as in the seed's hypothesis."""
    vocab = _vocabulary(game)
    names = list(vocab)
    parts = [p.strip() for p in re.split(r"[+,]", text) if p.strip()]
    if not parts:
        raise DeduceError(f"a question needs cards: {text!r} names none")
    sets = [set(vocab[match_name(p, names, "card, set or category")]) for p in parts]
    suspects = {frozenset(game.set_cards[s]) for s in game.category_sets[0]}
    times = {frozenset(ids) for _, ids in game.subicon_classes}
    cards: set[int] = set()
    i = 0
    while i < len(sets):
        if i + 1 < len(sets) and frozenset(sets[i]) in suspects and frozenset(sets[i + 1]) in times:
            cards |= sets[i] & sets[i + 1]
            i += 2
            continue
        cards |= sets[i]
        i += 1
    return tuple(sorted(cards))


def parse_action(game: AlibiGame, line: str, observation: Observation | None = None) -> Action | None:
    """A question typed in the game's words, beyond the listed ones: "ask bob has seen Slim
    Slant, Morning, Front Seat, Pillow" (the seed's hypothesis), "ask cy holds Rage + Gun"
    (any union of named sets). ``None`` when ``line`` is not a question; an error naming the
    input when it is one that cannot be read."""
    m = re.match(r"\s*ask\s+(.+?)\s+(holds?|has\s+seen|seen)\s+(.+)$", line, re.IGNORECASE)
    if m is None:
        return None
    names = list(game.config.names)
    target = names.index(match_name(m.group(1), names, "player"))
    family = Family.HAND if m.group(2).lower().startswith("hold") else Family.SEEN
    return Ask(target, family, _question_cards(game, m.group(3)))


def question_hint(game: AlibiGame, observation: Observation | None = None) -> str:
    """How to type a question that is not listed (a hypothesis, any union of named sets)."""
    you = getattr(observation, "player", None)
    names = game.config.names
    other = names[next((p for p in range(game.num_players) if p != you), 0)]
    suspect = game.deck[game.set_cards[game.category_sets[0][0]][0]]
    rest = [str(game.deck[game.set_cards[game.category_sets[k][0]][0]].attribute("sub")) for k in (1, 2)]
    seed = f"{suspect.attribute('set')}, {suspect.attribute('sub')}, {rest[0]}, {rest[1]}"
    return (
        f"or ask any question by its cards: a hypothesis, 'ask {other} has seen {seed}' "
        f"(a suspect card and at most one place, weapon and emotion card), or named sets joined "
        f"by '+', 'ask {other} holds Rage + Gun'"
    )
