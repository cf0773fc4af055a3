"""OpenSpiel's ISMCTS, with deduce's exact resampling, against ``racer`` and ``infogain`` on Clue.

``python -m benchmarks.openspiel`` plays ``--runs`` seeded tournaments (``deduce.Tournament``,
serial backend, duplicate deals: every rotation of the seats replays each deal) of
``openspiel-ismcts:max_simulations=N`` against ``racer`` and ``infogain`` at ``--players``
Clue (3 by default; the third and later seats repeat the deduce agents), and prints per agent
its seats, wins, the win rate with its Wilson interval over seats, the mean score with its
bootstrap interval over deals, and seconds per decision, for each run, then the median over the
runs of the win rates and of the seconds per decision. ``--simulations`` (default 20),
``--games`` per run (default 6: two deals in three seatings), ``--runs`` (default 3), ``--seed``,
``--json``. Needs the ``openspiel`` and ``tournament`` extras. Seconds are wall clock on this
machine and only comparable within one run.

``--exploitability`` instead measures, with OpenSpiel's ``exploitability.nash_conv``, how far
each of ``--agents`` (default random, racer, infogain) is from equilibrium when it plays every
seat of a Clue small enough to traverse (:data:`SMALL`: two cards per category, one card per
hand, one turn; refutations are forced, so only the first seat decides and NashConv is what a
best response gains for it over the agent).

``--game mafia-code`` (or another sampled game) instead plays OpenSpiel's own loop on the
registered game: ``ISMCTSBot`` searching the true state, which it reaches only through
``resample_from_infostate`` (exact for Mafia Code, approximate elsewhere: see
``deduce.apps.openspiel.resample.RESAMPLING``), against ``--rivals`` (default: Mafia Code's
``guess-chain`` and ``greedy``) as ``AgentBot``s, ``--deals`` deals each played in every
rotation of the seats (duplicate deals: the deal's seed outcome is the same in each rotation),
with the same per-agent table (wins are shared wins too: a tie pays every sharer).

``--resample-error`` measures each game's resampler against the exact marginals of the
player's knowledge base (``solvers.get("auto").marginals``) at a seeded position (``--moves``
random moves into the game, resampling for the seat after the mover): over ``--samples``
resamples, the total-variation distance between each unsettled card's resampled location
frequencies and its exact marginal (of the time-indexed knowledge base where a game has one
for its exact posterior: Alibi (Adlung)), mean and largest over the cards
(``deduce.apps.openspiel.resample.total_variation``), and the seconds per resample; for every
game whose resampler is not the walk alone, the same figures for the approximate walk they used before
(``resample.walk``), at the same position in the same run; and the noise floor: the same
figure for as many draws of each card from its own exact marginal (what sampling noise alone
gives at this sample size). The header line gives the load average. (The board rows have no
walk: the engine's hidden variants replay its own dice, which are the adapter's chance nodes.) The Clue on the board rows
(``--game python_deduce_clue_board`` or ``..._intrigue``, three players) reach their position
without accusations, entering a room and suggesting whenever a move can.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["SMALL", "measure", "measure_sampled", "resample_error", "nash_conv", "main"]

#: the sampled games whose resamplers ``--resample-error`` measures, with their positions' depth
RESAMPLED = {"mafia-code": 20, "alibi": 20, "alibi-adlung": 30, "crime-hotel": 30, "checkpoint-charlie": 6,
             "python_deduce_clue_board": 150}

#: the board registrations' positions are reached without accusations, entering a room and
#: suggesting whenever a move can (random moves on the board rarely reach a room)
BOARD = ("python_deduce_clue_board", "python_deduce_clue_intrigue")

#: the Clue that OpenSpiel's exploitability tools can traverse (a few thousand states)
SMALL = {"suspects": '["Plum", "Green"]', "weapons": '["Rope", "Knife"]', "rooms": '["Hall", "Study"]', "max_turns": 1}


def nash_conv(agent: str, seed: int = 0) -> dict[str, Any]:
    """OpenSpiel's NashConv of ``agent`` in every seat of the :data:`SMALL` Clue."""
    from open_spiel.python.algorithms import exploitability

    import agents
    from deduce.apps.openspiel import load_game
    from deduce.apps.openspiel.bots import AgentPolicy

    game = load_game("clue", **SMALL)
    policy = AgentPolicy(game, lambda: agents.get(agent, game="clue"), seed=seed)
    got = exploitability.nash_conv(game, policy, return_only_nash_conv=False)
    return {"agent": agent, "nash_conv": float(got.nash_conv),
            "improvements": [float(x) for x in got.player_improvements]}


