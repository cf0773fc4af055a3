"""``deduce solve LOG.json``: the detective's notebook for one player's view of a game.

``--config KEY=VALUE`` sets a game setting the log's header records (Clue's ``refute_all``,
Mafia Code's ``expert``...), typed by the game's config field with the grammar every
subcommand shares (:mod:`deduce.cli.options`); it overrides what the file says.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import functools
import json
import re
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from deduce.apps.assist.text import cell_text, count_text, exact_digits
from deduce.errors import DeduceError, InvalidConfig, NotSupported, TooLarge
from deduce.games.registry import game_info
from deduce.logs import load_log, read_log

__all__ = [
    "register", "notebook_json", "render_notebook", "explain_card", "log_formats", "config_header",
    "logged_settings", "with_config", "add_budget_option", "budget_of",
]


# -- --config ----------------------------------------------------------------------------------
def _jsonable(value: Any) -> Any:
    """A typed config value as the JSON a log header holds (tuples as lists, enums by value)."""
    if isinstance(value, enum.Enum):
        return _jsonable(value.value)
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


@functools.cache
def logged_settings(game: str) -> tuple[str, ...]:
    """The config fields a log of ``game`` records in its header, under the field's own name:
    found by reading a fresh game's exported header with each field added, so the list follows
    the log readers rather than a second copy of their keys."""
    from deduce.games.registry import make
    from deduce.logs import export_log

    fresh = make(game)
    header = {**export_log(fresh, fresh.new_initial_state(0).observation(0)), "events": []}
    codec = game_info(game).log
    assert codec is not None
    found = []
    for f in dataclasses.fields(fresh.config):
        value = getattr(fresh.config, f.name)
        try:
            parsed, _ = codec.parse({**header, f.name: _jsonable(value)})
        except (DeduceError, ValueError, TypeError):
            continue
        if getattr(parsed.config, f.name) == value:
            found.append(f.name)
    return tuple(found)


def _typed_config(game: str, items: Sequence[str]) -> dict[str, Any]:
    """``--config`` typed by ``game``'s config fields, each one a setting its log records."""
    from deduce.cli.options import parse_config

    typed = parse_config(game, items)
    recorded = logged_settings(game) if typed else ()
    for key, value in typed.items():
        if key not in recorded:
            raise InvalidConfig(
                f"--config {key}", value,
                f"a {game} log does not record this setting; the settings it records: {', '.join(recorded) or 'none'}",
            )
    return typed


def config_header(game: str, items: Sequence[str]) -> dict[str, Any]:
    """``--config KEY=VALUE`` items as log header keys of ``game`` (JSON values): an unknown
    field, a value its field does not take, or a setting the log does not record is one line
    naming it."""
    return {k: _jsonable(v) for k, v in _typed_config(game, items).items()}


def with_config(data: Mapping[str, Any], items: Sequence[str]) -> dict[str, Any]:
    """The log ``data`` with ``--config`` items set in its header, checked by reading it: the
    game it describes has each setting (or the log's error, naming the log, is raised)."""
    game = data.get("game")
    if not items:
        return dict(data)
    if not isinstance(game, str):
        read_log(data)  # the header's own error
    typed = _typed_config(str(game), items)
    out = {**{k: v for k, v in data.items() if k != "events"}, **{k: _jsonable(v) for k, v in typed.items()}}
    out["events"] = data.get("events", [])
    parsed, _ = read_log(out)
    for key, value in typed.items():
        if getattr(parsed.config, key) != value:  # pragma: no cover - logged_settings checked the reading
            raise InvalidConfig(f"--config {key}", value, f"the log reads it as {getattr(parsed.config, key)!r}")
    return out


