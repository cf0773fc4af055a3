"""The report of a tournament: every figure as plain data (:func:`payload`, the ``--json`` output
and ``summary.json``), and the text ``deduce report`` prints, drawn from that data alone
(:func:`render`), so the JSON holds every number the text shows. Nothing prints here."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from deduce.apps.tournament import stats

if TYPE_CHECKING:
    import pandas as pd

    from deduce.apps.tournament.results import TournamentResults

__all__ = ["payload", "render", "leaderboard", "full_report", "header", "SCHEMA"]

#: the version of the payload's layout
SCHEMA = 1
#: seat orders of one round shown in the header before the rest are counted
_SHOWN_ORDERS = 4


# -- the data ----------------------------------------------------------------------------------

def _clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become None, numpy scalars plain Python."""
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _seating(games: pd.DataFrame, config: Mapping[str, Any]) -> dict[str, Any]:
    """Who sits where, from the rows: seats per game, each agent's seats in every game, and the
    seat orders of the first round."""
    players = int(games["players"].max())
    per_game = games.groupby(["game_id", "agent"]).size().groupby("agent").agg(["min", "max"])
    size = int(config.get("round_size") or games["game_id"].nunique())
    first = games[games["game_id"] < size].sort_values(["game_id", "seat"])
    orders = [list(g["agent"]) for _, g in first.groupby("game_id", sort=True)]
    return {
        "players": players,
        "round_size": size,
        "round": orders,
        "seats_per_game": {str(a): int(r["max"]) for a, r in per_game.iterrows()},
        "seats_per_game_min": {str(a): int(r["min"]) for a, r in per_game.iterrows()},
    }


def payload(results: TournamentResults) -> dict[str, Any]:
    """Every figure of the report, as JSON data: the run (configuration and versions), seating,
    per-agent scores with intervals, ratings, head-to-head shares, per-deal paired differences,
    seat effects and forfeits with their reasons."""
    games = results.games
    config = dict(results.config)
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "run": {**config, "path": None if results.path is None else str(results.path)},
        "games": results.num_games,
        "played": results.played,
    }
    if games.empty:
        return _clean(out)
    lo, hi = stats.score_range(games)
    out["intervals"] = {
        "level": stats.LEVEL,
        "win_rate": "Wilson score interval over seats (scipy.stats.binomtest)",
        "score": "bootstrap BCa interval over deals, games of one deal resampled together "
                 "(scipy.stats.bootstrap), clipped to the score range",
        "score_range": [lo, hi],
        "paired": "per-deal mean score difference, bootstrap BCa interval over deals; "
                  "two-sided sign test and Wilcoxon signed-rank test over deals",
        "seat": "Wilson score interval over seats",
        "rating": "openskill Plackett-Luce mu ± 1.96 sigma",
        "unit": "deals",
        "deals": int(stats.cluster_keys(games).nunique()),
        "bootstrap_seed": results.seed,
        "bootstrap_resamples": stats.RESAMPLES,
    }
    out["seating"] = _seating(games, config)
    ratings = results.ratings()
    summary = results.summary()
    out["agents"] = [
        {
            "agent": r["agent"], "games": r["games"], "seats": r["seats"], "wins": r["wins"],
            "win_rate": r["win_rate"], "win_ci": [r["win_lo"], r["win_hi"]],
            "score": r["score"], "score_ci": [r["score_lo"], r["score_hi"]], "deals": r["deals"],
            "rating": {"mu": r["mu"], "sigma": r["sigma"], "ordinal": r["ordinal"]},
            "forfeits": r["forfeits"], "mean_turns": r["mean_turns"], "ms_per_move": 1000 * r["sec_per_move"],
        }
        for r in summary.to_dict("records")
    ]
    out["ratings"] = ratings.to_dict("records")
    pair = results.pairwise()
    out["head_to_head"] = {"agents": list(pair.index),
                           "ahead": [[pair.loc[a, b] for b in pair.columns] for a in pair.index]}
    out["paired"] = results.paired()
    out["seats"] = [{**{k: r[k] for k in ("seat", "agent", "seats", "wins", "win_rate")},
                     "win_ci": [r["win_lo"], r["win_hi"]]} for r in results.seat_effect().to_dict("records")]
    failures = results.failures()
    counts = []
    for (agent, kind), g in failures.groupby(["agent", "failure"], sort=True):
        counts.append({"agent": agent, "failure": kind, "n": len(g), "reason": g["failure_message"].iloc[0]})
    out["forfeits"] = {
        "total": len(failures),
        "counts": counts,
        "games": [{"game_id": r["game_id"], "seat": r["seat"], "agent": r["agent"], "failure": r["failure"],
                   "message": r["failure_message"]} for r in failures.to_dict("records")],
    }
    return _clean(out)


