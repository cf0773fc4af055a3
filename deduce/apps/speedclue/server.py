"""A Speed Clue server: hosts games by the protocol and writes tournament results.

Bots are started as ``<command> IDENTIFIER PORT`` on 127.0.0.1 and connect back; built-in
agents (``builtin:NAME``) sit at the table without a process, answering through the same
:class:`~deduce.apps.speedclue.client.SpeedClueBot` text path; ``thread:NAME`` runs our client in a
thread over a real socket (no process start-up: handy for tests and for timing the protocol).
``NAME`` is the command line's agent grammar, ``NAME[:KEY=VALUE,...]`` (:mod:`deduce.cli.options`),
its values typed by the agent's constructor.
Seats follow the tournament harness's :class:`~deduce.apps.tournament.schedule.Schedule` (rotation,
duplicate deals) and the truth is our engine's :class:`ClueState`, configured with the
protocol's rules. The referee enforces the contest's rules; a violation forfeits the game in
progress and disqualifies the bot (its later games are not played). Results are the harness's
tidy rows in a results directory, so ``deduce report DIR`` reads them.
"""

from __future__ import annotations

import dataclasses
import os
import re
import select
import shlex
import socket
import statistics
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar

from deduce.apps.speedclue.client import SpeedClueBot, run_client
from deduce.apps.speedclue.protocol import (
    TIME_LIMIT,
    AccusationNotice,
    AccuseReply,
    AccuseRequest,
    CardCodes,
    Channel,
    Dead,
    DisproveRequest,
    Done,
    MessageLog,
    Ok,
    ProtocolError,
    Reply,
    Reset,
    ServerMessage,
    ShowReply,
    SuggestionNotice,
    SuggestReply,
    SuggestRequest,
    Violation,
    encode,
    parse_alive,
    parse_reply,
    speedclue_config,
)
from deduce.apps.tournament.schedule import AgentSpec, Arrangement, GameSpec, Schedule
from deduce.apps.tournament.worker import Setup, record_rows
from deduce.errors import DeduceError
from deduce.games.base import Action
from deduce.games.clue.rules import Accuse, ClueGame, ClueState, EndTurn, Show, Suggest, Suggestion
from deduce.play import Forfeit, Step, play_game

__all__ = ["BotSpec", "parse_bot", "SpeedClueServer", "SessionResult", "PROTOCOL_CONFIG"]

#: the protocol's rules as ``ClueConfig`` fields (stored as the results' game configuration).
PROTOCOL_CONFIG: dict[str, Any] = {
    k: v for k, v in dataclasses.asdict(speedclue_config(3)).items()
    if k in ("deal_mode", "no_repeat_room", "last_player_wins", "wrong_accuser_sees_envelope", "accuser_views_extra")
}
_LABEL = re.compile(r"^[A-Za-z0-9_.#+-]+$")
_INTERPRETERS = {"python", "python3", "node", "java", "ruby", "perl", "sh", "bash", "env", "uv", "deduce"}


@dataclass(frozen=True)
class BotSpec:
    """One entrant: a process command, a built-in agent, or our client in a thread."""

    label: str
    kind: str  # "process" | "builtin" | "thread"
    command: tuple[str, ...] = ()
    agent: str = ""
    #: a built-in or thread agent's parameters, typed
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        """What the results call it (``agent_name``): the command, or ``KIND:NAME[:K=V,...]``."""
        if self.kind == "process":
            return shlex.join(self.command)
        given = ",".join(f"{k}={v}" for k, v in self.params)
        return f"{self.kind}:{self.agent}" + (f":{given}" if given else "")

    @property
    def local(self) -> bool:
        return self.kind == "builtin"


def _default_label(tokens: Sequence[str]) -> str:
    """Our own client's agent name, else the script's name, else the program's."""
    if "--agent" in tokens[:-1]:
        return tokens[tokens.index("--agent") + 1]
    for token in tokens:
        if token.startswith("--agent="):
            return token.partition("=")[2]
    words = [t for t in tokens if not t.startswith("-")]
    for word in words:
        base = os.path.basename(word)
        if base not in _INTERPRETERS and not re.match(r"^python[0-9.]*$", base):
            return base.rsplit(".", 1)[0] if "." in base[1:] else base
    return os.path.basename(words[0]) if words else "bot"


