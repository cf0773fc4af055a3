"""Alibi (Adlung Spiele 2001, Markus Nikisch), RULES.md §1′ and the Korean seed text.

Twelve suspects with 5-6 features each; four lie face up in a row. Players hold four cards from
a shuffled deck of evidence cards (one feature each) and special cards (Alibi, Watchful Eye,
Bribe). A turn: lay one evidence card matching at least one uncovered suspect (or play a
special card) and refill, or, holding no such evidence, exchange 1-4 cards; then an optional
single exchange. When five *different* matching features of one suspect lie on the tableaux,
the player who laid the last evidence names a culprit (the next player may, if he declines);
everyone scores one point per own tableau card matching the culprit, the namer one more. The
tableaux are discarded, the culprit leaves and a new suspect is drawn. The game ends when a
culprit cannot be replaced (RULES.md §1′C DEFAULT: nine convictions).

The per-suspect feature table is not public: by default it is generated from a fixed seed with
the model of RULES.md §1′C (build, sex, hair, top + 1-2 objects), or given in the config.

Information: hands and the deck order are hidden; everything laid, discarded, covered or
reshuffled is public; a draw is public in size, private in content. The knowledge base of one
player (see :meth:`AlibiAdlungGame.knowledge`) is static by default, over the *current*
location of every card: each hand, the deck, the discard pile and the table (a sound
relaxation after voids). ``knowledge(obs, exact_time=True)`` is the time-indexed one
(:mod:`deduce.games.alibi_adlung.history`), whose uniform measure is the exact posterior;
``solvers.timeline`` counts it exactly.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Card, Deck
from deduce.constraints import At, Constraint, Count, NotAt, Op
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
    "AlibiAdlungConfig",
    "AlibiAdlungGame",
    "AlibiAdlungState",
    "AlibiAdlungObservation",
    "Phase",
    "Special",
    "PlayEvidence",
    "PlayAlibi",
    "PlayBribe",
    "PlayEye",
    "Exchange",
    "Pass",
    "Name",
    "Decline",
    "Dealt",
    "RowDealt",
    "Drew",
    "Reshuffled",
    "LaidEvidence",
    "LaidAlibi",
    "Bribed",
    "LaidEye",
    "Exchanged",
    "Passed",
    "Declined",
    "Convicted",
    "SuspectDrawn",
    "GameEnded",
    "Void",
    "FEATURES",
    "BUILD",
    "SEX",
    "HAIR",
    "TOP",
    "ITEMS",
    "EVIDENCE_COUNTS",
    "DECK",
    "DISCARD",
    "TABLE",
    "generate_suspects",
    "void_records",
]

#: RULES.md §1′B/§1′C: the feature values; each is one evidence card type.
BUILD = ("fat", "thin")
SEX = ("male", "female")
HAIR = ("long_hair", "short_hair")
TOP = ("plain", "striped", "dotted")
ITEMS = ("revolver", "knife", "umbrella", "glasses", "newspaper", "shopping_bag")
FEATURES = BUILD + SEX + HAIR + TOP + ITEMS
#: RULES.md §1′C DEFAULT: three of each value (45) plus one more glasses, umbrella, newspaper = 48.
EVIDENCE_COUNTS: tuple[tuple[str, int], ...] = tuple(
    (f, 4 if f in ("glasses", "umbrella", "newspaper") else 3) for f in FEATURES
)
DECK = "deck"
DISCARD = "discard"
TABLE = "table"


class Special(StrEnum):
    """The three special card kinds."""

    ALIBI = "alibi"
    EYE = "eye"
    BRIBE = "bribe"


class Phase(StrEnum):
    """Which decision the current player faces."""

    OPENING = "opening"  # a hand dealt all special cards: redraw it (Exchange) or keep it (Pass)
    MAIN = "main"  # play evidence / a special card, or exchange 1-4 when nothing matches
    EYE = "eye"  # extra plays after a Watchful Eye (Pass stops)
    SWAP = "swap"  # the optional single exchange (Pass skips)
    NAME = "name"  # name a culprit or decline
    OVER = "over"


def generate_suspects(
    seed: int, count: int = 12, items: tuple[int, int] = (1, 2)
) -> tuple[tuple[str, ...], ...]:
    """``count`` distinct suspects of RULES.md §1′C's model: one build, sex, hair and top, plus
    ``items[0]``-``items[1]`` objects, drawn with a generator seeded by ``seed``.

    Why a generator: the printed table is not public; a fixed seed keeps every run comparable.
    """
    if len(items) != 2 or not 0 <= items[0] <= items[1] <= len(ITEMS):
        raise InvalidConfig("items", items, f"objects per suspect are (min, max) with 0 <= min <= max <= {len(ITEMS)}")
    rng = np.random.default_rng(seed)
    seen: set[frozenset[str]] = set()
    out: list[tuple[str, ...]] = []
    guard = 0
    while len(out) < count:
        guard += 1
        if guard > 100_000:
            raise InvalidConfig("count", count, f"cannot generate {count} distinct suspects")
        base = [g[int(rng.integers(len(g)))] for g in (BUILD, SEX, HAIR, TOP)]
        k = int(rng.integers(items[0], items[1] + 1))
        objects = [ITEMS[i] for i in sorted(rng.choice(len(ITEMS), size=k, replace=False))]
        feats = frozenset(base + objects)
        if feats in seen:
            continue
        seen.add(feats)
        out.append(tuple(base + objects))
    return tuple(out)


@dataclass(frozen=True)
class AlibiAdlungConfig:
    """Every DEFAULT of RULES.md §1′ is a field here."""

    num_players: int = 3
    #: cards in hand (seed: 4).
    hand_size: int = 4
    #: face-up suspects (seed: 4).
    row_size: int = 4
    #: different matching evidence values that convict (seed: 5; any 5 of a 6-feature suspect).
    convict_distinct: int = 5
    #: the evidence multiset as (feature, copies); RULES.md §1′C DEFAULT sums to 48.
    evidence_counts: tuple[tuple[str, int], ...] = EVIDENCE_COUNTS
    num_alibi: int = 3
    num_eye: int = 2
    num_bribe: int = 3
    #: the suspects' features; empty: generated by :func:`generate_suspects` (RULES.md §1′C).
    suspects: tuple[tuple[str, ...], ...] = ()
    num_suspects: int = 12
    suspect_seed: int = 2001
    #: objects per generated suspect (min, max): 4 base features + 1-2 = the seed's 5-6.
    suspect_items: tuple[int, int] = (1, 2)
    #: §1′D DEFAULT: holding matching evidence, one must play (evidence or a special card);
    #: False allows exchanging anyway (and the exchange then proves nothing).
    must_play_if_able: bool = True
    #: §1′D DEFAULT: a card must match an *uncovered* suspect to be playable (and a void is
    #: about uncovered suspects only).
    alibied_count_for_matching: bool = False
    #: Keirat [S6] "muß": with nothing playable one exchanges; True also allows passing.
    pass_when_stuck: bool = False
    #: the optional single exchange after the turn's action (seed).
    optional_exchange: bool = True
    #: Watchful Eye: how many more cards may be played (seed: 2; optional, §1′D legality).
    eye_extra_plays: int = 2
    #: §1′D DEFAULT: a hand dealt all special cards may be redrawn once (False: never).
    redraw_all_special_hand: bool = True
    #: DEFAULT: False, the redraw is the player's choice (the seed: such a player "may"
    #: exchange all four), decided before the first turn; True: the engine always redraws
    #: (and a hand kept whole then proves it was not all special cards).
    redraw_automatic: bool = False
    #: the third-Alibi rule: with every suspect but one covered, the Alibi's player may name it.
    third_alibi_rule: bool = True
    #: bonus of the player who names the culprit (seed: +1), and after the third Alibi (+1).
    convict_bonus: int = 1
    third_alibi_bonus: int = 1
    #: §1′D DEFAULT: if the namer declines, the next player may name any provable suspect.
    next_player_may_name: bool = True
    #: shuffle the discard pile into a new deck when a card must be drawn and the deck is empty.
    reshuffle_discards: bool = True
    #: §1′C DEFAULT: the game ends when a culprit cannot be replaced (9 convictions with 12
    #: suspects). True: it ends as soon as the suspect deck is empty (8 convictions).
    end_when_suspect_deck_empty: bool = False
    #: the starting seat (the youngest player).
    first_player: int = 0
    #: engine safeguard, not a rule: the game ends after this many turns (a deadlocked round).
    max_turns: int = 3000
    player_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 2 <= self.num_players <= 5:
            raise InvalidConfig("num_players", self.num_players, "Alibi (Adlung) needs 2 to 5 players")
        for label, k in (("hand_size", self.hand_size), ("row_size", self.row_size), ("convict_distinct", self.convict_distinct)):
            if k < 1:
                raise InvalidConfig(label, k, f"{label} must be positive")
        names = [f for f, _ in self.evidence_counts]
        if len(set(names)) != len(names) or any(k < 0 for _, k in self.evidence_counts):
            raise InvalidConfig(
                "evidence_counts", self.evidence_counts, "evidence_counts must name distinct features with non-negative counts"
            )
        for kind, k in (("num_alibi", self.num_alibi), ("num_eye", self.num_eye), ("num_bribe", self.num_bribe)):
            if k < 0:
                raise InvalidConfig(kind, k, f"{kind} cannot be negative")
        if self.num_players * self.hand_size > self.num_cards:
            raise InvalidConfig(
                "hand_size",
                self.hand_size,
                f"{self.num_players} hands of {self.hand_size} need more than {self.num_cards} cards",
            )
        try:
            sus = self.suspect_table()
        except InvalidConfig as exc:  # generated suspects: say which field of this config
            field = {"count": "num_suspects", "items": "suspect_items"}.get(exc.field, exc.field)
            raise InvalidConfig(field, exc.value, exc.reason) from None
        suspects_field = "suspects" if self.suspects else "num_suspects"
        if len(sus) < self.row_size:
            raise InvalidConfig(
                suspects_field,
                self.suspects or self.num_suspects,
                f"{len(sus)} suspects cannot fill a row of {self.row_size}",
            )
        if len(set(frozenset(s) for s in sus)) != len(sus):
            raise InvalidConfig("suspects", self.suspects, "suspects must have distinct feature sets")
        unknown = {f for s in sus for f in s} - set(names)
        if unknown:
            raise InvalidConfig(
                "suspects", self.suspects, f"suspect features without evidence cards: {sorted(unknown)}"
            )
        if self.player_names and len(self.player_names) != self.num_players:
            raise InvalidConfig(
                "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
            )
        if not 0 <= self.first_player < self.num_players:
            raise InvalidConfig("first_player", self.first_player, f"first_player must be a seat 0..{self.num_players - 1}")
        if self.eye_extra_plays < 0:
            raise InvalidConfig("eye_extra_plays", self.eye_extra_plays, "eye_extra_plays must be >= 0")
        if self.max_turns < 1:
            raise InvalidConfig("max_turns", self.max_turns, "max_turns must be positive")

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    @property
    def num_evidence(self) -> int:
        return sum(k for _, k in self.evidence_counts)

    @property
    def num_cards(self) -> int:
        return self.num_evidence + self.num_alibi + self.num_eye + self.num_bribe

    def suspect_table(self) -> tuple[tuple[str, ...], ...]:
        """The suspects' features (given, or generated from ``suspect_seed``)."""
        if self.suspects:
            return tuple(tuple(s) for s in self.suspects)
        return generate_suspects(self.suspect_seed, self.num_suspects, self.suspect_items)

    def deck(self) -> Deck:
        """Evidence cards ``feature#i`` by feature, then ``alibi#i``, ``eye#i``, ``bribe#i``."""
        cards: list[Card] = []
        for f, k in self.evidence_counts:
            for i in range(k):
                cards.append(Card(len(cards), f"{f}#{i + 1}", "evidence", (("feature", f),)))
        for kind, k in ((Special.ALIBI, self.num_alibi), (Special.EYE, self.num_eye), (Special.BRIBE, self.num_bribe)):
            for i in range(k):
                cards.append(Card(len(cards), f"{kind.value}#{i + 1}", "special", (("special", kind.value),)))
        return Deck(tuple(cards))


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayEvidence(Action):
    """Lay evidence ``card`` (matching an uncovered row suspect) on one's tableau."""

    card: int


