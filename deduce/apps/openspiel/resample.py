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
(``python_deduce_clue``). Clue on the board (``python_deduce_clue_board``,
``python_deduce_clue_intrigue``) takes it too, its world dealt with the true game's dice (every
roll is public); in the intrigue edition the intrigue cards the player has not seen are then
redrawn (:func:`_redraw_intrigue`). The other seeded games (:data:`RESAMPLING`):

- Mafia Code, exact: its knowledge base is sampled exactly, the world is dealt with the same
  seed (which drives only the dice, all public), the moves replayed (none hides a choice), a
  world whose replay gives the player other information redrawn; then the engine gets a new
  generator, so a search does not plan on the true game's future dice.
- Checkpoint Charlie, exact: a world of the round's (static) knowledge base (every seat's up
  face, the bag's up faces) is drawn by the exact sampler and becomes the round's deal (the bag
  tokens the hounds revealed keep their public order, the others are ordered at random, the
  cats nobody can name (unflipped, or discarded and forgotten under ``discard_memory="none"``)
  are redrawn within the rules' hound placement); the earlier rounds are replayed as they
  were, this round's moves with the sampled sides for the seats whose side the player did not
  see, and a world whose replay shows the player anything else is redrawn. (The knowledge
  base says nothing of forgotten discards; the replay's rejection adds what they say.)
- Crime Hotel, exact by rejection: where the cards are *now* is drawn exactly uniformly (by
  the exact sampler) from a static superset of what the player's time-indexed knowledge base
  allows now (its last-epoch facts and the cells its propagation rules out there); the game so
  far is undone from it to a deal (played cards back to their owners; an exchange the player
  did not see undone with the cards given and taken drawn uniformly from the hands after it:
  how many ways there are is public, so every history is proposed with the same probability);
  the match is replayed with that deal (earlier games as they were, a check the player did not
  see picking uniformly) and kept only if the player sees exactly what it saw. Accepted draws
  are uniform over the histories the player's knowledge base allows (its exact marginals).
  The deal is put in with the engine's ``CrimeHotelState.redeal`` (a game just dealt).
- Alibi (Adlung), exact where its rejection accepts, else the walk (so: approximate): where
  the cards are now is drawn by the exact sampler from the static knowledge base (sound, so a
  superset), undone to the deck order of the deal and of each reshuffle (a hidden draw's cards
  and their order drawn uniformly: how many ways there are is public), the game replayed and
  kept only if the player sees what it saw; after :data:`ADLUNG_TRIES` proposals without one
  (deep in a game, where every hidden draw must be confirmed) it falls back to the walk.
- Alibi, exact where ``solvers.frontier`` counts the player's time-indexed knowledge base (its
  first two epochs: the deal and the first pass, or a meld window), else approximate
  (:func:`_redeal_alibi`): a world frontier draws exactly uniformly is a whole history (the
  deal, the cards every seat passed), dealt and replayed with those passes (a pass still going
  picks uniformly from the passer's hand) and kept if the player sees what it saw. Later (frontier
  refuses), the state walks :data:`WALK` steps of the engine's own ``hidden_variant`` (a
  different deal replaying the same moves, nothing the player saw changed) from the true state
  (:func:`walk`), then gets new future draws. Consistent with the player's information, not
  uniform (it leans towards the truth): ``python -m benchmarks.openspiel --resample-error``
  measures both, in docs/openspiel.md.

A resampled seeded-game state keeps the true history (its seed outcomes and the moves), so
replaying that history gives the true game, not the resampled one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from deduce.apps.openspiel.chance import CardDeal
from deduce.apps.openspiel.game import dealt
from deduce.apps.openspiel.observer import event_words, information_string
from deduce.errors import IllegalAction, NotSupported
from deduce.games.base import Event, Observation
from deduce.games.checkpoint_charlie.rules import (
    BAG,
    HOUND,
    NUM_CATS,
    CheckpointCharlieState,
    ChooseSide,
    RoundDeal,
)
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueGame,
    ClueObservation,
    ClueState,
    EndTurn,
    ExtraSeen,
    Roll,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
)
from deduce.games.crime_hotel.rules import BOX, HIDDEN, Check, CrimeHotelState, Exchange
from deduce.games.mafia_code.rules import MafiaCodeState
from deduce.knowledge import KnowledgeBase, propagate

if TYPE_CHECKING:
    from deduce.apps.openspiel.game import DeduceGame, DeduceState, Step

__all__ = [
    "resample",
    "walk",
    "from_observation",
    "clue_moves",
    "deal_of_world",
    "location_counts",
    "total_variation",
    "RESAMPLING",
    "BY_REGISTRATION",
    "resampling",
    "TRIES",
    "REJECTION_TRIES",
    "ADLUNG_TRIES",
    "WALK_ONLY",
    "WALK",
]

