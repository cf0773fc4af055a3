"""Crime Hotel (Susumu Kawasaki, Happy Baobab 2018), RULES.md §4 and the Korean seed.

A match is ``games`` (3) games of ``rounds`` (5) rounds. Each round every player plays one room
card (follow floor when able); the cards are ranked by number, parking spaces go in rank order
(the highest takes space 1 and the police car, and leads next), and each parking space acts in
order: the skid-mark spaces (first and last) make a deduction (a meeple on a floor, end digit or
room space), the others go to a police-station department (move police, card exchange, card
check, double placement, bonus points). The beginner rule drops the departments. After the last
round the remaining cards and the hidden room are revealed and the meeples score.

Knowledge is time-indexed: epoch 0 is the deal; every trick (from its first play on, so the
cards of a trick still open are public too) moves one card per player that played to
``public``, the final reveals move the last hands there, and every exchange swaps k cards between two hands, each through a
:class:`~deduce.constraints.Transfer`. ``State.world()`` is ``[epoch, card]`` for the current
game, in the same coordinates.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from deduce.cards import Card, Deck
from deduce.constraints import At, Constraint, Count, Transfer
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.base import Action, Dealt, Event, Game, Observation, State, placement_problem
from deduce.knowledge import KnowledgeBase

__all__ = [
    "CrimeHotelConfig",
    "CrimeHotelGame",
    "CrimeHotelState",
    "CrimeHotelObservation",
    "Space",
    "Play",
    "Deduce",
    "MovePolice",
    "Exchange",
    "Check",
    "Double",
    "Bonus",
    "GameStarted",
    "Dealt",
    "Played",
    "TrickDone",
    "Deduced",
    "Discarded",
    "PoliceMoved",
    "Exchanged",
    "Checked",
    "Stationed",
    "FinalRevealed",
    "HiddenRevealed",
    "GameScored",
    "MatchEnded",
    "HIDDEN",
    "PUBLIC",
    "BOX",
    "DEPARTMENTS",
]

HIDDEN = "hidden"
PUBLIC = "public"
BOX = "box"
DEPARTMENTS = ("move", "exchange", "check", "double", "bonus")


@dataclass(frozen=True)
class CrimeHotelConfig:
    """Every DEFAULT of RULES.md §4 is a field here."""

    num_players: int = 4
    floors: int = 3
    digits: int = 9
    hand_size: int = 6
    rounds: int = 5
    games: int = 3
    #: leftover cards after the deal: "reveal" (seed: lit on the board) or "box" ([S23]).
    leftover: str = "reveal"
    #: beginner rule: no departments; only the highest and lowest cards deduce.
    beginner: bool = False
    #: card strength by card id; empty = the room number (101..309), unique.
    rank_table: tuple[int, ...] = ()
    floor_points: int = 2
    digit_points: int = 5
    room_points: int = 10
    #: slots of the move-police department; None = num_players - 2 (RULES.md §4C table).
    move_slots: int | None = None
    #: cards exchanged / checked by each slot, left to right (printed values unknown: [S22] "1 or 2").
    exchange_slots: tuple[int, ...] = (1, 2)
    check_slots: tuple[int, ...] = (1, 2)
    double_slots: int = 2
    bonus_slots: tuple[int, ...] = (3, 2, 1)
    #: the player who leads (and holds the police car) in the first game.
    first_leader: int = 0
    player_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 3 <= self.num_players <= 4:
            raise InvalidConfig("num_players", self.num_players, "Crime Hotel needs 3 or 4 players")
        if self.leftover not in ("reveal", "box"):
            raise InvalidConfig("leftover", self.leftover, "leftover must be 'reveal' or 'box'")
        for label, k in (("floors", self.floors), ("digits", self.digits), ("hand_size", self.hand_size)):
            if k < 1:
                raise InvalidConfig(label, k, f"{label} must be positive")
        if self.leftover_count() < 0:
            raise InvalidConfig(
                "hand_size",
                self.hand_size,
                f"{self.num_cards()} cards cannot deal {self.hand_size} to {self.num_players} players plus a hidden room",
            )
        if not 1 <= self.rounds <= self.hand_size:
            raise InvalidConfig("rounds", self.rounds, f"rounds must be between 1 and the hand size ({self.hand_size})")
        if self.games < 1:
            raise InvalidConfig("games", self.games, "a match has at least one game")
        if self.rank_table and (len(self.rank_table) != self.num_cards() or len(set(self.rank_table)) != self.num_cards()):
            raise InvalidConfig(
                "rank_table", self.rank_table, f"rank_table must give every card ({self.num_cards()}) a distinct rank"
            )
        if self.player_names and len(self.player_names) != self.num_players:
            raise InvalidConfig(
                "player_names", self.player_names, f"player_names must name every seat ({self.num_players})"
            )
        if not 0 <= self.first_leader < self.num_players:
            raise InvalidConfig("first_leader", self.first_leader, f"first_leader must be a seat 0..{self.num_players - 1}")

    @property
    def names(self) -> tuple[str, ...]:
        return self.player_names or tuple(f"p{i}" for i in range(self.num_players))

    def num_cards(self) -> int:
        return self.floors * self.digits

    def leftover_count(self) -> int:
        return self.num_cards() - 1 - self.num_players * self.hand_size

    def slots(self, dept: str) -> tuple[int, ...]:
        """The printed values of a department's slots, left to right (1 where nothing is printed)."""
        if dept == "move":
            n = self.num_players - 2 if self.move_slots is None else self.move_slots
            return (1,) * max(n, 0)
        if dept == "exchange":
            return self.exchange_slots
        if dept == "check":
            return self.check_slots
        if dept == "double":
            return (1,) * self.double_slots
        if dept == "bonus":
            return self.bonus_slots
        raise KeyError(dept)

    def deck(self) -> Deck:
        cards = []
        for f in range(1, self.floors + 1):
            for d in range(1, self.digits + 1):
                i = len(cards)
                number = 100 * f + d
                rank = self.rank_table[i] if self.rank_table else number
                cards.append(Card(i, str(number), f"floor{f}", (("floor", f), ("digit", d), ("rank", rank))))
        return Deck(tuple(cards))


