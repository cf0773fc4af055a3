"""Alibi (Mayfair Games 1992), RULES.md §1 and the Korean seed text.

78 cards in four categories of 3-card sets (8 suspect sets whose sub-icons are the times
Morning/Noon/Night, 6 place, 6 weapon and 6 emotion sets). One card per category is boxed
unseen, the rest dealt. Each round: a meld window (every player, in turn order, may lay down
complete sets; points fall with the round), one turn per player (ask another player one
numeric question, public answer, or accuse), then everyone passes ``min(round, hand)`` cards
face down to the left (choices are private and simultaneous). An accusation ends the game:
the first accuser fills the suspect and at least 3 more blanks, the others fill what they
like, the box is opened and the sheets are scored.

Knowledge is time-indexed: epoch 0 is the deal; every pass and every meld window in which
somebody melded adds an epoch, linked by a :class:`~deduce.constraints.Transfer` (passes move
``k`` cards from each hand to the next, melds move cards from a hand to the public ``melds``
pile). Answers are :class:`~deduce.constraints.Count` (cards in hand now) and
:class:`~deduce.constraints.CountEver` (cards ever seen / ever held) constraints.

Questions: a turn lists the canonical ones (of every other player, HAND and SEEN of every
category, set, time and card, and HELD) and offers the seed's hypothesis questions ("Slim
Slant, Morning, Front Seat, Pillow: how many have you seen?": a suspect card and at most one
card of each other category) as a structured block of legal actions (:class:`Hypotheses` in a
:class:`~deduce.games.base.LegalActions`: about a million a turn, sampled and composed, never
listed); any other union of named sets is legal too (RULES.md §1C) and accepted as asked.

Rule points the sources leave open and the defaults chosen (all config fields):

* melding happens in a window at the start of each round (before its first question), every
  player deciding once in turn order (the seed's "last chance" before a round), and, with
  ``meld_timing="any_time"`` (the seed: "at any time, even on another player's turn"), also
  on one's own turn before asking; a meld on another player's turn is not offered by the
  engine (it decides one seat at a time) but a log or the assistant records it where it
  happened;
* a meld scores by the round it is made in (1 + completed passes);
* ``SEEN`` = cards ever in the target's hand, plus every melded card (``seen_includes_melds``);
* a sub-blank (Time, Location, Type, Motive) names a sub-icon of the parent's set and may only
  be filled together with its parent; it is right only if the parent is right
  (``sub_blank_needs_parent``);
* after ``max_rounds`` rounds the first player must accuse.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Card, Deck
from deduce.constraints import At, Constraint, Count, CountEver, Transfer
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import (
    Action,
    Dealt,
    Event,
    Game,
    LegalActions,
    Observation,
    State,
    own_observation,
    placement_problem,
)
from deduce.knowledge import KnowledgeBase

__all__ = [
    "AlibiConfig",
    "AlibiGame",
    "AlibiState",
    "AlibiObservation",
    "Family",
    "Ask",
    "Meld",
    "Accuse",
    "PassCard",
    "Fill",
    "Done",
    "Hypotheses",
    "Dealt",
    "Melded",
    "Asked",
    "Passed",
    "Accused",
    "Revealed",
    "CATEGORIES",
    "BLANKS",
    "SUSPECTS",
    "TIMES",
    "PLACES",
    "WEAPONS",
    "EMOTIONS",
    "BOX",
    "MELDS",
]

CATEGORIES = ("suspect", "place", "weapon", "emotion")
#: the accusation sheet: a parent blank (the set) and its sub-blank (the card in the set).
BLANKS = ("suspect", "time", "place", "location", "weapon", "type", "emotion", "motive")
#: RULES.md §1C: three suspects are named by the seed, the other five are placeholders.
SUSPECTS = ("Slim Slant", "Andy Anderson", "Mona Byrd", "Suspect 4", "Suspect 5", "Suspect 6", "Suspect 7", "Suspect 8")
TIMES = ("Morning", "Noon", "Night")
PLACES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Studio", ("Back Stage", "Dressing Room", "On Set")),
    ("Auto", ("Front Seat", "Back Seat", "Trunk")),
    ("Boat", ("Deck", "Cabin", "Galley")),
    ("Alleyway", ("Alley Entrance", "Alley Middle", "Alley End")),
    ("Place 5", ("P5 L1", "P5 L2", "P5 L3")),
    ("Place 6", ("P6 L1", "P6 L2", "P6 L3")),
)
WEAPONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Gun", ("Pistol", "Rifle", "Tommy Gun")),
    ("Poison", ("Poison T1", "Poison T2", "Poison T3")),
    ("Blunt Instrument", ("Baseball Bat", "Blunt T2", "Blunt T3")),
    ("Smothering", ("Pillow", "Smother T2", "Smother T3")),
    ("Strangling", ("Piano Wire", "Strangle T2", "Strangle T3")),
    ("Weapon 6", ("W6 T1", "W6 T2", "W6 T3")),
)
EMOTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Rage", ("Rage M1", "Rage M2", "Rage M3")),
    ("Money", ("Will", "Money M2", "Money M3")),
    ("Emotion 3", ("E3 M1", "E3 M2", "E3 M3")),
    ("Emotion 4", ("E4 M1", "E4 M2", "E4 M3")),
    ("Emotion 5", ("E5 M1", "E5 M2", "E5 M3")),
    ("Emotion 6", ("E6 M1", "E6 M2", "E6 M3")),
)
BOX = "box"
MELDS = "melds"
MELD_TIMINGS = ("any_time", "round_start")


class Family(StrEnum):
    """Question families (RULES.md §1C): the answer is always a count."""

    HAND = "hand"  # cards of S in the target's hand now
    SEEN = "seen"  # cards of S the target has ever seen
    HELD = "held"  # distinct cards the target has ever held (no S)


@dataclass(frozen=True)
class AlibiConfig:
    """Every DEFAULT of RULES.md §1 is a field here."""

    num_players: int = 4
    suspects: tuple[str, ...] = SUSPECTS
    #: the sub-icons of every suspect set (shared by all suspects, so "every Morning card" is a class).
    times: tuple[str, ...] = TIMES
    places: tuple[tuple[str, tuple[str, ...]], ...] = PLACES
    weapons: tuple[tuple[str, tuple[str, ...]], ...] = WEAPONS
    emotions: tuple[tuple[str, tuple[str, ...]], ...] = EMOTIONS
    #: points of each accusation blank, in BLANKS order (not in the sources; §1D DEFAULT, invented).
    blank_values: tuple[int, ...] = (5, 3, 5, 3, 5, 3, 5, 3)
    #: meld points of a suspect set made in round 1, 2, 3+ (seed).
    meld_points_suspect: tuple[int, ...] = (6, 4, 3)
    #: meld points of any other set made in round 1, 2, 3+ (seed).
    meld_points_other: tuple[int, ...] = (7, 5, 3)
    first_accuser_bonus: int = 7
    #: the first accuser loses this many times the value of a wrong blank (seed: double).
    first_accuser_penalty: int = 2
    #: blanks besides the suspect the first accuser must fill (seed: at least 3 of 7).
    first_accuser_min_blanks: int = 3
    #: DEFAULT: "any_time" (seed: a set may be laid down at any time, even on another player's
    #: turn, until an accusation): the engine offers melds in each round's window and on one's
    #: own turn before the question; logs take a meld anywhere before the accusation.
    #: "round_start": only in the window at the start of each round.
    meld_timing: str = "any_time"
    #: SEEN counts every melded (public) card too (§1D DEFAULT).
    seen_includes_melds: bool = True
    #: Location/Type/Motive need the parent blank filled and right, like Time (§1D DEFAULT).
    sub_blank_needs_parent: bool = True
    #: after this many rounds the first player must accuse (§1D DEFAULT safety cap).
    max_rounds: int = 20
    #: the dealer's seat; dealing starts at the dealer's left (seed).
    dealer: int = 0
    #: seat names, used in logs and as knowledge-base locations ("p0".. when empty).
    player_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 10:
            raise InvalidConfig("num_players", self.num_players, "Alibi needs 3 to 10 players")
        if not self.suspects:
            raise InvalidConfig("suspects", self.suspects, "Alibi needs at least one suspect")
        if not self.times:
            raise InvalidConfig("times", self.times, "Alibi needs at least one time")
        for label, sets in (("places", self.places), ("weapons", self.weapons), ("emotions", self.emotions)):
            if not sets or any(not subs for _, subs in sets):
                raise InvalidConfig(label, sets, f"{label} needs at least one set of at least one card")
        if len(self.blank_values) != len(BLANKS) or any(v < 0 for v in self.blank_values):
            raise InvalidConfig("blank_values", self.blank_values, f"blank_values needs {len(BLANKS)} non-negative values")
        for label, table in (("meld_points_suspect", self.meld_points_suspect), ("meld_points_other", self.meld_points_other)):
            if not table:
                raise InvalidConfig(label, table, "meld point tables cannot be empty")
        if not 0 <= self.dealer < self.num_players:
            raise InvalidConfig("dealer", self.dealer, f"dealer must be a seat 0..{self.num_players - 1}")
        if self.player_names and len(self.player_names) != self.num_players:
            raise InvalidConfig(
                "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
            )
        if self.max_rounds < 1:
            raise InvalidConfig("max_rounds", self.max_rounds, "max_rounds must be positive")
        if self.meld_timing not in MELD_TIMINGS:
            raise InvalidConfig("meld_timing", self.meld_timing, f"meld_timing must be one of {MELD_TIMINGS}")
        if not 0 <= self.first_accuser_min_blanks <= len(BLANKS) - 1:
            raise InvalidConfig(
                "first_accuser_min_blanks",
                self.first_accuser_min_blanks,
                f"first_accuser_min_blanks must be 0..{len(BLANKS) - 1}",
            )
        if self.num_cards - 4 < self.num_players:
            raise InvalidConfig(
                "num_players", self.num_players, f"too few cards ({self.num_cards - 4} to deal) to deal one to every player"
            )

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    def sets(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """``(category, set name, sub-icon names)`` for every set, categories in CATEGORIES order."""
        out = [("suspect", s, tuple(self.times)) for s in self.suspects]
        for cat, sets in (("place", self.places), ("weapon", self.weapons), ("emotion", self.emotions)):
            out += [(cat, name, tuple(subs)) for name, subs in sets]
        return tuple(out)

    @property
    def num_cards(self) -> int:
        return sum(len(subs) for _, _, subs in self.sets())

    def hand_sizes(self) -> tuple[int, ...]:
        """Cards dealt one at a time from the dealer's left: the first seats get the extras."""
        n, dealt = self.num_players, self.num_cards - 4
        sizes = [0] * n
        for i in range(dealt):
            sizes[(self.dealer + 1 + i) % n] += 1
        return tuple(sizes)

    @property
    def first_player(self) -> int:
        """The seat left of whoever got the last card (seed)."""
        return (self.dealer + (self.num_cards - 4) + 1) % self.num_players

    def meld_points(self, category: str, round_: int) -> int:
        table = self.meld_points_suspect if category == "suspect" else self.meld_points_other
        return table[min(round_, len(table)) - 1]


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ask(Action):
    """Ask ``target`` how many cards of ``cards`` it holds now (HAND) or has ever seen (SEEN),
    or how many distinct cards it has ever held (HELD, ``cards`` empty). Card ids, any union of
    categories, sets, sub-icons and single cards."""

    target: int
    family: Family
    cards: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "family", Family(self.family))
        object.__setattr__(self, "cards", tuple(sorted(set(int(c) for c in self.cards))))


