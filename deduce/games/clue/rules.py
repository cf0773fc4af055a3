"""Clue / Cluedo without the board (RULES.md §5).

Suggestions in any room (except, by default, the room one suggested from last turn);
refutation clockwise from the suggester's left, the first able player showing one card
privately; accusations at any time on one's own turn; a wrong accuser is eliminated, still
refutes, and privately sees the envelope; the game ends on a correct accusation or when nobody
is left. Refutations with a single possible card are forced moves and resolve themselves.

``board_mode="board"`` plays on the classic board (:mod:`deduce.games.clue.board`): each seat
moves its suspect's token (seat ``i`` plays suspect ``i``). A turn starts with ``Roll()`` (dice
from the state's seeded generator), then ``Move(to)`` to any place within the roll, or with
``Move(to)`` through a secret passage instead of rolling; entering a room means suggesting there
(``Suggest`` names that room); a player moved into a room by another's suggestion may suggest
there at the start of its next turn instead of moving; otherwise it must leave the room first.
The named suspect's token is moved into the suggestion's room. Movement is public and carries no
card information, so knowledge is the same as without the board.

``edition="intrigue"`` (with the board) plays the 2008+ edition: ``?`` squares and die faces,
bonus cards, clocks that eliminate, accusations from the pool (:mod:`deduce.games.clue.intrigue`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Deck
from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAll, NotAt
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import (
    Action,
    Dealt,
    Event,
    Game,
    Observation,
    State,
    own_observation,
    placement_problem,
)
from deduce.games.clue import intrigue as clue_intrigue
from deduce.games.clue.board import CLASSIC_BOARD, INTRIGUE_BOARD, Board
from deduce.games.clue.intrigue import BONUS_KINDS, DECLINE, Decline, UseAnyRoom
from deduce.knowledge import KnowledgeBase

__all__ = [
    "ClueConfig",
    "ClueGame",
    "ClueState",
    "ClueObservation",
    "Suggest",
    "Show",
    "Accuse",
    "ViewExtra",
    "EndTurn",
    "Roll",
    "Move",
    "UseAnyRoom",
    "Decline",
    "Rolled",
    "TokenMoved",
    "Dealt",
    "ExtraRevealed",
    "Suggestion",
    "ExtraSeen",
    "Accusation",
    "EnvelopeSeen",
    "CardAt",
    "CardNotAt",
    "refute_order",
    "CLASSIC_SUSPECTS",
    "CLASSIC_WEAPONS",
    "CLASSIC_ROOMS",
    "ENVELOPE",
    "EXTRA",
    "shown_to",
]

CLASSIC_SUSPECTS = ("Miss Scarlet", "Colonel Mustard", "Mrs. White", "Mr. Green", "Mrs. Peacock", "Professor Plum")
CLASSIC_WEAPONS = ("Candlestick", "Knife", "Lead Pipe", "Revolver", "Rope", "Wrench")
CLASSIC_ROOMS = (
    "Kitchen", "Ballroom", "Conservatory", "Dining Room", "Billiard Room",
    "Library", "Lounge", "Hall", "Study",
)
ENVELOPE = "envelope"
EXTRA = "extra"
DEAL_MODES = ("equal_leftover", "equal_leftover_public", "all")
BOARD_MODES = ("any_room", "board")
EDITIONS = ("classic", "intrigue")


@dataclass(frozen=True)
class ClueConfig:
    """Every DEFAULT of RULES.md §5 is a field here."""

    num_players: int = 3
    suspects: tuple[str, ...] = CLASSIC_SUSPECTS
    weapons: tuple[str, ...] = CLASSIC_WEAPONS
    rooms: tuple[str, ...] = CLASSIC_ROOMS
    #: "equal_leftover" (seed: equal hands, face-down leftover pile), "equal_leftover_public"
    #: (leftover shown to all), or "all" (classic: every card dealt, the first seats get one more).
    deal_mode: str = "equal_leftover"
    #: the seed's looser wording: every player able to refute shows a card, not only the first.
    refute_all: bool = False
    #: board abstraction: suggest in any room ("any_room"), or move on the classic board ("board").
    board_mode: str = "any_room"
    #: board mode: how many six-sided dice are rolled for movement (the seed's example roll is 7).
    dice: int = 2
    #: in "any_room" mode, a player may not suggest in the room it suggested from last turn.
    no_repeat_room: bool = True
    #: the accuser may view the face-down leftover pile just before accusing (seed rule).
    accuser_views_extra: bool = True
    #: a wrong accuser privately sees the envelope, as in physical play.
    wrong_accuser_sees_envelope: bool = True
    #: Speed Clue: when one player is left uneliminated, it wins.
    last_player_wins: bool = False
    #: "classic", or "intrigue" (the 2008+ edition, on the board: see deduce.games.clue.intrigue).
    edition: str = "classic"
    #: intrigue edition: clock cards in the intrigue deck; whoever draws the last is eliminated,
    #: then they are reshuffled in and every clock drawn eliminates (seed: 8).
    clocks: int = 8
    #: intrigue edition: the bonus cards, (kind, count); kinds "any_room" (move to any room at
    #: the start of one's turn) and "decline" (decline to show a card once). Counts: our default.
    bonus_cards: tuple[tuple[str, int], ...] = (("any_room", 4), ("decline", 4))
    #: intrigue edition: how many of the dice show "?" in place of the 1 (a "?" draws a card).
    question_dice: int = 1
    #: intrigue edition: how many steps a rolled "?" counts for.
    question_face_steps: int = 1
    #: intrigue edition: accusations (and a look at the leftover pile) only from the pool.
    accuse_in_pool: bool = True
    #: intrigue edition: which bonus card a player drew is public (default: only its drawer sees).
    bonus_public: bool = False
    #: intrigue edition: after a player declines, the next player in order refutes instead.
    decline_passes_on: bool = True
    #: engine safeguard, not a rule: the game ends without a winner after this many turns.
    max_turns: int = 1000
    #: seat names, used in logs and as knowledge-base locations ("p0".. when empty).
    player_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 6:
            raise InvalidConfig("num_players", self.num_players, "Clue needs 3 to 6 players")
        if self.deal_mode not in DEAL_MODES:
            raise InvalidConfig("deal_mode", self.deal_mode, f"deal_mode must be one of {DEAL_MODES}")
        if self.board_mode not in BOARD_MODES:
            raise InvalidConfig("board_mode", self.board_mode, f"board_mode must be one of {BOARD_MODES}")
        if self.board_mode == "board":
            if sorted(self.rooms) != sorted(CLASSIC_BOARD.rooms):
                raise InvalidConfig("rooms", self.rooms, f"the board has the rooms {CLASSIC_BOARD.rooms}")
            if not self.num_players <= len(self.suspects) <= len(CLASSIC_BOARD.starts):
                raise InvalidConfig(
                    "suspects",
                    self.suspects,
                    f"board mode needs one suspect token per player ({self.num_players}) and at most "
                    f"{len(CLASSIC_BOARD.starts)} suspects",
                )
            if self.dice < 1:
                raise InvalidConfig("dice", self.dice, "dice must be at least 1")
        if self.edition not in EDITIONS:
            raise InvalidConfig("edition", self.edition, f"edition must be one of {EDITIONS}")
        if self.intrigue:
            if self.board_mode != "board":
                raise InvalidConfig(
                    "board_mode", self.board_mode, "the intrigue edition is played on the board: set board_mode='board'"
                )
            if self.clocks < 1:
                raise InvalidConfig("clocks", self.clocks, "clocks must be at least 1")
            for kind, count in self.bonus_cards:
                if kind not in BONUS_KINDS or count < 0:
                    raise InvalidConfig(
                        "bonus_cards",
                        self.bonus_cards,
                        f"({kind!r}, {count}) is not a known card kind {BONUS_KINDS} with a count >= 0",
                    )
            if not 0 <= self.question_dice <= self.dice:
                raise InvalidConfig("question_dice", self.question_dice, f"question_dice must be 0 to dice ({self.dice})")
            if self.question_face_steps < 0:
                raise InvalidConfig("question_face_steps", self.question_face_steps, "question_face_steps must be >= 0")
        for label, cards in (("suspects", self.suspects), ("weapons", self.weapons), ("rooms", self.rooms)):
            if len(cards) < 1:
                raise InvalidConfig(label, cards, f"a Clue deck needs at least one of {label}")
        if self.player_names and len(self.player_names) != self.num_players:
            raise InvalidConfig(
                "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
            )
        if self.max_turns < 1:
            raise InvalidConfig("max_turns", self.max_turns, "max_turns must be positive")
        dealt = len(self.suspects) + len(self.weapons) + len(self.rooms) - 3
        if dealt < self.num_players:
            raise InvalidConfig(
                "num_players", self.num_players, f"{dealt} cards cannot be dealt to {self.num_players} players"
            )

    @property
    def intrigue(self) -> bool:
        """Whether this is the intrigue edition."""
        return self.edition == "intrigue"

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    def deck(self) -> Deck:
        return Deck.from_categories({"suspect": self.suspects, "weapon": self.weapons, "room": self.rooms})

    def hand_sizes(self) -> tuple[int, ...]:
        dealt = len(self.suspects) + len(self.weapons) + len(self.rooms) - 3
        base, rest = divmod(dealt, self.num_players)
        if self.deal_mode == "all":
            return tuple(base + (1 if i < rest else 0) for i in range(self.num_players))
        return (base,) * self.num_players

    def extra_size(self) -> int:
        dealt = len(self.suspects) + len(self.weapons) + len(self.rooms) - 3
        return dealt - sum(self.hand_sizes())


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Suggest(Action):
    """Name one suspect, one weapon and one room (card ids, in that order)."""

    cards: tuple[int, int, int]


@dataclass(frozen=True)
class Show(Action):
    """Refute the pending suggestion by showing ``card`` to the suggester."""

    card: int


@dataclass(frozen=True)
class Accuse(Action):
    """Accuse: one suspect, one weapon, one room (card ids)."""

    cards: tuple[int, int, int]


@dataclass(frozen=True)
class ViewExtra(Action):
    """Look at the face-down leftover pile; an accusation must follow (seed rule)."""


@dataclass(frozen=True)
class EndTurn(Action):
    """End one's turn without accusing."""


