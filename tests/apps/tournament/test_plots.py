"""The plots a report draws: what each shows (intervals, labels, a distinct diagonal)."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from deduce.apps.tournament import plots  # noqa: E402
from deduce.apps.tournament.results import TournamentResults  # noqa: E402
from tests.apps.tournament.test_stats import _rows  # noqa: E402


@pytest.fixture(scope="module")
def results():
    games = [[("a", 1), ("b", 0), ("c", 0)], [("b", 0), ("c", 1), ("a", 0)], [("c", 0), ("a", 1), ("b", 0)]] * 4
    return TournamentResults(_rows(games, per_deal=3), {"game": "clue", "seed": 3, "round_size": 3})


def test_win_rates_have_their_intervals(results):
    ax = plots.plot_win_rates(results)
    (bars,) = [c for c in ax.containers]
    lines = bars.lines[2][0].get_segments()  # one error bar per agent
    summary = results.summary()
    assert len(lines) == 3
    spans = sorted((round(seg[0][0], 6), round(seg[1][0], 6)) for seg in lines)
    assert spans == sorted((round(lo, 6), round(hi, 6)) for lo, hi in zip(summary["win_lo"], summary["win_hi"], strict=True))
    assert "Wilson" in ax.get_xlabel()


def test_pairwise_heat_map_labels_its_colour_bar_and_greys_the_diagonal(results):
    ax = plots.plot_pairwise(results)
    fig = ax.figure
    colour_bar = [a for a in fig.axes if a is not ax]
    assert colour_bar and "finished ahead" in colour_bar[0].get_ylabel()
    texts = {(round(t.get_position()[0]), round(t.get_position()[1])): t.get_text() for t in ax.texts}
    assert all(texts[(i, i)] == "—" for i in range(3))
    assert texts[(1, 0)] == f"{results.pairwise().loc['a', 'b']:.2f}"


def test_seat_effect_has_error_bars_and_the_legend_outside(results):
    ax = plots.plot_seat_effect(results)
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 4  # all, a, b, c
    assert all(c.errorbar is not None for c in bars)
    anchor = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    assert anchor.x0 > 1.0  # right of the bars, covering none


def test_scores_and_rating_history_and_the_files(results, tmp_path):
    ax = plots.plot_scores(results)
    assert any("95% CI over deals" in t.get_text() for t in ax.get_legend().get_texts())
    history = plots.plot_rating_history(results)
    assert len(history.lines) == 3 and history.lines[0].get_xdata()[-1] == 12
    paths = plots.write_plots(results, tmp_path)
    assert [p.name for p in paths] == list(plots.PLOTS) and all(p.stat().st_size > 5000 for p in paths)