@dataclass(frozen=True)
class Meld(Action):
    """Lay down these complete sets (set ids): in the meld window (empty = none), or on one's
    own turn before asking where melds may happen at any time."""

    sets: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "sets", tuple(sorted(set(int(s) for s in self.sets))))


@dataclass(frozen=True)
class Accuse(Action):
    """Accuse instead of asking: the game ends and every player fills a sheet."""


@dataclass(frozen=True)
class PassCard(Action):
    """Choose one more card to pass face down to the left this round."""

    card: int


@dataclass(frozen=True)
class Fill(Action):
    """Write on one's accusation sheet: a parent blank takes a set index within its category,
    a sub-blank a sub-icon index within the parent's set."""

    blank: int
    value: int


@dataclass(frozen=True)
class Done(Action):
    """Hand in one's accusation sheet."""


# -- events -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Melded(Event):
    """``player`` laid down set ``set_id`` (its ``cards``) for ``points``; the cards are at the
    meld pile from ``epoch`` on and were in the player's hand at ``epoch - 1`` (public)."""

    player: int
    set_id: int
    cards: tuple[int, ...]
    points: int
    round: int
    epoch: int
    kind: ClassVar[str] = "meld"


@dataclass(frozen=True)
class Asked(Event):
    """A question and its honest answer, asked at ``epoch`` (public)."""

    asker: int
    target: int
    family: Family
    cards: tuple[int, ...]
    answer: int
    epoch: int
    kind: ClassVar[str] = "question"


