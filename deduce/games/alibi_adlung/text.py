"""Alibi (Adlung) in the words of the rule book: cards by their face (an evidence feature such as
"glasses", or "alibi", "eye", "bribe"), suspects by name with their features ("s3: thin, man,
blond, coat, glasses"), seats by name.

``event_text`` words one viewed event, ``action_text`` one legal action (what a player types a
prefix of to choose it: "lay glasses", "alibi s2", "bribe bob's knife", "name s2"),
``status_text`` the hand, the row of suspects with their features, the tableaux and the scores.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from deduce.explain import plain_phraser as phraser
from deduce.games.alibi_adlung.log import TableEvent, suspect_name
from deduce.games.alibi_adlung.rules import (
    AlibiAdlungConfig,
    AlibiAdlungGame,
    AlibiAdlungObservation,
    Bribed,
    Convicted,
    Dealt,
    Decline,
    Declined,
    Drew,
    Exchange,
    Exchanged,
    GameEnded,
    LaidAlibi,
    LaidEvidence,
    LaidEye,
    Name,
    Pass,
    Passed,
    PlayAlibi,
    PlayBribe,
    PlayEvidence,
    PlayEye,
    Reshuffled,
    RowDealt,
    SuspectDrawn,
)
from deduce.games.base import Action, Event, Observation
from deduce.games.words import who as _who

__all__ = ["event_text", "action_text", "phraser", "status_text", "final_scores", "actions_help", "face", "suspect_text"]


@functools.lru_cache(maxsize=16)
def _features(config: AlibiAdlungConfig) -> tuple[tuple[str, ...], ...]:
    return config.suspect_table()


def face(game: AlibiAdlungGame, card: int) -> str:
    """A card as a person sees it: its feature or special kind (copies are alike)."""
    feature = game.feature_of[card]
    kind = feature if feature is not None else game.special_of[card]
    return str(kind).replace("_", " ")


def _faces(game: AlibiAdlungGame, cards: Sequence[int]) -> str:
    return ", ".join(face(game, c) for c in cards)


def suspect_text(game: AlibiAdlungGame, suspect: int) -> str:
    """A suspect with its features ("s3: thin, man, blond, coat, glasses")."""
    features = ", ".join(f.replace("_", " ") for f in _features(game.config)[suspect])
    return f"{suspect_name(suspect)}: {features}"


def _owner(game: AlibiAdlungGame, seat: int, you: int | None) -> str:
    return "your" if seat == you else f"{game.config.names[seat]}'s"


_EXCHANGE = {
    "instead": "instead of playing (no evidence matches an uncovered suspect)",
    "single": "(the single exchange)",
    "opening": "(a hand of special cards redrawn)",
}


def event_text(game: AlibiAdlungGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    if isinstance(event, Dealt):
        if event.cards:
            return f"{_owner(game, event.player, you)} hand: {_faces(game, event.cards)}"
        return f"{who(event.player)} got {event.size} cards"
    if isinstance(event, RowDealt):
        return "the row of suspects: " + "; ".join(suspect_text(game, s) for s in event.row)
    if isinstance(event, Drew):
        if event.cards:
            return f"{who(event.player)} drew {_faces(game, event.cards)}"
        return f"{who(event.player)} drew {event.count} card{'s' if event.count != 1 else ''}"
    if isinstance(event, Reshuffled):
        return f"the discard pile ({len(event.cards)} cards: {_faces(game, event.cards)}) is shuffled into a new deck"
    if isinstance(event, LaidEvidence):
        return f"{who(event.player)} laid evidence: {face(game, event.card)}"
    if isinstance(event, LaidAlibi):
        return f"{who(event.player)} gave {suspect_name(event.suspect)} an alibi"
    if isinstance(event, Bribed):
        return f"{who(event.player)} bribed {face(game, event.target)} away from {_owner(game, event.victim, you)} tableau"
    if isinstance(event, LaidEye):
        return f"{who(event.player)} played a watchful eye"
    if isinstance(event, Exchanged):
        return f"{who(event.player)} exchanged {_faces(game, event.cards)} {_EXCHANGE.get(event.reason, event.reason)}"
    if isinstance(event, Passed):
        return f"{who(event.player)} passed: no evidence matching an uncovered suspect"
    if isinstance(event, Declined):
        return f"{who(event.player)} declined to name a culprit"
    if isinstance(event, Convicted):
        points = ", ".join(f"{who(p)} {k}" for p, k in enumerate(event.points))
        why = "by a third alibi" if event.reason == "third_alibi" else "on the evidence"
        return f"{who(event.by)} named {suspect_name(event.suspect)} the culprit ({why}); points: {points}"
    if isinstance(event, SuspectDrawn):
        return f"a new suspect joins the row: {suspect_text(game, event.suspect)}"
    if isinstance(event, TableEvent):  # one line of a logged game: the engine events it stands for
        words = [f"{who(event.player)} ended the watchful eye's extra plays"] if event.type == "stop" else []
        words += [event_text(game, part, you) for part in event.parts]
        return "; ".join(words) or event.type.replace("_", " ")
    if isinstance(event, GameEnded):
        scores = ", ".join(f"{who(p)} {s}" for p, s in enumerate(event.scores))
        return f"the game is over ({event.reason.replace('_', ' ')}): scores {scores}"
    return repr(event)


def _victim(observation: Observation | None, card: int) -> int | None:
    for seat, tableau in enumerate(getattr(observation, "tableaux", ())):
        if card in tableau:
            return seat
    return None


def action_text(game: AlibiAdlungGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words; ``observation`` (the actor's) says whose tableau a bribe takes from."""
    if isinstance(action, PlayEvidence):
        return f"lay {face(game, action.card)}"
    if isinstance(action, PlayAlibi):
        return f"alibi {suspect_name(action.suspect)}"
    if isinstance(action, PlayBribe):
        victim = _victim(observation, action.target)
        whose = f"{game.config.names[victim]}'s " if victim is not None else ""
        return f"bribe {whose}{face(game, action.target)}"
    if isinstance(action, PlayEye):
        return "eye: play a watchful eye"
    if isinstance(action, Exchange):
        return f"exchange {_faces(game, action.cards)}"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Name):
        return f"name {suspect_name(action.suspect)}"
    if isinstance(action, Decline):
        return "decline to name a culprit"
    return repr(action)