@dataclass(frozen=True, order=True)
class Space:
    """A guess space on the hotel board: ``kind`` floor / digit / room; ``value`` the floor,
    the end digit, or the room's card id."""

    kind: str
    value: int

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


# -- actions ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Play(Action):
    """Play ``card`` to the trick."""

    card: int


@dataclass(frozen=True)
class Deduce(Action):
    """Deduction action: move the parked meeple onto a guess space."""

    space: Space


@dataclass(frozen=True)
class MovePolice(Action):
    """Support: the move-police department; then move one's meeple at ``src`` to ``dst``
    (both ``None``: no move, as when one has no meeple on the board)."""

    src: Space | None = None
    dst: Space | None = None


@dataclass(frozen=True)
class Exchange(Action):
    """Support: the card-exchange department; give ``give`` to ``target``, then take as many
    of the target's cards at random."""

    target: int
    give: tuple[int, ...]


@dataclass(frozen=True)
class Check(Action):
    """Support: the card-check department; look at random cards of ``target``."""

    target: int


@dataclass(frozen=True)
class Double(Action):
    """Support: the double-placement department (one placement on an occupied space)."""


@dataclass(frozen=True)
class Bonus(Action):
    """Support: the bonus-points department (its slot value if one's deductions score)."""


# -- events -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameStarted(Event):
    """A new game of the match: who leads, and the leftover cards lit on the board (if revealed)."""

    game: int
    leader: int
    revealed: tuple[int, ...]
    kind: ClassVar[str] = "game_started"


@dataclass(frozen=True)
class Played(Event):
    """``player`` played ``card``; ``led`` is the floor led in this trick (None: it leads)."""

    player: int
    card: int
    led: int | None
    kind: ClassVar[str] = "played"


@dataclass(frozen=True)
class TrickDone(Event):
    """The trick is ranked: ``parking[i]`` is the player on parking space i+1, who played ``cards[i]``."""

    parking: tuple[int, ...]
    cards: tuple[int, ...]
    kind: ClassVar[str] = "trick_done"


@dataclass(frozen=True)
class Deduced(Event):
    """``player`` put a meeple on ``space`` (``double``: using a double-placement right)."""

    player: int
    space: Space
    double: bool = False
    kind: ClassVar[str] = "deduced"


@dataclass(frozen=True)
class Discarded(Event):
    """Beginner rule: a meeple on a parking space without skid marks is discarded."""

    player: int
    kind: ClassVar[str] = "discarded"


@dataclass(frozen=True)
class Stationed(Event):
    """``player`` put a meeple on ``dept`` slot ``slot`` (0 = leftmost)."""

    player: int
    dept: str
    slot: int
    kind: ClassVar[str] = "stationed"


@dataclass(frozen=True)
class PoliceMoved(Event):
    """``player`` moved a meeple from ``src`` to ``dst`` (``double``: onto an occupied space)."""

    player: int
    src: Space
    dst: Space
    double: bool = False
    kind: ClassVar[str] = "police_moved"


@dataclass(frozen=True)
class Exchanged(Event):
    """``actor`` gave ``given`` to ``target`` and took ``taken`` at random. Both players see the
    cards (the target sees which were pointed at); everyone else sees only ``k``."""

    actor: int
    target: int
    k: int
    given: tuple[int, ...] | None
    taken: tuple[int, ...] | None
    kind: ClassVar[str] = "exchanged"

    def view(self, player: int | None) -> Event | None:
        if player in (self.actor, self.target):
            return self
        return Exchanged(self.actor, self.target, self.k, None, None)


