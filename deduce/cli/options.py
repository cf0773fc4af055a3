"""One grammar for the command line's agents and game settings, shared by every subcommand.

An agent is ``[LABEL=]NAME[:KEY=VALUE,KEY=VALUE...]`` (``infogain:gamble=false``,
``fast=deductive:solver=csp``); a game setting is ``--config KEY=VALUE``. Values are typed by
what they configure: an agent parameter by the annotation (or default) of the agent's
constructor, a game setting by its config dataclass field. A value that does not fit is a
one-line :class:`~deduce.errors.InvalidConfig` naming the agent (or game) and the parameter.

Lists are comma-separated in ``--config`` (``suspects=A,B,C``); inside an agent spec, where
the comma separates parameters, a list is bracketed (``prior_rate=[1,4]``). Pairs inside a list
are ``a:b`` (``bonus_cards=any_room:4,decline:4``) or JSON.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from deduce.errors import DeduceError, InvalidConfig, UnknownName

__all__ = [
    "AgentOption",
    "parse_agent_option",
    "parse_agent_options",
    "agent_parameters",
    "type_agent_params",
    "parse_config",
    "parse_config_value",
    "coerce",
    "split_top",
]

_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})
_NONE = frozenset({"none", "null"})


@dataclasses.dataclass(frozen=True)
class AgentOption:
    """An agent as typed on the command line: its registered ``name``, the ``label`` it goes by
    (the name unless ``LABEL=NAME``) and its parameters, still as text until typed."""

    name: str
    label: str
    params: tuple[tuple[str, str], ...] = ()


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets and quotes (``a=[1,2],b=3`` -> two items)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_agent_option(token: str) -> AgentOption:
    """``[LABEL=]NAME[:KEY=VALUE,...]`` as an :class:`AgentOption` (values not yet typed)."""
    head, colon, rest = token.strip().partition(":")
    label, eq, name = head.partition("=")
    if not eq:
        label, name = "", head
    label, name = label.strip(), name.strip()
    if not name:
        raise InvalidConfig("agent", token, "expected [LABEL=]NAME[:KEY=VALUE,...]")
    params: dict[str, str] = {}
    if colon:
        for item in split_top(rest):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or not key:
                raise InvalidConfig("agent", token, f"parameter {item!r} is not KEY=VALUE")
            if key in params:
                raise InvalidConfig("agent", token, f"parameter {key!r} given twice")
            params[key] = value.strip()
    return AgentOption(name, label or name, tuple(params.items()))


def parse_agent_options(tokens: Iterable[str]) -> list[AgentOption]:
    """Several agents; a token may hold several, separated by spaces (``--agents "a b"``).
    Commas separate parameters, never agents."""
    out = []
    for token in tokens:
        out.extend(parse_agent_option(t) for t in token.split())
    return out


# -- agent parameters ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Parameter:
    """One constructor parameter of an agent: its type (``Any`` when unknown) and default."""

    name: str
    annotation: Any
    default: Any


def _class_parameters(cls: type) -> tuple[dict[str, Parameter], bool]:
    """The named keyword parameters of ``cls`` and its bases' constructors, and whether an
    unknown keyword reaches a constructor that takes any (other than the base ``Agent``'s,
    which only records its keywords)."""
    from agents.base import Agent

    found: dict[str, Parameter] = {}
    for klass in cls.__mro__:
        if klass in (Agent, object):
            return found, False
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            hints = typing.get_type_hints(init)
        except Exception:  # an annotation that does not resolve: untyped
            hints = {}
        var_keyword = False
        for p in list(inspect.signature(init).parameters.values())[1:]:
            if p.kind is p.VAR_KEYWORD:
                var_keyword = True
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                default = None if p.default is p.empty else p.default
                found.setdefault(p.name, Parameter(p.name, hints.get(p.name, Any), default))
        if not var_keyword:
            return found, False
    return found, True  # pragma: no cover - every agent derives from Agent


def agent_parameters(agent: object) -> dict[str, Parameter]:
    """Every parameter ``agent`` (a built agent) takes: its class's, then those of the agents
    it wraps (a board agent passes the rest to its inner agent)."""
    from agents.base import Agent

    params, _ = _class_parameters(type(agent))
    for value in vars(agent).values():
        if isinstance(value, Agent) and value is not agent:
            for key, p in agent_parameters(value).items():
                params.setdefault(key, p)
    return params


def _build(name: str, game: str, params: Mapping[str, Any]) -> Any:
    import agents as agent_registry
    from deduce.apps.tournament.worker import load_extension_agents

    load_extension_agents([name])
    try:
        return agent_registry.get(name, game=game, **params)
    except DeduceError:
        raise
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidConfig(f"agent {name}", dict(params), f"{type(exc).__name__}: {exc}") from None


def type_agent_params(name: str, game: str, params: Mapping[str, Any], label: str | None = None) -> dict[str, Any]:
    """``params`` (text or already typed) typed by agent ``name``'s constructor for ``game``;
    an unknown agent or parameter, or a value that does not fit, is one line naming it."""
    who = f"agent {label or name!r}" + (f" ({name})" if label and label != name else "")
    known, _ = _class_parameters(type(_build(name, game, {})))
    typed: dict[str, Any] = {}
    rest = dict(params)
    for key in [k for k in rest if k in known]:
        typed[key] = coerce(rest.pop(key), known[key].annotation, f"{who}: parameter {key}", known[key].default)
    if rest:  # parameters a wrapped agent takes: build with what is known, then look inside
        known = agent_parameters(_build(name, game, typed))
        for key in list(rest):
            if key not in known:
                names = ", ".join(sorted(known)) or "none"
                raise InvalidConfig(f"{who}: parameter {key}", rest[key], f"no such parameter; it takes: {names}")
            typed[key] = coerce(rest.pop(key), known[key].annotation, f"{who}: parameter {key}", known[key].default)
    return typed


# -- game configuration ----------------------------------------------------------------------

def parse_config(game: str, items: Sequence[str], flag: str = "--config") -> dict[str, Any]:
    """``KEY=VALUE`` strings as the fields of ``game``'s config dataclass, each typed by its
    field (``refute_all=yes`` is ``True``, ``suspects=A,B,C`` a tuple)."""
    from deduce.games import game_class

    cls = game_class(game).config_class
    fields = {f.name: f for f in dataclasses.fields(cls)}
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        hints = {}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidConfig(flag, item, "expected KEY=VALUE")
        if key not in fields:
            raise UnknownName(f"{flag} {key}: {game} has no such setting; known: {', '.join(sorted(fields))}")
        f = fields[key]
        default = f.default if f.default is not dataclasses.MISSING else None
        out[key] = parse_config_value(text, hints.get(key, Any), f"{flag} {key}", default)
    return out


def parse_config_value(text: str, annotation: Any, where: str, default: Any = None) -> Any:
    """One ``--config`` value: a sequence field takes ``a,b,c`` (or a bracketed list)."""
    origin = typing.get_origin(annotation)
    if origin in (tuple, list) and not text.strip().startswith(("[", "(")):
        text = "[" + ",".join(_quote(t) for t in split_top(text)) + "]"
    return coerce(text, annotation, where, default)


def _quote(item: str) -> str:
    """A bare list item as a JSON value: ``a:4`` is the pair ``["a", 4]``."""
    item = item.strip()
    if ":" in item and not item.startswith(("[", "(", '"')):
        return "[" + ",".join(_quote(p) for p in item.split(":")) + "]"
    try:
        json.loads(item)
        return item
    except ValueError:
        return json.dumps(item)


# -- typing one value ------------------------------------------------------------------------

def coerce(value: Any, annotation: Any, where: str, default: Any = None) -> Any:
    """``value`` (text from the command line, or already a Python value) as ``annotation``;
    :class:`InvalidConfig` naming ``where`` when it does not fit. Unannotated parameters take
    the type of their default, and with neither the text is read as a JSON literal."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        if default is None or isinstance(default, str):
            return _literal(value) if default is None else value
        annotation = type(default)
    try:
        return _coerce(value, annotation)
    except (ValueError, TypeError) as exc:
        raise InvalidConfig(where, value, str(exc) or f"expected {_type_name(annotation)}") from None


