"""The Clue game-log format: written by hand at a real table, or exported from a simulated game.

```
{"game": "clue", "players": ["ann", "bob", "cy"], "me": "ann",
 "hand_sizes": [6, 6, 6], "deck": {"suspect": [...], "weapon": [...], "room": [...]},
 "events": [{"type": "hand", "player": "ann", "cards": [...]},
            {"type": "suggestion", "by": "ann", "cards": [s, w, r], "refuted_by": "cy", "shown": "Hall"},
            {"type": "accusation", "by": "cy", "cards": [...], "correct": false},
            {"type": "card_at", "card": "Hall", "at": "bob"},
            {"type": "card_not_at", "card": "Rope", "at": "cy"}]}
```

Players strictly between the suggester and the refuter (seat order) hold none of the named
cards; ``refuted_by: null`` means nobody else holds any. With ``refute_all`` rules,
``refuted_by`` and ``shown`` may be lists. Each log event becomes one observation event, so an
error can always name the event by its index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deduce.cards import normalise_name
from deduce.errors import DeduceError
from deduce.games.base import Event
from deduce.games.clue.rules import (
    CLASSIC_ROOMS,
    CLASSIC_SUSPECTS,
    CLASSIC_WEAPONS,
    ENVELOPE,
    EXTRA,
    Accusation,
    CardAt,
    CardNotAt,
    ClueConfig,
    ClueGame,
    ClueObservation,
    Dealt,
    EnvelopeSeen,
    ExtraRevealed,
    ExtraSeen,
    Suggestion,
    refute_order,
)
from deduce.logs import LogReader

__all__ = ["parse", "export"]

_HEADER_KEYS = {"game", "players", "hand_sizes", "deck", "me", "events", "deal_mode", "refute_all"}


class _Reader(LogReader):
    """Parses one log; every error names the event (index and text) it came from."""

    # -- header ------------------------------------------------------------------------------
    def header(self) -> tuple[ClueGame, int | None, tuple[int, ...]]:
        data = self.data
        unknown = sorted(set(data) - _HEADER_KEYS)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
        players = self.players(reserved=(ENVELOPE, EXTRA))
        deck = data.get("deck")
        cats: dict[str, tuple[str, ...]] = {
            "suspect": CLASSIC_SUSPECTS, "weapon": CLASSIC_WEAPONS, "room": CLASSIC_ROOMS
        }
        if deck is not None:
            if not isinstance(deck, dict) or set(deck) != {"suspect", "weapon", "room"}:
                raise self.fail("'deck' must map 'suspect', 'weapon' and 'room' to lists of card names")
            for cat, names in deck.items():
                if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
                    raise self.fail(f"deck category {cat!r} must be a non-empty list of names")
                cats[cat] = tuple(names)
        extra_fields: dict[str, Any] = {}
        if "deal_mode" in data:
            extra_fields["deal_mode"] = data["deal_mode"]
        if "refute_all" in data:
            if not isinstance(data["refute_all"], bool):
                raise self.fail("'refute_all' must be true or false")
            extra_fields["refute_all"] = data["refute_all"]
        try:
            config = ClueConfig(
                num_players=len(players),
                suspects=cats["suspect"],
                weapons=cats["weapon"],
                rooms=cats["room"],
                player_names=tuple(players),
                **extra_fields,
            )
            game = ClueGame(config)
        except (ValueError, DeduceError) as exc:
            raise self.fail(str(exc)) from None
        dealt = len(game.deck) - 3
        sizes = data.get("hand_sizes")
        if sizes is None:
            hand_sizes = config.hand_sizes()
        else:
            if (
                not isinstance(sizes, list)
                or len(sizes) != len(players)
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes)
            ):
                raise self.fail(f"'hand_sizes' must list one non-negative integer per player, got {sizes!r}")
            if sum(sizes) > dealt:
                raise self.fail(f"hand sizes {sizes} add up to {sum(sizes)}, but only {dealt} cards are dealt")
            hand_sizes = tuple(sizes)
        self.game = game
        me = data.get("me")
        seat = None
        if me is not None:
            seat = self.player(me, "me")
        return game, seat, hand_sizes

    # -- names -------------------------------------------------------------------------------
    def card(self, name: object, field: str) -> int:
        if not isinstance(name, str):
            raise self.fail(f"{field!r} must be a card name, got {name!r}")
        if name not in self.game.deck:
            raise self.fail(f"unknown card {name!r} in {field!r}")
        return self.game.deck.card(name).id

    def location(self, name: object, field: str) -> str:
        if isinstance(name, str) and normalise_name(name) in (normalise_name(ENVELOPE), normalise_name(EXTRA)):
            if normalise_name(name) == normalise_name(EXTRA) and self.extra_size == 0:
                raise self.fail("this game has no leftover ('extra') pile")
            return ENVELOPE if normalise_name(name) == normalise_name(ENVELOPE) else EXTRA
        return self.game.config.names[self.player(name, field)]

    def triple(self, raw: object, field: str) -> tuple[int, int, int]:
        if not isinstance(raw, list) or len(raw) != 3:
            raise self.fail(f"{field!r} must list three cards: a suspect, a weapon and a room")
        cards = [self.card(n, field) for n in raw]
        by_cat: dict[str, int] = {}
        for c in cards:
            cat = self.game.deck[c].category
            if cat in by_cat:
                raise self.fail(f"{field!r} names two {cat} cards ({self.game.deck[by_cat[cat]].name}, {self.game.deck[c].name})")
            by_cat[cat] = c
        return by_cat["suspect"], by_cat["weapon"], by_cat["room"]

    # -- events ------------------------------------------------------------------------------
    def events(self, seat: int | None, hand_sizes: Sequence[int]) -> list[Event]:
        out: list[Event] = []
        self.eliminated: dict[int, int] = {}  # player -> event index of its wrong accusation
        self.ended: int | None = None
        for raw in self.raw_events():
            if self.ended is not None and raw["type"] in ("suggestion", "accusation"):
                raise self.fail(f"the game ended with the correct accusation of event {self.ended}")
            out.append(self.event(raw, seat, hand_sizes))
        self.index = None
        return out

    def event(self, raw: Mapping[str, Any], seat: int | None, hand_sizes: Sequence[int]) -> Event:
        kind = raw["type"]
        if kind == "hand":
            self.keys(raw, {"player", "cards"})
            player = self.player(raw["player"], "player")
            if not isinstance(raw["cards"], list):
                raise self.fail("'cards' must be a list of card names")
            cards = tuple(self.card(n, "cards") for n in raw["cards"])
            if len(set(cards)) != len(cards):
                raise self.fail("a card is listed twice")
            if len(cards) != hand_sizes[player]:
                raise self.fail(
                    f"{self.game.config.names[player]} holds {hand_sizes[player]} cards, but {len(cards)} are listed"
                )
            return Dealt(player, tuple(sorted(cards)))
        if kind == "suggestion":
            self.keys(raw, {"by", "cards", "refuted_by"}, {"shown"})
            by = self._active(raw["by"])
            cards = self.triple(raw["cards"], "cards")
            refuters = self._refuters(raw["refuted_by"], by)
            shown = self._shown(raw.get("shown"), refuters, by, seat, cards)
            n = self.game.num_players
            order = refute_order(by, n)
            if self.game.config.refute_all or len(refuters) != 1:
                passed = tuple(p for p in order if p not in refuters)
            else:
                passed = tuple(order[: order.index(refuters[0])])
            return Suggestion(by, cards, passed, refuters, shown)
        if kind == "accusation":
            self.keys(raw, {"by", "cards", "correct"})
            if not isinstance(raw["correct"], bool):
                raise self.fail("'correct' must be true or false")
            by = self._active(raw["by"])
            accusation = Accusation(by, self.triple(raw["cards"], "cards"), raw["correct"])
            if raw["correct"]:
                self.ended = self.index
            else:
                self.eliminated[by] = self.index  # type: ignore[assignment]
            return accusation
        if kind in ("card_at", "card_not_at"):
            self.keys(raw, {"card", "at"})
            card = self.card(raw["card"], "card")
            loc = self.location(raw["at"], "at")
            return CardAt(card, loc) if kind == "card_at" else CardNotAt(card, loc)
        raise self.fail(f"unknown event type {kind!r}; expected hand, suggestion, accusation, card_at or card_not_at")

    def _active(self, name: object) -> int:
        """A player who may still take a turn: an eliminated player only refutes."""
        player = self.player(name, "by")
        if player in self.eliminated:
            raise self.fail(
                f"{self.game.config.names[player]} was eliminated by a wrong accusation at event "
                f"{self.eliminated[player]} and takes no more turns"
            )
        return player

    def _refuters(self, raw: object, by: int) -> tuple[int, ...]:
        if raw is None:
            return ()
        names = raw if isinstance(raw, list) else [raw]
        if len(names) > 1 and not self.game.config.refute_all:
            raise self.fail("only one player refutes unless the log sets \"refute_all\": true")
        refuters = tuple(self.player(r, "refuted_by") for r in names)
        if by in refuters:
            raise self.fail("a player cannot refute its own suggestion")
        if len(set(refuters)) != len(refuters):
            raise self.fail("a player is listed twice in 'refuted_by'")
        return refuters

    def _shown(
        self, raw: object, refuters: tuple[int, ...], by: int, seat: int | None, cards: tuple[int, int, int]
    ) -> tuple[int | None, ...]:
        if raw is None:
            return (None,) * len(refuters)
        names = raw if isinstance(raw, list) else [raw]
        if not refuters:
            raise self.fail("'shown' needs a refuter: nobody refuted this suggestion")
        if len(names) != len(refuters):
            raise self.fail("'shown' must give one card (or null) per refuter")
        out: list[int | None] = []
        for refuter, name in zip(refuters, names, strict=True):
            if name is None:
                out.append(None)
                continue
            if seat is None or seat not in (by, refuter):
                raise self.fail(
                    "a shown card is seen only by the suggester and the refuter; 'me' is neither"
                )
            card = self.card(name, "shown")
            if card not in cards:
                raise self.fail(f"shown card {self.game.deck[card].name!r} is not one of the named cards")
            out.append(card)
        return tuple(out)

    @property
    def extra_size(self) -> int:
        return self._extra_size

    def read(self) -> tuple[ClueGame, ClueObservation]:
        game, seat, hand_sizes = self.header()
        self._extra_size = len(game.deck) - 3 - sum(hand_sizes)
        events = tuple(self.events(seat, hand_sizes))
        hand: tuple[int, ...] = ()
        for e in events:
            if isinstance(e, Dealt) and e.player == seat:
                hand = e.cards
        obs = ClueObservation(
            game=game.name,
            player=seat,
            num_players=game.num_players,
            events=events,
            current_player=-1,
            legal_actions=(),
            terminal=False,
            names=game.config.names,
            hand=hand,
            hand_sizes=tuple(hand_sizes),
            extra_size=self._extra_size,
        )
        return game, obs


def parse(data: Mapping[str, Any]) -> tuple[ClueGame, ClueObservation]:
    """Read a Clue log (already decoded from JSON) into the game and the logging player's view."""
    return _Reader(data).read()