def parse_bot(token: str) -> BotSpec:
    """``builtin:NAME[:KEY=VALUE,...]``, ``thread:NAME[:KEY=VALUE,...]`` or a command line,
    each optionally ``LABEL=...``; an agent's parameters are typed by its constructor (a bad one
    is one line naming the agent and the parameter)."""
    label, sep, rest = token.partition("=")
    if not (sep and rest and _LABEL.match(label)):
        label, rest = "", token
    rest = rest.strip()
    for kind in ("builtin", "thread"):
        if rest.startswith(kind + ":"):
            agent = rest[len(kind) + 1:]
            if not agent:
                raise DeduceError(f"bot {token!r}: name the agent, e.g. {kind}:deductive")
            from deduce.cli.options import parse_agent_option, type_agent_params

            option = parse_agent_option(agent)
            if option.label != option.name:
                raise DeduceError(f"bot {token!r}: a label goes in front, LABEL={kind}:{option.name}")
            typed = type_agent_params(option.name, "clue", dict(option.params), label or option.name)
            return BotSpec(label or option.name, kind, agent=option.name, params=tuple(sorted(typed.items())))
    try:
        command = tuple(shlex.split(rest))
    except ValueError as exc:
        raise DeduceError(f"bot command {token!r}: {exc}") from None
    if not command:
        raise DeduceError(f"empty bot command {token!r}")
    label = label or re.sub(r"[^A-Za-z0-9_.#+-]", "_", _default_label(command)) or "bot"
    return BotSpec(label, "process", command=command)


def _distinct_labels(bots: Sequence[BotSpec]) -> list[BotSpec]:
    seen: dict[str, int] = {}
    out = []
    for bot in bots:
        seen[bot.label] = seen.get(bot.label, 0) + 1
        if seen[bot.label] > 1:
            bot = dataclasses.replace(bot, label=f"{bot.label}#{seen[bot.label]}")
        out.append(bot)
    return out


# -- seats ----------------------------------------------------------------------------------------
class _Seat:
    """One player's line: ``post`` a message, then ``collect`` the reply and the time it took."""

    bot: BotSpec
    name: str

    def post(self, text: str) -> None:
        raise NotImplementedError

    def collect(self, deadline: float) -> tuple[str, float]:
        """The reply text and the seconds it took, or a :class:`Violation`."""
        raise NotImplementedError

    def close(self) -> None:
        """Hang up (idempotent)."""


class _Remote(_Seat):
    """A bot on a socket (a process we started, or our client in a thread)."""

    def __init__(self, bot: BotSpec, name: str, channel: Channel) -> None:
        self.bot, self.name, self.channel = bot, name, channel
        self.sent_at = 0.0
        self.closed = False

    def post(self, text: str) -> None:
        if self.channel.ready(0.0):  # bytes nobody asked for: a second write, a late terminator
            try:
                extra = self.channel.sock.recv(4096)
            except OSError:
                extra = b""
            if extra:
                raise Violation("unsolicited", f"sent {extra[:40]!r} without being asked (one request, one reply)")
            raise Violation("disconnected", "the connection was closed")
        self.sent_at = time.monotonic()
        self.channel.send(text)

    def collect(self, deadline: float) -> tuple[str, float]:
        text = self.channel.receive(deadline)
        return text, time.monotonic() - self.sent_at

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.channel.close()


class _Local(_Seat):
    """A built-in agent: the same bot code, called directly."""

    def __init__(self, bot: BotSpec, name: str, player: SpeedClueBot, log: MessageLog | None) -> None:
        self.bot, self.name, self.player, self.log = bot, name, player, log
        self._reply: tuple[str, float] | BaseException | None = None

    def post(self, text: str) -> None:
        if self.log is not None:
            self.log.write(self.name, "send", text)
        start = time.monotonic()
        try:
            reply = self.player.handle(text, start)
        except Exception as exc:
            self._reply = exc
            return
        self._reply = (reply, time.monotonic() - start)
        if self.log is not None:
            self.log.write(self.name, "recv", reply)

    def collect(self, deadline: float) -> tuple[str, float]:
        reply, self._reply = self._reply, None
        if isinstance(reply, BaseException):
            raise Violation("exception", f"{type(reply).__name__}: {reply}")
        if reply is None:
            raise Violation("internal", "no message was posted")
        return reply


