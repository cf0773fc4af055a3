"""Checkpoint Charlie (RULES.md §3; the Korean seed text wins where the digest disagrees).

32 cats (every combination of five two-sided features), 3-5 investigators, one private clue
token each whose up side the owner chooses. Each turn the active investigator flips the top
card: a cat matching the flipper's own clue is kept face up in front of them, any other cat is
discarded; with 3-4 players the unused hound cards sit in the upper half of the deck and
flipping one coin-tosses a spare clue token publicly. "Arrest at any time" is simulated by
polling every investigator without an arrest after every flip, clockwise from the active one,
until a full pass with no arrest. The round ends when one investigator has not arrested; then
every clue is revealed, bag tokens are coin-tossed, and score tokens are drawn (gold for the
chief, white for a minion, black for an innocent or the slowest investigator, who gets white
instead if the chief was still in the deck). The game ends at ``target_score`` points, when a
colour of score tokens runs out, or after ``max_rounds`` rounds.

Flips, verification and scoring are automatic; agents decide only the side of their clue token
(:class:`ChooseSide`) and, when polled, :class:`Arrest` or :class:`Pass`.

Knowledge bases are per round, in the shared card-location vocabulary: the *cards* are the ten
clue-token faces (feature, side), the *locations* are the investigators, ``bag`` (tokens nobody
drew), ``revealed`` (tokens coin-tossed publicly after a hound) and ``down`` (the face of each
token that is not up). The chief is the set of faces that are not ``down``.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Card, Deck
from deduce.constraints import At, AtLeastOne, Constraint, Count, NotAt
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import (
    Action,
    Event,
    Game,
    Observation,
    State,
    own_observation,
    placement_problem,
)
from deduce.knowledge import KnowledgeBase

__all__ = [
    "CheckpointCharlieConfig",
    "CheckpointCharlieGame",
    "CheckpointCharlieState",
    "CheckpointCharlieObservation",
    "RoundDeal",
    "Colour",
    "ChooseSide",
    "Arrest",
    "Pass",
    "RoundStarted",
    "ClueDrawn",
    "SideChosen",
    "CatFlipped",
    "HoundFlipped",
    "Arrested",
    "Verified",
    "Scored",
    "GameEnded",
    "FEATURES",
    "SIDE_NAMES",
    "NUM_FEATURES",
    "NUM_CATS",
    "HOUND",
    "BAG",
    "REVEALED",
    "DOWN",
    "cat_sides",
    "cat_name",
    "matches",
    "face",
    "face_sides",
    "chief_from_sides",
    "chief_from_down",
]

FEATURES: tuple[str, ...] = ("ears", "eyes", "fur", "clothes", "hands")
#: the two faces of each clue token, side 0 first (the seed's order: bare ears / hat, ...).
SIDE_NAMES: tuple[tuple[str, str], ...] = (
    ("bare ears", "hat"),
    ("bare eyes", "glasses"),
    ("grey", "orange"),
    ("sweater", "coat"),
    ("newspaper", "empty-handed"),
)
NUM_FEATURES = len(FEATURES)
NUM_CATS = 2**NUM_FEATURES
#: a hound (unused investigator) card in the deck.
HOUND = -1
BAG = "bag"
REVEALED = "revealed"
DOWN = "down"
HOUND_PLACEMENTS = ("upper_half", "anywhere")
SHORT_COLOURS = ("lottery", "seat_order", "none")
DISCARD_MEMORIES = ("perfect", "none")


def cat_sides(cat: int) -> tuple[int, ...]:
    """The side of each feature a cat shows (cat ``c`` has side ``(c >> f) & 1`` of feature f)."""
    return tuple((cat >> f) & 1 for f in range(NUM_FEATURES))


def cat_name(cat: int) -> str:
    """A readable name: the five faces the cat shows."""
    return ", ".join(SIDE_NAMES[f][s] for f, s in enumerate(cat_sides(cat)))


def matches(cat: int, feature: int, side: int) -> bool:
    """Whether ``cat`` fits the clue (feature, side)."""
    return (cat >> feature) & 1 == side


def face(feature: int, side: int) -> int:
    """Knowledge-base card id of one clue-token face."""
    return 2 * feature + side


def face_sides(cat: int) -> tuple[int, ...]:
    """The five faces a cat shows, as knowledge-base card ids (its clue 'signature')."""
    return tuple(face(f, s) for f, s in enumerate(cat_sides(cat)))


def chief_from_sides(sides: Sequence[int]) -> int:
    """The cat matching every up side (``sides[f]`` is the up side of feature f)."""
    return sum(int(s) << f for f, s in enumerate(sides))


def chief_from_down(down_faces: Sequence[int]) -> int:
    """The chief given the knowledge-base faces at ``down`` (one per feature)."""
    sides = [0] * NUM_FEATURES
    for c in down_faces:
        sides[c // 2] = 1 - c % 2
    return chief_from_sides(sides)


class Colour(StrEnum):
    """Score-token colours (colour public, value private until the game ends)."""

    GOLD = "gold"
    WHITE = "white"
    BLACK = "black"


@dataclass(frozen=True)
class CheckpointCharlieConfig:
    """Every DEFAULT of RULES.md §3 is a field here."""

    num_players: int = 4
    #: seat names, also knowledge-base locations ("p0".. when empty).
    player_names: tuple[str, ...] = ()
    #: the seed's "whoever woke earliest" starts round 1.
    first_player: int = 0
    #: score-token pools (RULES.md §3C invented split of the 25 base tokens; values are private).
    gold_values: tuple[int, ...] = (3, 3, 4, 4, 5)
    white_values: tuple[int, ...] = (1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2)
    black_values: tuple[int, ...] = (-2, -2, -1, -1, -1, 0, 0, 0)
    #: end condition 1: an investigator's true total (hidden values included) reaches this.
    target_score: int = 10
    #: end condition 3: the game ends after this round.
    max_rounds: int = 5
    #: 3-4 players: unused hound cards go into the upper half of the cats ([S9]) or anywhere
    #: in the deck (the seed's plainer wording).
    hound_placement: str = "upper_half"
    #: "perfect": everyone remembers each discarded cat (it was flipped face up); "none": a
    #: discarded cat's identity is forgotten by everyone (only the pile size stays known).
    discard_memory: str = "perfect"
    #: an investigator may arrest a cat from its own kept row.
    arrest_own_row: bool = True
    #: the slowest investigator gets white instead of black when the chief is still in the deck.
    unrevealed_chief_white: bool = True
    #: a colour with fewer tokens left than the investigators owed it this round (the game ends
    #: then: a colour ran out). The seed scores everyone at once, each taking "a random token of
    #: the right colour", so no seat comes first. DEFAULT: "lottery", the tokens left go to owed
    #: investigators drawn at random (the game's seeded generator), the others get none;
    #: "none": nobody owed the short colour gets one (equal treatment, tokens left unused);
    #: "seat_order": clockwise from the round's starter (the scoring order, as before).
    short_colour: str = "lottery"
    #: variants the sources do not specify; disabled (not implemented).
    stasi_variant: bool = False
    cafe_adler_variant: bool = False

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 5:
            raise InvalidConfig("num_players", self.num_players, "Checkpoint Charlie needs 3 to 5 players")
        if self.player_names:
            if len(self.player_names) != self.num_players:
                raise InvalidConfig(
                    "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
                )
            taken = {BAG, REVEALED, DOWN}
            if len(set(self.player_names)) != len(self.player_names) or taken & set(self.player_names):
                raise InvalidConfig("player_names", self.player_names, f"player_names must be distinct and not {sorted(taken)}")
        if not 0 <= self.first_player < self.num_players:
            raise InvalidConfig("first_player", self.first_player, f"first_player must be a seat 0..{self.num_players - 1}")
        for label, values in (
            ("gold_values", self.gold_values),
            ("white_values", self.white_values),
            ("black_values", self.black_values),
        ):
            if not values:
                raise InvalidConfig(label, values, f"{label} must hold at least one token")
        if self.max_rounds < 1:
            raise InvalidConfig("max_rounds", self.max_rounds, "max_rounds must be positive")
        if self.hound_placement not in HOUND_PLACEMENTS:
            raise InvalidConfig("hound_placement", self.hound_placement, f"hound_placement must be one of {HOUND_PLACEMENTS}")
        if self.short_colour not in SHORT_COLOURS:
            raise InvalidConfig("short_colour", self.short_colour, f"short_colour must be one of {SHORT_COLOURS}")
        if self.discard_memory not in DISCARD_MEMORIES:
            raise InvalidConfig("discard_memory", self.discard_memory, f"discard_memory must be one of {DISCARD_MEMORIES}")
        for label, on in (("stasi_variant", self.stasi_variant), ("cafe_adler_variant", self.cafe_adler_variant)):
            if on:
                raise InvalidConfig(label, on, "the Stasi and Café Adler variants are not specified by the sources")

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    def pool(self, colour: Colour) -> tuple[int, ...]:
        """The configured values of one colour's tokens."""
        return {Colour.GOLD: self.gold_values, Colour.WHITE: self.white_values,
                Colour.BLACK: self.black_values}[colour]


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChooseSide(Action):
    """Put the drawn clue token under one's hound card with ``side`` (0 or 1) up."""

    side: int


