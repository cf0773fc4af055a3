"""A deduce game as an OpenSpiel Python game: its declared type, its parameters and its states.

The OpenSpiel state holds the engine's state (the truth) once the deal is over. Player actions
are the game's declared numbering (:func:`deduce.actions.action_index`, from its
``GameInfo.actions``); chance is explicit (:mod:`deduce.apps.openspiel.chance`): the deal, and
on Clue's board every roll of the dice. Serialisation is OpenSpiel's default for Python games
(the history, and the state's attributes pickled), so a deserialised state is the same state,
chance outcomes and a resampled hidden world included. Returns are 1
for every seat the rules name a winner (``State.winners()``: tie-breaks included, a shared win
pays each sharer) and 0 otherwise, so the game is general-sum with utilities in [0, 1]; a game
cut off after ``max_game_length`` player moves ends with no winner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from deduce.actions import ActionIndex, action_index
from deduce.apps.openspiel import params as P
from deduce.apps.openspiel.chance import CardDeal, Dice, Rolled, SeedDeal
from deduce.apps.openspiel.numbering import board_action_index
from deduce.apps.openspiel.observer import DeduceObserver, knowledge_tensor
from deduce.errors import IllegalAction, InvalidConfig, NotSupported
from deduce.games.base import Action, Event, Game, Observation, State
from deduce.games.clue.rules import ClueGame, Roll
from deduce.games.registry import game_info, make

__all__ = ["Registration", "REGISTRATIONS", "DeduceGame", "DeduceState", "dealt", "short_name", "specification"]

PREFIX = "python_deduce_"

#: the games whose legal actions have structured blocks (Mayfair Alibi's hypothesis questions,
#: :class:`deduce.games.alibi.rules.Hypotheses`: about a million a turn, never listed). OpenSpiel
#: offers such a question as a short sequence of decisions by the same player: a start action
#: (one per block), then one value per component (``ActionSet.components``), the question played
#: when its last component is chosen. Numbered after the game's own actions: the
#: :data:`COMPOSE_BLOCKS` start actions, then the component values (``0 .. width - 1``).
COMPOSED = frozenset({"alibi"})
#: structured blocks a state may offer, and components each may have (declared in GameInfo:
#: an engine move takes at most ``1 + COMPOSE_DEPTH`` decisions)
COMPOSE_BLOCKS = 4
COMPOSE_DEPTH = 8


@dataclass(frozen=True)
class Registration:
    """One OpenSpiel game: the deduce game it plays and whether it deals by a seed
    (:class:`~deduce.apps.openspiel.chance.SeedDeal`) or card by card."""

    short_name: str
    game: str
    seeded: bool
    #: parameters whose value this registration fixes (what the adapter cannot play yet)
    fixed: tuple[tuple[str, Any], ...] = ()
    long_name: str = ""


def short_name(game: str, suffix: str = "") -> str:
    """The OpenSpiel name of a deduce game: ``"mafia-code"`` -> ``"python_deduce_mafia_code"``."""
    return PREFIX + game.replace("-", "_") + (f"_{suffix}" if suffix else "")


#: every registered OpenSpiel game. Clue without the board deals card by card (its engine draws
#: nothing after the deal); the other engines draw during play (reshuffles, new rounds, the
#: intrigue deck), so they deal by a seed, and Clue on the board rolls its dice at chance nodes
#: of their own. Clue on the board numbers its moves with
#: :func:`deduce.apps.openspiel.numbering.board_action_index`.
REGISTRATIONS: tuple[Registration, ...] = (
    Registration(short_name("clue"), "clue", False, fixed=(("board_mode", "any_room"), ("edition", "classic")),
                 long_name="Clue (deduce, without the board)"),
    Registration(short_name("clue", "board"), "clue", True, fixed=(("board_mode", "board"), ("edition", "classic")),
                 long_name="Clue on the board (deduce)"),
    Registration(short_name("clue", "intrigue"), "clue", True,
                 fixed=(("board_mode", "board"), ("edition", "intrigue")),
                 long_name="Clue, intrigue edition, on the board (deduce)"),
    Registration(short_name("alibi"), "alibi", True, long_name="Alibi (deduce)"),
    Registration(short_name("alibi-adlung"), "alibi-adlung", True, long_name="Alibi, Adlung edition (deduce)"),
    Registration(short_name("mafia-code"), "mafia-code", True, long_name="Mafia Code (deduce)"),
    Registration(short_name("checkpoint-charlie"), "checkpoint-charlie", True, long_name="Checkpoint Charlie (deduce)"),
    Registration(short_name("crime-hotel"), "crime-hotel", True, long_name="Crime Hotel (deduce)"),
)


def game_type(reg: Registration) -> pyspiel.GameType:
    """The truthful GameType of one registration (see the module docstring)."""
    cls = game_info(reg.game).game
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=reg.short_name,
        long_name=reg.long_name or reg.short_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=specification(reg),
    )


def specification(reg: Registration) -> dict[str, Any]:
    """The parameters of one registration with their defaults (the values it fixes included)."""
    return {**P.defaults(game_info(reg.game).game), **dict(reg.fixed)}


class DeduceGame(pyspiel.Game):
    """One configured deduce game as an OpenSpiel game (built by ``pyspiel.load_game``)."""

    registration: Registration

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        reg = self.registration
        book = P.defaults(game_info(reg.game).game)
        given = {**specification(reg), **dict(params or {})}
        for key, value in reg.fixed:
            if given.get(key) != value:
                raise InvalidConfig(key, given.get(key), f"{reg.short_name} plays only {key}={value!r}")
        fields = P.config_fields(game_info(reg.game).game, {k: v for k, v in given.items() if book.get(k) != v})
        #: the deduce game this OpenSpiel game plays
        self.deduce: Game = make(reg.game, **fields)
        self.max_moves = int(given[P.MAX_GAME_LENGTH])
        if self.max_moves < 1:
            raise InvalidConfig(P.MAX_GAME_LENGTH, self.max_moves, "max_game_length must be positive")
        #: the fixed action numbering (Clue on the board: its own, with the board's moves)
        board = isinstance(self.deduce, ClueGame) and self.deduce.board is not None
        self.actions: ActionIndex = board_action_index(self.deduce) if board else action_index(self.deduce)  # type: ignore[arg-type]
        self.deal: CardDeal | SeedDeal = SeedDeal(self.deduce) if reg.seeded else CardDeal(self.deduce)  # type: ignore[arg-type]
        #: the latest state's legal action strings (:meth:`DeduceState._legal_texts`)
        self.texts_cache: tuple[tuple[Any, ...], dict[int, str]] | None = None
        #: the board's dice, rolled at a chance node after each ``Roll`` (None: no board)
        self.dice: Dice | None = Dice(self.deduce.config.dice) if board else None  # type: ignore[attr-defined]
        probe = self.deduce.new_initial_state(0)
        self.tensor_size = int(knowledge_tensor(self.deduce, probe.observation(0), 0).size)
        #: the widest component value a composed question can take (0: nothing is composed)
        self.compose_width = max(self.deduce.num_players, len(self.deduce.deck)) + 1 if reg.game in COMPOSED else 0
        extra = COMPOSE_BLOCKS + self.compose_width if self.compose_width else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.size + extra,
            max_chance_outcomes=max(self.deal.max_outcomes, self.dice.max_outcomes if self.dice else 0),
            num_players=self.deduce.num_players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=self.max_moves * (1 + COMPOSE_DEPTH) if self.compose_width else self.max_moves,
        )
        super().__init__(game_type(reg), info, dict(given))

    def new_initial_state(self) -> DeduceState:
        """A new game at its first chance node."""
        return DeduceState(self)

    def action_text(self, move: Action) -> str:
        """A player action in the game's words (its wording module; else its ``repr``)."""
        wording = game_info(self.deduce.name).wording
        return wording(self.deduce).action_text(self.deduce, move) if wording is not None else repr(move)

    def max_chance_nodes_in_history(self) -> int:
        """The deal's nodes, and on the board one roll per player move at most."""
        return self.deal.length() + (self.max_moves if self.dice is not None else 0)

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> DeduceObserver:
        """The observer: perfect recall -> information state; otherwise the observation."""
        if params:
            raise InvalidConfig("params", dict(params), "the observer takes no parameters")
        perfect = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return DeduceObserver(self.deduce, perfect, self.tensor_size)


