"""Find each game's hard states: the slowest views of seeded random play, saved as knowledge-base JSON.

    python -m benchmarks.hard_states.find [--games alibi,clue,...] [--plays 6] [--views 200]
        [--keep 0.01] [--min-keep 4] [--timeout 20] [--seed 1]

For every game (the configurations in :data:`CONFIGS`), ``--plays`` games of uniformly random
legal play (one seeded generator per game; Alibi never accuses, so games reach late rounds) are
played; at ``--views`` decision points spread over them, a seat's view (or, one time in four, the
spectator's) is timed: building the knowledge base and answering the query ``auto`` answers for
it (``tallies``; ``possible`` where no backend counts), in a forked worker stopped at
``--timeout``. The slowest ``--keep`` fraction (at least ``--min-keep``) is written to
``benchmarks/hard_states/<game>/`` with where it came from and the time it took, replacing the
folder's previous corpus. Timed-out views rank slowest. ``--annotate`` then stores the number
of worlds ``auto`` counts in each state it counts within ``--timeout`` (what
``tests/benchmarks/test_hard_states.py`` checks).
"""

from __future__ import annotations

import argparse
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import deduce
from deduce.cli.bench import Worker, save_state
from deduce.games.alibi.rules import Accuse
from deduce.knowledge import KnowledgeBase
from deduce.play import RandomPlayer, play_game

__all__ = ["CONFIGS", "find", "main"]

ROOT = Path(__file__).parent

#: (game name, config fields, label): the configurations the corpus covers
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "clue": [{"num_players": 3}, {"num_players": 6}],
    "alibi": [{"num_players": 4}],
    "alibi-adlung": [{"num_players": 4}],
    "mafia-code": [{"num_players": 3}, {"num_players": 4}],
    "checkpoint-charlie": [{"num_players": 4}],
    "crime-hotel": [{"num_players": 4}, {"num_players": 4, "leftover": "box"}],
}

#: action types random play never chooses, per game (so that games last)
EXCLUDE: dict[str, tuple[type, ...]] = {"alibi": (Accuse,)}


class _Random(RandomPlayer):
    """Random play that skips the excluded action types unless nothing else is legal (Alibi's
    forced accusation after its last round)."""

    def act(self, observation: Any) -> Any:
        actions = [a for a in observation.legal_actions if not isinstance(a, self.exclude)] or observation.legal_actions
        return actions[int(self.rng.integers(len(actions)))]


@dataclass
class Timed:
    """One view: where it came from, its knowledge and the seconds it took (None: timed out)."""

    name: str
    kb: KnowledgeBase
    meta: dict[str, Any]
    seconds: float | None


def _views(name: str, fields: dict[str, Any], plays: int, views: int, seed: int) -> list[tuple[str, KnowledgeBase, dict[str, Any], float]]:
    """Up to ``views`` (name, kb, meta, knowledge seconds) from ``plays`` seeded random games."""
    game = deduce.make(name, **fields)
    rng = np.random.default_rng(seed)
    out: list[tuple[str, KnowledgeBase, dict[str, Any], float]] = []
    per_game = -(-views // plays)
    tag = "-".join(f"{k}{v}" for k, v in sorted(fields.items()) if k != "num_players")
    for g in range(plays):
        decisions: list[tuple[int, Any]] = []

        def note(state: Any, seat: int, obs: Any, decisions: list[tuple[int, Any]] = decisions) -> None:
            decisions.append((len(decisions), state.clone()))

        gseed = int(rng.integers(1 << 31))
        play_game(game, [_Random(gseed, exclude=EXCLUDE.get(name, ()))] * game.num_players, gseed,
                  before_act=note, errors="raise", max_moves=5000)
        if not decisions:
            continue
        picks = sorted(rng.choice(len(decisions), size=min(per_game, len(decisions)), replace=False))
        for i in picks:
            state = decisions[int(i)][1]
            view = None if rng.random() < 0.25 else int(rng.integers(game.num_players))
            t0 = time.perf_counter()
            kb = game.knowledge(state.observation(view))
            secs = time.perf_counter() - t0
            label = f"{game.num_players}p{('-' + tag) if tag else ''}-g{g}-d{int(i)}-{'spec' if view is None else f'p{view}'}"
            meta = {"config": fields, "seed": gseed, "decision": int(i), "view": view}
            out.append((label, kb, meta, secs))
    return out[:views]


def find(name: str, plays: int, views: int, keep: float, min_keep: int, timeout: float, seed: int) -> list[Timed]:
    """The slowest views of ``name`` over its configurations (knowledge + the auto query)."""
    import solvers

    auto = solvers.get("auto")
    worker = Worker("auto")
    timed: list[Timed] = []
    try:
        for fields in CONFIGS[name]:
            for label, kb, meta, kb_secs in _views(name, fields, plays, views, seed):
                query = "tallies"
                try:
                    backend = auto._pick(kb)[0]
                    query = "tallies" if backend.can_count else "possible"
                except Exception:  # no backend: timed as refused below
                    pass
                outcome, secs, _ = worker.ask(query, kb, 1, timeout)
                meta = dict(meta, query=query, outcome=outcome, knowledge_seconds=kb_secs)
                timed.append(Timed(label, kb, meta, None if secs is None else secs + kb_secs))
    finally:
        worker.close()
    timed.sort(key=lambda t: -(t.seconds if t.seconds is not None else float("inf")))
    return timed[: max(min_keep, int(round(keep * len(timed))))]


def annotate(folder: Path, timeout: float = 20.0) -> int:
    """Store in each state's meta the number of worlds ``auto`` counts (``worlds``), where it
    counts within ``timeout``, so a test can tell when an answer changes. Returns how many."""
    import json

    from deduce.cli.bench import load_states

    worker = Worker("auto")
    done = 0
    try:
        for st in load_states(folder):
            outcome, _, answer = worker.ask("tallies", st.kb, 1, timeout)
            if outcome != "ok":
                continue
            path = folder / f"{st.name}.json"
            data = json.loads(path.read_text())
            data["meta"]["worlds"] = answer["total"]
            path.write_text(json.dumps(data, sort_keys=True))
            done += 1
    finally:
        worker.close()
    return done


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(CONFIGS))
    ap.add_argument("--plays", type=int, default=6)
    ap.add_argument("--views", type=int, default=200, help="views timed per configuration")
    ap.add_argument("--keep", type=float, default=0.01)
    ap.add_argument("--min-keep", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT)
    ap.add_argument("--annotate", action="store_true", help="only add the world counts to the stored states")
    args = ap.parse_args(argv)
    for name in args.games.split(","):
        if args.annotate:
            print(f"{name}: {annotate(args.out / name, args.timeout)} states counted", flush=True)
            continue
        t0 = time.perf_counter()
        hard = find(name, args.plays, args.views, args.keep, args.min_keep, args.timeout, args.seed)
        folder = args.out / name
        if folder.exists():
            shutil.rmtree(folder)
        for t in hard:
            save_state(folder, t.name, name, t.kb, dict(t.meta, seconds=t.seconds))
        worst = ", ".join("timeout" if t.seconds is None else f"{t.seconds:.2f} s" for t in hard)
        print(f"{name}: kept {len(hard)} states ({worst}) in {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