def _literal(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    low = value.strip().casefold()
    if low in _TRUE - {"1"} or low in _FALSE - {"0"}:
        return low in _TRUE
    if low in _NONE:
        return None
    try:
        return json.loads(value)
    except ValueError:
        return value


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def _coerce(value: Any, annotation: Any) -> Any:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        if isinstance(value, str) and value.strip().casefold() in _NONE and type(None) in args:
            return None
        if value is None and type(None) in args:
            return None
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(value, arg)
            except (ValueError, TypeError):
                continue
        raise ValueError(f"expected {' or '.join(_type_name(a) for a in args)}")
    if origin is typing.Literal:
        for choice in args:
            if value == choice or (isinstance(value, str) and str(choice) == value.strip()):
                return choice
        raise ValueError(f"expected one of {', '.join(map(str, args))}")
    if origin in (tuple, list, Sequence):
        items = _sequence(value)
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if len(items) != len(args):
                raise ValueError(f"expected {len(args)} values, got {len(items)}")
            return tuple(_coerce(v, a) for v, a in zip(items, args, strict=True))
        inner = args[0] if args else Any
        typed = [v if inner is Any else _coerce(v, inner) for v in items]
        return tuple(typed) if origin is tuple else typed
    if annotation is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().casefold()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError("expected true or false (yes/no, 1/0)")
    if annotation is int:
        if isinstance(value, bool):
            raise ValueError("expected a whole number")
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise ValueError("expected a whole number") from None
    if annotation is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        try:
            return float(str(value).strip())
        except ValueError:
            raise ValueError("expected a number") from None
    if annotation is str:
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
        raise ValueError("expected text")
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        for member in annotation:
            if value in (member, member.value, member.name) or str(member.value) == str(value):
                return member
        raise ValueError(f"expected one of {', '.join(str(m.value) for m in annotation)}")
    if isinstance(annotation, type) and not isinstance(value, annotation):
        if isinstance(value, str):
            return _literal(value)
    return value


def _sequence(value: Any) -> list[Any]:
    """A list from ``[a, b]`` / ``(a, b)`` text (JSON, or bare words), or from a sequence."""
    if isinstance(value, list | tuple):
        return list(value)
    text = str(value).strip()
    if text.startswith("(") and text.endswith(")"):
        text = "[" + text[1:-1] + "]"
    if text.startswith("[") and text.endswith("]"):
        try:
            loaded = json.loads(text)
        except ValueError:
            loaded = [_literal(t.strip()) for t in split_top(text[1:-1]) if t.strip()]
        return list(loaded)
    return [_literal(t.strip()) for t in split_top(text) if t.strip()]

