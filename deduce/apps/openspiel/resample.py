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

:func:`from_observation` does the same from a deduce observation alone (how a deduce agent
hands its view to an OpenSpiel bot): the moves come from what the observation shows
(:func:`clue_moves`).

Nothing but the player's own observation and the moves' effects on its view are read: the
true hidden cards are never used. That is the exact path of Clue without the board
(``python_deduce_clue``). The sampled games (:data:`RESAMPLING`):

- Mafia Code, exact: its knowledge base is sampled exactly, the world is dealt with the same
  seed (which drives only the dice, all public), the moves replayed (none hides a choice), a
  world whose replay gives the player other information redrawn; then the engine gets a new
  generator, so a search does not plan on the true game's future dice.
- Alibi, Alibi (Adlung), Checkpoint Charlie, Crime Hotel, approximate: no world of their
  knowledge bases can yet be dealt (moving cards, an ordered deck, a round deal with more parts
  than the knowledge base), so the state walks :data:`WALK` steps of the engine's own
  ``hidden_variant`` (a different deal replaying the same moves, nothing the player saw
  changed) from the true state, then gets new future draws. Consistent with the player's
  information, not uniform (it leans towards the truth): ``python -m benchmarks.openspiel
  --resample-error`` measures how far, in docs/openspiel.md.

A resampled sampled-game state keeps the true history (its seed outcome and the moves), so
replaying that history gives the true game, not the resampled one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from deduce.apps.openspiel.chance import CardDeal, SeedDeal
from deduce.apps.openspiel.observer import event_words, information_string
from deduce.errors import IllegalAction, NotSupported
from deduce.games.base import Event, Observation
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueObservation,
    EndTurn,
    ExtraSeen,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
)
from deduce.games.mafia_code.rules import MafiaCodeState

if TYPE_CHECKING:
    from deduce.apps.openspiel.game import DeduceGame, DeduceState, Step

__all__ = ["resample", "from_observation", "clue_moves", "deal_of_world", "RESAMPLING", "TRIES", "WALK"]

#: worlds drawn before giving up (a world the moves rule out is redrawn: step 4 above)
TRIES = 64

_SAMPLERS: dict[str, Any] = {}


def _sampler() -> Any:
    """One exact sampler per process (its counting plans are cached between calls)."""
    if "sample" not in _SAMPLERS:
        from solvers.sample import SampleSolver

        _SAMPLERS["sample"] = SampleSolver()
    return _SAMPLERS["sample"]


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


def _replay(new: DeduceState, visible: Sequence[Step], hidden_types: tuple[type, ...], player: int,
            target: Sequence[Event], rng: np.random.Generator) -> bool:
    """Play ``visible`` moves on ``new`` (dealt a new world), with the choices ``player`` did
    not see (moves of ``hidden_types``) drawn uniformly, so that ``player`` sees ``target``."""
    game = new.get_game()
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
            if hint is None:
                return False
            h += 1  # the new world made this move for the seat (a forced show): nothing to play
    return h == len(visible) and seen == len(target)


def clue_moves(obs: ClueObservation) -> tuple[list[Step], tuple[type, ...]]:
    """The moves a Clue seat's observation shows (every suggestion, the cards shown to it or by
    it, accusations, looks at the pile, and the end of each turn they imply), and the kinds of
    move it cannot see (the cards shown between other seats)."""
    from deduce.apps.openspiel.game import Step

    said = [e for e in obs.events if isinstance(e, Suggestion | Accusation | ExtraSeen)]
    moves: list[Step] = []
    for i, event in enumerate(said):
        later = said[i + 1] if i + 1 < len(said) else None
        if isinstance(event, Accusation):
            moves.append(Step(event.by, Accuse(event.cards), ()))
            continue
        if isinstance(event, ExtraSeen):
            moves.append(Step(event.player, ViewExtra(), ()))
            continue
        moves.append(Step(event.by, Suggest(event.cards), ()))
        moves += [Step(r, Show(c), ()) for r, c in zip(event.refuters, event.shown, strict=True) if c is not None]
        if isinstance(later, Accusation) and later.by == event.by or isinstance(later, ExtraSeen) and later.player == event.by:
            continue  # the same turn goes on
        if later is None and obs.current_player == event.by and obs.to_refute is None:
            continue  # it is still that seat's turn
        moves.append(Step(event.by, EndTurn(), ()))
    if obs.to_refute is not None:
        moves.append(Step(obs.to_refute[0], Suggest(tuple(obs.to_refute[1])), ()))
    return moves, (Show,)


#: how each game's hidden world is resampled: ``exact`` (uniform over the worlds the player's
#: knowledge base allows, by deduce's exact sampler, conditioned on the replay) or
#: ``approximate`` (a walk of the engine's own hidden variants from the true state: consistent
#: with the player's information, not uniform; its measured error is in docs/openspiel.md)
RESAMPLING: dict[str, str] = {
    "clue": "exact",
    "mafia-code": "exact",
    "alibi": "approximate",
    "alibi-adlung": "approximate",
    "checkpoint-charlie": "approximate",
    "crime-hotel": "approximate",
}

#: hidden-variant steps one approximate resample takes from the true state
WALK = 8


