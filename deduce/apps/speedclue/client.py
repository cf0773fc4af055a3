"""The Speed Clue client: one of our Clue agents playing over the protocol.

:class:`SpeedClueBot` is the whole bot without a socket (text in, text out), so the server can
also seat built-in agents through the very same code; :func:`run_client` connects it to a
server. Every decision goes through the ordinary path: protocol messages → :class:`Mirror` →
``ClueObservation`` → ``agent.act`` → action → reply.

Timing: the agent runs in a worker thread and gets ``budget`` seconds (default half the time
limit). An agent with a ``deadline`` attribute is told the seconds left of that budget
(``deadline`` is seconds per decision for every deduce agent), so it can return its best answer
so far; one that is still thinking at the deadline
is abandoned for the answer of a cheap ``fallback_agent`` (``notebook`` by default: direct
deductions only, a millisecond), and is not asked again until that call returns, so the reply
is never late. Answers the protocol forbids are replaced by the closest allowed one.
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import agents as agent_registry
from deduce.apps.speedclue.mirror import Mirror, Request
from deduce.apps.speedclue.protocol import (
    TIME_LIMIT,
    AccusationNotice,
    AccuseRequest,
    Alive,
    Channel,
    Dead,
    DisproveRequest,
    Done,
    Logger,
    Ok,
    ProtocolError,
    Reply,
    Reset,
    SuggestionNotice,
    SuggestRequest,
    Violation,
    encode,
    parse_message,
)
from deduce.games.base import Action

__all__ = ["SpeedClueBot", "run_client", "DEFAULT_BUDGET_SHARE"]

#: share of the time limit the agent may think before the fallback answers.
DEFAULT_BUDGET_SHARE = 0.5


class _Runner:
    """Runs one agent call at a time in a daemon thread, waiting at most until a deadline."""

    def __init__(self) -> None:
        self._busy: threading.Thread | None = None

    def call(self, fn: Callable[[], Any], deadline: float) -> tuple[bool, Any, BaseException | None]:
        """``(finished, value, error)``; ``finished`` is False when the call overran (or an
        earlier overrunning call is still going, in which case ``fn`` is not started)."""
        if self._busy is not None:
            if self._busy.is_alive():
                return False, None, None
            self._busy = None
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # an agent's bug must not kill the bot
                box["error"] = exc

        thread = threading.Thread(target=target, name="speedclue-agent", daemon=True)
        thread.start()
        thread.join(max(deadline - time.monotonic(), 0.0))
        if thread.is_alive():
            self._busy = thread
            return False, None, None
        return True, box.get("value"), box.get("error")


def _wants_observe(agent: object) -> bool:
    method = getattr(type(agent), "observe", None)
    return method is not None and getattr(method, "__qualname__", "").split(".")[0] != "Agent"


class SpeedClueBot:
    """A registered Clue agent behind the protocol. ``handle(text)`` returns the reply text.

    A fresh agent is built for every ``reset`` (agents keep per-game caches). Its seed is
    ``next_seed`` when the host sets it (the server does, for reproducible built-in seats),
    else derived from ``seed`` and the game's number in this session.
    """

    def __init__(
        self,
        agent: str = "deductive",
        params: Mapping[str, Any] | None = None,
        *,
        time_limit: float = TIME_LIMIT,
        budget: float | None = None,
        seed: int = 0,
        fallback_agent: str | None = "notebook",
    ) -> None:
        if time_limit <= 0:
            raise ProtocolError(f"time limit must be positive, not {time_limit}")
        self.agent_name = agent
        self.params = dict(params or {})
        self.time_limit = time_limit
        self.budget = DEFAULT_BUDGET_SHARE * time_limit if budget is None else min(budget, time_limit)
        self.seed = seed
        self.next_seed: int | None = None
        self._registry = agent_registry
        self._new_agent()  # an unknown agent or bad parameter fails now, not in the first game
        self.fallback_name = fallback_agent if fallback_agent != agent else None
        if self.fallback_name is not None:
            self._registry.get(self.fallback_name, game="clue")
        self.fallback: Any = None
        self.mirror: Mirror | None = None
        self.agent: Any = None
        self._runner = _Runner()
        self.games = 0
        self.done = False
        self.rng = np.random.default_rng(seed)
        #: decisions asked of the agent, answers replaced by the fallback, and why.
        self.stats: dict[str, int] = {"decisions": 0, "forced": 0, "late": 0, "errors": 0, "disallowed": 0}
        self.last_error: BaseException | None = None
        #: called with one line for every answer the agent did not give (late, crashed, not
        #: allowed); the command line prints it to stderr, so a slow agent shows before it costs a game.
        self.on_note: Callable[[str], None] | None = None

    def _new_agent(self) -> Any:
        return self._registry.get(self.agent_name, game="clue", **self.params)

    # -- the protocol -----------------------------------------------------------------------
    def handle(self, text: str, received: float | None = None) -> str:
        """The reply to one server message (``received``: when it arrived, monotonic)."""
        deadline = (time.monotonic() if received is None else received) + self.budget
        message = parse_message(text)
        return encode(self._dispatch(message, deadline))

    def _dispatch(self, message: object, deadline: float) -> Reply:
        if isinstance(message, Reset):
            self._reset(message)
            return Ok()
        if isinstance(message, Done):
            self.done = True
            return Dead()
        mirror = self.mirror
        if mirror is None:
            raise ProtocolError(f"{encode(message)!r} before any reset")  # type: ignore[arg-type]
        if isinstance(message, SuggestionNotice | AccusationNotice):
            mirror.update(message)
            if self.agent is not None and _wants_observe(self.agent):
                obs = mirror.observation()
                self._runner.call(lambda: self.agent.observe(obs), deadline)
            return Ok()
        if isinstance(message, SuggestRequest | DisproveRequest | AccuseRequest):
            reply = self._decide(mirror, message, deadline)
            if isinstance(message, AccuseRequest):
                mirror.turn_over()
            return reply
        raise ProtocolError(f"unexpected message {message!r}")

    def _reset(self, message: Reset) -> None:
        self.mirror = Mirror(message)
        seed = self.next_seed
        if seed is None:
            seq = np.random.SeedSequence([self.seed & 0xFFFFFFFF, self.games])
            seed = int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        self.next_seed = None
        self.games += 1
        self.agent = self._new_agent()
        self._runner = _Runner()  # a call still running from the last game is simply dropped
        self.agent.reset(self.mirror.game, message.seat, seed)
        if self.fallback_name is not None:
            self.fallback = self._registry.get(self.fallback_name, game="clue")
            self.fallback.reset(self.mirror.game, message.seat, seed)

    def _decide(self, mirror: Mirror, request: Request, deadline: float) -> Reply:
        obs = mirror.observation(request)
        legal = obs.legal_actions
        if len(legal) == 1:  # forced (one card to show, the certain accusation): nothing to ask
            self.stats["forced"] += 1
            reply = mirror.reply(request, legal[0], legal)
            assert reply is not None
            return reply
        self.stats["decisions"] += 1
        agent = self.agent
        if hasattr(agent, "deadline"):  # agents read it as seconds for this decision
            agent.deadline = max(deadline - time.monotonic(), 0.001)
        finished, action, error = self._runner.call(lambda: agent.act(obs), deadline)
        wanted: Action | None = action if finished and error is None else None
        if not finished:
            self.stats["late"] += 1
            self._note(f"late: no answer within {self.budget:g} s, the fallback answered")
        elif error is not None:
            self.stats["errors"] += 1
            self.last_error = error
            self._note(f"error: {type(error).__name__}: {error}; the fallback answered")
        if wanted is not None:
            reply = mirror.reply(request, wanted, legal)
            if reply is not None:
                return reply
            self.stats["disallowed"] += 1
            self._note(f"not allowed by the protocol: {wanted!r}; the closest allowed answer was sent")
        elif self.fallback is not None:  # late or crashed: ask the cheap agent, synchronously
            try:
                reply = mirror.reply(request, self.fallback.act(obs), legal)
            except Exception:
                reply = None
            if reply is not None:
                return reply
        return mirror.fallback(request, wanted, self.rng)


    def _note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(f"game {self.games}: {self.agent_name}: {text}")

    def summary(self) -> str:
        """One line for the end of a session: how many answers were the agent's own."""
        s = self.stats
        replaced = s["late"] + s["errors"] + s["disallowed"]
        return (f"{self.agent_name}: {self.games} games, {s['decisions']} decisions "
                f"({s['forced']} forced answers besides), {replaced} not the agent's own: "
                f"{s['late']} late, {s['errors']} errors, {s['disallowed']} not allowed")


