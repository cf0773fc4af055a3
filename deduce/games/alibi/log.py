"""The Alibi (Mayfair) game-log format: written at a real table, or exported from a simulated game.

```
{"game": "alibi", "players": ["ann", "bob", "cy", "dee"], "me": "ann",
 "events": [{"type": "hand", "player": "ann", "cards": ["Slim Slant / Morning", ...]},
            {"type": "ask", "asker": "ann", "target": "bob", "family": "hand",
             "cards": ["Rage M1", "Rage M2", "Rage M3"], "answer": 1},
            {"type": "ask", "asker": "bob", "target": "cy", "family": "held", "cards": [], "answer": 21},
            {"type": "pass", "gave": ["Boat / Deck"], "got": ["Gun / Rifle"]},
            {"type": "meld", "player": "cy", "set": "Poison"},
            {"type": "accuse", "player": "dee"},
            {"type": "reveal", "box": ["Mona Byrd / Noon", "Auto / Trunk", "Gun / Pistol", "Rage / Rage M2"]}]}
```

A card is ``"set / sub-icon"`` (as the deck names it). ``family`` is ``hand`` (held now),
``seen`` (ever seen) or ``held`` (distinct cards ever held; no cards). A ``pass`` moves
``min(round, hand)`` cards from every player to the next (``counts`` may say so per player);
``gave`` and ``got`` are the logging player's own cards out and in. A meld may come at any time
before the accusation (the seed; after a question it is a step of its own in the knowledge);
the optional ``meld_timing: "round_start"`` allows melds only at the start of a round, before
its first question. The optional ``dealer`` (a player) sets the hand sizes.
Each log event becomes one observation event, so an error can always name it by its index.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deduce.cards import normalise_name
from deduce.games.alibi.rules import (
    BOX,
    CATEGORIES,
    MELDS,
    Accused,
    AlibiConfig,
    AlibiGame,
    AlibiObservation,
    Asked,
    Family,
    Melded,
    Passed,
    Revealed,
)
from deduce.games.base import Dealt, Event
from deduce.logs import LogReader

__all__ = ["parse", "export", "set_name"]

_HEADER_KEYS = {"game", "players", "me", "dealer", "meld_timing", "events"}
_EVENT_TYPES = "hand, ask, pass, meld, accuse or reveal"


def set_name(game: AlibiGame, set_id: int) -> str:
    """A set's printed name ("Rage", "Slim Slant")."""
    return str(game.deck[game.set_cards[set_id][0]].attribute("set"))


