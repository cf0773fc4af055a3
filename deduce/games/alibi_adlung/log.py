"""The Alibi (Adlung) game-log format: what one player sees at a real table, in card faces.

```
{"game": "alibi-adlung", "players": ["ann", "bob", "cy"], "me": "ann", "row": ["s1", "s2", "s3", "s4"],
 "events": [{"type": "hand", "cards": ["glasses", "knife", "bribe", "fat"]},
            {"type": "lay", "player": "ann", "card": "glasses", "got": ["thin"]},
            {"type": "lay", "player": "bob", "card": "knife"},
            {"type": "exchange", "player": "cy", "reason": "instead", "cards": ["revolver", "short_hair"]},
            {"type": "swap", "player": "ann", "card": "thin", "got": ["dotted"]},
            {"type": "alibi", "player": "bob", "suspect": "s2"},
            {"type": "bribe", "player": "cy", "victim": "ann", "card": "glasses"},
            {"type": "eye", "player": "bob"}, {"type": "stop", "player": "bob"}]}
```

A conviction is ``{"type": "convict", "player": "ann", "suspect": "s1", "new": "s7"}`` (the
namer, the culprit, and the suspect who replaces it in the row).

Cards are named by their *face*: an evidence feature ("glasses", "long_hair") or a special card
("alibi", "eye", "bribe"); suspects are ``s1`` ... ``s12`` (the engine's table, or the
header's optional ``suspects``; ``evidence`` and ``specials`` give other card counts). The draw
that refills a hand after a turn's plays, and the draws of an exchange, are implied; ``got``
lists the faces the logging player drew (only for its own draws). A reshuffle of the discard
pile is implied when a draw needs more cards than the deck holds.

Identical copies. At a table nobody can tell which copy of "glasses" moved, yet the engine's
knowledge base names card ids. The reader maps each face to a *canonical copy*: the copy with
the lowest id among those the observer cannot place that share one *class* (the reshuffle cohort
the copy last entered the deck with, and its face). Why this is sound and exact: the deal order
is uniform, so the copies of one class have had identical histories in the observer's eyes
(never named, or named together in one reshuffled pile); swapping two of them maps the worlds
where one moved onto the worlds where the other did, so every face-level answer is the same
whichever copy is chosen. Before the first reshuffle every hidden copy is of cohort 0, so the
reading is exact throughout (the tests check the face posterior against the engine's own).

Copies of one face in *different* classes are not interchangeable: a card an opponent shows
after a reshuffle may be an old card or a newly drawn one. Such a reveal is *ambiguous*.
:func:`parse` reads it one way (the oldest cohort; past that, any copy the observer cannot
place) and marks the view ``ambiguous``; :class:`TableGame` then leaves out the reshuffle-cohort
facts, and the rest of the static knowledge base treats copies of a face alike, so it stays
sound (a relaxation). :func:`branches` lists every strict reading with its weight, the product
over the lifted faces of how many copies their class held then; the exact face-level posterior
is the weighted sum of the readings' counts (one reading per class, weighted, counts what one
reading per copy would: the tests check it). The readings multiply with each ambiguous reveal,
so :func:`branches` gives up past a bound and a caller labels its answer approximate.

Each log event becomes one observation event (a :class:`TableEvent` holding the engine events
it stands for), so an error can always name it by its index; :class:`TableGame` unpacks them.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from deduce.cards import normalise_name
from deduce.constraints import At, Count, NotAt
from deduce.errors import LogError, TooLarge
from deduce.games.alibi_adlung.history import face_of
from deduce.games.alibi_adlung.rules import (
    DECK,
    DISCARD,
    EVIDENCE_COUNTS,
    TABLE,
    AlibiAdlungConfig,
    AlibiAdlungGame,
    AlibiAdlungObservation,
    Bribed,
    Convicted,
    Dealt,
    Drew,
    Exchanged,
    GameEnded,
    LaidAlibi,
    LaidEvidence,
    LaidEye,
    Reshuffled,
    RowDealt,
    Special,
    SuspectDrawn,
)
from deduce.games.base import Event, Observation, own_observation
from deduce.knowledge import KnowledgeBase
from deduce.logs import LogReader

__all__ = [
    "TableEvent",
    "TableObservation",
    "TableGame",
    "Branch",
    "parse",
    "branches",
    "export",
    "flat",
    "face_of",
    "faces",
    "suspect_name",
]

_HEADER_KEYS = {"game", "players", "me", "row", "suspects", "evidence", "specials", "events"}
_EVENT_TYPES = "hand, lay, alibi, bribe, eye, stop, exchange, swap or convict"
_HIDDEN = -1


@dataclass(frozen=True)
class TableEvent(Event):
    """One log event: the engine events it stands for (``parts``, canonical copies)."""

    index: int
    type: str
    parts: tuple[Event, ...]
    #: the seat the event is about (``-1``: none, e.g. the dealt hand).
    player: int = -1
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class TableObservation(AlibiAdlungObservation):
    """The logging player's view read from a log: ``events`` are :class:`TableEvent`;
    ``opening`` the row and the deal the log implies; ``weight`` this branch's multiplicity and
    ``ambiguous`` the ``(event index, options)`` of every ambiguous reveal (module docstring)."""

    opening: tuple[Event, ...] = ()
    weight: int = 1
    ambiguous: tuple[tuple[int, int], ...] = ()
    choices: tuple[int, ...] = ()


def flat(obs: Observation) -> AlibiAdlungObservation:
    """The engine's view of a table observation: the opening and every event's parts."""
    if not isinstance(obs, TableObservation):
        return own_observation(obs, AlibiAdlungObservation, "flat")
    events: list[Event] = list(obs.opening)
    for e in obs.events:
        events.extend(e.parts if isinstance(e, TableEvent) else (e,))
    fields = {f.name: getattr(obs, f.name) for f in dataclasses.fields(AlibiAdlungObservation)}
    fields["events"] = tuple(events)
    return AlibiAdlungObservation(**fields)


class TableGame(AlibiAdlungGame):
    """Alibi (Adlung) read from a table log: knowledge from the unpacked engine events.

    The static knowledge base knows the reshuffle cohorts only when no reveal was ambiguous
    (module docstring): with an ambiguous reveal the cohort facts of one branch would not hold
    in the others, while the rest of the static knowledge base treats copies alike and stays
    sound."""

    def knowledge(
        self, observation: Observation, check: Any = False, exact_time: bool = False, cohorts: bool = True
    ) -> KnowledgeBase:
        ambiguous = bool(getattr(observation, "ambiguous", ()))
        kb = super().knowledge(flat(observation), check=check, exact_time=exact_time,
                               cohorts=cohorts and not ambiguous)
        if exact_time or not isinstance(observation, TableObservation) or not observation.events:
            return kb
        return self._sourced(kb, observation)

    def _sourced(self, kb: KnowledgeBase, obs: TableObservation) -> KnowledgeBase:
        """``kb`` with each constraint's source the log event it rests on, so that a
        contradiction names events: for a card's place, the event that last moved the card; for
        a count over every card, the event that last changed that place; for other counts
        (voids, reshuffle cohorts), the last event that changed the hand (or moved the cards)."""
        n = self.num_players
        deck, discard, table = n, n + 1, n + 2
        moved: dict[int, int] = {}
        changed: dict[int, int] = {}
        on_table: set[int] = set()
        for e in obs.events:
            assert isinstance(e, TableEvent)
            for part in e.parts:
                cards: set[int] = set()
                places: set[int] = set()
                if isinstance(part, Dealt | Drew):
                    cards, places = set(part.cards), {part.player, deck}
                elif isinstance(part, LaidEvidence | LaidAlibi | LaidEye):
                    cards, places = {part.card}, {part.player, table}
                    on_table.add(part.card)
                elif isinstance(part, Bribed):
                    cards, places = {part.card, part.target}, {part.player, table, discard}
                    on_table.discard(part.target)
                elif isinstance(part, Exchanged):
                    cards, places = set(part.cards), {part.player, discard}
                elif isinstance(part, Reshuffled):
                    cards, places = set(part.cards), {discard, deck}
                elif isinstance(part, Convicted):
                    cards, places = set(on_table), {table, discard}
                    on_table.clear()
                moved.update(dict.fromkeys(cards, e.index))
                changed.update(dict.fromkeys(places, e.index))
        everything = len(self.deck)
        out = KnowledgeBase(kb.deck, kb.locations, epochs=kb.epochs)
        for c in kb.constraints:
            if isinstance(c, At | NotAt):
                at = moved.get(c.card)
            elif isinstance(c, Count) and len(c.cards) == everything:
                at = changed.get(c.loc)
            elif isinstance(c, Count) and c.loc < n:
                at = changed.get(c.loc)
            else:
                at = max((moved[x] for x in getattr(c, "cards", ()) if x in moved), default=None)
            out.extend([c], source="rules" if at is None else f"event {at}", check=False)
        return out


@dataclass(frozen=True)
class Branch:
    """One reading of a log: its choices at the ambiguous reveals and its view."""

    choices: tuple[int, ...]
    observation: TableObservation

    @property
    def weight(self) -> int:
        return self.observation.weight


def faces(game: AlibiAdlungGame) -> tuple[str, ...]:
    """Every card face: the evidence features, then the special kinds in play."""
    out = [f for f, k in game.config.evidence_counts]
    out += [s.value for s in Special if any(game.special_of[c] is s for c in range(len(game.deck)))]
    return tuple(out)


def suspect_name(suspect: int) -> str:
    """A suspect's name in logs and lines: ``s1`` for suspect id 0."""
    return f"s{suspect + 1}"


