"""Clue events, actions and constraints in plain words, for people at a real table.

``event_text`` renders one (viewed) event, ``action_text`` one legal action, and ``phraser``
builds the hook :func:`deduce.explain.render` uses to word a constraint by the event it came
from ("cy showed ann one of {Plum, Rope, Hall}" rather than "cy holds at least one of ...").
Player names come from the game's config; ``you`` (a seat) is called "you" instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deduce.constraints import At, AtLeastOne, Constraint, NotAll
from deduce.explain import Phrasing, event_citer
from deduce.games.base import Action, Event, Observation
from deduce.games.clue.intrigue import Decline
from deduce.games.clue.rules import (
    ENVELOPE,
    EXTRA,
    Accusation,
    Accuse,
    CardAt,
    CardNotAt,
    ClueGame,
    ClueObservation,
    Dealt,
    EndTurn,
    EnvelopeSeen,
    ExtraRevealed,
    ExtraSeen,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
)

__all__ = ["event_text", "action_text", "phraser", "cards_text", "status_text", "final_scores", "actions_help"]


def cards_text(game: ClueGame, cards: Sequence[int]) -> str:
    """Card names separated by commas."""
    return ", ".join(game.deck.names(cards))


class _Names:
    def __init__(self, game: ClueGame, you: int | None) -> None:
        self.names = game.config.names
        self.you = you

    def __call__(self, seat: int) -> str:
        return "you" if seat == self.you else self.names[seat]


def _place(game: ClueGame, loc: str, you: int | None) -> tuple[bool, str]:
    """(is a place, its words) for a location name of the log."""
    if loc == ENVELOPE:
        return True, "the envelope"
    if loc == EXTRA:
        return True, "the leftover pile"
    if you is not None and loc == game.config.names[you]:
        return False, "you"
    return False, loc


def event_text(game: ClueGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you`` (None: names only)."""
    name = _Names(game, you)
    deck = game.deck
    if isinstance(event, Dealt):
        owner = "your" if event.player == you else f"{name(event.player)}'s"
        return f"{owner} hand: {cards_text(game, event.cards)}"
    if isinstance(event, ExtraRevealed):
        return f"the leftover pile is shown to everyone: {cards_text(game, event.cards)}"
    if isinstance(event, Suggestion):
        text = f"{name(event.by)} suggested {cards_text(game, event.cards)}"
        parts: list[str] = []
        if event.passed:
            verb = "has" if len(event.passed) == 1 and event.passed[0] != you else "have"
            parts.append(f"{_and([name(p) for p in event.passed])} {verb} none of them")
        for refuter, shown in zip(event.refuters, event.shown, strict=True):
            card = deck[shown].name if shown is not None else "a card"
            parts.append(f"{name(refuter)} showed {name(event.by)} {card}")
        if not event.refuters:
            parts.append("nobody could refute")
        return text + ": " + "; ".join(parts)
    if isinstance(event, ExtraSeen):
        seen = f": {cards_text(game, event.cards)}" if event.cards is not None else ""
        return f"{name(event.player)} looked at the leftover pile{seen}"
    if isinstance(event, Accusation):
        verdict = "right: the game is over" if event.correct else "wrong"
        return f"{name(event.by)} accused {cards_text(game, event.cards)}: {verdict}"
    if isinstance(event, EnvelopeSeen):
        return f"{name(event.player)} saw the envelope: {cards_text(game, event.cards)}"
    if isinstance(event, CardAt | CardNotAt):
        is_place, where = _place(game, event.loc, you)
        card = deck[event.card].name
        if isinstance(event, CardAt):
            if is_place:
                return f"{card} is in {where}"
            return f"{where} {'hold' if where == 'you' else 'holds'} {card}"
        if is_place:
            return f"{card} is not in {where}"
        return f"{where} {'do' if where == 'you' else 'does'} not hold {card}"
    return repr(event)