class _Reader(LogReader):
    """Parses one log; every error names the event (index and text) it came from."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.round, self.epoch = 1, 0
        self.window: int | None = None  # the epoch the current round's meld window made
        self.asked = False  # a question (or an accusation) closed this round's meld window
        self.accused: int | None = None
        self.revealed = False

    # -- header ------------------------------------------------------------------------------
    def header(self) -> tuple[AlibiGame, int | None]:
        unknown = sorted(set(self.data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(BOX, MELDS))
        fields: dict[str, Any] = {"num_players": len(players), "player_names": tuple(players)}
        if "meld_timing" in self.data:
            fields["meld_timing"] = self.data["meld_timing"]
        try:
            game = AlibiGame(AlibiConfig(**fields))
            self.game = game
            if "dealer" in self.data:
                dealer = self.player(self.data["dealer"], "dealer")
                game = AlibiGame(AlibiConfig(**fields, dealer=dealer))
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        self.game = game
        self.sizes = list(game.config.hand_sizes())
        self.sets = {normalise_name(set_name(game, s)): s for s in range(len(game.set_cards))}
        me = self.data.get("me")
        self.seat = None if me is None else self.player(me, "me")
        self.hand: set[int] = set()
        return game, self.seat

    # -- names -------------------------------------------------------------------------------
    def card(self, name: object, field: str) -> int:
        if not isinstance(name, str) or name not in self.game.deck:
            raise self.fail(f"unknown card {name!r} in {field!r}; cards are named like {self.game.deck[0].name!r}")
        return self.game.deck.card(name).id

    def cards(self, raw: object, field: str) -> tuple[int, ...]:
        if not isinstance(raw, list):
            raise self.fail(f"{field!r} must be a list of cards")
        cards = tuple(self.card(c, field) for c in raw)
        if len(set(cards)) != len(cards):
            raise self.fail(f"a card is listed twice in {field!r}")
        return cards

    # -- events ------------------------------------------------------------------------------
    def events(self) -> list[Event]:
        out: list[Event] = []
        for raw in self.raw_events():
            if self.revealed:
                raise self.fail("the box was opened: the game is over")
            if self.accused is not None and raw["type"] not in ("reveal",):
                raise self.fail("the game ended with an accusation; only the 'reveal' of the box follows")
            out.append(self.event(raw))
        self.index = None
        return out

    def event(self, raw: Mapping[str, Any]) -> Event:
        kind = raw["type"]
        game, names = self.game, self.game.config.names
        if kind == "hand":
            self.keys(raw, {"player", "cards"})
            player = self.player(raw["player"], "player")
            if self.epoch:
                raise self.fail("a dealt hand comes before any pass or meld")
            cards = self.cards(raw["cards"], "cards")
            if len(cards) != self.sizes[player]:
                raise self.fail(f"{names[player]} was dealt {self.sizes[player]} cards, but {len(cards)} are listed")
            if player == self.seat:
                self.hand = set(cards)
            return Dealt(player, tuple(sorted(cards)))
        if kind == "meld":
            self.keys(raw, {"player", "set"})
            player = self.player(raw["player"], "player")
            key = normalise_name(raw["set"]) if isinstance(raw["set"], str) else None
            if key not in self.sets:
                raise self.fail(f"unknown set {raw['set']!r}; sets are named like 'Rage' or 'Slim Slant'")
            if self.asked:
                if game.config.meld_timing != "any_time":
                    raise self.fail("melds happen at the start of a round, before its first question")
                # a meld at any time (seed): after a question it starts an epoch of its own
                self.window, self.asked = None, False
            set_id = self.sets[key]
            cards = game.set_cards[set_id]
            if self.window is None:
                self.epoch += 1
                self.window = self.epoch
            self.sizes[player] -= len(cards)
            self.hand -= set(cards) if player == self.seat else set()
            points = game.config.meld_points(CATEGORIES[game.set_category[set_id]], self.round)
            return Melded(player, set_id, cards, points, self.round, self.window)
        if kind == "ask":
            self.keys(raw, {"asker", "target", "family", "cards", "answer"})
            asker, target = self.player(raw["asker"], "asker"), self.player(raw["target"], "target")
            if asker == target:
                raise self.fail("a player cannot ask itself")
            try:
                family = Family(raw["family"])
            except ValueError:
                raise self.fail(f"unknown family {raw['family']!r}; families are hand, seen and held") from None
            cards = self.cards(raw["cards"], "cards")
            if (family is Family.HELD) != (not cards):
                raise self.fail("a 'held' question names no cards; 'hand' and 'seen' questions name some")
            answer = raw["answer"]
            most = game.num_cards if family is Family.HELD else len(cards)
            if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer <= most:
                raise self.fail(f"'answer' must be a whole number from 0 to {most}, got {answer!r}")
            self.asked = True
            return Asked(asker, target, family, tuple(sorted(cards)), answer, self.epoch)
        if kind == "pass":
            return self.pass_(raw)
        if kind == "accuse":
            self.keys(raw, {"player"})
            self.accused = self.player(raw["player"], "player")
            self.asked = True
            return Accused(self.accused)
        if kind == "reveal":
            self.keys(raw, {"box"})
            box = self.cards(raw["box"], "box")
            if tuple(game.card_category[c] for c in box) != (0, 1, 2, 3):
                raise self.fail("the box holds one suspect, place, weapon and emotion card, in that order")
            self.revealed = True
            return Revealed(box, (), (), ())
        raise self.fail(f"unknown event type {kind!r}; expected {_EVENT_TYPES}")

    def pass_(self, raw: Mapping[str, Any]) -> Passed:
        """Everyone passes ``min(round, hand)`` cards left; the logger sees its own in and out."""
        self.keys(raw, set(), {"counts", "gave", "got"})
        n, names = self.game.num_players, self.game.config.names
        counts = [min(self.round, s) for s in self.sizes]
        if raw.get("counts") is not None:
            given = raw["counts"]
            if not isinstance(given, dict) or {self.player(p, "counts") for p in given} != set(range(n)):
                raise self.fail("'counts' must map every player to the number of cards passed")
            for p, k in given.items():
                seat = self.player(p, "counts")
                if k != counts[seat]:
                    raise self.fail(f"{names[seat]} passes {counts[seat]} card(s) in round {self.round}, not {k!r}")
        cards: list[tuple[int, ...] | None] = [None] * n
        seen = self.seat is not None
        if seen != ("gave" in raw and "got" in raw):
            raise self.fail("give 'gave' and 'got' (your cards out and in), and only when you play")
        if seen:
            me, right = self.seat, (self.seat - 1) % n  # type: ignore[operator]
            gave, got = self.cards(raw["gave"], "gave"), self.cards(raw["got"], "got")
            if len(gave) != counts[me] or len(got) != counts[right]:
                raise self.fail(f"you pass {counts[me]} card(s) and get {counts[right]} this round")
            cards[me], cards[right] = tuple(sorted(gave)), tuple(sorted(got))
            self.hand = (self.hand - set(gave)) | set(got)
        for p, k in enumerate(counts):
            self.sizes[p] -= k
            self.sizes[(p + 1) % n] += k
        event = Passed(self.epoch, tuple(counts), tuple(cards))
        self.epoch += 1
        self.round += 1
        self.window, self.asked = None, False
        return event

    def read(self) -> tuple[AlibiGame, AlibiObservation]:
        game, seat = self.header()
        events = tuple(self.events())
        melds = tuple((e.player, e.set_id) for e in events if isinstance(e, Melded))
        points = [0] * game.num_players
        for e in events:
            if isinstance(e, Melded):
                points[e.player] += e.points
        obs = AlibiObservation(
            game=game.name,
            player=seat,
            num_players=game.num_players,
            events=events,
            current_player=-1,
            legal_actions=(),
            terminal=self.revealed,
            names=game.config.names,
            hand=tuple(sorted(self.hand)) if seat is not None else (),
            hand_sizes=tuple(self.sizes),
            round=self.round,
            epoch=self.epoch,
            phase="over" if self.revealed else "sheet" if self.accused is not None else "ask" if self.asked else "meld",
            first_player=game.config.first_player,
            melds=melds,
            meld_points=tuple(points),
            accuser=self.accused,
        )
        return game, obs


def parse(data: Mapping[str, Any]) -> tuple[AlibiGame, AlibiObservation]:
    """Read an Alibi log (already decoded from JSON) into the game and the logging player's view."""
    return _Reader(data).read()


