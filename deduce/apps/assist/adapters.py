"""The adapter a table assistant runs for a game, the same for the terminal and the browser:
Clue's gets the exact expected-information scorer (the one the ``infogain`` agent uses)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deduce.apps.assist.session import GameAdapter, adapter_for, assisted_games
from deduce.apps.assist.text import Recommendation, heuristic_recommendation
from deduce.cards import normalise_name
from deduce.errors import DeduceError, UnknownName

__all__ = ["table_adapter", "infogain_recommender"]


def infogain_recommender() -> Callable[..., Recommendation | None]:
    """The exact expected-information scorer as a Clue recommender; a position too large to
    score exactly falls back to the session's estimate."""
    from agents.clue.questions import score_questions as scorer
    from deduce.games.clue.rules import refute_order, shown_to

    def recommend(game: Any, obs: Any, kb: Any, tally: Any) -> Recommendation | None:
        me = obs.player
        if me is None or tally.total == 0:
            return None
        n = game.num_players
        responders = refute_order(me, n)
        try:
            scores = scorer(kb, kb.loc("envelope"), list(game.triples()), responders, shown_to(obs, me))
        except DeduceError:
            return heuristic_recommendation(game, obs, kb, tally)
        if not scores:
            return None
        cards, bits = max(scores.items(), key=lambda kv: (kv[1], [-c for c in kv[0]]))
        return Recommendation(tuple(cards), float(bits), "exact expected information about the envelope")

    return recommend


def table_adapter(game: str, top: int = 5) -> GameAdapter:
    """The adapter of ``game`` (Clue's with the exact scorer and ``top`` candidates listed), or
    a one-line error naming the games that have an assistant."""
    from deduce.games.registry import game_names

    game = game if normalise_name(game) != "clue" else "clue"
    if game not in game_names():
        raise UnknownName(f"unknown game {game!r}; known games: {', '.join(game_names())}")
    games = assisted_games()
    if game not in games:
        raise DeduceError(
            f"the table assistant supports {', '.join(games[:-1])} and {games[-1]} for now; "
            f"for {game} try 'deduce play {game}'"
        )
    if game == "clue":
        from deduce.apps.assist.clue import ClueAdapter

        return ClueAdapter(infogain_recommender(), top=top)
    return adapter_for(game)