@dataclass(frozen=True)
class PlayAlibi(Action):
    """Cover row suspect ``suspect`` (a suspect id) with Alibi ``card``."""

    card: int
    suspect: int


@dataclass(frozen=True)
class PlayBribe(Action):
    """Bribe ``card`` covers ``target``, an evidence card on another player's tableau; both go
    to the discard pile at once."""

    card: int
    target: int


@dataclass(frozen=True)
class PlayEye(Action):
    """Watchful Eye ``card``: play up to ``eye_extra_plays`` more cards, then refill."""

    card: int


@dataclass(frozen=True)
class Exchange(Action):
    """Discard ``cards`` face up and draw as many: 1-4 instead of a play (only when no evidence
    matches), or exactly 1 as the optional single exchange."""

    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(int(c) for c in self.cards)))


@dataclass(frozen=True)
class Pass(Action):
    """Skip the optional exchange, stop a Watchful Eye's extra plays, or (with
    ``pass_when_stuck``) do nothing when nothing matches."""


@dataclass(frozen=True)
class Name(Action):
    """Name row suspect ``suspect`` (a suspect id) as the culprit."""

    suspect: int


@dataclass(frozen=True)
class Decline(Action):
    """Do not name a culprit (the right passes to the next player once)."""


# -- events -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dealt(Event):
    """``player`` was dealt ``cards`` (content private; everyone sees the hand size)."""

    player: int
    cards: tuple[int, ...]
    size: int = 0
    kind: ClassVar[str] = "dealt"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else Dealt(self.player, (), self.size)