def measure(players: int, simulations: int, games: int, seed: int) -> list[dict[str, Any]]:
    """One tournament: a row per agent (see the module docstring)."""
    from deduce.apps.openspiel import register_agents
    from deduce.apps.tournament import Tournament
    from deduce.apps.tournament.stats import agent_table

    register_agents()
    rivals = ["racer", "infogain"]
    entrants: list[Any] = [("openspiel-ismcts", {"max_simulations": simulations})]
    entrants += [rivals[i % 2] for i in range(players - 1)]
    results = Tournament("clue", entrants, games=games, seed=seed, players=players, backend="serial",
                         duplicate=True, progress=False).run()
    table = agent_table(results.games, seed=seed)
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in table.to_dict("records")]


def measure_sampled(game_name: str, rivals: Sequence[str], simulations: int, deals: int,
                    seed: int) -> list[dict[str, Any]]:
    """OpenSpiel ISMCTS against deduce agents in OpenSpiel's own loop on a sampled-chance game
    (see the module docstring): a row per agent, as :func:`measure` gives."""
    import time

    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    import agents
    from deduce.apps.openspiel import load_game
    from deduce.apps.openspiel.bots import AgentBot
    from deduce.apps.openspiel.chance import SeedDeal
    from deduce.apps.openspiel.game import dealt
    from deduce.apps.openspiel.resample import resample
    from deduce.apps.tournament.stats import mean_ci, wilson

    entrants = ["openspiel-ismcts", *rivals]
    game = load_game(game_name, players=len(entrants))
    n = game.num_players()
    rng = np.random.default_rng(seed)
    wins = {a: [] for a in entrants}
    by_deal: dict[str, list[list[float]]] = {a: [] for a in entrants}
    seconds = {a: [0.0, 0] for a in entrants}
    for _ in range(deals):
        deal_seed = SeedDeal.draw(rng)  # the same deal in every rotation
        for a in entrants:
            by_deal[a].append([])
        for rotation in range(n):
            seat_of = {a: (i + rotation) % n for i, a in enumerate(entrants)}
            bots: list[Any] = [None] * n
            for a, seat in seat_of.items():
                bot_seed = int(rng.integers(2**31))
                if a == "openspiel-ismcts":
                    search_rng = np.random.default_rng(bot_seed)
                    random_state = np.random.RandomState(bot_seed)
                    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state), 2.0, simulations,
                                           random_state=random_state)
                    bot.set_resampler(lambda st, pl, r=search_rng: resample(st, pl, r))
                else:
                    bot = AgentBot(agents.get(a, game=game.deduce.name), seat, bot_seed)
                bots[seat] = bot
            state = dealt(game, deal_seed)
            for bot in bots:
                if isinstance(bot, AgentBot):  # ISMCTSBot keeps no state between games
                    bot.restart_at(state)
            while not state.is_terminal():
                if state.is_chance_node():  # the dice on Clue's board
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                    continue
                seat = state.current_player()
                who = next(a for a, s in seat_of.items() if s == seat)
                start = time.perf_counter()
                action = bots[seat].step(state)
                seconds[who][0] += time.perf_counter() - start
                seconds[who][1] += 1
                state.apply_action(action)
            returns = state.returns()
            for a, seat in seat_of.items():
                wins[a].append(returns[seat])
                by_deal[a][-1].append(returns[seat])
    rows = []
    for a in entrants:
        won = int(sum(wins[a]))
        lo, hi = wilson(won, len(wins[a]))
        score, score_lo, score_hi = mean_ci([float(np.mean(d)) for d in by_deal[a]], seed=seed)
        rows.append({"agent": a, "seats": len(wins[a]), "wins": won, "win_rate": won / len(wins[a]),
                     "win_lo": lo, "win_hi": hi, "score": score, "score_lo": score_lo, "score_hi": score_hi,
                     "deals": deals, "sec_per_move": seconds[a][0] / max(seconds[a][1], 1)})
    return rows


