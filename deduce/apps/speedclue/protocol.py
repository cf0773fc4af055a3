"""The Speed Clue wire protocol (see SPEEDCLUE.md): card codes, message types, parsing, framing.

Every message and every reply is one write of plain ASCII with **no terminator**, read with a
single read and compared as exact text; one request, one reply. Parsing is strict on purpose:
the contest server disqualifies a bot for a badly formed reply, so ours must never send one,
and our server must recognise one (``"ok\\n"`` is not ``"ok"``).

The pure part (codes, dataclasses, :func:`parse_message`, :func:`parse_reply`, :func:`encode`)
does no I/O; :class:`Channel` is the only code here that touches a socket.
"""

from __future__ import annotations

import json
import os
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from deduce.errors import DeduceError
from deduce.games.clue.rules import (
    CLASSIC_ROOMS,
    CLASSIC_SUSPECTS,
    CLASSIC_WEAPONS,
    ClueConfig,
    ClueGame,
)

__all__ = [
    "SUSPECT_CODES",
    "WEAPON_CODES",
    "ROOM_CODES",
    "CODE_NAMES",
    "TIME_LIMIT",
    "MAX_MESSAGE",
    "ProtocolError",
    "Violation",
    "speedclue_config",
    "CardCodes",
    "Reset",
    "SuggestRequest",
    "DisproveRequest",
    "SuggestionNotice",
    "AccuseRequest",
    "AccusationNotice",
    "Done",
    "Alive",
    "Ok",
    "SuggestReply",
    "ShowReply",
    "AccuseReply",
    "Dead",
    "ServerMessage",
    "Reply",
    "encode",
    "parse_message",
    "parse_reply",
    "parse_alive",
    "Channel",
    "Logger",
    "MessageLog",
]

SUSPECT_CODES = ("Gr", "Mu", "Pe", "Pl", "Sc", "Wh")
WEAPON_CODES = ("Ca", "Kn", "Pi", "Re", "Ro", "Wr")
ROOM_CODES = ("Ba", "Bi", "Co", "Di", "Ha", "Ki", "Li", "Lo", "St")
#: protocol code -> the card's name in our classic deck (so both speak of the same 21 cards).
CODE_NAMES: dict[str, str] = {
    "Gr": "Mr. Green", "Mu": "Colonel Mustard", "Pe": "Mrs. Peacock", "Pl": "Professor Plum",
    "Sc": "Miss Scarlet", "Wh": "Mrs. White",
    "Ca": "Candlestick", "Kn": "Knife", "Pi": "Lead Pipe", "Re": "Revolver", "Ro": "Rope",
    "Wr": "Wrench",
    "Ba": "Ballroom", "Bi": "Billiard Room", "Co": "Conservatory", "Di": "Dining Room", "Ha": "Hall",
    "Ki": "Kitchen", "Li": "Library", "Lo": "Lounge", "St": "Study",
}
#: seconds a reply may take (the contest's limit).
TIME_LIMIT = 10.0
#: bytes read per message; every legal message is far shorter.
MAX_MESSAGE = 4096
_CATEGORIES = (SUSPECT_CODES, WEAPON_CODES, ROOM_CODES)


class ProtocolError(DeduceError):
    """A message that does not follow the protocol (from the server, or from a bot)."""