@dataclass(frozen=True)
class RowDealt(Event):
    """The initial face-up suspects (public)."""

    row: tuple[int, ...]
    kind: ClassVar[str] = "row"


@dataclass(frozen=True)
class Drew(Event):
    """``player`` drew ``count`` cards; only the drawer sees which."""

    player: int
    cards: tuple[int, ...]
    count: int
    kind: ClassVar[str] = "drew"

    def view(self, player: int | None) -> Event | None:
        return self if player == self.player else Drew(self.player, (), self.count)


@dataclass(frozen=True)
class Reshuffled(Event):
    """The discard pile (``cards``, public) was shuffled into a new deck (order hidden)."""

    cards: tuple[int, ...]
    kind: ClassVar[str] = "reshuffled"


@dataclass(frozen=True)
class LaidEvidence(Event):
    player: int
    card: int
    kind: ClassVar[str] = "evidence"


@dataclass(frozen=True)
class LaidAlibi(Event):
    player: int
    card: int
    suspect: int
    kind: ClassVar[str] = "alibi"


@dataclass(frozen=True)
class Bribed(Event):
    """``player``'s Bribe ``card`` took ``target`` from ``victim``'s tableau (both discarded)."""

    player: int
    card: int
    victim: int
    target: int
    kind: ClassVar[str] = "bribe"


@dataclass(frozen=True)
class LaidEye(Event):
    player: int
    card: int
    kind: ClassVar[str] = "eye"


@dataclass(frozen=True)
class Exchanged(Event):
    """``player`` discarded ``cards`` face up to draw as many (public).

    ``reason``: ``"instead"`` (instead of a play: proves a void), ``"single"`` (the optional
    exchange) or ``"opening"`` (a hand of special cards redrawn). For ``"instead"``,
    ``void`` lists the features that were playable then and ``hand_before`` the hand size.
    """

    player: int
    cards: tuple[int, ...]
    reason: str
    void: tuple[str, ...] = ()
    hand_before: int = 0
    kind: ClassVar[str] = "exchanged"


@dataclass(frozen=True)
class Passed(Event):
    """``player`` passed holding no playable evidence (``void``: the features playable then)."""

    player: int
    void: tuple[str, ...]
    hand_before: int
    kind: ClassVar[str] = "passed"


@dataclass(frozen=True)
class Declined(Event):
    player: int
    kind: ClassVar[str] = "declined"


@dataclass(frozen=True)
class Convicted(Event):
    """``suspect`` was convicted by ``by`` (``reason``: evidence or third_alibi); ``points`` per
    seat, bonus included (public)."""

    suspect: int
    by: int
    reason: str
    points: tuple[int, ...]
    kind: ClassVar[str] = "convicted"


@dataclass(frozen=True)
class SuspectDrawn(Event):
    """``suspect`` replaced the culprit at row position ``slot`` (public)."""

    suspect: int
    slot: int
    kind: ClassVar[str] = "suspect"


@dataclass(frozen=True)
class GameEnded(Event):
    reason: str
    scores: tuple[int, ...]
    kind: ClassVar[str] = "end"


@dataclass(frozen=True)
class Void:
    """A proof that ``player`` held no card of ``features`` at one moment, translated to now:
    at most ``limit`` cards of those features are in the player's hand now (see
    :func:`void_records`)."""

    player: int
    features: frozenset[str]
    limit: int


@dataclass(frozen=True)
class AlibiAdlungObservation(Observation):
    """One seat's view (``player=None``: a spectator). Everything but ``hand`` is public."""

    deck_size: int = 0
    discard: tuple[int, ...] = ()
    tableaux: tuple[tuple[int, ...], ...] = ()
    #: (suspect id, alibi card) for each covered suspect.
    alibis: tuple[tuple[int, int], ...] = ()
    #: Watchful Eye cards lying on the table this round, as (player, card).
    eyes: tuple[tuple[int, int], ...] = ()
    row: tuple[int, ...] = ()
    suspects_left: int = 0
    convicted: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    phase: str = Phase.MAIN.value
    eye_left: int = 0
    turn: int = 0


