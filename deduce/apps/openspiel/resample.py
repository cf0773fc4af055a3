"""Exact resampling of the hidden world: what OpenSpiel's information-set search asks a game for.

``resample(state, player, rng)`` returns a state that gives ``player`` exactly the same
information (the same information state string), whose hidden deal is drawn **exactly
uniformly** from the deals consistent with what ``player`` has seen:

1. the player's knowledge base (``game.knowledge(observation)``) is sampled by deduce's exact
   sampler (``solvers.sample``: one exactly uniform consistent world, never rejection);
2. that world is dealt through the chance nodes;
3. the moves are replayed. A move the player saw in full (its own moves and every public one)
   is replayed as it was; a choice the player did not see (which card another refuter showed
   another asker) is drawn uniformly among the choices the new world allows that look the same
   to the player. A decision that exists only in the new world (a refuter who held one named
   card there and two here) is drawn the same way.
4. a world the knowledge base allows but the moves rule out (the player saw a refuter still
   deciding, so it holds two named cards) is redrawn: conditioning by rejection keeps the
   draw uniform over the worlds the player's information allows.

Nothing but the player's own observation and the moves' effects on its view are read: the
true hidden cards are never used. Supported where the deal is explicit chance (Clue without the
board, ``python_deduce_clue``); the other games refuse with
:class:`~deduce.errors.NotSupported` (their engines draw again during play, so a new world
would also need the same later draws).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from deduce.apps.openspiel.chance import CardDeal
from deduce.apps.openspiel.observer import event_words, information_string
from deduce.errors import IllegalAction, NotSupported
from deduce.games.base import Event, Game

if TYPE_CHECKING:
    from deduce.apps.openspiel.game import DeduceState, Step

__all__ = ["resample", "sample_world", "deal_of_world", "TRIES"]

#: worlds drawn before giving up (a world the moves rule out is redrawn: step 4 above)
TRIES = 64

_SAMPLERS: dict[str, Any] = {}


def _sampler() -> Any:
    """One exact sampler per process (its counting plans are cached between calls)."""
    if "sample" not in _SAMPLERS:
        from solvers.sample import SampleSolver

        _SAMPLERS["sample"] = SampleSolver()
    return _SAMPLERS["sample"]


def sample_world(game: Game, state: DeduceState, player: int, rng: np.random.Generator) -> np.ndarray:
    """One world drawn exactly uniformly from ``player``'s knowledge base."""
    obs = state.deduce_observation(player)
    if obs is None:
        raise NotSupported("the deal is not over: nobody has seen anything to resample from")
    worlds = _sampler().sample(game.knowledge(obs), 1, rng)
    if not worlds:
        raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
    return worlds[0]


def deal_of_world(deal: CardDeal, world: np.ndarray) -> list[int]:
    """The chance outcomes that deal ``world`` (``[card] -> location``: seats, envelope, pile)."""
    n = deal.game.num_players
    cards = range(len(world))
    envelope = [next(c for c in cat if world[c] == n) for cat in deal.categories]
    hands = [[c for c in cards if world[c] == p] for p in range(n)]
    extra = [c for c in cards if world[c] == n + 1]
    return deal.drawn_for(envelope, hands, extra)


def _views(events: Sequence[Event], player: int) -> list[Event]:
    return [v for v in (e.view(player) for e in events) if v is not None]


def _leaves(value: Any) -> set[Any]:
    """A field value and, for a tuple, everything inside it."""
    out = {value} if isinstance(value, Hashable) else set()
    if isinstance(value, tuple):
        for item in value:
            out |= _leaves(item)
    return out


def _hidden(step: Step, player: int) -> bool:
    """A move ``player`` did not see in full: another seat's move with a field whose value is
    in the part of its events hidden from ``player`` (the card shown to another asker)."""
    if step.seat == player:
        return False
    hidden: set[Any] = set()
    for event in step.events:
        view = event.view(player)
        for f in dataclasses.fields(event):
            full = getattr(event, f.name)
            if view is None or getattr(view, f.name) != full:
                hidden |= _leaves(full)
    return any(getattr(step.action, f.name) in hidden for f in dataclasses.fields(step.action))


def _replay(new: DeduceState, steps: Sequence[Step], player: int, target: Sequence[Event],
            rng: np.random.Generator) -> bool:
    """Replay ``steps`` on ``new`` (dealt a new world) so that ``player`` sees ``target``."""
    game = new.get_game()
    visible = [s for s in steps if not _hidden(s, player)]
    hidden_types = tuple({type(s.action) for s in steps if _hidden(s, player)})
    seen = len(new.deduce_observation(player).events)
    h = 0
    while not new.is_terminal() and (h < len(visible) or seen < len(target)):
        engine = new.engine
        hint = visible[h] if h < len(visible) else None
        if hint is not None and hint.seat == engine.current_player:
            try:
                new.apply_action(game.actions.encode(hint.action))
            except IllegalAction:
                pass
            else:  # a move the player saw: it must look the same, or this world is ruled out
                got = _views(new.steps[-1].events, player)
                if list(target[seen : seen + len(got)]) != got:
                    return False
                seen += len(got)
                h += 1
                continue
        # a choice the player did not see: uniformly among those that look the same to it
        choices = [a for a in engine.legal_actions() if isinstance(a, hidden_types)]
        for i in rng.permutation(len(choices)):
            trial = engine.clone()
            got = _views(trial.apply(choices[i]), player)
            if list(target[seen : seen + len(got)]) == got:
                new.apply_action(game.actions.encode(choices[i]))
                seen += len(got)
                break
        else:
            return False
    return h == len(visible) and seen == len(target)


def resample(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """A state in ``player``'s information set with a hidden world drawn exactly uniformly
    (see the module docstring)."""
    game = state.get_game()
    if not isinstance(game.deal, CardDeal):
        raise NotSupported(f"{game.get_type().short_name}: resampling needs an explicit deal (python_deduce_clue)")
    if state.engine is None:  # nobody has seen a card: any deal so far will do
        new = game.new_initial_state()
        for _ in state.drawn:
            outcomes = new.chance_outcomes()
            new.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        return new
    obs = state.deduce_observation(player)
    words = event_words(game.deduce)
    want = information_string(obs, player, words)
    for _ in range(TRIES):
        world = sample_world(game.deduce, state, player, rng)
        new = game.new_initial_state()
        for outcome in deal_of_world(game.deal, world):
            new.apply_action(outcome)
        if _replay(new, state.steps, player, obs.events, rng) and (
            information_string(new.deduce_observation(player), player, words) == want
        ):
            return new
    raise NotSupported(f"no replay of seat {player}'s information found in {TRIES} sampled worlds")