@dataclass(frozen=True)
class Checked(Event):
    """``actor`` looked at ``cards`` of ``target`` (the target knows which; others only ``k``)."""

    actor: int
    target: int
    k: int
    cards: tuple[int, ...] | None
    kind: ClassVar[str] = "checked"

    def view(self, player: int | None) -> Event | None:
        if player in (self.actor, self.target):
            return self
        return Checked(self.actor, self.target, self.k, None)


@dataclass(frozen=True)
class FinalRevealed(Event):
    """End of a game: ``player`` reveals its last ``card``."""

    player: int
    card: int
    kind: ClassVar[str] = "final_revealed"


@dataclass(frozen=True)
class HiddenRevealed(Event):
    """End of a game: the criminal's room."""

    card: int
    kind: ClassVar[str] = "hidden_revealed"


@dataclass(frozen=True)
class GameScored(Event):
    """Points of this game per seat (deductions + bonus) and the match totals so far."""

    game: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    kind: ClassVar[str] = "game_scored"


@dataclass(frozen=True)
class MatchEnded(Event):
    """The match winners after the tie-breaks (several: a shared win)."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    kind: ClassVar[str] = "match_ended"


@dataclass(frozen=True)
class CrimeHotelObservation(Observation):
    """One seat's view: its hand, the public board, and its views of every event so far."""

    game_index: int = 0
    round: int = 0
    phase: str = "play"
    leader: int = 0
    police_car: int = 0
    trick: tuple[tuple[int, int], ...] = ()
    led: int | None = None
    parking: tuple[int, ...] = ()
    #: meeples on the hotel board: (space, player), in placement order
    board: tuple[tuple[Space, int], ...] = ()
    #: per department, the players in its slots, left to right
    stations: tuple[tuple[str, tuple[int, ...]], ...] = ()
    double_rights: tuple[int, ...] = ()
    scores: tuple[tuple[int, ...], ...] = ()
    #: what the current player must do: "play", "deduce" or "support" (empty: not acting)
    decision: str = ""