@dataclass(frozen=True)
class Roll(Action):
    """Board mode: roll the dice to move (the roll is public)."""


@dataclass(frozen=True)
class Move(Action):
    """Board mode: move one's token to the place ``to`` (a :class:`~deduce.games.clue.board.Board`
    place: a room or a square) within the roll, or through a secret passage instead of rolling."""

    to: int


# -- events (what the log format also holds) --------------------------------------------------
@dataclass(frozen=True)
class ExtraRevealed(Event):
    """The leftover pile is shown to everyone (easy variant)."""

    cards: tuple[int, ...]
    kind: ClassVar[str] = "extra_revealed"


@dataclass(frozen=True)
class Suggestion(Event):
    """A resolved suggestion: who passed, who refuted, and (privately) which card was shown.

    ``shown[i]`` is the card ``refuters[i]`` showed, visible to the suggester and that refuter
    only (``None`` in other players' views).
    """

    by: int
    cards: tuple[int, ...]
    passed: tuple[int, ...]
    refuters: tuple[int, ...]
    shown: tuple[int | None, ...]
    #: intrigue edition: players who held a named card and declined to show it (public)
    declined: tuple[int, ...] = ()
    kind: ClassVar[str] = "suggestion"

    def view(self, player: int | None) -> Event | None:
        if player == self.by:
            return self
        shown = tuple(s if player == r else None for r, s in zip(self.refuters, self.shown, strict=True))
        return Suggestion(self.by, self.cards, self.passed, self.refuters, shown, self.declined)