def _identifier_seed(identifier: str, seed: int) -> int:
    return (zlib.crc32(identifier.encode()) ^ seed) & 0x7FFFFFFF


def run_client(
    identifier: str,
    port: int,
    bot: SpeedClueBot,
    *,
    host: str = "127.0.0.1",
    log: Logger | None = None,
    connect_timeout: float = 10.0,
    idle_timeout: float = 3600.0,
) -> int:
    """Connect, say ``IDENTIFIER alive`` and answer until ``done``; 0 on a clean ``dead``.

    ``idle_timeout`` bounds the wait for the next message (a bot can sit out many games).
    Raises :class:`ProtocolError` on a bad server message; returns 1 if the server goes away.
    """
    if bot.seed == 0:
        bot.seed = _identifier_seed(identifier, 0)
        bot.rng = np.random.default_rng(bot.seed)
    sock = _connect(host, port, connect_timeout)
    channel = Channel(sock, log)
    try:
        channel.send(encode(Alive(identifier)))
        while not bot.done:
            text = channel.receive(time.monotonic() + idle_timeout)
            received = time.monotonic()
            channel.send(bot.handle(text, received))
        return 0
    except Violation:  # the server closed the connection or went quiet
        return 1
    finally:
        channel.close()


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    """Connect, retrying briefly while the server is not listening yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=max(deadline - time.monotonic(), 0.1))
            sock.settimeout(None)
            return sock
        except (ConnectionRefusedError, TimeoutError) as exc:
            if time.monotonic() >= deadline:
                raise ProtocolError(f"cannot connect to {host}:{port}: {exc}") from None
            time.sleep(0.05)