# -- the game ---------------------------------------------------------------------------------
class CrimeHotelGame(Game[CrimeHotelConfig]):
    """Crime Hotel per RULES.md §4 (the seed wins where the digest disagrees)."""

    name = "crime-hotel"
    config_class = CrimeHotelConfig
    min_players = 3
    max_players = 4

    def __init__(self, config: CrimeHotelConfig | None = None, **fields: Any) -> None:
        super().__init__(config, **fields)
        config = self.config
        self.deck = config.deck()
        self.floor_of = tuple(int(c.attribute("floor")) for c in self.deck)  # type: ignore[arg-type]
        self.digit_of = tuple(int(c.attribute("digit")) for c in self.deck)  # type: ignore[arg-type]
        self.rank_of = tuple(int(c.attribute("rank")) for c in self.deck)  # type: ignore[arg-type]
        self.floor_cards = {f: tuple(c.id for c in self.deck if self.floor_of[c.id] == f) for f in range(1, config.floors + 1)}
        self.spaces: tuple[Space, ...] = (
            tuple(Space("floor", f) for f in range(1, config.floors + 1))
            + tuple(Space("digit", d) for d in range(1, config.digits + 1))
            + tuple(Space("room", c) for c in range(len(self.deck)))
        )

    @property
    def locations(self) -> tuple[str, ...]:
        """Knowledge-base locations: the seats, the hidden room, the lit (public) cards, the box."""
        extra = (BOX,) if self.config.leftover == "box" and self.config.leftover_count() > 0 else ()
        return self.config.names + (HIDDEN, PUBLIC) + extra

    def new_initial_state(self, seed: int | np.random.SeedSequence | None = None) -> CrimeHotelState:
        return CrimeHotelState(self, np.random.default_rng(seed))

    def points(self, space: Space, hidden: int) -> int:
        """What a meeple on ``space`` scores when the criminal is in room ``hidden``."""
        cfg = self.config
        if space.kind == "floor":
            return cfg.floor_points if self.floor_of[hidden] == space.value else 0
        if space.kind == "digit":
            return cfg.digit_points if self.digit_of[hidden] == space.value else 0
        return cfg.room_points if hidden == space.value else 0

    def skid(self, slot: int) -> bool:
        """Parking space ``slot`` (0-based) has skid marks: the highest and the lowest card."""
        return slot == 0 or slot == self.num_players - 1

    # -- knowledge ---------------------------------------------------------------------------
    def covered_events(self, events: Sequence[Event]) -> tuple[Event, ...]:
        """Knowledge restarts with each game of the match: it covers the game in progress."""
        return self.current_game_events(events)

    @staticmethod
    def current_game_events(events: Sequence[Event]) -> tuple[Event, ...]:
        """The events of the game in progress (from its GameStarted on)."""
        start = 0
        for i, e in enumerate(events):
            if isinstance(e, GameStarted):
                start = i
        return tuple(events[start:])

    @staticmethod
    def run_ends(events: Sequence[Event]) -> frozenset[int]:
        """Indices of the events that close a run of plays (one trick, open or complete) or of
        final reveals: the cards of a run go public together, in one epoch."""
        ends = set()
        for i, e in enumerate(events):
            if isinstance(e, (Played, FinalRevealed)):
                nxt = events[i + 1] if i + 1 < len(events) else None
                if type(nxt) is not type(e):
                    ends.add(i)
        return frozenset(ends)

    @classmethod
    def epochs_of(cls, events: Sequence[Event]) -> int:
        """Epochs of the current game: the deal, plus one per trick (from its first play on),
        per exchange and for the final reveals."""
        return 1 + len(cls.run_ends(events)) + sum(1 for e in events if isinstance(e, Exchanged))

    def knowledge(self, observation: Observation, check: Any = False) -> KnowledgeBase:
        """The observing player's time-indexed knowledge base of the game in progress."""
        events = self.current_game_events(observation.events)
        cfg = self.config
        n = cfg.num_players
        kb = KnowledgeBase(self.deck, self.locations, epochs=self.epochs_of(events))
        hid, pub = kb.loc(HIDDEN), kb.loc(PUBLIC)
        box = kb.loc(BOX) if BOX in self.locations else None
        everything = range(len(self.deck))
        revealed = cfg.leftover_count() if cfg.leftover == "reveal" else 0

        held = [cfg.hand_size] * n  # cards in each hand at the current epoch

        def sizes(e: int, lit: int) -> list[Constraint]:
            out: list[Constraint] = [Count(everything, p, held[p], epoch=e) for p in range(n)]
            out += [Count(everything, hid, 1, epoch=e), Count(everything, pub, lit, epoch=e)]
            if box is not None:
                out.append(Count(everything, box, cfg.leftover_count(), epoch=e))
            return out

        ends = self.run_ends(events)
        run: list[tuple[int, int]] = []  # (owner, card) of the plays or final reveals going public
        e, lit = 0, revealed
        kb.extend(sizes(0, lit), source="rules", check=False)
        for i, event in enumerate(events):
            new: list[Constraint] = []
            if isinstance(event, GameStarted):
                new = [At(c, pub, epoch=0) for c in event.revealed]
            elif isinstance(event, Dealt):
                new = [At(c, event.player, epoch=0) for c in event.cards]
            elif isinstance(event, (Played, FinalRevealed)):
                # a played card, and a card revealed at the end, is public from then on (RULES
                # 4C/4E): it leaves its owner's hand in the epoch of its trick (or of the reveal)
                new = [At(event.card, event.player, epoch=e)]
                if isinstance(event, Played) and event.led is not None and self.floor_of[event.card] != event.led:
                    new.append(Count(self.floor_cards[event.led], event.player, 0, epoch=e))
                run.append((event.player, event.card))
                if i in ends:
                    moved = [sum(1 for q, _ in run if q == p) for p in range(n)]
                    new.append(Transfer(e, [(p, pub, k) for p, k in enumerate(moved) if k]))
                    e += 1
                    for p, k in enumerate(moved):
                        held[p] -= k
                    lit += len(run)
                    new += [At(c, pub, epoch=e) for _, c in run] + sizes(e, lit)
                    run = []
            elif isinstance(event, Exchanged):
                a, t = event.actor, event.target
                new = [Transfer(e, [(a, t, event.k), (t, a, event.k)])]
                for c in event.given or ():
                    new += [At(c, a, epoch=e), At(c, t, epoch=e + 1)]
                for c in event.taken or ():
                    new += [At(c, t, epoch=e), At(c, a, epoch=e + 1)]
                e += 1
                new += sizes(e, lit)
            elif isinstance(event, Checked) and event.cards is not None:
                new = [At(c, event.target, epoch=e) for c in event.cards]
            elif isinstance(event, HiddenRevealed):
                new = [At(event.card, hid, epoch=e)]
            if new:
                kb.extend(new, source=f"event {i}", check=check)
        return kb


_DEPT_OF: dict[type, str] = {MovePolice: "move", Exchange: "exchange", Check: "check", Double: "double", Bonus: "bonus"}