def export(game: AlibiGame, obs: AlibiObservation) -> dict[str, Any]:
    """One player's view of a game as a log, readable by :func:`parse` (the accusation sheets
    and final scores, which say nothing about the cards once the box is open, are left out)."""
    names, deck = game.config.names, game.deck
    n = game.num_players
    events: list[dict[str, Any]] = []
    for e in obs.events:
        if isinstance(e, Dealt):
            events.append({"type": "hand", "player": names[e.player], "cards": list(deck.names(e.cards))})
        elif isinstance(e, Melded):
            events.append({"type": "meld", "player": names[e.player], "set": set_name(game, e.set_id)})
        elif isinstance(e, Asked):
            events.append({"type": "ask", "asker": names[e.asker], "target": names[e.target],
                           "family": str(e.family), "cards": list(deck.names(e.cards)), "answer": e.answer})
        elif isinstance(e, Passed):
            item: dict[str, Any] = {"type": "pass", "counts": {names[p]: k for p, k in enumerate(e.counts)}}
            if obs.player is not None:
                item["gave"] = list(deck.names(e.cards[obs.player] or ()))
                item["got"] = list(deck.names(e.cards[(obs.player - 1) % n] or ()))
            events.append(item)
        elif isinstance(e, Accused):
            events.append({"type": "accuse", "player": names[e.player]})
        elif isinstance(e, Revealed):
            events.append({"type": "reveal", "box": list(deck.names(e.box))})
    log: dict[str, Any] = {"game": game.name, "players": list(names)}
    if game.config.dealer != 0:
        log["dealer"] = names[game.config.dealer]
    if game.config.meld_timing != "any_time":
        log["meld_timing"] = game.config.meld_timing
    if obs.player is not None:
        log["me"] = names[obs.player]
    log["events"] = events
    return log