def log_formats() -> str:
    """Each game's player-view log format, from the example at the top of its log module's
    documentation, with the example log of ``examples/``."""
    import inspect

    from deduce.games.registry import game_names

    parts = ["A log is one JSON object: the game, the players, who 'me' is, and the events one player saw."]
    for name in game_names():
        log = game_info(name).log
        doc = inspect.getdoc(log) or "" if log is not None else ""
        block = re.search(r"```\n(.*?)```", doc, re.S)
        if block is None:
            continue
        body = "\n".join("    " + line for line in block.group(1).rstrip().splitlines())
        parts.append(f"{name} (e.g. examples/{name}-*.json; docs/games.md has the details):\n{body}")
    return "\n\n".join(parts)


class _FormatsHelp(argparse.Action):
    """``deduce solve --help``: the options, then every game's log format."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        parser.print_help()
        print()
        print(log_formats())
        parser.exit()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve", help="print the detective's notebook for a game log", add_help=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-h", "--help", action=_FormatsHelp, help="show this help and every game's log format")
    p.add_argument("log", help="game log (JSON file; '-' reads standard input)")
    p.add_argument("--solver", default="auto", help="backend: auto, exact, split, cpsat, csp, brute, or any registered name (default auto)")
    p.add_argument("--json", action="store_true", help='print {"worlds": N, "probabilities": {card: {location: p}}}')
    p.add_argument("--fractions", action="store_true", help="print exact fractions instead of decimals")
    p.add_argument("--top", type=int, default=10, help="how many envelope candidates to list (default 10)")
    p.add_argument("--why", metavar="CARD", help="explain why CARD must or cannot be where it is (a prefix will do)")
    add_budget_option(p, "all the counting of this command")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a game setting the log's header records, typed by the game's config field "
                   "(repeatable; e.g. --config refute_all=yes); it overrides the file")
    p.set_defaults(func=run)


def add_budget_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--budget STEPS``, the work budget ``solve`` and ``assist`` share (:mod:`solvers.budget`)."""
    p.add_argument("--budget", type=int, default=None, metavar="STEPS",
                   help=f"work budget for {what}, in counted steps, never seconds (default 20,000,000, about 10 s; 0: none); "
                        "a log that needs more is refused as too large")


def budget_of(args: argparse.Namespace) -> int:
    """The ``--budget`` given (its default when none was), checked: 0 or more steps."""
    from solvers.budget import DEFAULT_BUDGET

    budget = DEFAULT_BUDGET if getattr(args, "budget", None) is None else args.budget
    if budget < 0:
        raise InvalidConfig("--budget", budget, "a work budget is a number of steps, 0 or more")
    return budget


def run(args: argparse.Namespace) -> int:
    from solvers.budget import metered, refusal

    budget = budget_of(args)
    if not budget:
        return _run(args)
    try:
        with metered(budget):
            return _run(args)
    except TooLarge as exc:
        raise refusal(budget, exc) from None


def _run(args: argparse.Namespace) -> int:
    source: Any = args.log
    if source == "-":
        source = sys.stdin.read()
        if not source.lstrip().startswith("{"):
            from deduce.errors import LogError

            raise LogError("standard input: a log must be a JSON object")
    if getattr(args, "config", None):
        from deduce.logs import decode_log  # the bounded reader read_log uses

        source = with_config(decode_log(source), args.config)
    import solvers  # lazy: the other commands start without loading the backends

    solver = solvers.get(args.solver)
    game, _ = read_log(source)
    if not solver.can_count:
        raise NotSupported(
            f"the {solver.name} backend samples deals but cannot count them, and the notebook needs counts; "
            "choose a counting backend (auto, exact, split, ...)"
        )
    try:
        kb = load_log(source, check=solver)
    except NotImplementedError:
        raise NotSupported(f"the {solver.name} backend cannot check a {game.name} log") from None
    relaxed = game.knowledge_relaxed
    if args.why:
        print(explain_card(source, kb, args.why, solver))
        return 0
    try:
        tally = solver.tallies(kb)
    except (NotSupported, NotImplementedError):
        raise NotSupported(
            f"the {solver.name} backend cannot count the deals of this log exactly (its cards move between "
            "epochs); 'deduce assist' shows which places each card may still be in"
        ) from None
    if args.json:
        out = notebook_json(kb, tally, fractions=args.fractions)
        out["exact"] = relaxed is None
        if relaxed:
            out["approximate"] = relaxed
        with exact_digits():  # the exact count, however many digits it has
            print(json.dumps(out))
        return 0
    answer = kb.loc("envelope") if "envelope" in kb.locations else None
    dist = solver.solution_counts(kb, answer) if answer is not None else {}
    with exact_digits():  # --fractions writes exact ratios of such counts
        print(render_notebook(kb, tally, dist, fractions=args.fractions, top=args.top, solver=solver.name,
                              relaxed=relaxed))
    return 0


