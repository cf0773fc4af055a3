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

``--table BOT ...`` instead plays one session of the given entrants (``deduce speedclue-server``'s
grammar: ``LABEL=COMMAND`` for an outside bot such as a 2014 contest entrant, ``LABEL=builtin:NAME``
for ours) over every seating permutation, as the contest's server does, and prints each
entrant's wins with a 95% Wilson interval (``scipy.stats.binomtest``) and, read from the
session's message log, its accusations: right, wrong, and how the games it lost ended.
``--table ... --in-process`` plays the same seatings through the tournament harness instead
(our agents only, ``LABEL=NAME:K=V``; no message log, so no accusation columns) and adds the
first two entrants' per-deal paired difference (:func:`deduce.apps.tournament.stats.paired_by_deal`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deduce.apps.speedclue import PROTOCOL_CONFIG, SpeedClueServer
from deduce.apps.tournament import Tournament

__all__ = ["run", "main", "ordering", "agree", "accusations", "table", "table_in_process", "table_report"]


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


_LINE = re.compile(r'^\S+ (\S+) > "(.*)"$')


def accusations(log: Path, labels: Sequence[str]) -> list[dict[str, Any]]:
    """Every game of a server message log as ``{"seats": {seat: label}, "accusations": [(turn,
    label, right)]}``, in order (a game starts at its ``reset`` messages; an accusation is read
    once, from its first recipient). ``labels`` tell a recipient's label from its suffix."""
    def label_of(recipient: str) -> str:
        return max((b for b in labels if recipient.startswith(b)), key=len)

    games: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line in log.read_text().splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        recipient, text = m.groups()
        words = text.split()
        if words[0] == "reset":
            if not games or int(words[2]) in games[-1]["seats"]:
                games.append({"seats": {}, "accusations": [], "turns": 0})
                seen = set()
            games[-1]["seats"][int(words[2])] = label_of(recipient)
        elif words[0] == "suggest" and len(words) == 1:
            games[-1]["turns"] += 1
        elif words[0] == "accusation" and text not in seen:
            seen.add(text)
            g = games[-1]
            g["accusations"].append((g["turns"], g["seats"][int(words[1])], words[-1] == "+"))
    return games