# -- the referee ----------------------------------------------------------------------------------
@dataclass
class _Exchange:
    """One request and its reply, for the timing report."""

    kind: str
    remote: bool
    seconds: float


@dataclass
class _Referee:
    """Referees one game on a :class:`ClueState` with seats that speak the protocol; the game
    loop of :mod:`deduce.play` plays it, each seat an :class:`_Asked` player, with
    :meth:`announce` after every action."""

    state: ClueState
    seats: list[_Seat]
    time_limit: float
    timings: list[_Exchange]
    codes: CardCodes = field(init=False)
    decisions: list[int] = field(init=False)
    spent: list[float] = field(init=False)
    #: whether every seat has had its ``reset`` (sent before the first request)
    dealt: bool = False
    #: per seat: the suggestions it made (no repeats) and the cards it was shown
    own: list[set[tuple[int, ...]]] = field(init=False)
    shown: list[set[int]] = field(init=False)
    #: the suggestion of this turn: by whom, its cards as named and as card ids
    asked: tuple[int, tuple[str, ...], tuple[int, ...]] | None = None
    #: who disproved this turn's suggestion (``None``: nobody)
    refuter: int | None = None
    #: the cards of the accusation being made, as named
    accused: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self.codes = CardCodes(self.state.game)
        n = len(self.seats)
        self.decisions = [0] * n
        self.spent = [0.0] * n
        self.own = [set() for _ in range(n)]
        self.shown = [set() for _ in range(n)]

    def _kind(self, message: ServerMessage) -> str:
        return encode(message).split(" ", 1)[0] if isinstance(message, SuggestRequest | DisproveRequest | AccuseRequest) else "ok"

    def exchange(self, messages: Mapping[int, ServerMessage]) -> dict[int, Reply]:
        """Send every seat its message, then collect every reply (sockets in parallel, each
        against its own deadline), so all connections stay in step even if one misbehaves."""
        violations: list[Violation] = []
        posted: dict[int, float] = {}
        order = sorted(messages, key=lambda s: isinstance(self.seats[s], _Local))  # remote first
        for seat in order:
            try:
                self.seats[seat].post(encode(messages[seat]))
                posted[seat] = time.monotonic() + self.time_limit
            except Violation as exc:
                exc.seat = seat
                violations.append(exc)
        replies: dict[int, Reply] = {}
        pending = dict(posted)
        while pending:
            local = [s for s in pending if isinstance(self.seats[s], _Local)]
            if local:
                ready = local
            else:
                ready = _first_readable({s: self.seats[s] for s in pending}, min(pending.values()))
                if not ready:  # the earliest deadline passed in silence
                    ready = [min(pending, key=pending.__getitem__)]
            for seat in ready:
                deadline = pending.pop(seat)
                try:
                    text, took = self.seats[seat].collect(deadline)
                    if took > self.time_limit:
                        raise Violation("timeout", f"replied after {took:.3f}s > {self.time_limit}s")
                    replies[seat] = parse_reply(text, messages[seat])
                    self._timed(seat, messages[seat], took)
                except Violation as exc:
                    exc.seat = seat
                    violations.append(exc)
        if violations:
            raise violations[0]
        return replies

    def _timed(self, seat: int, message: ServerMessage, took: float) -> None:
        kind = self._kind(message)
        self.timings.append(_Exchange(kind, isinstance(self.seats[seat], _Remote), took))
        if kind != "ok":
            self.decisions[seat] += 1
            self.spent[seat] += took

    def ask(self, seat: int, message: ServerMessage) -> Reply:
        return self.exchange({seat: message})[seat]

    def acknowledge(self, messages: Mapping[int, ServerMessage]) -> None:
        for seat, reply in self.exchange(messages).items():
            if not isinstance(reply, Ok):
                raise Violation("malformed", f"expected ok, got {encode(reply)!r}", seat)

    # -- refereeing, driven by the shared game loop (deduce.play) ----------------------------
    def decide(self, seat: int) -> Action:
        """Ask ``seat`` for its action by the protocol and check it against the contest's
        rules: a suggestion at the start of a turn, a card while refuting, an accusation or
        not once the suggestion is answered. The first request deals (``reset`` to everyone)."""
        state, codes = self.state, self.codes
        if not self.dealt:
            self.dealt = True
            n = len(self.seats)
            self.acknowledge({p: Reset(n, p, codes.codes(state.hands[p])) for p in range(n)})
        if state.phase == "refute":
            assert self.asked is not None
            by, named, cards = self.asked
            answer = self.ask(seat, DisproveRequest(by, named))
            assert isinstance(answer, ShowReply)
            card = codes.id(answer.card)
            if card not in cards or card not in state.hands[seat]:
                raise Violation("bad_show", f"showed {answer.card}, not a named card it holds", seat)
            return Show(card)
        if state.phase == "after":
            assert self.asked is not None
            _, named, cards = self.asked
            verdict = self.ask(seat, AccuseRequest())
            assert isinstance(verdict, AccuseReply)
            known = set(state.hands[seat]) | self.shown[seat]
            if verdict.cards is None:
                if self.refuter is None and not known.intersection(cards):
                    raise Violation("must_accuse", f"did not accuse after nobody disproved {' '.join(named)}", seat)
                return EndTurn()
            accused = codes.ids(verdict.cards)
            if known.intersection(accused):
                bad = " ".join(codes.code(c) for c in accused if c in known)
                raise Violation("accuse_known", f"accused {' '.join(verdict.cards)} naming {bad}, held or shown", seat)
            self.accused = verdict.cards
            return Accuse(accused)  # type: ignore[arg-type]
        assert state.phase == "start", state.phase
        reply = self.ask(seat, SuggestRequest())
        assert isinstance(reply, SuggestReply)
        cards = codes.ids(reply.cards)
        if cards in self.own[seat]:
            raise Violation("repeat", f"repeated its suggestion {' '.join(reply.cards)}", seat)
        self.own[seat].add(cards)
        self.asked = (seat, reply.cards, cards)
        return Suggest(cards)  # type: ignore[arg-type]

    def announce(self, step: Step) -> None:
        """After an action: tell every seat how a suggestion was answered (the card only to
        the two who saw it), or how an accusation went."""
        state, codes = self.state, self.codes
        n = len(self.seats)
        try:
            if isinstance(step.action, Suggest | Show) and state.phase != "refute":
                assert self.asked is not None
                by, named, _ = self.asked
                event = state.events[-1]
                assert isinstance(event, Suggestion)
                d = event.refuters[0] if event.refuters else None
                card = event.shown[0] if event.shown else None
                if card is not None:
                    self.shown[by].add(card)
                self.refuter = d
                x = codes.code(card) if card is not None else None
                self.acknowledge({q: SuggestionNotice(by, named, d, x if q in (by, d) else None) for q in range(n)})
            elif isinstance(step.action, Accuse):
                assert self.accused is not None
                correct = bool(step.events and getattr(step.events[0], "correct", False))
                self.acknowledge({q: AccusationNotice(step.seat, self.accused, correct) for q in range(n)})
        except Violation as exc:
            raise _forfeit(exc) from exc


