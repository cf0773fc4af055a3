"""The Mafia Code game-log format: written at a real table, or exported from a simulated game.

```
{"game": "mafia-code", "players": ["ann", "bob", "cy"], "me": "ann",
 "events": [{"type": "hand", "player": "ann", "cards": ["red A", ...]},
            {"type": "code", "roller": "ann", "colour": "red", "letter": "B",
             "counts": {"ann": 3, "bob": 2, "cy": 4}},
            {"type": "code", "roller": "bob", "colour": "blue", "letter": "E", "counts": {"bob": 1}},
            {"type": "guess", "by": "bob", "target": "cy", "card": "white D", "hit": true}]}
```

Optional header keys: ``colours`` and ``letters`` (the dice faces, for a smaller deck),
``hand_size`` and ``expert``. A ``code`` is written by everyone (the opening round) or by the
roller alone (a turn). Circling and the end of a turn follow from these events and are not
logged. Each log event becomes one observation event, so an error (or a contradiction) can
always name the event by its index.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deduce.cards import normalise_name
from deduce.games.base import Dealt, Event
from deduce.games.mafia_code.rules import (
    BOX,
    CodeWritten,
    Guessed,
    MafiaCodeConfig,
    MafiaCodeGame,
    MafiaCodeObservation,
)
from deduce.logs import LogReader

__all__ = ["parse", "export"]

_HEADER_KEYS = {"game", "players", "me", "colours", "letters", "hand_size", "expert", "events"}
_EVENT_TYPES = "hand, code or guess"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Reader(LogReader):
    """Parses one log; every error names the event (index and text) it came from."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(data)
        #: (writer, colour, letter) -> (count, event index)
        self.cells: dict[tuple[int, int, int], tuple[int, int]] = {}
        #: card -> (holder, event index) of the hit that revealed it
        self.revealed: dict[int, tuple[int, int]] = {}
        self.ended: int | None = None

    # -- header ------------------------------------------------------------------------------
    def header(self) -> tuple[MafiaCodeGame, int | None]:
        data = self.data
        unknown = sorted(set(data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(BOX,))
        fields: dict[str, Any] = {"num_players": len(players), "player_names": tuple(players)}
        for key in ("colours", "letters"):
            if key in data:
                faces = data[key]
                if not isinstance(faces, list) or not faces or not all(isinstance(f, str) and f.strip() for f in faces):
                    raise self.fail(f"{key!r} must be a non-empty list of names")
                fields[key] = tuple(faces)
        if "hand_size" in data:
            if not _is_int(data["hand_size"]) or data["hand_size"] < 1:
                raise self.fail(f"'hand_size' must be a positive integer, got {data['hand_size']!r}")
            fields["hand_size"] = data["hand_size"]
        if "expert" in data:
            if not isinstance(data["expert"], bool):
                raise self.fail("'expert' must be true or false")
            fields["expert"] = data["expert"]
        try:
            game = MafiaCodeGame(MafiaCodeConfig(**fields))
        except (ValueError, TypeError) as exc:
            raise self.fail(str(exc)) from None
        self.game = game
        self.hand_size = game.config.hand_sizes()[0]
        me = data.get("me")
        return game, (None if me is None else self.player(me, "me"))

    # -- names -------------------------------------------------------------------------------
    def card(self, name: object, field: str) -> int:
        if not isinstance(name, str) or name not in self.game.deck:
            raise self.fail(f"unknown card {name!r} in {field!r}; cards are named like {self.game.deck[0].name!r}")
        return self.game.deck.card(name).id

    def face(self, name: object, faces: tuple[str, ...], field: str) -> int:
        if isinstance(name, str):
            for i, f in enumerate(faces):
                if normalise_name(f) == normalise_name(name):
                    return i
        raise self.fail(f"unknown {field} {name!r}; {field}s are {', '.join(faces)}")

    # -- events ------------------------------------------------------------------------------
    def events(self, seat: int | None) -> list[Event]:
        out: list[Event] = []
        for raw in self.raw_events():
            if self.ended is not None and raw["type"] in ("code", "guess"):
                raise self.fail(f"the game ended at event {self.ended}, when a player had revealed every card")
            out.append(self.event(raw))
        self.index = None
        return out

    def event(self, raw: Mapping[str, Any]) -> Event:
        kind = raw["type"]
        names = self.game.config.names
        if kind == "hand":
            self.keys(raw, {"player", "cards"})
            player = self.player(raw["player"], "player")
            if not isinstance(raw["cards"], list):
                raise self.fail("'cards' must be a list of card names")
            cards = tuple(self.card(n, "cards") for n in raw["cards"])
            if len(set(cards)) != len(cards):
                raise self.fail("a card is listed twice")
            if len(cards) != self.hand_size:
                raise self.fail(f"{names[player]} holds {self.hand_size} cards, but {len(cards)} are listed")
            return Dealt(player, tuple(sorted(cards)))
        if kind == "code":
            return self.code(raw)
        if kind == "guess":
            return self.guess(raw)
        raise self.fail(f"unknown event type {kind!r}; expected {_EVENT_TYPES}")

    def code(self, raw: Mapping[str, Any]) -> CodeWritten:
        self.keys(raw, {"roller", "colour", "letter", "counts"})
        cfg, names = self.game.config, self.game.config.names
        roller = self.player(raw["roller"], "roller")
        colour = self.face(raw["colour"], cfg.colours, "colour")
        letter = self.face(raw["letter"], cfg.letters, "letter")
        counts = raw["counts"]
        if not isinstance(counts, dict) or not counts:
            raise self.fail("'counts' must map each writer to the number written, e.g. {\"ann\": 2}")
        written = {self.player(name, "counts"): n for name, n in counts.items()}
        if len(written) != len(counts):
            raise self.fail("a player is listed twice in 'counts'")
        if set(written) not in ({roller}, set(range(cfg.num_players))):
            raise self.fail("a code is written by every player (the opening round) or by the roller alone")
        most = min(self.hand_size, len(self.game.matching(colour, letter)))
        writers = tuple(sorted(written))
        for w in writers:
            n = written[w]
            if not _is_int(n) or not 0 <= n <= most:
                raise self.fail(f"{names[w]}'s count must be a whole number from 0 to {most}, got {n!r}")
            earlier = self.cells.get((w, colour, letter))
            if earlier is not None and earlier[0] != n:
                raise self.fail(
                    f"{names[w]} already wrote {earlier[0]} for {cfg.colours[colour]} {cfg.letters[letter]} "
                    f"at event {earlier[1]}"
                )
        for w in writers:
            self.cells.setdefault((w, colour, letter), (written[w], self.index))  # type: ignore[arg-type]
        return CodeWritten(roller, colour, letter, writers, tuple(written[w] for w in writers),
                           opening=len(writers) > 1)

    def guess(self, raw: Mapping[str, Any]) -> Guessed:
        self.keys(raw, {"by", "target", "card", "hit"})
        names = self.game.config.names
        by = self.player(raw["by"], "by")
        target = self.player(raw["target"], "target")
        if by == target:
            raise self.fail("a player cannot guess its own cards")
        card = self.card(raw["card"], "card")
        if not isinstance(raw["hit"], bool):
            raise self.fail("'hit' must be true or false")
        if card in self.revealed:
            holder, at = self.revealed[card]
            raise self.fail(f"{self.game.deck[card].name} was already revealed by {names[holder]} at event {at}")
        if raw["hit"]:
            self.revealed[card] = (target, self.index)  # type: ignore[assignment]
            if sum(1 for h, _ in self.revealed.values() if h == target) >= self.hand_size:
                self.ended = self.index
        return Guessed(by, target, card, raw["hit"])

    # -- the view ----------------------------------------------------------------------------
    def read(self) -> tuple[MafiaCodeGame, MafiaCodeObservation]:
        game, seat = self.header()
        events = tuple(self.events(seat))
        n = game.num_players
        hand: tuple[int, ...] = ()
        for e in events:
            if isinstance(e, Dealt) and e.player == seat:
                hand = e.cards
        revealed: list[list[int]] = [[] for _ in range(n)]
        crossed: list[list[int]] = [[] for _ in range(n)]
        scores = [0] * n
        run: tuple[int, int] | None = None  # (guesser, hits) of the guesses since the last roll
        for e in events:
            if isinstance(e, Guessed):
                if run is None or run[0] != e.by:
                    run = (e.by, 0)
                if e.hit:
                    revealed[e.target].append(e.card)
                    scores[e.by] += 1
                    run = (e.by, run[1] + 1)
                else:
                    crossed[e.target].append(e.card)
                    if game.config.expert:  # the expert rule: a miss loses the turn's points
                        scores[e.by] -= run[1]
                    run = None
            elif isinstance(e, CodeWritten):
                run = None
        sheets: list[dict[tuple[int, int], int]] = [{} for _ in range(n)]
        for (w, colour, letter), (count, _) in self.cells.items():
            sheets[w][(colour, letter)] = count
        circled = [
            tuple(sorted(code for code, k in sheets[p].items()
                         if sum(1 for c in game.matching(*code) if c in revealed[p]) == k))
            for p in range(n)
        ]
        obs = MafiaCodeObservation(
            game=game.name,
            player=seat,
            num_players=n,
            events=events,
            current_player=-1,
            legal_actions=(),
            terminal=self.ended is not None,
            names=game.config.names,
            colours=game.config.colours,
            letters=game.config.letters,
            hand=hand,
            hand_sizes=game.config.hand_sizes(),
            box_size=game.config.box_size(),
            cells=tuple(tuple((c, lt, k) for (c, lt), k in s.items()) for s in sheets),
            circled=tuple(circled),
            revealed=tuple(tuple(r) for r in revealed),
            crossed=tuple(tuple(x) for x in crossed),
            scores=tuple(scores),
            expert=game.config.expert,
        )
        return game, obs


def parse(data: Mapping[str, Any]) -> tuple[MafiaCodeGame, MafiaCodeObservation]:
    """Read a Mafia Code log (already decoded from JSON) into the game and the logging player's view."""
    return _Reader(data).read()


def export(game: MafiaCodeGame, obs: MafiaCodeObservation) -> dict[str, Any]:
    """One player's view of a game as a log, readable by :func:`parse` (circling and turn ends,
    which follow from the other events, are left out)."""
    cfg = game.config
    names, deck = cfg.names, game.deck
    events: list[dict[str, Any]] = []
    for e in obs.events:
        if isinstance(e, Dealt):
            events.append({"type": "hand", "player": names[e.player], "cards": list(deck.names(e.cards))})
        elif isinstance(e, CodeWritten):
            events.append({
                "type": "code", "roller": names[e.roller], "colour": cfg.colours[e.colour],
                "letter": cfg.letters[e.letter],
                "counts": {names[w]: k for w, k in zip(e.writers, e.counts, strict=True)},
            })
        elif isinstance(e, Guessed):
            events.append({"type": "guess", "by": names[e.by], "target": names[e.target],
                           "card": deck[e.card].name, "hit": e.hit})
    log: dict[str, Any] = {"game": game.name, "players": list(names)}
    default = MafiaCodeConfig(num_players=cfg.num_players)
    if cfg.colours != default.colours:
        log["colours"] = list(cfg.colours)
    if cfg.letters != default.letters:
        log["letters"] = list(cfg.letters)
    if cfg.hand_size is not None:
        log["hand_size"] = cfg.hand_size
    if cfg.expert:
        log["expert"] = True
    if obs.player is not None:
        log["me"] = names[obs.player]
    log["events"] = events
    return log
