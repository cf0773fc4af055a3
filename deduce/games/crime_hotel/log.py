"""The Crime Hotel game-log format: written at a real table, or exported from a simulated game.

```
{"game": "crime-hotel", "players": ["ann", "bob", "cy", "dee"], "me": "ann",
 "events": [{"type": "game", "leader": "ann", "revealed": ["104", "207"]},
            {"type": "hand", "player": "ann", "cards": ["101", "105", "203", "206", "302", "309"]},
            {"type": "play", "player": "ann", "card": "105"}, ...one per player...,
            {"type": "trick"},
            {"type": "deduce", "player": "bob", "space": "digit 5"},
            {"type": "move", "player": "cy", "from": "floor 1", "to": "room 207"},
            {"type": "exchange", "actor": "cy", "target": "ann", "k": 1, "given": ["301"], "taken": ["203"]},
            {"type": "check", "actor": "dee", "target": "bob", "k": 2},
            {"type": "final", "player": "bob", "card": "308"},
            {"type": "hidden", "card": "204"}]}
```

Optional header keys: ``floors``, ``digits``, ``hand_size``, ``rounds``, ``leftover``
(``"reveal"`` or ``"box"``) and ``rank_table``. Cards are room numbers. A ``trick`` closes the
trick of the plays before it (parking follows from the ranks); the cards moved or seen by an
exchange or a check are given only when the logging player took part. Department placements,
bonus points and scores carry no card information and are not logged. Each log event becomes
one observation event, so an error or a contradiction can always name the event by its index.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deduce.games.base import Dealt, Event
from deduce.games.crime_hotel.rules import (
    BOX,
    HIDDEN,
    PUBLIC,
    Checked,
    CrimeHotelConfig,
    CrimeHotelGame,
    CrimeHotelObservation,
    Deduced,
    Exchanged,
    FinalRevealed,
    GameStarted,
    HiddenRevealed,
    Played,
    PoliceMoved,
    Space,
    TrickDone,
)
from deduce.logs import LogReader

__all__ = ["parse", "export", "space_name"]

_HEADER_KEYS = {"game", "players", "me", "events", "floors", "digits", "hand_size", "rounds", "leftover", "rank_table"}
_EVENT_TYPES = "game, hand, play, trick, deduce, move, exchange, check, final or hidden"


def space_name(game: CrimeHotelGame, space: Space) -> str:
    """A guess space as logs and people write it: "floor 2", "digit 7", "room 305"."""
    if space.kind == "room":
        return f"room {game.deck[space.value].name}"
    return f"{space.kind} {space.value}"


class _Reader(LogReader):
    """Parses one log; every error names the event (index and text) it came from."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.game_no = -1
        self.trick: list[tuple[int, int]] = []
        self.played: dict[int, int] = {}  # card -> event index, this game
        self.tricks = 0
        #: who leads the open trick, and why (the game's leader, or the last trick's taker)
        self.leader: tuple[int, str] = (0, "the game's leader")
        self.board: list[tuple[Space, int]] = []
        self.hands: dict[int, set[int]] = {}

    # -- header ------------------------------------------------------------------------------
    def header(self) -> tuple[CrimeHotelGame, int | None]:
        data = self.data
        unknown = sorted(set(data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(HIDDEN, PUBLIC, BOX))
        fields: dict[str, Any] = {"num_players": len(players), "player_names": tuple(players)}
        for key in ("floors", "digits", "hand_size", "rounds"):
            if key in data:
                if not isinstance(data[key], int) or isinstance(data[key], bool):
                    raise self.fail(f"{key!r} must be a whole number, got {data[key]!r}")
                fields[key] = data[key]
        if "leftover" in data:
            fields["leftover"] = data["leftover"]
        if "rank_table" in data:
            table = data["rank_table"]
            if not isinstance(table, list) or not all(isinstance(r, int) for r in table):
                raise self.fail("'rank_table' must list one whole number per card")
            fields["rank_table"] = tuple(table)
        try:
            game = CrimeHotelGame(CrimeHotelConfig(**fields))
        except (ValueError, TypeError) as exc:
            raise self.fail(str(exc)) from None
        self.game = game
        me = data.get("me")
        self.seat = None if me is None else self.player(me, "me")
        return game, self.seat

    # -- names -------------------------------------------------------------------------------
    def card(self, name: object, field: str) -> int:
        if isinstance(name, int) and not isinstance(name, bool):
            name = str(name)
        if not isinstance(name, str) or name not in self.game.deck:
            raise self.fail(f"unknown card {name!r} in {field!r}; cards are room numbers like '101'")
        return self.game.deck.card(name).id

    def cards(self, raw: object, field: str, count: int | None = None) -> tuple[int, ...]:
        if not isinstance(raw, list):
            raise self.fail(f"{field!r} must be a list of cards")
        cards = tuple(self.card(c, field) for c in raw)
        if len(set(cards)) != len(cards):
            raise self.fail(f"a card is listed twice in {field!r}")
        if count is not None and len(cards) != count:
            raise self.fail(f"{field!r} must list {count} card(s), not {len(cards)}")
        return cards

    def space(self, raw: object, field: str) -> Space:
        words = raw.split() if isinstance(raw, str) else []
        cfg = self.game.config
        if len(words) == 2 and words[0] in ("floor", "digit", "room"):
            kind, value = words
            if kind == "room":
                return Space("room", self.card(value, field))
            if value.isdigit() and 1 <= int(value) <= (cfg.floors if kind == "floor" else cfg.digits):
                return Space(kind, int(value))
        raise self.fail(f"unknown space {raw!r} in {field!r}; spaces are like 'floor 2', 'digit 7' or 'room 305'")

    # -- events ------------------------------------------------------------------------------
    def events(self) -> list[Event]:
        out: list[Event] = []
        for raw in self.raw_events():
            if raw["type"] != "game" and self.game_no < 0:
                raise self.fail("the log must start with a 'game' event")
            out.append(self.event(raw))
        self.index = None
        return out

    def event(self, raw: Mapping[str, Any]) -> Event:
        kind = raw["type"]
        cfg, names = self.game.config, self.game.config.names
        if self.trick and kind not in ("play", "trick", "game"):
            # actions and reveals come after a trick is complete: the open trick's cards are
            # one step of the knowledge (they go public together)
            raise self.fail(f"the trick is still open ({len(self.trick)} of {self.game.num_players} played)")
        if kind == "game":
            self.keys(raw, {"leader", "revealed"})
            leader = self.player(raw["leader"], "leader")
            lit = cfg.leftover_count() if cfg.leftover == "reveal" else 0
            revealed = self.cards(raw["revealed"], "revealed", lit)
            if self.trick:
                raise self.fail("the last trick was not closed with a 'trick' event")
            self.game_no += 1
            self.played, self.tricks, self.board, self.hands = {}, 0, [], {}
            self.leader = (leader, "the game's leader")
            return GameStarted(self.game_no, leader, revealed)
        if kind == "hand":
            self.keys(raw, {"player", "cards"})
            player = self.player(raw["player"], "player")
            cards = self.cards(raw["cards"], "cards", cfg.hand_size)
            self.hands[player] = set(cards)
            return Dealt(player, tuple(sorted(cards)))
        if kind == "play":
            self.keys(raw, {"player", "card"})
            player = self.player(raw["player"], "player")
            card = self.card(raw["card"], "card")
            if card in self.played:
                raise self.fail(f"{raw['card']} was already played at event {self.played[card]}")
            if any(p == player for p, _ in self.trick):
                raise self.fail(f"{names[player]} already played to this trick")
            if self.tricks >= cfg.rounds:
                raise self.fail(f"a game has {cfg.rounds} tricks; start the next with a 'game' event")
            self.check_turn(player)
            led = self.game.floor_of[self.trick[0][1]] if self.trick else None
            self.trick.append((player, card))
            self.played[card] = self.index  # type: ignore[assignment]
            self.hands.get(player, set()).discard(card)
            return Played(player, card, led)
        if kind == "trick":
            self.keys(raw, set())
            if len(self.trick) != self.game.num_players:
                raise self.fail(f"a trick closes after every player played; {len(self.trick)} played")
            ranked = sorted(self.trick, key=lambda pc: -self.game.rank_of[pc[1]])
            self.trick = []
            self.tricks += 1
            self.leader = (ranked[0][0], f"{names[ranked[0][0]]} took the last trick")
            return TrickDone(tuple(p for p, _ in ranked), tuple(c for _, c in ranked))
        if kind == "deduce":
            self.keys(raw, {"player", "space"})
            player = self.player(raw["player"], "player")
            space = self.space(raw["space"], "space")
            double = any(s == space for s, _ in self.board)
            self.board.append((space, player))
            return Deduced(player, space, double)
        if kind == "move":
            self.keys(raw, {"player", "from", "to"})
            player = self.player(raw["player"], "player")
            src, dst = self.space(raw["from"], "from"), self.space(raw["to"], "to")
            if (src, player) not in self.board:
                raise self.fail(f"{names[player]} has no meeple on {raw['from']}")
            at = self.board.index((src, player))
            double = any(s == dst for s, _ in self.board)
            self.board[at] = (dst, player)  # the meeple keeps its place in placement order
            return PoliceMoved(player, src, dst, double)
        if kind in ("exchange", "check"):
            return self.look(raw, kind)
        if kind == "final":
            self.keys(raw, {"player", "card"})
            return FinalRevealed(self.player(raw["player"], "player"), self.card(raw["card"], "card"))
        if kind == "hidden":
            self.keys(raw, {"card"})
            return HiddenRevealed(self.card(raw["card"], "card"))
        raise self.fail(f"unknown event type {kind!r}; expected {_EVENT_TYPES}")

    def check_turn(self, player: int) -> None:
        """Refuse a play out of turn: the police-car holder (the game's leader, then whoever
        played the highest card of the last trick) leads, the others follow clockwise (seed)."""
        names, n = self.game.config.names, self.game.num_players
        leader, why = self.leader
        due = (leader + len(self.trick)) % n
        if player == due:
            return
        if not self.trick:
            raise self.fail(f"{names[player]} cannot lead this trick: {names[leader]} leads it ({why})")
        raise self.fail(f"{names[player]} cannot play now: {names[due]} plays next (clockwise from {names[leader]})")

    def look(self, raw: Mapping[str, Any], kind: str) -> Event:
        """An exchange or a check: the cards are known only to the two players involved."""
        cards_fields = {"given", "taken"} if kind == "exchange" else {"cards"}
        self.keys(raw, {"actor", "target", "k"}, cards_fields)
        actor, target = self.player(raw["actor"], "actor"), self.player(raw["target"], "target")
        if actor == target:
            raise self.fail("one exchanges with, or checks, another player")
        k = raw["k"]
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= self.game.config.hand_size:
            raise self.fail(f"'k' must be a number of cards, got {k!r}")
        involved = self.seat in (actor, target)
        given = {f: raw.get(f) for f in sorted(cards_fields)}
        if not involved and any(v is not None for v in given.values()):
            raise self.fail(f"only {self.game.config.names[actor]} and {self.game.config.names[target]} see those cards")
        if involved and any(v is None for v in given.values()):
            raise self.fail(f"you took part: give {' and '.join(map(repr, sorted(cards_fields)))}")
        seen = {f: (self.cards(v, f, k) if v is not None else None) for f, v in given.items()}
        if kind == "exchange":
            return Exchanged(actor, target, k, seen["given"], seen["taken"])
        return Checked(actor, target, k, seen["cards"])

    def read(self) -> tuple[CrimeHotelGame, CrimeHotelObservation]:
        game, seat = self.header()
        events = tuple(self.events())
        n, cfg = game.num_players, game.config
        hand = self._hand(game, seat, events)
        trick = tuple(self.trick)
        last = next((e for e in reversed(events) if isinstance(e, (GameStarted, TrickDone))), None)
        obs = CrimeHotelObservation(
            game=game.name,
            player=seat,
            num_players=n,
            events=events,
            current_player=-1,
            legal_actions=(),
            terminal=False,
            names=cfg.names,
            hand=hand,
            hand_sizes=tuple(cfg.hand_size - self.tricks - any(p == q for p, _ in trick) for q in range(n)),
            game_index=max(self.game_no, 0),
            round=self.tricks,
            leader=trick[0][0] if trick else (last.parking[0] if isinstance(last, TrickDone) else
                                              last.leader if isinstance(last, GameStarted) else 0),
            trick=trick,
            led=game.floor_of[trick[0][1]] if trick else None,
            parking=last.parking if isinstance(last, TrickDone) else (),
            board=tuple(self.board),
        )
        return game, obs

    @staticmethod
    def _hand(game: CrimeHotelGame, seat: int | None, events: tuple[Event, ...]) -> tuple[int, ...]:
        """The logging player's cards now: dealt, less played, swapped by its exchanges."""
        if seat is None:
            return ()
        cards: set[int] = set()
        for e in game.current_game_events(events):
            if isinstance(e, Dealt) and e.player == seat:
                cards = set(e.cards)
            elif isinstance(e, Played) and e.player == seat:
                cards.discard(e.card)
            elif isinstance(e, Exchanged) and e.given is not None and e.taken is not None:
                out, into = (e.given, e.taken) if e.actor == seat else (e.taken, e.given)
                cards = (cards - set(out)) | set(into)
        return tuple(sorted(cards))


def parse(data: Mapping[str, Any]) -> tuple[CrimeHotelGame, CrimeHotelObservation]:
    """Read a Crime Hotel log (already decoded from JSON) into the game and the logging player's view."""
    return _Reader(data).read()


def export(game: CrimeHotelGame, obs: CrimeHotelObservation) -> dict[str, Any]:
    """One player's view of a match as a log, readable by :func:`parse` (department placements,
    discards and scores, which carry no card information, are left out)."""
    cfg, deck = game.config, game.deck
    names = cfg.names
    events: list[dict[str, Any]] = []
    for e in obs.events:
        if isinstance(e, GameStarted):
            events.append({"type": "game", "leader": names[e.leader], "revealed": list(deck.names(e.revealed))})
        elif isinstance(e, Dealt):
            events.append({"type": "hand", "player": names[e.player], "cards": list(deck.names(e.cards))})
        elif isinstance(e, Played):
            events.append({"type": "play", "player": names[e.player], "card": deck[e.card].name})
        elif isinstance(e, TrickDone):
            events.append({"type": "trick"})
        elif isinstance(e, Deduced):
            events.append({"type": "deduce", "player": names[e.player], "space": space_name(game, e.space)})
        elif isinstance(e, PoliceMoved):
            events.append({"type": "move", "player": names[e.player], "from": space_name(game, e.src),
                           "to": space_name(game, e.dst)})
        elif isinstance(e, Exchanged):
            item: dict[str, Any] = {"type": "exchange", "actor": names[e.actor], "target": names[e.target], "k": e.k}
            if e.given is not None and e.taken is not None:
                item["given"], item["taken"] = list(deck.names(e.given)), list(deck.names(e.taken))
            events.append(item)
        elif isinstance(e, Checked):
            item = {"type": "check", "actor": names[e.actor], "target": names[e.target], "k": e.k}
            if e.cards is not None:
                item["cards"] = list(deck.names(e.cards))
            events.append(item)
        elif isinstance(e, FinalRevealed):
            events.append({"type": "final", "player": names[e.player], "card": deck[e.card].name})
        elif isinstance(e, HiddenRevealed):
            events.append({"type": "hidden", "card": deck[e.card].name})
    log: dict[str, Any] = {"game": game.name, "players": list(names)}
    default = CrimeHotelConfig(num_players=cfg.num_players)
    for key in ("floors", "digits", "hand_size", "rounds", "leftover"):
        if getattr(cfg, key) != getattr(default, key):
            log[key] = getattr(cfg, key)
    if cfg.rank_table:
        log["rank_table"] = list(cfg.rank_table)
    if obs.player is not None:
        log["me"] = names[obs.player]
    log["events"] = events
    return log