# -- the text ----------------------------------------------------------------------------------

def _table(headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    """A fixed-width text table; columns in ``right`` are right-aligned."""
    right = right if right is not None else set(range(1, len(headers)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _pct(x: float | None) -> str:
    return "-" if x is None or x != x else f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 2, sign: bool = False) -> str:
    if x is None or x != x:
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _ci(pair: Sequence[float | None], fmt: Any = _pct) -> str:
    return f"[{fmt(pair[0])}, {fmt(pair[1])}]"


def _p(x: float | None) -> str:
    return "-" if x is None else f"{x:.2g}"


def _header(data: Mapping[str, Any]) -> str:
    c = data.get("run", {})
    where = f"; results in {c['path']}" if c.get("path") else ""
    games, played = data.get("games", 0), data.get("played", 0)
    played_text = f" ({played} played now)" if played != games else ""
    lines = [
        f"{c.get('game', '?')}: {games} games{played_text}, {c.get('players', '?')} players, "
        f"seed {c.get('seed', '?')}, {c.get('arrangement', '?')} seating"
        f"{', duplicate deals' if c.get('duplicate') else ''}{where}"
    ]
    seating = data.get("seating")
    if seating:
        per = seating["seats_per_game"]
        players = seating["players"]
        if all(v == 1 for v in per.values()):
            holds = "one seat per agent in each game" if len(per) == players else f"{players} of the {len(per)} agents in each game"
        else:
            holds = ", ".join(f"{a} holds {n} seat{'s' if n != 1 else ''}" for a, n in per.items()) + " of each game"
        orders = seating["round"]
        shown = " | ".join(", ".join(o) for o in orders[:_SHOWN_ORDERS])
        more = f" | ... ({len(orders) - _SHOWN_ORDERS} more)" if len(orders) > _SHOWN_ORDERS else ""
        lines.append(f"seats: {players} per game, {holds}; seat 0 first, one round of {seating['round_size']} "
                     f"games seats them {shown}{more}")
        if c.get("arrangement") in ("rotate", "alternate") and players >= 3 and len(per) >= 3:
            lines.append("seating caveat: rotation keeps the order round the table (each agent always follows the "
                         "same one), so comparisons between agents include that neighbour effect; "
                         "--schedule permutations seats every order")
    status = c.get("status")
    if status and status != "complete":
        lines.append(f"status: {status} ({c.get('games_recorded', games)} of {c.get('games', games)} games recorded)")
    return "\n".join(lines)


def _leaderboard(data: Mapping[str, Any]) -> str:
    rows = []
    for r in data["agents"]:
        rating = r["rating"]
        rows.append([
            r["agent"], str(r["games"]), str(r["seats"]), str(r["wins"]), _pct(r["win_rate"]), _ci(r["win_ci"]),
            _num(r["score"]), _ci(r["score_ci"], _num), str(r["deals"]),
            f"{_num(rating['mu'], 1)} ± {_num(rating['sigma'], 1)}", str(r["forfeits"]), _num(r["mean_turns"], 1),
            _num(r["ms_per_move"]),
        ])
    headers = ["agent", "games", "seats", "wins", "win rate", "95% CI", "score", "95% CI", "deals",
               "rating (mu ± sigma)", "forfeits", "turns", "ms/move"]
    iv = data["intervals"]
    lo, hi = iv["score_range"]
    note = (f"win rate = wins per seat, 95% Wilson interval over seats; score = mean per seat, 95% bootstrap "
            f"interval over deals (n = deals column, {iv['deals']} in all), within the score range "
            f"[{_num(lo)}, {_num(hi)}]")
    return _table(headers, rows) + "\n" + note


def _head_to_head(data: Mapping[str, Any]) -> str:
    h = data["head_to_head"]
    agents = h["agents"]
    rows = [[a, *(_pct(h["ahead"][i][j]) if i != j else "-" for j in range(len(agents)))] for i, a in enumerate(agents)]
    return _table(["row ahead of column", *agents], rows)


def _paired(data: Mapping[str, Any]) -> str:
    if not data["paired"]:
        return "no two agents played a common deal"
    rows = [[f"{p['a']} - {p['b']}", str(p["n"]), _num(p["mean"], sign=True), _ci([p["lo"], p["hi"]], lambda x: _num(x, sign=True)),
             str(p["ahead"]), str(p["behind"]), _p(p["sign_p"]), _p(p["wilcoxon_p"])] for p in data["paired"]]
    return _table(["pair", "deals", "difference", "95% CI", "ahead", "behind", "sign p", "Wilcoxon p"], rows)


def _seats(data: Mapping[str, Any]) -> str:
    seats = sorted({r["seat"] for r in data["seats"]})
    agents = list(dict.fromkeys(r["agent"] for r in data["seats"] if r["agent"] != "all"))
    by = {(r["seat"], r["agent"]): r for r in data["seats"]}
    rows = []
    for s in seats:
        everyone = by[(s, "all")]
        row = [str(s), str(everyone["seats"]), _pct(everyone["win_rate"]), _ci(everyone["win_ci"])]
        for a in agents:
            r = by.get((s, a))
            row.append("-" if r is None else f"{_pct(r['win_rate'])} {_ci(r['win_ci'])} n={r['seats']}")
        rows.append(row)
    return _table(["seat", "seats", "win rate", "95% CI", *agents], rows)


def _failures(data: Mapping[str, Any]) -> str:
    f = data["forfeits"]
    if not f["total"]:
        return "none"
    lines = [f"{c['agent']}: {c['n']} {c['failure']} ({c['reason']})" for c in f["counts"]]
    first = f["games"][0]
    lines.append(f"first: game {first['game_id']}, seat {first['seat']} ({first['agent']}): {first['message']}")
    return "\n".join(lines)


def render(data: Mapping[str, Any], sections: Sequence[str] = ("leaderboard", "head_to_head", "paired", "seats", "forfeits")) -> str:
    """The text report of a :func:`payload` (or of its JSON read back: the same text)."""
    parts = [_header(data)]
    if not data.get("agents"):
        return parts[0] + "\n\nno games recorded yet"
    titled = {
        "leaderboard": ("", _leaderboard),
        "head_to_head": ("Head to head (share of meetings the row agent finished ahead; ties count half)", _head_to_head),
        "paired": ("Per deal, row minus column: mean score difference (deals are the independent unit; "
                   "95% bootstrap interval over deals, two-sided tests)", _paired),
        "seats": ("Win rate by seat (seat 0 moves first; 95% Wilson intervals over seats)", _seats),
        "forfeits": ("Forfeits (a forfeit scores -1)", _failures),
    }
    for name in sections:
        title, draw = titled[name]
        parts += ["", *([title] if title else []), draw(data)]
    return "\n".join(parts)


# -- the same from results ---------------------------------------------------------------------

def header(results: TournamentResults) -> str:
    """What was played, who sits where, and where the results are."""
    return _header(payload(results)) if not results.games.empty else _header({
        "run": {**results.config, "path": None if results.path is None else str(results.path)},
        "games": results.num_games, "played": results.played})


def leaderboard(results: TournamentResults) -> str:
    """Games and seats, win rate (Wilson 95% CI over seats), mean score (95% CI over deals),
    deals, rating, forfeits, turns, time per move."""
    return _leaderboard(payload(results))


def full_report(results: TournamentResults) -> str:
    """Header, leaderboard, head to head, per-deal differences, seat effect and forfeits, as
    ``deduce report`` prints them."""
    return render(payload(results))
