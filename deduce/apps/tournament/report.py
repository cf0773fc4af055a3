"""Plain-text reports of tournament results (the command line prints them; nothing prints here)."""

from __future__ import annotations

import math
from typing import Any

from deduce.apps.tournament.results import TournamentResults

__all__ = ["leaderboard", "full_report", "header"]


def _table(headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    """A fixed-width text table; columns in ``right`` are right-aligned."""
    right = right if right is not None else set(range(1, len(headers)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _num(x: float, digits: int = 2) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.2f}"


def header(results: TournamentResults) -> str:
    """One line: what was played, and where the results are."""
    c = results.config
    where = f"; results in {results.path}" if results.path is not None else ""
    played = f" ({results.played} played now)" if results.played != results.num_games else ""
    return (
        f"{c.get('game', '?')}: {results.num_games} games{played}, {c.get('players', '?')} players, "
        f"seed {c.get('seed', '?')}, {c.get('arrangement', '?')} seating"
        f"{', duplicate deals' if c.get('duplicate') else ''}{where}"
    )


def leaderboard(results: TournamentResults) -> str:
    """Win rate (Wilson 95% CI), mean score (95% CI), rating, forfeits, turns, time per move."""
    table = results.summary()
    rows = []
    for r in table.itertuples(index=False):
        rows.append([
            r.agent,
            str(r.games),
            str(r.wins),
            _pct(r.win_rate),
            f"[{_pct(r.win_lo)}, {_pct(r.win_hi)}]",
            _num(r.score),
            f"[{_num(r.score_lo)}, {_num(r.score_hi)}]",
            f"{_num(r.mu, 1)} ± {_num(r.sigma, 1)}",
            str(r.forfeits),
            _num(r.mean_turns, 1),
            _ms(r.sec_per_move),
        ])
    headers = ["agent", "games", "wins", "win rate", "95% CI", "score", "95% CI", "rating (mu ± sigma)",
               "forfeits", "turns", "ms/move"]
    return _table(headers, rows)


def _pairwise(results: TournamentResults) -> str:
    table = results.pairwise()
    agents = list(table.index)
    rows = [[a, *(_pct(float(table.loc[a, b])) if a != b else "-" for b in agents)] for a in agents]
    return _table(["row ahead of column", *agents], rows)


def _seats(results: TournamentResults) -> str:
    table = results.seat_effect()
    agents = [c for c in table.columns if c not in ("seat", "games", "win_rate", "win_lo", "win_hi")]
    rows = []
    for r in table.to_dict("records"):
        row: list[Any] = [str(r["seat"]), str(r["games"]), _pct(r["win_rate"]), f"[{_pct(r['win_lo'])}, {_pct(r['win_hi'])}]"]
        row += [_pct(float(r[a])) if r.get(a) is not None else "-" for a in agents]
        rows.append(row)
    return _table(["seat", "games", "win rate", "95% CI", *agents], rows)


def _failures(results: TournamentResults) -> str:
    failures = results.failures()
    if failures.empty:
        return "none"
    counts = failures.groupby(["agent", "failure"]).size().reset_index(name="n")
    lines = [f"{r.agent}: {r.n} {r.failure}" for r in counts.itertuples(index=False)]
    first = failures.iloc[0]
    lines.append(f"first: game {first.game_id}, seat {first.seat} ({first.agent}): {first.failure_message}")
    return "\n".join(lines)


def full_report(results: TournamentResults) -> str:
    """Leaderboard, head-to-head results, seat effect and forfeits, as ``deduce report`` prints."""
    if results.games.empty:
        return header(results) + "\n\nno games recorded yet"
    parts = [
        header(results),
        "",
        leaderboard(results),
        "",
        "Head to head (share of meetings the row agent finished ahead; ties count half)",
        _pairwise(results),
        "",
        "Win rate by seat (seat 0 moves first)",
        _seats(results),
        "",
        "Forfeits",
        _failures(results),
    ]
    return "\n".join(parts)