@dataclass(frozen=True)
class Arrest(Action):
    """Put one's badge on a face-up, unarrested cat (a cat id 0..31)."""

    cat: int


@dataclass(frozen=True)
class Pass(Action):
    """Do not arrest now (the poll moves on)."""


# -- events -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundStarted(Event):
    """A new round: who starts, the deck size and how many hound cards it holds (public)."""

    round: int
    starter: int
    deck_size: int
    hounds: int
    kind: ClassVar[str] = "round_started"


@dataclass(frozen=True)
class ClueDrawn(Event):
    """``player`` drew a clue token: everyone sees the draw, only the player its feature."""

    player: int
    feature: int | None
    kind: ClassVar[str] = "clue_drawn"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else ClueDrawn(self.player, None)


@dataclass(frozen=True)
class SideChosen(Event):
    """``player`` hid its token; only the player knows which side is up."""

    player: int
    feature: int | None
    side: int | None
    kind: ClassVar[str] = "side_chosen"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else SideChosen(self.player, None, None)


@dataclass(frozen=True)
class CatFlipped(Event):
    """``player`` flipped ``cat`` and kept it (it fits the player's clue) or discarded it.

    Public; with ``discard_memory="none"`` (``forgotten``) a discarded cat's identity is hidden.
    """

    player: int
    cat: int | None
    kept: bool
    forgotten: bool = False
    kind: ClassVar[str] = "cat_flipped"

    def view(self, player: int | None) -> Event | None:
        if self.forgotten and not self.kept:
            return CatFlipped(self.player, None, False, True)
        return self


