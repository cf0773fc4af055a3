"""The per-game agent benchmarks (Checkpoint Charlie, Alibi (Adlung), Clue on the board, the
league, Alibi's win tables) run their tables through the tournament (benchmarks/_experiment.py):
the same table on the serial and processes backends, a stopped run resumed to the identical
table, and figures equal to deduce.apps.tournament.stats on that table."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks import _experiment as ex
from benchmarks import alibi, alibi_adlung, checkpoint_charlie, clue_board, league
from deduce.apps.tournament import TIMING_COLUMNS, stats


def untimed(frame):
    return frame.drop(columns=list(TIMING_COLUMNS))


@pytest.mark.slow
def test_checkpoint_charlie_scores_on_both_backends_resumed(tmp_path):
    table = checkpoint_charlie.cell(4, games=1, seed=0)
    assert table.games == 12  # a round: each agent starts the cycle, every rotation
    serial = ex.run_cells([table])[table.name]
    assert set(Counter(serial["agent"]).values()) == {16}  # every agent as many seats
    table.tournament(ex.RunOptions(out=tmp_path), games=5).run()  # stopped after five games
    resumed = ex.run_cells([table], ex.RunOptions("processes", workers=2, out=tmp_path))[table.name]
    assert untimed(serial).equals(untimed(resumed))
    rows = checkpoint_charlie.score_rows(table, resumed, seed=0)
    want = stats.agent_table(serial, seed=0).set_index("agent")
    for r in rows:
        assert (r.mean, r.low, r.high) == (want.loc[r.agent, "score"], want.loc[r.agent, "score_lo"],
                                           want.loc[r.agent, "score_hi"])
        if r.agent != "bayesian":
            (pair,) = stats.paired_by_deal(serial[serial["agent"].isin(["bayesian", r.agent])], seed=0)
            assert r.bayesian_minus["mean"] == pair["mean"] and r.bayesian_minus["n"] == 1


def test_checkpoint_charlie_verdict_needs_more_than_one_deal(capsys):
    # one deal per table: a one-deal difference is no evidence, whatever its sign
    assert checkpoint_charlie.main(["--games", "3", "--players", "3", "--timing-games", "0", "--backend",
                                    "serial"]) == 1
    assert "does NOT clearly beat" in capsys.readouterr().out


def test_alibi_adlung_tables_count_copies_as_one_agent_and_resume(tmp_path):
    cells = alibi_adlung.score_cells(2, games=4, seed=0)
    assert [c.name for c in cells] == ["counting v random 2p", "all random 2p"]
    serial = ex.run_cells(cells)
    baseline = serial["all random 2p"]
    assert set(baseline["agent"]) == {"random", "random#2"}
    cells[0].tournament(ex.RunOptions(out=tmp_path), games=2).run()
    resumed = ex.run_cells(cells, ex.RunOptions("processes", workers=2, out=tmp_path))
    for name in serial:
        assert untimed(serial[name]).equals(untimed(resumed[name]))
    (row,) = alibi_adlung.score_rows(cells[1], baseline, seed=0)
    assert row.agent == "random" and row.seats == 8 and row.deals == 2
    whole = baseline.assign(agent="random")
    ci = stats.cluster_mean_ci(whole["score"], stats.cluster_keys(whole), stats.score_range(whole), seed=0)
    assert (row.mean, row.ci) == (ci.estimate, (ci.lo, ci.hi))
    assert row.win_ci == stats.wilson(int(whole["win"].sum()), 8)


def test_alibi_adlung_head_to_head_pairs_by_deal():
    rows, paired = alibi_adlung.head_to_head(2, 2, seed=1)
    (cell,) = alibi_adlung.score_cells(2, 2, 1, leads=("counting",), rest="counting-static", baseline=False)
    games = ex.run_cells([cell])[cell.name]
    (want,) = stats.paired_by_deal(games, seed=1)  # "counting" < "counting-static"
    assert paired["mean"] == want["mean"] and paired["n"] == 1
    assert {r.agent for r in rows} == {"counting", "counting-static"}


def test_clue_board_on_both_backends_resumed(tmp_path):
    table = clue_board.cell("notebook-board", "deductive-board", games=6, seed=0)  # short games
    serial = ex.run_cells([table])[table.name]
    table.tournament(ex.RunOptions(out=tmp_path), games=3).run()
    resumed = ex.run_cells([table], ex.RunOptions("processes", workers=2, out=tmp_path))[table.name]
    assert untimed(serial).equals(untimed(resumed))
    report = clue_board.report(table, resumed)
    for name in ("notebook-board", "deductive-board"):
        mine = serial[serial["agent"] == name]
        assert report[name]["seats"] == 9 and report[name]["wins"] == int(mine["win"].sum())
        assert report[name]["ci95"] == stats.wilson(report[name]["wins"], 9)
    assert report["paired"]["n"] == 1


def test_clue_board_same_agent_twice_needs_other_parameters():
    with pytest.raises(ValueError, match="same agent"):
        clue_board.cell("deductive-board", "deductive-board", 6)
    table = clue_board.cell("infogain-board", "infogain-board", 6, params_a={"gamble": False})
    assert [s.label for s in table.agents] == ["infogain-board", "infogain-board#B"]
    assert ex.family("infogain-board#B") == "infogain-board#B"  # not a copy: another entry


@pytest.mark.slow
def test_league_resumes_from_its_out_directory(tmp_path, monkeypatch):
    monkeypatch.setitem(league.LEAGUE, 3, (("memory-notebook", "aggressive-accuser"),))
    first = league.run("notebook", [3], deals=2, seed=4, baseline="deductive")
    (mix,) = league.mixes([3])
    league.mix_cell(mix, "notebook", 2, 4).tournament(ex.RunOptions(out=tmp_path), games=2).run()
    again = league.run("notebook", [3], deals=2, seed=4, baseline="deductive",
                       options=ex.RunOptions("processes", workers=2, out=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3p-1_deductive", "3p-1_notebook"]
    assert first == again  # the league's figures hold no clock times


def test_alibi_win_tables_seat_every_agent_in_every_seat():
    cells = alibi.win_cells(games=5)
    assert [c.games for c in cells] == [8, 8, 8]
    two = cells[2].tournament()
    assert [s.label for s in two.specs] == ["sampling", "sampling-randq", "sampling#2", "sampling-randq#2"]
    seats = Counter((seat, ex.family(label)) for i in range(two.schedule.round_size)
                    for seat, label in enumerate(two.schedule[i].seats))
    assert set(seats.values()) == {2}  # each of the two agents twice in each seat per round
    assert {c.seed for c in cells} == {cells[0].seed}  # the same deals for every table


def test_alibi_win_line_counts_copies_as_one_and_pairs_by_deal():
    # Alibi's sampling games take minutes; the same 2 v 2 table shape on cheap Clue agents
    table = ex.Cell.create("2 v 2", "clue", ["deductive", "notebook", "deductive", "notebook"], 4, 8, 3,
                           arrangement="rotate")
    games = ex.run_cells([table])[table.name]
    line = alibi.win_lines(table, games)
    family = games.assign(agent=games["agent"].map(ex.family))
    wins = int(family.loc[family["agent"] == "deductive", "win"].sum())
    lo, hi = stats.wilson(wins, 16)
    assert line.startswith("2 v 2, 8 games: per-seat win rate ")
    assert f"deductive {wins / 16:.2f} [{lo:.2f}, {hi:.2f}] (16 seats)" in line
    (want,) = stats.paired_by_deal(family, column="win")
    assert f"deductive minus notebook per deal {want['mean']:+.2f}" in line and "over 2 deals" in line


def test_alibi_updates_time_every_update_as_the_assistant_computes_it(capsys):
    """``--only updates`` through round 1: every view of one seat before the first pass is
    counted exactly (one epoch), one row per update, and the table prints them."""
    rows = alibi.bench_updates(1, last_round=1)
    assert len(rows) >= 8 and {r[1] for r in rows} == {1}
    assert {r[2] for r in rows} == {"exact"}
    assert all(r[3] >= 0 and r[4] > 0 for r in rows)
    out = capsys.readouterr().out
    assert f"| all (1-1) | {len(rows)} | exact {len(rows)} |" in out


def test_alibi_assistant_update_spreads_over_the_possible_places_after_the_first_pass():
    import numpy as np

    import solvers
    from deduce.apps.assist.session import adapter_for
    from deduce.games.alibi.rules import AlibiGame

    game = AlibiGame(num_players=4)
    adapter = adapter_for("alibi")
    obs = alibi.state_at_round(game, 0, 4).observation(0)
    grid, how, _, _ = alibi.assistant_update(game, obs, solvers.get("auto", order=adapter.backends), adapter)
    possible = np.asarray(solvers.get("epoch").possible(game.knowledge(obs)))
    assert how == "spread"
    assert np.allclose(grid, possible / possible.sum(axis=1, keepdims=True))
