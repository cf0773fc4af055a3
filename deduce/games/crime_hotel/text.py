"""Crime Hotel in the words of the rule book: cards are room numbers, guess spaces are "floor 2",
"digit 7" or "room 305", departments by name, seats by name.

``event_text`` words one viewed event, ``action_text`` one legal action (what a player types a
prefix of to choose it: "play 105", "deduce room 306", "exchange bob give 203"),
``status_text`` the hand, whether the seat is deducing or supporting, and the public table.
"""

from __future__ import annotations

from deduce.explain import plain_phraser as phraser
from deduce.games.base import Action, Dealt, Event, Observation
from deduce.games.crime_hotel.log import space_name
from deduce.games.crime_hotel.rules import (
    Bonus,
    Check,
    Checked,
    CrimeHotelGame,
    CrimeHotelObservation,
    Deduce,
    Deduced,
    Discarded,
    Double,
    Exchange,
    Exchanged,
    FinalRevealed,
    GameScored,
    GameStarted,
    HiddenRevealed,
    MatchEnded,
    MovePolice,
    Play,
    Played,
    PoliceMoved,
    Stationed,
    TrickDone,
)
from deduce.games.words import cards_text as _cards
from deduce.games.words import who as _who

__all__ = ["event_text", "action_text", "phraser", "status_text", "final_scores", "actions_help"]