class _Explainer:
    """Possible locations from the chosen backend; cores from one that has them (CP-SAT)."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver
        import solvers

        self.cores = solver if solver.can_explain else solvers.get("cpsat")

    def possible(self, kb: Any) -> Any:
        return self.solver.possible(kb)

    def core(self, kb: Any) -> list[int]:
        return self.cores.core(kb)

    def consistent(self, kb: Any) -> bool:
        return self.cores.consistent(kb)


def explain_card(source: Any, kb: Any, card: str, solver: Any) -> str:
    """Why ``card`` is where it is, with events worded by the game's text module if it has one."""
    from deduce.apps.assist.text import match_name
    from deduce.explain import why
    from deduce.logs import read_log

    name = match_name(card, [c.name for c in kb.deck], "card")
    game, obs = read_log(source)
    wording = game_info(game.name).wording
    phrase = wording(game).phraser(game, obs.events) if wording is not None else None
    return why(kb, kb.deck.card(name).id, _Explainer(solver), phrase)


def notebook_json(kb, tally, fractions: bool = False) -> dict[str, Any]:
    """``{"worlds": N, "probabilities": {card: {location: p}}}`` (p as "a/b" strings with fractions)."""
    probs: dict[str, dict[str, Any]] = {}
    for card in kb.deck:
        row = {}
        for z, loc in enumerate(kb.locations):
            f = Fraction(tally.cells[card.id][z], tally.total) if tally.total else Fraction(0)
            row[loc] = str(f) if fractions else float(f)
        probs[card.name] = row
    return {"worlds": tally.total, "probabilities": probs}


def render_notebook(
    kb, tally, dist: dict, fractions: bool = False, top: int = 10, solver: str = "", relaxed: str | None = None
) -> str:
    """The notebook as text: worlds, the envelope's most likely contents, and the card grid;
    ``relaxed`` (the game's reason its knowledge base is only a relaxation) labels the counts
    approximate."""
    if relaxed:
        lines = [f"{count_text(tally.total)} deals of a simplified model ({solver}; approximate: {relaxed})"]
    else:
        lines = [f"{count_text(tally.total)} consistent deals ({solver}, exact)"]
    if tally.total == 0:
        lines.append("the log is contradictory: no deal fits it")
        return "\n".join(lines)
    if dist:
        total = sum(dist.values())
        ranked = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append("")
        lines.append(f"envelope: {len(dist)} possible answers; most likely:")
        for cards, count in ranked[:top]:
            p = str(Fraction(count, total)) if fractions else f"{100 * count / total:6.2f}%"
            lines.append(f"  {p:>10}  {', '.join(kb.deck.names(cards))}")
    width = max(len(c.name) for c in kb.deck)
    cols = [max(len(z), 5) for z in kb.locations]
    lines.append("")
    lines.append(" " * width + "  " + "  ".join(z.rjust(w) for z, w in zip(kb.locations, cols, strict=True)))
    category = None
    for card in kb.deck:
        if card.category != category:
            category = card.category
            lines.append(f"-- {category}")
        cells = [cell_text(tally.cells[card.id][z], tally.total, fractions) for z in range(kb.num_locations)]
        lines.append(card.name.ljust(width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, cols, strict=True)))
    return "\n".join(lines)