def _wilson(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    if n == 0:
        return 0.0, 1.0
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def table(bots: Sequence[str], players: int, games: int, seed: int, root: Path,
          arrangement: str = "permutations") -> dict[str, Any]:
    """One server session of ``bots``; wins with Wilson intervals and accusation counts."""
    log = root / "messages.log"
    session = SpeedClueServer(list(bots), players, games, seed=seed, out=root / "results", log=log,
                              arrangement=arrangement, connect_timeout=60.0).run()
    labels = [b.label for b in session.bots]
    rows = session.results.games
    out: dict[str, Any] = {"players": players, "games": games, "seed": seed, "arrangement": arrangement,
                           "disqualified": session.disqualified, "load": os.getloadavg(), "entrants": {}}
    played = accusations(log, labels)
    for label in labels:
        mine = rows[rows["agent"] == label]
        wins, seats = int(mine["win"].sum()), int(len(mine))
        acc = [(t, right) for g in played for (t, who, right) in g["accusations"] if who == label]
        lost_to = {"right accusation by another": 0, "own wrong accusation": 0, "last one standing": 0}
        for g in played:
            if label not in g["seats"].values():
                continue
            mine_wrong = any(w == label and not r for (_, w, r) in g["accusations"])
            winner_right = [w for (_, w, r) in g["accusations"] if r]
            if winner_right and winner_right[0] == label:
                continue
            out_of_game = {w for (_, w, r) in g["accusations"] if not r}
            if not winner_right and not mine_wrong and len(g["seats"]) - len(out_of_game) == 1:
                continue  # the last one standing: a win
            if mine_wrong:
                lost_to["own wrong accusation"] += 1
            elif winner_right:
                lost_to["right accusation by another"] += 1
            else:
                lost_to["last one standing"] += 1
        out["entrants"][label] = {
            "seats": seats, "wins": wins, "win_rate": wins / seats if seats else 0.0, "ci95": _wilson(wins, seats),
            "accusations": len(acc), "wrong": sum(1 for _, r in acc if not r),
            "mean_turn_of_right": (sum(t for t, r in acc if r) / max(1, sum(1 for _, r in acc if r))),
            "lost": lost_to,
        }
    return out


def table_in_process(agents: Sequence[str], players: int, games: int, seed: int, root: Path,
                     arrangement: str = "permutations") -> dict[str, Any]:
    """The same table through the tournament harness (protocol rules, serial): wins with Wilson
    intervals, and the first entrant minus the second per deal."""
    from deduce.apps.tournament import parse_agent, stats

    specs = [parse_agent(a.replace("builtin:", "")) for a in agents]
    results = Tournament("clue", specs, games=games, seed=seed, players=players, config=PROTOCOL_CONFIG,
                         backend="serial", out=root / "in-process", progress=False, arrangement=arrangement).run()
    rows = results.games
    out: dict[str, Any] = {"players": players, "games": games, "seed": seed, "arrangement": arrangement,
                           "disqualified": {}, "load": os.getloadavg(), "entrants": {}}
    for spec in specs:
        mine = rows[rows["agent"] == spec.label]
        wins, seats = int(mine["win"].sum()), int(len(mine))
        out["entrants"][spec.label] = {"seats": seats, "wins": wins, "win_rate": wins / seats if seats else 0.0,
                                       "ci95": _wilson(wins, seats)}
    first, second = specs[0].label, specs[1].label
    for pair in stats.paired_by_deal(rows, column="win", seed=seed):
        if {pair["a"], pair["b"]} == {first, second}:
            sign = 1.0 if pair["a"] == first else -1.0
            lo, hi = sorted((sign * pair["lo"], sign * pair["hi"]))
            out["paired"] = {"first": first, "second": second, "deals": pair["n"], "mean": sign * pair["mean"],
                             "lo": lo, "hi": hi,
                             "ahead": pair["ahead"] if sign > 0 else pair["behind"],
                             "behind": pair["behind"] if sign > 0 else pair["ahead"]}
    return out


def table_report(data: dict[str, Any]) -> str:
    """Markdown: wins per seat with the Wilson interval, accusations, how games were lost."""
    lines = [f"{data['players']} players, {data['games']} games, seed {data['seed']}, {data['arrangement']} "
             f"seating; load average {' '.join(f'{x:.2f}' for x in data['load'])}", "",
             "| entrant | wins / seats | win rate [95% Wilson] | accusations (wrong) | mean turn of a right one | "
             "lost: to another's right accusation / own wrong one / last standing |", "|---|---|---|---|---|---|"]
    for label, e in sorted(data["entrants"].items(), key=lambda kv: -kv[1]["win_rate"]):
        lo, hi = e["ci95"]
        cells = f"| {label} | {e['wins']}/{e['seats']} | {_pct(e['win_rate'])} [{_pct(lo)}, {_pct(hi)}] |"
        if "lost" in e:
            lost = e["lost"]
            cells += (f" {e['accusations']} ({e['wrong']}) | {e['mean_turn_of_right']:.1f} | "
                      f"{lost['right accusation by another']} / {lost['own wrong accusation']} / "
                      f"{lost['last one standing']} |")
        else:
            cells += " | | |"
        lines.append(cells)
    if "paired" in data:
        d = data["paired"]
        lines.append(f"\nper deal, {d['first']} minus {d['second']}: {100 * d['mean']:+.1f} points per seat "
                     f"[{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}] over {d['deals']} deals; "
                     f"ahead on {d['ahead']}, behind on {d['behind']}")
    if data["disqualified"]:
        lines.append(f"\ndisqualified: {data['disqualified']}")
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
    parser.add_argument("--table", nargs="+", metavar="BOT",
                        help="play these entrants (server grammar) over every seat order and report wins and accusations")
    parser.add_argument("--arrangement", default="permutations", help="seating of --table (default permutations)")
    parser.add_argument("--in-process", action="store_true",
                        help="--table through the tournament harness (our agents only), with the per-deal paired difference")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.out) if args.out else Path(tmp)
        if args.table:
            play = table_in_process if args.in_process else table
            got = play(args.table, args.players, args.games, args.seed, root, args.arrangement)
            print(json.dumps(got, indent=2) if args.json else table_report(got))
            return 0
        data = run(args.agents, args.games, args.players, args.seed, args.time_limit, root)
    print(json.dumps(data, indent=2) if args.json else report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