@dataclass(frozen=True)
class ExtraSeen(Event):
    """``player`` looked at the leftover pile before accusing; others see only that it happened."""

    player: int
    cards: tuple[int, ...] | None
    kind: ClassVar[str] = "extra_seen"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else ExtraSeen(self.player, None)


@dataclass(frozen=True)
class Accusation(Event):
    """An accusation and whether it was right (public); the envelope is not revealed."""

    by: int
    cards: tuple[int, ...]
    correct: bool
    kind: ClassVar[str] = "accusation"


@dataclass(frozen=True)
class EnvelopeSeen(Event):
    """A wrong accuser privately sees the envelope."""

    player: int
    cards: tuple[int, ...]
    kind: ClassVar[str] = "envelope_seen"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else None


@dataclass(frozen=True)
class Rolled(Event):
    """``player`` rolled ``value`` (public)."""

    player: int
    value: int
    kind: ClassVar[str] = "rolled"


@dataclass(frozen=True)
class TokenMoved(Event):
    """Suspect token ``token`` went from place ``src`` to ``dst`` (public); ``cause`` is
    ``"move"``, ``"passage"`` or ``"suggestion"``."""

    token: int
    src: int
    dst: int
    cause: str
    kind: ClassVar[str] = "token_moved"


@dataclass(frozen=True)
class CardAt(Event):
    """A card seen in a place (log input: a glimpse, a house rule); ``loc`` is a location name."""

    card: int
    loc: str
    kind: ClassVar[str] = "card_at"


@dataclass(frozen=True)
class CardNotAt(Event):
    """A card known not to be in a place (log input)."""

    card: int
    loc: str
    kind: ClassVar[str] = "card_not_at"


@dataclass(frozen=True)
class ClueObservation(Observation):
    """One seat's view of a Clue game (``player=None``: a spectator who sees no hand)."""

    extra_size: int = 0
    eliminated: tuple[int, ...] = ()
    #: when this player must refute: (suggester, named cards); otherwise None.
    to_refute: tuple[int, tuple[int, ...]] | None = None
    #: the room this player may not suggest in this turn (no_repeat_room), if any.
    barred_room: int | None = None
    turn: int = 0
    #: board mode: the place of every suspect token (public), by suspect index.
    positions: tuple[int, ...] = ()
    #: board mode: the current turn's dice roll while it is being used (public).
    roll: int | None = None
    #: intrigue edition: this player's bonus cards (kinds), clocks beside the board, and how many
    #: bonus cards each seat holds (public).
    intrigue_hand: tuple[str, ...] = ()
    clocks_drawn: int = 0
    bonus_held: tuple[int, ...] = ()


