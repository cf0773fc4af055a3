"""Checkpoint Charlie in the words of the rule book: clue tokens by their faces, cats by the five
faces they show, seats by name.

``event_text`` words one viewed event, ``action_text`` one legal action (what a player types a
prefix of to choose it: "side hat", "arrest hat glasses grey coat news"), ``status_text`` the
seat's own clue and the public table, ``actions_help`` the game's actions with examples.
"""

from __future__ import annotations

from deduce.explain import plain_phraser as phraser
from deduce.games.base import Action, Event, Observation
from deduce.games.checkpoint_charlie.rules import (
    FEATURES,
    SIDE_NAMES,
    Arrest,
    Arrested,
    CatFlipped,
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    ChooseSide,
    ClueDrawn,
    GameEnded,
    HoundFlipped,
    Pass,
    RoundStarted,
    Scored,
    SideChosen,
    Verified,
    cat_name,
)
from deduce.games.words import who as _who

__all__ = ["event_text", "action_text", "phraser", "status_text", "final_scores", "actions_help"]


def _token(feature: int) -> str:
    """A clue token by its two faces ("bare ears / hat")."""
    return " / ".join(SIDE_NAMES[feature])


def _cat(cat: int | None) -> str:
    return "a forgotten cat" if cat is None else f"[{cat_name(cat)}]"


def event_text(game: CheckpointCharlieGame, event: Event, you: int | None = None) -> str:
    """One event as a sentence, from the point of view of seat ``you``."""
    who = lambda seat: _who(game, seat, you)  # noqa: E731
    if isinstance(event, RoundStarted):
        hounds = f", {event.hounds} hound card{'s' if event.hounds != 1 else ''} among them" if event.hounds else ""
        return f"round {event.round} begins: {who(event.starter)} flip{'s' if event.starter != you else ''} first; {event.deck_size} cards in the deck{hounds}"
    if isinstance(event, ClueDrawn):
        if event.feature is None:
            return f"{who(event.player)} drew a clue token"
        return f"{who(event.player)} drew the {FEATURES[event.feature]} clue token ({_token(event.feature)})"
    if isinstance(event, SideChosen):
        if event.side is None or event.feature is None:
            return f"{who(event.player)} hid a clue token under the hound card"
        return f"{who(event.player)} hid the {FEATURES[event.feature]} token with {SIDE_NAMES[event.feature][event.side]} up"
    if isinstance(event, CatFlipped):
        fate = "kept it (it fits the clue)" if event.kept else "discarded it"
        return f"{who(event.player)} flipped {_cat(event.cat)} and {fate}"
    if isinstance(event, HoundFlipped):
        return f"{who(event.player)} flipped a hound: a bag token is tossed and shows {SIDE_NAMES[event.feature][event.side]}"
    if isinstance(event, Arrested):
        row = "your" if event.row == you else f"{game.config.names[event.row]}'s"
        return f"{who(event.player)} arrested {_cat(event.cat)} from {row} row"
    if isinstance(event, Verified):
        clues = ", ".join(f"{who(p)}: {SIDE_NAMES[f][s]}" for p, (f, s) in enumerate(event.clues))
        bag = ", ".join(SIDE_NAMES[f][s] for f, s in event.bag) or "none"
        return f"round {event.round} verified: clues {clues}; bag tokens {bag}; the chief is {_cat(event.chief)}"
    if isinstance(event, Scored):
        if not event.received:
            return f"{who(event.player)} get{'s' if event.player != you else ''} no {event.colour} token: that colour has run out"
        value = f" worth {event.value}" if event.value is not None else ""
        return f"{who(event.player)} drew a {event.colour} score token{value}"
    if isinstance(event, GameEnded):
        totals = ", ".join(f"{who(p)} {t}" for p, t in enumerate(event.totals))
        winners = ", ".join(who(w) for w in event.winners) or "nobody"
        reasons = ", ".join(r.replace("_", " ") for r in event.reasons)
        return f"the game is over ({reasons}): totals {totals}; winner: {winners}"
    return repr(event)


def action_text(game: CheckpointCharlieGame, action: Action, observation: Observation | None = None) -> str:
    """One action in words; ``observation`` (the actor's) says which token a side belongs to."""
    if isinstance(action, ChooseSide):
        feature = getattr(observation, "my_feature", None)
        if feature is None:
            return f"side {'first' if action.side == 0 else 'second'} face up"
        return f"side {SIDE_NAMES[feature][action.side]} up"
    if isinstance(action, Arrest):
        return f"arrest {cat_name(action.cat)}"
    if isinstance(action, Pass):
        return "pass"
    return repr(action)



def status_text(game: CheckpointCharlieGame, observation: Observation) -> str:
    """Your clue token, then each investigator's kept cats, arrest and score tokens."""
    obs = observation
    if not isinstance(obs, CheckpointCharlieObservation):
        return ""
    you = obs.player
    lines = [f"round {obs.round}; {obs.deck_size} cards left in the deck ({obs.hounds_left} hound{'s' if obs.hounds_left != 1 else ''})"]
    if obs.my_feature is not None:
        up = f", {SIDE_NAMES[obs.my_feature][obs.my_side]} up" if obs.my_side is not None else ", side not chosen yet"
        lines.append(f"your clue: the {FEATURES[obs.my_feature]} token ({_token(obs.my_feature)}){up}")
    if obs.revealed:
        lines.append("tossed bag tokens: " + ", ".join(SIDE_NAMES[f][s] for f, s in obs.revealed))
    mine = dict(enumerate(obs.colours))
    for seat, name in enumerate(obs.names):
        kept = obs.kept[seat] if seat < len(obs.kept) else ()
        arrest = obs.arrests[seat] if seat < len(obs.arrests) else None
        tokens = mine.get(seat, ())
        if seat == you and obs.my_tokens:
            token_text = ", ".join(f"{c} {v}" for c, v in obs.my_tokens)
        else:
            token_text = ", ".join(str(c) for c in tokens) or "none"
        row = "; ".join(f"[{cat_name(c)}]" for c in kept) or "no cats"
        badge = f"; arrested [{cat_name(arrest)}]" if arrest is not None else ""
        label = f"{name} (you)" if seat == you else name
        lines.append(f"  {label}: {row}{badge}; score tokens: {token_text}")
    if obs.pool_left:
        lines.append("tokens left: " + ", ".join(f"{c} {k}" for c, k in obs.pool_left))
    return "\n".join(lines)


def final_scores(game: CheckpointCharlieGame, observation: Observation) -> tuple[int, ...] | None:
    """The totals revealed at the end of the game."""
    return getattr(observation, "final_totals", None)


def actions_help(game: CheckpointCharlieGame) -> str:
    """The game's actions with an example of each."""
    return (
        "Checkpoint Charlie actions:\n"
        "  side FACE up      hide your clue token with FACE up (e.g. 'side hat'; faces: "
        + ", ".join(f"{a}/{b}" for a, b in SIDE_NAMES)
        + ")\n"
        "  arrest CAT        put your badge on a face-up cat, named by its five faces\n"
        "                    (e.g. 'arrest hat glasses grey coat news'; a few words will do)\n"
        "  pass              do not arrest now"
    )
