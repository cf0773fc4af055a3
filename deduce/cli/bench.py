"""``deduce bench solvers``: every chosen backend against a game's corpus of hard states.

The corpus is a folder of knowledge-base JSON files, one subfolder per game
(``<corpus>/<game>/*.json``), found by ``benchmarks/hard_states/find.py`` (the slowest states
of seeded random play). It is data, not code, so it is not shipped inside the wheel: ``--corpus``
names the folder, and without it the command looks for ``benchmarks/hard_states`` in the current
directory and then in the checkout the package was installed from (an editable install).

Each backend runs in a forked worker process (so a backend that takes minutes is stopped at
``--timeout`` and its worker restarted; the first query is run once untimed to leave one-off
costs such as compiling kernels out of the figures), each query is repeated ``--runs`` times, and its median is reported; ratios are medians of
per-state ratios to the first backend, over the states both answered, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from deduce.errors import DeduceError, InvalidConfig
from deduce.knowledge import KnowledgeBase

__all__ = [
    "register",
    "HardState",
    "find_corpus",
    "load_states",
    "save_state",
    "bench_solvers",
    "format_table",
    "CORPUS_ENV_HINT",
    "Worker",
]

#: where the repository keeps the corpus, relative to a checkout
CORPUS_IN_CHECKOUT = Path("benchmarks") / "hard_states"
CORPUS_ENV_HINT = "pass --corpus DIR (the repository's benchmarks/hard_states folder)"
#: the query each backend answers: counting backends count, the others list possible cells
QUERIES = ("auto", "tallies", "possible", "marginals", "consistent")


class CorpusNotFound(DeduceError, FileNotFoundError):
    """No corpus folder for the game asked for."""


@dataclass(frozen=True)
class HardState:
    """One stored state: where it came from (game, seed, step, seat) and its knowledge."""

    name: str
    game: str
    kb: KnowledgeBase
    meta: dict[str, Any]


def save_state(folder: Path, name: str, game: str, kb: KnowledgeBase, meta: dict[str, Any]) -> Path:
    """Write one hard state as ``folder/name.json`` (the format :func:`load_states` reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"name": name, "game": game, "meta": meta, "knowledge": kb.to_json()}, sort_keys=True))
    return path


def find_corpus(corpus: str | Path | None, game: str) -> Path:
    """The folder holding ``game``'s hard states (see the module docstring for the search)."""
    if corpus is not None:
        candidates = [Path(corpus)]
    else:
        import deduce

        candidates = [Path.cwd() / CORPUS_IN_CHECKOUT, Path(deduce.__file__).resolve().parents[1] / CORPUS_IN_CHECKOUT]
    for root in candidates:
        if (root / game).is_dir():
            return root / game
    if corpus is not None:
        raise CorpusNotFound(f"--corpus={corpus}: no folder {game}/ of hard states in it")
    raise CorpusNotFound(f"no corpus of hard states for {game} found; {CORPUS_ENV_HINT}")


def load_states(folder: Path, limit: int | None = None) -> list[HardState]:
    """The states stored in ``folder``, in name order (the first ``limit`` of them)."""
    out = []
    for path in sorted(folder.glob("*.json"))[:limit]:
        try:
            data = json.loads(path.read_text())
            kb = KnowledgeBase.from_json(data["knowledge"])
        except (ValueError, KeyError) as exc:
            raise InvalidConfig("corpus", str(path), f"not a hard-state file ({exc})") from None
        out.append(HardState(data.get("name", path.stem), data.get("game", folder.name), kb, data.get("meta", {})))
    return out


# -- running ---------------------------------------------------------------------------------------
@dataclass
class BackendResult:
    """One backend's answers over the corpus: seconds per state (None: refused / timed out)."""

    backend: str
    query: str
    seconds: list[float | None] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)


def _query_for(solver: Any, query: str) -> str:
    """auto: exact counts where the backend counts, estimated marginals from a sampler, else
    the possible cells."""
    if query != "auto":
        return query
    if solver.can_count:
        return "tallies"
    return "possible" if solver.exact else "marginals"