@dataclass(frozen=True)
class Passed(Event):
    """The pass from epoch ``epoch`` to ``epoch + 1``: ``counts[p]`` cards went from p to p+1.
    ``cards[p]`` is visible to p and p+1 only (``None`` in other views)."""

    epoch: int
    counts: tuple[int, ...]
    cards: tuple[tuple[int, ...] | None, ...]
    kind: ClassVar[str] = "pass"

    def view(self, player: int | None) -> Event | None:
        n = len(self.counts)
        shown = tuple(
            c if player is not None and player in (p, (p + 1) % n) else None for p, c in enumerate(self.cards)
        )
        return self if shown == self.cards else Passed(self.epoch, self.counts, shown)


@dataclass(frozen=True)
class Accused(Event):
    """``player`` is the first accuser; no more melds (public)."""

    player: int
    kind: ClassVar[str] = "accuse"


@dataclass(frozen=True)
class Revealed(Event):
    """The box is opened and every sheet is shown and scored (public, the last event).
    ``sheets[p]`` are ``(blank, value)`` pairs; ``scores[p]`` the final totals."""

    box: tuple[int, ...]
    sheets: tuple[tuple[tuple[int, int], ...], ...]
    sheet_points: tuple[int, ...]
    scores: tuple[int, ...]
    kind: ClassVar[str] = "reveal"


@dataclass(frozen=True)
class AlibiObservation(Observation):
    """One seat's view (``player=None``: a spectator who sees no hand)."""

    round: int = 1
    epoch: int = 0
    phase: str = "meld"
    first_player: int = 0
    #: ``(player, set_id)`` of every meld so far (public).
    melds: tuple[tuple[int, int], ...] = ()
    meld_points: tuple[int, ...] = ()
    #: cards this player has chosen to pass so far this round, and how many it must pass.
    passing: tuple[int, ...] = ()
    to_pass: int = 0
    accuser: int | None = None
    #: this player's accusation sheet so far (``(blank, value)`` pairs).
    sheet: tuple[tuple[int, int], ...] = ()
    scores: tuple[int, ...] = ()


# -- hypothesis questions ---------------------------------------------------------------------
NONE = -1  # a hypothesis component left out ("no weapon named")


@dataclass(frozen=True)
class Hypotheses:
    """The seed's hypothesis questions, structured (an :class:`~deduce.games.base.ActionSet`):
    "I think Slim Slant killed Brenda in the Morning, in the Front Seat of her Auto, with a
    Pillow: how many of those cards have you seen?" A question of one of ``targets``, in one of
    ``families``, naming a suspect card and at most one card of each other category, at least
    one of them (the suspect card alone is a listed single-card question).

    Enumerated: those, about a million a turn with four players, never listed. Accepted
    (``in``): any question the rules allow of these targets in these families, i.e. any union
    of categories, sets, sub-icon classes and single cards (RULES.md §1C), which no sampler
    enumerates."""

    targets: tuple[int, ...]
    families: tuple[Family, ...]
    #: the card ids of each category (CATEGORIES order).
    categories: tuple[tuple[int, ...], ...]
    num_cards: int

    @property
    def _tail(self) -> int:
        """Combinations of the three optional categories, "none" included."""
        out = 1
        for cards in self.categories[1:]:
            out *= len(cards) + 1
        return out

    @property
    def size(self) -> int:
        return len(self.targets) * len(self.families) * len(self.categories[0]) * (self._tail - 1)

    def __contains__(self, action: object) -> bool:
        return (
            isinstance(action, Ask)
            and action.target in self.targets
            and action.family in self.families
            and bool(action.cards)
            and all(0 <= c < self.num_cards for c in action.cards)
        )

    def components(self) -> tuple[tuple[str, int], ...]:
        """Target, family, suspect card, then place, weapon and emotion card or none (index 0)."""
        names = ("target", "family", *(f"{c} card" for c in CATEGORIES))
        sizes = (len(self.targets), len(self.families), len(self.categories[0]), *(len(c) + 1 for c in self.categories[1:]))
        return tuple(zip(names, sizes, strict=True))

    def build(self, parts: Sequence[int]) -> Ask | None:
        """The question of one choice per component (as :meth:`components` numbers them)."""
        t, f, s, *rest = (int(x) for x in parts)
        if not (0 <= t < len(self.targets) and 0 <= f < len(self.families) and 0 <= s < len(self.categories[0])):
            return None
        cards = [self.categories[0][s]]
        for k, r in enumerate(rest, start=1):
            if not 0 <= r <= len(self.categories[k]):
                return None
            if r:
                cards.append(self.categories[k][r - 1])
        return Ask(self.targets[t], self.families[f], tuple(cards))

    def unrank(self, index: int) -> Ask:
        """Question ``index``: target slowest, then family, suspect card, and the three optional
        cards in mixed radix, skipping the suspect-only combination."""
        if not 0 <= index < self.size:
            raise IndexError(index)
        per_suspect = self._tail - 1
        rest, r = divmod(index, per_suspect)
        rest, s = divmod(rest, len(self.categories[0]))
        t, f = divmod(rest, len(self.families))
        r += 1  # 0 would name no optional card
        tail = []
        for cards in reversed(self.categories[1:]):
            r, x = divmod(r, len(cards) + 1)
            tail.append(x)
        ask = self.build((t, f, s, *reversed(tail)))
        assert ask is not None
        return ask

    def of(self, cards: Sequence[int]) -> tuple[int, ...] | None:
        """The component choices naming ``cards`` (one per category, a suspect card among them),
        or ``None`` if they are no hypothesis."""
        by_cat: list[int] = [0] * len(self.categories)
        for c in cards:
            k = next((k for k, ids in enumerate(self.categories) if c in ids), None)
            if k is None or by_cat[k]:
                return None
            by_cat[k] = self.categories[k].index(c) + 1
        if not by_cat[0]:
            return None
        return (by_cat[0] - 1, *by_cat[1:])


