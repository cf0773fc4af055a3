"""Speed Clue over the protocol vs in process: win-rate ordering, round-trip time, games/s.

``python -m benchmarks.speedclue`` plays the same seeded schedule (same seatings, same
duplicate deals, the protocol's rules as the Clue configuration) three ways:

* ``in-process``: the tournament harness (``Tournament``, serial backend);
* ``protocol``: ``deduce speedclue-server`` with every agent a separate ``deduce speedclue``
  process talking the Speed Clue protocol over 127.0.0.1;
* ``builtin``: the same server with built-in seats: the protocol's rules and the client's
  mirror, but no sockets, which separates rule effects (no repeated suggestion, accusing only
  after suggesting, the forced accusation) from transport effects.

It prints each agent's win rate with its Wilson 95% interval, whether the orderings agree
(a swap inside overlapping intervals is reported as a tie, not a disagreement), games per
second, and the reply times the server measured: ``ok`` acknowledgements over a socket (the
message round trip with next to no thinking) and decisions. Agents' RNG streams differ between
the ways (a bot process cannot be handed the harness's per-game seeds), so single games differ;
the question is whether the ranking survives. ``--games`` (default 40), ``--players`` (4),
``--agents``, ``--seed``, ``--json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deduce.apps.speedclue import PROTOCOL_CONFIG, SpeedClueServer
from deduce.apps.tournament import Tournament

__all__ = ["run", "main", "ordering", "agree"]


def _rates(results: Any) -> dict[str, dict[str, Any]]:
    return results.win_rates()


def ordering(rates: dict[str, dict[str, Any]]) -> list[str]:
    """Agents by win rate, best first (name breaks ties, so the order is deterministic)."""
    return sorted(rates, key=lambda a: (-rates[a]["win_rate"], a))


def agree(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> tuple[bool, list[str]]:
    """Same ordering up to swaps inside overlapping 95% intervals; the pairs that swap."""
    swaps, strict = [], True
    names = ordering(a)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            if a[x]["win_rate"] > a[y]["win_rate"] and b[x]["win_rate"] < b[y]["win_rate"]:
                overlap_a = a[x]["ci95"][0] <= a[y]["ci95"][1]
                overlap_b = b[y]["ci95"][0] <= b[x]["ci95"][1]
                swaps.append(f"{x}/{y}" + (" (within noise)" if overlap_a and overlap_b else ""))
                strict = strict and overlap_a and overlap_b
    return strict, swaps


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the bot processes, once the
    server has waited for them): unlike wall time, not inflated by other work on the machine."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(agents: Sequence[str], games: int, players: int, seed: int, time_limit: float, root: Path) -> dict[str, Any]:
    """Play the three ways and return every number the report prints."""
    out: dict[str, Any] = {"agents": list(agents), "games": games, "players": players, "seed": seed}
    start, cpu = time.perf_counter(), _cpu()
    inproc = Tournament("clue", list(agents), games=games, seed=seed, players=players, config=PROTOCOL_CONFIG,
                        backend="serial", out=root / "in-process", progress=False).run()
    seconds = time.perf_counter() - start
    out["in-process"] = {"rates": _rates(inproc), "seconds": seconds, "games_per_second": games / seconds,
                         "cpu_seconds": _cpu() - cpu}

    bots = [f"{a}={sys.executable} -m deduce speedclue --agent {a}" for a in agents]
    for way, entrants in (("protocol", bots), ("builtin", [f"builtin:{a}" for a in agents])):
        cpu = _cpu()
        session = SpeedClueServer(entrants, players, games, seed=seed, time_limit=time_limit,
                                  out=root / way, connect_timeout=60.0).run()
        out[way] = {
            "rates": _rates(session.results),
            "seconds": session.total_seconds,
            "game_seconds": session.game_seconds,
            "games_per_second": session.games_per_second,
            "timing": session.timing,
            "disqualified": session.disqualified,
            "forfeits": int(session.results.games["forfeit"].sum()),
            "cpu_seconds": _cpu() - cpu,
        }
    for way in ("protocol", "builtin"):
        strict, swaps = agree(out["in-process"]["rates"], out[way]["rates"])
        out[way]["same_order"] = ordering(out["in-process"]["rates"]) == ordering(out[way]["rates"])
        out[way]["order_agrees_within_noise"] = strict
        out[way]["swaps"] = swaps
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _cell(entry: dict[str, Any]) -> str:
    lo, hi = entry["ci95"]
    return f"{_pct(entry['win_rate'])} [{_pct(lo)}, {_pct(hi)}]"


def report(data: dict[str, Any]) -> str:
    """A README-ready Markdown summary."""
    ways = ("in-process", "protocol", "builtin")
    names = ordering(data["in-process"]["rates"])
    lines = [
        f"Speed Clue, {data['players']} players, {data['games']} games (seed {data['seed']}, rotated seats, "
        "duplicate deals, protocol rules)",
        "",
        "| agent | in process | over the protocol (processes) | built-in seats (protocol rules, no sockets) |",
        "|---|---|---|---|",
    ]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(_cell(data[w]["rates"][name]) for w in ways) + " |")
    lines.append("")
    for way in ways:
        order = " > ".join(ordering(data[way]["rates"]))
        lines.append(f"- {way}: {order}")
    for way in ("protocol", "builtin"):
        d = data[way]
        verdict = "same ordering" if d["same_order"] else (
            "same ordering up to swaps within noise" if d["order_agrees_within_noise"] else "DIFFERENT ordering")
        extra = f" (swaps: {', '.join(d['swaps'])})" if d["swaps"] else ""
        lines.append(f"- {way} vs in process: {verdict}{extra}; forfeits {d['forfeits']}, "
                     f"disqualified {d['disqualified'] or 'none'}")
    lines += ["", "| way | games/s (games only) | wall s (start-up included) | CPU ms/game (bots included) |",
              "|---|---|---|---|"]
    for way in ways:
        d = data[way]
        lines.append(f"| {way} | {d['games_per_second']:.2f} | {d['seconds']:.1f} | "
                     f"{1000 * d['cpu_seconds'] / data['games']:.0f} |")
    t = data["protocol"]["timing"]
    lines += ["", "Reply times measured by the server (ms): count, median, p95, mean", ""]
    for key, label in (("socket_ok_ms", "ok over a socket (round trip)"), ("socket_decision_ms", "decision over a socket"),
                       ("builtin_decision_ms", "decision, built-in")):
        source = t if key in t else data["builtin"]["timing"]
        if key in source:
            s = source[key]
            lines.append(f"- {label}: {s['count']}, {s['median']:.3f}, {s['p95']:.3f}, {s['mean']:.3f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["infogain", "deductive", "notebook", "random"])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--out", help="keep the three results directories here (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.out) if args.out else Path(tmp)
        data = run(args.agents, args.games, args.players, args.seed, args.time_limit, root)
    print(json.dumps(data, indent=2) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