def export(game: ClueGame, obs: ClueObservation) -> dict[str, Any]:
    """One player's view of a game as a log, readable by :func:`parse`."""
    deck = game.deck
    names = game.config.names
    events: list[dict[str, Any]] = []
    for e in obs.events:
        if isinstance(e, Dealt):
            events.append({"type": "hand", "player": names[e.player], "cards": list(deck.names(e.cards))})
        elif isinstance(e, Suggestion):
            shown = [deck[s].name if s is not None else None for s in e.shown]
            item: dict[str, Any] = {"type": "suggestion", "by": names[e.by], "cards": list(deck.names(e.cards))}
            if game.config.refute_all:
                item["refuted_by"] = [names[r] for r in e.refuters]
                if any(s is not None for s in shown):
                    item["shown"] = shown
            else:
                item["refuted_by"] = names[e.refuters[0]] if e.refuters else None
                if shown and shown[0] is not None:
                    item["shown"] = shown[0]
            events.append(item)
        elif isinstance(e, Accusation):
            events.append({"type": "accusation", "by": names[e.by], "cards": list(deck.names(e.cards)), "correct": e.correct})
        elif isinstance(e, (ExtraRevealed, ExtraSeen)):
            for c in e.cards or ():
                events.append({"type": "card_at", "card": deck[c].name, "at": EXTRA})
        elif isinstance(e, EnvelopeSeen):
            for c in e.cards:
                events.append({"type": "card_at", "card": deck[c].name, "at": ENVELOPE})
        elif isinstance(e, (CardAt, CardNotAt)):
            events.append({"type": e.kind, "card": deck[e.card].name, "at": e.loc})
    log: dict[str, Any] = {
        "game": "clue",
        "players": list(names),
        "hand_sizes": list(obs.hand_sizes),
        "deck": {cat: [c.name for c in deck.in_category(cat)] for cat in ("suspect", "weapon", "room")},
    }
    if game.config.deal_mode != "equal_leftover":
        log["deal_mode"] = game.config.deal_mode
    if game.config.refute_all:
        log["refute_all"] = True
    if obs.player is not None:
        log["me"] = names[obs.player]
    log["events"] = events
    return log