@dataclass(frozen=True)
class Step:
    """One player move as it happened: who, the game action, the events it caused and, for a
    roll on the board, the dice's chance outcome."""

    seat: int
    action: Action
    events: tuple[Event, ...]
    #: the chance outcome the move drew (a roll's dice; None: it drew nothing at a node)
    chance: int | None = None


class _Engine:
    """Holds the engine's state and the moves so far; OpenSpiel's clone deep-copies a state's
    attributes, and this copies the engine with its own (cheaper) ``clone`` and shares the
    immutable steps."""

    __slots__ = ("state", "steps")

    def __init__(self, state: State, steps: list[Step] | None = None) -> None:
        self.state = state
        self.steps: list[Step] = steps if steps is not None else []

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone(), list(self.steps))


class DeduceState(pyspiel.State):
    """An OpenSpiel state of a deduce game: chance (the deal), then the engine's moves (on the
    board, each ``Roll`` followed by the dice's chance node)."""

    def __init__(self, game: DeduceGame) -> None:
        super().__init__(game)
        self.drawn: list[int] = []
        self._engine: _Engine | None = None
        self.truncated = False
        #: an engine state that the deal's last chance outcome starts instead of the deal's own
        #: (resampling a seeded game: the same seed outcomes, a redrawn hidden deal)
        self.preset: State | None = None
        #: the seat whose ``Roll`` waits for the dice's chance node (None: no roll pending)
        self.rolling: int | None = None
        #: a structured question being composed: its block, then the components chosen so far
        self.composing: list[int] | None = None

    @property
    def _game(self) -> DeduceGame:
        """The game (not an attribute: OpenSpiel's clone deep-copies attributes)."""
        return self.get_game()

    # -- what the rest of deduce reads ------------------------------------------------------
    @property
    def engine(self) -> State | None:
        """The engine's state (the truth), or None while the deal is being drawn."""
        return None if self._engine is None else self._engine.state

    @property
    def steps(self) -> list[Step]:
        """Every player move so far (resampling replays them)."""
        return [] if self._engine is None else self._engine.steps

    @property
    def seed(self) -> int | None:
        """The engine seed a seeded deal dealt (None: a card-by-card deal, or not dealt yet)."""
        game = self._game
        if not isinstance(game.deal, SeedDeal) or self._engine is None:
            return None
        return SeedDeal.seed_of(self.history()[: game.deal.length()])

    def deduce_observation(self, player: int) -> Observation | None:
        """``player``'s deduce observation (None before the deal is over)."""
        return None if self._engine is None else self._engine.state.observation(player)

    # -- OpenSpiel's API --------------------------------------------------------------------
    def current_player(self) -> int:
        if self._engine is None or self.rolling is not None:
            return pyspiel.PlayerId.CHANCE
        if self.truncated or self._engine.state.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self._engine.state.current_player)

    def is_terminal(self) -> bool:
        return self._engine is not None and (self.truncated or self._engine.state.is_terminal())

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.engine
        if engine is None or self.rolling is not None or self.is_terminal() or player != engine.current_player:
            return []
        game = self._game
        legal = engine.legal_actions()
        if self.composing is not None:
            return sorted(game.actions.size + COMPOSE_BLOCKS + v for v in self._component_values(legal))
        out = sorted(game.actions.encode(a) for a in legal)
        if game.compose_width:
            out += [game.actions.size + b for b, block in enumerate(self._blocks(legal)) if block.size]
        return out

    def _blocks(self, legal: Any) -> tuple[Any, ...]:
        """The structured blocks of ``legal`` OpenSpiel can compose (refused if they do not fit)."""
        blocks = tuple(getattr(legal, "structured", ()))
        comps = [b.components() for b in blocks]
        if len(blocks) > COMPOSE_BLOCKS or any(len(c) > COMPOSE_DEPTH or max(n for _, n in c) > self._game.compose_width
                                               for c in comps):
            raise NotSupported(f"structured legal actions {comps} do not fit the declared composition")
        return blocks

    def _component_values(self, legal: Any) -> list[int]:
        """The values the next component of the question being composed may take; at the last
        one, those that complete a question of the block not already listed (a listed question
        keeps its own number only)."""
        block_no, *parts = self.composing  # type: ignore[misc]
        block = self._blocks(legal)[block_no]
        comps = block.components()
        size = comps[len(parts)][1]
        if len(parts) < len(comps) - 1:
            return list(range(size))
        listed = set(legal)
        out = []
        for v in range(size):
            action = block.build([*parts, v])
            if action is not None and action in block and action not in listed:
                out.append(v)
        return out

    def composing_text(self) -> str:
        """What the player composing a question has chosen so far, in words ('' if nothing)."""
        if self.composing is None or self.engine is None:
            return ""
        block_no, *parts = self.composing
        block = self._blocks(self.engine.legal_actions())[block_no]
        said = [_component_text(self._game.deduce, block, k, v) for k, v in enumerate(parts)]
        return "composing a question: " + (", ".join(said) if said else "nothing chosen yet")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.rolling is not None:
            return self._game.dice.outcomes()  # type: ignore[union-attr]
        if self._engine is not None:
            return []
        return self._game.deal.outcomes(self.drawn)

    def _apply_action(self, action: int) -> None:
        game = self._game
        if self._engine is None:
            game.deal.check(self.drawn, int(action))
            self.drawn.append(int(action))
            if len(self.drawn) == game.deal.length():
                start = self.preset if self.preset is not None else game.deal.state(self.drawn)
                self._engine = _Engine(start)
                self.preset = None
            return
        if self.is_terminal():
            raise IllegalAction(f"action {action}: the game is over")
        engine = self._engine.state
        if self.rolling is not None:  # the dice's chance node: the engine rolls these faces
            faces = game.dice.faces(int(action))  # type: ignore[union-attr]
            real = engine.rng  # type: ignore[attr-defined]
            engine.rng = Rolled(real, faces)  # type: ignore[attr-defined]
            try:
                events = engine.apply(Roll())
            finally:
                engine.rng = real  # type: ignore[attr-defined]
            self._engine.steps.append(Step(self.rolling, Roll(), tuple(events or ()), int(action)))
            self.rolling = None
        else:
            seat = int(engine.current_player)
            base = game.actions.size
            if game.compose_width and int(action) >= base:  # a step of composing a question
                legal = engine.legal_actions()
                if self.composing is None:
                    if int(action) not in self._legal_actions(seat):
                        raise IllegalAction(f"action {action}: no structured question to compose now")
                    self.composing = [int(action) - base]
                    return
                value = int(action) - base - COMPOSE_BLOCKS
                if value not in self._component_values(legal):
                    raise IllegalAction(f"action {action}: not a value of the next component")
                self.composing.append(value)
                block = self._blocks(legal)[self.composing[0]]
                if len(self.composing) - 1 < len(block.components()):
                    return
                move = block.build(self.composing[1:])
                self.composing = None
                events = engine.apply(move)
                self._engine.steps.append(Step(seat, move, tuple(events or ())))
                if len(self._engine.steps) >= game.max_moves and not engine.is_terminal():
                    self.truncated = True
                return
            move = game.actions.decode(int(action))
            if game.dice is not None and isinstance(move, Roll):
                if move not in engine.legal_actions():
                    raise IllegalAction(f"{move!r} is not legal now")
                self.rolling = seat  # the dice's chance node comes next
                return
            events = engine.apply(move)
            self._engine.steps.append(Step(seat, move, tuple(events or ())))
        if len(self._engine.steps) >= game.max_moves and not engine.is_terminal():
            self.truncated = True

    def _action_to_string(self, player: int, action: int) -> str:
        game = self._game
        if player == pyspiel.PlayerId.CHANCE:
            if self._engine is not None:
                return game.dice.label(int(action)) if game.dice is not None else f"chance outcome {action}"
            return game.deal.label(self.drawn, int(action))
        if game.compose_width and int(action) >= game.actions.size:
            return self._compose_text(int(action))
        return self._legal_texts().get(int(action)) or game.action_text(game.actions.decode(int(action)))

    def _compose_text(self, action: int) -> str:
        """A start or component action of a composed question, in words."""
        game = self._game
        engine = self.engine
        offset = action - game.actions.size
        blocks = self._blocks(engine.legal_actions()) if engine is not None and not engine.is_terminal() else ()
        if offset < COMPOSE_BLOCKS:
            if offset < len(blocks):
                names = ", ".join(name for name, _ in blocks[offset].components())
                return f"compose a question ({blocks[offset].size} of them): choose its {names}"
            return f"compose a structured question of block {offset}"
        value = offset - COMPOSE_BLOCKS
        if self.composing is not None and self.composing[0] < len(blocks):
            return _component_text(game.deduce, blocks[self.composing[0]], len(self.composing) - 1, value)
        return f"component value {value}"

    def _legal_texts(self) -> dict[int, str]:
        """The strings of the legal actions now, unique among them (OpenSpiel asks that): where
        the game's words say two actions alike (Adlung's three ``lay fat``, one per copy of the
        card), each says what tells it apart (:func:`_told_apart`). Kept on the game for the
        latest state asked about, as a player's strings are asked for one by one."""
        game = self._game
        key = (self.engine, len(self.steps), self.rolling, tuple(self.composing or ()))
        cached = game.texts_cache
        if cached is not None and cached[0][0] is key[0] and cached[0][1:] == key[1:]:
            return cached[1]
        legal = self._legal_actions(self.current_player()) if self.current_player() >= 0 else []
        moves = {a: game.actions.decode(a) for a in legal if a < game.actions.size}
        by_text: dict[str, list[int]] = {}
        for a, move in moves.items():
            by_text.setdefault(game.action_text(move), []).append(a)
        texts: dict[int, str] = {}
        for text, same in by_text.items():
            suffixes = _told_apart(game.deduce, [moves[a] for a in same]) if len(same) > 1 else [""]
            texts.update((a, f"{text} ({suffix})" if suffix else text) for a, suffix in zip(same, suffixes, strict=True))
        texts.update((a, self._compose_text(a)) for a in legal if a >= game.actions.size)
        game.texts_cache = (key, texts)
        return texts

    def returns(self) -> list[float]:
        n = self._game.deduce.num_players
        engine = self.engine
        if engine is None or self.truncated or not engine.is_terminal():
            return [0.0] * n
        winners = set(engine.winners())
        return [1.0 if p in winners else 0.0 for p in range(n)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> DeduceState:
        """A state drawn from the worlds consistent with ``player_id``'s information, with the
        same moves: exactly uniform or approximate as
        :func:`deduce.apps.openspiel.resample.resampling` says (see that module)."""
        from deduce.apps.openspiel.resample import resample

        seed = int(probability_sampler() * 2**53)
        return resample(self, int(player_id), np.random.default_rng(seed))

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return f"dealing: {len(self.drawn)} of {self._game.deal.length()} chance outcomes drawn"
        lines = [f"{type(s.action).__name__} by seat {s.seat}: {s.action!r}" for s in self.steps[-3:]]
        who = ("over" if self.is_terminal() else f"seat {self.rolling}'s dice to roll" if self.rolling is not None
               else f"seat {engine.current_player} to act")
        return "\n".join([f"move {len(self.steps)}, {who}", *lines])


def _component_text(game: Game, block: Any, k: int, value: int) -> str:
    """Component ``k`` of a structured block at ``value``, in words: a target seat, a family,
    a card (or none, for an optional one), else the number."""
    name, _ = block.components()[k]
    try:
        if name == "target":
            seat = block.targets[value]
            return f"target: p{seat}"
        if name == "family":
            return f"family: {block.families[value]}"
        if name.endswith(" card"):
            cat = [n for n, _ in block.components() if n.endswith(" card")].index(name)
            cards = block.categories[cat]
            if cat == 0:
                return f"{name}: {game.deck[cards[value]].name}"
            return f"{name}: {'none' if value == 0 else game.deck[cards[value - 1]].name}"
    except (AttributeError, IndexError):
        pass
    return f"{name}: {value}"


def _told_apart(game: Game, moves: Sequence[Action]) -> list[str]:
    """What tells apart moves the game's words say alike: the fields in which they differ,
    card ids by their card names (``card=fat#2``), or the whole move where the kinds differ."""
    if len({type(m) for m in moves}) > 1:
        return [repr(m) for m in moves]
    names = [f.name for f in dataclasses.fields(moves[0])
             if len({repr(getattr(m, f.name)) for m in moves}) > 1]  # type: ignore[arg-type]

    def value(field: str, v: Any) -> str:
        if "card" in field and isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(game.deck):
            return game.deck[v].name
        if "card" in field and isinstance(v, tuple) and all(isinstance(c, int) and 0 <= c < len(game.deck) for c in v):
            return "+".join(game.deck[c].name for c in v)
        return str(v)

    return [", ".join(f"{n}={value(n, getattr(m, n))}" for n in names) for m in moves]


def _game_class(reg: Registration) -> type[DeduceGame]:
    """A DeduceGame subclass bound to one registration (pyspiel registers a class per name)."""
    name = "".join(part.title() for part in reg.short_name.split("_")) + "Game"
    return type(name, (DeduceGame,), {"registration": reg})


def register_all() -> dict[str, type[DeduceGame]]:
    """Register every game of :data:`REGISTRATIONS` with pyspiel (once per process)."""
    known = set(pyspiel.registered_names())
    classes = {}
    for reg in REGISTRATIONS:
        cls = _game_class(reg)
        classes[reg.short_name] = cls
        if reg.short_name not in known:
            pyspiel.register_game(game_type(reg), cls)
    return classes


def dealt(game: DeduceGame, seed: int, preset: State | None = None) -> DeduceState:
    """A new state of a seeded game with engine seed ``seed`` dealt through its chance nodes;
    ``preset`` (an engine state) starts the game instead of the seed's own deal (a resampled
    hidden world under the same seed outcomes)."""
    if not isinstance(game.deal, SeedDeal):
        raise IllegalAction(f"{game.get_type().short_name} deals card by card, not by a seed")
    state = game.new_initial_state()
    state.preset = preset
    for outcome in SeedDeal.outcomes_of(seed):
        state.apply_action(outcome)
    return state
