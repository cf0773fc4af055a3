"""The table-side assistant's Crime Hotel part: the event lines, their wording and the advice.

Lines (names may be shortened to any unambiguous prefix; 'me' is you; cards are room numbers;
a space is ``f2`` / ``floor 2``, ``d7`` / ``digit 7`` or ``r305`` / ``room 305``):

* ``play WHO CARD``: a card played to the trick (the trick closes by itself after everyone played).
* ``deduce WHO SPACE``, ``move WHO FROM TO``: meeples on the hotel board.
* ``exchange ACTOR TARGET K`` (others), or ``exchange ACTOR TARGET gave CARDS took CARDS`` (you
  took part, as actor or target: 'gave' are the actor's cards).
* ``check ACTOR TARGET K`` (others), or ``check ACTOR TARGET CARDS`` (you looked, or were looked at).
* ``final WHO CARD``, ``hidden CARD``: the end-of-game reveals; ``game LEADER [CARDS]`` starts the
  next game (CARDS: the lit leftovers), then ``hand me CARDS``.

Under the grid: the hidden room's likeliest rooms, and the free guess space worth the most
expected points (floor, end digit or room, at the configured points), exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from deduce.apps.assist.session import GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import match_name, view_event_text, view_phrase
from deduce.errors import DeduceError
from deduce.explain import Phrase
from deduce.games.base import Game, Observation
from deduce.games.crime_hotel.log import parse, space_name
from deduce.games.crime_hotel.rules import (
    HIDDEN,
    CrimeHotelConfig,
    CrimeHotelGame,
    CrimeHotelObservation,
    Space,
)

__all__ = ["CrimeHotelAdapter", "ADAPTER", "best_space"]

_KINDS = {"f": "floor", "floor": "floor", "d": "digit", "digit": "digit", "r": "room", "room": "room"}


def best_space(game: CrimeHotelGame, obs: CrimeHotelObservation, hidden: np.ndarray) -> tuple[Space, float] | None:
    """The free guess space with the most expected points, given P(hidden room = card)."""
    cfg = game.config
    taken = {s for s, _ in obs.board}
    best: tuple[Space, float] | None = None
    for space in game.spaces:
        if space in taken:
            continue
        if space.kind == "floor":
            value = cfg.floor_points * float(sum(hidden[c] for c in game.floor_cards[space.value]))
        elif space.kind == "digit":
            value = cfg.digit_points * float(sum(hidden[c] for c in range(len(game.deck)) if game.digit_of[c] == space.value))
        else:
            value = cfg.room_points * float(hidden[space.value])
        if best is None or value > best[1] + 1e-12:
            best = (space, value)
    return best


def _read_space(game: CrimeHotelGame, tokens: Sequence[str]) -> tuple[str, int]:
    """A space and the number of tokens it took: "f2", "floor 2", "d7", "r305", or "305"."""
    if not tokens:
        raise DeduceError("which space? e.g. f2, d7 or r305")
    head = tokens[0].lower()
    if head in _KINDS and len(tokens) > 1:
        kind, value, used = _KINDS[head], tokens[1], 2
    elif head[:1] in ("f", "d", "r") and head[1:].isdigit():
        kind, value, used = _KINDS[head[:1]], head[1:], 1
    elif head.isdigit() and len(head) == 3:
        kind, value, used = "room", head, 1
    else:
        raise DeduceError(f"unknown space {tokens[0]!r}; spaces are like f2, d7 or r305")
    if kind == "room":
        return f"room {match_name(value, [c.name for c in game.deck], 'room')}", used
    return f"{kind} {value}", used


class CrimeHotelAdapter(GameAdapter):
    """Crime Hotel at a real table: tricks, exchanges, checks and meeples on the hotel board."""

    game: ClassVar[str] = "crime-hotel"
    help: ClassVar[str] = """\