class CrimeHotelState(State):
    """The truth of one Crime Hotel match."""

    def __init__(self, game: CrimeHotelGame, rng: np.random.Generator, deal: Any = None) -> None:
        super().__init__(game)
        self.game: CrimeHotelGame = game
        self._rng_start = copy.deepcopy(rng)  # a variant deal replays the same draws
        self.rng = rng
        cfg = game.config
        n = cfg.num_players
        self.game_index = 0
        self.totals = [0] * n
        self.scores: list[tuple[int, ...]] = []
        self.police_car = cfg.first_leader
        self.finished = False
        self.match_result: tuple[int, ...] = ()
        self._start_game(deal)

    @classmethod
    def from_deal(
        cls,
        game: CrimeHotelGame,
        hands: Sequence[Sequence[int]],
        hidden: int,
        leftover: Sequence[int],
        seed: int | None = 0,
    ) -> CrimeHotelState:
        """A match whose first game starts from a given deal (later games are shuffled with ``seed``)."""
        return cls(game, np.random.default_rng(seed), deal=(hands, hidden, leftover))

    # -- setup -------------------------------------------------------------------------------
    def _start_game(self, deal: Any = None) -> None:
        cfg = self.game.config
        n = cfg.num_players
        if deal is None:
            order = [int(c) for c in self.rng.permutation(cfg.num_cards())]
            hands = [order[p * cfg.hand_size : (p + 1) * cfg.hand_size] for p in range(n)]
            hidden = order[n * cfg.hand_size]
            leftover = order[n * cfg.hand_size + 1 :]
        else:
            hands, hidden, leftover = deal
        self.hands: list[list[int]] = [[int(c) for c in h] for h in hands]
        self.hidden = int(hidden)
        self.leftover = tuple(sorted(int(c) for c in leftover))
        cards = [c for h in self.hands for c in h] + [self.hidden] + list(self.leftover)
        problem = placement_problem(cards, cfg.num_cards())
        if problem:
            deal = (tuple(tuple(h) for h in self.hands), self.hidden, self.leftover)
            raise InvalidConfig("deal", deal, f"a deal must place every card once: {problem}")
        if len(self.hands) != n or any(len(h) != cfg.hand_size for h in self.hands):
            raise InvalidConfig(
                "hands",
                tuple(tuple(h) for h in self.hands),
                f"a deal must give every player ({n}) hand_size ({cfg.hand_size}) cards",
            )
        self.round = 0
        self.leader = self.police_car
        self.phase = "play"
        self.trick: list[tuple[int, int]] = []
        self.parking: tuple[int, ...] = ()
        self.acting = 0
        self.board: list[tuple[Space, int]] = []
        self.stations: dict[str, list[int]] = {d: [] for d in DEPARTMENTS}
        self.double_used = [0] * n
        self.public: set[int] = set(self.leftover) if cfg.leftover == "reveal" else set()
        self.final_revealed: set[int] = set()
        self._snapshots: list[np.ndarray] = []
        revealed = self.leftover if cfg.leftover == "reveal" else ()
        self._events.append(GameStarted(self.game_index, self.leader, revealed))
        self._events.extend(Dealt(p, tuple(sorted(h))) for p, h in enumerate(self.hands))
        self._snapshot()

    def _snapshot(self) -> None:
        self._snapshots.append(self._current_world())

    def _current_world(self) -> np.ndarray:
        locs = self.game.locations
        w = np.empty(self.game.config.num_cards(), dtype=np.int64)
        pub = locs.index(PUBLIC)
        w[:] = pub
        for p, hand in enumerate(self.hands):
            for c in hand:
                w[c] = p
        # the open trick's cards and the final reveals are public already (RULES 4C/4E)
        for c in [c for _, c in self.trick] + sorted(self.final_revealed):
            w[c] = pub
        w[self.hidden] = locs.index(HIDDEN)
        if BOX in locs:
            for c in self.leftover:
                w[c] = locs.index(BOX)
        return w

    def world(self) -> np.ndarray:
        """``[epoch, card] -> location`` of the game in progress (the knowledge bases' coordinates)."""
        return np.array(self._snapshots)

    # -- queries -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.finished:
            return State.TERMINAL
        n = self.game.num_players
        if self.phase == "play":
            return (self.leader + len(self.trick)) % n
        return self.parking[self.acting]

    def is_terminal(self) -> bool:
        return self.finished

    def returns(self) -> list[float]:
        return [1.0 if p in self.match_result else 0.0 for p in range(self.game.num_players)]

    @property
    def led(self) -> int | None:
        return self.game.floor_of[self.trick[0][1]] if self.trick else None

    def _in_hand(self, player: int) -> list[int]:
        played = {c for p, c in self.trick if p == player}
        return [c for c in self.hands[player] if c not in played]

    def decision(self) -> str:
        if self.finished:
            return ""
        if self.phase == "play":
            return "play"
        return "deduce" if self.game.skid(self.acting) else "support"

    def double_rights(self, player: int) -> int:
        return self.stations["double"].count(player) - self.double_used[player]

    def _occupants(self, space: Space) -> list[int]:
        return [p for s, p in self.board if s == space]

    def _placeable(self, player: int) -> list[tuple[Space, bool]]:
        """Guess spaces ``player`` may put a meeple on, and whether that uses a double right."""
        rights = self.double_rights(player) > 0
        out = []
        for space in self.game.spaces:
            occ = self._occupants(space)
            if player in occ:
                continue
            if not occ:
                out.append((space, False))
            elif rights:
                out.append((space, True))
        return out

    def legal_actions(self, player: int | None = None) -> list[Action]:
        if self.finished or (player is not None and player != self.current_player):
            return []
        who = self.current_player
        kind = self.decision()
        if kind == "play":
            hand = self._in_hand(who)
            led = self.led
            if led is not None:
                follow = [c for c in hand if self.game.floor_of[c] == led]
                if follow:
                    return [Play(c) for c in sorted(follow)]
            return [Play(c) for c in sorted(hand)]
        if kind == "deduce":
            return [Deduce(s) for s, _ in self._placeable(who)]
        return self._support_actions(who)

    def _free_slot(self, dept: str) -> int | None:
        used = len(self.stations[dept])
        return used if used < len(self.game.config.slots(dept)) else None

    def _support_actions(self, who: int) -> list[Action]:
        cfg = self.game.config
        n = cfg.num_players
        out: list[Action] = []
        if self._free_slot("move") is not None:
            mine = [s for s, p in self.board if p == who]
            out.append(MovePolice())
            targets = self._placeable(who)
            for src in mine:
                out.extend(MovePolice(src, dst) for dst, _ in targets)
        slot = self._free_slot("exchange")
        if slot is not None:
            hand = sorted(self.hands[who])
            for target in range(n):
                if target == who:
                    continue
                k = min(cfg.exchange_slots[slot], len(hand), len(self.hands[target]))
                out.extend(Exchange(target, give) for give in combinations(hand, k))
        if self._free_slot("check") is not None:
            out.extend(Check(t) for t in range(n) if t != who)
        if self._free_slot("double") is not None:
            out.append(Double())
        if self._free_slot("bonus") is not None:
            out.append(Bonus())
        return out

    def explain_illegal(self, action: Action) -> str:
        who = self.current_player
        kind = self.decision()
        if kind == "play":
            if not isinstance(action, Play):
                return f"{self.seat_name(who)} must play a card now, not {action!r}"
            if action.card not in self._in_hand(who):
                return f"{self.seat_name(who)} does not hold {self.game.deck[action.card].name if 0 <= action.card < len(self.game.deck) else action.card}"
            return f"{self.seat_name(who)} must follow floor {self.led}: it holds a card of that floor"
        if kind == "deduce":
            if not isinstance(action, Deduce):
                return f"{self.seat_name(who)} is on a skid-mark parking space and must make a deduction, not {action!r}"
            occ = self._occupants(action.space)
            if who in occ:
                return f"{self.seat_name(who)} already has a meeple on {action.space}: never two of one's own on a space"
            if occ:
                return f"{action.space} is occupied and {self.seat_name(who)} has no double-placement right"
            return f"{action.space} is not a guess space"
        if isinstance(action, Deduce):
            return f"{self.seat_name(who)} is on a parking space without skid marks and must take a support action"
        dept = _DEPT_OF.get(type(action))
        if dept is not None and self._free_slot(dept) is None:
            return f"the {dept} department is full"
        if isinstance(action, (Exchange, Check)) and action.target == who:
            return "one exchanges with / checks another player, not oneself"
        if isinstance(action, Exchange):
            return f"{action!r}: give cards from one's own hand, as many as the slot says"
        if isinstance(action, MovePolice):
            return f"{action!r}: move one's own meeple from the hotel board to a space one may occupy"
        return f"{action!r} is not legal for {self.seat_name(who)} now"

    def observation(self, player: int | None) -> CrimeHotelObservation:
        cfg = self.game.config
        acting = player is not None and player == self.current_player
        n = cfg.num_players
        return CrimeHotelObservation(
            game=self.game.name,
            player=player,
            num_players=n,
            events=self.views(player),
            current_player=self.current_player,
            legal_actions=tuple(self.legal_actions()) if acting else (),
            terminal=self.finished,
            names=cfg.names,
            hand=tuple(sorted(self._in_hand(player))) if player is not None else (),
            hand_sizes=tuple(len(self._in_hand(p)) for p in range(n)),
            game_index=self.game_index,
            round=self.round,
            phase=self.phase,
            leader=self.leader,
            police_car=self.police_car,
            trick=tuple(self.trick),
            led=self.led,
            parking=self.parking,
            board=tuple(self.board),
            stations=tuple((d, tuple(self.stations[d])) for d in DEPARTMENTS),
            double_rights=tuple(self.double_rights(p) for p in range(n)),
            scores=tuple(self.scores),
            decision=self.decision() if acting else "",
        )

    def clone(self) -> CrimeHotelState:
        other = copy.copy(self)
        other._events = list(self._events)
        other.hands = [list(h) for h in self.hands]
        other.totals = list(self.totals)
        other.scores = list(self.scores)
        other.trick = list(self.trick)
        other.board = list(self.board)
        other.stations = {d: list(v) for d, v in self.stations.items()}
        other.double_used = list(self.double_used)
        other.public = set(self.public)
        other.final_revealed = set(self.final_revealed)
        other._snapshots = list(self._snapshots)
        other.rng = copy.deepcopy(self.rng)
        return other

    # -- transitions -------------------------------------------------------------------------
    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` (or raise :class:`IllegalAction` saying why); returns the events it
        caused, in order, including any that a new game of the match starts with."""
        start = len(self._events)
        super().apply(action)
        return list(self._events[start:])

    def _emit(self, *events: Event) -> None:
        self._events.extend(events)

    def _apply(self, action: Action) -> list[Event]:
        """Transitions emit their events directly (a game that ends starts the next one), so
        the base class gets nothing back to append."""
        who = self.current_player
        if isinstance(action, Play):
            self._play(who, action.card)
            return []
        if isinstance(action, Deduce):
            double = bool(self._occupants(action.space))
            if double:
                self.double_used[who] += 1
            self.board.append((action.space, who))
            self._emit(Deduced(who, action.space, double))
        else:
            self._support(who, action)
        self._next_action()
        return []

    def _play(self, who: int, card: int) -> None:
        led = self.led
        self.trick.append((who, card))
        if len(self.trick) == 1:  # a trick is one epoch of the knowledge, from its first play on
            self._snapshot()
        else:
            self._snapshots[-1] = self._current_world()
        self._emit(Played(who, card, led))
        if len(self.trick) < self.game.num_players:
            return
        # rank the trick: the highest card takes parking space 1 and the police car
        ranked = sorted(self.trick, key=lambda pc: -self.game.rank_of[pc[1]])
        self.parking = tuple(p for p, _ in ranked)
        for p, c in self.trick:
            self.hands[p].remove(c)
            self.public.add(c)
        self.police_car = self.parking[0]
        self.trick = []
        self._emit(TrickDone(self.parking, tuple(c for _, c in ranked)))
        self.phase = "actions"
        self.acting = -1
        self._next_action()

    def _next_action(self) -> None:
        """Advance to the next parking space that needs a decision (beginner discards resolve
        themselves); after the last, start the next round or end the game."""
        cfg = self.game.config
        while True:
            self.acting += 1
            if self.acting >= self.game.num_players:
                self._end_round()
                return
            if cfg.beginner and not self.game.skid(self.acting):
                self._emit(Discarded(self.parking[self.acting]))
                continue
            return

    def _support(self, who: int, action: Action) -> None:
        cfg = self.game.config
        dept = _DEPT_OF[type(action)]
        slot = len(self.stations[dept])
        self.stations[dept].append(who)
        self._emit(Stationed(who, dept, slot))
        if isinstance(action, MovePolice) and action.src is not None and action.dst is not None:
            double = bool(self._occupants(action.dst))
            if double:
                self.double_used[who] += 1
            i = self.board.index((action.src, who))
            self.board[i] = (action.dst, who)
            self._emit(PoliceMoved(who, action.src, action.dst, double))
        elif isinstance(action, Exchange):
            target = action.target
            k = len(action.give)
            theirs = self.hands[target]
            # the actor gives first; the cards taken come from the target's hand before it
            # received them, so a card just given cannot come back (RULES.md §4D)
            picks = sorted(int(i) for i in self.rng.choice(len(theirs), size=k, replace=False))
            taken = tuple(theirs[i] for i in picks)
            for c in action.give:
                self.hands[who].remove(c)
            for c in taken:
                theirs.remove(c)
            theirs.extend(action.give)
            self.hands[who].extend(taken)
            self._snapshot()
            self._emit(Exchanged(who, target, k, tuple(action.give), taken))
        elif isinstance(action, Check):
            theirs = self.hands[action.target]
            k = min(cfg.check_slots[slot], len(theirs))
            picks = sorted(int(i) for i in self.rng.choice(len(theirs), size=k, replace=False))
            self._emit(Checked(who, action.target, k, tuple(theirs[i] for i in picks)))

    def _end_round(self) -> None:
        self.round += 1
        self.phase = "play"
        self.parking = ()
        self.leader = self.police_car
        if self.round >= self.game.config.rounds:
            self._end_game()

    def _end_game(self) -> None:
        cfg = self.game.config
        n = cfg.num_players
        for k in range(n):  # from the police-car holder, clockwise
            p = (self.police_car + k) % n
            for c in sorted(self.hands[p]):
                self._emit(FinalRevealed(p, c))
                self.final_revealed.add(c)
        if self.final_revealed:
            self._snapshot()
        self._emit(HiddenRevealed(self.hidden))
        points = []
        for p in range(n):
            deduced = sum(self.game.points(s, self.hidden) for s, q in self.board if q == p)
            bonus = max((cfg.bonus_slots[i] for i, q in enumerate(self.stations["bonus"]) if q == p), default=0)
            points.append(deduced + (bonus if deduced > 0 else 0))
        self.scores.append(tuple(points))
        self.totals = [t + x for t, x in zip(self.totals, points, strict=True)]
        self._emit(GameScored(self.game_index, tuple(points), tuple(self.totals)))
        self.game_index += 1
        if self.game_index < cfg.games:
            self._start_game()
            return
        self.finished = True
        self.match_result = self.match_winners()
        self._emit(MatchEnded(self.match_result, tuple(self.totals)))

    # -- audit -------------------------------------------------------------------------------
    def hidden_variant(self, player: int, actions: Sequence[Action], rng: np.random.Generator) -> CrimeHotelState | None:
        """Swap two same-floor cards of the current game's deal that ``player`` has not seen
        (other hands, the hidden room, boxed leftovers), then replay ``actions`` with the same
        draws: nothing ``player`` saw may change."""
        if self.finished:
            return None
        places = self._unseen_places(player)
        pairs = [
            (a, b)
            for i, (x, a) in enumerate(places)
            for y, b in places[i + 1 :]
            if x != y and self.game.floor_of[a] == self.game.floor_of[b]
        ]
        for i in rng.permutation(len(pairs))[:5] if pairs else []:
            a, b = pairs[i]
            variant = self._replay_with_swap({a: b, b: a}, actions)
            if variant is not None:
                return variant
        return None

    def _unseen_places(self, player: int) -> list[tuple[int, int]]:
        """(place, card) of every card of the current deal ``player`` has not seen: seats by
        number, ``-1`` the hidden room, ``-2`` the boxed leftovers."""
        events = self.game.current_game_events(self._events)
        seen: set[int] = set()
        dealt: dict[int, tuple[int, ...]] = {}
        for e in events:
            if isinstance(e, Dealt):
                dealt[e.player] = e.cards
            elif isinstance(e, Played | FinalRevealed | HiddenRevealed):
                seen.add(e.card)
            elif isinstance(e, Exchanged) and player in (e.actor, e.target):
                seen |= set(e.given or ()) | set(e.taken or ())
            elif isinstance(e, Checked) and player in (e.actor, e.target):
                seen |= set(e.cards or ())
        seen |= set(dealt.get(player, ()))
        places = [(q, c) for q, cards in dealt.items() if q != player for c in cards]
        places.append((-1, self.hidden))
        if self.game.config.leftover == "box":
            places += [(-2, c) for c in self.leftover]
        return [(q, c) for q, c in places if c not in seen]

    def _replay_with_swap(self, swap: dict[int, int], actions: Sequence[Action]) -> CrimeHotelState | None:
        """The match with the same draws but the current game's deal changed by ``swap``, after
        ``actions`` (None if one of them is illegal there)."""
        other = CrimeHotelState(self.game, copy.deepcopy(self._rng_start))
        swapped = False
        try:
            for action in [*actions, None]:
                if not swapped and other.game_index == self.game_index:
                    other._swap_deal(swap)
                    swapped = True
                if action is not None:
                    other.apply(action)
        except IllegalAction:
            return None
        return other if swapped else None

    def redeal(self, swap: dict[int, int]) -> CrimeHotelState:
        """A copy of this state with the current game's deal changed by ``swap`` (card -> card,
        a permutation of the cards it names; the hands keep their order, so the same draws pick
        the same positions): how a search redraws a hidden deal. Only right after a deal,
        before the game's first move."""
        n = self.game.num_players
        if len(self._events) < n or not all(isinstance(e, Dealt) for e in self._events[-n:]):
            raise IllegalAction("a game can be re-dealt only right after its deal, before any move")
        if sorted(swap) != sorted(swap.values()) or any(not 0 <= c < len(self.game.deck) for c in swap):
            raise IllegalAction(f"a re-deal must exchange cards among themselves; {swap} does not")
        other = self.clone()
        other._swap_deal(swap)
        return other

    def _swap_deal(self, swap: dict[int, int]) -> None:
        """Exchange cards of a game just dealt (hand order kept, so the same draws pick the
        same positions)."""
        n = self.game.num_players
        self.hands = [[swap.get(c, c) for c in h] for h in self.hands]
        self.hidden = swap.get(self.hidden, self.hidden)
        self.leftover = tuple(sorted(swap.get(c, c) for c in self.leftover))
        self._events[-n:] = [Dealt(p, tuple(sorted(h))) for p, h in enumerate(self.hands)]
        self._snapshots[-1] = self._current_world()

    def winners(self) -> tuple[int, ...]:
        """The match winners after the tie-breaks (empty until the match ends)."""
        return self.match_result

    def match_winners(self) -> tuple[int, ...]:
        """Highest total; ties: the police-car holder, then game 3, 2, 1 scores; else shared."""
        best = max(self.totals)
        tied = [p for p in range(self.game.num_players) if self.totals[p] == best]
        if len(tied) == 1:
            return tuple(tied)
        if self.police_car in tied:
            return (self.police_car,)
        for g in reversed(range(len(self.scores))):
            top = max(self.scores[g][p] for p in tied)
            tied = [p for p in tied if self.scores[g][p] == top]
            if len(tied) == 1:
                break
        return tuple(tied)