#: worlds drawn before giving up (a world the moves rule out is redrawn: step 4 above)
TRIES = 64

#: Crime Hotel's proposals before giving up (its proposal is a superset of the allowed deals)
REJECTION_TRIES = 20_000

#: Alibi (Adlung)'s proposals before it falls back to the walk (its acceptance falls fast with
#: the game's length: every hidden draw's cards are a guess the replay must confirm)
ADLUNG_TRIES = 200

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
                if new.rolling is not None:  # a roll on the board: the same dice, all public
                    new.apply_action(int(hint.chance))  # type: ignore[arg-type]
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
    "checkpoint-charlie": "exact",
    "crime-hotel": "exact",
}

#: the registrations whose resampling :data:`RESAMPLING` does not name by their deduce game
#: (Clue on the board, and the intrigue edition, whose unseen intrigue cards are redrawn too)
BY_REGISTRATION: dict[str, str] = {"python_deduce_clue_board": "exact", "python_deduce_clue_intrigue": "exact"}


def resampling(game: DeduceGame) -> str:
    """How ``game``'s hidden world is resampled: ``exact`` or ``approximate``."""
    name = game.get_type().short_name
    return BY_REGISTRATION.get(name) or RESAMPLING[game.deduce.name]


#: the games resampled by the walk alone: none now (the approximate ones, both Alibis, try an
#: exact draw first and walk only when they find none: :func:`_redeal_adlung`,
#: :func:`_redeal_alibi`)
WALK_ONLY: frozenset[str] = frozenset()

#: hidden-variant steps one approximate resample takes from the true state
WALK = 8