def resample(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """A state in ``player``'s information set with its hidden world redrawn: exactly uniformly
    where :data:`RESAMPLING` says ``exact`` (see the module docstring), by a walk otherwise."""
    game = state.get_game()
    if state.engine is None:  # nobody has seen a card: any deal so far will do
        if isinstance(game.deal, SeedDeal):
            return type(state)(game, SeedDeal.draw(rng))
        new = game.new_initial_state()
        for _ in state.drawn:
            outcomes = new.chance_outcomes()
            new.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        return new
    if state.is_terminal():
        return state.clone()
    if isinstance(game.deal, CardDeal):
        obs = state.deduce_observation(player)
        visible = [s for s in state.steps if not _hidden(s, player)]
        hidden_types = tuple({type(s.action) for s in state.steps if _hidden(s, player)})
        return _redeal(game, obs, player, visible, hidden_types, rng)
    method = RESAMPLING.get(game.deduce.name)
    if method == "exact" and isinstance(state.engine, MafiaCodeState):
        return _redeal_mafia(state, player, rng)
    if method == "approximate":
        return _walk(state, player, rng)
    raise NotSupported(f"{game.get_type().short_name}: no resampler for {game.deduce.name}")


def _fresh_future(engine: Any, rng: np.random.Generator) -> None:
    """Give the engine a new generator for its later draws (dice, reshuffles, new deals), so a
    search from the resampled state does not plan on the true game's future chance."""
    if isinstance(getattr(engine, "rng", None), np.random.Generator):
        engine.rng = np.random.default_rng(int(rng.integers(2**63)))


def _redeal_mafia(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Mafia Code: an exactly uniform world of the player's knowledge base dealt with the same
    dice (the seed outcome drives them; every roll is public), the moves replayed (none hides
    a choice), redrawn while the replay gives the player other information (rejection keeps
    the draw uniform), then new dice for the future."""
    game = state.get_game()
    words = event_words(game.deduce)
    want = information_string(state.deduce_observation(player), player, words)
    kb = game.deduce.knowledge(state.deduce_observation(player))
    seed = int(state.history()[0])
    n = game.deduce.num_players
    moves = [game.actions.encode(s.action) for s in state.steps]
    for _ in range(TRIES):
        worlds = _sampler().sample(kb, 1, rng)
        if not worlds:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        hands = [np.flatnonzero(worlds[0] == p).tolist() for p in range(n)]
        new = type(state)(game, seed)
        new.preset = MafiaCodeState.from_deal(game.deduce, hands, seed=seed)
        new.apply_action(seed)
        try:
            for move in moves:
                new.apply_action(move)
        except IllegalAction:
            continue
        if information_string(new.deduce_observation(player), player, words) == want:
            _fresh_future(new.engine, rng)
            return new
    raise NotSupported(f"no replay of seat {player}'s information found in {TRIES} sampled worlds")


def _split(events: Sequence[Event], steps: Sequence[Step]) -> list[Step] | None:
    """The moves of a hidden variant: its events cut where the true game's moves cut them
    (None if the variant produced a different number of events)."""
    from deduce.apps.openspiel.game import Step

    sizes = [len(s.events) for s in steps]
    if len(events) < sum(sizes):
        return None
    pos = len(events) - sum(sizes)
    out = []
    for step, size in zip(steps, sizes, strict=True):
        out.append(Step(step.seat, step.action, tuple(events[pos : pos + size])))
        pos += size
    return out


def _walk(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """The approximate resampler: :data:`WALK` steps of the engine's ``hidden_variant`` (a
    different deal that replays the same moves and changes nothing the player saw), each kept
    only if the player's information state string is unchanged, then new future draws."""
    from deduce.apps.openspiel.game import _Engine

    game = state.get_game()
    words = event_words(game.deduce)
    want = information_string(state.deduce_observation(player), player, words)
    actions = [s.action for s in state.steps]
    engine, steps = state.engine, state.steps
    for _ in range(WALK):
        variant = engine.hidden_variant(player, actions, rng)
        if variant is None or len(variant.events) != len(engine.events):
            continue
        cut = _split(variant.events, steps)
        if cut is None or information_string(variant.observation(player), player, words) != want:
            continue
        engine, steps = variant, cut
    new = state.clone()
    engine = engine.clone() if engine is state.engine else engine
    _fresh_future(engine, rng)
    new._engine = _Engine(engine, list(steps))
    return new


def from_observation(game: DeduceGame, obs: Observation, rng: np.random.Generator) -> DeduceState:
    """A state in the information set of ``obs`` (a seat's own deduce observation), its hidden
    world drawn exactly uniformly: how a deduce agent hands its view to an OpenSpiel bot."""
    if not isinstance(game.deal, CardDeal) or not isinstance(obs, ClueObservation):
        raise NotSupported(f"{game.get_type().short_name}: a state from an observation needs Clue's explicit deal")
    if obs.player is None:
        raise NotSupported("a spectator's observation has no information set to sample from")
    visible, hidden_types = clue_moves(obs)
    return _redeal(game, obs, obs.player, visible, hidden_types, rng)


def _redeal(game: DeduceGame, obs: Observation, player: int, visible: Sequence[Step],
            hidden_types: tuple[type, ...], rng: np.random.Generator) -> DeduceState:
    """Deal sampled worlds until one replays to ``obs`` (step 4 of the module docstring)."""
    words = event_words(game.deduce)
    want = information_string(obs, player, words)
    kb = game.deduce.knowledge(obs)
    for _ in range(TRIES):
        worlds = _sampler().sample(kb, 1, rng)
        if not worlds:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        new = game.new_initial_state()
        for outcome in deal_of_world(game.deal, worlds[0]):
            new.apply_action(outcome)
        if _replay(new, visible, hidden_types, player, obs.events, rng) and (
            information_string(new.deduce_observation(player), player, words) == want
        ):
            return new
    raise NotSupported(f"no replay of seat {player}'s information found in {TRIES} sampled worlds")