def _forfeit(exc: Violation) -> Forfeit:
    """A broken rule as the game loop's forfeit of the seat that broke it."""
    seat = exc.seat if exc.seat is not None else 0
    return Forfeit(exc.kind, str(exc), seat, traceback.format_exc() if exc.kind == "exception" else "")


@dataclass
class _Asked:
    """One seat at the game loop's table: its ``act`` asks the seat through the referee, and a
    broken rule forfeits (the loop's own failure handling records it)."""

    referee: _Referee
    seat: int
    name: str
    #: the protocol keeps its own record; the engine's observation would go unread
    needs_observation: ClassVar[bool] = False

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        """A built-in seat's agent is seeded from the game's seed, as in the in-process harness."""
        local = self.referee.seats[player]
        if isinstance(local, _Local):
            local.player.next_seed = seed

    def act(self, observation: None) -> Action:
        try:
            return self.referee.decide(self.seat)
        except Violation as exc:
            raise _forfeit(exc) from exc


def _first_readable(seats: Mapping[int, _Seat], deadline: float) -> list[int]:
    """Seats whose socket has data (or closed), waiting at most until ``deadline``."""
    socks = {seat.channel.sock: s for s, seat in seats.items() if isinstance(seat, _Remote)}
    try:
        readable, _, _ = select.select(list(socks), [], [], max(deadline - time.monotonic(), 0.0))
    except (OSError, ValueError):
        return list(seats)
    return [socks[r] for r in readable]


