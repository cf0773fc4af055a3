"""The Clue league (benchmarks/league.py): its spec, and a tiny run paired with its baseline."""

from __future__ import annotations

import pytest

import agents
from benchmarks import league
from deduce.errors import DeduceError


def test_spec_is_versioned_and_covers_3_4_6_players_with_registered_agents():
    assert league.LEAGUE_VERSION and sorted(league.LEAGUE) == [3, 4, 6]
    available = set(agents.available("clue"))
    for mix in league.mixes():
        assert len(mix.opponents) == mix.players - 1  # the candidate takes the last seat
        assert set(mix.opponents) <= available
    # every new style plays at every player count
    for n in league.LEAGUE:
        seen = {o for m in league.mixes([n]) for o in m.opponents}
        assert {"aggressive-accuser", "memory-notebook", "own-card-prober", "own-evidence"} <= seen
    names = [m.name for m in league.mixes()]
    assert len(set(names)) == len(names)
    assert len({m.seed(0) for m in league.mixes()}) == len(names)  # every mix its own deals
    assert "3p-1: candidate vs aggressive-accuser, memory-notebook" in league.format_spec()


def test_unknown_player_count_is_refused():
    with pytest.raises(DeduceError, match="5 players"):
        league.mixes([5])
    assert league.main(["--deals", "0"]) == 2


@pytest.mark.slow
def test_tiny_run_pairs_candidate_and_baseline_on_the_same_games(monkeypatch):
    monkeypatch.setitem(league.LEAGUE, 3, (("memory-notebook", "aggressive-accuser"),))
    tables = []
    play_mix = league.play_mix

    def recorded(*args, **kwargs):
        tables.append(play_mix(*args, **kwargs))
        return tables[-1]

    monkeypatch.setattr(league, "play_mix", recorded)
    report = league.run("notebook", [3], deals=2, seed=4, baseline="memory-notebook")
    a, b = tables
    cols = ["game_id", "seat", "deal", "deal_seed", "seed"]
    assert a[cols].equals(b[cols])  # same deals, seeds and seats: only the candidate differs
    assert sorted(a.loc[a["agent"] == league.CANDIDATE, "seat"]) == [0, 0, 1, 1, 2, 2]
    (entry,) = report["mixes"]
    assert report["version"] == league.LEAGUE_VERSION and entry["games"] == 6
    assert all(r["seats"] == 6 for r in entry["rows"])
    assert sum(r["wins"] for r in entry["rows"]) <= 6
    cand = next(r for r in entry["rows"] if r["candidate"])
    base = next(r for r in entry["baseline_rows"] if r["candidate"])
    assert cand["agent"] == "notebook" and base["agent"] == "memory-notebook"
    paired = report["paired"]["3"]
    assert paired["n"] == 2
    assert paired["mean"] == pytest.approx(cand["score"] - base["score"])  # equal seats per deal
    text = league.format_report(report)
    assert "**notebook**" in text and "memory-notebook (baseline)" in text and "notebook - memory-notebook" in text


def test_same_candidate_and_baseline_has_no_paired_row(monkeypatch):
    monkeypatch.setitem(league.LEAGUE, 3, (("memory-notebook", "notebook"),))
    report = league.run("notebook", [3], deals=1, seed=0, baseline="notebook")
    assert report["paired"] == {"3": None} and "baseline_rows" not in report["mixes"][0]