class Violation(ProtocolError):
    """A bot broke a rule that disqualifies it: ``kind`` says which (``timeout``,
    ``malformed``, ``repeat``, ``accuse_known``, ``must_accuse``, ``bad_show``,
    ``disconnected``, ``unsolicited``, ``no_connection``)."""

    def __init__(self, kind: str, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.seat = seat


def speedclue_config(num_players: int, **overrides: object) -> ClueConfig:
    """Our engine's Clue configured with the protocol's rules: every card dealt (the first
    seats get one more), suggestions in any room, no envelope peek for a wrong accuser, the
    last player standing wins. The in-process comparison must use the same configuration."""
    fields: dict[str, object] = {
        "num_players": num_players,
        "suspects": CLASSIC_SUSPECTS,
        "weapons": CLASSIC_WEAPONS,
        "rooms": CLASSIC_ROOMS,
        "deal_mode": "all",
        "no_repeat_room": False,
        "last_player_wins": True,
        "wrong_accuser_sees_envelope": False,
        "accuser_views_extra": False,
    }
    fields.update(overrides)
    return ClueConfig(**fields)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CardCodes:
    """Two-letter codes <-> card ids of a classic-deck :class:`ClueGame`."""

    game: ClueGame
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)
    _codes: dict[int, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids = {code: self.game.deck.card(name).id for code, name in CODE_NAMES.items()}
        if len(ids) != len(self.game.deck):
            raise ProtocolError("the Speed Clue protocol needs the classic 21-card deck")
        object.__setattr__(self, "_ids", ids)
        object.__setattr__(self, "_codes", {i: c for c, i in ids.items()})

    def id(self, code: str) -> int:
        return self._ids[code]

    def code(self, card: int) -> str:
        return self._codes[card]

    def ids(self, codes: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(self._ids[c] for c in codes)

    def codes(self, cards: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(self._codes[c] for c in cards)


Triple = tuple[str, str, str]


# -- server -> bot ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reset:
    """A new game: ``players`` seats, mine is ``seat``, I hold ``cards`` (codes)."""

    players: int
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class SuggestRequest:
    """My turn: suggest a triple."""


@dataclass(frozen=True)
class DisproveRequest:
    """``player`` suggested ``cards``; I am the first who can disprove and hold two or more."""

    player: int
    cards: Triple


@dataclass(frozen=True)
class SuggestionNotice:
    """``player`` suggested ``cards``; ``disprover`` showed a card (``None``: nobody could).
    ``shown`` is the card itself, sent only to the suggester and the disprover."""

    player: int
    cards: Triple
    disprover: int | None
    shown: str | None = None


@dataclass(frozen=True)
class AccuseRequest:
    """After my own suggestion's broadcast: accuse now?"""


@dataclass(frozen=True)
class AccusationNotice:
    """``player`` accused ``cards``: right (the game is over) or wrong (eliminated)."""

    player: int
    cards: Triple
    correct: bool


@dataclass(frozen=True)
class Done:
    """The session is over."""


ServerMessage = (
    Reset | SuggestRequest | DisproveRequest | SuggestionNotice | AccuseRequest | AccusationNotice | Done
)


# -- bot -> server ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Alive:
    """The bot's first message after connecting."""

    identifier: str


@dataclass(frozen=True)
class Ok:
    """Acknowledges ``reset`` and the broadcasts."""


@dataclass(frozen=True)
class SuggestReply:
    cards: Triple


@dataclass(frozen=True)
class ShowReply:
    card: str


@dataclass(frozen=True)
class AccuseReply:
    """``cards=None`` is ``-``: no accusation."""

    cards: Triple | None


@dataclass(frozen=True)
class Dead:
    """The answer to ``done``."""


Reply = Alive | Ok | SuggestReply | ShowReply | AccuseReply | Dead


def encode(message: ServerMessage | Reply) -> str:
    """The exact text of a message (no terminator)."""
    match message:
        case Reset(players, seat, cards):
            return " ".join(("reset", str(players), str(seat), *cards))
        case SuggestRequest():
            return "suggest"
        case DisproveRequest(player, cards):
            return " ".join(("disprove", str(player), *cards))
        case SuggestionNotice(player, cards, disprover, shown):
            tail = ["-"] if disprover is None else [str(disprover)] + ([shown] if shown is not None else [])
            return " ".join(("suggestion", str(player), *cards, *tail))
        case AccuseRequest():
            return "accuse"
        case AccusationNotice(player, cards, correct):
            return " ".join(("accusation", str(player), *cards, "+" if correct else "-"))
        case Done():
            return "done"
        case Alive(identifier):
            return f"{identifier} alive"
        case Ok():
            return "ok"
        case SuggestReply(cards):
            return " ".join(("suggest", *cards))
        case ShowReply(card):
            return f"show {card}"
        case AccuseReply(cards):
            return "-" if cards is None else " ".join(("accuse", *cards))
        case Dead():
            return "dead"
    raise TypeError(f"not a Speed Clue message: {message!r}")


def _tokens(text: str, error: type[ProtocolError] | Callable[[str], ProtocolError]) -> list[str]:
    """Split on single spaces; any other whitespace (a newline terminator) is a framing error."""
    tokens = text.split(" ")
    if not text or any(not t or not t.isprintable() or not t.isascii() for t in tokens):
        raise error(f"badly formed message {text!r}: expected words separated by single spaces, no terminator")
    return tokens


def _seat(token: str, players: int | None = None) -> int:
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise ProtocolError(f"{token!r} is not a seat number")
    seat = int(token)
    if players is not None and seat >= players:
        raise ProtocolError(f"seat {seat} does not exist in a {players}-player game")
    return seat


def _triple(tokens: list[str]) -> Triple:
    if len(tokens) != 3:
        raise ProtocolError(f"a triple is suspect weapon room, got {' '.join(tokens)!r}")
    for token, codes in zip(tokens, _CATEGORIES, strict=True):
        if token not in codes:
            raise ProtocolError(f"{' '.join(tokens)!r}: {token!r} is not one of {' '.join(codes)}")
    return (tokens[0], tokens[1], tokens[2])


def _card(token: str) -> str:
    if token not in CODE_NAMES:
        raise ProtocolError(f"{token!r} is not a card code")
    return token


def parse_message(text: str) -> ServerMessage:
    """A server message from its exact text, or :class:`ProtocolError` saying what is wrong."""
    tokens = _tokens(text, ProtocolError)
    head, args = tokens[0], tokens[1:]
    try:
        if head == "reset" and len(args) >= 2:
            players, seat = _seat(args[0]), _seat(args[1])
            if not 3 <= players <= 6 or seat >= players:
                raise ProtocolError(f"{text!r}: seat {seat} of {players} players")
            cards = tuple(_card(t) for t in args[2:])
            expected = 18 // players + (1 if seat < 18 % players else 0)
            if len(cards) != expected or len(set(cards)) != len(cards):
                raise ProtocolError(f"{text!r}: seat {seat} of {players} holds {expected} distinct cards")
            return Reset(players, seat, cards)
        if head == "suggest" and not args:
            return SuggestRequest()
        if head == "disprove" and len(args) == 4:
            return DisproveRequest(_seat(args[0]), _triple(args[1:]))
        if head == "suggestion" and len(args) in (5, 6):
            player, cards = _seat(args[0]), _triple(args[1:4])
            if args[4] == "-":
                if len(args) == 6:
                    raise ProtocolError(f"{text!r}: nobody disproved, so no card can be shown")
                return SuggestionNotice(player, cards, None)
            disprover = _seat(args[4])
            shown = _card(args[5]) if len(args) == 6 else None
            if shown is not None and shown not in cards:
                raise ProtocolError(f"{text!r}: the shown card was not named")
            return SuggestionNotice(player, cards, disprover, shown)
        if head == "accuse" and not args:
            return AccuseRequest()
        if head == "accusation" and len(args) == 5 and args[4] in ("+", "-"):
            return AccusationNotice(_seat(args[0]), _triple(args[1:4]), args[4] == "+")
        if head == "done" and not args:
            return Done()
    except ProtocolError as exc:
        raise ProtocolError(f"bad server message {text!r}: {exc}") from None
    raise ProtocolError(f"unknown server message {text!r}")


def _malformed(message: str) -> Violation:
    return Violation("malformed", message)


def parse_reply(text: str, request: ServerMessage) -> Reply:
    """A bot's reply to ``request``, checked for form only (the referee checks the rules);
    anything else is a ``malformed`` :class:`Violation`."""
    tokens = _tokens(text, _malformed)
    try:
        if isinstance(request, (Reset, SuggestionNotice, AccusationNotice)):
            if text == "ok":
                return Ok()
        elif isinstance(request, SuggestRequest):
            if tokens[0] == "suggest":
                return SuggestReply(_triple(tokens[1:]))
        elif isinstance(request, DisproveRequest):
            if tokens[0] == "show" and len(tokens) == 2:
                return ShowReply(_card(tokens[1]))
        elif isinstance(request, AccuseRequest):
            if text == "-":
                return AccuseReply(None)
            if tokens[0] == "accuse":
                return AccuseReply(_triple(tokens[1:]))
        elif isinstance(request, Done):
            if text == "dead":
                return Dead()
    except ProtocolError as exc:
        raise Violation("malformed", f"badly formed reply {text!r} to {encode(request)!r}: {exc}") from None
    raise Violation("malformed", f"badly formed reply {text!r} to {encode(request)!r}")


def parse_alive(text: str) -> Alive:
    """The greeting ``IDENTIFIER alive``."""
    tokens = _tokens(text, _malformed)
    if len(tokens) != 2 or tokens[1] != "alive":
        raise Violation("malformed", f"expected 'IDENTIFIER alive', got {text!r}")
    return Alive(tokens[0])


# -- framing ------------------------------------------------------------------------------------
Logger = Callable[[str, str], None]


class Channel:
    """One protocol connection: each message is one ``sendall`` and each receive one ``recv``.

    ``log(direction, text)`` sees every message: ``"send"`` or ``"recv"``. Nagle's algorithm is
    switched off so a short reply is never held back waiting for an acknowledgement.
    """

    def __init__(self, sock: socket.socket, log: Logger | None = None) -> None:
        self.sock = sock
        self.log = log
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, text: str) -> None:
        data = text.encode("ascii")
        if self.log is not None:
            self.log("send", text)
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise Violation("disconnected", f"connection lost while sending {text!r}: {exc}") from None

    def ready(self, timeout: float = 0.0) -> bool:
        """Whether a read would not block (data, or the peer closed)."""
        try:
            readable, _, _ = select.select([self.sock], [], [], max(timeout, 0.0))
        except (OSError, ValueError):
            return True
        return bool(readable)

    def receive(self, deadline: float) -> str:
        """One read, waiting at most until ``deadline`` (``time.monotonic()`` seconds)."""
        if not self.ready(deadline - time.monotonic()):
            raise Violation("timeout", "no reply within the time limit")
        try:
            data = self.sock.recv(MAX_MESSAGE)
        except OSError as exc:
            raise Violation("disconnected", f"connection lost: {exc}") from None
        if not data:
            raise Violation("disconnected", "the connection was closed")
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError:
            raise Violation("malformed", f"non-ASCII bytes {data[:40]!r}") from None
        if self.log is not None:
            self.log("recv", text)
        return text

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class MessageLog:
    """Every message both ways, one line each: seconds since the log opened, the peer, ``>``
    (sent) or ``<`` (received), and the exact text JSON-quoted so a stray ``\\n`` shows."""

    def __init__(self, path: str) -> None:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise DeduceError(f"cannot write the message log {path}: {exc}") from None
        self._start = time.monotonic()
        self._lock = threading.Lock()

    def peer(self, name: str) -> Logger:
        """A logger for one connection, for :class:`Channel`."""

        def log(direction: str, text: str) -> None:
            self.write(name, direction, text)

        return log

    def write(self, name: str, direction: str, text: str) -> None:
        arrow = ">" if direction == "send" else "<"
        line = f"{time.monotonic() - self._start:.6f} {name} {arrow} {json.dumps(text)}\n"
        with self._lock:
            if not self._file.closed:
                self._file.write(line)
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()
