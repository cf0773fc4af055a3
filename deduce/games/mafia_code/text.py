"""Mafia Code in the words of the rule book: cards are "red C", sheet cells "red/C" (a colour
column and a letter row), seats by name.

``event_text`` words one viewed event, ``action_text`` one legal action (what a player types a
prefix of to choose it: "guess bob red C"; no other word of it starts with a letter or colour),
``status_text`` the hand with revealed cards marked, every seat's revealed cards and the scores.
"""

from __future__ import annotations

from deduce.explain import plain_phraser as phraser
from deduce.games.base import Action, Dealt, Event, Observation
from deduce.games.mafia_code.rules import (
    Circled,
    CodeWritten,
    Guess,
    Guessed,
    MafiaCodeGame,
    MafiaCodeObservation,
    Stop,
    TurnEnded,
)
from deduce.games.words import cards_text as _cards
from deduce.games.words import who as _who

__all__ = ["event_text", "action_text", "phraser", "status_text", "final_scores", "actions_help"]

_ENDS = {"miss": "a miss", "stop": "stopped", "no_target": "nobody left to guess at", "game_over": "the game is over"}


def _cell(game: MafiaCodeGame, colour: int, letter: int) -> str:
    return f"{game.config.colours[colour]}/{game.config.letters[letter]}"


def event_text(game: MafiaCodeGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    if isinstance(event, Dealt):
        owner = "your" if event.player == you else f"{game.config.names[event.player]}'s"
        return f"{owner} hand: {_cards(game, event.cards)}"
    if isinstance(event, CodeWritten):
        cell = _cell(game, event.colour, event.letter)
        rerolled = ""
        if event.rerolled:
            rerolled = f" (rerolled {', '.join(_cell(game, *cell) for cell in event.rerolled)}: already on the sheet)"
        counts = ", ".join(f"{who(w)} {k}" for w, k in zip(event.writers, event.counts, strict=True))
        opening = "opening code " if event.opening else ""
        return f"{who(event.roller)} rolled {opening}{cell}{rerolled}; written: {counts}"
    if isinstance(event, Guessed):
        verdict = "a hit, the card is revealed" if event.hit else "a miss, crossed off"
        holds = "hold" if event.target == you else "holds"
        return f"{who(event.by)} guessed {who(event.target)} {holds} {game.deck[event.card].name}: {verdict}"
    if isinstance(event, Circled):
        owner = "your" if event.player == you else f"{game.config.names[event.player]}'s"
        cells = ", ".join(_cell(game, *cell) for cell in event.cells)
        return f"circled on {owner} sheet: {cells} (every matching card is revealed)"
    if isinstance(event, TurnEnded):
        owner = "your" if event.player == you else f"{game.config.names[event.player]}'s"
        lost = f", {event.forfeited} lost (expert rule)" if event.forfeited else ""
        return f"{owner} turn ends ({_ENDS.get(event.reason, event.reason)}): {event.gained} point{'s' if event.gained != 1 else ''} kept{lost}"
    return repr(event)


def action_text(game: MafiaCodeGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words (what a player types a prefix of to choose it)."""
    if isinstance(action, Guess):
        return f"guess {game.config.names[action.target]} {game.deck[action.card].name}"
    if isinstance(action, Stop):
        return "stop guessing"
    return repr(action)



def status_text(game: MafiaCodeGame, observation: Observation) -> str:
    """Your hand (revealed cards marked), each seat's sheet and revealed cards, the scores."""
    obs = observation
    if not isinstance(obs, MafiaCodeObservation):
        return ""
    you = obs.player
    lines = []
    revealed = {c for cards in obs.revealed for c in cards}
    if you is not None:
        shown = [f"{game.deck[c].name}{' (revealed)' if c in revealed else ''}" for c in obs.hand]
        lines.append(f"your hand: {', '.join(shown)}")
    for seat, name in enumerate(obs.names):
        label = f"{name} (you)" if seat == you else name
        sheet = ", ".join(f"{_cell(game, c, r)}: {k}" for c, r, k in obs.cells[seat]) if seat < len(obs.cells) else ""
        cards = _cards(game, obs.revealed[seat]) if seat < len(obs.revealed) and obs.revealed[seat] else "none"
        size = obs.hand_sizes[seat] if seat < len(obs.hand_sizes) else "?"
        lines.append(f"  {label}: {size} cards, revealed {cards}; sheet {sheet or 'empty'}")
    lines.append("scores: " + ", ".join(f"{_who(game, p, you)} {s}" for p, s in enumerate(obs.scores)))
    if obs.turn_hits:
        lines.append(f"this turn: {obs.turn_hits} hit{'s' if obs.turn_hits != 1 else ''}, {obs.turn_gain} point{'s' if obs.turn_gain != 1 else ''}")
    return "\n".join(lines)


def final_scores(game: MafiaCodeGame, observation: Observation) -> tuple[int, ...] | None:
    """One point per hit."""
    return tuple(getattr(observation, "scores", ())) or None


def actions_help(game: MafiaCodeGame) -> str:
    """The game's actions with an example of each."""
    return (
        "Mafia Code actions:\n"
        "  guess PLAYER CARD   say PLAYER holds CARD (e.g. 'guess bob red C', or 'g bob re c')\n"
        f"                      colours: {', '.join(game.config.colours)}; letters: {', '.join(game.config.letters)}\n"
        "  stop guessing       end your turn after a hit (where the rules allow it)"
    )
