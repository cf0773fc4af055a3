"""The Checkpoint Charlie game-log format: written at a real table, or exported from a simulated game.

```
{"game": "checkpoint-charlie", "players": ["ann", "bob", "cy"], "me": "ann",
 "events": [{"type": "round", "starter": "ann"},
            {"type": "clue", "player": "ann", "feature": "ears"},
            {"type": "side", "player": "ann", "face": "hat"},
            {"type": "side", "player": "bob"},
            {"type": "flip", "player": "ann", "cat": "hat, glasses, grey, coat, newspaper", "kept": true},
            {"type": "hound", "player": "bob", "face": "orange"},
            {"type": "arrest", "player": "cy", "cat": "hat, glasses, grey, coat, newspaper", "row": "ann"},
            {"type": "verified", "clues": {"ann": "hat", "bob": "grey", "cy": "coat"},
             "bag": ["orange", "bare eyes"]},
            {"type": "scored", "player": "ann", "colour": "gold", "value": 4}]}
```

A token face is one of the ten sides (``bare ears``/``hat``, ``bare eyes``/``glasses``,
``grey``/``orange``, ``sweater``/``coat``, ``newspaper``/``empty-handed``); a cat is its five
faces, comma-separated, in that feature order. Only the logging player's own ``clue`` (the
token drawn), ``side`` and ``scored`` value are known; a discarded cat may be ``null`` when nobody remembers it. Every
log event becomes one observation event (a ``side`` stands for the draw and the choice), so an
error or a contradiction can always name the event by its index. The game's final totals are
not logged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from deduce.cards import normalise_name
from deduce.games.base import Event
from deduce.games.checkpoint_charlie.rules import (
    BAG,
    DOWN,
    FEATURES,
    NUM_CATS,
    NUM_FEATURES,
    REVEALED,
    SIDE_NAMES,
    Arrested,
    CatFlipped,
    CheckpointCharlieConfig,
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    ClueDrawn,
    Colour,
    HoundFlipped,
    RoundStarted,
    Scored,
    SideChosen,
    Verified,
    _fold,
    cat_name,
    chief_from_sides,
)
from deduce.logs import LogReader

__all__ = ["parse", "export", "face_name", "CAT_NAMES"]

_HEADER_KEYS = {"game", "players", "me", "events"}
_EVENT_TYPES = "round, clue, side, flip, hound, arrest, verified or scored"
#: every cat's name, by id ("bare ears, bare eyes, grey, sweater, newspaper" is cat 0).
CAT_NAMES: tuple[str, ...] = tuple(cat_name(c) for c in range(NUM_CATS))
_CATS = {normalise_name(n): c for c, n in enumerate(CAT_NAMES)}
_FACES = {normalise_name(SIDE_NAMES[f][s]): (f, s) for f in range(NUM_FEATURES) for s in range(2)}


def face_name(feature: int, side: int) -> str:
    """The printed name of one side of a clue token."""
    return SIDE_NAMES[feature][side]


class _Reader(LogReader):
    """Parses one log; every error names the event (index and text) it came from."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        self.round = 0
        self.sides: set[int] = set()
        self.flipped: dict[int, int] = {}  # cat -> event index, this round
        self.kept: dict[int, int] = {}  # cat -> the row keeping it, this round
        self.arrested: dict[int, int] = {}  # player -> cat, this round
        self.hounds: list[tuple[int, int]] = []  # faces tossed after hounds, this round
        self.verified = False
        #: (event index, who had not arrested) once the round has ended by arrests
        self.ended: tuple[int, str] | None = None

    # -- header ------------------------------------------------------------------------------
    def header(self) -> tuple[CheckpointCharlieGame, int | None]:
        unknown = sorted(set(self.data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(BAG, REVEALED, DOWN))
        try:
            game = CheckpointCharlieGame(CheckpointCharlieConfig(num_players=len(players), player_names=tuple(players)))
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        self.game = game
        me = self.data.get("me")
        self.seat = None if me is None else self.player(me, "me")
        return game, self.seat

    # -- names -------------------------------------------------------------------------------
    def face(self, name: object, field: str) -> tuple[int, int]:
        if isinstance(name, str) and normalise_name(name) in _FACES:
            return _FACES[normalise_name(name)]
        raise self.fail(f"unknown token face {name!r} in {field!r}; faces are like 'hat' or 'bare ears'")

    def cat(self, name: object, field: str) -> int:
        if isinstance(name, str) and normalise_name(name) in _CATS:
            return _CATS[normalise_name(name)]
        raise self.fail(
            f"unknown cat {name!r} in {field!r}: name its five faces in the order {', '.join(FEATURES)}, "
            f"e.g. {CAT_NAMES[0]!r}"
        )

    # -- events ------------------------------------------------------------------------------
    def events(self) -> list[Event]:
        out: list[Event] = []
        for raw in self.raw_events():
            if raw["type"] != "round" and self.round == 0:
                raise self.fail("the log must start with a 'round' event")
            if self.verified and raw["type"] not in ("round", "scored"):
                raise self.fail("the round was verified; start the next one with a 'round' event")
            if self.ended is not None and raw["type"] in ("flip", "hound", "arrest"):
                # the round ends the moment only one investigator has not arrested (seed)
                at, left = self.ended
                raise self.fail(f"the round ended at event {at}: only {left} had not arrested; "
                                "verify it ('verified') or start the next ('round')")
            out.append(self.event(raw))
        self.index = None
        return out

    def event(self, raw: Mapping[str, Any]) -> Event:
        kind = raw["type"]
        n = self.game.num_players
        names = self.game.config.names
        if kind == "round":
            self.keys(raw, {"starter"})
            starter = self.player(raw["starter"], "starter")
            self.round += 1
            self.sides, self.flipped, self.kept, self.arrested, self.hounds = set(), {}, {}, {}, []
            self.verified, self.ended = False, None
            hounds = NUM_FEATURES - n
            return RoundStarted(self.round, starter, NUM_CATS + hounds, hounds)
        if kind == "clue":
            self.keys(raw, {"player", "feature"})
            player = self.player(raw["player"], "player")
            if player != self.seat:
                raise self.fail(f"only {names[player]} sees which token they drew")
            feature = raw["feature"]
            if feature not in FEATURES:
                raise self.fail(f"unknown feature {feature!r}; features are {', '.join(FEATURES)}")
            return ClueDrawn(player, FEATURES.index(feature))
        if kind == "side":
            self.keys(raw, {"player"}, {"face"})
            player = self.player(raw["player"], "player")
            if player in self.sides:
                raise self.fail(f"{names[player]} already hid a token this round")
            self.sides.add(player)
            if "face" not in raw or raw["face"] is None:
                if player == self.seat:
                    raise self.fail("give the face you put up: your own token is known to you")
                return SideChosen(player, None, None)
            if player != self.seat:
                raise self.fail(f"only {names[player]} sees which face of that token is up")
            return SideChosen(player, *self.face(raw["face"], "face"))
        if kind == "flip":
            self.keys(raw, {"player", "cat", "kept"})
            player = self.player(raw["player"], "player")
            if not isinstance(raw["kept"], bool):
                raise self.fail("'kept' must be true or false")
            if raw["cat"] is None:
                if raw["kept"]:
                    raise self.fail("a kept cat stays face up: name it")
                return CatFlipped(player, None, False, forgotten=True)
            cat = self.cat(raw["cat"], "cat")
            if cat in self.flipped:
                raise self.fail(f"that cat was already flipped at event {self.flipped[cat]}")
            self.flipped[cat] = self.index  # type: ignore[assignment]
            if raw["kept"]:
                self.kept[cat] = player
            return CatFlipped(player, cat, raw["kept"])
        if kind == "hound":
            self.keys(raw, {"player", "face"})
            player = self.player(raw["player"], "player")
            if len(self.hounds) >= NUM_FEATURES - n:
                raise self.fail(f"a {n}-player round has only {NUM_FEATURES - n} hound card(s)")
            feature, side = self.face(raw["face"], "face")
            self.hounds.append((feature, side))
            return HoundFlipped(player, feature, side)
        if kind == "arrest":
            self.keys(raw, {"player", "cat", "row"})
            player = self.player(raw["player"], "player")
            cat = self.cat(raw["cat"], "cat")
            row = self.player(raw["row"], "row")
            if self.kept.get(cat) != row:
                raise self.fail(f"that cat is not face up in {names[row]}'s row")
            if player in self.arrested:
                raise self.fail(f"{names[player]} already arrested a cat this round")
            if cat in self.arrested.values():
                raise self.fail("that cat is already arrested")
            self.arrested[player] = cat
            free = [p for p in range(n) if p not in self.arrested]
            if len(free) <= 1:
                self.ended = (self.index, " and ".join(names[p] for p in free) or "nobody")
            return Arrested(player, cat, row)
        if kind == "verified":
            return self.verify(raw)
        if kind == "scored":
            self.keys(raw, {"player", "colour"}, {"value", "received"})
            player = self.player(raw["player"], "player")
            try:
                colour = Colour(raw["colour"])
            except ValueError:
                raise self.fail(f"unknown colour {raw['colour']!r}; colours are gold, white and black") from None
            value = raw.get("value")
            if value is not None and (player != self.seat or not isinstance(value, int) or isinstance(value, bool)):
                raise self.fail("a token's value is a whole number, known only to the player who drew it")
            received = raw.get("received", True)
            if not isinstance(received, bool):
                raise self.fail("'received' must be true or false")
            return Scored(self.round, player, colour, value, received)
        raise self.fail(f"unknown event type {kind!r}; expected {_EVENT_TYPES}")

    def verify(self, raw: Mapping[str, Any]) -> Verified:
        self.keys(raw, {"clues", "bag"})
        n = self.game.num_players
        clues, bag = raw["clues"], raw["bag"]
        if not isinstance(clues, dict) or len(clues) != n:
            raise self.fail("'clues' must map every player to the face of its token")
        by_seat = {self.player(p, "clues"): self.face(f, "clues") for p, f in clues.items()}
        if len(by_seat) != n:
            raise self.fail("a player is listed twice in 'clues'")
        if not isinstance(bag, list) or len(bag) != NUM_FEATURES - n:
            raise self.fail(f"'bag' must list the {NUM_FEATURES - n} tokens nobody drew")
        tossed = [self.face(f, "bag") for f in bag]
        if tossed[: len(self.hounds)] != self.hounds:
            raise self.fail("'bag' must start with the faces tossed after hounds this round, in order")
        ordered = [by_seat[p] for p in range(n)]
        if sorted(f for f, _ in ordered + tossed) != list(range(NUM_FEATURES)):
            raise self.fail("every token appears once among the clues and the bag")
        sides = [0] * NUM_FEATURES
        for f, s in ordered + tossed:
            sides[f] = s
        self.verified = True
        return Verified(self.round, tuple(ordered), tuple(tossed), chief_from_sides(sides), len(self.hounds))

    def read(self) -> tuple[CheckpointCharlieGame, CheckpointCharlieObservation]:
        game, seat = self.header()
        events = tuple(self.events())
        obs = _fold(game, seat, events, current_player=-1, legal=(), terminal=False)
        mine = [e for e in game.round_events(events) if isinstance(e, SideChosen) and e.player == seat]
        if mine:  # a 'side' line stands for the draw too: the view knows its own token's feature
            obs = dataclasses.replace(obs, my_feature=mine[0].feature)
        return game, obs


def parse(data: Mapping[str, Any]) -> tuple[CheckpointCharlieGame, CheckpointCharlieObservation]:
    """Read a Checkpoint Charlie log (already decoded from JSON) into the game and the logging
    player's view (of the latest round, as the engine's knowledge base)."""
    return _Reader(data).read()


def export(game: CheckpointCharlieGame, obs: CheckpointCharlieObservation) -> dict[str, Any]:
    """One player's view of a game as a log, readable by :func:`parse` (token draws fold into
    'side' events; the final totals are left out)."""
    names = game.config.names
    events: list[dict[str, Any]] = []
    for e in obs.events:
        if isinstance(e, RoundStarted):
            events.append({"type": "round", "starter": names[e.starter]})
        elif isinstance(e, ClueDrawn) and e.feature is not None:
            events.append({"type": "clue", "player": names[e.player], "feature": FEATURES[e.feature]})
        elif isinstance(e, SideChosen):
            item: dict[str, Any] = {"type": "side", "player": names[e.player]}
            if e.feature is not None and e.side is not None:
                item["face"] = face_name(e.feature, e.side)
            events.append(item)
        elif isinstance(e, CatFlipped):
            cat = None if e.cat is None else CAT_NAMES[e.cat]
            events.append({"type": "flip", "player": names[e.player], "cat": cat, "kept": e.kept})
        elif isinstance(e, HoundFlipped):
            events.append({"type": "hound", "player": names[e.player], "face": face_name(e.feature, e.side)})
        elif isinstance(e, Arrested):
            events.append({"type": "arrest", "player": names[e.player], "cat": CAT_NAMES[e.cat], "row": names[e.row]})
        elif isinstance(e, Verified):
            events.append({
                "type": "verified",
                "clues": {names[p]: face_name(f, s) for p, (f, s) in enumerate(e.clues)},
                "bag": [face_name(f, s) for f, s in e.bag],
            })
        elif isinstance(e, Scored):
            score: dict[str, Any] = {"type": "scored", "player": names[e.player], "colour": str(e.colour)}
            if e.value is not None:
                score["value"] = e.value
            if not e.received:
                score["received"] = False
            events.append(score)
    log: dict[str, Any] = {"game": game.name, "players": list(names)}
    if obs.player is not None:
        log["me"] = names[obs.player]
    log["events"] = events
    return log
