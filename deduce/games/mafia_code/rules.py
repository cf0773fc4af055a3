"""Mafia Code (마피아 코드, Gameology 2019), RULES.md §2 and the Korean seed text.

36 cards, one per (colour, letter) cell. Hands are dealt, the rest is boxed and never seen.
Sheets are public: each written cell is the number of cards of the writer's *original* hand
matching that colour **or** that letter (11 cards of 36). A turn is a dice roll (only the
roller writes), then exact-card guesses at other players that go on after every hit and end at
the first miss. A hit reveals the card to everyone; a miss is crossed off on the target's public
sheet. Circling (a cell whose matching cards are all revealed) is automatic and public. The game
ends the moment one player has revealed every card; each hit scores one point.

Dice rolls come from a generator seeded by the caller, separate from the deal's generator, so
a given deal (``MafiaCodeState.from_deal``) and seed replays the same dice.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Card, Deck
from deduce.constraints import At, Constraint, Count, NotAt
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import Action, Dealt, Event, Game, Observation, State, own_observation
from deduce.knowledge import KnowledgeBase

__all__ = [
    "MafiaCodeConfig",
    "MafiaCodeGame",
    "MafiaCodeState",
    "MafiaCodeObservation",
    "Guess",
    "Stop",
    "Dealt",
    "CodeWritten",
    "Guessed",
    "Circled",
    "TurnEnded",
    "COLOURS",
    "LETTERS",
    "BOX",
    "HAND_SIZES",
]

#: RULES.md §2C: red and white are confirmed by the seed; the other four are placeholders.
COLOURS = ("red", "yellow", "green", "blue", "purple", "white")
#: RULES.md §2C DEFAULT: letters A-F (the seed's B and D fit).
LETTERS = ("A", "B", "C", "D", "E", "F")
#: Seed: 12 cards each with 2 players, 10 with 3, 8 with 4 (on the 36-card deck).
HAND_SIZES = {2: 12, 3: 10, 4: 8}
BOX = "box"


@dataclass(frozen=True)
class MafiaCodeConfig:
    """Every DEFAULT of RULES.md §2 is a field here."""

    num_players: int = 3
    #: colour die faces = the sheet's columns (6 in the product; fewer for small test decks).
    colours: tuple[str, ...] = COLOURS
    #: letter die faces = the sheet's rows.
    letters: tuple[str, ...] = LETTERS
    #: cards per hand; ``None``: 12/10/8 for 2/3/4 players, scaled to the deck for smaller decks.
    hand_size: int | None = None
    #: rolls per player in the opening round of codes; ``None``: 2 with 2 players, else 1 (seed).
    initial_rolls: int | None = None
    #: a code already on the roller's sheet is rerolled in the opening round too (§2C DEFAULT).
    reroll_duplicate_initial: bool = True
    #: DEFAULT: True, the first guess of a turn is mandatory (§2D: the turn is roll, then
    #: deduce); False lets the roller end its turn without guessing (``Stop``).
    guess_mandatory: bool = True
    #: after a hit the next guess may target the same player again (§2D DEFAULT).
    same_target_allowed: bool = True
    #: whether the guesser may stop after a hit. ``None``: only under the expert rule, where a
    #: miss costs the turn's points (the seed says "guess once more"; the expert rule makes no
    #: sense unless one can stop, so stopping is allowed exactly there). True/False force it.
    may_stop: bool | None = None
    #: expert rule (숙련자 룰): a wrong guess loses every point gained this turn.
    expert: bool = False
    #: circling is done by the engine (§2D DEFAULT); "forgot to circle" is not modelled.
    auto_circling: bool = True
    #: with every cell of the roller's sheet filled, the roll is skipped (§2C DEFAULT).
    skip_roll_when_full: bool = True
    #: tied top scores all win (§2C DEFAULT).
    ties_shared: bool = True
    #: engine safeguard, not a rule: the game ends after this many turns.
    max_turns: int = 1000
    #: seat names, used in logs and as knowledge-base locations ("p0".. when empty).
    player_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 4:
            raise InvalidConfig("num_players", self.num_players, "Mafia Code needs 2 to 4 players")
        for label, faces in (("colours", self.colours), ("letters", self.letters)):
            if len(faces) < 1:
                raise InvalidConfig(label, faces, f"Mafia Code needs at least one of {label}")
            if len(set(faces)) != len(faces):
                raise InvalidConfig(label, faces, f"{label} must be distinct")
        both = sorted(set(self.colours) & set(self.letters))
        if both:
            raise InvalidConfig("letters", self.letters, f"a name cannot be both a colour and a letter: {both}")
        size = self.hand_sizes()[0]
        if size < 1:
            raise InvalidConfig("hand_size", size, "hand_size must be positive")
        if size * self.num_players > self.num_cards:
            raise InvalidConfig(
                "hand_size",
                size,
                f"{self.num_players} hands of {size} need {size * self.num_players} cards; the deck has {self.num_cards}",
            )
        if self.initial_rolls is not None and self.initial_rolls < 0:
            raise InvalidConfig("initial_rolls", self.initial_rolls, "initial_rolls cannot be negative")
        if not self.auto_circling:
            raise InvalidConfig(
                "auto_circling", False, "only auto_circling=True is implemented (forgotten circling is not modelled)"
            )
        if not self.skip_roll_when_full:
            raise InvalidConfig("skip_roll_when_full", False, "only skip_roll_when_full=True is implemented")
        if not self.ties_shared:
            raise InvalidConfig("ties_shared", False, "only ties_shared=True is implemented (the rules give no tie-break)")
        if self.player_names and len(self.player_names) != self.num_players:
            raise InvalidConfig(
                "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
            )
        if self.max_turns < 1:
            raise InvalidConfig("max_turns", self.max_turns, "max_turns must be positive")

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    @property
    def num_cards(self) -> int:
        return len(self.colours) * len(self.letters)

    @property
    def stop_allowed(self) -> bool:
        """Whether a guesser may end the turn after a hit (``may_stop``, else the expert rule)."""
        return self.expert if self.may_stop is None else self.may_stop

    @property
    def rolls_per_player(self) -> int:
        if self.initial_rolls is not None:
            return self.initial_rolls
        return 2 if self.num_players == 2 else 1

    def hand_sizes(self) -> tuple[int, ...]:
        if self.hand_size is not None:
            size = self.hand_size
        else:
            size = HAND_SIZES[self.num_players]
            if self.num_cards != 36:  # keep the product's dealt fraction on a smaller deck
                size = max(1, (size * self.num_cards) // 36)
        return (size,) * self.num_players

    def box_size(self) -> int:
        return self.num_cards - sum(self.hand_sizes())

    def deck(self) -> Deck:
        cards = []
        for ci, colour in enumerate(self.colours):
            for li, letter in enumerate(self.letters):
                cards.append(
                    Card(ci * len(self.letters) + li, f"{colour} {letter}", "mafia",
                         (("colour", colour), ("letter", letter)))
                )
        return Deck(tuple(cards))


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Guess(Action):
    """"Player ``target``, you hold ``card``" (an exact card id)."""

    target: int
    card: int


@dataclass(frozen=True)
class Stop(Action):
    """End one's turn: after a hit where ``config.stop_allowed``, before the first guess only
    where the guess is not mandatory (``config.guess_mandatory`` False)."""


# -- events -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CodeWritten(Event):
    """A rolled code (colour, letter indices) and the counts written for it (public).

    ``writers[i]`` wrote ``counts[i]``: every player in the opening round, the roller alone on
    a turn. ``rerolled`` are the codes thrown away because the roller's cell was already filled.
    """

    roller: int
    colour: int
    letter: int
    writers: tuple[int, ...]
    counts: tuple[int, ...]
    rerolled: tuple[tuple[int, int], ...] = ()
    opening: bool = False
    kind: ClassVar[str] = "code"


@dataclass(frozen=True)
class Guessed(Event):
    """``by`` named ``card`` for ``target``: a hit reveals it, a miss crosses it off (public)."""

    by: int
    target: int
    card: int
    hit: bool
    kind: ClassVar[str] = "guess"


@dataclass(frozen=True)
class Circled(Event):
    """``player`` circled cells whose matching cards are all revealed; ``cards`` got an X (public).

    Implied by the counts and the reveals, so the knowledge base derives it rather than reading it.
    """

    player: int
    cells: tuple[tuple[int, int], ...]
    cards: tuple[int, ...]
    kind: ClassVar[str] = "circled"


@dataclass(frozen=True)
class TurnEnded(Event):
    """``player``'s turn ended (``reason``: miss, stop, no_target, game_over); ``gained`` points
    were kept, ``forfeited`` lost by the expert rule (public)."""

    player: int
    reason: str
    gained: int
    forfeited: int = 0
    kind: ClassVar[str] = "turn_end"


@dataclass(frozen=True)
class MafiaCodeObservation(Observation):
    """One seat's view of a Mafia Code game (``player=None``: a spectator who sees no hand).

    Everything except ``hand`` is public: the sheets (``cells[p]`` = ((colour, letter, count),
    ...)), circled cells, revealed cards, crossed-off misses and the scores.
    """

    colours: tuple[str, ...] = ()
    letters: tuple[str, ...] = ()
    box_size: int = 0
    cells: tuple[tuple[tuple[int, int, int], ...], ...] = ()
    circled: tuple[tuple[tuple[int, int], ...], ...] = ()
    revealed: tuple[tuple[int, ...], ...] = ()
    crossed: tuple[tuple[int, ...], ...] = ()
    scores: tuple[int, ...] = ()
    #: points gained in the current turn (lost on a miss under the expert rule).
    turn_gain: int = 0
    #: hits so far in the current turn (0: the mandatory first guess is still to come).
    turn_hits: int = 0
    #: the target of the last hit this turn (None before one), for ``same_target_allowed``.
    last_target: int | None = None
    expert: bool = False
    turn: int = 0


# -- the game ---------------------------------------------------------------------------------
class MafiaCodeGame(Game[MafiaCodeConfig]):
    """Mafia Code per RULES.md §2."""

    name: ClassVar[str] = "mafia-code"
    config_class: ClassVar[type] = MafiaCodeConfig
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4

    def __init__(self, config: MafiaCodeConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        self.deck = config.deck()
        nl = len(config.letters)
        self.colour_of = tuple(c // nl for c in range(config.num_cards))
        self.letter_of = tuple(c % nl for c in range(config.num_cards))
        self._matching = {
            (ci, li): tuple(
                c for c in range(config.num_cards) if self.colour_of[c] == ci or self.letter_of[c] == li
            )
            for ci in range(len(config.colours))
            for li in range(nl)
        }

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats by name, then the box if any card is boxed."""
        return self.config.names + ((BOX,) if self.config.box_size() > 0 else ())

    def card_id(self, colour: int, letter: int) -> int:
        return colour * len(self.config.letters) + letter

    def matching(self, colour: int, letter: int) -> tuple[int, ...]:
        """The cards a code (colour, letter) counts: that colour or that letter, each once."""
        return self._matching[(colour, letter)]

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> MafiaCodeState:
        return MafiaCodeState(self, seed)

    # -- knowledge ---------------------------------------------------------------------------
    def base_knowledge(self) -> KnowledgeBase:
        """Constraints every player knows before play: hand sizes and the box size."""
        kb = KnowledgeBase(self.deck, self.locations)
        everything = range(self.config.num_cards)
        rules: list[Constraint] = [Count(everything, seat, size) for seat, size in enumerate(self.config.hand_sizes())]
        if self.config.box_size() > 0:
            rules.append(Count(everything, kb.loc(BOX), self.config.box_size()))
        kb.extend(rules, source="rules", check=False)
        return kb

    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The observing player's knowledge base. ``check`` is passed to ``KnowledgeBase.extend``
        for every event (``False``: trust the events, as for engine-made observations)."""
        observation = own_observation(observation, MafiaCodeObservation, "MafiaCodeGame.knowledge")
        kb = self.base_knowledge()
        for i, event in enumerate(observation.events):
            cons = self.event_constraints(kb, event)
            if cons:
                kb.extend(cons, source=f"event {i}", check=check)
        return kb

    def event_constraints(self, kb: KnowledgeBase, event: Event) -> list[Constraint]:
        """The constraints one (viewed) event adds.

        A written cell is a ``Count`` over its 11 matching cards on the writer's *original* hand
        (revealed cards stay in place in the knowledge base, so the count stays true). Circling
        adds nothing: ``Count`` plus the ``At`` facts of the reveals already imply it, and the
        solvers (and ``propagate``) find it.
        """
        if isinstance(event, Dealt):
            return [At(c, event.player) for c in event.cards]
        if isinstance(event, CodeWritten):
            cards = self.matching(event.colour, event.letter)
            return [Count(cards, w, n) for w, n in zip(event.writers, event.counts, strict=True)]
        if isinstance(event, Guessed):
            return [At(event.card, event.target) if event.hit else NotAt(event.card, event.target)]
        return []


class MafiaCodeState(State):
    """The truth of one Mafia Code game."""

    def __init__(
        self,
        game: MafiaCodeGame,
        seed: int | np.random.SeedSequence | None = None,
        deal: Sequence[Sequence[int]] | None = None,
    ) -> None:
        super().__init__(game)
        self.game: MafiaCodeGame = game
        cfg = game.config
        root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self._seed = copy.deepcopy(root)  # unspawned: a variant deal replays the same dice
        deal_seq, dice_seq = root.spawn(2)
        self.rng = np.random.default_rng(dice_seq)
        if deal is None:
            order = np.random.default_rng(deal_seq).permutation(cfg.num_cards)
            size = cfg.hand_sizes()[0]
            deal = [order[i * size : (i + 1) * size] for i in range(cfg.num_players)]
        self.hands: list[tuple[int, ...]] = [tuple(sorted(int(c) for c in h)) for h in deal]
        self._check_deal()
        dealt = {c for h in self.hands for c in h}
        self.box = tuple(c for c in range(cfg.num_cards) if c not in dealt)
        n = cfg.num_players
        self.sheets: list[dict[tuple[int, int], int]] = [{} for _ in range(n)]
        self.circled: list[set[tuple[int, int]]] = [set() for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in range(n)]
        self.crossed: list[list[int]] = [[] for _ in range(n)]
        self.scores = [0] * n
        self.turn_player = 0
        self.turns = 0
        self.turn_gain = 0
        self.turn_hits = 0
        self.last_target: int | None = None
        self.finished = False
        self._events = [Dealt(p, h) for p, h in enumerate(self.hands)]
        for _ in range(cfg.rolls_per_player):
            for p in range(n):
                self._events.extend(self._roll(p, opening=True))
        self._events.extend(self._roll(self.turn_player, opening=False))

    @classmethod
    def from_deal(
        cls,
        game: MafiaCodeGame,
        hands: Sequence[Sequence[int]],
        seed: int | np.random.SeedSequence | None = None,
    ) -> MafiaCodeState:
        """A game starting from given hands (card ids; the rest is boxed): for tests, replays
        and a real table. ``seed`` drives the dice exactly as in ``new_initial_state(seed)``."""
        return cls(game, seed, deal=hands)

    def _check_deal(self) -> None:
        cfg = self.game.config
        cards = [c for h in self.hands for c in h]
        if len(set(cards)) != len(cards) or not all(0 <= c < cfg.num_cards for c in cards):
            twice = sorted({c for c in cards if cards.count(c) > 1})
            unknown = sorted({c for c in cards if not 0 <= c < cfg.num_cards})
            raise InvalidConfig(
                "hands",
                self.hands,
                f"a deal must give distinct cards of the deck 0..{cfg.num_cards - 1} (repeated: {twice}, unknown: {unknown})",
            )
        sizes = tuple(len(h) for h in self.hands)
        if sizes != cfg.hand_sizes():
            raise InvalidConfig("hands", self.hands, f"hand sizes {sizes} do not follow the deal rule {cfg.hand_sizes()}")

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return State.TERMINAL if self.finished else self.turn_player

    def is_terminal(self) -> bool:
        return self.finished

    def returns(self) -> list[float]:
        """Points: one per correct guess (the highest score wins; ties are shared)."""
        return [float(s) for s in self.scores]

    def winners(self) -> tuple[int, ...]:
        best = max(self.scores)
        return tuple(p for p, s in enumerate(self.scores) if s == best)

    def unrevealed(self, player: int) -> tuple[int, ...]:
        shown = set(self.revealed[player])
        return tuple(c for c in self.hands[player] if c not in shown)

    def _targets(self) -> list[int]:
        n = self.game.num_players
        out = [q for q in range(n) if q != self.turn_player and self.unrevealed(q)]
        if not self.game.config.same_target_allowed and self.last_target is not None:
            out = [q for q in out if q != self.last_target]
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.finished or (player is not None and player != self.current_player):
            return []
        revealed = {c for r in self.revealed for c in r}
        cards = [c for c in range(self.game.config.num_cards) if c not in revealed]
        out: list[Action] = [Guess(q, c) for q in self._targets() for c in cards]
        if self._may_stop():
            out.append(Stop())
        return out

    def _may_stop(self) -> bool:
        """Whether the turn player may end its turn now: before the first guess only when the
        guess is not mandatory (the seed's turn is roll, then deduce), after a hit only where
        stopping is allowed (the seed says "guess once more"; the expert rule lets one stop)."""
        cfg = self.game.config
        return cfg.stop_allowed if self.turn_hits > 0 else not cfg.guess_mandatory

    def explain_illegal(self, action: Action) -> str:
        cfg = self.game.config
        who = self.turn_player
        if isinstance(action, Stop):
            if self.turn_hits == 0:
                return f"{self.seat_name(who)} must make the turn's first guess before stopping (guess_mandatory)"
            return f"{self.seat_name(who)} may not stop guessing after a hit (stop_allowed is False in this configuration)"
        if isinstance(action, Guess):
            q, c = action.target, action.card
            if not 0 <= q < cfg.num_players:
                return f"{action!r}: no player {q} (seats 0..{cfg.num_players - 1})"
            if q == who:
                return f"{action!r}: {self.seat_name(who)} cannot guess its own cards"
            if not 0 <= c < cfg.num_cards:
                return f"{action!r}: no card {c} (ids 0..{cfg.num_cards - 1})"
            for p, shown in enumerate(self.revealed):
                if c in shown:
                    return f"{action!r}: {self.game.deck[c].name} is already revealed by {self.seat_name(p)}"
            if not self.unrevealed(q):
                return f"{action!r}: {self.seat_name(q)} has no unrevealed cards"
            if not cfg.same_target_allowed and q == self.last_target:
                return f"{action!r}: the next guess after a hit must name a different player"
        return f"{action!r} is not legal for {self.seat_name(who)} now"

    def observation(self, player: int | None) -> MafiaCodeObservation:
        cfg = self.game.config
        acting = player is not None and player == self.current_player
        return MafiaCodeObservation(
            game=self.game.name,
            player=player,
            num_players=cfg.num_players,
            events=self.views(player),
            current_player=self.current_player,
            legal_actions=tuple(self.legal_actions()) if acting else (),
            terminal=self.finished,
            names=cfg.names,
            colours=cfg.colours,
            letters=cfg.letters,
            hand=self.hands[player] if player is not None else (),
            hand_sizes=cfg.hand_sizes(),
            box_size=cfg.box_size(),
            cells=tuple(tuple((k[0], k[1], v) for k, v in s.items()) for s in self.sheets),
            circled=tuple(tuple(sorted(c)) for c in self.circled),
            revealed=tuple(tuple(r) for r in self.revealed),
            crossed=tuple(tuple(x) for x in self.crossed),
            scores=tuple(self.scores),
            turn_gain=self.turn_gain,
            turn_hits=self.turn_hits,
            last_target=self.last_target,
            expert=cfg.expert,
            turn=self.turns,
        )

    def clone(self) -> MafiaCodeState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.rng = copy.deepcopy(self.rng)
        other.hands = list(self.hands)
        other.sheets = [dict(s) for s in self.sheets]
        other.circled = [set(c) for c in self.circled]
        other.revealed = [list(r) for r in self.revealed]
        other.crossed = [list(x) for x in self.crossed]
        other.scores = list(self.scores)
        return other

    def count(self, player: int, colour: int, letter: int) -> int:
        """What ``player`` writes for a code: original-hand cards of that colour or letter."""
        g = self.game
        return sum(1 for c in self.hands[player] if g.colour_of[c] == colour or g.letter_of[c] == letter)

    # -- transitions -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[Event]:
        if isinstance(action, Guess):
            return self._guess(action.target, action.card)
        if isinstance(action, Stop):
            return self._end_turn("stop")
        raise IllegalAction(f"unknown action {action!r}")  # unreachable: apply checks legality

    def _roll(self, roller: int, opening: bool) -> list[Event]:
        """Roll both dice, rerolling while the roller's cell is filled; write the counts."""
        cfg = self.game.config
        n_col, n_let = len(cfg.colours), len(cfg.letters)
        sheet = self.sheets[roller]
        if len(sheet) >= n_col * n_let:
            return []  # every cell filled: the roll is skipped
        rerolled: list[tuple[int, int]] = []
        while True:
            code = (int(self.rng.integers(n_col)), int(self.rng.integers(n_let)))
            if code not in sheet or (opening and not cfg.reroll_duplicate_initial):
                break
            rerolled.append(code)
        writers = tuple(range(cfg.num_players)) if opening else (roller,)
        counts = tuple(self.count(w, *code) for w in writers)
        for w, k in zip(writers, counts, strict=True):
            self.sheets[w][code] = k
        events: list[Event] = [CodeWritten(roller, code[0], code[1], writers, counts, tuple(rerolled), opening)]
        for w in writers:
            events.extend(self._circle(w))
        return events

    def _circle(self, player: int) -> list[Event]:
        """Circle every filled cell of ``player`` whose matching cards are all revealed."""
        shown = set(self.revealed[player])
        cells: list[tuple[int, int]] = []
        crossed: set[int] = set()
        for code, k in self.sheets[player].items():
            if code in self.circled[player]:
                continue
            match = self.game.matching(*code)
            if sum(1 for c in match if c in shown) == k:
                cells.append(code)
                crossed.update(c for c in match if c not in shown)
        if not cells:
            return []
        self.circled[player].update(cells)
        return [Circled(player, tuple(sorted(cells)), tuple(sorted(crossed)))]

    def _guess(self, target: int, card: int) -> list[Event]:
        hit = card in self.hands[target]
        events: list[Event] = [Guessed(self.turn_player, target, card, hit)]
        if not hit:
            self.crossed[target].append(card)
            events.extend(self._end_turn("miss"))
            return events
        self.revealed[target].append(card)
        self.scores[self.turn_player] += 1
        self.turn_gain += 1
        self.turn_hits += 1
        self.last_target = target
        events.extend(self._circle(target))
        if not self.unrevealed(target):
            events.extend(self._end_turn("game_over"))
        elif not self._targets():
            events.extend(self._end_turn("no_target"))
        return events

    def _end_turn(self, reason: str) -> list[Event]:
        cfg = self.game.config
        forfeited = 0
        if reason == "miss" and cfg.expert:
            forfeited = self.turn_gain
            self.scores[self.turn_player] -= forfeited
        events: list[Event] = [TurnEnded(self.turn_player, reason, self.turn_gain - forfeited, forfeited)]
        self.turn_gain = 0
        self.turn_hits = 0
        self.last_target = None
        self.turns += 1
        if reason == "game_over" or self.turns >= cfg.max_turns:
            self.finished = True
            return events
        self.turn_player = (self.turn_player + 1) % cfg.num_players
        events.extend(self._roll(self.turn_player, opening=False))
        return events

    # -- audit -------------------------------------------------------------------------------
    def hidden_variant(
        self, player: int, actions: Sequence[Action], rng: np.random.Generator
    ) -> MafiaCodeState | None:
        """Exchange up to three unrevealed cards between two places ``player`` cannot see (other
        hands, the box) keeping every written count and crossed-off card true, then replay
        ``actions`` with the same dice: nothing ``player`` saw may change."""
        n = self.game.num_players
        places = [q for q in range(n) if q != player] + [n]
        pairs = [(x, y) for x in places for y in places if x < y]
        tries = 0
        for i in rng.permutation(len(pairs)) if pairs else []:
            exchanges = self._silent_exchanges(*pairs[i])
            for j in rng.permutation(len(exchanges)) if exchanges else []:
                out, into = exchanges[j]
                variant = self._replay_with_swap(dict(zip(out + into, into + out, strict=True)), actions)
                if variant is not None:
                    return variant
                tries += 1
                if tries >= 5:
                    return None
        return None

    def _silent_exchanges(self, x: int, y: int, most: int = 3) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Sets of up to ``most`` unrevealed cards that places ``x`` and ``y`` (a seat, or
        ``num_players`` for the box) can trade without changing a written count or holding a
        card crossed off for them."""
        n, g = self.game.num_players, self.game
        shown = {c for r in self.revealed for c in r}

        def held(q: int) -> list[int]:
            return [c for c in (self.hands[q] if q < n else self.box) if c not in shown]

        cells = [code for q in (x, y) if q < n for code in self.sheets[q]]
        crossed = [set(self.crossed[q]) if q < n else set() for q in (x, y)]

        def key(cards: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(sum(1 for c in cards if g.colour_of[c] == col or g.letter_of[c] == let) for col, let in cells)

        found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for k in range(1, most + 1):
            by_key: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
            for out in itertools.combinations(held(x), k):
                if not crossed[1] & set(out):
                    by_key.setdefault(key(out), []).append(out)
            for into in itertools.combinations(held(y), k):
                if not crossed[0] & set(into):
                    found += [(out, into) for out in by_key.get(key(into), [])]
            if found:
                break
        return found

    def _replay_with_swap(self, swap: dict[int, int], actions: Sequence[Action]) -> MafiaCodeState | None:
        """The game from this deal with cards exchanged by ``swap`` and the same dice, after
        ``actions`` (None if one of them is illegal there)."""
        hands = [tuple(swap.get(c, c) for c in h) for h in self.hands]
        try:
            other = MafiaCodeState.from_deal(self.game, hands, seed=copy.deepcopy(self._seed))
            for action in actions:
                other.apply(action)
        except IllegalAction:
            return None
        return other

    # -- logs --------------------------------------------------------------------------------
    def world(self) -> np.ndarray:
        """The true location of every card as a knowledge-base world (seats, then the box)."""
        n = self.game.num_players
        w = np.full(self.game.config.num_cards, n, dtype=np.int64)
        for p, hand in enumerate(self.hands):
            w[list(hand)] = p
        return w