# -- the game ---------------------------------------------------------------------------------
class AlibiAdlungGame(Game[AlibiAdlungConfig]):
    """Alibi (Adlung 2001) per RULES.md §1′."""

    name: ClassVar[str] = "alibi-adlung"
    config_class: ClassVar[type] = AlibiAdlungConfig
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    knowledge_relaxed: ClassVar[str | None] = (
        "the static model forgets when cards moved (exchanges, bribes, reshuffles), so its worlds are a "
        "sound relaxation; 'deduce assist alibi-adlung' shows the exact face posterior"
    )

    def __init__(self, config: AlibiAdlungConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        self.deck = config.deck()
        self.suspects: tuple[frozenset[str], ...] = tuple(frozenset(s) for s in config.suspect_table())
        self.feature_of: tuple[str | None, ...] = tuple(c.attribute("feature") for c in self.deck)  # type: ignore[misc]
        self.special_of: tuple[Special | None, ...] = tuple(
            Special(c.attribute("special")) if c.attribute("special") else None for c in self.deck
        )
        self.cards_of_feature: dict[str, tuple[int, ...]] = {
            f: tuple(c.id for c in self.deck if self.feature_of[c.id] == f) for f, _ in config.evidence_counts
        }

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats' hands by name, then deck, discard, table."""
        return self.config.names + (DECK, DISCARD, TABLE)

    def loc(self, name: str) -> int:
        return self.locations.index(name)

    def matches(self, card: int, suspect: int) -> bool:
        f = self.feature_of[card]
        return f is not None and f in self.suspects[suspect]

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> AlibiAdlungState:
        return AlibiAdlungState(self, seed)

    # -- knowledge ---------------------------------------------------------------------------
    def knowledge(
        self, observation: Observation, check: Any = False, exact_time: bool = False, cohorts: bool = True
    ) -> KnowledgeBase:
        """The observing player's knowledge base over the *current* location of every card
        (``exact_time=True``: the time-indexed one of
        :func:`deduce.games.alibi_adlung.history.timed_knowledge`, whose uniform measure is the
        exact posterior; count it with ``solvers.timeline``, ``chain`` or ``cpsat``).

        Facts: own hand, the discard pile and the table (tableaux, Alibis, Watchful Eyes) are
        known card by card; every other card is in an opponent's hand or the deck; every hand
        size and the deck size are counts. The only other
        deduction is a void: an exchange (or pass) instead of a play proves the player held no
        evidence matching an uncovered suspect *at that moment*. The hand changes afterwards,
        so each void is translated to the present (:func:`void_records`): the ``k`` cards kept
        then never left unless they were laid since, and every card laid since that is not of
        a void feature may have been one of them; so at most ``size_now - max(0, k - r)`` cards
        of the void features are in that hand now (``r``: such ambiguous removals). This is
        sound (the true world always satisfies it) but a relaxation: it forgets *which* cards
        are old, so a uniform measure on this knowledge base is not the exact Bayesian
        posterior after a void (it under-weights hands with fewer void-feature cards). Counts
        and marginals computed on it are exact for the knowledge base itself. With
        ``cohorts`` (default) it also knows that a hidden card that was not in the last
        reshuffled pile is in a hand, not the deck
        (:func:`~deduce.games.alibi_adlung.history.cohort_facts`).
        """
        observation = own_observation(observation, AlibiAdlungObservation, "AlibiAdlungGame.knowledge")
        if exact_time:
            from deduce.games.alibi_adlung.history import timed_knowledge

            return timed_knowledge(self, observation, check=check)
        obs = observation
        kb = KnowledgeBase(self.deck, self.locations)
        n = obs.num_players
        deck_loc, discard_loc, table_loc = n, n + 1, n + 2
        everything = range(len(self.deck))
        cons: list[Constraint] = []
        if obs.player is not None:
            cons += [At(c, obs.player) for c in obs.hand]
        cons += [At(c, discard_loc) for c in obs.discard]
        table = [c for t in obs.tableaux for c in t] + [c for _, c in obs.alibis] + [c for _, c in obs.eyes]
        cons += [At(c, table_loc) for c in table]
        # every card not known by name is in an opponent's hand or the deck
        known = set(obs.hand) | set(obs.discard) | set(table)
        public = [discard_loc, table_loc] + ([obs.player] if obs.player is not None else [])
        cons += [NotAt(c, z) for c in everything if c not in known for z in public]
        cons += [Count(everything, q, size) for q, size in enumerate(obs.hand_sizes)]
        cons += [
            Count(everything, deck_loc, obs.deck_size),
            Count(everything, discard_loc, len(obs.discard)),
            Count(everything, table_loc, len(table)),
        ]
        for v in void_records(obs.events, obs.hand_sizes, self.feature_of):
            if v.player == obs.player:
                continue
            cards = [c for f in sorted(v.features) for c in self.cards_of_feature.get(f, ())]
            if cards:
                cons.append(Count(cards, v.player, v.limit, Op.LE))
        if cohorts:
            from deduce.games.alibi_adlung.history import cohort_facts

            cons += cohort_facts(self, obs)
        kb.extend(cons, source="observation", check=check)
        return kb


def void_records(
    events: Iterable[Event], hand_sizes: Sequence[int], feature_of: Sequence[str | None]
) -> list[Void]:
    """The voids a history proves, translated to the present (see ``knowledge``).

    A void at time t: the hand then held no card of features ``M``. ``k`` of its cards were
    kept (not exchanged away). Every later removal of a card *not* of a feature in ``M`` may
    have been one of the kept cards (``r`` of them); a removed card of a feature in ``M`` was
    drawn after t. So at least ``k - r`` kept cards are still held, and at most
    ``size_now - max(0, k - r)`` cards of ``M`` are in the hand now. Vacuous records are dropped.
    """
    open_: list[list[Any]] = []  # [player, features, kept, ambiguous removals]

    def removed(player: int, cards: Iterable[int]) -> None:
        for c in cards:
            f = feature_of[c]
            for rec in open_:
                if rec[0] == player and f not in rec[1]:
                    rec[3] += 1

    for e in events:
        if isinstance(e, Exchanged):
            if e.reason == "instead":
                removed(e.player, e.cards)
                open_.append([e.player, frozenset(e.void), e.hand_before - len(e.cards), 0])
            else:
                removed(e.player, e.cards)
        elif isinstance(e, Passed):
            open_.append([e.player, frozenset(e.void), e.hand_before, 0])
        elif isinstance(e, LaidEvidence | LaidAlibi | LaidEye):
            removed(e.player, [e.card])
        elif isinstance(e, Bribed):
            removed(e.player, [e.card])
    out: list[Void] = []
    for player, feats, kept, amb in open_:
        old = kept - amb
        if old > 0 and feats:
            out.append(Void(player, feats, max(0, hand_sizes[player] - old)))
    return out


@dataclass
class _Turn:
    """What happened in the current turn (for the conviction check)."""

    laid_evidence: bool = False
    third_alibi: int | None = None  # the suspect left uncovered by this turn's third Alibi


class AlibiAdlungState(State):
    """The truth of one Alibi (Adlung) game."""

    def __init__(
        self,
        game: AlibiAdlungGame,
        seed: int | np.random.SeedSequence | None = None,
        deck_order: Sequence[int] | None = None,
        suspect_order: Sequence[int] | None = None,
    ) -> None:
        super().__init__(game)
        self.game: AlibiAdlungGame = game
        cfg = game.config
        root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self._seed = copy.deepcopy(root)  # unspawned: a variant deal replays the same reshuffles
        deal_seq, suspect_seq, play_seq = root.spawn(3)
        self.rng = np.random.default_rng(play_seq)
        if deck_order is None:
            deck_order = np.random.default_rng(deal_seq).permutation(cfg.num_cards)
        if suspect_order is None:
            suspect_order = np.random.default_rng(suspect_seq).permutation(len(game.suspects))
        deck_order = [int(c) for c in deck_order]
        suspect_order = [int(s) for s in suspect_order]
        problem = placement_problem(deck_order, cfg.num_cards)
        if problem:
            raise InvalidConfig("deck_order", deck_order, f"deck_order must be a permutation of every card id: {problem}")
        problem = placement_problem(suspect_order, len(game.suspects), "suspect")
        if problem:
            raise InvalidConfig(
                "suspect_order", suspect_order, f"suspect_order must be a permutation of every suspect id: {problem}"
            )
        self._deal = (tuple(deck_order), tuple(suspect_order))
        #: the deck order after each reshuffle so far; ``_forced`` overrides them (a variant
        #: that differs from this game only in reshuffled cards the player never saw).
        self.reshuffles: list[tuple[int, ...]] = []
        self._forced: tuple[tuple[int, ...], ...] = ()
        n = cfg.num_players
        #: the draw deck, top card first.
        self.deck: list[int] = list(deck_order)
        self.suspect_deck: list[int] = suspect_order[cfg.row_size :]
        self.row: list[int] = suspect_order[: cfg.row_size]
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.discard: list[int] = []
        self.tableaux: list[list[int]] = [[] for _ in range(n)]
        self.alibis: dict[int, int] = {}
        self.eyes: list[tuple[int, int]] = []
        self.convicted: list[int] = []
        self.scores = [0] * n
        self.turn_player = cfg.first_player
        self.phase = Phase.MAIN
        self.eye_left = 0
        self.turns = 0
        self.turn = _Turn()
        #: the seat holding the right to name at the start of its turn (after a decline).
        self.pending_namer: int | None = None
        self.end_reason: str | None = None
        events: list[Event] = [RowDealt(tuple(self.row))]
        for p in range(n):
            cards = self._take(cfg.hand_size, events)
            self.hands[p] = cards
            events.append(Dealt(p, tuple(cards), len(cards)))
        #: seats still to decide on redrawing a dealt hand of special cards, in seat order
        self.openers: list[int] = []
        if cfg.redraw_all_special_hand:
            for p in range(n):
                hand = self.hands[p]
                if len(hand) == cfg.hand_size and all(game.special_of[c] is not None for c in hand):
                    if cfg.redraw_automatic:
                        events.extend(self._discard_and_draw(p, list(hand), "opening"))
                    else:
                        self.openers.append(p)
        if self.openers:
            self.phase = Phase.OPENING
        self._events = events

    @classmethod
    def from_deal(
        cls,
        game: AlibiAdlungGame,
        deck_order: Sequence[int],
        suspect_order: Sequence[int] | None = None,
        seed: int | np.random.SeedSequence | None = None,
    ) -> AlibiAdlungState:
        """A game from a given card order (top first: hands are dealt 4 at a time from the top,
        seat by seat) and suspect order (the first ``row_size`` form the row); ``seed`` drives
        the reshuffles exactly as in ``new_initial_state(seed)``."""
        if suspect_order is None:
            suspect_order = range(len(game.suspects))
        return cls(game, seed, deck_order=deck_order, suspect_order=suspect_order)

    @classmethod
    def redeal(
        cls,
        game: AlibiAdlungGame,
        deck_order: Sequence[int],
        suspect_order: Sequence[int],
        reshuffles: Sequence[Sequence[int]],
        seed: int | np.random.SeedSequence | None = None,
    ) -> AlibiAdlungState:
        """:meth:`from_deal`, with the deck order after each reshuffle given too (top first):
        the ``k``-th reshuffle comes out as ``reshuffles[k]`` when that is an order of the pile
        it shuffles (else as the seed draws it): how a search redraws a hidden deal and the
        hidden orders of the reshuffles since."""
        for order in reshuffles:
            if len(set(order)) != len(order) or any(not 0 <= c < game.config.num_cards for c in order):
                raise InvalidConfig("reshuffles", tuple(order), "each reshuffle must order distinct card ids")
        state = cls.from_deal(game, deck_order, suspect_order, seed=seed)
        state._forced = tuple(tuple(int(c) for c in order) for order in reshuffles)
        return state

    @property
    def dealt_order(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The deck order and the suspect order this game was dealt from (top first)."""
        return self._deal

    # -- helpers -----------------------------------------------------------------------------
    def _take(self, k: int, events: list[Event]) -> list[int]:
        """Up to ``k`` cards from the top, reshuffling the discard pile when the deck runs out."""
        out: list[int] = []
        for _ in range(k):
            if not self.deck:
                if not (self.game.config.reshuffle_discards and self.discard):
                    break
                pile = sorted(self.discard)
                events.append(Reshuffled(tuple(pile)))
                self.deck = [pile[i] for i in self.rng.permutation(len(pile))]
                k = len(self.reshuffles)
                if k < len(self._forced) and sorted(self._forced[k]) == pile:
                    self.deck = list(self._forced[k])
                self.reshuffles.append(tuple(self.deck))
                self.discard = []
            out.append(self.deck.pop(0))
        return out

    def _draw(self, player: int, k: int) -> list[Event]:
        events: list[Event] = []
        cards = self._take(k, events)
        self.hands[player].extend(cards)
        events.append(Drew(player, tuple(cards), len(cards)))
        return events

    def _discard_and_draw(self, player: int, cards: list[int], reason: str, void: tuple[str, ...] = ()) -> list[Event]:
        before = len(self.hands[player])
        for c in cards:
            self.hands[player].remove(c)
        self.discard.extend(cards)
        events: list[Event] = [Exchanged(player, tuple(sorted(cards)), reason, void, before)]
        events.extend(self._draw(player, len(cards)))
        return events

    def uncovered(self) -> list[int]:
        return [s for s in self.row if s not in self.alibis]

    def playable_features(self) -> frozenset[str]:
        """Evidence features that may be laid now (matching an uncovered suspect, by default)."""
        pool = self.row if self.game.config.alibied_count_for_matching else self.uncovered()
        return frozenset(f for s in pool for f in self.game.suspects[s])

    def matching_evidence(self, player: int) -> list[int]:
        feats = self.playable_features()
        return [c for c in self.hands[player] if self.game.feature_of[c] in feats]

    def distinct_on_table(self, suspect: int) -> int:
        """How many different features of ``suspect`` lie on the tableaux."""
        feats = self.game.suspects[suspect]
        return len({self.game.feature_of[c] for t in self.tableaux for c in t} & feats)

    def provable(self) -> list[int]:
        """Uncovered row suspects proved by ``convict_distinct`` different matching evidence."""
        need = self.game.config.convict_distinct
        return [s for s in self.uncovered() if self.distinct_on_table(s) >= need]

    def name_options(self) -> list[int]:
        opts = self.provable()
        third = self.turn.third_alibi
        if third is not None and third not in opts and self.pending_namer is None:
            opts.append(third)
        return opts

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.phase is Phase.OPENING:
            return self.openers[0]
        return State.TERMINAL if self.phase is Phase.OVER else self.turn_player

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> list[float]:
        """Points (the highest score wins)."""
        return [float(s) for s in self.scores]

    def winners(self) -> tuple[int, ...]:
        best = max(self.scores)
        return tuple(p for p, s in enumerate(self.scores) if s == best)

    def _special_actions(self, p: int) -> list[Action]:
        g = self.game
        out: list[Action] = []
        uncovered = self.uncovered()
        for c in self.hands[p]:
            kind = g.special_of[c]
            if kind is Special.ALIBI and len(uncovered) > 1:
                out += [PlayAlibi(c, s) for s in uncovered]
            elif kind is Special.BRIBE:
                out += [PlayBribe(c, t) for q, tab in enumerate(self.tableaux) if q != p for t in tab
                        if g.feature_of[t] is not None]
            elif kind is Special.EYE:
                out.append(PlayEye(c))
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.phase is Phase.OVER or (player is not None and player != self.current_player):
            return []
        p = self.turn_player
        cfg = self.game.config
        if self.phase is Phase.OPENING:
            return [Exchange(tuple(sorted(self.hands[self.openers[0]]))), Pass()]
        if self.phase is Phase.NAME:
            return [Name(s) for s in self.name_options()] + [Decline()]
        if self.phase is Phase.SWAP:
            return [Exchange((c,)) for c in self.hands[p]] + [Pass()]
        plays: list[Action] = [PlayEvidence(c) for c in self.matching_evidence(p)]
        plays += self._special_actions(p)
        if self.phase is Phase.EYE:
            return plays + [Pass()]
        out = list(plays)
        stuck = not self.matching_evidence(p)
        if stuck or not cfg.must_play_if_able:
            hand = sorted(self.hands[p])
            for k in range(1, len(hand) + 1):
                out += [Exchange(combo) for combo in itertools.combinations(hand, k)]
        if not out or (stuck and cfg.pass_when_stuck):
            out.append(Pass())
        return out

    def explain_illegal(self, action: Action) -> str:
        # lazy: the log module imports this one
        from deduce.games.alibi_adlung.log import suspect_name

        g = self.game
        p = self.turn_player
        hand = self.hands[p]
        phase = self.phase.value
        if self.phase is Phase.OPENING:
            return (f"{action!r}: {self.seat_name(self.openers[0])} was dealt only special cards and must first "
                    "redraw all four special cards (Exchange of the whole hand) or keep them (Pass)")
        if isinstance(action, Name | Decline) and self.phase is not Phase.NAME:
            return f"{action!r}: {self.seat_name(p)} has no culprit to name now (phase {phase})"
        if isinstance(action, Name):
            return (f"{action!r}: suspect {suspect_name(action.suspect)} cannot be named; provable now: "
                    f"{', '.join(map(suspect_name, self.name_options())) or 'none'}")
        if self.phase is Phase.NAME:
            return f"{action!r}: {self.seat_name(p)} must name a culprit or decline first"
        for attr in ("card",):
            c = getattr(action, attr, None)
            if c is not None and c not in hand:
                return f"{action!r}: {self.seat_name(p)} does not hold {g.deck[c].name if 0 <= c < len(g.deck) else c}"
        if isinstance(action, Exchange):
            missing = [c for c in action.cards if c not in hand]
            if missing:
                return f"{action!r}: {self.seat_name(p)} does not hold {', '.join(g.deck[c].name if 0 <= c < len(g.deck) else str(c) for c in missing)}"
            if self.phase is Phase.SWAP and len(action.cards) != 1:
                return f"{action!r}: the optional exchange is exactly one card"
            if self.phase is Phase.EYE:
                return f"{action!r}: no exchange during a Watchful Eye's extra plays"
            if self.matching_evidence(p) and g.config.must_play_if_able:
                names = g.deck.names(self.matching_evidence(p))
                return (f"{action!r}: {self.seat_name(p)} holds evidence matching an uncovered suspect "
                        f"({', '.join(names)}) and must play instead of exchanging")
            if not action.cards:
                return f"{action!r}: exchange at least one card"
        if self.phase is Phase.SWAP and not isinstance(action, Pass):
            return f"{action!r}: after the turn's action only the optional single exchange (or Pass) remains"
        if isinstance(action, PlayEvidence):
            if g.feature_of[action.card] is None:
                return f"{action!r}: {g.deck[action.card].name} is a special card, not evidence"
            return (f"{action!r}: {g.deck[action.card].name} matches no uncovered suspect "
                    f"({self.uncovered()})")
        if isinstance(action, PlayAlibi | PlayBribe | PlayEye):
            want = {PlayAlibi: Special.ALIBI, PlayBribe: Special.BRIBE, PlayEye: Special.EYE}[type(action)]
            if g.special_of[action.card] is not want:
                return f"{action!r}: {g.deck[action.card].name} is not a {want.value} card"
            if isinstance(action, PlayAlibi):
                if action.suspect not in self.row:
                    return f"{action!r}: suspect {suspect_name(action.suspect)} is not in the row ({', '.join(map(suspect_name, self.row))})"
                if action.suspect in self.alibis:
                    return f"{action!r}: suspect {suspect_name(action.suspect)} is already covered"
                return f"{action!r}: the last uncovered suspect cannot be covered"
            if isinstance(action, PlayBribe):
                owner = next((q for q, t in enumerate(self.tableaux) if action.target in t), None)
                if owner is None:
                    return f"{action!r}: {g.deck[action.target].name if 0 <= action.target < len(g.deck) else action.target} is not on any tableau"
                if owner == p:
                    return f"{action!r}: a bribe covers another player's evidence, not one's own"
        if isinstance(action, Pass):
            if self.phase is Phase.MAIN:
                return f"{action!r}: {self.seat_name(p)} must play or exchange (passing is not allowed)"
        return f"{action!r} is not legal for {self.seat_name(p)} now (phase {phase})"

    def observation(self, player: int | None) -> AlibiAdlungObservation:
        cfg = self.game.config
        acting = player is not None and player == self.current_player
        return AlibiAdlungObservation(
            game=self.game.name,
            player=player,
            num_players=cfg.num_players,
            events=self.views(player),
            current_player=self.current_player,
            legal_actions=tuple(self.legal_actions()) if acting else (),
            terminal=self.is_terminal(),
            names=cfg.names,
            hand=tuple(sorted(self.hands[player])) if player is not None else (),
            hand_sizes=tuple(len(h) for h in self.hands),
            deck_size=len(self.deck),
            discard=tuple(self.discard),
            tableaux=tuple(tuple(t) for t in self.tableaux),
            alibis=tuple(sorted(self.alibis.items())),
            eyes=tuple(self.eyes),
            row=tuple(self.row),
            suspects_left=len(self.suspect_deck),
            convicted=tuple(self.convicted),
            scores=tuple(self.scores),
            phase=self.phase.value,
            eye_left=self.eye_left,
            turn=self.turns,
        )

    def clone(self) -> AlibiAdlungState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.rng = copy.deepcopy(self.rng)
        other.deck = list(self.deck)
        other.reshuffles = list(self.reshuffles)
        other.suspect_deck = list(self.suspect_deck)
        other.row = list(self.row)
        other.hands = [list(h) for h in self.hands]
        other.discard = list(self.discard)
        other.tableaux = [list(t) for t in self.tableaux]
        other.alibis = dict(self.alibis)
        other.eyes = list(self.eyes)
        other.convicted = list(self.convicted)
        other.scores = list(self.scores)
        other.turn = copy.copy(self.turn)
        other.openers = list(self.openers)
        return other

    def world(self) -> np.ndarray:
        """The current location of every card in the knowledge base's coordinates."""
        n = self.game.num_players
        w = np.full(self.game.config.num_cards, -1, dtype=np.int64)
        for p, hand in enumerate(self.hands):
            w[hand] = p
        w[self.deck] = n
        w[self.discard] = n + 1
        table = [c for t in self.tableaux for c in t] + list(self.alibis.values()) + [c for _, c in self.eyes]
        w[table] = n + 2
        assert (w >= 0).all(), "a card is nowhere"
        return w

    # -- transitions -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[Event]:
        p = self.turn_player
        events: list[Event] = []
        if self.phase is Phase.OPENING:
            who = self.openers.pop(0)
            if isinstance(action, Exchange):
                events += self._discard_and_draw(who, list(action.cards), "opening")
            if not self.openers:
                self.phase = Phase.MAIN
            return events
        if self.phase is Phase.NAME:
            if isinstance(action, Name):
                return self._convict(action.suspect, p)
            events.append(Declined(p))
            return events + self._after_decline()
        if self.phase is Phase.SWAP:
            if isinstance(action, Exchange):
                events += self._discard_and_draw(p, list(action.cards), "single")
            return events + self._end_turn()
        if isinstance(action, Exchange):  # instead of a play (MAIN)
            void = tuple(sorted(self.playable_features())) if not self.matching_evidence(p) else ()
            events += self._discard_and_draw(p, list(action.cards), "instead", void)
            return events + self._to_swap()
        if isinstance(action, Pass):
            if self.phase is Phase.EYE:
                return self._finish_plays()
            void = tuple(sorted(self.playable_features())) if not self.matching_evidence(p) else ()
            events.append(Passed(p, void, len(self.hands[p])))
            return events + self._to_swap()
        events += self._play(p, action)
        if self.phase is Phase.EYE:
            self.eye_left -= 1
            # wait for the player even when it cannot play: stopping early would tell the
            # table that its hand holds nothing playable
            if self.eye_left > 0:
                return events
            return events + self._finish_plays()
        if isinstance(action, PlayEye):
            self.phase = Phase.EYE
            self.eye_left = self.game.config.eye_extra_plays
            if self.eye_left > 0:
                return events
        return events + self._finish_plays()

    def _play(self, p: int, action: Action) -> list[Event]:
        card = action.card  # type: ignore[attr-defined]
        self.hands[p].remove(card)
        if isinstance(action, PlayEvidence):
            self.tableaux[p].append(card)
            self.turn.laid_evidence = True
            return [LaidEvidence(p, card)]
        if isinstance(action, PlayAlibi):
            self.alibis[action.suspect] = card
            left = self.uncovered()
            if self.game.config.third_alibi_rule and len(left) == 1 and len(self.alibis) == self.game.config.row_size - 1:
                self.turn.third_alibi = left[0]
            return [LaidAlibi(p, card, action.suspect)]
        if isinstance(action, PlayBribe):
            victim = next(q for q, t in enumerate(self.tableaux) if action.target in t)
            self.tableaux[victim].remove(action.target)
            self.discard.extend([card, action.target])
            return [Bribed(p, card, victim, action.target)]
        assert isinstance(action, PlayEye)
        self.eyes.append((p, card))
        if self.phase is Phase.EYE:
            self.eye_left += self.game.config.eye_extra_plays
        return [LaidEye(p, card)]

    def _finish_plays(self) -> list[Event]:
        """Refill the hand after the turn's plays, then the optional exchange."""
        p = self.turn_player
        self.eye_left = 0
        missing = self.game.config.hand_size - len(self.hands[p])
        events = self._draw(p, missing) if missing > 0 else []
        return events + self._to_swap()

    def _to_swap(self) -> list[Event]:
        if self.game.config.optional_exchange and self.hands[self.turn_player] and (self.deck or self.discard):
            self.phase = Phase.SWAP
            return []
        return self._end_turn()

    def _end_turn(self) -> list[Event]:
        """The conviction check, then the next player."""
        if self.name_options() and (self.turn.laid_evidence or self.turn.third_alibi is not None):
            self.phase = Phase.NAME
            return []
        return self._next_turn()

    def _next_turn(self, namer: int | None = None) -> list[Event]:
        cfg = self.game.config
        self.turns += 1
        self.turn = _Turn()
        self.turn_player = (self.turn_player + 1) % cfg.num_players
        if self.turns >= cfg.max_turns:
            return self._end_game("turn limit")
        self.pending_namer = None
        if namer is not None and self.provable():
            self.pending_namer = namer
            self.phase = Phase.NAME
        else:
            self.phase = Phase.MAIN
        return []

    def _after_decline(self) -> list[Event]:
        cfg = self.game.config
        p = self.turn_player
        if self.pending_namer is not None:  # the passed-on right was declined too: play on
            self.pending_namer = None
            self.phase = Phase.MAIN
            return []
        nxt = (p + 1) % cfg.num_players if cfg.next_player_may_name else None
        return self._next_turn(namer=nxt)

    def _convict(self, suspect: int, by: int) -> list[Event]:
        cfg = self.game.config
        g = self.game
        third = self.turn.third_alibi == suspect and suspect not in self.provable() and self.pending_namer is None
        points = [sum(1 for c in t if g.matches(c, suspect)) for t in self.tableaux]
        points[by] += cfg.third_alibi_bonus if third else cfg.convict_bonus
        for q, pts in enumerate(points):
            self.scores[q] += pts
        events: list[Event] = [Convicted(suspect, by, "third_alibi" if third else "evidence", tuple(points))]
        for t in self.tableaux:
            self.discard.extend(t)
            t.clear()
        self.discard.extend(self.alibis.values())
        self.discard.extend(c for _, c in self.eyes)
        self.alibis.clear()
        self.eyes.clear()
        self.convicted.append(suspect)
        slot = self.row.index(suspect)
        self.pending_namer = None
        if not self.suspect_deck:
            self.row.pop(slot)
            return events + self._end_game("no replacement suspect")
        new = self.suspect_deck.pop(0)
        self.row[slot] = new
        events.append(SuspectDrawn(new, slot))
        if cfg.end_when_suspect_deck_empty and not self.suspect_deck:
            return events + self._end_game("suspect deck empty")
        self.turn_player = by
        return events + self._next_turn()

    def _end_game(self, reason: str) -> list[Event]:
        self.phase = Phase.OVER
        self.end_reason = reason
        return [GameEnded(reason, tuple(self.scores))]

    # -- audit -------------------------------------------------------------------------------
    def hidden_variant(
        self, player: int, actions: Sequence[Action], rng: np.random.Generator
    ) -> AlibiAdlungState | None:
        """A game that differs from this one only in cards ``player`` never saw, after the same
        ``actions``: the dealt cards it never saw are permuted (first freely, then only among
        copies of one feature or special), or, after a reshuffle, two cards of the new deck
        order it never saw again trade places. Nothing ``player`` saw may change, and the
        hidden cards must really end up elsewhere (None if no such variant was found)."""
        g = self.game
        seen = self._seen_by(player, self.views(player))
        unseen = [c for c in range(len(g.deck)) if c not in seen]
        world = self.world()
        for attempt in range(8):
            if attempt in (3, 7) and self.reshuffles:
                variant = self._reshuffle_variant(player, actions, rng)
            elif len(unseen) >= 2:
                if attempt < 3:
                    mapping = dict(zip(unseen, rng.permutation(unseen).tolist(), strict=True))
                else:
                    by_type: dict[object, list[int]] = {}
                    for c in unseen:
                        by_type.setdefault(g.feature_of[c] or g.special_of[c], []).append(c)
                    mapping = {}
                    for group in by_type.values():
                        mapping.update(zip(group, rng.permutation(group).tolist(), strict=True))
                if all(k == v for k, v in mapping.items()):
                    continue
                variant = self._replay_with_mapping(mapping, actions)
            else:
                continue
            if variant is not None and not np.array_equal(variant.world(), world):
                return variant
        return None

    @staticmethod
    def _seen_by(player: int, views: Iterable[Event]) -> set[int]:
        """Every card id named in ``views`` (``player``'s dealt hand and draws included)."""
        seen: set[int] = set()
        for e in views:
            for attr in ("card", "target"):
                if hasattr(e, attr):
                    seen.add(int(getattr(e, attr)))
            seen.update(int(c) for c in getattr(e, "cards", ()) or ())
        return seen

    def _reshuffle_variant(
        self, player: int, actions: Sequence[Action], rng: np.random.Generator, tries: int = 6
    ) -> AlibiAdlungState | None:
        """Swap two cards of one reshuffled deck order that ``player`` never saw again after
        that reshuffle and that sit in different places now: any two first (the replay may
        make an action illegal), then two of one type (always legal)."""
        g = self.game
        views = self.views(player)
        marks = [i for i, e in enumerate(views) if isinstance(e, Reshuffled)]
        world = self.world()
        deck_order, suspect_order = self._deal
        for attempt in range(tries):
            k = int(rng.integers(len(self.reshuffles)))
            later = self._seen_by(player, views[marks[k] + 1:]) | set(self.hands[player])
            order = list(self.reshuffles[k])
            slots = [i for i, c in enumerate(order) if c not in later]
            same_type = attempt >= tries // 2
            pairs = [(i, j) for a, i in enumerate(slots) for j in slots[a + 1:]
                     if world[order[i]] != world[order[j]]
                     and (not same_type or (g.feature_of[order[i]] or g.special_of[order[i]])
                          == (g.feature_of[order[j]] or g.special_of[order[j]]))]
            if not pairs:
                continue
            i, j = pairs[int(rng.integers(len(pairs)))]
            order[i], order[j] = order[j], order[i]
            forced = list(self.reshuffles)
            forced[k] = tuple(order)
            other = AlibiAdlungState(self.game, copy.deepcopy(self._seed), deck_order=deck_order,
                                     suspect_order=suspect_order)
            other._forced = tuple(forced)
            try:
                for action in actions:
                    other.apply(action)
            except IllegalAction:
                continue
            return other
        return None

    def _replay_with_mapping(self, mapping: dict[int, int], actions: Sequence[Action]) -> AlibiAdlungState | None:
        """The game from this deal with cards renamed by ``mapping`` and the same reshuffles,
        after ``actions`` (None if one of them is illegal there)."""
        deck_order, suspect_order = self._deal
        try:
            other = AlibiAdlungState.from_deal(
                self.game, [mapping.get(c, c) for c in deck_order], suspect_order, seed=copy.deepcopy(self._seed)
            )
            for action in actions:
                other.apply(action)
        except IllegalAction:
            return None
        return other