def _answer(solver: Any, query: str, kb: KnowledgeBase) -> Any:
    out = getattr(solver, query)(kb)
    if query == "tallies":
        return {"total": out.total, "cells": [list(r) for r in out.cells]}
    if query == "possible":
        return np.asarray(out, dtype=bool).tolist()
    if query == "marginals":
        return np.round(np.asarray(out, dtype=float), 6).tolist()
    return bool(out)


def _timed_runs(backend: str, query: str, kb: KnowledgeBase, runs: int) -> tuple[str, float | None, Any]:
    """(outcome, median seconds, answer) of ``runs`` repetitions in this process."""
    import solvers
    from deduce.errors import NotSupported

    try:
        times, answer = [], None
        for _ in range(runs):
            solver = solvers.get(backend)  # a fresh backend per run: no answer cached from the last one
            t0 = time.perf_counter()
            answer = _answer(solver, query, kb)
            times.append(time.perf_counter() - t0)
    except NotSupported as exc:  # TooLarge included
        return f"refused: {exc}", None, None
    except NotImplementedError:
        return "refused: query not implemented", None, None
    return "ok", statistics.median(times), answer


def _serve(conn: Any, backend: str) -> None:
    """A worker for one backend: answers (query, kb, runs) requests until told to stop. The first
    request is run once untimed first, so one-off costs (compiling kernels) stay out of the
    figures."""
    warm = False
    while True:
        request = conn.recv()
        if request is None:
            break
        query, kb, runs = request
        try:
            if not warm:
                warm = True
                _timed_runs(backend, query, kb, 1)
            conn.send(_timed_runs(backend, query, kb, runs))
        except Exception as exc:  # reported as the state's outcome, never lost
            conn.send((f"error: {type(exc).__name__}: {exc}", None, None))
    conn.close()