class _Reader(LogReader):
    """Parses one log following ``choices`` at ambiguous reveals; errors name the event."""

    def __init__(self, data: Mapping[str, Any], strict: bool = False) -> None:
        super().__init__(data)
        #: strict: an ambiguous reveal forks the reading (for :func:`branches`); otherwise the
        #: oldest cohort is taken and, past it, any copy the observer cannot place.
        self.strict = strict
        #: with ``strict``: at an ambiguous reveal, fork over every copy rather than one per
        #: class, each unweighted (what the class weights stand for; tests compare the two)
        self.every_copy = False
        self.choices: list[int] = []
        self.ambiguous: list[tuple[int, int]] = []
        self.local: list[int] = []
        self.used = 0
        self.out: list[Event] = []
        self.weight = 1

    # -- header ------------------------------------------------------------------------------
    def header(self) -> None:
        unknown = sorted(set(self.data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(DECK, DISCARD, TABLE))
        fields: dict[str, Any] = {"num_players": len(players), "player_names": tuple(players)}
        if "suspects" in self.data:
            raw = self.data["suspects"]
            if not isinstance(raw, list) or not all(isinstance(s, list) and all(isinstance(f, str) for f in s)
                                                    for s in raw):
                raise self.fail("'suspects' must be a list of feature lists")
            fields["suspects"] = tuple(tuple(s) for s in raw)
            fields["num_suspects"] = len(raw)
        if "evidence" in self.data:
            raw = self.data["evidence"]
            if not isinstance(raw, dict) or not all(isinstance(k, int) and not isinstance(k, bool) for k in raw.values()):
                raise self.fail("'evidence' must map each feature to its number of cards")
            fields["evidence_counts"] = tuple((str(f), k) for f, k in raw.items())
        if "specials" in self.data:
            raw = self.data["specials"]
            kinds = {s.value for s in Special}
            if not isinstance(raw, dict) or not set(raw) <= kinds or not all(
                    isinstance(k, int) and not isinstance(k, bool) for k in raw.values()):
                raise self.fail("'specials' must map alibi, eye and bribe to their numbers of cards")
            fields.update({f"num_{k}": v for k, v in raw.items()})
        try:
            self.game = TableGame(AlibiAdlungConfig(**fields))
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        game, cfg = self.game, self.game.config
        self.n = game.num_players
        me = self.data.get("me")
        self.seat: int | None = None if me is None else self.player(me, "me")
        self.faces = faces(game)
        row = self.data.get("row")
        if not isinstance(row, list) or len(row) != cfg.row_size:
            raise self.fail(f"'row' must list the {cfg.row_size} face-up suspects")
        self.row = [self.suspect(s, "row") for s in row]
        if len(set(self.row)) != len(self.row):
            raise self.fail("a suspect is listed twice in 'row'")
        self.seen_suspects = set(self.row)
        # where each card is: a seat, the discard pile or the table if the observer knows;
        # _HIDDEN for an opponent's hand or the deck. ``cohort``: the filling of the deck it
        # last entered (0: the deal).
        self.where = [_HIDDEN] * len(game.deck)
        self.cohort = [0] * len(game.deck)
        self.current = 0
        self.held = [[0] for _ in range(self.n)]  # hidden cards of each cohort in each hand
        self.sizes = [0] * self.n
        self.deck_size = cfg.num_cards
        self.discard: list[int] = []
        self.tableaux: list[list[int]] = [[] for _ in range(self.n)]
        self.alibis: dict[int, int] = {}
        self.eyes: list[tuple[int, int]] = []
        self.convicted: list[int] = []
        self.scores = [0] * self.n
        self.eye_left: dict[int, int] = {}
        self.opened = False
        self.plays = 0  # plays and exchanges so far (the opening redraw comes before any)
        self.over = False
        self.opening: list[Event] = [RowDealt(tuple(self.row))]
        for q in range(self.n):
            self.sizes[q] = cfg.hand_size
            self.deck_size -= cfg.hand_size
            if q != self.seat:
                self.held[q][0] = cfg.hand_size
                self.opening.append(Dealt(q, (), cfg.hand_size))

    # -- names -------------------------------------------------------------------------------
    def suspect(self, name: object, field: str) -> int:
        count = len(self.game.suspects)
        key = normalise_name(name) if isinstance(name, str) else ""
        key = key[1:] if key.startswith("s") else key
        if not key.isdigit() or not 1 <= int(key) <= count:
            raise self.fail(f"unknown suspect {name!r} in {field!r}; suspects are s1 to s{count}")
        return int(key) - 1

    def face(self, name: object, field: str) -> str:
        key = normalise_name(name) if isinstance(name, str) else None
        for f in self.faces:
            if normalise_name(f) == key:
                return f
        raise self.fail(f"unknown card {name!r} in {field!r}; cards are {', '.join(self.faces)}")

    def face_list(self, raw: object, field: str) -> list[str]:
        if not isinstance(raw, list):
            raise self.fail(f"{field!r} must be a list of cards")
        return [self.face(f, field) for f in raw]

    # -- card bookkeeping --------------------------------------------------------------------
    def _choose(self, options: int) -> int:
        """The option followed at an ambiguous reveal: the next of ``local`` (the options
        chosen for the event being read), or a :class:`_Fork` asking the walker to choose."""
        if not self.strict:
            pick = 0
        elif self.used >= len(self.local):
            raise _Fork(options)
        else:
            pick = self.local[self.used]
            self.used += 1
        self.ambiguous.append((int(self.index or 0), options))
        self.choices.append(pick)
        return pick

    def reveal(self, q: int, face: str, dest: int) -> int:
        """The canonical copy of ``face`` that leaves ``q``'s hand for ``dest`` (a known place)."""
        game, names = self.game, self.game.config.names
        if self.sizes[q] < 1:
            raise self.fail(f"{names[q]} holds no cards")
        if q == self.seat:
            mine = [c for c in range(len(game.deck)) if self.where[c] == q and face_of(game, c) == face]
            if not mine:
                raise self.fail(f"you hold no {face}")
            card = mine[0]
        else:
            by_cohort: dict[int, list[int]] = {}
            for c in range(len(game.deck)):
                if self.where[c] == _HIDDEN and face_of(game, c) == face and self.held[q][self.cohort[c]] > 0:
                    by_cohort.setdefault(self.cohort[c], []).append(c)
            if not by_cohort and not self.strict and self.ambiguous:
                # an earlier ambiguous reveal was read one way; another way may hold this card:
                # any copy the observer cannot place will do for the cohort-free knowledge
                for c in range(len(game.deck)):
                    if self.where[c] == _HIDDEN and face_of(game, c) == face:
                        by_cohort.setdefault(self.cohort[c], []).append(c)
            if not by_cohort:
                raise self.fail(f"{names[q]} cannot hold a {face}: every copy that could be in that hand "
                                "is accounted for")
            keys = sorted(by_cohort)
            if self.every_copy and len(keys) > 1:  # one reading per copy (checks the weights)
                copies = [c for key in keys for c in by_cohort[key]]
                card = copies[self._choose(len(copies))] if len(copies) > 1 else copies[0]
                k = self.cohort[card]
            else:
                k = keys[self._choose(len(keys))] if len(keys) > 1 else keys[0]
                card = by_cohort[k][0]
                self.weight *= len(by_cohort[k])
            if self.held[q][k] <= 0:  # the lenient case above: take the slot from another cohort
                k = max(range(len(self.held[q])), key=lambda j: self.held[q][j])
            self.held[q][k] -= 1
        self.where[card] = dest
        self.sizes[q] -= 1
        return card

    def draw(self, q: int, count: int, got: list[str] | None) -> list[Event]:
        """``q`` draws ``count`` cards (fewer if the deck and the pile run out), reshuffling the
        discard pile when the deck runs out; ``got``: the faces, for the observer's draws."""
        game = self.game
        count = min(count, self.deck_size + len(self.discard))  # both ran out: fewer cards
        if (q == self.seat) != (got is not None) and count > 0:
            if q == self.seat:
                raise self.fail(f"you drew {count} card(s): say which with 'got'")
            raise self.fail("'got' is for your own draws only")
        if got is not None and len(got) != count:
            raise self.fail(f"you drew {count} card(s), but 'got' lists {len(got)}")
        events: list[Event] = []
        cards: list[int] = []
        taken = 0
        for i in range(count):
            if self.deck_size == 0:
                if not self.discard:
                    break
                pile = sorted(self.discard)
                events.append(Reshuffled(tuple(pile)))
                self.current += 1
                for held in self.held:
                    held.append(0)
                for c in pile:
                    self.where[c], self.cohort[c] = _HIDDEN, self.current
                self.deck_size, self.discard = len(pile), []
            self.deck_size -= 1
            taken += 1
            if got is None:
                self.held[q][self.current] += 1
                continue
            face = got[i]
            options = [c for c in range(len(game.deck))
                       if self.where[c] == _HIDDEN and self.cohort[c] == self.current and face_of(game, c) == face]
            # copies of the class that opponents are known to hold cannot be in the deck, but
            # the class is interchangeable: the counter weighs which copies are where
            if not options and not self.strict and self.ambiguous:  # as in :meth:`reveal`
                options = [c for c in range(len(game.deck)) if self.where[c] == _HIDDEN and face_of(game, c) == face]
            if not options:
                raise self.fail(f"you cannot have drawn a {face}: no copy can be in the deck")
            self.weight *= len(options)
            self.where[options[0]] = q
            cards.append(options[0])
        self.sizes[q] += taken
        events.append(Drew(q, tuple(cards), taken))
        return events

    def refill(self, q: int, got: list[str] | None) -> list[Event]:
        """The draw back to a full hand after a turn's plays (none while a Watchful Eye is open)."""
        if self.eye_left.get(q, 0) > 0:
            if got is not None:
                raise self.fail("no draw yet: the Watchful Eye's extra plays are still open ('stop' ends them)")
            return []
        missing = self.game.config.hand_size - self.sizes[q]
        if missing <= 0:
            if got:
                raise self.fail("no draw: the hand is full")
            return []
        return self.draw(q, missing, got)

    def played(self, q: int, eye: bool = False) -> None:
        """Count a play against an open Watchful Eye (an Eye played inside one adds its plays)."""
        extra = self.game.config.eye_extra_plays
        self.plays += 1
        if q in self.eye_left:
            self.eye_left[q] += (extra if eye else 0) - 1
            if self.eye_left[q] <= 0:
                del self.eye_left[q]
        elif eye and extra > 0:
            self.eye_left[q] = extra

    def playable(self) -> set[str]:
        cfg = self.game.config
        pool = self.row if cfg.alibied_count_for_matching else [s for s in self.row if s not in self.alibis]
        return {f for s in pool for f in self.game.suspects[s]}

    def provable(self) -> list[int]:
        need = self.game.config.convict_distinct
        on_table = {self.game.feature_of[c] for t in self.tableaux for c in t}
        return [s for s in self.row if s not in self.alibis and len(self.game.suspects[s] & on_table) >= need]

    # -- events ------------------------------------------------------------------------------
    def step(self, raw: Mapping[str, Any]) -> TableEvent:
        """Read one event (``self.index`` and ``self.raw`` name it)."""
        if self.over:
            raise self.fail("the game is over: no suspect was left to replace the culprit")
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            raise self.fail("an event must be an object with a 'type'")
        kind = raw["type"]
        if kind != "hand" and self.seat is not None and not self.opened:
            raise self.fail("your hand ('hand') comes first")
        open_eyes = [q for q, k in self.eye_left.items() if k > 0]
        player = raw.get("player")
        if open_eyes and (kind in ("convict", "hand") or
                          (isinstance(player, str) and self.player(player, "player") not in open_eyes)):
            who = self.game.config.names[open_eyes[0]]
            raise self.fail(f"{who}'s Watchful Eye is still open: 'stop {who}' ends it")
        seat = self.player(player, "player") if isinstance(player, str) else -1
        return TableEvent(int(self.index or 0), kind, tuple(self.event(raw)), seat)

    def clone(self) -> _Reader:
        """An independent copy of the reading so far (the game and the log are shared)."""
        other = copy.copy(self)
        for name in ("where", "cohort", "sizes", "discard", "alibis", "eyes", "convicted", "scores", "eye_left",
                     "row", "seen_suspects", "ambiguous", "choices", "out"):
            setattr(other, name, copy.copy(getattr(self, name)))
        other.held = [list(h) for h in self.held]
        other.tableaux = [list(t) for t in self.tableaux]
        return other

    def signature(self) -> tuple[Any, ...]:
        """What later events' readability depends on that differs between readings: the hidden
        cards per hand and cohort, and the hidden copies per class."""
        classes: dict[tuple[int, str], int] = {}
        for c, w in enumerate(self.where):
            if w == _HIDDEN:
                key = (self.cohort[c], face_of(self.game, c))
                classes[key] = classes.get(key, 0) + 1
        return self.index, tuple(tuple(h) for h in self.held), tuple(sorted(classes.items()))

    def got(self, raw: Mapping[str, Any]) -> list[str] | None:
        return self.face_list(raw["got"], "got") if "got" in raw else None

    def event(self, raw: Mapping[str, Any]) -> list[Event]:
        kind = raw["type"]
        game, names = self.game, self.game.config.names
        n = self.n
        table, discard = n + 2, n + 1
        if kind == "hand":
            self.keys(raw, {"cards"})
            if self.seat is None or self.opened:
                raise self.fail("'hand' is your dealt hand, once, as the first event (not for a spectator)")
            cards = self.face_list(raw["cards"], "cards")
            if len(cards) != game.config.hand_size:
                raise self.fail(f"a hand is dealt {game.config.hand_size} cards, but {len(cards)} are listed")
            self.opened = True
            self.sizes[self.seat] = 0
            self.deck_size += game.config.hand_size
            drew = self.draw(self.seat, game.config.hand_size, cards)
            assert isinstance(drew[-1], Drew)
            return [Dealt(self.seat, tuple(sorted(drew[-1].cards)), len(cards))]
        if kind == "convict":
            return self.convict(raw)
        self.keys(raw, {"player"}, {"card", "cards", "got", "suspect", "victim", "reason"})
        q = self.player(raw["player"], "player")
        if kind == "lay":
            self.keys(raw, {"player", "card"}, {"got"})
            face = self.face(raw["card"], "card")
            if face not in game.cards_of_feature:
                raise self.fail(f"{face} is a special card, not evidence")
            if face not in self.playable():
                raise self.fail(f"{face} matches no uncovered suspect in the row")
            card = self.reveal(q, face, table)
            self.tableaux[q].append(card)
            self.played(q)
            return [LaidEvidence(q, card), *self.refill(q, self.got(raw))]
        if kind == "alibi":
            self.keys(raw, {"player", "suspect"}, {"got"})
            s = self.suspect(raw["suspect"], "suspect")
            if s not in self.row or s in self.alibis:
                raise self.fail(f"{suspect_name(s)} is not an uncovered suspect in the row")
            if len(self.row) - len(self.alibis) <= 1:
                raise self.fail("the last uncovered suspect cannot be covered")
            card = self.reveal(q, Special.ALIBI.value, table)
            self.alibis[s] = card
            self.played(q)
            return [LaidAlibi(q, card, s), *self.refill(q, self.got(raw))]
        if kind == "bribe":
            self.keys(raw, {"player", "victim", "card"}, {"got"})
            victim = self.player(raw["victim"], "victim")
            face = self.face(raw["card"], "card")
            if victim == q:
                raise self.fail("a bribe covers another player's evidence, not one's own")
            targets = [c for c in self.tableaux[victim] if face_of(game, c) == face]
            if not targets:
                raise self.fail(f"{names[victim]} has no {face} on the table")
            card = self.reveal(q, Special.BRIBE.value, discard)
            target = targets[0]
            self.tableaux[victim].remove(target)
            self.where[target] = discard
            self.discard += [card, target]
            self.played(q)
            return [Bribed(q, card, victim, target), *self.refill(q, self.got(raw))]
        if kind == "eye":
            self.keys(raw, {"player"}, {"got"})
            card = self.reveal(q, Special.EYE.value, table)
            self.eyes.append((q, card))
            self.played(q, eye=True)
            return [LaidEye(q, card), *self.refill(q, self.got(raw))]
        if kind == "stop":
            self.keys(raw, {"player"}, {"got"})
            if self.eye_left.get(q, 0) <= 0:
                raise self.fail(f"{names[q]} has no Watchful Eye open")
            del self.eye_left[q]
            return self.refill(q, self.got(raw))
        if kind in ("exchange", "swap"):
            return self.exchange(raw, q, kind)
        raise self.fail(f"unknown event type {kind!r}; expected {_EVENT_TYPES}")

    def exchange(self, raw: Mapping[str, Any], q: int, kind: str) -> list[Event]:
        """An exchange instead of a play (proves a void), the single optional one, or the
        opening redraw of a hand of special cards."""
        game, names = self.game, self.game.config.names
        if kind == "swap":
            self.keys(raw, {"player", "card"}, {"got"})
            reason, cards = "single", [self.face(raw["card"], "card")]
        else:
            self.keys(raw, {"player", "cards"}, {"got", "reason"})
            reason = raw.get("reason", "instead")
            if reason not in ("instead", "opening"):
                raise self.fail(f"unknown reason {reason!r}; an exchange is 'instead' of a play or the 'opening' redraw")
            cards = self.face_list(raw["cards"], "cards")
        if self.eye_left.get(q, 0) > 0:
            raise self.fail("no exchange during a Watchful Eye's extra plays")
        before = self.sizes[q]
        void: tuple[str, ...] = ()
        if reason == "instead":
            if not 1 <= len(cards) <= before:
                raise self.fail(f"exchange 1 to {before} cards")
            playable = self.playable()
            void = tuple(sorted(playable))
            if game.config.must_play_if_able:
                wrong = [f for f in cards if f in playable]
                if wrong:
                    raise self.fail(f"{names[q]} exchanged instead of playing, so held no playable evidence, "
                                    f"but {wrong[0]} matches an uncovered suspect")
                if q == self.seat:
                    mine = sorted({face_of(game, c) for c in range(len(game.deck))
                                   if self.where[c] == q and game.feature_of[c] in playable})
                    if mine:
                        raise self.fail(f"you hold playable evidence ({', '.join(mine)}): you must play")
            else:
                void = ()
        elif reason == "opening":
            if self.plays or len(cards) != game.config.hand_size or any(f in game.cards_of_feature for f in cards):
                raise self.fail("the opening redraw exchanges a whole dealt hand of special cards, before any play")
        if reason != "opening":
            self.plays += 1
        removed = [self.reveal(q, f, self.n + 1) for f in cards]
        self.discard += removed
        got = self.got(raw)
        return [Exchanged(q, tuple(sorted(removed)), reason, void, before), *self.draw(q, len(cards), got)]

    def convict(self, raw: Mapping[str, Any]) -> list[Event]:
        self.keys(raw, {"player", "suspect"}, {"new"})
        game, cfg = self.game, self.game.config
        by = self.player(raw["player"], "player")
        s = self.suspect(raw["suspect"], "suspect")
        uncovered = [x for x in self.row if x not in self.alibis]
        third = (cfg.third_alibi_rule and len(self.alibis) == cfg.row_size - 1 and uncovered == [s]
                 and s not in self.provable())
        if s not in self.provable() and not third:
            raise self.fail(f"{suspect_name(s)} cannot be convicted: fewer than {cfg.convict_distinct} different "
                            "matching evidence cards on the table, and not the last suspect left by three alibis")
        points = [sum(1 for c in t if game.matches(c, s)) for t in self.tableaux]
        points[by] += cfg.third_alibi_bonus if third else cfg.convict_bonus
        self.scores = [a + b for a, b in zip(self.scores, points, strict=True)]
        events: list[Event] = [Convicted(s, by, "third_alibi" if third else "evidence", tuple(points))]
        gone = [c for t in self.tableaux for c in t] + list(self.alibis.values()) + [c for _, c in self.eyes]
        for c in gone:
            self.where[c] = self.n + 1
        self.discard += gone
        self.tableaux = [[] for _ in range(self.n)]
        self.alibis, self.eyes = {}, []
        self.convicted.append(s)
        slot = self.row.index(s)
        left = len(game.suspects) - len(self.seen_suspects)
        if "new" not in raw:
            if left:
                raise self.fail(f"{left} suspect(s) are left: name the new one with 'new'")
            self.row.pop(slot)
            self.over = True
            return events + [GameEnded("no replacement suspect", tuple(self.scores))]
        new = self.suspect(raw["new"], "new")
        if new in self.seen_suspects:
            raise self.fail(f"{suspect_name(new)} has been in the row already")
        self.seen_suspects.add(new)
        self.row[slot] = new
        return events + [SuspectDrawn(new, slot)]

    def finish(self) -> TableObservation:
        """The view after the last event."""
        self.index = None
        if self.seat is not None and not self.opened:
            raise self.fail("the log needs your hand ('hand') as its first event")
        events = tuple(self.out)
        game = self.game
        n = self.n
        hand = tuple(c for c in range(len(game.deck)) if self.seat is not None and self.where[c] == self.seat)
        return TableObservation(
            game=game.name,
            player=self.seat,
            num_players=n,
            events=events,
            current_player=-1,
            legal_actions=(),
            terminal=self.over,
            names=game.config.names,
            hand=hand,
            hand_sizes=tuple(self.sizes),
            deck_size=self.deck_size,
            discard=tuple(self.discard),
            tableaux=tuple(tuple(t) for t in self.tableaux),
            alibis=tuple(sorted(self.alibis.items())),
            eyes=tuple(self.eyes),
            row=tuple(self.row),
            suspects_left=len(game.suspects) - len(self.seen_suspects),
            convicted=tuple(self.convicted),
            scores=tuple(self.scores),
            phase="over" if self.over else "eye" if any(self.eye_left.values()) else "main",
            turn=len(events),
            opening=tuple(self.opening),
            weight=self.weight,
            ambiguous=tuple(self.ambiguous),
            choices=tuple(self.choices),
        )


class _Fork(Exception):
    """An ambiguous reveal met while reading an event: the walker tries each option."""

    def __init__(self, options: int) -> None:
        super().__init__(options)
        self.options = options


class _TooMany(Exception):
    """More readings than the caller's limit, or more work than its budget: ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _walk(data: Mapping[str, Any], every: bool, limit: int, work: int,
          every_copy: bool = False) -> tuple[TableGame, list[TableObservation]]:
    """The strict readings of a log: the first one (``every=False``) or all of them (at most
    ``limit``, and a bounded amount of work). Depth first over the options at ambiguous
    reveals; a state from which no reading went on is remembered by
    :meth:`_Reader.signature` and not tried again."""
    root = _Reader(data, strict=True)
    root.every_copy = every_copy
    root.header()
    raw_events = root.data.get("events", [])
    if not isinstance(raw_events, list):
        raise root.fail("'events' must be a list")
    found: list[TableObservation] = []
    dead: set[tuple[Any, ...]] = set()
    errors: list[LogError] = []

    budget = [work]

    def go(reader: _Reader, i: int) -> bool:
        while i < len(raw_events):
            budget[0] -= 1
            if budget[0] < 0:
                raise _TooMany(f"reading the log's ambiguous reveals took more than its work budget "
                               f"({work} events read) after {len(found)} readings")
            reader.index, reader.raw = i, raw_events[i]
            sig = reader.signature()
            if sig in dead:
                return False
            trials: list[list[int]] = [[]]
            nexts: list[_Reader] = []
            while trials:
                local = trials.pop()
                trial = reader.clone()
                trial.local, trial.used = local, 0
                try:
                    trial.out.append(trial.step(raw_events[i]))
                except _Fork as fork:
                    trials.extend(local + [k] for k in reversed(range(fork.options)))
                    continue
                except LogError as exc:
                    errors.append(exc)
                    continue
                nexts.append(trial)
            if len(nexts) == 1:
                reader, i = nexts[0], i + 1
                continue
            ok = False
            for trial in nexts:
                if go(trial, i + 1):
                    ok = True
                    if not every:
                        return True
            if not ok:
                dead.add(sig)
            return ok
        found.append(reader.finish())
        if len(found) > limit:
            raise _TooMany(f"more than {limit} readings of the log's ambiguous reveals")
        return True

    if not go(root, 0):
        raise max(errors, key=lambda e: -1 if e.index is None else e.index)
    return root.game, found


def branches(data: Mapping[str, Any], limit: int = 64, work: int = 4_000) -> list[Branch]:
    """Every reading of a log (one per combination of options at its ambiguous reveals that
    the rules allow), with its weight. :class:`TooLarge` past ``limit`` readings or ``work``
    events read (its message says which), so that a caller falls back to an approximation
    rather than wait; :class:`LogError` when no reading fits the rules (the events contradict
    each other, which the one-pass :func:`parse` may not notice)."""
    try:
        return [Branch(obs.choices, obs) for obs in _walk(data, True, limit, work)[1]]
    except _TooMany as exc:
        raise TooLarge(exc.reason) from None


def parse(data: Mapping[str, Any]) -> tuple[TableGame, TableObservation]:
    """Read an Alibi (Adlung) log into the game and the logging player's view.

    One pass: at an ambiguous reveal the oldest cohort is taken, and once a reveal was
    ambiguous any copy the observer cannot place will do (the view is then marked
    ``ambiguous`` and its knowledge is cohort-free; :func:`branches` gives the exact readings)."""
    reader = _Reader(data)
    reader.header()
    raw_events = reader.data.get("events", [])
    if not isinstance(raw_events, list):
        raise reader.fail("'events' must be a list")
    for i, raw in enumerate(raw_events):
        reader.index, reader.raw = i, raw
        reader.out.append(reader.step(raw))
    return reader.game, reader.finish()


def export(game: AlibiAdlungGame, obs: AlibiAdlungObservation) -> dict[str, Any]:
    """One player's view of a simulated game as a table log (faces only), readable by
    :func:`parse`. Declines and the end of the game say nothing about the cards and are left out."""
    cfg, names = game.config, game.config.names
    me = obs.player
    events: list[dict[str, Any]] = []
    row: list[int] = []
    eye_left: dict[int, int] = {}
    pending: dict[str, Any] | None = None  # the last event of the player who may draw next
    for e in obs.events:
        if isinstance(e, RowDealt):
            row = list(e.row)
        elif isinstance(e, Dealt):
            if e.player == me:
                events.append({"type": "hand", "cards": [face_of(game, c) for c in e.cards]})
        elif isinstance(e, Drew):
            if eye_left.pop(e.player, 0) > 0 or pending is None or pending.get("player") != names[e.player]:
                pending = {"type": "stop", "player": names[e.player]}  # a Watchful Eye stopped early
                events.append(pending)
            if e.player == me and e.count:
                pending["got"] = [face_of(game, c) for c in e.cards]
        elif isinstance(e, LaidEvidence | LaidAlibi | LaidEye | Bribed):
            p = e.player
            item: dict[str, Any] = {"player": names[p]}
            if isinstance(e, LaidEvidence):
                item = {"type": "lay", **item, "card": face_of(game, e.card)}
            elif isinstance(e, LaidAlibi):
                item = {"type": "alibi", **item, "suspect": suspect_name(e.suspect)}
            elif isinstance(e, LaidEye):
                item = {"type": "eye", **item}
            else:
                item = {"type": "bribe", **item, "victim": names[e.victim], "card": face_of(game, e.target)}
            events.append(item)
            pending = item
            if p in eye_left:
                eye_left[p] += (cfg.eye_extra_plays if isinstance(e, LaidEye) else 0) - 1
                if eye_left[p] <= 0:
                    del eye_left[p]
            elif isinstance(e, LaidEye) and cfg.eye_extra_plays > 0:
                eye_left[e.player] = cfg.eye_extra_plays
        elif isinstance(e, Exchanged):
            cards = [face_of(game, c) for c in e.cards]
            if e.reason == "single":
                item = {"type": "swap", "player": names[e.player], "card": cards[0]}
            else:
                item = {"type": "exchange", "player": names[e.player], "reason": e.reason, "cards": cards}
            events.append(item)
            pending = item
        elif isinstance(e, Convicted):
            pending = {"type": "convict", "player": names[e.by], "suspect": suspect_name(e.suspect)}
            events.append(pending)
        elif isinstance(e, SuspectDrawn):
            assert pending is not None and pending["type"] == "convict"
            pending["new"] = suspect_name(e.suspect)
    log: dict[str, Any] = {"game": game.name, "players": list(names)}
    if me is not None:
        log["me"] = names[me]
    log["row"] = [suspect_name(s) for s in row]
    if cfg.evidence_counts != EVIDENCE_COUNTS:
        log["evidence"] = dict(cfg.evidence_counts)
    if cfg.suspects:
        log["suspects"] = [list(s) for s in cfg.suspects]
    if (cfg.num_alibi, cfg.num_eye, cfg.num_bribe) != (3, 2, 3):
        log["specials"] = {"alibi": cfg.num_alibi, "eye": cfg.num_eye, "bribe": cfg.num_bribe}
    log["events"] = events
    return log