def action_text(game: ClueGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words (also what a player types a prefix of to choose it)."""
    if isinstance(action, Suggest):
        return f"suggest {cards_text(game, action.cards)}"
    if isinstance(action, Accuse):
        return f"accuse {cards_text(game, action.cards)}"
    if isinstance(action, Show):
        return f"show {game.deck[action.card].name}"
    if isinstance(action, ViewExtra):
        return "view the leftover pile (then accuse)"
    if isinstance(action, EndTurn):
        return "end turn"
    if isinstance(action, Decline):
        return "decline to show a card (play your decline card)"
    return repr(action)


#: events that state a location outright (a hand, a logged card): a chain cites them by number alone
FACTS = (CardAt, CardNotAt, Dealt)


def _whose(name: str) -> str:
    return "your" if name == "you" else f"{name}'s"


def _and(parts: Sequence[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def phraser(game: ClueGame, events: Sequence[Event], you: int | None = None) -> Phrasing:
    """The wording hook for :func:`deduce.explain.render`: constraints from suggestions and
    accusations are said as what happened at the table, and each cited event in words (from
    seat ``you``'s point of view)."""
    name = _Names(game, you)

    def phrase(c: Constraint, source: str | None) -> str | None:
        match = re.fullmatch(r"event (\d+)", source or "")
        if match is None or int(match.group(1)) >= len(events):
            return None
        event = events[int(match.group(1))]
        if isinstance(event, Suggestion):
            if isinstance(c, AtLeastOne) and c.loc in event.refuters:
                return f"{name(c.loc)} showed {name(event.by)} one of {{{cards_text(game, c.cards)}}}"
            if isinstance(c, At) and c.loc in event.refuters:
                return f"{name(c.loc)} showed {name(event.by)} {game.deck[c.card].name}"
        if isinstance(event, Accusation) and isinstance(c, NotAll):
            return f"{_whose(name(event.by))} accusation of {cards_text(game, event.cards)} was wrong"
        if isinstance(event, Accusation) and isinstance(c, At) and event.correct:
            return f"{_whose(name(event.by))} accusation of {cards_text(game, event.cards)} was right"
        if isinstance(event, EnvelopeSeen) and isinstance(c, At):
            return f"{name(event.player)} saw {game.deck[c.card].name} in the envelope"
        return None

    return Phrasing(phrase, event_citer(events, lambda event: event_text(game, event, you), FACTS))


def status_text(game: ClueGame, observation: Observation) -> str:
    """Your hand, bonus cards, the room you may not suggest in, and what you are refuting."""
    obs = observation
    if not isinstance(obs, ClueObservation):
        return ""
    lines = []
    if obs.hand:
        lines.append(f"your hand: {cards_text(game, obs.hand)}")
    if obs.intrigue_hand:
        lines.append(f"your intrigue cards: {', '.join(k.replace('_', ' ') for k in obs.intrigue_hand)}")
    barred = getattr(obs, "barred_room", None)
    if barred is not None:
        lines.append(f"you may not suggest in {game.deck[barred].name} this turn (your last suggestion was there)")
    if obs.to_refute:
        by, cards = obs.to_refute
        lines.append(f"you are refuting: {game.config.names[by]} suggested {cards_text(game, cards)}; show one of your cards")
    return "\n".join(lines)


def final_scores(game: ClueGame, observation: Observation) -> tuple[int, ...] | None:
    """None: Clue has no points, a right accusation wins."""
    return None


def actions_help(game: ClueGame) -> str:
    """The game's actions with an example of each."""
    board = (
        "  roll the dice             (on the board) then 'move to ROOM' or a square like 'move to r17c7'\n"
        if game.board is not None
        else ""
    )
    return (
        "Clue actions:\n"
        + board
        + "  suggest SUSPECT WEAPON ROOM   e.g. 'suggest Mr. Green, Rope, Kitchen' or 'sug gr rope kit'\n"
        "  accuse SUSPECT WEAPON ROOM    e.g. 'acc plum knife hall' (a wrong accusation puts you out)\n"
        "  show CARD                     when refuting: show one of the named cards (e.g. 'show rope')\n"
        "  end turn"
    )
