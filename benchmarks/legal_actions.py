"""Cost of Alibi's legal actions (issue 20 B2), for comparing two trees in the same run:
``legal_actions()`` and ``observation()`` on a turn, ``random`` agent games through
``play_game``, and PettingZoo steps (the flat mask, or the factored components).

    python -m benchmarks.legal_actions [--games 5] [--before DIR]

``--before DIR``: a tree of an older commit (``git archive COMMIT deduce agents solvers | tar
-x -C DIR``), measured in a subprocess right after this one; each line then shows both and
their ratio. Times are medians; report them with the load average (``/proc/loadavg``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any


def measure(games: int) -> dict[str, Any]:
    """The figures of the tree this interpreter imports."""
    import numpy as np

    import agents
    from deduce.games.alibi.rules import AlibiGame, Meld
    from deduce.play import play_game

    game = AlibiGame(num_players=4)
    state = game.new_initial_state(1)
    while state.phase != "ask":
        state.apply(Meld(()))
    out: dict[str, Any] = {}

    def timed(fn: Any, repeat: int) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    legal = state.legal_actions()
    out["listed actions on a turn"] = len(legal)
    out["all legal actions on a turn"] = getattr(legal, "total", len(legal))
    out["legal_actions() ms"] = 1e3 * timed(state.legal_actions, 50)
    out["observation() ms"] = 1e3 * timed(lambda: state.observation(state.current_player), 50)
    rng = np.random.default_rng(0)
    agent = agents.get("random", game="alibi")
    agent.reset(game, state.current_player, 0)
    obs = state.observation(state.current_player)
    out["random act ms"] = 1e3 * timed(lambda: agent.act(obs), 200)
    game_times, moves = [], []
    for seed in range(games):
        t = time.perf_counter()
        record = play_game(game, [agents.get("random", game="alibi") for _ in range(4)], seed)
        game_times.append(time.perf_counter() - t)
        moves.append(record.moves if hasattr(record, "moves") else 0)
    out["random 4-player game s"] = statistics.median(game_times)
    try:
        from deduce.apps import pettingzoo as pz
    except ImportError:
        return out
    env = pz.raw_env("alibi")
    env.reset(seed=1)
    env.game_state = state
    composer = getattr(env, "composer", None)
    if composer is None:
        out["alibi action mask on a turn ms"] = 1e3 * timed(lambda: env.actions.mask(state.legal_actions()), 50)
    else:
        def factored() -> None:
            env._paths = None
            composer.options(state.legal_actions(), env._listed_paths(), [])
        out["alibi action mask on a turn ms"] = 1e3 * timed(factored, 50)

    def observe_turn() -> None:
        env._cache.clear()
        if hasattr(env, "_grids"):
            env._grids.clear()
        env._paths = None
        env.observe(f"player_{state.current_player}")

    out["alibi env observe on a turn ms"] = 1e3 * timed(observe_turn, 10)
    for name in ("alibi", "alibi-adlung"):
        env = pz.raw_env(name)
        env.reset(seed=3)
        out[f"{name} env action space"] = int(env.action_space("player_0").n)
        steps, t = 0, time.perf_counter()
        for _agent in env.agent_iter(300):
            o, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(o["action_mask"]))))
            steps += 1
        moves = max(len(env.game_state.events), 1)
        out[f"{name} env steps per engine event"] = steps / moves
        out[f"{name} env ms per engine event"] = 1e3 * (time.perf_counter() - t) / moves
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--before", default=None, help="a tree of an older commit to measure too")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    now = measure(args.games)
    if args.json:
        print(json.dumps(now))
        return
    before: dict[str, Any] = {}
    if args.before:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = "import sys, json, deduce; from benchmarks.legal_actions import measure; " \
               "print(deduce.__file__); print(json.dumps(measure(int(sys.argv[1]))))"
        path = f"{os.path.abspath(args.before)}:{here}"
        run = subprocess.run([sys.executable, "-c", code, str(args.games)], capture_output=True, text=True, cwd=os.path.abspath(args.before),
                             check=False, env={**os.environ, "PYTHONPATH": path})
        if run.returncode:
            raise SystemExit(f"the --before tree failed: {run.stderr.strip().splitlines()[-1]}")
        where, figures = run.stdout.strip().splitlines()[-2:]
        print(f"before: {where}")
        before = json.loads(figures)
    with open("/proc/loadavg") as f:
        print(f"load average: {f.read().split()[:3]}")
    for key, value in now.items():
        old = before.get(key)
        if old is None:
            print(f"{key:38s} {value:>12.4g}")
        else:
            ratio = f"  x{value / old:.2f}" if isinstance(old, int | float) and old else ""
            print(f"{key:38s} {value:>12.4g}   before {old:>12.4g}{ratio}")


if __name__ == "__main__":
    main()
