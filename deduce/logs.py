"""Game logs: load a log (a file, a JSON string, or a dict) into a game, a view and a knowledge base.

Each game's log format lives in ``deduce.games.<game>_log`` with ``parse(data)`` and
``export(game, observation)``. Parsing is bounded (file size, event count) so hostile input
fails fast with a :class:`~deduce.errors.LogError` naming the offending event.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deduce.errors import Contradiction, DeduceError, LogError
from deduce.games.base import Game, Observation
from deduce.games.registry import game_names
from deduce.knowledge import KnowledgeBase

__all__ = ["read_log", "load_log", "export_log", "MAX_LOG_BYTES", "MAX_EVENTS"]

MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_EVENTS = 100_000

LogSource = str | os.PathLike | Mapping[str, Any]


def _codec(name: str):
    module = f"deduce.games.{name.replace('-', '_')}_log"
    if importlib.util.find_spec(module) is None:
        raise LogError(f"log header: game {name!r} has no log format")
    return importlib.import_module(module)


def _decode(source: LogSource) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        return source
    text: str
    if isinstance(source, str) and source.lstrip().startswith("{"):
        text = source
        where = "log"
    else:
        path = Path(source)
        where = str(path)
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise LogError(f"{where}: cannot read the log: {exc.strerror or exc}") from None
        if size > MAX_LOG_BYTES:
            raise LogError(f"{where}: the log is {size} bytes, more than the limit of {MAX_LOG_BYTES}")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LogError(f"{where}: cannot read the log: {exc}") from None
    if len(text) > MAX_LOG_BYTES:
        raise LogError(f"{where}: the log is larger than the limit of {MAX_LOG_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogError(f"{where}: malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise LogError(f"{where}: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise LogError(f"{where}: a log must be a JSON object, not {type(data).__name__}")
    return data


def read_log(source: LogSource) -> tuple[Game, Observation]:
    """The game a log describes and the logging player's observation (``me``; a spectator if absent)."""
    data = _decode(source)
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


def load_log(source: LogSource, check: Any = "cpsat") -> KnowledgeBase:
    """The knowledge base of the logging player's view, every event checked for contradictions.

    ``check`` is a solver (or its name) used to prove each event consistent with the ones
    before it; ``False`` skips full checks (cheap propagation still runs).
    """
    data = _decode(source)
    game, obs = read_log(data)
    raw_events = data.get("events", [])
    if isinstance(check, str):
        solvers = importlib.import_module("solvers")  # resolved by name: the core imports no solver
        check = solvers.get(check)
    kb = game.knowledge(_without_events(obs), check=False)
    for i, event in enumerate(obs.events):
        try:
            kb.extend(game.event_constraints(kb, event), source=f"event {i}", check=check if check else None)
        except Contradiction as exc:
            earlier = sorted({s for s in exc.sources if s and s.startswith("event ")}, key=_event_number)
            against = ", ".join(earlier) if earlier else "the events before it"
            raise LogError(
                f"event {i} ({_event_text(raw_events, i)}) contradicts {against}: {exc.reason}", i, event
            ) from None
    return kb


def export_log(game: Game, observation: Observation) -> dict[str, Any]:
    """A player's view of a game as a JSON-ready log that :func:`read_log` reads back."""
    return _codec(game.name).export(game, observation)


def _event_number(source: str) -> int:
    return int(source.split()[1])


def _event_text(raw_events: list, i: int) -> str:
    text = json.dumps(raw_events[i], ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def _without_events(obs: Observation) -> Observation:
    import dataclasses

    return dataclasses.replace(obs, events=())