@dataclass(frozen=True)
class HoundFlipped(Event):
    """``player`` flipped a hound: a bag token was coin-tossed to ``(feature, side)`` (public)."""

    player: int
    feature: int
    side: int
    kind: ClassVar[str] = "hound_flipped"


@dataclass(frozen=True)
class Arrested(Event):
    """``player`` arrested ``cat`` from ``row``'s kept cards (public)."""

    player: int
    cat: int
    row: int
    kind: ClassVar[str] = "arrested"


@dataclass(frozen=True)
class Verified(Event):
    """Round end: every clue ``(feature, side)`` per seat, the bag tokens (coin-tossed), the chief."""

    round: int
    clues: tuple[tuple[int, int], ...]
    bag: tuple[tuple[int, int], ...]
    chief: int
    #: the first ``revealed`` bag tokens were tossed after hounds; the rest at verification.
    revealed: int = 0
    kind: ClassVar[str] = "verified"


@dataclass(frozen=True)
class Scored(Event):
    """``player`` drew a ``colour`` token: colour public, ``value`` private to the player.

    ``received`` is False when that colour had run out (no token, no points).
    """

    round: int
    player: int
    colour: Colour
    value: int | None
    received: bool = True
    kind: ClassVar[str] = "scored"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else replace(self, value=None)


@dataclass(frozen=True)
class GameEnded(Event):
    """The game is over: why, every seat's token values, totals, gold counts and winners."""

    reasons: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    golds: tuple[int, ...]
    winners: tuple[int, ...]
    kind: ClassVar[str] = "game_ended"


# -- observation ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckpointCharlieObservation(Observation):
    """One seat's view, folded from the events it saw (``player=None``: a spectator).

    Everything describes the current round except the score fields.
    """

    round: int = 0
    starter: int = 0
    #: "choose" (sides being chosen), "poll" (arrests), or "over".
    phase: str = "choose"
    #: this player's clue token this round: feature (once drawn) and side (once chosen).
    my_feature: int | None = None
    my_side: int | None = None
    kept: tuple[tuple[int, ...], ...] = ()
    #: discarded cats per seat (``None``: forgotten identity).
    discarded: tuple[tuple[int | None, ...], ...] = ()
    arrests: tuple[int | None, ...] = ()
    #: clue tokens coin-tossed publicly after a hound: (feature, side).
    revealed: tuple[tuple[int, int], ...] = ()
    deck_size: int = 0
    hounds_left: int = 0
    #: cats not seen flipped this round (exactly the deck's cats under perfect discard memory).
    unseen_cats: tuple[int, ...] = ()
    #: this player's score tokens (colour, value) over the whole game.
    my_tokens: tuple[tuple[Colour, int], ...] = ()
    #: every seat's token colours (public).
    colours: tuple[tuple[Colour, ...], ...] = ()
    #: tokens left per colour (public).
    pool_left: tuple[tuple[Colour, int], ...] = ()
    #: revealed at the end of the game.
    final_totals: tuple[int, ...] | None = None


# -- the deal of one round --------------------------------------------------------------------
@dataclass(frozen=True)
class RoundDeal:
    """Everything random in one round: the feature of each seat's token, the bag tokens in the
    order hounds draw them, their coin tosses, and the deck from the top (``HOUND`` = hound)."""

    features: tuple[int, ...]
    bag: tuple[int, ...]
    coins: tuple[int, ...]
    deck: tuple[int, ...]

    def validate(self, num_players: int) -> None:
        """Raise :class:`~deduce.errors.InvalidConfig` naming the first field that breaks the rules."""
        problem = placement_problem(self.features + self.bag, NUM_FEATURES, "clue token")
        if problem:
            raise InvalidConfig(
                "features", self.features, f"a deal must use every clue token exactly once (with bag {self.bag}): {problem}"
            )
        if len(self.features) != num_players:
            raise InvalidConfig("features", self.features, f"a deal needs one token per seat ({num_players})")
        if len(self.coins) != len(self.bag):
            raise InvalidConfig("coins", self.coins, f"a deal needs one coin per bag token ({len(self.bag)})")
        if any(c not in (0, 1) for c in self.coins):
            raise InvalidConfig("coins", self.coins, "coin tosses are 0 or 1")
        problem = placement_problem([c for c in self.deck if c != HOUND], NUM_CATS, "cat")
        if problem or self.deck.count(HOUND) != NUM_FEATURES - num_players:
            raise InvalidConfig(
                "deck",
                self.deck,
                f"the deck must hold every cat once and one hound per unused seat ({NUM_FEATURES - num_players})"
                + (f": {problem}" if problem else ""),
            )