def resample_error(game_name: str, moves: int, samples: int, seed: int, walk: bool = True) -> dict[str, Any]:
    """How far one game's resampler is from the exact marginals (see the module docstring); with
    ``walk`` the approximate walk (``resample.walk``, what the sampled games used before their
    exact resamplers) is measured at the same position in the same run."""
    import time

    import numpy as np

    import solvers
    from deduce.apps.openspiel import load_game
    from deduce.apps.openspiel.chance import SeedDeal
    from deduce.apps.openspiel.game import dealt
    from deduce.apps.openspiel.resample import WALK_ONLY, resample, resampling, total_variation
    from deduce.apps.openspiel.resample import walk as walk_resample
    from deduce.games.clue.rules import Accuse, Move, Suggest, ViewExtra

    game = load_game(game_name, players=3) if game_name in BOARD else load_game(game_name)
    rng = np.random.default_rng(seed)
    state = dealt(game, SeedDeal.draw(rng))
    for _ in range(moves):
        if state.is_chance_node():  # the dice on Clue's board
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            continue
        legal = state.legal_actions()
        if game_name in BOARD:
            acts = [game.actions.decode(a) for a in legal]
            calm = [a for a, x in zip(legal, acts, strict=True) if not isinstance(x, Accuse | ViewExtra)]
            eager = [a for a, x in zip(legal, acts, strict=True)
                     if isinstance(x, Suggest) or isinstance(x, Move) and game.deduce.board.is_room(x.to)]
            legal = eager or calm or legal
        nxt = state.clone()
        nxt.apply_action(legal[int(rng.integers(len(legal)))])
        if nxt.is_terminal():
            break
        state = nxt
    player = (state.current_player() + 1) % game.num_players()
    obs = state.deduce_observation(player)
    try:  # the exact posterior where the game has a time-indexed knowledge base for it (Adlung)
        kb = game.deduce.knowledge(obs, exact_time=True)
    except TypeError:
        kb = game.deduce.knowledge(obs)
    method_name = resampling(game)
    row: dict[str, Any] = {"game": game_name, "method": method_name, "moves": len(state.steps),
                           "seat": player, "samples": samples}
    try:
        exact = solvers.get("auto").marginals(kb)
    except Exception as exc:  # noqa: BLE001 - a backend that cannot count is reported, not fatal
        row["error"] = f"no exact marginals: {type(exc).__name__} {exc}".strip()
        exact = None
    runs = {"": resample}
    if walk and game.dice is None and game.deduce.name not in WALK_ONLY and hasattr(state.engine, "hidden_variant"):
        runs["walk_"] = walk_resample
    for prefix, method in runs.items():
        start = time.perf_counter()
        worlds = [method(state, player, np.random.default_rng(seed * 100_000 + k)).engine.world() for k in range(samples)]
        row[f"{prefix}sec_per_resample"] = (time.perf_counter() - start) / samples
        if exact is not None:
            row[f"{prefix}tv_mean"], row[f"{prefix}tv_max"], row["unsettled"] = total_variation(worlds, exact)
    if exact is not None:  # the noise floor: each card drawn from its own exact marginal
        last = exact[-1] if exact.ndim == 3 else exact
        noise = np.random.default_rng(seed)
        draws = np.array([noise.choice(last.shape[1], size=samples, p=row_ / row_.sum()) for row_ in last]).T
        row["noise_tv_mean"], row["noise_tv_max"], _ = total_variation(list(draws), last)
    return row