# -- the game ---------------------------------------------------------------------------------
class AlibiGame(Game[AlibiConfig]):
    """Mayfair Alibi per RULES.md §1."""

    name: ClassVar[str] = "alibi"
    config_class: ClassVar[type] = AlibiConfig
    #: RULES.md §1D: 3-6 on the box (BGG/dmoz), 3-10 allowed [S1]; the config takes the allowed range.
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 10

    def __init__(self, config: AlibiConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        cards: list[Card] = []
        set_cards: list[tuple[int, ...]] = []
        set_category: list[int] = []
        set_index: list[int] = []
        per_cat = [0, 0, 0, 0]
        for cat, name, subs in config.sets():
            k = CATEGORIES.index(cat)
            ids = []
            for j, sub in enumerate(subs):
                # sorted, as Deck.from_json rebuilds them (a knowledge base round-trips JSON)
                attrs = tuple(sorted((("set", name), ("sub", sub), ("set_id", len(set_cards)), ("sub_index", j))))
                cards.append(Card(len(cards), f"{name} / {sub}", cat, attrs))
                ids.append(len(cards) - 1)
            set_cards.append(tuple(ids))
            set_category.append(k)
            set_index.append(per_cat[k])
            per_cat[k] += 1
        self.deck = Deck(tuple(cards))
        self.set_cards: tuple[tuple[int, ...], ...] = tuple(set_cards)
        #: category index (CATEGORIES) of each set, and the set's index within its category.
        self.set_category: tuple[int, ...] = tuple(set_category)
        self.set_index: tuple[int, ...] = tuple(set_index)
        self.card_set: tuple[int, ...] = tuple(s for s, ids in enumerate(set_cards) for _ in ids)
        self.card_sub: tuple[int, ...] = tuple(j for ids in set_cards for j in range(len(ids)))
        self.card_category: tuple[int, ...] = tuple(set_category[s] for s in self.card_set)
        self.categories: tuple[tuple[int, ...], ...] = tuple(
            tuple(c for c in range(len(cards)) if self.card_category[c] == k) for k in range(4)
        )
        #: sets of each category, in order (``category_sets[k][i]`` = global set id).
        self.category_sets: tuple[tuple[int, ...], ...] = tuple(
            tuple(s for s in range(len(set_cards)) if set_category[s] == k) for k in range(4)
        )
        #: sub-icon classes shared across sets (the times): ``(name, cards)``.
        self.subicon_classes: tuple[tuple[str, tuple[int, ...]], ...] = tuple(
            (t, tuple(self.set_cards[s][j] for s in self.category_sets[0])) for j, t in enumerate(config.times)
        )

    @property
    def num_cards(self) -> int:
        return len(self.deck)

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats by name, then the box, then the public meld pile."""
        return self.config.names + (BOX, MELDS)

    @property
    def box_loc(self) -> int:
        return self.config.num_players

    @property
    def meld_loc(self) -> int:
        return self.config.num_players + 1

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> AlibiState:
        return AlibiState(self, np.random.default_rng(seed))

    # -- question sets -----------------------------------------------------------------------
    def canonical_sets(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The named card sets questions are built from: categories, sets, sub-icon classes,
        single cards (``(label, cards)``); any union of them is also a legal question."""
        out: list[tuple[str, tuple[int, ...]]] = [(cat, self.categories[k]) for k, cat in enumerate(CATEGORIES)]
        for ids in self.set_cards:
            out.append((self.deck[ids[0]].attribute("set"), ids))  # type: ignore[arg-type]
        out += [(name, ids) for name, ids in self.subicon_classes if len(ids) > 1]
        out += [(card.name, (card.id,)) for card in self.deck]
        seen: set[tuple[int, ...]] = set()
        unique = []
        for label, ids in out:
            if ids not in seen:
                seen.add(ids)
                unique.append((label, ids))
        return tuple(unique)

    def hypothesis(self, cards: Sequence[int]) -> tuple[int, ...]:
        """A suspect-time-place-weapon-emotion hypothesis as the card set of a question."""
        return tuple(sorted(set(int(c) for c in cards)))

    # -- knowledge ---------------------------------------------------------------------------
    @staticmethod
    def epochs_of(events: Sequence[Event]) -> int:
        """Epochs a view of these events spans: 1 + passes + meld windows with melds."""
        epochs = 1
        for e in events:
            if isinstance(e, Passed):
                epochs = max(epochs, e.epoch + 2)
            elif isinstance(e, Melded):
                epochs = max(epochs, e.epoch + 1)
        return epochs

    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The observing player's knowledge base (``check`` as in ``KnowledgeBase.extend``).

        Per epoch: one box card per category, public hand sizes and meld-pile size; the
        observer's own hand at every epoch; transfers for passes (k cards from each hand to the
        next, the observer's own in and out known card by card) and meld windows; answers as
        counts; melds and, at the end, the box as facts.
        """
        observation = own_observation(observation, AlibiObservation, "AlibiGame.knowledge")
        return self.knowledge_from_events(observation.player, observation.events, check)

    def knowledge_from_events(self, player: int | None, events: Sequence[Event], check: Any = False) -> KnowledgeBase:
        """The knowledge base of ``player``'s view (``None``: a spectator) of ``events``, each
        constraint's source the first event whose prefix of ``events`` brings it in ("rules"
        for those before any event), as :func:`deduce.logs.view_knowledge` would work out by
        rebuilding every prefix (a test holds the two equal): worked out here in the one pass,
        where rebuilding every prefix was quadratic in the log's length (the largest part of a
        late view's update in ``benchmarks.alibi --only updates``).

        A constraint's entry is the length of that prefix. What a prefix's knowledge shows
        before the whole log does: its last epoch's hand sizes (final once that epoch is
        entered: by its pass, or by its meld window's melds, each player's size after that
        player's last meld in it, the meld pile's after the window's last meld); a window's
        transfer only when all its melds are in; the box's last-epoch cards only once the
        view has all its epochs.
        """
        cfg = self.config
        n = cfg.num_players
        epochs = self.epochs_of(events)
        kb = KnowledgeBase(self.deck, self.locations, epochs=epochs)
        box, mel = self.box_loc, self.meld_loc
        everything = range(self.num_cards)
        sizes = list(cfg.hand_sizes())
        melded = 0
        cons: list[Constraint] = []
        entry: list[int] = []  # per constraint in cons: the length of the first prefix holding it

        def add(new: Sequence[Constraint], at: int | Sequence[int]) -> None:
            cons.extend(new)
            entry.extend([at] * len(new) if isinstance(at, int) else at)

        full = 0  # the first prefix that spans every epoch
        if epochs > 1:
            grown = 1
            for j, ev in enumerate(events):
                grown = max(grown, self.epochs_of([ev]))
                if grown == epochs:
                    full = j + 1
                    break
        add([Count(cat, box, 1, epoch=0) for cat in self.categories], 0)
        if epochs > 1:
            add([Count(cat, box, 1, epoch=epochs - 1) for cat in self.categories], full)
        hand: set[int] = set()
        # meld windows: epoch -> {player: cards}; first and last meld, each player's last meld
        windows: dict[int, dict[int, list[int]]] = {}
        first_meld: dict[int, int] = {}
        last_meld: dict[int, int] = {}
        player_last: dict[int, dict[int, int]] = {}
        for j, ev in enumerate(events):
            if isinstance(ev, Melded):
                windows.setdefault(ev.epoch, {}).setdefault(ev.player, []).extend(ev.cards)
                first_meld.setdefault(ev.epoch, j)
                last_meld[ev.epoch] = j
                player_last.setdefault(ev.epoch, {})[ev.player] = j
        epoch = 0
        entered: dict[int, int] = {0: 0}  # epoch -> the prefix that entered it by a pass

        def sizes_at(e: int) -> tuple[list[Constraint], list[int]]:
            out: list[Constraint] = [Count(everything, p, sizes[p], epoch=e) for p in range(n)]
            out.append(Count(everything, mel, melded, epoch=e))
            out.append(Count(everything, box, 4, epoch=e))
            if e in entered:
                return out, [entered[e]] * len(out)
            m1 = first_meld[e] + 1
            at = [max(m1, player_last[e].get(p, -1) + 1) for p in range(n)]
            return out, at + [last_meld[e] + 1, m1]

        def own_hand(e: int) -> list[Constraint]:
            return [At(c, player, epoch=e) for c in sorted(hand)] if player is not None else []

        done_windows: set[int] = set()
        for j, ev in enumerate(events):
            if isinstance(ev, Dealt):
                if ev.player == player:
                    hand = set(ev.cards)
                    add(own_hand(0), j + 1)
            elif isinstance(ev, Melded):
                e = ev.epoch
                if e not in done_windows:
                    done_windows.add(e)
                    add(*sizes_at(epoch))
                    window = windows[e]
                    add([Transfer(e - 1, [(p, mel, len(cs)) for p, cs in sorted(window.items())])], last_meld[e] + 1)
                    melded_at = {c: m + 1 for m in range(j, last_meld[e] + 1)
                                 if isinstance(events[m], Melded) and events[m].epoch == e for c in events[m].cards}
                    for p, cs in window.items():
                        add([At(c, p, epoch=e - 1) for c in cs] + [At(c, mel, epoch=e) for c in cs],
                            [melded_at[c] for c in cs] * 2)
                        sizes[p] -= len(cs)
                        melded += len(cs)
                        if p == player:
                            hand -= set(cs)
                    epoch = e
                    add(own_hand(epoch), j + 1)
            elif isinstance(ev, Passed):
                add(*sizes_at(epoch))
                e = ev.epoch
                add([Transfer(e, [(p, (p + 1) % n, k) for p, k in enumerate(ev.counts) if k > 0])], j + 1)
                for p, cs in enumerate(ev.cards):
                    if cs is None:
                        continue
                    q = (p + 1) % n
                    add([At(c, p, epoch=e) for c in cs] + [At(c, q, epoch=e + 1) for c in cs], j + 1)
                    if p == player:
                        hand -= set(cs)
                    if q == player:
                        hand |= set(cs)
                for p, k in enumerate(ev.counts):
                    sizes[p] -= k
                    sizes[(p + 1) % n] += k
                epoch = e + 1
                entered[epoch] = j + 1
                add(own_hand(epoch), j + 1)
            elif isinstance(ev, Asked):
                add([self.answer_constraint(ev.target, ev.family, ev.cards, ev.answer, ev.epoch)], j + 1)
            elif isinstance(ev, Revealed):
                add([At(c, box, epoch=e) for c in ev.box for e in (0, epochs - 1)],
                    [j + 1, max(j + 1, full)] * len(ev.box))
        add(*sizes_at(epoch))
        earliest: dict[Constraint, int] = {}
        for c, at in zip(cons, entry, strict=True):
            earliest[c] = min(at, earliest.get(c, at))
        kb.extend(cons, sources=[_source(earliest[c]) for c in cons], check=check)
        return kb

    def answer_constraint(self, target: int, family: Family, cards: Sequence[int], answer: int, epoch: int) -> Constraint:
        """The constraint an answer adds (HAND: a count now; SEEN/HELD: a history count)."""
        if family is Family.HAND:
            return Count(cards, target, answer, epoch=epoch)
        if family is Family.HELD:
            return CountEver(range(self.num_cards), [target], range(epoch + 1), answer)
        locs = [target, self.meld_loc] if self.config.seen_includes_melds else [target]
        return CountEver(cards, locs, range(epoch + 1), answer)

    def answer(self, world: np.ndarray, target: int, family: Family, cards: Sequence[int]) -> int:
        """The honest answer in a world ``[epoch, card]`` (the last epoch is now)."""
        w = np.asarray(world)
        if family is Family.HAND:
            return int(sum(1 for c in cards if w[-1, c] == target))
        if family is Family.HELD:
            return int((w == target).any(axis=0).sum())
        locs = [target, self.meld_loc] if self.config.seen_includes_melds else [target]
        ever = np.isin(w, locs).any(axis=0)
        return int(sum(1 for c in cards if ever[c]))

    # -- sheets ------------------------------------------------------------------------------
    def sheet_points(self, sheet: Sequence[tuple[int, int]], box: Sequence[int], first: bool) -> int:
        """Points of one sheet against the box cards (one per category, CATEGORIES order)."""
        cfg = self.config
        filled = dict(sheet)
        total = 0
        for blank, value in filled.items():
            right = self.blank_right(blank, value, filled, box)
            v = cfg.blank_values[blank]
            total += v if right else -v * (cfg.first_accuser_penalty if first else 1)
        return total

    def blank_right(self, blank: int, value: int, filled: dict[int, int], box: Sequence[int]) -> bool:
        cat = blank // 2
        card = box[cat]
        set_right = self.set_index[self.card_set[card]] == filled.get(2 * cat)
        if blank % 2 == 0:
            return set_right
        needs_parent = cat == 0 or self.config.sub_blank_needs_parent
        return (set_right or not needs_parent) and self.card_sub[card] == value


def _source(entry: int) -> str:
    """A constraint's source from its entry (the length of the first prefix holding it)."""
    return "rules" if entry == 0 else f"event {entry - 1}"