# -- the game ---------------------------------------------------------------------------------
class CheckpointCharlieGame(Game[CheckpointCharlieConfig]):
    """Checkpoint Charlie per RULES.md §3."""

    name: ClassVar[str] = "checkpoint-charlie"
    config_class: ClassVar[type] = CheckpointCharlieConfig
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 5

    def __init__(self, config: CheckpointCharlieConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        cards = []
        for f in range(NUM_FEATURES):
            for s in range(2):
                cards.append(Card(face(f, s), SIDE_NAMES[f][s], "clue", (("feature", f), ("side", s))))
        #: knowledge-base cards: the ten clue-token faces.
        self.deck = Deck(tuple(cards))

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats by name, the bag, the revealed tokens, ``down``."""
        return self.config.names + (BAG, REVEALED, DOWN)

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> CheckpointCharlieState:
        return CheckpointCharlieState(self, np.random.default_rng(seed))

    def deal_round(self, rng: np.random.Generator) -> RoundDeal:
        """Draw one round's tokens, coins and deck from ``rng``."""
        n = self.num_players
        order = [int(f) for f in rng.permutation(NUM_FEATURES)]
        coins = tuple(int(c) for c in rng.integers(0, 2, size=NUM_FEATURES - n))
        cats = [int(c) for c in rng.permutation(NUM_CATS)]
        hounds = [HOUND] * (NUM_FEATURES - n)
        if not hounds:
            deck = cats
        elif self.config.hound_placement == "upper_half":
            top = cats[: NUM_CATS // 2] + hounds
            top = [top[i] for i in rng.permutation(len(top))]
            deck = top + cats[NUM_CATS // 2 :]
        else:
            every = cats + hounds
            deck = [every[i] for i in rng.permutation(len(every))]
        return RoundDeal(tuple(order[:n]), tuple(order[n:]), coins, tuple(deck))

    # -- knowledge ---------------------------------------------------------------------------
    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The observing player's knowledge base for the current round.

        Cards are the ten token faces; each seat holds one face up, ``bag`` holds the tokens
        nobody drew and nobody revealed, ``revealed`` the publicly tossed ones, and ``down``
        one face of every token. A kept cat says the flipper's up face is one of the cat's five
        faces (``AtLeastOne``); a discarded cat says it is none of them (``NotAt``). Arrests
        carry no hard information and add nothing. With ``check=False`` (trusted observations)
        the round's constraints are added in one batch; otherwise event by event, each with
        ``check`` passed to ``extend`` and its event named as the source.
        """
        observation = own_observation(observation, CheckpointCharlieObservation, "CheckpointCharlieGame.knowledge")
        kb = KnowledgeBase(self.deck, self.locations)
        everything = range(len(self.deck))
        n = observation.num_players
        revealed = len(observation.revealed)
        down = kb.loc(DOWN)
        rules: list[Constraint] = [Count(everything, p, 1) for p in range(n)]
        rules.append(Count(everything, kb.loc(BAG), NUM_FEATURES - n - revealed))
        rules.append(Count(everything, kb.loc(REVEALED), revealed))
        rules += [Count((face(f, 0), face(f, 1)), down, 1) for f in range(NUM_FEATURES)]
        kb.extend(rules, source="rules", check=False)
        events = self.round_events(observation.events)
        if check is False:
            # trusted (engine-made) observations: one transactional batch, one propagation
            batch = [c for event in events for c in self.event_constraints(kb, event)]
            kb.extend(batch, source="round events", check=False)
            return kb
        for i, event in enumerate(events):
            new = self.event_constraints(kb, event)
            if new:
                kb.extend(new, source=f"event {i}", check=check)
        return kb

    def covered_events(self, events: Sequence[Event]) -> tuple[Event, ...]:
        """Knowledge restarts with each round (new clues, new cats): it covers the latest round."""
        return self.round_events(events)

    @staticmethod
    def round_events(events: Sequence[Event]) -> tuple[Event, ...]:
        """The events of the latest round (from its ``RoundStarted`` on)."""
        start = 0
        for i, e in enumerate(events):
            if isinstance(e, RoundStarted):
                start = i
        return tuple(events[start:])

    def event_constraints(self, kb: KnowledgeBase, event: Event) -> list[Constraint]:
        """The constraints one (viewed) event of the current round adds."""
        down = kb.loc(DOWN)
        if isinstance(event, ClueDrawn) and event.feature is not None:
            return [AtLeastOne((face(event.feature, 0), face(event.feature, 1)), event.player)]
        if isinstance(event, SideChosen) and event.feature is not None and event.side is not None:
            return [At(face(event.feature, event.side), event.player),
                    At(face(event.feature, 1 - event.side), down)]
        if isinstance(event, CatFlipped) and event.cat is not None:
            faces = face_sides(event.cat)
            if event.kept:
                return [AtLeastOne(faces, event.player)]
            return [NotAt(c, event.player) for c in faces]
        if isinstance(event, HoundFlipped):
            return [At(face(event.feature, event.side), kb.loc(REVEALED)),
                    At(face(event.feature, 1 - event.side), down)]
        if isinstance(event, Verified):
            out: list[Constraint] = []
            for p, (f, s) in enumerate(event.clues):
                out += [At(face(f, s), p), At(face(f, 1 - s), down)]
            for k, (f, s) in enumerate(event.bag):
                where = REVEALED if k < event.revealed else BAG
                out += [At(face(f, s), kb.loc(where)), At(face(f, 1 - s), down)]
            return out
        return []


class CheckpointCharlieState(State):
    """The truth of one Checkpoint Charlie game."""

    def __init__(self, game: CheckpointCharlieGame, rng: np.random.Generator) -> None:
        super().__init__(game)
        self.game: CheckpointCharlieGame = game
        self._rng_start = copy.deepcopy(rng)  # a variant deal replays the same draws
        self.rng = rng
        cfg = game.config
        n = cfg.num_players
        self.pools: dict[Colour, list[int]] = {}
        for colour in Colour:
            values = list(cfg.pool(colour))
            self.pools[colour] = [values[i] for i in rng.permutation(len(values))]
        self.tokens: list[list[tuple[Colour, int]]] = [[] for _ in range(n)]
        self.round = 0
        self.starter = cfg.first_player
        self.turns = 0
        self.finished = False
        self.end_reasons: tuple[str, ...] = ()
        self._events = []
        self._start_round()

    # -- round setup -------------------------------------------------------------------------
    def _start_round(self, deal: RoundDeal | None = None) -> None:
        n = self.game.num_players
        self.round += 1
        self.deal = deal if deal is not None else self.game.deal_round(self.rng)
        self.sides: list[int | None] = [None] * n
        self.deck_pos = 0
        self.hounds_drawn = 0
        self.kept: list[list[int]] = [[] for _ in range(n)]
        self.discarded: list[list[int]] = [[] for _ in range(n)]
        self.arrests: list[int | None] = [None] * n
        self.revealed: list[tuple[int, int]] = []
        self.active = self.starter
        self.phase = "choose"
        self._choose_queue = [(self.starter + k) % n for k in range(n)]
        self._poll_player = self.starter
        self._poll_passes = 0
        self._events.append(
            RoundStarted(self.round, self.starter, len(self.deal.deck), self.deal.deck.count(HOUND))
        )
        for k in range(n):
            p = (self.starter + k) % n
            self._events.append(ClueDrawn(p, self.deal.features[p]))

    def redeal(self, deal: RoundDeal) -> CheckpointCharlieState:
        """A copy of this state with the current round's hidden deal replaced (tests: two deals
        that differ only in what one player cannot see). Only before any side is chosen."""
        if self.phase != "choose" or any(s is not None for s in self.sides):
            raise IllegalAction("a round can be re-dealt only before any side is chosen")
        deal.validate(self.game.num_players)
        other = self.clone()
        del other._events[-(self.game.num_players + 1):]
        other.round -= 1
        other._start_round(deal)
        return other

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.finished:
            return State.TERMINAL
        if self.phase == "choose":
            return self._choose_queue[0]
        return self._poll_player

    def is_terminal(self) -> bool:
        return self.finished

    def totals(self) -> list[int]:
        """Each seat's true total (hidden token values included)."""
        return [sum(v for _, v in toks) for toks in self.tokens]

    def golds(self) -> list[int]:
        return [sum(1 for c, _ in toks if c is Colour.GOLD) for toks in self.tokens]

    def returns(self) -> list[float]:
        """Each seat's points (the sum of its score tokens).

        Ties for the win are broken by more gold tokens, then shared: see :meth:`winners`.
        """
        return [float(t) for t in self.totals()]

    def winners(self) -> tuple[int, ...]:
        """Seats with the highest total; among them those with the most gold tokens (shared
        win if still tied)."""
        totals, golds = self.totals(), self.golds()
        best = max(totals)
        tied = [p for p in range(len(totals)) if totals[p] == best]
        most = max(golds[p] for p in tied)
        return tuple(p for p in tied if golds[p] == most)

    def available_cats(self, player: int) -> list[int]:
        """Face-up cats ``player`` may arrest now (in seat order of the rows)."""
        taken = {c for c in self.arrests if c is not None}
        out = []
        for row, cats in enumerate(self.kept):
            if row == player and not self.game.config.arrest_own_row:
                continue
            out += [c for c in cats if c not in taken]
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.finished or (player is not None and player != self.current_player):
            return []
        if self.phase == "choose":
            return [ChooseSide(0), ChooseSide(1)]
        return [Pass()] + [Arrest(c) for c in self.available_cats(self._poll_player)]

    def explain_illegal(self, action: Action) -> str:
        who = self.current_player
        if self.phase == "choose":
            if isinstance(action, ChooseSide):
                return f"{action!r}: a clue token has sides 0 and 1"
            return f"{self.seat_name(who)} must first choose the side of its clue token (ChooseSide)"
        if isinstance(action, ChooseSide):
            return f"{self.seat_name(who)}: sides are chosen at the start of the round, not now"
        if isinstance(action, Arrest):
            if self.arrests[who] is not None:
                return f"{self.seat_name(who)} already arrested the cat [{cat_name(self.arrests[who])}] this round"
            if action.cat in self.arrests:
                return f"the cat [{cat_name(action.cat)}] is already arrested by {self.seat_name(self.arrests.index(action.cat))}"
            rows = [p for p, cats in enumerate(self.kept) if action.cat in cats]
            if not rows:
                return f"the cat [{cat_name(action.cat) if 0 <= action.cat < NUM_CATS else action.cat}] is not face up in any kept row"
            if rows[0] == who and not self.game.config.arrest_own_row:
                return f"{self.seat_name(who)} may not arrest a cat from its own row (arrest_own_row=False)"
        return f"{action!r} is not legal for {self.seat_name(who)} in phase {self.phase!r}"

    def observation(self, player: int | None) -> CheckpointCharlieObservation:
        events = self.views(player)
        acting = player is not None and player == self.current_player
        return _fold(
            self.game,
            player,
            events,
            current_player=self.current_player,
            legal=tuple(self.legal_actions()) if acting else (),
            terminal=self.finished,
        )

    def clone(self) -> CheckpointCharlieState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.rng = copy.deepcopy(self.rng)
        other.pools = {c: list(v) for c, v in self.pools.items()}
        other.tokens = [list(t) for t in self.tokens]
        other.sides = list(self.sides)
        other.kept = [list(k) for k in self.kept]
        other.discarded = [list(d) for d in self.discarded]
        other.arrests = list(self.arrests)
        other.revealed = list(self.revealed)
        other._choose_queue = list(self._choose_queue)
        return other

    def world(self) -> np.ndarray:
        """The true location of every token face this round, in ``game.knowledge`` coordinates
        (a side not chosen yet counts as side 0; bag tokens are placed by their coin toss)."""
        locs = self.game.locations
        bag, revealed, down = locs.index(BAG), locs.index(REVEALED), locs.index(DOWN)
        w = np.empty(2 * NUM_FEATURES, dtype=np.int64)
        for p, f in enumerate(self.deal.features):
            s = self.sides[p] or 0
            w[face(f, s)], w[face(f, 1 - s)] = p, down
        for k, (f, s) in enumerate(zip(self.deal.bag, self.deal.coins, strict=True)):
            w[face(f, s)] = revealed if k < self.hounds_drawn else bag
            w[face(f, 1 - s)] = down
        return w

    def chief(self) -> int:
        """The cat matching every up side (sides not chosen yet count as 0)."""
        sides = [0] * NUM_FEATURES
        for p, f in enumerate(self.deal.features):
            sides[f] = self.sides[p] or 0
        for f, s in zip(self.deal.bag, self.deal.coins, strict=True):
            sides[f] = s
        return chief_from_sides(sides)

    # -- transitions -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[Event]:
        mark = len(self._events)
        if isinstance(action, ChooseSide):
            p = self._choose_queue.pop(0)
            self.sides[p] = action.side
            self._events.append(SideChosen(p, self.deal.features[p], action.side))
            if not self._choose_queue:
                self.phase = "poll"
                self._flip()
                self._poll_from(self.active)
        elif isinstance(action, Arrest):
            self._arrest(self._poll_player, action.cat)
        elif isinstance(action, Pass):
            self._poll_passes += 1
            self._advance_poll()
        else:  # pragma: no cover - apply checks legality first
            raise IllegalAction(f"unknown action {action!r}")
        new = self._events[mark:]
        del self._events[mark:]
        return new

    def _unarrested(self) -> list[int]:
        return [p for p, c in enumerate(self.arrests) if c is None]

    def _flip(self) -> None:
        """The active player flips the top card (automatic: there is no choice)."""
        p = self.active
        card = self.deal.deck[self.deck_pos]
        self.deck_pos += 1
        self.turns += 1
        if card == HOUND:
            f, s = self.deal.bag[self.hounds_drawn], self.deal.coins[self.hounds_drawn]
            self.hounds_drawn += 1
            self.revealed.append((f, s))
            self._events.append(HoundFlipped(p, f, s))
            return
        f = self.deal.features[p]
        side = self.sides[p]
        assert side is not None
        keep = matches(card, f, side)
        (self.kept if keep else self.discarded)[p].append(card)
        forgotten = self.game.config.discard_memory == "none"
        self._events.append(CatFlipped(p, card, keep, forgotten))

    def _poll_from(self, first: int) -> None:
        """Start polling investigators without an arrest, clockwise from ``first``."""
        self._poll_player = first
        self._poll_passes = 0
        self._settle()

    def _advance_poll(self) -> None:
        self._poll_player = (self._poll_player + 1) % self.game.num_players
        self._settle()

    def _settle(self) -> None:
        """Move the poll to the next investigator who has a decision, or end the poll and carry
        on automatically (next flip; round end once the deck is empty) until someone decides."""
        n = self.game.num_players
        while True:
            waiting = self._unarrested()
            taken = {c for c in self.arrests if c is not None}
            can_arrest = any(c not in taken for row in self.kept for c in row)
            if can_arrest and self._poll_passes < len(waiting):
                while self.arrests[self._poll_player] is not None:
                    self._poll_player = (self._poll_player + 1) % n
                if self.available_cats(self._poll_player):
                    return  # a decision: Arrest or Pass
                self._poll_passes += 1  # forced pass (only its own row is left)
                self._poll_player = (self._poll_player + 1) % n
                continue
            if self.deck_pos >= len(self.deal.deck):
                # deck empty (RULES.md §3C DEFAULT): no more flips; the poll after the last
                # flip was the last chance, and everyone without an arrest is slowest.
                self._end_round()
                return
            self.active = (self.active + 1) % n
            self._flip()
            self._poll_player = self.active
            self._poll_passes = 0

    def _arrest(self, player: int, cat: int) -> None:
        row = next(p for p, cats in enumerate(self.kept) if cat in cats)
        self.arrests[player] = cat
        self._events.append(Arrested(player, cat, row))
        if len(self._unarrested()) <= 1:
            self._end_round()
            return
        self._poll_passes = 0
        self._advance_poll()

    def _end_round(self) -> None:
        """Verification, scoring, end check, and the next round's setup."""
        cfg = self.game.config
        n = cfg.num_players
        chief = self.chief()
        clues = tuple((self.deal.features[p], int(self.sides[p] or 0)) for p in range(n))
        bag = tuple(zip(self.deal.bag, self.deal.coins, strict=True))
        self._events.append(Verified(self.round, clues, bag, chief, self.hounds_drawn))
        chief_in_deck = chief in self.deal.deck[self.deck_pos :]
        chief_taker: int | None = None
        owed: list[tuple[int, Colour]] = []  # scoring order: clockwise from the starter
        for k in range(n):
            p = (self.starter + k) % n
            cat = self.arrests[p]
            if cat is None:
                colour = Colour.WHITE if (cfg.unrevealed_chief_white and chief_in_deck) else Colour.BLACK
            else:
                same = NUM_FEATURES - bin(cat ^ chief).count("1")
                colour = Colour.GOLD if same == NUM_FEATURES else Colour.WHITE if same == NUM_FEATURES - 1 else Colour.BLACK
                if same == NUM_FEATURES:
                    chief_taker = p
            owed.append((p, colour))
        served = self._served(owed)
        for p, colour in owed:
            pool = self.pools[colour]
            if p in served:
                value = pool.pop(0)
                self.tokens[p].append((colour, value))
                self._events.append(Scored(self.round, p, colour, value))
            else:
                self._events.append(Scored(self.round, p, colour, None, received=False))
        reasons = []
        if any(t >= cfg.target_score for t in self.totals()):
            reasons.append("target")
        if any(not pool for pool in self.pools.values()) or len(served) < len(owed):
            reasons.append("colour_exhausted")  # a colour ran out (or could not serve everyone)
        if self.round >= cfg.max_rounds:
            reasons.append("max_rounds")
        if reasons:
            self.finished = True
            self.phase = "over"
            self.end_reasons = tuple(reasons)
            self._events.append(
                GameEnded(
                    tuple(reasons),
                    tuple(tuple(v for _, v in toks) for toks in self.tokens),
                    tuple(self.totals()),
                    tuple(self.golds()),
                    self.winners(),
                )
            )
            return
        if chief_taker is not None:
            self.starter = chief_taker
        self._start_round()

    def _served(self, owed: Sequence[tuple[int, Colour]]) -> set[int]:
        """The seats that get a token: all of them, unless a colour has fewer tokens left than
        seats owed it; then ``config.short_colour`` decides who of those gets one."""
        served: set[int] = set()
        for colour in Colour:
            seats = [p for p, c in owed if c is colour]
            left = len(self.pools[colour])
            if len(seats) <= left:
                served |= set(seats)
            elif self.game.config.short_colour == "lottery":
                served |= {seats[int(i)] for i in self.rng.permutation(len(seats))[:left]}
            elif self.game.config.short_colour == "seat_order":
                served |= set(seats[:left])
        return served

    # -- audit -------------------------------------------------------------------------------
    def hidden_variant(
        self, player: int, actions: Sequence[Action], rng: np.random.Generator
    ) -> CheckpointCharlieState | None:
        """Re-deal the current round's tokens ``player`` has not seen (other seats' features,
        unrevealed bag tokens and their coins) consistently with every kept and discarded cat,
        then replay ``actions`` with the same draws: nothing ``player`` saw may change."""
        if self.finished:
            return None
        deals = self._unseen_deals(player)
        for i in rng.permutation(len(deals))[:5] if deals else []:
            variant = self._replay_with_deal(deals[i], actions)
            if variant is not None:
                return variant
        return None

    def _unseen_deals(self, player: int) -> list[RoundDeal]:
        """Every other deal of the current round that ``player``'s view cannot tell apart."""
        n, deal, shown = self.game.num_players, self.deal, self.hounds_drawn
        fixed = set(deal.bag[:shown]) | {deal.features[player]}
        free = [f for f in range(NUM_FEATURES) if f not in fixed]
        others = [q for q in range(n) if q != player]
        out = []
        for picked in itertools.permutations(free, len(others)):
            features = list(deal.features)
            for q, f in zip(others, picked, strict=True):
                features[q] = f
            if any(
                not all(matches(c, features[q], self.sides[q] or 0) for c in self.kept[q])
                or any(matches(c, features[q], self.sides[q] or 0) for c in self.discarded[q])
                for q in others
            ):
                continue
            rest = tuple(f for f in free if f not in picked)
            for coins in itertools.product((0, 1), repeat=len(rest)):
                other = RoundDeal(
                    tuple(features), deal.bag[:shown] + rest, deal.coins[:shown] + coins, deal.deck
                )
                if other != deal:
                    out.append(other)
        return out

    def _replay_with_deal(self, deal: RoundDeal, actions: Sequence[Action]) -> CheckpointCharlieState | None:
        """The game with the same draws but ``deal`` for the current round, after ``actions``
        (None if one of them is illegal there)."""
        other = CheckpointCharlieState(self.game, copy.deepcopy(self._rng_start))
        redealt = False
        try:
            for action in [*actions, None]:
                if not redealt and other.round == self.round:
                    other, redealt = other.redeal(deal), True
                if action is not None:
                    other.apply(action)
        except (IllegalAction, ValueError):
            return None
        return other if redealt else None

def _fold(
    game: CheckpointCharlieGame,
    player: int | None,
    events: Sequence[Event],
    current_player: int,
    legal: tuple[Action, ...],
    terminal: bool,
) -> CheckpointCharlieObservation:
    """Build an observation from the events one player saw (so it can hold nothing else)."""
    cfg = game.config
    n = cfg.num_players
    my_tokens: list[tuple[Colour, int]] = []
    colours: list[list[Colour]] = [[] for _ in range(n)]
    pool_left = {c: len(cfg.pool(c)) for c in Colour}
    round_no, starter, deck_size, hounds = 0, cfg.first_player, 0, 0
    my_feature: int | None = None
    my_side: int | None = None
    kept: list[list[int]] = [[] for _ in range(n)]
    discarded: list[list[int | None]] = [[] for _ in range(n)]
    arrests: list[int | None] = [None] * n
    revealed: list[tuple[int, int]] = []
    seen: set[int] = set()
    chosen = 0
    final: tuple[int, ...] | None = None
    in_round = False
    for e in events:
        if isinstance(e, RoundStarted):
            round_no, starter, deck_size, hounds = e.round, e.starter, e.deck_size, e.hounds
            my_feature = my_side = None
            kept = [[] for _ in range(n)]
            discarded = [[] for _ in range(n)]
            arrests = [None] * n
            revealed, seen, chosen, in_round = [], set(), 0, True
        elif isinstance(e, ClueDrawn):
            if e.player == player:
                my_feature = e.feature
        elif isinstance(e, SideChosen):
            chosen += 1
            if e.player == player:
                my_side = e.side
        elif isinstance(e, CatFlipped):
            deck_size -= 1
            if e.cat is not None:
                seen.add(e.cat)
            (kept[e.player].append(e.cat) if e.kept and e.cat is not None
             else discarded[e.player].append(e.cat))
        elif isinstance(e, HoundFlipped):
            deck_size -= 1
            hounds -= 1
            revealed.append((e.feature, e.side))
        elif isinstance(e, Arrested):
            arrests[e.player] = e.cat
        elif isinstance(e, Verified):
            in_round = False
        elif isinstance(e, Scored):
            colours[e.player].append(e.colour)
            if e.received:
                pool_left[e.colour] -= 1
            if e.player == player and e.value is not None:
                my_tokens.append((e.colour, e.value))
        elif isinstance(e, GameEnded):
            final = e.totals
    phase = "over" if terminal or not in_round else ("choose" if chosen < n else "poll")
    return CheckpointCharlieObservation(
        game=game.name,
        player=player,
        num_players=n,
        events=tuple(events),
        current_player=current_player,
        legal_actions=legal,
        terminal=terminal,
        names=cfg.names,
        round=round_no,
        starter=starter,
        phase=phase,
        my_feature=my_feature,
        my_side=my_side,
        kept=tuple(tuple(k) for k in kept),
        discarded=tuple(tuple(d) for d in discarded),
        arrests=tuple(arrests),
        revealed=tuple(revealed),
        deck_size=deck_size,
        hounds_left=hounds,
        unseen_cats=tuple(c for c in range(NUM_CATS) if c not in seen),
        my_tokens=tuple(my_tokens),
        colours=tuple(tuple(c) for c in colours),
        pool_left=tuple((c, pool_left[c]) for c in Colour),
        final_totals=final,
    )