def resample(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """A state in ``player``'s information set with its hidden world redrawn: exactly uniformly
    where :data:`RESAMPLING` says ``exact`` (see the module docstring), by a walk otherwise."""
    game = state.get_game()
    if state.engine is None:  # nobody has seen a card: any deal so far will do
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
    if isinstance(state.engine, ClueState):  # Clue on the board: dealt by a seed, dice at their own nodes
        return _redeal_clue_board(state, player, rng)
    method = RESAMPLING.get(game.deduce.name)
    if method == "exact" and isinstance(state.engine, MafiaCodeState):
        return _redeal_mafia(state, player, rng)
    if method == "exact" and isinstance(state.engine, CheckpointCharlieState):
        return _redeal_checkpoint(state, player, rng)
    if method == "exact" and isinstance(state.engine, CrimeHotelState):
        return _redeal_crime_hotel(state, player, rng)
    if game.deduce.name == "alibi-adlung":
        return _redeal_adlung(state, player, rng)
    if game.deduce.name == "alibi":
        return _redeal_alibi(state, player, rng)
    if method == "approximate":
        return walk(state, player, rng)
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
    seed = int(state.seed)  # type: ignore[arg-type]
    n = game.deduce.num_players
    moves = [game.actions.encode(s.action) for s in state.steps]
    for _ in range(TRIES):
        worlds = _sampler().sample(kb, 1, rng)
        if not worlds:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        hands = [np.flatnonzero(worlds[0] == p).tolist() for p in range(n)]
        new = dealt(game, seed, MafiaCodeState.from_deal(game.deduce, hands, seed=seed))
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


def walk(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """The approximate resampler (any sampled game whose engine has ``hidden_variant``; kept
    public so the benchmark can measure it against the exact resamplers in the same run): :data:`WALK` steps of the engine's ``hidden_variant`` (a
    different deal that replays the same moves and changes nothing the player saw), each kept
    only if the player's information state string is unchanged, then new future draws."""
    from deduce.apps.openspiel.game import _Engine

    game = state.get_game()
    if game.dice is not None:
        raise NotSupported(f"{game.get_type().short_name}: the engine's hidden variants replay its own dice, "
                           "and the dice here are the adapter's chance nodes; use resample")
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


# -- shared by the exact resamplers of the sampled games ------------------------------------------
def _draw(kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``n`` exactly uniform worlds of a static knowledge base: the sampler, else the first
    exact backend that samples it (``[]``: no world at all)."""
    try:
        return _sampler().sample(kb, n, rng)
    except NotSupported:
        import solvers

        return solvers.get("auto").sample(kb, n, rng)


def _proposals(kb: KnowledgeBase, tries: int, player: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Up to ``tries`` exactly uniform worlds of ``kb``, drawn in batches (a rejection loop's
    proposals); NotSupported if it has none at all."""
    drawn = 0
    while drawn < tries:
        batch = _draw(kb, min(16, tries - drawn), rng)
        if not batch:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        drawn += len(batch)
        yield from batch


def _same_views(events: Sequence[Event], step: Step, player: int) -> bool:
    """Whether the replayed ``events`` look to ``player`` as the true move's events did."""
    return _views(events, player) == _views(step.events, player)


def _finish(state: DeduceState, engine: Any, steps: list[Step], rng: np.random.Generator) -> DeduceState:
    """The resampled state: ``state``'s history (OpenSpiel's record of the true moves) on the
    redrawn ``engine`` and its moves, with new future draws."""
    from deduce.apps.openspiel.game import _Engine

    engine.rng = np.random.default_rng(int(rng.integers(2**63)))
    new = state.clone()
    new._engine = _Engine(engine, steps)
    return new


def _prefix(state: DeduceState, reached: Any) -> tuple[Any, list[Step]]:
    """The engine replayed from the seed outcome with the true moves until ``reached(engine)``
    (the start of the current round or game, whose earlier part the resample keeps), and the
    moves it took."""
    from deduce.apps.openspiel.game import Step

    game = state.get_game()
    engine = game.deal.state(state.history()[: game.deal.length()])
    done: list[Step] = []
    for step in state.steps:
        if reached(engine):
            break
        done.append(Step(step.seat, step.action, tuple(engine.apply(step.action))))
    return engine, done


# -- Checkpoint Charlie ---------------------------------------------------------------------------
def _unflipped(engine: CheckpointCharlieState, rng: np.random.Generator) -> tuple[int, ...]:
    """The deck with every cat nobody could name redrawn, as the rules deal it given what was
    flipped: the unflipped cats in any order, the hounds left among the unflipped places of the
    upper half (``hound_placement="upper_half"``) or anywhere after the flips; with
    ``discard_memory="none"`` the discarded (forgotten) cats are redrawn too, from the same
    pool (a draw that would have matched its flipper's clue is rejected by the replay)."""
    deck, pos = engine.deal.deck, engine.deck_pos
    cfg = engine.game.config
    discarded = {c for row in engine.discarded for c in row}
    forgotten = [i for i in range(pos) if cfg.discard_memory != "perfect" and deck[i] in discarded]
    hounds = deck[pos:].count(HOUND)
    top = NUM_CATS // 2 + deck.count(HOUND) if cfg.hound_placement == "upper_half" else len(deck)
    places = list(range(pos, min(top, len(deck))))
    hound_at = {places[int(i)] for i in rng.choice(len(places), size=hounds, replace=False)} if hounds else set()
    free = [*forgotten, *(i for i in range(pos, len(deck)) if i not in hound_at)]
    pool = [deck[i] for i in forgotten] + [c for c in deck[pos:] if c != HOUND]
    out = list(deck[:pos]) + [HOUND] * (len(deck) - pos)
    for i, j in zip(free, rng.permutation(len(pool)), strict=True):
        out[i] = pool[int(j)]
    return tuple(out)


def _redeal_checkpoint(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Checkpoint Charlie: an exactly uniform world of the round's knowledge base as the round's
    deal, the round replayed (module docstring); a world whose replay differs is redrawn."""
    from deduce.apps.openspiel.game import Step

    game = state.get_game()
    engine: CheckpointCharlieState = state.engine  # type: ignore[assignment]
    words = event_words(game.deduce)
    want = information_string(state.deduce_observation(player), player, words)
    kb = game.deduce.knowledge(state.deduce_observation(player))
    locations = game.deduce.locations
    bag = locations.index(BAG)
    n = game.deduce.num_players
    base, before = _prefix(state, lambda e: e.round == engine.round)
    later = state.steps[len(before):]
    shown = engine.hounds_drawn
    for _ in range(TRIES):
        worlds = _draw(kb, 1, rng)
        if not worlds:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        world = worlds[0]
        up = [int(np.flatnonzero(world == q)[0]) for q in range(n)]
        rest = [int(c) for c in np.flatnonzero(world == bag)]
        rest = [rest[int(i)] for i in rng.permutation(len(rest))]
        deal = RoundDeal(tuple(c // 2 for c in up), engine.deal.bag[:shown] + tuple(c // 2 for c in rest),
                         engine.deal.coins[:shown] + tuple(c % 2 for c in rest), _unflipped(engine, rng))
        new = base.redeal(deal)
        steps = list(before)
        try:
            for step in later:
                action = step.action
                if isinstance(action, ChooseSide) and step.seat != player:
                    action = ChooseSide(up[step.seat] % 2)  # a side the player did not see
                events = new.apply(action)
                if not _same_views(events, step, player):
                    raise IllegalAction("the replay shows the player something else")
                steps.append(Step(step.seat, action, tuple(events)))
        except (IllegalAction, ValueError):
            continue
        if information_string(new.observation(player), player, words) == want:
            return _finish(state, new, steps, rng)
    raise NotSupported(f"no replay of seat {player}'s information found in {TRIES} sampled worlds")


# -- Crime Hotel ----------------------------------------------------------------------------------
class _Picks:
    """Stands in for a Crime Hotel engine's generator during a replay: an exchange's or a
    check's random picks (positions in the target's hand) are the ones queued."""

    def __init__(self) -> None:
        self.queue: list[list[int]] = []

    def choice(self, a: int, size: int | None = None, replace: bool = True) -> np.ndarray:
        return np.array(self.queue.pop(0), dtype=np.int64)


def _now_proposal(kb: KnowledgeBase) -> KnowledgeBase:
    """A static knowledge base of where the cards are now (the last epoch) whose worlds include
    every present the time-indexed ``kb`` allows: its last-epoch facts, and every cell its
    propagation rules out there (sound, so nothing allowed is lost)."""
    from deduce.constraints import At, AtLeastOne, Count, NotAll, NotAt

    last = kb.epochs - 1
    out = KnowledgeBase(kb.deck, kb.locations)
    facts = [dataclasses.replace(c, epoch=0) for c in kb.constraints
             if isinstance(c, At | NotAt | Count | AtLeastOne | NotAll) and c.epoch == last]
    possible = propagate(kb).possible[last]
    facts += [NotAt(int(c), int(z)) for c, z in np.argwhere(~possible)]
    out.extend(facts, source="now", check=False)
    return out


def _uniform_subset(cards: set[int], k: int, rng: np.random.Generator) -> set[int]:
    ordered = sorted(cards)
    return {ordered[int(i)] for i in rng.choice(len(ordered), size=k, replace=False)}


def _backwards(now: list[set[int]], later: Sequence[Step], player: int,
               rng: np.random.Generator) -> tuple[list[set[int]], dict[int, tuple[set[int], set[int]]]] | None:
    """The hands at the deal, from the hands ``now``, undoing ``later`` moves from the last:
    a played card goes back to its owner; an exchange the player saw is undone as it was; one
    it did not see is undone with the cards given drawn uniformly from the target's hand after
    it and the cards taken from the actor's (how many ways there are is public). Returns the
    dealt hands and, per hidden exchange (by its index in ``later``), (given, taken); None if
    an undo is impossible (a seen card not where it must be)."""
    from deduce.games.crime_hotel.rules import Exchanged, Played

    hands = [set(h) for h in now]
    hidden: dict[int, tuple[set[int], set[int]]] = {}
    for i in range(len(later) - 1, -1, -1):
        for event in reversed(later[i].events):
            if isinstance(event, Played):
                hands[event.player].add(event.card)
            elif isinstance(event, Exchanged):
                a, t = event.actor, event.target
                if player in (a, t):
                    given, taken = set(event.given or ()), set(event.taken or ())
                    if not (given <= hands[t] and taken <= hands[a]):
                        return None
                else:
                    given, taken = _uniform_subset(hands[t], event.k, rng), _uniform_subset(hands[a], event.k, rng)
                    hidden[i] = (given, taken)
                hands[t] = hands[t] - given | taken
                hands[a] = hands[a] - taken | given
    return hands, hidden


def _pick_first(hand: list[int], seen: Sequence[int]) -> list[int] | None:
    """Put ``seen`` (cards a pick takes, in the order the player saw them) first in ``hand``
    (the order of a hand is nobody's knowledge) and return their positions; None if one is
    not there."""
    if any(c not in hand for c in seen):
        return None
    hand[:] = [*seen, *(c for c in hand if c not in seen)]
    return list(range(len(seen)))


def _redeal_crime_hotel(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Crime Hotel: where the cards are now drawn exactly uniformly from
    :func:`_now_proposal`, undone to a deal (:func:`_backwards`), the game replayed with it and
    kept only if the player sees what it saw (module docstring)."""
    game = state.get_game()
    engine: CrimeHotelState = state.engine  # type: ignore[assignment]
    words = event_words(game.deduce)
    obs = state.deduce_observation(player)
    want = information_string(obs, player, words)
    proposal = _now_proposal(game.deduce.knowledge(obs))
    locations = game.deduce.locations
    n = game.deduce.num_players
    hidden = locations.index(HIDDEN)
    box = locations.index(BOX) if BOX in locations else None
    base, before = _prefix(state, lambda e: e.game_index == engine.game_index)
    later = state.steps[len(before):]
    dealt = [sorted(h) for h in base.hands]
    for world in _proposals(proposal, REJECTION_TRIES, player, rng):
        undone = _backwards([{int(c) for c in np.flatnonzero(world == p)} for p in range(n)], later, player, rng)
        if undone is None:
            continue
        hands, exchanges = undone
        swap = {c: d for p in range(n) for c, d in zip(dealt[p], sorted(hands[p]), strict=True)}
        swap[base.hidden] = int(np.flatnonzero(world == hidden)[0])
        if box is not None:
            swap.update(zip(base.leftover, sorted(int(c) for c in np.flatnonzero(world == box)), strict=True))
        got = _replay_crime_hotel(base, swap, later, exchanges, player, rng)
        if got is not None and information_string(got[0].observation(player), player, words) == want:
            return _finish(state, got[0], [*before, *got[1]], rng)
    raise NotSupported(f"no replay of seat {player}'s information found in {REJECTION_TRIES} proposed worlds")


def _replay_crime_hotel(base: CrimeHotelState, swap: dict[int, int], later: Sequence[Step],
                        exchanges: dict[int, tuple[set[int], set[int]]], player: int,
                        rng: np.random.Generator) -> tuple[CrimeHotelState, list[Step]] | None:
    """The current game dealt by ``swap`` of ``base``'s deal, then ``later`` moves, the
    exchanges the player did not see made as ``exchanges`` says, a check it did not see
    picking uniformly; None as soon as the player would see something else."""
    from deduce.apps.openspiel.game import Step
    from deduce.games.crime_hotel.rules import Checked, Exchanged

    new = base.redeal(swap)  # the engine's re-deal of a game just dealt
    picks = _Picks()
    new.rng = picks  # type: ignore[assignment]
    steps: list[Step] = []
    for i, step in enumerate(later):
        action = step.action
        if isinstance(action, Exchange | Check):
            theirs = new.hands[action.target]
            if i in exchanges:
                given, taken = exchanges[i]
                action = Exchange(action.target, tuple(sorted(given)))
                at = _pick_first(theirs, sorted(taken))
            elif isinstance(action, Exchange):
                at = _pick_first(theirs, next(e for e in step.events if isinstance(e, Exchanged)).taken or ())
            else:
                checked = next(e for e in step.events if isinstance(e, Checked))
                if player in (step.seat, action.target):
                    at = _pick_first(theirs, checked.cards or ())
                else:  # a check the player did not see: its cards are drawn at random
                    at = sorted(int(j) for j in rng.choice(len(theirs), size=checked.k, replace=False))
            if at is None:
                return None
            picks.queue.append(at)
        try:
            events = new.apply(action)
        except IllegalAction:
            return None
        if not _same_views(events, step, player):
            return None
        steps.append(Step(step.seat, action, tuple(events)))
    return new, steps


# -- measuring a resampler -------------------------------------------------------------------------
def location_counts(worlds: Sequence[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """How often each card is at each location (``shape``: cards x locations) over
    ``worlds`` (a time-indexed world counts by its last epoch, the one the marginals describe)."""
    counts = np.zeros(shape)
    for world in worlds:
        world = world[-1] if world.ndim == 2 else world
        counts[np.arange(len(world)), world] += 1
    return counts


def total_variation(worlds: Sequence[np.ndarray], exact: np.ndarray) -> tuple[float, float, int]:
    """How far ``worlds``' location frequencies are from the ``exact`` marginals (cards x
    locations; a time-indexed one by its last epoch): the total-variation distance of each card
    the marginals leave unsettled, as (mean, largest, how many cards)."""
    exact = exact[-1] if exact.ndim == 3 else exact
    freq = location_counts(worlds, exact.shape) / max(len(worlds), 1)
    live = (exact > 0).sum(axis=1) > 1
    dist = 0.5 * np.abs(freq - exact).sum(axis=1)[live]
    if not dist.size:
        return 0.0, 0.0, 0
    return float(dist.mean()), float(dist.max()), int(live.sum())


# -- Clue on the board -----------------------------------------------------------------------------
def _same_dice(game: ClueGame, seed: int) -> np.random.Generator:
    """The generator a board game dealt with ``seed`` rolls its dice from: the engine's deal
    draws the envelope (one choice per category) and shuffles the rest, which uses the same
    amount of the generator whatever the cards, so doing the same on dummies reaches it."""
    rng = np.random.default_rng(seed)
    for category in game.categories:
        rng.choice(category)
    rng.shuffle(list(range(len(game.deck) - len(game.categories))))
    return rng


def _redeal_clue_board(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Clue on the board: an exactly uniform world of the player's knowledge base dealt with
    the true game's dice (every roll is public), the moves replayed as for Clue without the
    board (a card shown between others drawn among the choices that look the same), a world
    the replay rules out redrawn; in the intrigue edition the intrigue cards the player has
    not seen are redrawn too (:func:`_redraw_intrigue`); then new dice for the future."""
    game = state.get_game()
    deduce_game: ClueGame = game.deduce  # type: ignore[assignment]
    obs = state.deduce_observation(player)
    words = event_words(deduce_game)
    want = information_string(obs, player, words)
    kb = deduce_game.knowledge(obs)
    visible = [s for s in state.steps if not _hidden(s, player)]
    hidden_types = tuple({type(s.action) for s in state.steps if _hidden(s, player)})
    seed = int(state.seed)  # type: ignore[arg-type]
    n = deduce_game.num_players
    for _ in range(TRIES):
        worlds = _sampler().sample(kb, 1, rng)
        if not worlds:
            raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
        world = worlds[0]
        envelope = [next(c for c in cat if world[c] == n) for cat in deduce_game.categories]
        hands = [[int(c) for c in np.flatnonzero(world == p)] for p in range(n)]
        extra = [int(c) for c in np.flatnonzero(world == n + 1)]
        new = dealt(game, seed, ClueState.from_deal(deduce_game, envelope, hands, extra,
                                                    seed=_same_dice(deduce_game, seed)))
        if _replay(new, visible, hidden_types, player, obs.events, rng) and (
            information_string(new.deduce_observation(player), player, words) == want
        ):
            if deduce_game.config.intrigue:
                _redraw_intrigue(new, player, rng)
            _fresh_future(new.engine, rng)
            if state.rolling is not None:  # the roll asked for, its dice still to come
                new.apply_action(game.actions.encode(Roll()))
            return new
    raise NotSupported(f"no replay of seat {player}'s information found in {TRIES} sampled worlds")


def _redraw_intrigue(state: DeduceState, player: int, rng: np.random.Generator) -> None:
    """Redraw, in a replayed intrigue-edition game, what ``player`` has not seen of the
    intrigue cards: the kinds of the bonus cards other seats drew and the order of the deck
    left. The bonus cards come out of a uniform shuffle in a uniformly random order whatever
    the clocks do, so the unseen kinds are a uniform arrangement of the bonus cards the player
    has not seen over the hidden draws and the deck, redrawn until every bonus card a seat
    played (a move to any room, a decline) was in its hand when it played it."""
    from collections import Counter

    from deduce.apps.openspiel.game import Step
    from deduce.games.clue.intrigue import (
        ANY_ROOM,
        CLOCK,
        DECLINE,
        Decline,
        IntrigueDrawn,
        UseAnyRoom,
    )

    engine: ClueState = state.engine  # type: ignore[assignment]
    cfg = engine.game.config
    steps = state.steps
    hidden = [e for s in steps for e in s.events
              if isinstance(e, IntrigueDrawn) and e.card != CLOCK and e.view(player) != e]
    if engine.intrigue_deck is None and not hidden:
        return  # nothing drawn yet: the deck is shuffled from the new generator at the first draw
    seen = Counter(e.card for s in steps for e in s.events
                   if isinstance(e, IntrigueDrawn) and e.card != CLOCK and e.view(player) == e)
    pool = list((Counter(dict(cfg.bonus_cards)) - seen).elements())
    deck = list(engine.intrigue_deck or [])
    clocks = deck.count(CLOCK)
    if len(pool) != len(hidden) + len(deck) - clocks:
        raise NotSupported(f"seat {player}: the intrigue cards do not add up ({len(pool)} unseen bonus cards)")
    used = {UseAnyRoom: ANY_ROOM, Decline: DECLINE}
    for _ in range(REJECTION_TRIES):
        order = [pool[int(i)] for i in rng.permutation(len(pool))]
        kinds = dict(zip(map(id, hidden), order, strict=False))
        holding: dict[int, Counter[str]] = {}
        feasible = True
        for step in steps:
            kind = used.get(type(step.action))
            if kind is not None and step.seat != player:
                held = holding.setdefault(step.seat, Counter())
                if held[kind] < 1:
                    feasible = False
                    break
                held[kind] -= 1
            for e in step.events:
                if isinstance(e, IntrigueDrawn) and e.card != CLOCK and e.player != player:
                    holding.setdefault(e.player, Counter())[kinds.get(id(e), e.card)] += 1
        if feasible:
            break
    else:
        raise NotSupported(f"seat {player}: no arrangement of the unseen intrigue cards fits the cards played")
    at = {id(e): i for i, e in enumerate(engine.events)}
    bonus = [list(holding[q].elements()) if q in holding else list(engine.bonus[q]) for q in range(len(engine.bonus))]
    rest = [CLOCK] * clocks + order[len(hidden):]
    deck = [rest[int(i)] for i in rng.permutation(len(rest))] if engine.intrigue_deck is not None else None
    redrawn = engine.redraw_intrigue({at[id(e)]: kinds[id(e)] for e in hidden}, bonus, deck)
    new_events = {id(e): redrawn.events[at[id(e)]] for e in hidden}
    state._engine.state = redrawn
    state._engine.steps = [Step(s.seat, s.action, tuple(new_events.get(id(e), e) for e in s.events)) for s in steps]


# -- Alibi (Adlung) --------------------------------------------------------------------------------
def _undo_adlung(world: np.ndarray, moves: Sequence[Sequence[Event]], player: int, n: int,
                 rng: np.random.Generator) -> tuple[list[int], list[tuple[int, ...]]] | None:
    """The deck order of the deal and of every reshuffle, from where the cards are now
    (``world``), undoing the game (``moves``: the deal's events, then each move's) from its last
    event: the deck now in a uniformly random order;
    a card laid or discarded back to its owner's hand; a draw back on top of the deck (for
    another seat, which of its cards and in what order drawn uniformly: how many ways there are
    is public); a reshuffle's order read off the deck rebuilt so far. None where an undo is
    impossible (a reshuffled pile that is not what the deck rebuilds)."""
    from deduce.games.alibi_adlung.rules import (
        Bribed,
        Dealt,
        Drew,
        Exchanged,
        LaidAlibi,
        LaidEvidence,
        LaidEye,
        Reshuffled,
    )

    hands = [[int(c) for c in np.flatnonzero(world == p)] for p in range(n)]
    deck = [int(c) for c in np.flatnonzero(world == n)]
    deck = [deck[int(i)] for i in rng.permutation(len(deck))]
    forced: list[tuple[int, ...]] = []
    for events in reversed(moves):
        for event in reversed(events):
            if isinstance(event, LaidEvidence | LaidAlibi | Bribed | LaidEye):
                hands[event.player].append(event.card)
            elif isinstance(event, Exchanged):
                hands[event.player].extend(event.cards)
            elif isinstance(event, Drew | Dealt):
                k = len(event.cards) if event.player == player else (event.count if isinstance(event, Drew) else event.size)
                hand = hands[event.player]
                if event.player == player:
                    drawn = list(event.cards)
                    if any(c not in hand for c in drawn):
                        return None
                else:
                    if k > len(hand):
                        return None
                    drawn = [hand[int(i)] for i in rng.choice(len(hand), size=k, replace=False)]
                for c in drawn:
                    hand.remove(c)
                deck = drawn + deck
            elif isinstance(event, Reshuffled):
                pile = sorted(event.cards)
                if len(deck) < len(pile):
                    return None
                cut = len(deck) - len(pile)
                if sorted(deck[cut:]) != pile:
                    return None
                forced.append(tuple(deck[cut:]))
                deck = deck[:cut]
    if any(hands):
        return None
    return deck, forced[::-1]


def _redeal_adlung(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Alibi (Adlung): where the cards are now drawn exactly uniformly from the player's static
    knowledge base (sound: it allows every present the game allows), undone to the deck order of
    the deal and of each reshuffle (:func:`_undo_adlung`), the game replayed from them with the
    same suspects and kept only if the player sees what it saw: uniform over the histories the
    player's information allows (the exact posterior of the time-indexed knowledge base)."""
    from deduce.apps.openspiel.game import Step
    from deduce.games.alibi_adlung.rules import AlibiAdlungState

    game = state.get_game()
    engine: AlibiAdlungState = state.engine  # type: ignore[assignment]
    words = event_words(game.deduce)
    obs = state.deduce_observation(player)
    want = information_string(obs, player, words)
    kb = game.deduce.knowledge(obs)
    n = game.deduce.num_players
    seed = int(state.seed)  # type: ignore[arg-type]
    suspects = engine.dealt_order[1]  # the suspects' order: public as they are drawn
    setup = engine.events[: len(engine.events) - sum(len(s.events) for s in state.steps)]  # the deal
    moves = [setup, *(s.events for s in state.steps)]
    for world in _proposals(kb, ADLUNG_TRIES, player, rng):
        undone = _undo_adlung(world, moves, player, n, rng)
        if undone is None:
            continue
        new = AlibiAdlungState.redeal(game.deduce, undone[0], suspects, undone[1], seed=seed)
        steps: list[Step] = []
        try:
            for step in state.steps:
                events = new.apply(step.action)
                if not _same_views(events, step, player):
                    raise IllegalAction("the replay shows the player something else")
                steps.append(Step(step.seat, step.action, tuple(events)))
        except IllegalAction:
            continue
        if information_string(new.observation(player), player, words) == want:
            return _finish(state, new, steps, rng)
    return walk(state, player, rng)  # none accepted: the approximate walk (RESAMPLING says so)


# -- Alibi (Mayfair) -------------------------------------------------------------------------------
#: Mayfair Alibi's exact proposals (time-indexed worlds from ``frontier``) before it falls back
#: to the walk: each is a whole history, so almost every one replays to the player's view
ALIBI_TRIES = 64


def _frontier() -> Any:
    """One frontier sampler per process that keeps its counting layers for the last few
    knowledge bases (a search resamples the same information state many times; the draws
    themselves still come from each caller's generator)."""
    if "frontier" not in _SAMPLERS:
        from solvers.frontier import FrontierSolver

        class KeptLayers(FrontierSolver):
            """``frontier`` with its layers kept per knowledge base (by its constraints)."""

            def __init__(self) -> None:
                super().__init__()
                self.kept: dict[Hashable, Any] = {}

            def _layers(self, kb: KnowledgeBase, epoch: int | None = None) -> Any:
                key = (epoch, kb.epochs, tuple(kb.locations), tuple(kb.constraints))
                if key not in self.kept:
                    if len(self.kept) >= 4:
                        self.kept.pop(next(iter(self.kept)))
                    self.kept[key] = super()._layers(kb, epoch)
                return self.kept[key]

        _SAMPLERS["frontier"] = KeptLayers()
    return _SAMPLERS["frontier"]


def _alibi_passes(steps: Sequence[Step]) -> list[int | None]:
    """For each move, the epoch its pass leaves (a ``PassCard`` of a finished pass: the
    ``Passed`` event that closes it names it), or None (another move, or the pass still going)."""
    from deduce.games.alibi.rules import PassCard, Passed

    out: list[int | None] = [None] * len(steps)
    pending: list[int] = []
    for i, step in enumerate(steps):
        if isinstance(step.action, PassCard):
            pending.append(i)
        for event in step.events:
            if isinstance(event, Passed):
                for j in pending:
                    out[j] = event.epoch
                pending = []
    return out


def _redeal_alibi(state: DeduceState, player: int, rng: np.random.Generator) -> DeduceState:
    """Mayfair Alibi, exact where ``frontier`` counts the player's time-indexed knowledge base
    (early rounds): a world drawn exactly uniformly from it is a whole history (the deal at
    epoch 0, the cards each seat passed at every pass after it); the game is dealt from it and
    replayed, each finished pass of another seat with the cards the world moves, the cards
    another seat has chosen so far in a pass still going drawn uniformly from its hand, and
    kept only if the player sees exactly what it saw. Where frontier refuses (later rounds),
    or no proposal replays, the approximate walk (:func:`walk`)."""
    from deduce.apps.openspiel.game import Step
    from deduce.errors import TooLarge
    from deduce.games.alibi.rules import AlibiState, PassCard

    game = state.get_game()
    deduce_game = game.deduce
    words = event_words(deduce_game)
    obs = state.deduce_observation(player)
    want = information_string(obs, player, words)
    kb = deduce_game.knowledge(obs)
    try:
        first = _frontier().sample(kb, 2, rng)
    except (TooLarge, NotSupported):
        return walk(state, player, rng)
    if not first:
        raise NotSupported(f"seat {player}'s knowledge base has no consistent world")
    n = deduce_game.num_players
    box_loc = deduce_game.box_loc
    passes = _alibi_passes(state.steps)

    def proposals() -> Iterator[np.ndarray]:
        yield from first
        for _ in range(0, ALIBI_TRIES - len(first), 4):  # most first draws replay: a few at a time
            yield from _frontier().sample(kb, 4, rng)

    for world in proposals():
        deal = world[0]
        new = AlibiState.from_deal(deduce_game, [int(c) for c in np.flatnonzero(deal == box_loc)],
                                   [[int(c) for c in np.flatnonzero(deal == p)] for p in range(n)])
        given: dict[tuple[int, int], list[int]] = {}
        steps: list[Step] = []
        try:
            for step, epoch in zip(state.steps, passes, strict=True):
                action = step.action
                if isinstance(action, PassCard) and step.seat != player:
                    if epoch is not None:  # a finished pass: the cards the world moves
                        key = (step.seat, epoch)
                        if key not in given:
                            given[key] = [int(c) for c in np.flatnonzero(
                                (world[epoch] == step.seat) & (world[epoch + 1] == (step.seat + 1) % n))]
                        if not given[key]:
                            raise IllegalAction("the world passes fewer cards than were passed")
                        action = PassCard(given[key].pop(0))
                    else:  # the pass going on: a card of the seat's hand, uniformly
                        hand = sorted(new.hands[step.seat])
                        action = PassCard(hand[int(rng.integers(len(hand)))])
                events = new.apply(action)
                if not _same_views(events, step, player):
                    raise IllegalAction("the replay shows the player something else")
                steps.append(Step(step.seat, action, tuple(events)))
        except IllegalAction:
            continue
        if information_string(new.observation(player), player, words) == want:
            return _finish(state, new, steps, rng)
    return walk(state, player, rng)  # none replayed: the approximate walk