class Worker:
    """A forked process running one backend, restarted after a query it had to abandon."""

    def __init__(self, backend: str) -> None:
        import multiprocessing

        self.backend = backend
        self.ctx = multiprocessing.get_context("fork")
        self.proc: Any = None

    def ask(self, query: str, kb: KnowledgeBase, runs: int, timeout: float) -> tuple[str, float | None, Any]:
        if self.proc is None:
            self.conn, child = self.ctx.Pipe()
            self.proc = self.ctx.Process(target=_serve, args=(child, self.backend), daemon=True)
            self.proc.start()
            child.close()
        self.conn.send((query, kb, runs))
        if self.conn.poll(timeout):
            return self.conn.recv()
        self.close(kill=True)
        return f"timeout after {timeout:g} s", None, None

    def close(self, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.conn.send(None)
        self.proc.join()
        self.conn.close()
        self.proc = None


def bench_solvers(
    states: list[HardState], backends: list[str], query: str = "auto", runs: int = 3, timeout: float = 10.0
) -> list[BackendResult]:
    """Every backend on every state (each in a child process, median of ``runs``)."""
    import solvers

    if query not in QUERIES:
        raise InvalidConfig("query", query, f"one of {', '.join(QUERIES)}")
    if runs < 1:
        raise InvalidConfig("runs", runs, "at least 1")
    results = []
    for name in backends:
        solver = solvers.get(name)  # an unknown name fails here, before any work
        res = BackendResult(name, _query_for(solver, query))
        worker = Worker(name)
        try:
            for st in states:
                outcome, secs, answer = worker.ask(res.query, st.kb, runs, timeout)
                res.outcomes.append(outcome)
                res.seconds.append(secs)
                res.answers.append(answer)
        finally:
            worker.close()
        results.append(res)
    return results


def summary(results: list[BackendResult]) -> list[dict[str, Any]]:
    """Per backend: answered / total, median and max seconds, the median ratio to the first
    backend and how many answers differ from the first backend's (same query only)."""
    base = results[0]
    rows = []
    for res in results:
        done = [s for s in res.seconds if s is not None]
        ratios = [s / b for s, b in zip(res.seconds, base.seconds, strict=True) if s is not None and b]
        comparable = res.query == base.query
        differ = sum(
            1
            for a, b in zip(res.answers, base.answers, strict=True)
            if comparable and a is not None and b is not None and a != b
        )
        rows.append(
            {
                "backend": res.backend,
                "query": res.query,
                "answered": len(done),
                "states": len(res.seconds),
                "median_ms": 1e3 * statistics.median(done) if done else None,
                "max_ms": 1e3 * max(done) if done else None,
                "ratio_to_first": statistics.median(ratios) if ratios else None,
                "differs_from_first": differ if comparable else None,
                "refused": sorted({o.split(":")[0] for o in res.outcomes if o != "ok"}),
            }
        )
    return rows


def format_table(game: str, rows: list[dict[str, Any]], runs: int) -> str:
    """The summary as a text table for people."""

    def ms(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"

    first = rows[0]["backend"]
    lines = [
        f"{game}: {rows[0]['states']} hard states, median of {runs} runs per query; ratio = median per-state "
        f"time ratio to {first}",
        f"{'backend':<14}{'query':<12}{'answered':>10}{'median ms':>12}{'max ms':>12}{'ratio':>9}{'differ':>8}  refused",
    ]
    for r in rows:
        ratio = "—" if r["ratio_to_first"] is None else f"{r['ratio_to_first']:.2f}"
        differ = "—" if r["differs_from_first"] is None else str(r["differs_from_first"])
        lines.append(
            f"{r['backend']:<14}{r['query']:<12}{r['answered']:>5}/{r['states']:<4}{ms(r['median_ms']):>12}"
            f"{ms(r['max_ms']):>12}{ratio:>9}{differ:>8}  {', '.join(r['refused'])}"
        )
    return "\n".join(lines)


# -- the command -----------------------------------------------------------------------------------
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmark solver backends on a corpus of hard states")
    bsub = p.add_subparsers(dest="what", metavar="WHAT")
    s = bsub.add_parser("solvers", help="time backends on one game's hard states")
    s.add_argument("--game", required=True, help="game name (clue, alibi, mafia-code, ...)")
    s.add_argument("--backends", default="auto", help="comma-separated backend names (default auto); the first is the reference")
    s.add_argument("--corpus", help="folder with one subfolder of knowledge-base JSON files per game")
    s.add_argument("--query", default="auto", choices=QUERIES, help="auto: tallies for counting backends, marginals for samplers, possible for the others")
    s.add_argument("--runs", type=int, default=3, help="repetitions per query; the median is reported (default 3)")
    s.add_argument("--timeout", type=float, default=10.0, help="seconds all runs of one state may take, the untimed warm-up included (default 10)")
    s.add_argument("--limit", type=int, help="only the first N states")
    s.add_argument("--json", action="store_true", help="print the summary and per-state times as JSON")
    s.set_defaults(func=run)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run(args: argparse.Namespace) -> int:
    from deduce.games.registry import game_info

    game_info(args.game)  # an unknown game name fails with the list of games
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends:
        raise InvalidConfig("backends", args.backends, "name at least one backend")
    states = load_states(find_corpus(args.corpus, args.game), args.limit)
    if not states:
        raise CorpusNotFound(f"the corpus folder for {args.game} holds no states")
    results = bench_solvers(states, backends, args.query, args.runs, args.timeout)
    rows = summary(results)
    if args.json:
        per_state = {
            r.backend: [{"state": st.name, "outcome": o, "seconds": s} for st, o, s in zip(states, r.outcomes, r.seconds, strict=True)]
            for r in results
        }
        print(json.dumps({"game": args.game, "runs": args.runs, "summary": rows, "states": per_state}))
    else:
        print(format_table(args.game, rows, args.runs))
    return 0