_DEPARTMENTS = {
    "move": "move-police",
    "exchange": "card-exchange",
    "check": "card-check",
    "double": "double-placement",
    "bonus": "bonus-points",
}


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def event_text(game: CrimeHotelGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    if isinstance(event, GameStarted):
        lit = f"; lit on the board: {_cards(game, event.revealed)}" if event.revealed else ""
        return f"game {event.game + 1} of {game.config.games} begins: {who(event.leader)} lead{'s' if event.leader != you else ''}{lit}"
    if isinstance(event, Dealt):
        owner = "your" if event.player == you else f"{game.config.names[event.player]}'s"
        return f"{owner} hand: {_cards(game, event.cards)}"
    if isinstance(event, Played):
        verb = "led" if event.led is None else "played"
        return f"{who(event.player)} {verb} {game.deck[event.card].name}"
    if isinstance(event, TrickDone):
        spots = ", ".join(
            f"{_ordinal(i + 1)} {who(p)} ({game.deck[c].name})" for i, (p, c) in enumerate(zip(event.parking, event.cards, strict=True))
        )
        return f"the trick is ranked; parking: {spots}"
    if isinstance(event, Deduced):
        double = " (a double placement)" if event.double else ""
        return f"{who(event.player)} placed a meeple on {space_name(game, event.space)}{double}"
    if isinstance(event, Discarded):
        return f"{who(event.player)} parked without skid marks: the meeple is discarded"
    if isinstance(event, Stationed):
        return f"{who(event.player)} took the {_ordinal(event.slot + 1)} slot of the {_DEPARTMENTS[event.dept]} department"
    if isinstance(event, PoliceMoved):
        double = " (a double placement)" if event.double else ""
        return f"{who(event.player)} moved a meeple from {space_name(game, event.src)} to {space_name(game, event.dst)}{double}"
    if isinstance(event, Exchanged):
        if event.given is None or event.taken is None:
            return f"{who(event.actor)} exchanged {event.k} card{'s' if event.k != 1 else ''} with {who(event.target)}"
        return f"{who(event.actor)} gave {who(event.target)} {_cards(game, event.given)} and took {_cards(game, event.taken)}"
    if isinstance(event, Checked):
        seen = f": {_cards(game, event.cards)}" if event.cards is not None else ""
        return f"{who(event.actor)} looked at {event.k} of {who(event.target)}'s cards{seen}".replace("you's", "your")
    if isinstance(event, FinalRevealed):
        owner = "your" if event.player == you else f"{game.config.names[event.player]}'s"
        return f"{owner} last card: {game.deck[event.card].name}"
    if isinstance(event, HiddenRevealed):
        return f"the criminal hid in room {game.deck[event.card].name}"
    if isinstance(event, GameScored):
        points = ", ".join(f"{who(p)} {k}" for p, k in enumerate(event.points))
        totals = ", ".join(f"{who(p)} {k}" for p, k in enumerate(event.totals))
        return f"game {event.game + 1} scores: {points}; match totals: {totals}"
    if isinstance(event, MatchEnded):
        winners = ", ".join(who(w) for w in event.winners) or "nobody"
        return f"the match is over: winner {winners}"
    return repr(event)


def action_text(game: CrimeHotelGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words (what a player types a prefix of to choose it)."""
    names = game.config.names
    if isinstance(action, Play):
        return f"play {game.deck[action.card].name}"
    if isinstance(action, Deduce):
        return f"deduce {space_name(game, action.space)}"
    if isinstance(action, MovePolice):
        if action.src is None or action.dst is None:
            return "move police (no meeple to move)"
        return f"move police from {space_name(game, action.src)} to {space_name(game, action.dst)}"
    if isinstance(action, Exchange):
        return f"exchange with {names[action.target]}: give {_cards(game, action.give)}"
    if isinstance(action, Check):
        return f"check {names[action.target]}"
    if isinstance(action, Double):
        return "double placement"
    if isinstance(action, Bonus):
        return "bonus points"
    return repr(action)



def status_text(game: CrimeHotelGame, observation: Observation) -> str:
    """Your hand and your decision, then the trick, the hotel board, the departments, the scores."""
    obs = observation
    if not isinstance(obs, CrimeHotelObservation):
        return ""
    you = obs.player
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    lines = [f"game {obs.game_index + 1} of {game.config.games}, round {obs.round + 1}; {who(obs.police_car)} hold{'s' if obs.police_car != you else ''} the police car"]
    if you is not None:
        lines.append(f"your hand: {_cards(game, obs.hand) or 'empty'}")
    if obs.decision == "deduce":
        lines.append("you are deducing: move your parked meeple onto a guess space (floor, digit or room)")
    elif obs.decision == "support":
        lines.append("you are supporting (no skid marks): station your meeple in a department")
    elif obs.decision == "play":
        led = f" (floor {obs.led} was led)" if obs.led is not None else " (you lead)"
        lines.append(f"you play a card to the trick{led}")
    if obs.trick:
        lines.append("trick so far: " + ", ".join(f"{who(p)} {game.deck[c].name}" for p, c in obs.trick))
    if obs.board:
        lines.append("hotel board: " + ", ".join(f"{space_name(game, s)} ({who(p)})" for s, p in obs.board))
    stations = [f"{_DEPARTMENTS[d]}: {', '.join(who(p) for p in ps)}" for d, ps in obs.stations if ps]
    if stations:
        lines.append("departments: " + "; ".join(stations))
    totals = final_scores(game, obs)
    if totals:
        lines.append("match totals: " + ", ".join(f"{who(p)} {t}" for p, t in enumerate(totals)))
    return "\n".join(lines)


def final_scores(game: CrimeHotelGame, observation: Observation) -> tuple[int, ...] | None:
    """The match totals: the sum of every scored game's points."""
    scores = getattr(observation, "scores", ())
    if not scores:
        return None
    return tuple(sum(points[p] for points in scores) for p in range(observation.num_players))


def actions_help(game: CrimeHotelGame) -> str:
    """The game's actions with an example of each."""
    return (
        "Crime Hotel actions:\n"
        "  play ROOM                   play a card to the trick (e.g. 'play 105')\n"
        "  deduce SPACE                deducing: put your meeple on 'floor 2', 'digit 7' or 'room 305'\n"
        "                              (e.g. 'deduce room 306', 'ded dig 7')\n"
        "  move police from A to B     supporting: move-police department, then move a meeple\n"
        "  exchange with P: give ROOM  card-exchange department (e.g. 'exch bob 203')\n"
        "  check P                     card-check department (e.g. 'check bob')\n"
        "  double placement            double-placement department\n"
        "  bonus points                bonus-points department"
    )