def status_text(game: AlibiAdlungGame, observation: Observation) -> str:
    """Your hand, the row of suspects (features, alibis), every tableau and the scores."""
    obs = observation
    if not isinstance(obs, AlibiAdlungObservation):
        return ""
    you = obs.player
    lines = []
    if you is not None:
        lines.append(f"your hand: {_faces(game, obs.hand) or 'empty'}")
    covered = {s for s, _ in obs.alibis}
    lines.append("the row:")
    for s in obs.row:
        lines.append(f"  {suspect_text(game, s)}{' (covered by an alibi)' if s in covered else ''}")
    for seat, tableau in enumerate(obs.tableaux):
        lines.append(f"  {_owner(game, seat, you)} tableau: {_faces(game, tableau) or 'empty'}")
    if obs.convicted:
        lines.append("convicted: " + ", ".join(suspect_name(s) for s in obs.convicted))
    lines.append(f"deck {obs.deck_size} cards, discard pile {len(obs.discard)}, {obs.suspects_left} suspects left to draw")
    lines.append("scores: " + ", ".join(f"{_who(game, p, you)} {s}" for p, s in enumerate(obs.scores)))
    return "\n".join(lines)


def final_scores(game: AlibiAdlungGame, observation: Observation) -> tuple[int, ...] | None:
    """One point per own tableau card matching each culprit, the namer one more."""
    return tuple(getattr(observation, "scores", ())) or None


def actions_help(game: AlibiAdlungGame) -> str:
    """The game's actions with an example of each."""
    return (
        "Alibi (Adlung) actions:\n"
        "  lay FEATURE         lay an evidence card matching an uncovered suspect (e.g. 'lay glasses')\n"
        "  alibi SUSPECT       cover a row suspect with an alibi card (e.g. 'alibi s2')\n"
        "  bribe P's FEATURE   take an evidence card off P's tableau (e.g. 'bribe bob's knife')\n"
        "  eye                 play a watchful eye: more plays follow\n"
        "  exchange CARDS      discard and redraw (e.g. 'exchange fat, knife')\n"
        "  pass                skip the optional exchange or stop the extra plays\n"
        "  name SUSPECT        name the culprit (e.g. 'name s2')\n"
        "  decline             do not name a culprit\n"
        "'table' shows every suspect's features."
    )