events (names may be shortened to any unambiguous prefix; 'me' is you; cards are room numbers;
spaces are f2, d7 or r305):
  play WHO CARD                     a card played (the trick closes after everyone played)
  deduce WHO SPACE                  a meeple onto a guess space
  move WHO FROM TO                  the move-police department moved a meeple
  exchange ACTOR TARGET K           an exchange of K cards between others
  exchange ACTOR TARGET gave CARDS took CARDS   one you took part in
  check ACTOR TARGET K | CARDS      a card check (CARDS when you looked or were looked at)
  final WHO CARD    hidden CARD     the end-of-game reveals
  game LEADER [CARDS]               the next game (CARDS: the lit leftovers); then 'hand me CARDS'
  hand WHO CARDS                    a whole hand"""
    rules: ClassVar[str] = "the hand sizes, the lit cards and one hidden room"
    words: ClassVar[tuple[str, ...]] = ("play", "deduce", "move", "exchange", "check", "final", "hidden",
                                        "game", "hand", "gave", "took")
    seats: ClassVar[tuple[int, int]] = (3, 4)
    places: ClassVar[Mapping[str, str]] = {"hidden": "the hidden room", "public": "the open cards", "box": "the box"}

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        return parse(log)

    def steps(self, me: str | None) -> tuple[str, ...]:
        return ("leader", "revealed") + (("hand",) if me is not None else ())

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        cfg = CrimeHotelConfig(num_players=len(players))
        if step == "leader":
            return f"who leads the first game [{players[0]}]?"
        if step == "revealed":
            return f"the {cfg.leftover_count()} leftover cards lit on the board:"
        return f"your hand ({cfg.hand_size} cards):"

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        if step == "leader":
            return players[0] if not line.strip() else match_name(line, players, "player")
        game = CrimeHotelGame(num_players=len(players))
        want = game.config.leftover_count() if step == "revealed" else game.config.hand_size
        cards = _cards(game, line.replace(",", " ").split())
        if len(set(cards)) != want:
            raise DeduceError(f"give {want} different cards; got {len(set(cards))}")
        return cards

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        log = self.header(players, me)
        log["events"] = [{"type": "game", "leader": answers["leader"], "revealed": list(answers["revealed"])}]
        if me is not None:
            log["events"].append({"type": "hand", "player": me, "cards": list(answers["hand"])})
        return log

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        game, obs = session.game, session.obs
        assert isinstance(game, CrimeHotelGame) and isinstance(obs, CrimeHotelObservation)
        if word == "hidden":
            cards = _cards(game, rest)
            if len(cards) != 1:
                raise DeduceError("usage: hidden CARD")
            return [{"type": "hidden", "card": cards[0]}]
        if word not in ("play", "deduce", "move", "exchange", "check", "final", "game", "hand"):
            return None
        who, i = session.player(rest, 0)
        tail = rest[i:]
        if word == "game":
            return [{"type": "game", "leader": who, "revealed": _cards(game, tail)}]
        if word == "hand":
            return [{"type": "hand", "player": who, "cards": _cards(game, tail)}]
        if word in ("play", "final"):
            cards = _cards(game, tail)
            if len(cards) != 1:
                raise DeduceError(f"usage: {word} WHO CARD")
            event = {"type": word, "player": who, "card": cards[0]}
            closes = word == "play" and len(obs.trick) == game.num_players - 1
            return [event, {"type": "trick"}] if closes else [event]
        if word == "deduce":
            space, used = _read_space(game, tail)
            if tail[used:]:
                raise DeduceError("usage: deduce WHO SPACE")
            return [{"type": "deduce", "player": who, "space": space}]
        if word == "move":
            src, used = _read_space(game, tail)
            dst, more = _read_space(game, tail[used:])
            if tail[used + more :]:
                raise DeduceError("usage: move WHO FROM TO")
            return [{"type": "move", "player": who, "from": src, "to": dst}]
        target, j = session.player(rest, i)
        return [self._look(game, word, who, target, rest[j:])]

    @staticmethod
    def _look(game: CrimeHotelGame, word: str, actor: str, target: str, tail: list[str]) -> dict[str, Any]:
        """An exchange or a check line: a count (others), or the cards (when you took part)."""
        event: dict[str, Any] = {"type": word, "actor": actor, "target": target}
        if len(tail) == 1 and tail[0].isdigit() and len(tail[0]) < 3:
            event["k"] = int(tail[0])
            return event
        if word == "check":
            event["cards"] = _cards(game, tail)
            event["k"] = len(event["cards"])
            return event
        words = [t.lower() for t in tail]
        if "gave" not in words or "took" not in words or words.index("gave") > words.index("took"):
            raise DeduceError("usage: exchange ACTOR TARGET K, or exchange ACTOR TARGET gave CARDS took CARDS")
        cut = words.index("took")
        event["given"] = _cards(game, tail[words.index("gave") + 1 : cut])
        event["taken"] = _cards(game, tail[cut + 1 :])
        event["k"] = len(event["given"])
        return event

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        game, obs, kb = session.game, session.obs, session.kb
        assert isinstance(game, CrimeHotelGame) and isinstance(obs, CrimeHotelObservation) and kb is not None
        hidden = marginals.p[:, kb.loc(HIDDEN)]
        rooms = [c for c in np.argsort(-hidden, kind="stable") if hidden[c] > 0]
        how = "exact" if marginals.exact else "approximate"
        lines = [f"hidden room: {len(rooms)} possible; most likely:"]
        lines += [f"  {100 * hidden[c]:6.2f}%  {game.deck[c].name}" for c in rooms[:5]]
        best = best_space(game, obs, hidden)
        if best is not None and obs.player is not None:
            space, value = best
            lines.append(f"deduce: {space_name(game, space)} - {value:.2f} points expected ({how})")
        return lines


def _cards(game: CrimeHotelGame, tokens: Sequence[str]) -> list[str]:
    return [match_name(t, [c.name for c in game.deck], "card") for t in tokens]


#: the adapter ``deduce assist crime-hotel`` uses (:func:`deduce.apps.assist.session.adapter_for`).
ADAPTER = CrimeHotelAdapter()