def _line(row: dict[str, Any]) -> str:
    return (f"| {row['agent']} | {row['seats']} | {row['wins']} | {row['win_rate']:.2f} "
            f"[{row['win_lo']:.2f}, {row['win_hi']:.2f}] | {row['score']:.2f} [{row['score_lo']:.2f}, "
            f"{row['score_hi']:.2f}] ({row['deals']} deals) | {row['sec_per_move']:.3f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.openspiel", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--exploitability", action="store_true")
    parser.add_argument("--agents", nargs="+", default=["random", "racer", "infogain"])
    parser.add_argument("--game", default="clue", help="clue (a deduce tournament) or a sampled game (OpenSpiel's loop)")
    parser.add_argument("--rivals", nargs="+", default=["guess-chain", "greedy"])
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--resample-error", action="store_true")
    parser.add_argument("--moves", type=int, default=None, help="--resample-error: moves into the game")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args(argv)
    if args.resample_error:
        names = list(RESAMPLED) if args.game == "clue" else [args.game]
        rows = [resample_error(g, RESAMPLED.get(g, 150 if g in BOARD else 30) if args.moves is None else args.moves,
                               args.samples, args.seed)
                for g in names]
        load = open("/proc/loadavg").read().split()[0] if sys.platform.startswith("linux") else "n/a"
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        print(f"resampling against the exact marginals, {args.samples} resamples, seed {args.seed}, "
              f"load average after the run {load}\n")
        print("| game | method | moves | unsettled cards | TV mean / max | s per resample "
              "| walk's TV mean / max (before) | walk's s per resample | noise floor TV mean / max |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            def pair(prefix: str, r: dict[str, Any] = r) -> str:
                return f"{r[prefix + 'tv_mean']:.3f} / {r[prefix + 'tv_max']:.3f}" if prefix + "tv_mean" in r else "n/a"
            got = pair("") if "tv_mean" in r else r.get("error", "")
            walked = f"{r['walk_sec_per_resample']:.3f}" if "walk_sec_per_resample" in r else "n/a"
            print(f"| {r['game']} | {r['method']} | {r['moves']} | {r.get('unsettled', 'n/a')} | {got} "
                  f"| {r['sec_per_resample']:.3f} | {pair('walk_')} | {walked} | {pair('noise_')} |")
        return 0
    if args.game != "clue":
        runs = [measure_sampled(args.game, args.rivals, args.simulations, args.deals, args.seed + r)
                for r in range(args.runs)]
        if args.json:
            print(json.dumps({"args": vars(args), "runs": runs}, indent=2))
            return 0
        print(f"{args.game}, openspiel-ismcts (max_simulations={args.simulations}) against {', '.join(args.rivals)}, "
              f"{args.deals} deals per run in every rotation, OpenSpiel's loop")
        for r, rows in enumerate(runs):
            print(f"\nrun {r} (seed {args.seed + r})\n")
            print("| agent | seats | wins | win rate [95%] | mean win share [95%, by deal] | s per decision |")
            print("|---|---|---|---|---|---|")
            for row in rows:
                print(_line(row))
        return 0
    if args.exploitability:
        rows = [nash_conv(a, args.seed) for a in args.agents]
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        print(f"NashConv on the small Clue {SMALL}\n")
        print("| agent | NashConv | best-response gain per seat |")
        print("|---|---|---|")
        for row in rows:
            print(f"| {row['agent']} | {row['nash_conv']:.3f} | {', '.join(f'{x:.3f}' for x in row['improvements'])} |")
        return 0
    runs = [measure(args.players, args.simulations, args.games, args.seed + r) for r in range(args.runs)]
    if args.json:
        print(json.dumps({"args": vars(args), "runs": runs}, indent=2))
        return 0
    print(f"Clue, {args.players} players, openspiel-ismcts:max_simulations={args.simulations}, "
          f"{args.games} games per run, duplicate deals")
    for r, rows in enumerate(runs):
        print(f"\nrun {r} (seed {args.seed + r})\n")
        print("| agent | seats | wins | win rate [95%] | mean score [95%, by deal] | s per decision |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            print(_line(row))
    print(f"\nmedian of {args.runs} runs\n")
    print("| agent | win rate | s per decision |")
    print("|---|---|---|")
    for agent in sorted({row["agent"] for rows in runs for row in rows}):
        mine = [row for rows in runs for row in rows if row["agent"] == agent]
        rate = statistics.median(row["win_rate"] for row in mine)
        sec = statistics.median(row["sec_per_move"] for row in mine)
        print(f"| {agent} | {rate:.2f} | {sec:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