# -- the game ---------------------------------------------------------------------------------
class ClueGame(Game[ClueConfig]):
    """Clue per RULES.md §5, without the board (default) or on the classic board."""

    name: ClassVar[str] = "clue"
    config_class: ClassVar[type] = ClueConfig
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 6

    def __init__(self, config: ClueConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        self.deck = config.deck()
        self.categories = tuple(
            tuple(c.id for c in self.deck.in_category(cat)) for cat in ("suspect", "weapon", "room")
        )
        #: board mode: the board, and the room card of each board room (and back).
        self.board: Board | None = None
        if config.board_mode == "board":
            self.board = INTRIGUE_BOARD if config.intrigue else CLASSIC_BOARD
        self.room_card: tuple[int, ...] = ()
        self.card_room: dict[int, int] = {}
        if self.board is not None:
            self.room_card = tuple(self.deck.card(name).id for name in self.board.rooms)
            self.card_room = {c: r for r, c in enumerate(self.room_card)}

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats by name, the envelope, and the leftover pile if any."""
        locs = self.config.names + (ENVELOPE,)
        return locs + ((EXTRA,) if self.config.extra_size() > 0 else ())

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> ClueState:
        return ClueState(self, np.random.default_rng(seed))

    # -- knowledge ---------------------------------------------------------------------------
    def base_knowledge(self, hand_sizes: Sequence[int] | None = None, extra_size: int | None = None) -> KnowledgeBase:
        """Constraints every player knows before play: one card per category in the envelope,
        hand sizes, and the size of the leftover pile."""
        hand_sizes = tuple(hand_sizes) if hand_sizes is not None else self.config.hand_sizes()
        extra_size = self.config.extra_size() if extra_size is None else extra_size
        locs = self.config.names + (ENVELOPE,) + ((EXTRA,) if extra_size > 0 else ())
        kb = KnowledgeBase(self.deck, locs)
        env = kb.loc(ENVELOPE)
        everything = range(len(self.deck))
        rules: list[Constraint] = [Count(cat, env, 1) for cat in self.categories]
        rules += [Count(everything, seat, size) for seat, size in enumerate(hand_sizes)]
        if extra_size > 0:
            rules.append(Count(everything, kb.loc(EXTRA), extra_size))
        kb.extend(rules, source="rules", check=False)
        return kb

    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The observing player's knowledge base. ``check`` is passed to ``KnowledgeBase.extend``
        for every event (``False``: trust the events, as for engine-made observations)."""
        observation = own_observation(observation, ClueObservation, "ClueGame.knowledge")
        kb = self.base_knowledge(observation.hand_sizes, observation.extra_size)
        for i, event in enumerate(observation.events):
            kb.extend(self.event_constraints(kb, event), source=f"event {i}", check=check)
        return kb

    def event_constraints(self, kb: KnowledgeBase, event: Event) -> list[Constraint]:
        """The constraints one (viewed) event adds."""
        env = kb.loc(ENVELOPE)
        if isinstance(event, Dealt):
            return [At(c, event.player) for c in event.cards]
        if isinstance(event, (ExtraRevealed, ExtraSeen)):
            if event.cards is None:
                return []
            return [At(c, kb.loc(EXTRA)) for c in event.cards]
        if isinstance(event, Suggestion):
            out: list[Constraint] = [NotAt(c, p) for p in event.passed for c in event.cards]
            out += [AtLeastOne(event.cards, p) for p in event.declined]
            for refuter, shown in zip(event.refuters, event.shown, strict=True):
                out.append(At(shown, refuter) if shown is not None else AtLeastOne(event.cards, refuter))
            return out
        if isinstance(event, Accusation):
            if event.correct:
                return [At(c, env) for c in event.cards]
            return [NotAll((c, env) for c in event.cards)]
        if isinstance(event, EnvelopeSeen):
            return [At(c, env) for c in event.cards]
        if isinstance(event, CardAt):
            return [At(event.card, kb.loc(event.loc))]
        if isinstance(event, CardNotAt):
            return [NotAt(event.card, kb.loc(event.loc))]
        return []

    def triples(self) -> Iterator[tuple[int, int, int]]:
        s, w, r = self.categories
        for a in s:
            for b in w:
                for c in r:
                    yield (a, b, c)


class ClueState(State):
    """The truth of one Clue game."""

    def __init__(self, game: ClueGame, rng: np.random.Generator | None = None, deal: Any = None) -> None:
        super().__init__(game)
        self.game: ClueGame = game
        cfg = game.config
        if deal is None:
            if rng is None:
                raise InvalidConfig("rng", rng, "a new Clue state needs a random generator or a deal")
            envelope = tuple(int(rng.choice(cat)) for cat in game.categories)
            rest = [c for c in range(len(game.deck)) if c not in envelope]
            rng.shuffle(rest)
            hands, pos = [], 0
            for size in cfg.hand_sizes():
                hands.append(rest[pos : pos + size])
                pos += size
            deal = (envelope, hands, rest[pos:])
        envelope, hands, extra = deal
        #: the generator for every draw after the deal (board mode: the dice)
        self.rng = rng if rng is not None else np.random.default_rng()
        self._rng_start = copy.deepcopy(self.rng) if game.board is not None else None
        self.envelope = tuple(int(c) for c in envelope)
        self.hands: list[tuple[int, ...]] = [tuple(sorted(int(c) for c in h)) for h in hands]
        self.extra = tuple(sorted(int(c) for c in extra))
        self._check_deal()
        self.turn_player = 0
        self.turns = 0
        self.phase = "start"  # start | refute | after | accuse
        self.eliminated: set[int] = set()
        self.winner: int | None = None
        self.finished = False
        self.last_room: dict[int, int] = {}
        self._pending: dict[str, Any] | None = None
        #: board mode: each suspect token's place, the roll being used, and the seats moved into a
        #: room by another's suggestion since their own last turn (they may suggest there).
        self.positions: list[int] = list(game.board.starts[: len(cfg.suspects)]) if game.board is not None else []
        self.roll: int | None = None
        self.dragged: set[int] = set()
        #: intrigue edition: the deck (shuffled at the first draw), each seat's bonus cards, the
        #: clocks beside the board, and whether the clocks have been reshuffled in
        self.intrigue_deck: list[str] | None = None
        self.bonus: list[list[str]] = [[] for _ in range(game.num_players)]
        self.clocks_out = 0
        self.clocks_reshuffled = False
        self._events = [Dealt(p, h) for p, h in enumerate(self.hands)]
        if self.extra and cfg.deal_mode == "equal_leftover_public":
            self._events.append(ExtraRevealed(self.extra))

    @classmethod
    def from_deal(
        cls,
        game: ClueGame,
        envelope: Sequence[int],
        hands: Sequence[Sequence[int]],
        extra: Sequence[int] = (),
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    ) -> ClueState:
        """A game starting from a given deal (card ids): for tests, replays and a real table.
        ``seed`` seeds the later draws (board mode: the dice)."""
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return cls(game, rng, deal=(envelope, hands, extra))

    def _check_deal(self) -> None:
        game = self.game
        cards = list(self.envelope) + [c for h in self.hands for c in h] + list(self.extra)
        problem = placement_problem(cards, len(game.deck))
        if problem:
            deal = (self.envelope, self.hands, self.extra)
            raise InvalidConfig("deal", deal, f"a deal must place every card exactly once: {problem}")
        if tuple(game.deck[c].category for c in self.envelope) != ("suspect", "weapon", "room"):
            raise InvalidConfig(
                "envelope", self.envelope, "the envelope holds one suspect, one weapon and one room, in that order"
            )
        sizes = tuple(len(h) for h in self.hands)
        if sizes != game.config.hand_sizes():
            raise InvalidConfig("hands", self.hands, f"hand sizes {sizes} do not follow the deal rule {game.config.hand_sizes()}")
        if len(self.extra) != game.config.extra_size():
            raise InvalidConfig(
                "extra", self.extra, f"the leftover pile holds {game.config.extra_size()} cards, not {len(self.extra)}"
            )

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.finished:
            return State.TERMINAL
        if self.phase == "refute":
            assert self._pending is not None
            return self._pending["refuter"]
        return self.turn_player

    def is_terminal(self) -> bool:
        return self.finished

    def returns(self) -> list[float]:
        return [1.0 if p == self.winner else 0.0 for p in range(self.game.num_players)]

    def winners(self) -> tuple[int, ...]:
        """The one seat that solved the case (or is left standing), or nobody: every accuser
        wrong, or the turn cap reached (returns all 0 then, which is no shared win)."""
        return () if self.winner is None else (self.winner,)

    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.finished or (player is not None and player != self.current_player):
            return []
        if self.phase == "refute":
            assert self._pending is not None
            refuter = self._pending["refuter"]
            shows: list[Action] = [Show(c) for c in self._pending["cards"] if c in self.hands[refuter]]
            return shows + ([Decline()] if DECLINE in self.bonus[refuter] else [])
        may_accuse = self.may_accuse()
        accusations: list[Action] = [Accuse(t) for t in self.game.triples()] if may_accuse else []
        if self.phase == "accuse":
            return accusations
        extra: list[Action] = []
        cfg = self.game.config
        if self.extra and cfg.accuser_views_extra and cfg.deal_mode == "equal_leftover" and may_accuse:
            extra = [ViewExtra()]
        if self.phase == "after":
            return [EndTurn()] + extra + accusations
        if self.game.board is not None:
            return self._board_actions() + extra + accusations
        barred = self._barred_room()
        suggestions: list[Action] = [Suggest(t) for t in self.game.triples() if t[2] != barred]
        return suggestions + extra + accusations

    def may_accuse(self) -> bool:
        """Whether the turn player may accuse now: always, except in the intrigue edition,
        where only from the pool (``accuse_in_pool``)."""
        cfg, board = self.game.config, self.game.board
        if not cfg.intrigue or not cfg.accuse_in_pool or board is None:
            return True
        return self.positions[self.turn_player] == board.pool

    # -- board mode ----------------------------------------------------------------------------
    def occupied(self) -> set[int]:
        """Board mode: the squares (not rooms or the pool) a token stands on."""
        board = self.game.board
        assert board is not None
        return {p for p in self.positions if p in board.cells}

    def _suggestions_in(self, room: int) -> list[Action]:
        s, w, _ = self.game.categories
        card = self.game.room_card[room]
        return [Suggest((a, b, card)) for a in s for b in w]

    def _board_actions(self) -> list[Action]:
        board = self.game.board
        assert board is not None
        here = self.positions[self.turn_player]
        if self.phase == "start":
            out: list[Action] = [Roll()]
            if here in board.passages:
                out.append(Move(board.passages[here]))
            if board.is_room(here) and self.turn_player in self.dragged:
                out += self._suggestions_in(here)
            if clue_intrigue.ANY_ROOM in self.bonus[self.turn_player]:
                out += [UseAnyRoom(r) for r in range(len(board.rooms)) if r != here]
            return out
        if self.phase == "move":
            assert self.roll is not None
            moves: list[Action] = [Move(p) for p in board.reachable(here, self.roll, self.occupied())]
            return moves or [EndTurn()]  # boxed in: the turn passes
        if self.phase == "suggest":
            return self._suggestions_in(here)
        return []

    def _explain_board(self, action: Action) -> str | None:
        board = self.game.board
        assert board is not None
        who = self.current_player
        here = board.label(self.positions[who])
        if isinstance(action, Roll):
            return f"{self.seat_name(who)} cannot roll now (phase {self.phase!r}): one roll per turn, at its start"
        if isinstance(action, Move):
            if not isinstance(action.to, int) or action.to not in board.neighbours:
                return f"{action!r}: {action.to!r} is not a place on the board"
            there = board.label(action.to)
            if self.phase == "start":
                return f"{self.seat_name(who)} must roll before moving from {here} to {there} (only a secret passage needs no roll)"
            if self.phase == "move":
                return f"{self.seat_name(who)} cannot reach {there} from {here} with a roll of {self.roll} (too far, blocked, occupied or the room it left)"
            return f"{self.seat_name(who)} has already moved this turn"
        if isinstance(action, Suggest) and self.phase in ("start", "move", "suggest"):
            if not board.is_room(self.positions[who]) or self.phase == "move":
                return f"{self.seat_name(who)} is at {here} and can suggest only in a room it has entered"
            if action.cards[2] != self.game.room_card[self.positions[who]]:
                return f"{self.seat_name(who)} is in the {here} and can suggest only there"
            if self.phase == "start":
                return (f"{self.seat_name(who)} has stayed in the {here} since its last turn and must leave before "
                        "suggesting there again (unless moved there by another's suggestion)")
        return None

    def _barred_room(self) -> int | None:
        if self.game.board is not None:
            return None
        if not self.game.config.no_repeat_room:
            return None
        room = self.last_room.get(self.turn_player)
        if room is None or len(self.game.categories[2]) == 1:
            return None
        return room

    def explain_illegal(self, action: Action) -> str:
        who = self.current_player
        if self.phase == "refute":
            if isinstance(action, Decline):
                return f"{self.seat_name(who)} holds no decline card"
            return f"{self.seat_name(who)} must show one of the named cards it holds, not {action!r}"
        if isinstance(action, Accuse | ViewExtra) and not self.may_accuse():
            return f"{self.seat_name(who)} must be in the pool to accuse (intrigue edition)"
        if isinstance(action, UseAnyRoom):
            if clue_intrigue.ANY_ROOM not in self.bonus[who]:
                return f"{self.seat_name(who)} holds no move-to-any-room card"
            return f"{self.seat_name(who)} may move to another room by card only at the start of its turn"
        if isinstance(action, Decline):
            return f"{self.seat_name(who)} may decline only when asked to show a card"
        if self.game.board is not None and self.phase != "accuse":
            reason = self._explain_board(action)
            if reason is not None:
                return reason
        if isinstance(action, Suggest) and self.phase == "after":
            return f"{self.seat_name(who)} has already suggested this turn"
        if isinstance(action, Suggest) and action.cards[2] == self._barred_room():
            return f"{self.seat_name(who)} suggested in {self.game.deck[action.cards[2]].name} last turn and must move on"
        if isinstance(action, Suggest | Accuse):
            return f"{action!r}: name one suspect, one weapon and one room by card id"
        if self.phase == "accuse":
            return f"{self.seat_name(who)} looked at the leftover pile and must accuse now"
        return f"{action!r} is not legal for {self.seat_name(who)} in phase {self.phase!r}"

    def observation(self, player: int | None) -> ClueObservation:
        cfg = self.game.config
        acting = player is not None and player == self.current_player
        to_refute = None
        if self.phase == "refute" and acting and self._pending is not None:
            to_refute = (self._pending["by"], tuple(self._pending["cards"]))
        return ClueObservation(
            game=self.game.name,
            player=player,
            num_players=self.game.num_players,
            events=self.views(player),
            current_player=self.current_player,
            legal_actions=tuple(self.legal_actions()) if acting else (),
            terminal=self.finished,
            names=cfg.names,
            hand=self.hands[player] if player is not None else (),
            hand_sizes=cfg.hand_sizes(),
            extra_size=cfg.extra_size(),
            eliminated=tuple(sorted(self.eliminated)),
            to_refute=to_refute,
            barred_room=self._barred_room() if acting and self.phase == "start" else None,
            turn=self.turns,
            positions=tuple(self.positions),
            roll=self.roll,
            intrigue_hand=tuple(self.bonus[player]) if cfg.intrigue and player is not None else (),
            clocks_drawn=self.clocks_out,
            bonus_held=tuple(len(b) for b in self.bonus) if cfg.intrigue else (),
        )

    def redraw_intrigue(self, kinds: dict[int, str], bonus: Sequence[Sequence[str]],
                        deck: Sequence[str] | None) -> ClueState:
        """Intrigue edition: a copy of this state with its intrigue cards redrawn, how a search
        redraws what a seat did not see: the bonus card drawn at each index of :attr:`events`
        in ``kinds`` (an ``IntrigueDrawn`` of a bonus card) becomes that kind, each seat holds
        ``bonus``, and ``deck`` is the intrigue deck left (top first; None: not shuffled yet)."""
        if not self.game.config.intrigue:
            raise IllegalAction("only the intrigue edition has intrigue cards to redraw")
        if len(bonus) != self.game.num_players or (deck is None) != (self.intrigue_deck is None):
            raise IllegalAction("a redraw gives every seat's bonus cards, and a deck if one is shuffled")
        for i, kind in kinds.items():
            event = self._events[i] if 0 <= i < len(self._events) else None
            if not isinstance(event, clue_intrigue.IntrigueDrawn) or event.card == clue_intrigue.CLOCK:
                raise IllegalAction(f"event {i} is not a bonus card drawn")
            if kind not in BONUS_KINDS:
                raise IllegalAction(f"{kind!r} is not a bonus card; they are {', '.join(BONUS_KINDS)}")
        other = self.clone()
        for i, kind in kinds.items():
            e = other._events[i]
            other._events[i] = clue_intrigue.IntrigueDrawn(e.player, kind, e.cause, e.clocks, e.public)
        other.bonus = [list(b) for b in bonus]
        other.intrigue_deck = None if deck is None else list(deck)
        return other

    def clone(self) -> ClueState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.hands = list(self.hands)
        other.eliminated = set(self.eliminated)
        other.last_room = dict(self.last_room)
        other._pending = copy.deepcopy(self._pending)
        other.rng = copy.deepcopy(self.rng)
        other.positions = list(self.positions)
        other.dragged = set(self.dragged)
        other.intrigue_deck = None if self.intrigue_deck is None else list(self.intrigue_deck)
        other.bonus = [list(b) for b in self.bonus]
        return other

    # -- transitions -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[Event]:
        if isinstance(action, Suggest):
            return self._suggest(action.cards)
        if isinstance(action, Show):
            return self._show(action.card)
        if isinstance(action, ViewExtra):
            self.phase = "accuse"
            return [ExtraSeen(self.turn_player, self.extra)]
        if isinstance(action, Accuse):
            return self._accuse(action.cards)
        if isinstance(action, EndTurn):
            self._next_turn()
            return []
        if isinstance(action, Roll):
            return self._roll()
        if isinstance(action, Move):
            return self._move(action.to)
        if isinstance(action, UseAnyRoom):
            return self._use_any_room(action.to)
        if isinstance(action, Decline):
            return self._decline()
        raise IllegalAction(f"unknown action {action!r}")  # unreachable: apply checks legality

    def _roll(self) -> list[Event]:
        cfg = self.game.config
        faces = self.rng.integers(1, 7, size=cfg.dice)
        questions = int((faces[: cfg.question_dice] == 1).sum()) if cfg.intrigue else 0
        self.roll = int(faces.sum()) + questions * (cfg.question_face_steps - 1)
        self.phase = "move"
        events: list[Event] = [Rolled(self.turn_player, self.roll)]
        for _ in range(questions):
            events += self._draw("die")
            if self.phase != "move":
                break
        return events

    def _draw(self, cause: str) -> list[Event]:
        """Intrigue edition: the turn player draws a card; a clock that eliminates it ends the turn."""
        p = self.turn_player
        events = clue_intrigue.draw(self, p, cause)
        if p in self.eliminated:
            self.phase = "after"
            self._after_elimination()
        return events

    def _move(self, to: int) -> list[Event]:
        board = self.game.board
        assert board is not None
        p = self.turn_player
        src = self.positions[p]
        cause = "passage" if self.phase == "start" else "move"
        self.positions[p] = to
        self.roll = None
        self.phase = "suggest" if board.is_room(to) else "after"
        events: list[Event] = [TokenMoved(p, src, to, cause)]
        if to in board.question_squares:
            events += self._draw("square")
        return events

    def _use_any_room(self, to: int) -> list[Event]:
        p = self.turn_player
        self.bonus[p].remove(clue_intrigue.ANY_ROOM)
        src = self.positions[p]
        self.positions[p] = to
        self.roll = None
        self.phase = "suggest"
        return [TokenMoved(p, src, to, "intrigue")]

    def _decline(self) -> list[Event]:
        p = self._pending
        assert p is not None
        self.bonus[p["refuter"]].remove(DECLINE)
        p["declined"].append(p["refuter"])
        p["pos"] += 1
        if not self.game.config.decline_passes_on:
            p["pos"] = len(p["order"])
        return self._advance_refutation()

    def _suggest(self, cards: tuple[int, int, int]) -> list[Event]:
        n = self.game.num_players
        by = self.turn_player
        self.last_room[by] = cards[2]
        events: list[Event] = []
        if self.game.board is not None:
            token = self.game.categories[0].index(cards[0])
            room = self.game.card_room[cards[2]]
            if self.positions[token] != room:
                events.append(TokenMoved(token, self.positions[token], room, "suggestion"))
                self.positions[token] = room
                if token != by and token < n:
                    self.dragged.add(token)
        order = refute_order(by, n)
        self._pending = {"by": by, "cards": cards, "order": order, "pos": 0,
                         "passed": [], "refuters": [], "shown": [], "declined": []}
        return events + self._advance_refutation()

    def _advance_refutation(self) -> list[Event]:
        p = self._pending
        assert p is not None
        while p["pos"] < len(p["order"]):
            player = p["order"][p["pos"]]
            matches = [c for c in p["cards"] if c in self.hands[player]]
            if not matches:
                p["passed"].append(player)
                p["pos"] += 1
                continue
            p["refuter"] = player
            if len(matches) == 1 and DECLINE not in self.bonus[player]:  # forced: no decision to ask for
                p["refuters"].append(player)
                p["shown"].append(matches[0])
                p["pos"] += 1
                if not self.game.config.refute_all:
                    break
                continue
            self.phase = "refute"
            return []
        return self._finish_suggestion()

    def _show(self, card: int) -> list[Event]:
        p = self._pending
        assert p is not None
        p["refuters"].append(p["refuter"])
        p["shown"].append(card)
        p["pos"] += 1
        if not self.game.config.refute_all:
            p["pos"] = len(p["order"])
        return self._advance_refutation()

    def _finish_suggestion(self) -> list[Event]:
        p = self._pending
        assert p is not None
        self._pending = None
        self.phase = "after"
        return [Suggestion(p["by"], tuple(p["cards"]), tuple(p["passed"]), tuple(p["refuters"]), tuple(p["shown"]),
                           tuple(p["declined"]))]

    def _accuse(self, cards: tuple[int, int, int]) -> list[Event]:
        by = self.turn_player
        correct = tuple(cards) == self.envelope
        events: list[Event] = [Accusation(by, tuple(cards), correct)]
        if correct:
            self.winner = by
            self.finished = True
            return events
        self.eliminated.add(by)
        if self.game.config.wrong_accuser_sees_envelope:
            events.append(EnvelopeSeen(by, self.envelope))
        self._after_elimination()
        return events

    def _after_elimination(self) -> None:
        """The turn player is out: the game ends if nobody (or, in Speed Clue, one) is left;
        otherwise the next player's turn begins."""
        remaining = [q for q in range(self.game.num_players) if q not in self.eliminated]
        if not remaining:
            self.finished = True
        elif len(remaining) == 1 and self.game.config.last_player_wins:
            self.winner = remaining[0]
            self.finished = True
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.dragged.discard(self.turn_player)
        self.roll = None
        self.phase = "start"
        self.turns += 1
        if self.turns >= self.game.config.max_turns:
            self.finished = True
            return
        n = self.game.num_players
        for k in range(1, n + 1):
            q = (self.turn_player + k) % n
            if q not in self.eliminated:
                self.turn_player = q
                return
        self.finished = True

    def hidden_variant(self, player: int, actions: Sequence[Action], rng: np.random.Generator) -> ClueState | None:
        """Swap two cards held by two other players (or one and the envelope) that no suggestion
        or accusation ever named, then replay ``actions``: nothing ``player`` saw may change."""
        named: set[int] = set()
        for e in self._events:
            if isinstance(e, Suggestion | Accusation):
                named |= set(e.cards)
        if self._pending is not None:
            named |= set(self._pending["cards"])
        seen_envelope = any(isinstance(e, EnvelopeSeen) and e.player == player for e in self._events)
        others = [q for q in range(self.game.num_players) if q != player]
        places: list[tuple[str, int, int]] = [("hand", q, c) for q in others for c in self.hands[q] if c not in named]
        if not seen_envelope and not self.finished:
            places += [("envelope", -1, c) for c in self.envelope if c not in named]
        order = rng.permutation(len(places)) if places else []
        for i in order:
            for j in order:
                a, b = places[i], places[j]
                if a[1] == b[1] or a[0] == b[0] == "envelope":
                    continue
                if "envelope" in (a[0], b[0]) and self.game.deck[a[2]].category != self.game.deck[b[2]].category:
                    continue
                return self._replay_with_swap(a, b, actions)
        return None

    def _replay_with_swap(self, a: tuple[str, int, int], b: tuple[str, int, int], actions: Sequence[Action]) -> ClueState:
        swap = {a[2]: b[2], b[2]: a[2]}
        envelope = [swap.get(c, c) for c in self.envelope]
        hands = [[swap.get(c, c) for c in h] for h in self.hands]
        other = ClueState.from_deal(self.game, envelope, hands, self.extra)
        if self._rng_start is not None:  # the same dice
            other.rng = copy.deepcopy(self._rng_start)
            other._rng_start = copy.deepcopy(self._rng_start)
        for action in actions:
            other.apply(action)
        return other

    # -- logs --------------------------------------------------------------------------------
    def world(self) -> np.ndarray:
        """The true location of every card as a knowledge-base world (seat, envelope, extra)."""
        n = self.game.num_players
        w = np.empty(len(self.game.deck), dtype=np.int64)
        for p, hand in enumerate(self.hands):
            w[list(hand)] = p
        w[list(self.envelope)] = n
        if self.extra:
            w[list(self.extra)] = n + 1
        return w


def refute_order(asker: int, num_players: int) -> list[int]:
    """The seats asked to refute ``asker``'s suggestion, in turn (RULES.md §5C: to the left,
    round the table, never the asker itself)."""
    return [(asker + k) % num_players for k in range(1, num_players)]


def shown_to(obs: ClueObservation, asker: int) -> dict[int, set[int]]:
    """Per player, the cards it has shown ``asker`` in ``obs`` (RULES.md §5C: a refuter shows
    again first a card it has already shown that asker)."""
    out: dict[int, set[int]] = {}
    for e in obs.events:
        if isinstance(e, Suggestion) and e.by == asker:
            for r, s in zip(e.refuters, e.shown, strict=True):
                if s is not None:
                    out.setdefault(r, set()).add(s)
    return out