# -- the session ----------------------------------------------------------------------------------
@dataclass
class SessionResult:
    """What a session played and how fast; ``results`` is the harness's results object."""

    results: Any
    games_played: int
    game_seconds: float
    total_seconds: float
    timing: dict[str, Any]
    disqualified: dict[str, str]
    bots: list[BotSpec]

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.game_seconds if self.game_seconds > 0 else float("nan")


@dataclass
class _Instance:
    """One running copy of a socket bot."""

    bot: BotSpec
    identifier: str
    process: subprocess.Popen[bytes] | None = None
    thread: threading.Thread | None = None
    seat: _Remote | None = None


class SpeedClueServer:
    """Hosts ``games`` games of ``players`` seats among ``bots`` over the protocol.

    ``out``: a results directory (resumed if it holds this session's games); ``log``: a file
    recording every message; ``deal``: a test hook giving the :class:`ClueState` of a game.
    Bot processes' stderr goes to ``out/bots/IDENTIFIER.err`` (discarded without ``out``).
    ``arrangement`` seats the bots as the tournament harness does: ``rotate`` (the default) or
    ``permutations``, every seat order, as the contest's own server plays its tables (at three
    players the seat order decides who refutes whom first, which rotation alone does not cover).
    """

    def __init__(
        self,
        bots: Sequence[BotSpec | str],
        players: int,
        games: int,
        *,
        seed: int = 0,
        time_limit: float = TIME_LIMIT,
        out: str | os.PathLike[str] | None = None,
        log: str | os.PathLike[str] | None = None,
        connect_timeout: float = 30.0,
        deal: Callable[[ClueGame, GameSpec], ClueState] | None = None,
        progress: Callable[[int, int], None] | None = None,
        arrangement: Arrangement | str = Arrangement.ROTATE,
    ) -> None:
        if not 3 <= players <= 6:
            raise DeduceError(f"Speed Clue is for 3 to 6 players, not {players}")
        if games < 0:
            raise DeduceError(f"games must be at least 0, not {games}")
        if time_limit <= 0:
            raise DeduceError(f"time limit must be positive, not {time_limit}")
        self.bots = _distinct_labels([b if isinstance(b, BotSpec) else parse_bot(b) for b in bots])
        if not self.bots:
            raise DeduceError("a Speed Clue session needs at least one bot")
        for bot in self.bots:
            if bot.kind != "process":
                SpeedClueBot(bot.agent, dict(bot.params))  # an unknown agent fails here, before anything starts
        self.players, self.games, self.seed = players, games, int(seed)
        self.time_limit = time_limit
        self.out = Path(out) if out is not None else None
        self.log_path = log
        self.connect_timeout = connect_timeout
        self.deal = deal
        self.progress = progress
        self.game = ClueGame(speedclue_config(players))
        try:
            self.arrangement = Arrangement(arrangement)
        except ValueError:
            choices = ", ".join(a.value for a in Arrangement)
            raise DeduceError(f"unknown seating arrangement {arrangement!r}: one of {choices}") from None
        self.schedule = Schedule(tuple(b.label for b in self.bots), players, self.seed, self.arrangement, True)
        self.setup = Setup.create(
            "clue", {**PROTOCOL_CONFIG, "num_players": players},
            tuple(AgentSpec(b.name, b.params, b.label) for b in self.bots), time_limit,
        )
        self.disqualified: dict[str, str] = {}
        self.timings: list[_Exchange] = []

    # -- identity, as the tournament harness writes it -----------------------------------
    def identity(self) -> dict[str, Any]:
        return {
            "game": "clue",
            "config": dict(PROTOCOL_CONFIG),
            "players": self.players,
            "agents": [{"label": b.label, "name": b.name, "params": dict(b.params)} for b in self.bots],
            "seed": self.seed,
            "arrangement": self.arrangement.value,
            "duplicate": True,
            "move_time_limit": self.time_limit,
        }

    def _config(self, status: str, extra: Mapping[str, Any]) -> dict[str, Any]:
        import platform
        from datetime import UTC, datetime

        from deduce import __version__

        return {
            **self.identity(),
            "protocol": "speedclue",
            "games": self.games,
            "round_size": self.schedule.round_size,
            "backend": "speedclue",
            "workers": 1,
            "status": status,
            "deduce_version": __version__,
            "python": platform.python_version(),
            "updated": datetime.now(UTC).isoformat(timespec="seconds"),
            **extra,
        }

    # -- running ----------------------------------------------------------------------------
    def run(self) -> SessionResult:
        """Start the bots, play every game not yet recorded, say ``done``, clean up."""
        from deduce.apps.tournament.results import TournamentResults
        from deduce.apps.tournament.store import ResultStore, require_pandas, rows_to_frame

        require_pandas()
        started = time.monotonic()
        store = ResultStore(self.out) if self.out is not None else None
        log = MessageLog(str(self.log_path)) if self.log_path is not None else None
        rows: list[dict[str, Any]] = []
        instances: dict[str, list[_Instance]] = {}
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        stderr_files: list[IO[bytes]] = []
        played, game_seconds = 0, 0.0
        try:
            with store.lock() if store is not None else _nothing():
                done = self._prepare(store) if store is not None else set()
                todo = [s for s in self.schedule.games(self.games) if s.game_id not in done]
                listener.bind(("127.0.0.1", 0))
                listener.listen(64)
                port = listener.getsockname()[1]
                self._launch(port, log, stderr_files, instances)
                self._accept(listener, instances, log)
                game_start = time.monotonic()
                for index, spec in enumerate(todo):
                    if any(label in self.disqualified for label in spec.seats):
                        continue
                    game_rows = self._play(spec, instances, log)
                    played += 1
                    if store is not None:
                        store.append(game_rows)
                    else:
                        rows.extend(game_rows)
                    if self.progress is not None:
                        self.progress(index + 1, len(todo))
                game_seconds = time.monotonic() - game_start
                self._finish(instances)
                if store is not None:
                    frame = store.compact()
                    extra = self._summary(game_seconds, played, frame["game_id"].nunique())
                    store.write_config(self._config("complete", extra))
                    frame = frame[frame["game_id"] < self.games].reset_index(drop=True)
                    results = TournamentResults(frame, store.read_config() or {}, self.out, played)
                else:
                    extra = self._summary(game_seconds, played, None)
                    results = TournamentResults(rows_to_frame(rows), self._config("complete", extra), None, played)
        finally:
            if store is not None:
                store.flush()
            listener.close()
            self._stop(instances)
            for handle in stderr_files:
                handle.close()
            if log is not None:
                log.close()
        return SessionResult(results, played, game_seconds, time.monotonic() - started,
                             self.timing_summary(), dict(self.disqualified), list(self.bots))

    def _prepare(self, store: Any) -> set[int]:
        existing = store.read_config()
        if existing is not None:
            mine = self.identity()
            differ = [k for k in mine if existing.get(k) != mine[k]]
            if differ:
                raise DeduceError(f"{store.path} holds a different tournament ({', '.join(differ)} differ); "
                                  "choose another --out directory")
        done = store.done_ids()
        store.write_config(self._config("running", {"games_recorded": len(done)}))
        return done

    def _summary(self, game_seconds: float, played: int, recorded: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "timing": self.timing_summary(),
            "games_played": played,
            "game_seconds": round(game_seconds, 3),
            "games_per_second": round(played / game_seconds, 3) if game_seconds > 0 else None,
            "disqualified": dict(self.disqualified),
            "bots": [{"label": b.label, "kind": b.kind, "command": list(b.command), "agent": b.agent,
                      "params": dict(b.params)}
                     for b in self.bots],
        }
        if recorded is not None:
            out["games_recorded"] = int(recorded)
        return out

    def timing_summary(self) -> dict[str, Any]:
        """Reply times in milliseconds: ``ok`` acknowledgements over sockets (the round trip
        with next to no thinking) and decisions, each as count / median / p95 / mean."""
        out: dict[str, Any] = {}
        groups = {
            "socket_ok_ms": [t.seconds for t in self.timings if t.remote and t.kind == "ok"],
            "socket_decision_ms": [t.seconds for t in self.timings if t.remote and t.kind != "ok"],
            "builtin_decision_ms": [t.seconds for t in self.timings if not t.remote and t.kind != "ok"],
        }
        for key, values in groups.items():
            if values:
                ordered = sorted(values)
                out[key] = {
                    "count": len(values),
                    "median": round(1000 * statistics.median(ordered), 4),
                    "p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 4),
                    "mean": round(1000 * statistics.fmean(ordered), 4),
                }
        return out

    def _copies(self) -> dict[str, int]:
        """How many copies of each bot one game can need (fewer bots than seats)."""
        need: dict[str, int] = {}
        for i in range(self.schedule.round_size):
            seats = self.schedule[i].seats
            for label in set(seats):
                need[label] = max(need.get(label, 0), seats.count(label))
        return need

    def _launch(self, port: int, log: MessageLog | None, stderr_files: list[IO[bytes]],
                instances: dict[str, list[_Instance]]) -> None:
        """Start every socket bot (filling ``instances`` as it goes, so a failure midway still
        lets ``run`` stop what was started)."""
        copies = self._copies()
        for bot in self.bots:
            if bot.local or bot.label not in copies:
                instances[bot.label] = []
                continue
            group: list[_Instance] = []
            instances[bot.label] = group
            for k in range(copies[bot.label]):
                ident = re.sub(r"[^A-Za-z0-9_.-]", "_", bot.label) + f".{k}"
                inst = _Instance(bot, ident)
                group.append(inst)
                if bot.kind == "thread":
                    player = SpeedClueBot(bot.agent, dict(bot.params), time_limit=self.time_limit)
                    inst.thread = threading.Thread(
                        target=_client_thread, args=(ident, port, player), name=f"speedclue-{ident}", daemon=True)
                    inst.thread.start()
                else:
                    err: Any = subprocess.DEVNULL
                    if self.out is not None:
                        (self.out / "bots").mkdir(parents=True, exist_ok=True)
                        err = open(self.out / "bots" / f"{ident}.err", "ab")  # noqa: SIM115 - closed in run()
                        stderr_files.append(err)
                    try:
                        inst.process = subprocess.Popen(
                            [*bot.command, ident, str(port)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=err)
                    except OSError as exc:
                        self.disqualified[bot.label] = f"no_connection: cannot start {bot.name!r}: {exc}"

    def _accept(self, listener: socket.socket, instances: dict[str, list[_Instance]], log: MessageLog | None) -> None:
        """Wait for every bot's ``IDENTIFIER alive``; a bot that never says it is out."""
        waiting = {i.identifier: i for group in instances.values() for i in group
                   if i.bot.label not in self.disqualified}
        deadline = time.monotonic() + self.connect_timeout
        while waiting and time.monotonic() < deadline:
            for inst in list(waiting.values()):
                if inst.process is not None and inst.process.poll() is not None:
                    self._disqualify(inst.bot.label, f"no_connection: exited with status {inst.process.returncode} "
                                                     "before connecting", instances)
                    waiting = {k: v for k, v in waiting.items() if v.bot.label not in self.disqualified}
            if not waiting:
                break
            readable, _, _ = select.select([listener], [], [], min(0.2, max(deadline - time.monotonic(), 0.0)))
            if not readable:
                continue
            conn, _ = listener.accept()
            channel = Channel(conn)
            try:
                greeting = parse_alive(channel.receive(time.monotonic() + self.time_limit))
            except Violation:
                channel.close()  # not a bot we can name: ignore the connection
                continue
            inst = waiting.pop(greeting.identifier, None)
            if inst is None:
                channel.close()
                continue
            channel.log = log.peer(inst.identifier) if log is not None else None
            if channel.log is not None:
                channel.log("recv", f"{greeting.identifier} alive")
            inst.seat = _Remote(inst.bot, inst.identifier, channel)
        for inst in waiting.values():
            self._disqualify(inst.bot.label, f"no_connection: no '{inst.identifier} alive' within "
                                             f"{self.connect_timeout}s", instances)

    def _disqualify(self, label: str, reason: str, instances: dict[str, list[_Instance]]) -> None:
        self.disqualified.setdefault(label, reason)
        for inst in instances.get(label, []):
            if inst.seat is not None:
                inst.seat.close()
            _end_process(inst.process)

    def _play(self, spec: GameSpec, instances: dict[str, list[_Instance]], log: MessageLog | None) -> list[dict[str, Any]]:
        seats: list[_Seat] = []
        used: dict[str, int] = {}
        for p, label in enumerate(spec.seats):
            bot = next(b for b in self.bots if b.label == label)
            if bot.local:
                seats.append(_Local(bot, f"{label}@{p}", SpeedClueBot(bot.agent, dict(bot.params), time_limit=self.time_limit), log))
            else:
                k = used.get(label, 0)
                used[label] = k + 1
                seat = instances[label][k].seat
                assert seat is not None
                seats.append(seat)
        state = self.deal(self.game, spec) if self.deal is not None else self.game.new_initial_state(spec.deal_seed)
        referee = _Referee(state, seats, self.time_limit, self.timings)
        players = [_Asked(referee, p, label) for p, label in enumerate(spec.seats)]
        start = time.perf_counter()
        # a broken rule forfeits through the loop; anything else is the referee's bug and propagates
        record = play_game(self.game, players, spec.seed, state=state, on_action=referee.announce, errors="raise")
        wall = time.perf_counter() - start
        # decision times as the protocol measures them (the reply's round trip)
        record = dataclasses.replace(record, decision_seconds=tuple(referee.spent), decisions=tuple(referee.decisions))
        failure = record.failure
        if failure is not None:
            self._disqualify(failure.agent, f"{failure.kind}: {failure.message} (game {spec.game_id}, seat {failure.seat})",
                             instances)
        return record_rows(self.setup, spec, record, wall)

    def _finish(self, instances: dict[str, list[_Instance]]) -> None:
        """Say ``done`` to every bot still in, expect ``dead``, hang up."""
        live = [i for group in instances.values() for i in group
                if i.seat is not None and i.bot.label not in self.disqualified]
        for inst in live:
            assert inst.seat is not None
            try:
                inst.seat.post(encode(Done()))
            except Violation as exc:
                self.disqualified.setdefault(inst.bot.label, f"{exc.kind} at done: {exc}")
        for inst in live:
            assert inst.seat is not None
            try:
                text, _ = inst.seat.collect(time.monotonic() + self.time_limit)
                if not isinstance(parse_reply(text, Done()), Dead):
                    raise Violation("malformed", f"expected dead, got {text!r}")
            except Violation as exc:
                self.disqualified.setdefault(inst.bot.label, f"{exc.kind} at done: {exc}")
            inst.seat.close()

    def _stop(self, instances: dict[str, list[_Instance]]) -> None:
        """Close every connection; give processes a moment to exit, then end them by pid."""
        for group in instances.values():
            for inst in group:
                if inst.seat is not None:
                    inst.seat.close()
        for group in instances.values():
            for inst in group:
                _end_process(inst.process, grace=3.0)
                if inst.thread is not None:
                    inst.thread.join(timeout=2.0)


def _end_process(process: subprocess.Popen[bytes] | None, grace: float = 0.0) -> None:
    if process is None or process.poll() is not None:
        return
    try:
        process.wait(timeout=grace) if grace > 0 else None
    except subprocess.TimeoutExpired:
        pass
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=2.0)


def _client_thread(identifier: str, port: int, player: SpeedClueBot) -> None:
    try:
        run_client(identifier, port, player, connect_timeout=10.0, idle_timeout=600.0)
    except ProtocolError:
        pass  # the server reports the bot's silence as a violation


class _nothing:
    """A do-nothing context manager (``contextlib.nullcontext`` without the generic noise)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
