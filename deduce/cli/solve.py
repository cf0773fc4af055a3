"""``deduce solve LOG.json``: the detective's notebook for one player's view of a game."""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from typing import Any

from deduce.apps.assist.text import cell_text
from deduce.errors import NotSupported
from deduce.games.registry import game_info
from deduce.logs import load_log, read_log

__all__ = ["register", "notebook_json", "render_notebook", "explain_card", "log_formats"]


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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    source: Any = args.log
    if source == "-":
        source = sys.stdin.read()
        if not source.lstrip().startswith("{"):
            from deduce.errors import LogError

            raise LogError("standard input: a log must be a JSON object")
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
        print(json.dumps(out))
        return 0
    answer = kb.loc("envelope") if "envelope" in kb.locations else None
    dist = solver.solution_counts(kb, answer) if answer is not None else {}
    print(render_notebook(kb, tally, dist, fractions=args.fractions, top=args.top, solver=solver.name, relaxed=relaxed))
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
        lines = [f"{tally.total} deals of a simplified model ({solver}; approximate: {relaxed})"]
    else:
        lines = [f"{tally.total} consistent deals ({solver}, exact)"]
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
