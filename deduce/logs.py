"""Game logs: load a log (a file, a JSON string, or a dict) into a game, a view and a knowledge base.

Each game's log format is the ``log`` of its :class:`~deduce.games.base.GameInfo`, with ``parse(data)`` and
``export(game, observation)``. Parsing is bounded (file size, event count) so hostile input
fails fast with a :class:`~deduce.errors.LogError` naming the offending event.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from deduce.cards import normalise_name
from deduce.errors import Contradiction, DeduceError, LogError
from deduce.games.base import Game, LogFormat, Observation
from deduce.games.registry import game_info, game_names
from deduce.knowledge import Checker, KnowledgeBase

__all__ = ["decode_log", "read_log", "load_log", "view_knowledge", "export_log", "LogReader", "event_text", "MAX_LOG_BYTES", "MAX_EVENTS"]

MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_EVENTS = 100_000

LogSource = str | os.PathLike | Mapping[str, Any]


def _codec(name: str) -> LogFormat:
    log = game_info(name).log
    if log is None:
        raise LogError(f"log header: game {name!r} has no log format")
    return log


def _read_bounded(path: Path, where: str) -> str:
    """Read a log file, refusing what is not a regular file (a FIFO would block, /dev/zero never
    ends) and reading at most one byte past the limit, so no input can exhaust memory."""
    try:
        info = path.stat()
    except OSError as exc:
        raise LogError(f"{where}: cannot read the log: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise LogError(f"{where}: not a regular file (a log is a JSON file; use '-' for standard input)")
    if info.st_size > MAX_LOG_BYTES:
        raise LogError(f"{where}: the log is {info.st_size} bytes, more than the limit of {MAX_LOG_BYTES}")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise LogError(f"{where}: cannot read the log: {exc.strerror or exc}") from None
    if len(raw) > MAX_LOG_BYTES:
        raise LogError(f"{where}: the log is larger than the limit of {MAX_LOG_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogError(f"{where}: cannot read the log: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def decode_log(source: LogSource) -> Mapping[str, Any]:
    """A log's JSON object, read within bounds: a file of at most :data:`MAX_LOG_BYTES` (never
    a FIFO or a device, which could block or never end), UTF-8 text, JSON that is an object,
    nests no deeper than the parser can walk and holds no lone surrogate (which could not be
    printed or saved again). ``source`` is a path, a JSON string (starting with ``{``) or an
    already decoded mapping (returned as it is). Everything refused is one
    :class:`~deduce.errors.LogError` naming the input.

    Why public: every command that reads a log (``solve``, ``assist``'s resume) must refuse the
    same hostile input the same way, before any game reads it; the game and its events are
    checked later, by :func:`read_log`.
    """
    if isinstance(source, Mapping):
        return source
    text: str
    if isinstance(source, str) and source.lstrip().startswith("{"):
        text = source
        where = "log"
    else:
        path = Path(source)
        where = str(path)
        text = _read_bounded(path, where)
    if len(text) > MAX_LOG_BYTES:
        raise LogError(f"{where}: the log is larger than the limit of {MAX_LOG_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogError(f"{where}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise LogError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit for int()
        raise LogError(f"{where}: unreadable JSON value: {str(exc)[:120]}") from None
    try:  # a lone surrogate (\ud800) parses but cannot be printed or saved
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise LogError(f"{where}: the log holds a lone surrogate (an invalid \\uD800-\\uDFFF escape)") from None
    except RecursionError:
        raise LogError(f"{where}: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise LogError(f"{where}: a log must be a JSON object, not {type(data).__name__}")
    return data


def read_log(source: LogSource) -> tuple[Game, Observation]:
    """The game a log describes and the logging player's observation (``me``; a spectator if absent)."""
    data = decode_log(source)
    name = data.get("game")
    if not isinstance(name, str):
        raise LogError("log header: 'game' must name the game, e.g. \"clue\"")
    if name not in game_names():
        raise LogError(f"log header: unknown game {name!r}; known games: {', '.join(game_names())}")
    events = data.get("events", [])
    if isinstance(events, list) and len(events) > MAX_EVENTS:
        raise LogError(f"log header: {len(events)} events, more than the limit of {MAX_EVENTS}")
    try:
        return _codec(name).parse(data)
    except LogError:
        raise
    except DeduceError as exc:  # an unexpected library error still names the log
        raise LogError(f"log: {exc}") from None


def load_log(source: LogSource, check: Checker | None = None) -> KnowledgeBase:
    """The knowledge base of the logging player's view, every event checked for contradictions.

    ``check`` is a solver (``solvers.get("cpsat")``, say) that proves each event consistent with
    the ones before it; without one only the core's cheap propagation runs.
    """
    data = decode_log(source)
    game, obs = read_log(data)
    raw_events = data.get("events", [])
    if not game_info(game.name).incremental:  # knowledge from the whole history: check growing prefixes
        return _checked_prefixes(game, obs, raw_events, check)
    base = game.knowledge(_without_events(obs), check=False)
    check = check or base.checker
    start = len(obs.events) - len(_covered(game, obs))
    kb = base.copy()
    added: list[list[Any]] = []  # each event's constraints, as the knowledge base stood before it
    for i, event in enumerate(obs.events[start:], start):
        new = list(game.event_constraints(kb, event))
        added.append(new)
        _extend(kb, new, i, event, raw_events, check, cheap=True)
    if not check or check.consistent(kb):
        return kb
    # Events only add constraints, so a prefix with no world stays without one: the first event
    # whose prefix has none is found by bisection, with one solver check per step, not one per
    # event (a check of an early prefix can cost far more than the whole log's: fewer facts,
    # more worlds to rule out).

    def prefix(n: int) -> KnowledgeBase:
        out = base.copy()
        for j, new in enumerate(added[:n]):
            out.extend(new, source=f"event {start + j}", check=False)
        return out

    lo, hi = 0, len(added)  # prefix lo fits (the view alone is trusted); prefix hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if check.consistent(prefix(mid)):
            lo = mid
        else:
            hi = mid
    i = start + hi - 1
    _extend(prefix(hi - 1), added[hi - 1], i, obs.events[i], raw_events, check)
    raise LogError(f"event {i} ({_event_text(raw_events, i)}) contradicts the events before it", i, obs.events[i])


def _extend(kb: KnowledgeBase, new: list, i: int, event: Any, raw_events: list, check: Any,
            cheap: bool = False) -> None:
    """``kb`` with event ``i``'s constraints ``new``; a contradiction is the log's error, naming
    the event and the earlier ones it contradicts (found with ``check``'s cores). ``cheap``:
    only propagation decides whether there is one."""
    try:
        try:
            kb.extend(new, source=f"event {i}", check=True if cheap else check)
        except Contradiction:
            if not cheap or not check:
                raise
            kb.extend(new, source=f"event {i}", check=check)  # again, for the events it names
    except Contradiction as exc:
        earlier = sorted({s for s in exc.sources if s and s.startswith("event ")}, key=_event_number)
        against = ", ".join(earlier) if earlier else "the events before it"
        raise LogError(
            f"event {i} ({_event_text(raw_events, i)}) contradicts {against}: {exc.reason}", i, event
        ) from None


def view_knowledge(game: Game, obs: Observation) -> KnowledgeBase:
    """The knowledge base of a log's view with every constraint's source the log event it came
    from (``"event i"``, numbered as in the log), so a contradiction can name its events.
    Nothing is checked: a contradictory log still gives its (unsatisfiable) knowledge base."""
    start = len(obs.events) - len(_covered(game, obs))
    if not game_info(game.name).incremental:  # knowledge from the whole history, built in one go
        return _sourced(game, obs, game.knowledge(obs, check=False))
    kb = game.knowledge(_without_events(obs), check=False)
    for i, event in enumerate(obs.events[start:], start):
        kb.extend(game.event_constraints(kb, event), source=f"event {i}", check=False)
    return kb


def _sourced(game: Game, obs: Observation, kb: KnowledgeBase) -> KnowledgeBase:
    """``kb``, built whole from ``obs``, with each constraint's source its log event."""
    if any(s and s.startswith("event ") for s in kb.sources) or not obs.events:
        return _renumbered(kb, len(obs.events) - len(_covered(game, obs)))
    return _attributed(game, obs, kb)


def _checked_prefixes(game: Game, obs: Observation, raw_events: list, check: Any) -> KnowledgeBase:
    """``load_log`` for games that build their knowledge base whole (cards moving between
    epochs): the first event whose prefix of the log has no consistent world is the culprit
    (a prefix with no world stays without one as events are added), found by galloping from
    the start (prefixes 16, 32, 64 ... events past the last that fit) and then bisection, so a
    long log costs a few checks, not one per event, and an early culprit in a long log costs
    checks of short prefixes only (bisection from the middle built half the log every time:
    14 s for a bad event 16 of 10,016). The first stride is :data:`_FIRST_STRIDE` events, not
    one: bisecting it costs no more checks than galloping up to it would, and prefixes of a
    few events (one epoch, before any trick or exchange) are checked by another backend,
    whose loading cost more than the rest of the search (0.7 s of a 10,016-event log)."""
    kb = game.knowledge(obs, check=False)
    if not check or check.consistent(kb):
        return _sourced(game, obs, kb)  # sources are worked out only for a log that is kept
    start = len(obs.events) - len(_covered(game, obs))
    lo, hi = start - 1, len(obs.events) - 1  # prefix lo + 1 events long fits (or is empty); hi's does not

    def fits(last: int) -> bool:
        return bool(check.consistent(game.knowledge(dataclasses.replace(obs, events=obs.events[: last + 1]),
                                                    check=False)))

    step = _FIRST_STRIDE
    while lo + step < hi:
        if not fits(lo + step):
            hi = lo + step
            break
        lo += step
        step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    prefix = view_knowledge(game, dataclasses.replace(obs, events=obs.events[: hi + 1]))
    core = getattr(check, "core", None)
    earlier = sorted({s for j in (core(prefix) if core else ()) if (s := prefix.sources[j]) and
                      s.startswith("event ") and s != f"event {hi}"}, key=_event_number)
    against = ", ".join(earlier) if earlier else "the events before it"
    raise LogError(f"event {hi} ({_event_text(raw_events, hi)}) contradicts {against}", hi, obs.events[hi])


#: the first stride of the search for a whole-history log's first contradicting event
_FIRST_STRIDE = 16


def _covered(game: Game, obs: Observation) -> tuple:
    """The events a game's knowledge base covers: all, or the latest round's or game's."""
    return game.covered_events(obs.events)


def _attributed(game: Game, obs: Observation, kb: KnowledgeBase) -> KnowledgeBase:
    """``kb`` (built in one batch) with each constraint's source the first log event whose
    prefix of the log brings it in ("rules" for those that hold before any event).

    Prefixes are read with a galloping stride: after a prefix that brings in nothing new the
    stride doubles, and a stride that skipped over something new is bisected down to its
    event. A log of a thousand repeated events costs a few dozen prefixes, not a thousand
    (each read from the start), while a log whose every event says something new is read
    prefix by prefix as before (a constraint once brought in stays in)."""
    final = set(kb.constraints)
    first: dict[Any, str] = {}

    def new_at(i: int) -> set[Any]:
        prefix = game.knowledge(dataclasses.replace(obs, events=obs.events[:i]), check=False)
        return {c for c in prefix.constraints if c in final and c not in first}

    for c in new_at(0):
        first[c] = "rules"
    done, stride, n = 0, 1, len(obs.events)
    while done < n:
        hi = min(done + stride, n)
        found = new_at(hi)
        if not found:
            done, stride = hi, stride * 2
            continue
        lo = done  # prefix lo brings nothing new, prefix hi does: bisect to the first that does
        while hi - lo > 1:
            mid = (lo + hi) // 2
            at_mid = new_at(mid)
            if at_mid:
                hi, found = mid, at_mid
            else:
                lo = mid
        for c in found:
            first[c] = f"event {hi - 1}"
        done, stride = hi, 1
    out = KnowledgeBase(kb.deck, kb.locations, epochs=kb.epochs)
    for c in kb.constraints:
        out.extend([c], source=first.get(c, f"event {len(obs.events) - 1}"), check=False)
    return out


def _renumbered(kb: KnowledgeBase, start: int) -> KnowledgeBase:
    """``kb`` with its sources "event i" (counted from ``start``) numbered from the log's start."""
    if not start:
        return kb
    out = KnowledgeBase(kb.deck, kb.locations, epochs=kb.epochs)
    for c, source in zip(kb.constraints, kb.sources, strict=True):
        if source and source.startswith("event "):
            source = f"event {_event_number(source) + start}"
        out.extend([c], source=source, check=False)
    return out


def export_log(game: Game, observation: Observation) -> dict[str, Any]:
    """A player's view of a game as a JSON-ready log that :func:`read_log` reads back."""
    return _codec(game.name).export(game, observation)


def event_text(raw: object) -> str:
    """An event as an error message quotes it: its JSON, cut to 160 characters."""
    text = json.dumps(raw, ensure_ascii=False) if not isinstance(raw, str) else raw
    return text if len(text) <= 160 else text[:157] + "..."


class LogReader:
    """What every game's log reader shares: errors that name the event being read (index and
    text), field checks, and player names. Subclasses set ``self.game`` in their header reader."""

    game: Any

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        #: the index and raw text of the event being read (``None``: the header).
        self.index: int | None = None
        self.raw: object = None

    def fail(self, message: str) -> LogError:
        """An error naming where reading stopped: the header, or the event's index and text."""
        if self.index is None:
            return LogError(f"log header: {message}")
        return LogError(f"event {self.index} ({event_text(self.raw)}): {message}", self.index, self.raw)

    def players(self, reserved: tuple[str, ...] = ()) -> list[str]:
        """The header's ``players``: distinct non-empty names, none of them a ``reserved`` place."""
        players = self.data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise self.fail("'players' must be a list of player names")
        keys = [normalise_name(p) for p in players]
        if len(set(keys)) != len(keys):
            raise self.fail(f"player names must be distinct: {players}")
        taken = [r for r in reserved if normalise_name(r) in keys]
        if taken:
            raise self.fail(f"{' and '.join(map(repr, taken))} {'is not a player name' if len(taken) == 1 else 'are not player names'}")
        return players

    def raw_events(self) -> Iterator[dict[str, Any]]:
        """The log's events one by one, each an object with a ``type``; errors raised while one
        is being read name it (``self.index`` and ``self.raw`` follow the iteration)."""
        raw_events = self.data.get("events", [])
        if not isinstance(raw_events, list):
            raise self.fail("'events' must be a list")
        for i, raw in enumerate(raw_events):
            self.index, self.raw = i, raw
            if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                raise self.fail("an event must be an object with a 'type'")
            yield raw

    def keys(self, raw: Mapping[str, Any], required: set[str], optional: set[str] = frozenset()) -> None:
        """Refuse an event with a missing or an unknown field."""
        missing = sorted(required - set(raw))
        if missing:
            raise self.fail(f"missing field(s) {', '.join(map(repr, missing))}")
        unknown = sorted(set(raw) - required - set(optional) - {"type"})
        if unknown:
            raise self.fail(f"unknown field(s) {', '.join(map(repr, unknown))}")

    def player(self, name: object, field: str) -> int:
        """The seat of a player named in ``field`` (case, spaces and punctuation ignored)."""
        if not isinstance(name, str):
            raise self.fail(f"{field!r} must be a player name, got {name!r}")
        key = normalise_name(name)
        for i, p in enumerate(self.game.config.names):
            if normalise_name(p) == key:
                return i
        raise self.fail(f"unknown player {name!r} in {field!r}; players are {list(self.game.config.names)}")


def _event_number(source: str) -> int:
    return int(source.split()[1])


def _event_text(raw_events: list, i: int) -> str:
    return event_text(raw_events[i] if not isinstance(raw_events[i], str) else json.dumps(raw_events[i]))


def _without_events(obs: Observation) -> Observation:
    return dataclasses.replace(obs, events=())