class AlibiState(State):
    """The truth of one Alibi game."""

    def __init__(self, game: AlibiGame, rng: np.random.Generator | None = None, deal: Any = None) -> None:
        super().__init__(game)
        self.game: AlibiGame = game
        cfg = game.config
        n = cfg.num_players
        if deal is None:
            if rng is None:
                raise InvalidConfig("rng", rng, "a new Alibi state needs a random generator or a deal")
            box = tuple(int(rng.choice(cat)) for cat in game.categories)
            rest = [c for c in range(game.num_cards) if c not in box]
            rng.shuffle(rest)
            hands: list[list[int]] = [[] for _ in range(n)]
            for i, c in enumerate(rest):
                hands[(cfg.dealer + 1 + i) % n].append(c)
            deal = (box, hands)
        box, hands = deal
        self.box = tuple(int(c) for c in box)
        self.hands: list[set[int]] = [set(int(c) for c in h) for h in hands]
        self._check_deal()
        loc = np.full(game.num_cards, n, dtype=np.int64)
        for p, h in enumerate(self.hands):
            loc[list(h)] = p
        self.history: list[np.ndarray] = [loc]
        self.round = 1
        self.phase = "meld"  # meld | ask | pass | sheet | over
        self.order = [(cfg.first_player + i) % n for i in range(n)]
        self.pos = 0
        self.window_epoch: int | None = None  # epoch created by the current meld window
        self.melds: list[tuple[int, int]] = []
        self.meld_points = [0] * n
        self.choices: list[list[int]] = [[] for _ in range(n)]
        self.accuser: int | None = None
        self.sheets: list[dict[int, int]] = [{} for _ in range(n)]
        self.sheet_order: list[int] = []
        self.scores: list[int] = [0] * n
        self.turns = 0
        self.finished = False
        self._events = [Dealt(p, tuple(sorted(h))) for p, h in enumerate(self.hands)]

    @classmethod
    def from_deal(cls, game: AlibiGame, box: Sequence[int], hands: Sequence[Sequence[int]]) -> AlibiState:
        """A game from a given deal (card ids): for tests, replays and a real table."""
        return cls(game, deal=(box, hands))

    def _check_deal(self) -> None:
        g = self.game
        cards = list(self.box) + [c for h in self.hands for c in h]
        problem = placement_problem(cards, g.num_cards)
        if problem:
            deal = (self.box, tuple(tuple(sorted(h)) for h in self.hands))
            raise InvalidConfig("deal", deal, f"a deal must place every card exactly once: {problem}")
        if tuple(g.card_category[c] for c in self.box) != (0, 1, 2, 3):
            raise InvalidConfig("box", self.box, "the box holds one suspect, place, weapon and emotion card, in that order")
        sizes = tuple(len(h) for h in self.hands)
        if sizes != g.config.hand_sizes():
            hands = tuple(tuple(sorted(h)) for h in self.hands)
            raise InvalidConfig("hands", hands, f"hand sizes {sizes} do not follow the deal rule {g.config.hand_sizes()}")

    # -- queries -----------------------------------------------------------------------------
    @property
    def epoch(self) -> int:
        return len(self.history) - 1

    @property
    def current_player(self) -> int:
        if self.finished:
            return State.TERMINAL
        if self.phase == "sheet":
            return self.sheet_order[self.pos]
        return self.order[self.pos]

    def is_terminal(self) -> bool:
        return self.finished

    def returns(self) -> list[float]:
        """Points: melds plus sheet points plus the first accuser's bonus (highest wins)."""
        return [float(s) for s in self.scores]

    def pass_count(self, player: int) -> int:
        return min(self.round, len(self.hands[player]) + len(self.choices[player]))

    def complete_sets(self, player: int) -> list[int]:
        hand = self.hands[player]
        return [s for s, ids in enumerate(self.game.set_cards) if all(c in hand for c in ids)]

    def questions(self, asker: int) -> list[Ask]:
        """The canonical questions (every target, every named set, both families, HELD)."""
        n = self.game.num_players
        out: list[Ask] = []
        sets = self.game.canonical_sets()
        for t in range(n):
            if t == asker:
                continue
            for fam in (Family.HAND, Family.SEEN):
                out += [Ask(t, fam, ids) for _, ids in sets]
            out.append(Ask(t, Family.HELD, ()))
        return out

    def hypotheses(self, asker: int) -> Hypotheses:
        """The hypothesis questions ``asker`` may ask (structured, never listed)."""
        g = self.game
        targets = tuple(t for t in range(g.num_players) if t != asker)
        return Hypotheses(targets, (Family.HAND, Family.SEEN), g.categories, g.num_cards)

    def legal_actions(self, player: int | None = None) -> Sequence[Action]:
        """The listed actions (melds, the canonical questions, accusing, passing, the sheet)
        and, on a turn, the structured :class:`Hypotheses` (a :class:`LegalActions`)."""
        if self.finished or (player is not None and player != self.current_player):
            return []
        who = self.current_player
        if self.phase == "meld":
            full = self.complete_sets(who)
            return [Meld(tuple(s)) for r in range(len(full) + 1) for s in combinations(full, r)]
        if self.phase == "ask":
            if self.round > self.game.config.max_rounds:
                return [Accuse()]
            return LegalActions([*self.questions(who), Accuse(), *self._turn_melds(who)], [self.hypotheses(who)])
        if self.phase == "pass":
            return [PassCard(c) for c in sorted(self.hands[who])]
        if self.phase == "sheet":
            out: list[Action] = []
            sheet = self.sheets[who]
            for b in range(len(BLANKS)):
                if b in sheet:
                    continue
                out += [Fill(b, v) for v in self._blank_range(b, sheet)]
            if self._sheet_ok(who) is None:
                out.append(Done())
            return out
        return []

    def _legal_parts(self) -> tuple[Sequence[Action], tuple[Hypotheses, ...]]:
        legal = self.legal_actions()
        return legal, legal.structured if isinstance(legal, LegalActions) else ()

    def _turn_melds(self, who: int) -> list[Action]:
        """Melds ``who`` may lay down on its own turn before asking (``meld_timing="any_time"``):
        every non-empty choice of its complete sets."""
        if self.game.config.meld_timing != "any_time":
            return []
        full = self.complete_sets(who)
        return [Meld(tuple(s)) for r in range(1, len(full) + 1) for s in combinations(full, r)]

    def _blank_range(self, blank: int, sheet: dict[int, int]) -> range:
        g = self.game
        cat = blank // 2
        if blank % 2 == 0:
            return range(len(g.category_sets[cat]))
        parent = sheet.get(2 * cat)
        if parent is None:
            if cat == 0 or g.config.sub_blank_needs_parent:
                return range(0)
            return range(max(len(g.set_cards[s]) for s in g.category_sets[cat]))
        return range(len(g.set_cards[g.category_sets[cat][parent]]))

    def _sheet_ok(self, player: int) -> str | None:
        """Why ``player`` may not hand in its sheet yet (None: it may)."""
        if player != self.accuser:
            return None
        sheet = self.sheets[player]
        need = self.game.config.first_accuser_min_blanks
        if 0 not in sheet:
            return "the first accuser must name a suspect"
        if len(sheet) - 1 < need:
            return f"the first accuser must fill at least {need} blanks besides the suspect ({len(sheet) - 1} so far)"
        return None

    def why_illegal(self, action: Action) -> str | None:
        """Why ``action`` is not legal now (None: it is). Accepts any union as a question."""
        if self.finished:
            return f"{action!r}: the game is over"
        who = self.current_player
        g = self.game
        n = g.num_players
        if self.phase == "meld":
            if not isinstance(action, Meld):
                return f"{action!r}: {self.seat_name(who)} must first decide on melds (Meld(sets), possibly empty)"
            full = set(self.complete_sets(who))
            for s in action.sets:
                if not 0 <= s < len(g.set_cards):
                    return f"{action!r}: no set {s}"
                if s not in full:
                    return f"{action!r}: {self.seat_name(who)} does not hold every card of set {s} ({' + '.join(g.deck.names(g.set_cards[s]))})"
            return None
        if self.phase == "ask":
            if isinstance(action, Accuse):
                return None
            if isinstance(action, Meld):
                if g.config.meld_timing != "any_time":
                    return f"{action!r}: melds happen in the window at the start of a round (meld_timing)"
                if action not in self._turn_melds(who):
                    return f"{action!r}: {self.seat_name(who)} can lay down only complete sets it holds (at least one)"
                return None
            if self.round > g.config.max_rounds:
                return f"{action!r}: after round {g.config.max_rounds} the first player must accuse"
            if not isinstance(action, Ask):
                return f"{action!r}: on a turn {self.seat_name(who)} asks a question or accuses"
            if not 0 <= action.target < n:
                return f"{action!r}: no player {action.target}"
            if action.target == who:
                return f"{action!r}: a player cannot ask itself"
            if action.family is Family.HELD:
                return f"{action!r}: a HELD question names no cards" if action.cards else None
            if not action.cards:
                return f"{action!r}: a question needs at least one card"
            if not all(0 <= c < g.num_cards for c in action.cards):
                return f"{action!r}: card ids are 0..{g.num_cards - 1}"
            return None
        if self.phase == "pass":
            if not isinstance(action, PassCard):
                return f"{action!r}: {self.seat_name(who)} must choose cards to pass"
            if action.card not in self.hands[who]:
                return f"{action!r}: {self.seat_name(who)} does not hold {g.deck[action.card].name if 0 <= action.card < g.num_cards else 'that card'} (or already chose it)"
            return None
        if self.phase == "sheet":
            if isinstance(action, Done):
                return self._sheet_ok(who)
            if not isinstance(action, Fill):
                return f"{action!r}: {self.seat_name(who)} is filling in its accusation sheet"
            if not 0 <= action.blank < len(BLANKS):
                return f"{action!r}: blanks are 0..7 ({', '.join(BLANKS)})"
            sheet = self.sheets[who]
            if action.blank in sheet:
                return f"{action!r}: the {BLANKS[action.blank]} blank is already filled"
            allowed = self._blank_range(action.blank, sheet)
            if action.value not in allowed:
                if not allowed:
                    return f"{action!r}: fill the {BLANKS[action.blank - 1]} blank before its {BLANKS[action.blank]}"
                return f"{action!r}: the {BLANKS[action.blank]} blank takes 0..{len(allowed) - 1}"
            return None
        return f"{action!r} is not legal now"

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` for the current player, or raise :class:`IllegalAction` saying why."""
        why = self.why_illegal(action)
        if why is not None:
            raise IllegalAction(why)
        events = self._apply(action)
        self._events.extend(events)
        return events

    def explain_illegal(self, action: Action) -> str:
        return self.why_illegal(action) or f"{action!r} is legal"

    def observation(self, player: int | None) -> AlibiObservation:
        cfg = self.game.config
        acting = player is not None and player == self.current_player
        passing = tuple(self.choices[player]) if player is not None and self.phase == "pass" else ()
        return AlibiObservation(
            game=self.game.name,
            player=player,
            num_players=cfg.num_players,
            events=self.views(player),
            current_player=self.current_player,
            legal_actions=LegalActions(*self._legal_parts()) if acting else (),
            terminal=self.finished,
            names=cfg.names,
            hand=tuple(sorted(self.hands[player])) if player is not None else (),
            hand_sizes=tuple(len(h) + len(c) for h, c in zip(self.hands, self.choices, strict=True)),
            round=self.round,
            epoch=self.epoch,
            phase=self.phase,
            first_player=cfg.first_player,
            melds=tuple(self.melds),
            meld_points=tuple(self.meld_points),
            passing=passing,
            to_pass=self.pass_count(player) - len(passing) if player is not None and self.phase == "pass" else 0,
            accuser=self.accuser,
            sheet=tuple(sorted(self.sheets[player].items())) if player is not None else (),
            scores=tuple(self.scores) if self.finished else (),
        )

    def clone(self) -> AlibiState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.hands = [set(h) for h in self.hands]
        other.history = [h.copy() for h in self.history]
        other.order = list(self.order)
        other.melds = list(self.melds)
        other.meld_points = list(self.meld_points)
        other.choices = [list(c) for c in self.choices]
        other.sheets = [dict(s) for s in self.sheets]
        other.sheet_order = list(self.sheet_order)
        other.scores = list(self.scores)
        return other

    def world(self) -> np.ndarray:
        """``[epoch, card] -> location`` (seats, box, melds): the knowledge bases' coordinates."""
        return np.stack(self.history)

    # -- transitions -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[Event]:
        if isinstance(action, Meld):
            return self._meld(action.sets)
        if isinstance(action, Ask):
            return self._ask(action)
        if isinstance(action, Accuse):
            return self._accuse()
        if isinstance(action, PassCard):
            who = self.current_player
            self.hands[who].discard(action.card)
            self.choices[who].append(action.card)
            return self._next_passer()
        if isinstance(action, Fill):
            self.sheets[self.current_player][action.blank] = action.value
            return []
        if isinstance(action, Done):
            self.pos += 1
            if self.pos >= len(self.sheet_order):
                return self._reveal()
            return []
        raise IllegalAction(f"unknown action {action!r}")  # unreachable: apply checks legality

    def _meld(self, sets: tuple[int, ...]) -> list[Event]:
        who = self.current_player
        if self.phase == "ask":  # on one's own turn, before the question: an epoch of its own
            self.window_epoch = None
            events = self._lay_down(who, sets)
            self.window_epoch = None
            return events
        events = self._lay_down(who, sets)
        self.pos += 1
        if self.pos >= len(self.order):
            self.phase, self.pos, self.window_epoch = "ask", 0, None
        return events

    def _lay_down(self, who: int, sets: tuple[int, ...]) -> list[Event]:
        """Move complete sets from ``who``'s hand to the meld pile and score them."""
        g = self.game
        events: list[Event] = []
        for s in sets:
            if self.window_epoch is None:
                self.history.append(self.history[-1].copy())
                self.window_epoch = self.epoch
            ids = g.set_cards[s]
            for c in ids:
                self.hands[who].discard(c)
            self.history[-1][list(ids)] = g.meld_loc
            pts = g.config.meld_points(CATEGORIES[g.set_category[s]], self.round)
            self.meld_points[who] += pts
            self.scores[who] += pts
            self.melds.append((who, s))
            events.append(Melded(who, s, ids, pts, self.round, self.window_epoch))
        return events

    def _ask(self, a: Ask) -> list[Event]:
        world = self.world()
        answer = self.game.answer(world, a.target, a.family, a.cards)
        event = Asked(self.current_player, a.target, a.family, a.cards, answer, self.epoch)
        self.turns += 1
        self.pos += 1
        if self.pos >= len(self.order):
            self.phase, self.pos = "pass", 0
            return [event, *self._start_pass()]
        return [event]

    def _start_pass(self) -> list[Event]:
        """Skip (and fill automatically) passers without a choice: all of a small hand."""
        while self.pos < len(self.order):
            who = self.order[self.pos]
            k = self.pass_count(who)
            if len(self.choices[who]) >= k:
                self.pos += 1
                continue
            if len(self.hands[who]) + len(self.choices[who]) <= k:  # must pass everything
                self.choices[who] += sorted(self.hands[who])
                self.hands[who] = set()
                self.pos += 1
                continue
            return []
        return self._resolve_pass()

    def _next_passer(self) -> list[Event]:
        who = self.current_player
        if len(self.choices[who]) >= self.pass_count(who):
            self.pos += 1
        return self._start_pass()

    def _resolve_pass(self) -> list[Event]:
        n = self.game.num_players
        given = [tuple(sorted(c)) for c in self.choices]
        row = self.history[-1].copy()
        for p, cs in enumerate(given):
            q = (p + 1) % n
            self.hands[q] |= set(cs)
            row[list(cs)] = q
        self.history.append(row)
        event = Passed(self.epoch - 1, tuple(len(c) for c in given), tuple(given))
        self.choices = [[] for _ in range(n)]
        self.round += 1
        self.phase, self.pos = "meld", 0
        return [event]

    def _accuse(self) -> list[Event]:
        who = self.current_player
        n = self.game.num_players
        self.accuser = who
        self.turns += 1
        self.phase = "sheet"
        self.sheet_order = [(who + i) % n for i in range(n)]
        self.pos = 0
        return [Accused(who)]

    def _reveal(self) -> list[Event]:
        g = self.game
        pts = []
        for p in range(g.num_players):
            first = p == self.accuser
            v = g.sheet_points(tuple(self.sheets[p].items()), self.box, first)
            if first:
                v += g.config.first_accuser_bonus
            pts.append(v)
            self.scores[p] += v
        self.finished = True
        self.phase = "over"
        sheets = tuple(tuple(sorted(s.items())) for s in self.sheets)
        return [Revealed(self.box, sheets, tuple(pts), tuple(self.scores))]

    # -- audit -------------------------------------------------------------------------------
    def hidden_variant(self, player: int, actions: Sequence[Action], rng: np.random.Generator) -> AlibiState | None:
        """Swap two dealt cards ``player`` has never held nor seen melded (between two other
        hands, or a hand and the box within a category), replay ``actions`` and keep the result
        if every public answer is the same: nothing ``player`` saw may change."""
        if self.finished:
            return None
        g, world = self.game, self.world()
        deal = world[0]
        unseen = [c for c in range(g.num_cards) if not np.isin(world[:, c], [player, g.meld_loc]).any()]
        pairs = [
            (a, b)
            for i, a in enumerate(unseen)
            for b in unseen[i + 1 :]
            if deal[a] != deal[b]
            and (g.box_loc not in (deal[a], deal[b]) or g.card_category[a] == g.card_category[b])
        ]
        answers = [e.answer for e in self._events if isinstance(e, Asked)]
        for i in rng.permutation(len(pairs))[:10] if pairs else []:
            variant = self._replay_with_swap(*pairs[i], actions)
            if variant is not None and [e.answer for e in variant._events if isinstance(e, Asked)] == answers:
                return variant
        return None

    def _replay_with_swap(self, a: int, b: int, actions: Sequence[Action]) -> AlibiState | None:
        """The game from this deal with cards ``a`` and ``b`` exchanged, after ``actions``
        (None if one of them is illegal there)."""
        swap = {a: b, b: a}
        hands = [[swap.get(int(c), int(c)) for c in np.flatnonzero(self.history[0] == p)] for p in range(len(self.hands))]
        try:
            other = AlibiState.from_deal(self.game, [swap.get(c, c) for c in self.box], hands)
            for action in actions:
                other.apply(action)
        except IllegalAction:
            return None
        return other


